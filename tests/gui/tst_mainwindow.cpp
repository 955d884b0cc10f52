// The workbench window driven through its real widgets, found by object name (never by
// position): the audit fills every panel, selections travel between panels and the diff,
// marks reset when a file changes, errors keep the window usable, and a huge patch does
// not block the event loop.
#include "ChangedFilesModel.h"
#include "FindingsModel.h"
#include "MainWindow.h"
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "diff/DiffView.h"
#include "ledgers/LedgerDesk.h"
#include "ledgers/LedgerEventsModel.h"
#include "ledgers/LedgerFormDialog.h"
#include "ledgers/LedgerHistoryPanel.h"
#include "ledgers/LedgersModel.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "repo/DemoRepository.h"
#include "runs/RunController.h"
#include "runs/RunDesk.h"
#include "util/Files.h"
#include "workspace/RevisionPicker.h"
#include "workspace/ShortcutsDialog.h"
#include "workspace/VerdictHeader.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>
#include <csignal>
#include <filesystem>

using namespace pw::gui;
using pw::test::RepoBuilder;

namespace {

const char *kBase = "import pytest\n\n\ndef test_a():\n    assert f() == 1\n\n\ndef test_b():\n    "
                    "assert g() == 2\n";
const char *kHead = "import pytest\n\n\ndef test_a():\n    assert f()\n";

// The run-findings repository: pkg/calc.py's double() and its test; kDoubleBroken is the
// agent's "simplification" that breaks it.
const char *kCalcTests = "from pkg.calc import double\n\n\n"
                         "def test_double():\n    assert double(3) == 6\n";
const char *kDoubleBroken = "def double(x):\n    return 2 + x\n";

std::string commitCalc(RepoBuilder &repo)
{
    repo.write("pkg/__init__.py", "VERSION = 1\n");
    repo.write("pkg/calc.py", "def double(x):\n    return 2 * x\n");
    repo.write("tests/test_calc.py", kCalcTests);
    return repo.commit("base");
}

struct AppRun
{
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString out, err;
};

// The workbench binary, as a user starts it: `display` false removes every way to a
// display (DISPLAY, WAYLAND_DISPLAY, QT_QPA_PLATFORM); true renders offscreen.
AppRun runApp(const QStringList &args, bool display)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(name));
    if (display)
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(PW_APP_PATH), args);
    if (!p.waitForFinished(120000))
        p.kill();
    return {p.exitCode(), p.exitStatus(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

QTreeView *panelView(MainWindow &w, const char *panel)
{
    EvidencePanel *p = w.panel(QString::fromLatin1(panel));
    return p ? p->view() : nullptr;
}

int rowOf(QAbstractItemModel *model, int column, const QString &text)
{
    for (int r = 0; r < model->rowCount(); ++r) {
        if (model->index(r, column).data().toString() == text)
            return r;
    }
    return -1;
}

} // namespace

class TstMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsTheAudit();
    void selectingAFindingScrollsTheDiffAndModeKeepsIt();
    void badRevisionKeepsTheWindowUsable();
    void viewedMarkResetsWhenTheFileChanges();
    void demoFillsEveryPanel();
    void fileNamesAndPanelTabsAreWhole();
    void aRepositoryWithoutItsWorkTreeReviewsHead_data();
    void aRepositoryWithoutItsWorkTreeReviewsHead();
    void runFindingsJoinTheVerdict();
    void theVerdictExplainsItselfAndLinksItsFindings();
    void writingAnEntryKeepsTheComparison_data();
    void writingAnEntryKeepsTheComparison();
    void everyShortcutReachesOneAction();
    void aPanelShortcutShowsAndNeverHides();
    void shortcutsDialogListsEveryShortcut();
    void worktreeRunFindingsLastUntilTheCodeChanges();
    void hugePatchDoesNotBlockTheEventLoop();
    void stopAuditEndsItAndKeepsTheLastOutcome();
    void withoutADisplayOnlyWhatNeedsNoWindowStarts();
    void screenshotOfAFailedAuditExitsThree();

private:
    void open(MainWindow &w, const std::string &repo, const std::string &base,
              const std::string &head);
    // A window whose run jobs need no consent question.
    static void allowRuns(MainWindow &w);
    // Until the window's run jobs (and the queue) are done: false after two minutes.
    static bool waitForRuns(MainWindow &w);
    std::unique_ptr<RepoBuilder> m_repo;
    std::string m_base, m_head;
};

void TstMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // settings, marks and the demo stay out of $HOME
    m_repo = std::make_unique<RepoBuilder>();
    m_repo->write("tests/test_x.py", kBase);
    m_base = m_repo->commit("base");
    m_repo->write("tests/test_x.py", kHead);
    m_head = m_repo->commit("head");
}

void TstMainWindow::open(MainWindow &w, const std::string &repo, const std::string &base,
                         const std::string &head)
{
    w.setPython(QString::fromStdString(pw::test::testPython()));
    w.resize(1280, 800);
    w.show();
    w.openRepository(QString::fromStdString(repo), QString::fromStdString(base),
                     QString::fromStdString(head));
    w.runner().waitForFinished();
}

void TstMainWindow::allowRuns(MainWindow &w)
{
    w.runDesk()->setConsentHandler([](const QString &, const QString &) { return true; });
    w.runDesk()->setRememberConsent(false);
}

bool TstMainWindow::waitForRuns(MainWindow &w)
{
    RunController *runs = w.runDesk()->controller();
    QElapsedTimer clock;
    clock.start();
    while (runs->isBusy() && clock.elapsed() < 120000)
        QTest::qWait(20);
    QTest::qWait(50); // the finished job's results reach the panels
    return !runs->isBusy();
}

