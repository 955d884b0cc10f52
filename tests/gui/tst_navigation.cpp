// Moving through a review with the keyboard and the mouse, as a reviewer does: one current
// file everywhere (the diff shows it, the tree selects it, the panels follow it), and F8 /
// Shift+F8 over every finding — Python or not, in the patch or not — in one order, the
// tree's, which the Findings panel lists too.
#include "ChangedFilesModel.h"
#include "FindingsModel.h"
#include "MainWindow.h"
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "diff/DiffView.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "panels/EvidenceRoles.h"
#include "repo/DemoRepository.h"

#include <QAction>
#include <QLabel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>
#include <set>

using namespace pw::gui;
using pw::test::RepoBuilder;

namespace {

const char *const kPanels[] = {"findingsPanel", "manifestPanel", "latitudePanel", "strengthPanel"};

// A patch with findings of every kind of place: a test file (head lines and a deleted
// test's base line), a golden JSON fixture (file-level F-DRIFT), an untouched ledger that
// does not parse (LEDGER:parse, outside the patch) and a source file with none.
struct Fixture
{
    RepoBuilder repo;
    std::string base, head;
    Fixture()
    {
        repo.write("tests/test_x.py", "import pytest\n\n\ndef test_a():\n    assert f() == 1\n\n\n"
                                      "def test_b():\n    assert g() == 2\n");
        repo.write("tests/fixtures/golden.json", "{\"total\": 3}\n");
        repo.write(".patchwitness/census_waiver.toml", "this is [not toml\n");
        repo.write("pkg/mod.py", "X = 1\n");
        base = repo.commit("base");
        repo.write("tests/test_x.py", "import pytest\n\n\ndef test_a():\n    assert f()\n");
        repo.write("tests/fixtures/golden.json", "{\"total\": 4}\n");
        repo.write("pkg/mod.py", "X = 2\n");
        head = repo.commit("agent");
    }
};

FindingsModel *findingsOf(MainWindow &w)
{
    return qobject_cast<FindingsModel *>(w.panel(QStringLiteral("findingsPanel"))->model());
}

QTreeView *filesView(MainWindow &w)
{
    return w.findChild<QTreeView *>(QStringLiteral("filesView"));
}

QString fileLabel(MainWindow &w)
{
    return w.findChild<QLabel *>(QStringLiteral("fileLabel"))->text();
}

// The file a finding is shown under: its own, or the renamed file whose old path it names.
QString shownPathOf(MainWindow &w, const pw::core::Finding &f)
{
    for (const pw::core::ChangedFile &c : w.runner().outcome().report.changedFiles) {
        if (c.path == f.path || (c.status == "R" && c.oldPath == f.path))
            return QString::fromStdString(c.path);
    }
    return {};
}

} // namespace

class TstNavigation : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void oneCurrentFileEverywhere();
    void f8VisitsEveryFindingInTheTreesOrder_data();
    void f8VisitsEveryFindingInTheTreesOrder();
    void theEndsOfTheHunksAndFindingsSaySo();
    void f8FromAFileJustShownStartsAtItsFileLevelFindings();
    void f8FollowsTheFindingsPanelsSort();

private:
    void open(MainWindow &w, const std::string &repo, const std::string &base = {},
              const std::string &head = {});
    // The reviewer's keys, through the window's shortcuts.
    static void press(MainWindow &w, Qt::Key key, Qt::KeyboardModifiers modifiers = {});
    // The tree, the diff and the four panels agree on the current file.
    static QString stepError(MainWindow &w);

    QTemporaryDir m_dir;
    std::string m_demo;
};

void TstNavigation::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_demo = pw::core::DemoRepository::ensure(m_dir.filePath(QStringLiteral("demo")).toStdString());
}

void TstNavigation::open(MainWindow &w, const std::string &repo, const std::string &base,
                         const std::string &head)
{
    w.setPython(QString::fromStdString(pw::test::testPython()));
    w.resize(1280, 800);
    w.resetLayout();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.openRepository(QString::fromStdString(repo), QString::fromStdString(base),
                     QString::fromStdString(head));
    w.runner().waitForFinished();
    QVERIFY(w.runner().outcome().ok);
}

void TstNavigation::press(MainWindow &w, Qt::Key key, Qt::KeyboardModifiers modifiers)
{
    w.diffView()->setFocus();
    QTest::keyClick(w.diffView(), key, modifiers);
}