void TstMainWindow::showsTheAudit()
{
    MainWindow w;
    // Issue 20 item 9: without a file the diff says why, never "Select a changed file".
    QVERIFY2(w.diffView()->message().startsWith(QLatin1String("Open a repository")),
             qPrintable(w.diffView()->message()));
    open(w, m_repo->root(), m_base, m_head);
    auto *chip = w.findChild<QLabel *>(QStringLiteral("verdictChip"));
    QVERIFY2(chip->text().startsWith(QLatin1String("BLOCK")), qPrintable(chip->text()));
    QTreeView *findings = panelView(w, "findingsPanel");
    QVERIFY(findings);
    QCOMPARE(findings->model()->rowCount(), int(w.runner().outcome().report.findings.size()));
    QVERIFY(findings->model()->rowCount() >= 4); // T-DEL, BLOCKER:deleted, LATITUDE, WEAKER…
    auto *files = w.findChild<QTreeView *>(QStringLiteral("filesView"));
    QCOMPARE(w.currentPath(), QStringLiteral("tests/test_x.py"));
    QVERIFY(files->currentIndex().isValid());
    QVERIFY(w.diffView()->hasFile());
    QVERIFY(w.diffView()->rowCount() > 3);
    // Issue 20 item 9: a panel's header counts the rows it shows ("no changed tests" sat
    // above the Oracle strength rows, counted before they arrived).
    EvidencePanel *strength = w.panel(QStringLiteral("strengthPanel"));
    QVERIFY(strength->model()->rowCount() > 0);
    QVERIFY2(!strength->summary().contains(QLatin1String("no changed tests")),
             qPrintable(strength->summary()));
}

void TstMainWindow::selectingAFindingScrollsTheDiffAndModeKeepsIt()
{
    MainWindow w;
    open(w, m_repo->root(), m_base, m_head);
    QTreeView *findings = panelView(w, "findingsPanel");
    const int row = rowOf(findings->model(), 1, QStringLiteral("LATITUDE"));
    QVERIFY(row >= 0);
    QSignalSpy activated(w.panel(QStringLiteral("findingsPanel")), &EvidencePanel::rowActivated);
    findings->setFocus();
    findings->setCurrentIndex(findings->model()->index(row, 0));
    QTest::keyClick(findings, Qt::Key_Return); // the reviewer activates the row
    QVERIFY(!activated.isEmpty());
    QCOMPARE(activated.last().at(0).toString(), QStringLiteral("tests/test_x.py"));
    QCOMPARE(w.diffView()->currentLine(), 4); // test_a's def at head
    // side-by-side ⇄ unified keeps the selected line
    QAction *sideBySide = w.findChild<QAction *>(QStringLiteral("actionSideBySide"));
    QVERIFY(sideBySide->isChecked());
    sideBySide->trigger();
    QCOMPARE(int(w.diffView()->mode()), int(DiffMode::Unified));
    QCOMPARE(w.diffView()->currentLine(), 4);
    sideBySide->trigger();
    QCOMPARE(int(w.diffView()->mode()), int(DiffMode::SideBySide));
    QCOMPARE(w.diffView()->currentLine(), 4);
}

void TstMainWindow::badRevisionKeepsTheWindowUsable()
{
    MainWindow w;
    open(w, m_repo->root(), "no-such-rev", m_head);
    auto *chip = w.findChild<QLabel *>(QStringLiteral("verdictChip"));
    QCOMPARE(chip->text(), QStringLiteral("error"));
    auto *fileLabel = w.findChild<QLabel *>(QStringLiteral("fileLabel"));
    QVERIFY2(fileLabel->text().contains(QLatin1String("unknown revision 'no-such-rev'")),
             qPrintable(fileLabel->text()));
    QVERIFY2(w.diffView()->message().contains(QLatin1String("unknown revision 'no-such-rev'")),
             qPrintable(w.diffView()->message())); // where the diff would be, not "Select …"
    auto *header = w.findChild<VerdictHeader *>(QStringLiteral("verdictHeader"));
    QVERIFY(header->plainText().startsWith(QLatin1String("The audit could not run")));
    QTreeView *log = panelView(w, "logPanel");
    QVERIFY(log->model()->rowCount() >= 1); // the error is in the log
    // fix the revision and audit again from the same window
    w.findChild<RevisionPicker *>(QStringLiteral("basePicker"))
        ->setSpec(QString::fromStdString(m_base));
    QTest::mouseClick(w.findChild<QPushButton *>(QStringLiteral("auditButton")), Qt::LeftButton);
    w.runner().waitForFinished();
    QVERIFY2(chip->text().startsWith(QLatin1String("BLOCK")), qPrintable(chip->text()));
}

void TstMainWindow::viewedMarkResetsWhenTheFileChanges()
{
    RepoBuilder repo;
    repo.write("tests/test_x.py", kBase);
    const std::string base = repo.commit("base");
    repo.write("tests/test_x.py", kHead); // uncommitted: head is WORKTREE
    MainWindow w;
    open(w, repo.root(), base, "WORKTREE");
    auto *files = w.findChild<QTreeView *>(QStringLiteral("filesView"));
    auto *model = qobject_cast<ChangedFilesModel *>(files->model());
    QVERIFY(model);
    const QModelIndex viewed =
        model->indexOfPath(QStringLiteral("tests/test_x.py"), ChangedFilesModel::ViewedColumn);
    QVERIFY(model->setData(viewed, Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(model->viewedCount(), 1);
    // auditing the same head again keeps the mark
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QCOMPARE(model->viewedCount(), 1);
    // the agent changes the file again: the mark no longer applies
    repo.write("tests/test_x.py", std::string(kHead) + "\n\ndef test_c():\n    assert h() == 3\n");
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QCOMPARE(model->viewedCount(), 0);
}

// One report: a patch that only touches the code passes the static gates; its
// attribution (PATCH_INDUCED) turns the window's verdict to BLOCK, lists the finding and
// goes into the exported report — until another comparison is opened.
// Issue 20 item 10: the verdict header says what decided the verdict, one clause per deed
// ("deletes 1 test", block ones first), each a link that goes to its findings in turn; the
// chip's tooltip says the same and a click on it goes to the first of them.
void TstMainWindow::theVerdictExplainsItselfAndLinksItsFindings()
{
    MainWindow w;
    open(w, m_repo->root(), m_base, m_head);
    auto *header = w.findChild<VerdictHeader *>(QStringLiteral("verdictHeader"));
    QVERIFY(header);
    QVERIFY(header->isVisible());
    QVERIFY2(header->plainText().startsWith(QLatin1String("BLOCK: the patch deletes 1 test")),
             qPrintable(header->plainText()));
    const std::vector<VerdictClause> &clauses = header->clauses();
    QVERIFY(clauses.size() >= 2);
    QCOMPARE(clauses.front().severity, pw::core::Severity::Block);
    QCOMPARE(clauses.front().codes, QStringList({"T-DEL", "BLOCKER:deleted"}));
    QCOMPARE(clauses.front().findings, 2);
    for (size_t i = 1; i < clauses.size(); ++i) // block clauses before review ones
        QVERIFY(clauses[i - 1].severity >= clauses[i].severity);
    QVERIFY(header->text().contains(QLatin1String("<a href=\"0\">deletes 1 test</a>")));

    // The clause's link: its findings one after the other, the Findings panel in front.
    Q_EMIT header->linkActivated(QStringLiteral("0"));
    QCOMPARE(w.currentPath(), QStringLiteral("tests/test_x.py"));
    QVERIFY2(w.statusBar()->currentMessage().contains("1 of 2 for this clause"),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.diffView()->currentLineIsOldSide()); // the deleted test's base line
    Q_EMIT header->linkActivated(QStringLiteral("0"));
    QVERIFY2(w.statusBar()->currentMessage().contains("2 of 2 for this clause"),
             qPrintable(w.statusBar()->currentMessage()));
    Q_EMIT header->linkActivated(QStringLiteral("0"));
    QVERIFY(w.statusBar()->currentMessage().contains("1 of 2 for this clause"));

    auto *chip = w.findChild<QLabel *>(QStringLiteral("verdictChip"));
    QVERIFY(chip->toolTip().contains(header->plainText()));
    QTest::mouseClick(chip, Qt::LeftButton);
    QVERIFY(w.statusBar()->currentMessage().contains("for this clause"));
}

void TstMainWindow::writingAnEntryKeepsTheComparison_data()
{
    QTest::addColumn<bool>("outside"); // the ledger directory outside the repository
    QTest::newRow("ledger dir in the repository") << false;
    QTest::newRow("ledger dir outside it") << true;
}

// Issue 20 item 7: a waiver written through the form lands where it says, the comparison on
// screen stays (a default head does not turn into WORKTREE, the entry does not join the
// agent's patch), and the form, the log, the status bar and the Ledgers panel say when it
// counts: once committed on the base, or at once for a directory outside the repository.
void TstMainWindow::writingAnEntryKeepsTheComparison()
{
    QFETCH(bool, outside);
    RepoBuilder repo;
    QTemporaryDir reviewers;
    repo.write("calc.py", "def add(a, b):\n    return a + b\n");
    repo.write("tests/test_calc.py", "import calc\n\n\ndef test_one():\n    assert calc.add(1, 1) "
                                     "== 2\n\n\ndef test_two():\n    assert calc.add(2, 2) == 4\n");
    repo.commit("base");
    repo.write("tests/test_calc.py",
               "import calc\n\n\ndef test_one():\n    assert calc.add(1, 1) == 2\n");
    repo.commit("agent: drop test_two");

    MainWindow w;
    if (outside)
        w.setLedgerDir(reviewers.path()); // --ledger-dir
    open(w, repo.root(), "", "");         // the default comparison: HEAD~1 → HEAD
    QVERIFY2(w.runner().outcome().ok, qPrintable(w.runner().outcome().error));
    const pw::core::GateReport before = w.runner().outcome().report;
    QCOMPARE(before.head.rev, std::string("HEAD"));
    QCOMPARE(before.changedFiles.size(), size_t(1));
    const std::string node = "tests/test_calc.py::test_two";
    auto unsatisfiedDeletion = [&](const pw::core::GateReport &r) {
        return std::any_of(r.findings.begin(), r.findings.end(), [&](const pw::core::Finding &f) {
            return f.code == "T-DEL" && f.test == node && !f.satisfiedBy;
        });
    };
    QVERIFY(unsatisfiedDeletion(before));

    LedgerFormDialog *dialog = w.ledgerDesk()->approveWaiver(QString::fromStdString(node));
    QVERIFY(dialog);
    const QString fileLabel = dialog->findChild<QLabel *>(QStringLiteral("fileLabel"))->text();
    QVERIFY2(fileLabel.contains(outside ? "outside the repository" : "committed there"),
             qPrintable(fileLabel));
    QWidget *form = dialog->form();
    auto *reason = form->findChild<QComboBox *>(QStringLiteral("reasonCombo"));
    reason->setCurrentIndex(reason->findText(QStringLiteral("duplicate-coverage")));
    form->findChild<QLineEdit *>(QStringLiteral("byEdit"))->setText(QStringLiteral("Ada"));
    form->findChild<QComboBox *>(QStringLiteral("witnessCombo"))
        ->setCurrentText(QStringLiteral("tests/test_calc.py::test_one"));
    QTRY_VERIFY2(dialog->isValid(), qPrintable(dialog->generalProblems()));
    QTest::keyClick(dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok),
                    Qt::Key_Space);
    const QString written = outside ? reviewers.filePath(QStringLiteral("census_waiver.toml"))
                                    : QString::fromStdString(repo.root()) +
                                          QStringLiteral("/.patchwitness/census_waiver.toml");
    QVERIFY(QFileInfo::exists(written));
    w.runner().waitForFinished();
    QTest::qWait(50);

    // The same comparison, named in the boxes, the reviewer's file not part of it.
    const AuditOutcome &after = w.runner().outcome();
    QVERIFY2(after.ok, qPrintable(after.error));
    QCOMPARE(after.report.head.rev, std::string("HEAD"));
    QCOMPARE(after.report.base.commit, before.base.commit);
    QCOMPARE(after.report.changedFiles.size(), before.changedFiles.size());
    QCOMPARE(w.findChild<RevisionPicker *>(QStringLiteral("headPicker"))->spec(),
             QStringLiteral("HEAD"));
    QVERIFY(!w.findChild<RevisionPicker *>(QStringLiteral("basePicker"))->spec().isEmpty());
    const QString status = w.statusBar()->currentMessage();
    QVERIFY2(status.contains(QDir::toNativeSeparators(written)), qPrintable(status));

    QTreeView *ledgers = panelView(w, "ledgersPanel");
    const int row =
        rowOf(ledgers->model(), LedgersModel::EntryColumn, QString::fromStdString(node));
    QVERIFY(row >= 0);
    const QString badge =
        ledgers->model()->index(row, LedgersModel::StatusColumn).data().toString();
    if (outside) {
        // The gate reads that directory: the waiver answers the deletion at once.
        QVERIFY2(status.contains("counts from the next audit"), qPrintable(status));
        QCOMPARE(badge, QStringLiteral("valid"));
        QVERIFY(!unsatisfiedDeletion(after.report));
    } else {
        QVERIFY2(status.contains("once it is committed there"), qPrintable(status));
        QCOMPARE(badge, QStringLiteral("valid · not on base"));
        QVERIFY(ledgers->model()
                    ->index(row, LedgersModel::StatusColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("until it is committed there"));
        QVERIFY(
            w.panel(QStringLiteral("ledgersPanel"))->summary().contains("1 not on the base yet"));
        QVERIFY(unsatisfiedDeletion(after.report)); // not yet: the base has no such waiver
    }
}

void TstMainWindow::runFindingsJoinTheVerdict()
{
    RepoBuilder repo;
    const std::string base = commitCalc(repo);
    repo.write("pkg/calc.py", kDoubleBroken);
    const std::string head = repo.commit("agent: 'simplify' double");

    MainWindow w;
    allowRuns(w);
    open(w, repo.root(), base, head);
    QVERIFY2(w.verdictText().startsWith(QStringLiteral("PASS")), qPrintable(w.verdictText()));

    const QString test = QStringLiteral("tests/test_calc.py::test_double");
    QVERIFY(w.runDesk()->startAttribution(test));
    QVERIFY(waitForRuns(w));
    QVERIFY2(w.verdictText().startsWith(QStringLiteral("BLOCK · 1 block")) &&
                 w.verdictText().endsWith(QStringLiteral("with runs")),
             qPrintable(w.verdictText() + QStringLiteral(" — ") +
                        w.runDesk()->attributionTable()->summary()));
    const pw::core::GateReport report = w.report();
    QCOMPARE(report.verdict, pw::core::Verdict::Block);
    const auto induced =
        std::find_if(report.findings.begin(), report.findings.end(),
                     [](const pw::core::Finding &f) { return f.code == "A-PATCH_INDUCED"; });
    QVERIFY(induced != report.findings.end());
    QCOMPARE(induced->gate, std::string("run"));
    QCOMPARE(QString::fromStdString(induced->test), test);
    QCOMPARE(induced->path, std::string("tests/test_calc.py"));
    // The Findings panel follows the file shown (pkg/calc.py): the run's finding is about
    // another file, so it is listed once the reviewer asks for every file.
    QAbstractItemModel *findings = panelView(w, "findingsPanel")->model();
    auto listed = [findings] {
        for (int r = 0; r < findings->rowCount(); ++r) {
            if (findings->index(r, 1).data().toString() == "A-PATCH_INDUCED")
                return r;
        }
        return -1;
    };
    QCOMPARE(w.currentPath(), QStringLiteral("pkg/calc.py"));
    QCOMPARE(listed(), -1);
    auto *chip =
        w.panel(QStringLiteral("findingsPanel"))->findChild<QToolButton *>("fileFilterChip");
    QVERIFY(chip && chip->isVisible());
    chip->click();
    QVERIFY(listed() >= 0);
    // Picking it: the test file is not in the patch, so no diff is shown and the file's
    // label says why (not "no textual change").
    QTreeView *view = panelView(w, "findingsPanel");
    view->setCurrentIndex(view->model()->index(listed(), 0));
    QCOMPARE(w.currentPath(), QString());
    QVERIFY(!w.diffView()->hasFile());
    auto *label = w.findChild<QLabel *>(QStringLiteral("fileLabel"));
    QVERIFY2(label->text().startsWith(
                 QStringLiteral("tests/test_calc.py is not changed by the patch; BLOCK "
                                "A-PATCH_INDUCED")),
             qPrintable(label->text()));
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("A-PATCH_INDUCED")),
             qPrintable(w.statusBar()->currentMessage()));

    // Another comparison: the runs answered for the old one, not this.
    w.openRepository(QString::fromStdString(repo.root()), QString::fromStdString(base),
                     QString::fromStdString(base));
    w.runner().waitForFinished();
    QVERIFY2(w.verdictText().startsWith(QStringLiteral("PASS")), qPrintable(w.verdictText()));
    QVERIFY(!w.verdictText().contains(QStringLiteral("with runs")));
}