QString TstNavigation::stepError(MainWindow &w)
{
    const QString current = w.currentPath();
    QItemSelectionModel *selection = filesView(w)->selectionModel();
    const QModelIndexList selected = selection->selectedRows(0);
    if (current.isEmpty()) {
        if (!selected.isEmpty())
            return QStringLiteral("no current file, yet the tree selects %1 row(s)")
                .arg(selected.size());
    } else {
        if (selected.size() != 1)
            return QStringLiteral("%1 rows selected in the tree").arg(selected.size());
        const QString inTree = selected.front().data(ChangedFilesModel::PathRole).toString();
        if (inTree != current)
            return QStringLiteral("the tree selects %1, the diff shows %2").arg(inTree, current);
        if (selection->currentIndex().siblingAtColumn(0) != selected.front())
            return QStringLiteral("the tree's current row is not its selected row");
        if (!fileLabel(w).startsWith(current))
            return QStringLiteral("the file label reads %1").arg(fileLabel(w));
    }
    for (const char *name : kPanels) {
        EvidencePanel *p = w.panel(QString::fromLatin1(name));
        const QString expected = p->followsFile() ? current : QString();
        if (p->fileFilter() != expected)
            return QStringLiteral("%1 is filtered to \"%2\", not \"%3\"")
                .arg(QString::fromLatin1(name), p->fileFilter(), expected);
        const QAbstractItemModel *shown = p->view()->model();
        for (int r = 0; r < shown->rowCount(); ++r) {
            const QString path = shown->index(r, 0).data(PathRole).toString();
            if (!expected.isEmpty() && path != expected &&
                path != p->proxy()->renamedFrom(expected))
                return QStringLiteral("%1 shows a row of %2").arg(QString::fromLatin1(name), path);
        }
    }
    return {};
}

void TstNavigation::oneCurrentFileEverywhere()
{
    MainWindow w;
    open(w, m_demo);
    QCOMPARE(w.currentPath(), QStringLiteral("tests/test_rounding.py"));
    QVERIFY2(stepError(w).isEmpty(), qPrintable(stepError(w)));
    const QStringList files =
        qobject_cast<ChangedFilesModel *>(filesView(w)->model())->pathsInTreeOrder();
    QCOMPARE(files.size(), 13);

    // Ctrl+PgDown / Ctrl+PgUp through every file: the panels never keep an old file.
    for (int i = 0; i < files.size(); ++i) {
        const int at = int(files.indexOf(w.currentPath()));
        press(w, Qt::Key_PageDown, Qt::ControlModifier);
        QCOMPARE(w.currentPath(), files.at((at + 1) % files.size()));
        QVERIFY2(stepError(w).isEmpty(), qPrintable(stepError(w)));
    }
    press(w, Qt::Key_PageUp, Qt::ControlModifier);
    QVERIFY2(stepError(w).isEmpty(), qPrintable(stepError(w)));

    // A click in the tree is the same as a step.
    QTreeView *tree = filesView(w);
    auto *model = qobject_cast<ChangedFilesModel *>(tree->model());
    const QModelIndex parsing = model->indexOfPath(QStringLiteral("tests/test_parsing.py"));
    tree->scrollTo(parsing);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(parsing).center());
    QCOMPARE(w.currentPath(), QStringLiteral("tests/test_parsing.py"));
    QVERIFY2(stepError(w).isEmpty(), qPrintable(stepError(w)));
    QVERIFY(w.panel(QStringLiteral("latitudePanel"))->view()->model()->rowCount() > 0);

    // F8 moves the file too; every step keeps one selection.
    for (int i = 0; i < 12; ++i) {
        press(w, Qt::Key_F8);
        QVERIFY2(stepError(w).isEmpty(), qPrintable(QString::number(i) + ": " + stepError(w)));
    }

    // The ✕ of one panel's chip shows every row in all four, and they stay so; "only current
    // file" in any of them follows again.
    EvidencePanel *manifest = w.panel(QStringLiteral("manifestPanel"));
    auto *chip = manifest->findChild<QToolButton *>(QStringLiteral("fileFilterChip"));
    QVERIFY(chip->isVisible());
    chip->click();
    for (const char *name : kPanels) {
        EvidencePanel *p = w.panel(QString::fromLatin1(name));
        QVERIFY(!p->followsFile());
        QCOMPARE(p->fileFilter(), QString());
        QCOMPARE(p->view()->model()->rowCount(), p->model()->rowCount());
    }
    press(w, Qt::Key_PageDown, Qt::ControlModifier);
    QVERIFY2(stepError(w).isEmpty(), qPrintable(stepError(w)));
    EvidencePanel *findings = w.panel(QStringLiteral("findingsPanel"));
    auto *follow = findings->findChild<QToolButton *>(QStringLiteral("followFileButton"));
    QVERIFY(follow && follow->isVisible());
    follow->click();
    for (const char *name : kPanels)
        QVERIFY(w.panel(QString::fromLatin1(name))->followsFile());
    QVERIFY2(stepError(w).isEmpty(), qPrintable(stepError(w)));
    QVERIFY(!follow->isVisible());

    // A re-audit (F5) keeps the file and the step.
    const QString before = w.currentPath();
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QTRY_COMPARE(w.currentPath(), before);
    QVERIFY2(stepError(w).isEmpty(), qPrintable(stepError(w)));
}