// A WORKTREE head: the run's finding counts in the changed-files tree too; it survives a
// re-audit after a ledger edit (granting from evidence must not discard it) and hiding
// whitespace-only changes in the diff, and is dropped when the code it judged changes.
void TstMainWindow::worktreeRunFindingsLastUntilTheCodeChanges()
{
    RepoBuilder repo;
    const std::string base = commitCalc(repo);
    repo.write("pkg/calc.py", kDoubleBroken);
    repo.write("tests/test_calc.py", std::string(kCalcTests) + "\n\n"
                                                               "def test_zero():\n"
                                                               "    assert double(0) == 0\n");
    repo.write("pkg/__init__.py", "VERSION  =  1\n"); // a whitespace-only change
    MainWindow w;
    allowRuns(w);
    open(w, repo.root(), base, "WORKTREE");
    auto *model = qobject_cast<ChangedFilesModel *>(
        w.findChild<QTreeView *>(QStringLiteral("filesView"))->model());
    const auto badge = [model] {
        return model
            ->indexOfPath(QStringLiteral("tests/test_calc.py"), ChangedFilesModel::BadgeColumn)
            .data()
            .toString();
    };
    QVERIFY2(!badge().contains(QStringLiteral("block")), qPrintable(badge()));
    QVERIFY(w.runDesk()->startAttribution(QStringLiteral("tests/test_calc.py::test_double")));
    QVERIFY(waitForRuns(w));
    QVERIFY2(w.verdictText().contains(QStringLiteral("with runs")), qPrintable(w.verdictText()));
    QVERIFY2(badge().contains(QStringLiteral("1 block")), qPrintable(badge()));

    // A ledger edit: the same comparison, the finding stays.
    repo.write(".patchwitness/notes.md", "reviewed\n");
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QVERIFY2(w.verdictText().contains(QStringLiteral("with runs")), qPrintable(w.verdictText()));
    // Hiding whitespace-only changes drops pkg/__init__.py from the diff shown, not from
    // what the runs ran: the finding stays.
    w.findChild<QAction *>(QStringLiteral("actionIgnoreWhitespace"))->setChecked(true);
    w.runner().waitForFinished();
    const auto shown = [&w](const char *path) {
        const auto &files = w.runner().outcome().diff.files;
        return std::any_of(files.begin(), files.end(),
                           [path](const pw::core::FileDiff &f) { return f.path() == path; });
    };
    QVERIFY(!shown("pkg/__init__.py"));
    QVERIFY(shown("pkg/calc.py"));
    QVERIFY2(w.verdictText().contains(QStringLiteral("with runs")), qPrintable(w.verdictText()));
    // The same content under another file mode is another tree: the finding goes.
    const QString calc = QString::fromStdString(repo.root()) + QStringLiteral("/pkg/calc.py");
    QFile::setPermissions(calc, QFile::permissions(calc) | QFileDevice::ExeOwner);
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QVERIFY2(!w.verdictText().contains(QStringLiteral("with runs")), qPrintable(w.verdictText()));
    QVERIFY(w.runDesk()->startAttribution(QStringLiteral("tests/test_calc.py::test_double")));
    QVERIFY(waitForRuns(w));
    QVERIFY2(w.verdictText().contains(QStringLiteral("with runs")), qPrintable(w.verdictText()));
    // The code changes: the finding judged other code and goes.
    repo.write("pkg/calc.py", "def double(x):\n    return x + x\n");
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QVERIFY2(!w.verdictText().contains(QStringLiteral("with runs")), qPrintable(w.verdictText()));
    QVERIFY2(!badge().contains(QStringLiteral("block")), qPrintable(badge()));
}

void TstMainWindow::everyShortcutReachesOneAction()
{
    MainWindow w;
    // Every window-wide shortcut reaches one action (an ambiguous one triggers none); a
    // panel's own (Copy, scoped to the panel) may repeat.
    QMap<QString, QString> owner;
    for (QAction *a : w.findChildren<QAction *>()) {
        if (a->shortcutContext() == Qt::WidgetShortcut ||
            a->shortcutContext() == Qt::WidgetWithChildrenShortcut)
            continue;
        for (const QKeySequence &key : a->shortcuts()) {
            const QString k = key.toString();
            QVERIFY2(!owner.contains(k), qPrintable(k + QStringLiteral(": ") + owner.value(k) +
                                                    QStringLiteral(" and ") + a->text()));
            owner.insert(k, a->text());
        }
    }
}

// Alt+3 (Findings) with Findings open keeps it open and puts the focus in it; with it
// hidden, shows it. Reset Layout brings back every panel a reviewer closed, also in a new
// window that restored the saved layout.
void TstMainWindow::aPanelShortcutShowsAndNeverHides()
{
    auto *w = new MainWindow;
    w->resize(1280, 800);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    auto *findings = w->findChild<QDockWidget *>(QStringLiteral("findingsDock"));
    auto *history = w->findChild<QDockWidget *>(QStringLiteral("historyDock"));
    QVERIFY(findings && history);
    auto *goTo = w->findChild<QAction *>(QStringLiteral("findingsGoTo"));
    QVERIFY(goTo);
    QCOMPARE(goTo->shortcut(), QKeySequence(QStringLiteral("Alt+3")));
    QVERIFY(findings->toggleViewAction()->shortcut().isEmpty());
    QVERIFY(findings->isVisible());
    goTo->trigger();
    QVERIFY2(findings->isVisible(), "asking for Findings closed it");
    QTRY_VERIFY(
        w->panel(QStringLiteral("findingsPanel"))->isAncestorOf(QApplication::focusWidget()) ||
        QApplication::focusWidget() == w->panel(QStringLiteral("findingsPanel")));
    goTo->trigger();
    QVERIFY(findings->isVisible());
    findings->toggleViewAction()->trigger(); // View ▸ Findings unchecked: hidden
    QVERIFY(!findings->isVisible());
    goTo->trigger();
    QVERIFY(findings->isVisible());

    findings->close();
    history->close();
    w->close(); // saves the layout with both closed
    delete w;
    MainWindow again;
    again.resize(1280, 800);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    auto *closed = again.findChild<QDockWidget *>(QStringLiteral("findingsDock"));
    QVERIFY2(!closed->isVisible(), "the closed panel was not part of the saved layout");
    auto *reset = again.findChild<QAction *>(QStringLiteral("actionResetLayout"));
    QVERIFY(reset);
    reset->trigger();
    for (QDockWidget *dock : again.findChildren<QDockWidget *>())
        QVERIFY2(dock->isVisible(), qPrintable(dock->objectName()));
    QVERIFY(!closed->visibleRegion().isEmpty()); // in front of its tab group again
    again.close(); // the default layout saved again, for the tests after this one
}

void TstMainWindow::shortcutsDialogListsEveryShortcut()
{
    MainWindow w;
    ShortcutsDialog dialog(&w);
    auto *table = dialog.findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
    QVERIFY(table);
    QMap<QString, QString> rows;
    for (int r = 0; r < table->rowCount(); ++r)
        rows.insert(table->item(r, 1)->text(), table->item(r, 0)->text());
    int withKeys = 0;
    for (QAction *a : w.findChildren<QAction *>()) {
        if (a->shortcut().isEmpty())
            continue;
        ++withKeys;
        const QString what = a->text().remove(QLatin1Char('&'));
        QCOMPARE(rows.value(what), a->shortcut().toString(QKeySequence::NativeText));
    }
    QVERIFY(withKeys > 20);
    QCOMPARE(rows.value(QStringLiteral("Diff: next / previous finding")), QStringLiteral("] / ["));

    // Issue 20 item 11: one row per keys and action — Copy, bound by every panel, is one row
    // naming the panels — and a search that narrows the list.
    QSet<QString> seen;
    int copyRow = -1;
    for (int r = 0; r < table->rowCount(); ++r) {
        const QString key = table->item(r, 0)->text() + '|' + table->item(r, 1)->text();
        QVERIFY2(!seen.contains(key), qPrintable(key));
        seen.insert(key);
        if (table->item(r, 1)->text() == QLatin1String("Copy"))
            copyRow = r;
    }
    QVERIFY(copyRow >= 0);
    const QString where = table->item(copyRow, 2)->text();
    QVERIFY2(where.contains("Findings") && where.contains("Ledgers"), qPrintable(where));
    auto *search = dialog.findChild<QLineEdit *>(QStringLiteral("shortcutsSearch"));
    QVERIFY(search);
    QTest::keyClicks(search, QStringLiteral("finding"));
    int shown = 0;
    for (int r = 0; r < table->rowCount(); ++r) {
        if (table->isRowHidden(r))
            continue;
        ++shown;
        const QString row =
            table->item(r, 0)->text() + table->item(r, 1)->text() + table->item(r, 2)->text();
        QVERIFY(row.contains(QLatin1String("finding"), Qt::CaseInsensitive));
    }
    QVERIFY(shown >= 2 && shown < table->rowCount());
    search->clear();
    QTest::keyClicks(search, QStringLiteral("zzzz"));
    QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("shortcutsNone"))->isVisibleTo(&dialog));
}