void TstNavigation::f8VisitsEveryFindingInTheTreesOrder_data()
{
    QTest::addColumn<bool>("demo");
    QTest::newRow("demo") << true;
    QTest::newRow("fixture, ledger and JSON") << false;
}

void TstNavigation::f8VisitsEveryFindingInTheTreesOrder()
{
    QFETCH(bool, demo);
    Fixture fixture;
    MainWindow w;
    if (demo)
        open(w, m_demo);
    else
        open(w, fixture.repo.root(), fixture.base, fixture.head);
    FindingsModel *model = findingsOf(w);
    const int n = model->rowCount();
    QCOMPARE(n, int(w.report().findings.size()));
    QVERIFY(n >= (demo ? 28 : 7));
    EvidencePanel *panel = w.panel(QStringLiteral("findingsPanel"));
    const QStringList tree =
        qobject_cast<ChangedFilesModel *>(filesView(w)->model())->pathsInTreeOrder();

    // Start before the first finding: the first file of the tree.
    w.findChild<QAction *>(QStringLiteral("actionNextFile"))->trigger();
    while (w.currentPath() != tree.front())
        w.findChild<QAction *>(QStringLiteral("actionNextFile"))->trigger();
    w.diffView()->scrollToLine(1);

    std::vector<int> visited;
    bool sawFixture = false, sawOutside = false;
    for (int i = 0; i < n; ++i) {
        press(w, Qt::Key_F8);
        const int row = panel->currentSourceRow();
        QVERIFY2(row >= 0, qPrintable(QStringLiteral("step %1: no current finding").arg(i)));
        visited.push_back(row);
        const pw::core::Finding &f = model->finding(row);
        const QString path = QString::fromStdString(f.path);
        const QString shown = shownPathOf(w, f);
        QVERIFY2(w.statusBar()->currentMessage().startsWith(
                     QStringLiteral("Finding %1 of %2 · ").arg(i + 1).arg(n)),
                 qPrintable(w.statusBar()->currentMessage()));
        QCOMPARE(w.currentPath(), shown);
        if (shown.isEmpty()) {
            // Outside the patch: named where the file's name goes, every panel unfiltered.
            sawOutside = true;
            QVERIFY(!w.diffView()->hasFile());
            QVERIFY2(fileLabel(w).contains(QStringLiteral("is not changed by the patch")) ||
                         fileLabel(w).contains(QStringLiteral("is not about one file")),
                     qPrintable(fileLabel(w)));
            QVERIFY(fileLabel(w).contains(QString::fromStdString(f.code)));
        } else {
            sawFixture = sawFixture || !path.endsWith(QLatin1String(".py"));
            // Its line, or, for a line the diff does not show, the nearest hunk's header
            // (the file's note when it has no hunk: a pure rename).
            if (f.line > 0 && w.diffView()->currentLine() != f.line)
                QVERIFY(w.diffView()->rowKind(w.diffView()->currentRow()) != DiffRow::Kind::Line);
            QVERIFY(w.diffView()->rowMarker(w.diffView()->currentRow()).has_value());
        }
        QVERIFY2(stepError(w).isEmpty(), qPrintable(QString::number(i) + ": " + stepError(w)));
    }
    QVERIFY2(sawFixture, "F8 never reached a finding outside a Python file");
    if (!demo)
        QVERIFY2(sawOutside, "F8 never reached the ledger's finding");

    // Every finding once, in the tree's order: file by file as the tree lists them (files
    // outside the patch after it), line by line within a file.
    QCOMPARE(int(std::set<int>(visited.begin(), visited.end()).size()), n);
    for (size_t i = 1; i < visited.size(); ++i)
        QVERIFY2(model->place(visited[i - 1]) <= model->place(visited[i]),
                 qPrintable(QStringLiteral("step %1 goes back").arg(i)));
    int lastFile = -1;
    for (int row : visited) {
        const QString shown = shownPathOf(w, model->finding(row));
        const int rank = shown.isEmpty() ? int(tree.size()) : int(tree.indexOf(shown));
        QVERIFY(rank >= lastFile);
        lastFile = rank;
    }
    // The Findings panel lists them in that order too.
    panel->setFollowsFile(false);
    QCOMPARE(panel->proxy()->sourceRowsInOrder(), visited);
    for (int r = 0; r < n; ++r)
        QCOMPARE(panel->proxy()->mapToSource(panel->proxy()->index(r, 0)).row(),
                 visited[size_t(r)]);
    panel->setFollowsFile(true);

    // Shift+F8 walks back the same way.
    for (int i = n - 2; i >= 0; --i) {
        press(w, Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(panel->currentSourceRow(), visited[size_t(i)]);
    }

    // A click on a finding and F8 from there: the next one.
    panel->setFollowsFile(false);
    QTreeView *view = panel->view();
    const QModelIndex third = view->model()->index(2, 0);
    view->scrollTo(third);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(third).center());
    QCOMPARE(panel->currentSourceRow(), visited[2]);
    press(w, Qt::Key_F8);
    QCOMPARE(panel->currentSourceRow(), visited[3]);
}

void TstNavigation::theEndsOfTheHunksAndFindingsSaySo()
{
    Fixture fixture;
    MainWindow w;
    open(w, fixture.repo.root(), fixture.base, fixture.head);
    EvidencePanel *panel = w.panel(QStringLiteral("findingsPanel"));
    const std::vector<int> order = panel->proxy()->sourceRowsInOrder();

    // Alt+Down at the last hunk of a file says so and stays.
    w.findChild<QAction *>(QStringLiteral("actionNextFile"))->trigger();
    while (w.currentPath() != QStringLiteral("tests/test_x.py"))
        w.findChild<QAction *>(QStringLiteral("actionNextFile"))->trigger();
    for (int i = 0; i < 10; ++i)
        press(w, Qt::Key_Down, Qt::AltModifier);
    QCOMPARE(w.currentPath(), QStringLiteral("tests/test_x.py"));
    QVERIFY2(w.statusBar()->currentMessage().startsWith(
                 QStringLiteral("The last hunk of tests/test_x.py")),
             qPrintable(w.statusBar()->currentMessage()));

    // F8 past the last finding goes round to the first and says so; Shift+F8 back.
    const int last = order.back();
    for (int i = 0; i < int(order.size()) && panel->currentSourceRow() != last; ++i)
        press(w, Qt::Key_F8);
    QCOMPARE(panel->currentSourceRow(), last);
    press(w, Qt::Key_F8);
    QCOMPARE(panel->currentSourceRow(), order.front());
    QVERIFY2(w.statusBar()->currentMessage().endsWith(
                 QStringLiteral("past the last finding: back to the first")),
             qPrintable(w.statusBar()->currentMessage()));
    press(w, Qt::Key_F8, Qt::ShiftModifier);
    QCOMPARE(panel->currentSourceRow(), last);
    QVERIFY(w.statusBar()->currentMessage().endsWith(
        QStringLiteral("before the first finding: on to the last")));
}

// Ctrl+PgDown onto the golden fixture (only a file-level F-DRIFT there) and F8: that one,
// not the next file's.
void TstNavigation::f8FromAFileJustShownStartsAtItsFileLevelFindings()
{
    Fixture fixture;
    MainWindow w;
    open(w, fixture.repo.root(), fixture.base, fixture.head);
    while (w.currentPath() != QStringLiteral("tests/fixtures/golden.json"))
        press(w, Qt::Key_PageDown, Qt::ControlModifier);
    press(w, Qt::Key_F8);
    EvidencePanel *panel = w.panel(QStringLiteral("findingsPanel"));
    QCOMPARE(QString::fromStdString(findingsOf(w)->finding(panel->currentSourceRow()).code),
             QStringLiteral("F-DRIFT"));
    QCOMPARE(w.currentPath(), QStringLiteral("tests/fixtures/golden.json"));
}

// Sorted by severity (many ties), F8 walks the rows as the panel lists them, however the
// file filter brought them back.
void TstNavigation::f8FollowsTheFindingsPanelsSort()
{
    MainWindow w;
    open(w, m_demo);
    EvidencePanel *panel = w.panel(QStringLiteral("findingsPanel"));
    panel->sortBy(FindingsModel::SeverityColumn, Qt::DescendingOrder);
    const int n = panel->model()->rowCount();
    std::vector<int> visited;
    for (int i = 0; i < n; ++i) {
        press(w, Qt::Key_F8);
        visited.push_back(panel->currentSourceRow());
    }
    panel->setFollowsFile(false);
    std::vector<int> listed;
    for (int r = 0; r < panel->proxy()->rowCount(); ++r)
        listed.push_back(panel->proxy()->mapToSource(panel->proxy()->index(r, 0)).row());
    QCOMPARE(int(listed.size()), n);
    QCOMPARE(panel->proxy()->sourceRowsInOrder(), listed);
    // Wherever F8 started, it went round the panel's list once, in its order.
    const auto start = std::find(listed.begin(), listed.end(), visited.front());
    QVERIFY(start != listed.end());
    std::rotate(listed.begin(), start, listed.end());
    QCOMPARE(visited, listed);
}

QTEST_MAIN(TstNavigation)
#include "tst_navigation.moc"