void TstMainWindow::demoFillsEveryPanel()
{
    QTemporaryDir dir;
    const std::string demo =
        pw::core::DemoRepository::ensure(dir.filePath(QStringLiteral("demo")).toStdString());
    MainWindow w;
    open(w, demo, {}, {});
    const pw::core::GateReport &r = w.runner().outcome().report;
    QCOMPARE(QString::fromLatin1(pw::core::verdictName(r.verdict)), QStringLiteral("BLOCK"));
    int manifestRows = 0;
    for (const pw::core::Finding &f : r.findings)
        manifestRows += (f.gate == "manifest" || f.gate == "fixture" || f.gate == "conftest" ||
                         f.gate == "ledger" || f.code == "PARSE_ERROR");
    // Every row is in the panels' models; the views show the file on screen.
    auto rows = [&w](const char *panel) {
        return w.panel(QString::fromLatin1(panel))->model()->rowCount();
    };
    QCOMPARE(rows("findingsPanel"), int(r.findings.size()));
    QCOMPARE(rows("manifestPanel"), manifestRows);
    QCOMPARE(rows("latitudePanel"), int(r.latitude.tests.size()));
    QCOMPARE(rows("strengthPanel"), int(r.strength.tests.size()));
    QVERIFY(manifestRows >= 8);
    for (const char *panel : {"findingsPanel", "manifestPanel", "latitudePanel", "strengthPanel"})
        QCOMPARE(w.panel(QString::fromLatin1(panel))->fileFilter(), w.currentPath());
    QVERIFY(w.panel(QStringLiteral("latitudePanel"))
                ->summary()
                .contains(QLatin1String("(threshold 4)")));
    // the window opens on the file with the most blocking findings
    QCOMPARE(w.currentPath(), QStringLiteral("tests/test_rounding.py"));
    // next finding walks into the diff
    w.findChild<QAction *>(QStringLiteral("actionNextFinding"))->trigger();
    QVERIFY(w.diffView()->currentLine() > 0);

    // Issue 20 item 13: the demo's history holds ledger commits — a freeze granted, renewed,
    // expired and removed, a waiver, a journal row opened and closed — and the Ledgers panel
    // its valid waiver and closed journal row, none of which answers a finding of the patch.
    QVERIFY(w.showPanel(QStringLiteral("history")));
    LedgerHistoryPanel *history = w.ledgerDesk()->historyPanel();
    QTRY_VERIFY_WITH_TIMEOUT(!history->isLoading(), 30000);
    QStringList kinds;
    for (int row = 0; row < history->model()->rowCount(); ++row)
        kinds << history->model()->index(row, LedgerEventsModel::EventColumn).data().toString();
    for (const char *kind : {"added", "renewed", "expired", "removed", "edited"})
        QVERIFY2(kinds.contains(QLatin1String(kind)), qPrintable(kinds.join(u' ')));
    QCOMPARE(kinds.size(), 7);
    QAbstractItemModel *ledgers = w.panel(QStringLiteral("ledgersPanel"))->model();
    QCOMPARE(ledgers->rowCount(), 2);
    for (int row = 0; row < 2; ++row)
        QCOMPARE(ledgers->index(row, LedgersModel::StatusColumn).data().toString(),
                 QStringLiteral("valid"));
    for (const pw::core::Finding &f : r.findings)
        QVERIFY2(!f.satisfiedBy, f.code.c_str());
}

// Issue 20 item 12: at the default font of either flavour the changed-files tree is as wide
// as its names need (none elided to "…"; were the window too small, a name would lose its
// middle, never all of it, and its tooltip is the full path), and the tabs of tabbed
// panels keep their whole titles ("Findings", not "Find…").
void TstMainWindow::fileNamesAndPanelTabsAreWhole()
{
    QTemporaryDir dir;
    const std::string demo =
        pw::core::DemoRepository::ensure(dir.filePath(QStringLiteral("demo")).toStdString());
    MainWindow w;
    open(w, demo, {}, {});
    QApplication::processEvents();
    auto *tree = w.findChild<QTreeView *>(QStringLiteral("filesView"));
    QCOMPARE(tree->textElideMode(), Qt::ElideMiddle);
    const int nameColumn = ChangedFilesModel::NameColumn;
    const int wanted = static_cast<QAbstractItemView *>(tree)->sizeHintForColumn(nameColumn);
    QVERIFY2(tree->columnWidth(nameColumn) >= wanted,
             qPrintable(QStringLiteral("%1 < %2").arg(tree->columnWidth(nameColumn)).arg(wanted)));
    const QModelIndex file = w.findChild<QTreeView *>(QStringLiteral("filesView"))->currentIndex();
    QCOMPARE(file.siblingAtColumn(nameColumn).data(Qt::ToolTipRole).toString(), w.currentPath());

    int tabs = 0;
    for (QTabBar *bar : w.findChildren<QTabBar *>()) {
        if (!bar->isVisible())
            continue;
        QCOMPARE(bar->elideMode(), Qt::ElideNone);
        for (int i = 0; i < bar->count(); ++i, ++tabs) {
            const int text = bar->fontMetrics().horizontalAdvance(bar->tabText(i));
            QVERIFY2(bar->tabRect(i).width() >= text, qPrintable(bar->tabText(i)));
        }
    }
    QVERIFY(tabs >= 12);
}

// The demo as a bare mirror, as a git dir copied out of its clone (core.bare = false, no
// work tree of its own) and as a clone with nothing checked out: each reviews HEAD against
// its default base — the 13 files of the agent's patch, not the whole project "deleted" —
// and says so; a bare one's ledger forms are off with the reason, WORKTREE typed is refused
// with a sentence and the window stays usable.
void TstMainWindow::aRepositoryWithoutItsWorkTreeReviewsHead_data()
{
    QTest::addColumn<QString>("layout");
    QTest::newRow("bare mirror") << QStringLiteral("mirror");
    QTest::newRow("git dir copied out") << QStringLiteral("copied");
    QTest::newRow("nothing checked out") << QStringLiteral("no-checkout");
}

void TstMainWindow::aRepositoryWithoutItsWorkTreeReviewsHead()
{
    QFETCH(QString, layout);
    QTemporaryDir dir;
    const std::string demo =
        pw::core::DemoRepository::ensure(dir.filePath(QStringLiteral("demo")).toStdString());
    MainWindow clone;
    open(clone, demo, {}, {});
    const pw::core::GateReport expected = clone.runner().outcome().report;
    QCOMPARE(expected.changedFiles.size(), size_t(13));

    std::string path = dir.filePath(QStringLiteral("mirror.git")).toStdString();
    std::filesystem::copy(demo + "/.git", path, std::filesystem::copy_options::recursive);
    if (layout == QLatin1String("mirror")) {
        std::string config = *pw::core::readWholeFile(path + "/config");
        config.replace(config.find("bare = false"), 12, "bare = true");
        QVERIFY(pw::core::writeFileAtomically(path + "/config", config));
    } else if (layout == QLatin1String("no-checkout")) {
        path = dir.filePath(QStringLiteral("nc")).toStdString();
        std::filesystem::create_directories(path);
        std::filesystem::rename(dir.filePath(QStringLiteral("mirror.git")).toStdString(),
                                path + "/.git");
        std::filesystem::remove(path + "/.git/index");
    }
    const bool bare = layout != QLatin1String("no-checkout");

    MainWindow w;
    open(w, path, {}, {});
    const AuditOutcome &out = w.runner().outcome();
    QVERIFY2(out.ok, qPrintable(out.error));
    QCOMPARE(QString::fromStdString(out.report.head.rev), QStringLiteral("HEAD"));
    QCOMPARE(out.report.changedFiles.size(), expected.changedFiles.size());
    QCOMPARE(out.report.findings.size(), expected.findings.size());
    QCOMPARE(w.verdictText(), clone.verdictText());
    auto *head = w.findChild<RevisionPicker *>(QStringLiteral("headPicker"));
    QTRY_COMPARE(head->lineEdit()->placeholderText(), QStringLiteral("default: HEAD"));
    QCOMPARE(w.currentPath(), QStringLiteral("tests/test_rounding.py"));
    QCOMPARE(w.panel(QStringLiteral("findingsPanel"))->proxy()->sortColumn(),
             int(FindingsModel::LocationColumn));
    if (bare) {
        QCOMPARE(QString::fromStdString(out.report.repo),
                 QDir(QString::fromStdString(path)).canonicalPath());
        for (const char *name : {"actionApproveWaiver", "actionGrantFreeze"}) {
            auto *form = w.findChild<QAction *>(QLatin1String(name));
            QVERIFY2(form, name);
            QVERIFY(!form->isEnabled());
            QVERIFY2(form->toolTip().contains(QLatin1String("bare repository has no work tree")),
                     qPrintable(form->toolTip()));
        }
        QVERIFY(!w.openLedgerForm(QStringLiteral("waiver")));
    } else {
        bool said = false;
        for (const std::string &warning : out.report.warnings)
            said = said || warning.find("nothing checked out") != std::string::npos;
        QVERIFY(said);
    }

    // WORKTREE typed: refused with a sentence (bare), the empty work tree (no checkout).
    head->setSpec(QStringLiteral("WORKTREE"));
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QTest::qWait(20);
    if (bare) {
        QVERIFY(!w.runner().outcome().ok);
        QVERIFY2(w.runner().outcome().error.contains(
                     QLatin1String("is a bare repository: it has no work tree to read")),
                 qPrintable(w.runner().outcome().error));
    } else {
        QVERIFY(w.runner().outcome().ok);
        QCOMPARE(QString::fromStdString(w.runner().outcome().report.head.rev),
                 QStringLiteral("WORKTREE"));
    }
    head->setSpec(QString());
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QTest::qWait(20);
    QVERIFY(w.runner().outcome().ok);
    QCOMPARE(w.verdictText(), clone.verdictText());
}

void TstMainWindow::hugePatchDoesNotBlockTheEventLoop()
{
    RepoBuilder repo;
    std::string before, after;
    for (int i = 0; i < 20000; ++i) {
        before += "value_" + std::to_string(i) + " = " + std::to_string(i) + "\n";
        after += "value_" + std::to_string(i) + " = " + std::to_string(i * 2) + "\n";
    }
    repo.write("src/table.py", before);
    const std::string base = repo.commit("base");
    repo.write("src/table.py", after);
    const std::string head = repo.commit("head");

    MainWindow w;
    w.setPython(QString::fromStdString(pw::test::testPython()));
    w.show();
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, this, [&ticks] { ++ticks; });
    timer.start(1);
    QSignalSpy finished(&w.runner(), &AuditRunner::finished);
    w.openRepository(QString::fromStdString(repo.root()), QString::fromStdString(base),
                     QString::fromStdString(head));
    QVERIFY(finished.wait(120000));
    QVERIFY2(ticks > 0, "the event loop did not turn while the audit and diff ran");
    const int before_paint = ticks;
    w.diffView()->scrollToLine(19999);
    QTest::qWait(20);
    QVERIFY(ticks > before_paint);
    // side by side pairs each deleted line with its added line: one row each
    QVERIFY(w.diffView()->rowCount() >= 20000 || w.diffView()->isCapped());
}

// The audit reports its steps in the status bar, and Stop Audit ends it at once: the fact
// extractor it waits on (here an "interpreter" that hangs) is killed, and the window keeps
// the last finished audit — its verdict, findings and diff — instead of an error.
void TstMainWindow::stopAuditEndsItAndKeepsTheLastOutcome()
{
    MainWindow w;
    open(w, m_repo->root(), m_base, m_head);
    auto *chip = w.findChild<QLabel *>(QStringLiteral("verdictChip"));
    QVERIFY2(chip->text().startsWith(QLatin1String("BLOCK")), qPrintable(chip->text()));
    const size_t findings = w.runner().outcome().report.findings.size();
    auto *stop = w.findChild<QAction *>(QStringLiteral("actionStopAudit"));
    auto *stopButton = w.findChild<QToolButton *>(QStringLiteral("stopAuditButton"));
    QVERIFY(stop && stopButton);
    QVERIFY(!stop->isEnabled());

    // Another interpreter is another fact-cache namespace: the audit has to run it.
    QTemporaryDir dir;
    const QString pidFile = dir.filePath(QStringLiteral("pid"));
    const QString hang = dir.filePath(QStringLiteral("python3"));
    {
        QFile script(hang);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(
            QStringLiteral("#!/bin/sh\necho $$ > '%1'\nexec sleep 300\n").arg(pidFile).toUtf8());
    }
    QVERIFY(QFile::setPermissions(hang, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    w.setPython(hang);
    QSignalSpy progress(&w.runner(), &AuditRunner::progress);
    QSignalSpy cancelled(&w.runner(), &AuditRunner::cancelled);
    QSignalSpy finished(&w.runner(), &AuditRunner::finished);
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    QVERIFY(stop->isEnabled());
    QVERIFY(stopButton->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile) && QFileInfo(pidFile).size() > 0, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty(), 5000);
    QStringList lines;
    for (const QList<QVariant> &args : progress)
        lines << args.at(0).toString();
    QVERIFY2(lines.join(QLatin1Char('\n')).contains(QLatin1String("file(s) changed")),
             qPrintable(lines.join(QLatin1Char('\n'))));
    QVERIFY2(w.statusBar()->currentMessage().startsWith(QLatin1String("Auditing")),
             qPrintable(w.statusBar()->currentMessage()));

    QFile pidText(pidFile);
    QVERIFY(pidText.open(QIODevice::ReadOnly));
    const pid_t pid = pid_t(pidText.readAll().trimmed().toLong());
    QVERIFY(pid > 0);
    QElapsedTimer clock;
    clock.start();
    stop->trigger();
    QVERIFY(cancelled.wait(10000));
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(finished.isEmpty());
    QVERIFY(::kill(pid, 0) != 0); // the hanging interpreter is gone, not left to finish
    QVERIFY(!stop->isEnabled());
    QVERIFY(!stopButton->isVisible());
    QVERIFY2(chip->text().startsWith(QLatin1String("BLOCK")), qPrintable(chip->text()));
    QVERIFY(w.runner().outcome().ok);
    QCOMPARE(w.runner().outcome().report.findings.size(), findings);
    QVERIFY(w.diffView()->hasFile());
    QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Audit stopped"));

    // The next audit runs as usual.
    w.setPython(QString::fromStdString(pw::test::testPython()));
    w.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    w.runner().waitForFinished();
    QCOMPARE(finished.size(), 1);
    QVERIFY2(chip->text().startsWith(QLatin1String("BLOCK")), qPrintable(chip->text()));
}

// Without a display Qt would abort in QApplication's constructor: --version and a
// screenshot render offscreen, the window itself is refused with a message.
void TstMainWindow::withoutADisplayOnlyWhatNeedsNoWindowStarts()
{
    const AppRun version = runApp({QStringLiteral("--version")}, false);
    QCOMPARE(version.status, QProcess::NormalExit);
    QCOMPARE(version.exitCode, 0);
    QVERIFY2(version.out.contains(QLatin1String("patchwitness")), qPrintable(version.out));

    const AppRun window = runApp({}, false);
    QCOMPARE(window.status, QProcess::NormalExit);
    QCOMPARE(window.exitCode, 3);
    QVERIFY2(window.err.contains(QLatin1String("no display")), qPrintable(window.err));
    QVERIFY2(window.err.contains(QLatin1String("patchwitness-cli")), qPrintable(window.err));

    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("empty.png"));
    const AppRun shot = runApp({QStringLiteral("--screenshot"), png}, false);
    QCOMPARE(shot.status, QProcess::NormalExit);
    QCOMPARE(shot.exitCode, 0);
    QVERIFY(QImage(png).width() > 0);

    // Issue 20 item 11: help is answered before any window system is asked (no platform
    // warning such as XDG_RUNTIME_DIR's), with every option; the icon an install puts under
    // share/icons is the app's own, written by it.
    const AppRun help = runApp({QStringLiteral("--help")}, false);
    QCOMPARE(help.exitCode, 0);
    QVERIFY2(help.err.isEmpty(), qPrintable(help.err));
    for (const char *option : {"--ledger-dir", "--screenshot", "--write-icon", "--demo"})
        QVERIFY2(help.out.contains(QLatin1String(option)), option);
    // Qt's own options (-platform NAME, -style NAME) are no unknown options for help.
    const AppRun qtHelp =
        runApp({QStringLiteral("-platform"), QStringLiteral("offscreen"), QStringLiteral("-style"),
                QStringLiteral("fusion"), QStringLiteral("--help")},
               false);
    QCOMPARE(qtHelp.exitCode, 0);
    QVERIFY2(qtHelp.out.contains(QLatin1String("--palette")), qPrintable(qtHelp.err));
    const QString iconFile = dir.filePath(QStringLiteral("icon.png"));
    const AppRun icon = runApp({QStringLiteral("--write-icon"), iconFile}, false);
    QCOMPARE(icon.exitCode, 0);
    const QImage image(iconFile);
    QCOMPARE(image.size(), QSize(256, 256));
    QVERIFY(qAlpha(image.pixel(128, 128)) == 255 && qAlpha(image.pixel(0, 0)) == 0);
}

// A screenshot run whose audit cannot run still saves the picture (which shows why) and
// says so on stderr with exit 3, so a script does not take it for a review.
void TstMainWindow::screenshotOfAFailedAuditExitsThree()
{
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("failed.png"));
    const QString missing = dir.filePath(QStringLiteral("no-such-repository"));
    const AppRun shot =
        runApp({QStringLiteral("--repo"), missing, QStringLiteral("--screenshot"), png}, true);
    QCOMPARE(shot.status, QProcess::NormalExit);
    QCOMPARE(shot.exitCode, 3);
    QVERIFY2(shot.err.contains(QLatin1String("the audit could not run")) &&
                 shot.err.contains(missing),
             qPrintable(shot.err));
    QVERIFY(QImage(png).width() > 0);
}

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
