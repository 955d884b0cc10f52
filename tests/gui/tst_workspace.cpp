// The workspace pieces of the workbench: revision pickers, recent repositories, viewed
// marks, the repository watcher and the settings dialog — driven through their real
// widgets, found by object name.
#include "LatestTask.h"
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "repo/Repository.h"
#include "workspace/RecentRepositories.h"
#include "workspace/RepositoryWatcher.h"
#include "workspace/RevisionChoiceModel.h"
#include "workspace/RevisionLoader.h"
#include "workspace/RevisionPicker.h"
#include "workspace/SettingsDialog.h"
#include "workspace/ViewedMarks.h"

#include <QAbstractItemView>
#include <QAbstractProxyModel>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <atomic>
#include <thread>

using namespace pw::gui;
using pw::core::RevisionChoice;
using pw::test::RepoBuilder;

namespace {

const std::string kSha1 = "1111111111111111111111111111111111111111";
const std::string kSha2 = "2222222222222222222222222222222222222222";
constexpr int kGenerousMs = 10000;

std::vector<RevisionChoice> sampleChoices()
{
    return {
        {RevisionChoice::Worktree, "WORKTREE", "WORKTREE", "uncommitted changes"},
        {RevisionChoice::Branch, "agent/fix-parser", "agent/fix-parser", "2222222 · Fix parser"},
        {RevisionChoice::Branch, "main", "main", "1111111 · Add parser"},
        {RevisionChoice::RemoteBranch, "origin/main", "origin/main", "1111111 · Add parser"},
        {RevisionChoice::Tag, "v1.0", "v1.0", "1111111 · Add parser"},
        {RevisionChoice::Commit, kSha2, "2222222 Fix parser for empty input", "Ada · 2 hours ago"},
        {RevisionChoice::Commit, kSha1, "1111111 Add parser", "Ada · 3 days ago"},
    };
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
    file.write(bytes);
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// With PW_WORKSPACE_SHOTS=dir the visual checks save what they render there.
void saveShot(const QPixmap &pixmap, const QString &name)
{
    const QString dir = qEnvironmentVariable("PW_WORKSPACE_SHOTS");
    if (!dir.isEmpty())
        QVERIFY(pixmap.save(QDir(dir).filePath(name)));
}

// The menu's current actions only: replaced ones linger until deleted later.
QAction *actionNamed(const QMenu &menu, const QString &name)
{
    for (QAction *action : menu.actions()) {
        if (action->objectName() == name)
            return action;
    }
    return nullptr;
}

template <typename T> T *child(QWidget *parent, const char *name)
{
    T *w = parent->findChild<T *>(QLatin1String(name));
    if (!w)
        qWarning("no child named %s", name);
    return w;
}

} // namespace

class TstWorkspace : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // RevisionPicker and RevisionLoader
    void pickerGroupsChoicesUnderHeaders();
    void pickerReturnsTheChosenSpec();
    void pickerTypedTextWins();
    void pickerEmitsOnceForEnterAndForAPick();
    void pickerCompletesBySubjectToTheSpec();
    void pickerPlaceholderNamesTheDefault();
    void pickerPopupRenders();
    void loaderListsARepository();
    void loaderReportsAFailure();
    // LatestTask (the audit, the revision list and the ledger history share it)
    void latestTaskDeliversOnlyTheNewestAnswer();
    void latestTaskCancelStopsAndStillDelivers();
    void latestTaskNeverRunsOnTheWaitingThread();
    // RecentRepositories
    void recentMostRecentFirstDeduplicatedCapped();
    void recentPrunesMissingDirectories();
    void recentMenuOpensAndClears();
    // ViewedMarks
    void viewedPersistsAcrossInstances();
    void viewedResetsWhenTheWorktreeFileChanges();
    void viewedMergesWritesOfTwoWindows();
    // RepositoryWatcher
    void watcherEmitsOnceForABurst();
    void watcherIgnoresCachesAndBuildOutput();
    void watcherSeesGitRefs();
    void watcherStops();
    void watcherResolvesLinkedWorktrees();
    // SettingsDialog
    void settingsOkDisabledWithReason_data();
    void settingsOkDisabledWithReason();
    void settingsWritingKeepsComments();
    void settingsWritesOnlyWhatChanged();
    void settingsRefusesAFileChangedOnDisk();
    void settingsBrokenFileIsNotEditable();
    void settingsDialogRenders();
};

// ---------------------------------------------------------------------------------------
// RevisionPicker

void TstWorkspace::pickerGroupsChoicesUnderHeaders()
{
    RevisionPicker picker;
    picker.setChoices(sampleChoices());
    const RevisionChoiceModel *model = picker.choiceModel();
    QStringList titles;
    int headers = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, 0);
        if (!index.data(RevisionChoiceModel::IsHeaderRole).toBool())
            continue;
        ++headers;
        titles << index.data(RevisionChoiceModel::TitleRole).toString();
        QVERIFY(!(model->flags(index) & Qt::ItemIsSelectable));
        QVERIFY(!(model->flags(index) & Qt::ItemIsEnabled));
    }
    QCOMPARE(titles, (QStringList{QStringLiteral("Working tree"), QStringLiteral("Branches"),
                                  QStringLiteral("Remote branches"), QStringLiteral("Tags"),
                                  QStringLiteral("Recent commits")}));
    QCOMPARE(model->rowCount(), int(sampleChoices().size()) + headers);
    // Every group's choices follow its header.
    QCOMPARE(model->index(3, 0).data().toString(), QStringLiteral("agent/fix-parser"));
    QCOMPARE(model->index(4, 0).data().toString(), QStringLiteral("main"));
    QCOMPARE(model->index(4, 0).data(RevisionChoiceModel::DetailRole).toString(),
             QStringLiteral("1111111 · Add parser"));
    QCOMPARE(model->index(10, 0).data().toString(),
             QStringLiteral("2222222 Fix parser for empty input"));
    QVERIFY(picker.spec().isEmpty()); // nothing chosen yet: the default
}

void TstWorkspace::pickerReturnsTheChosenSpec()
{
    RevisionPicker picker;
    picker.setChoices(sampleChoices());
    const int commitRow = picker.choiceModel()->rowOfSpec(QString::fromStdString(kSha2));
    QVERIFY(commitRow > 0);
    picker.setCurrentIndex(commitRow);
    // The label shows "2222222 Fix parser…"; the spec is the full id.
    QCOMPARE(picker.spec(), QString::fromStdString(kSha2));
    picker.setSpec(QStringLiteral("origin/main"));
    QCOMPARE(picker.currentIndex(), picker.choiceModel()->rowOfSpec(QStringLiteral("origin/main")));
    QCOMPARE(picker.spec(), QStringLiteral("origin/main"));
    picker.setSpec(QString());
    QVERIFY(picker.spec().isEmpty());
}

void TstWorkspace::pickerTypedTextWins()
{
    RevisionPicker picker;
    picker.setChoices(sampleChoices());
    picker.setSpec(QStringLiteral("main"));
    picker.lineEdit()->clear();
    QTest::keyClicks(picker.lineEdit(), QStringLiteral("  HEAD~2 "));
    QCOMPARE(picker.spec(), QStringLiteral("HEAD~2"));
    // A refill (the repository changed) keeps what was typed.
    picker.setChoices(sampleChoices());
    QCOMPARE(picker.spec(), QStringLiteral("HEAD~2"));
    picker.setSpec(QStringLiteral("PATCH:/tmp/agent.diff"));
    QCOMPARE(picker.spec(), QStringLiteral("PATCH:/tmp/agent.diff"));
}

void TstWorkspace::pickerEmitsOnceForEnterAndForAPick()
{
    QWidget host;
    auto *picker = new RevisionPicker(&host);
    (new QHBoxLayout(&host))->addWidget(picker);
    picker->setChoices(sampleChoices());
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    QSignalSpy spy(picker, &RevisionPicker::specChosen);

    // Enter on text that names an item: QComboBox activates it and the line edit reports
    // returnPressed — still one signal.
    picker->lineEdit()->setFocus();
    QTest::keyClicks(picker->lineEdit(), QStringLiteral("v1.0"));
    QTest::keyClick(picker->lineEdit(), Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, kGenerousMs);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("v1.0"));

    // Enter on text no item has (and that spells a header's title) keeps the text.
    picker->lineEdit()->clear();
    QTest::keyClicks(picker->lineEdit(), QStringLiteral("Tags"));
    QTest::keyClick(picker->lineEdit(), Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 2, kGenerousMs);
    QCOMPARE(spy.at(1).at(0).toString(), QStringLiteral("Tags"));

    // A click in the popup.
    picker->showPopup();
    QAbstractItemView *view = picker->view();
    QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), kGenerousMs);
    const QModelIndex main =
        picker->choiceModel()->index(picker->choiceModel()->rowOfSpec(QStringLiteral("main")), 0);
    view->scrollTo(main);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(main).center());
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 3, kGenerousMs);
    QCOMPARE(spy.at(2).at(0).toString(), QStringLiteral("main"));
    QCoreApplication::processEvents();
    QCOMPARE(spy.count(), 3);
}

void TstWorkspace::pickerCompletesBySubjectToTheSpec()
{
    RevisionPicker picker;
    picker.setChoices(sampleChoices());
    QCompleter *completer = picker.completer();
    QVERIFY(completer);
    completer->setCompletionPrefix(QStringLiteral("empty input")); // a commit's subject
    QCOMPARE(completer->completionCount(), 1);
    QVERIFY(completer->setCurrentRow(0));
    QCOMPARE(completer->currentCompletion(), QString::fromStdString(kSha2));
    completer->setCompletionPrefix(QStringLiteral("origin"));
    QCOMPARE(completer->completionCount(), 1);
    // Headers are never offered.
    completer->setCompletionPrefix(QStringLiteral("Remote branches"));
    QCOMPARE(completer->completionCount(), 0);
}

void TstWorkspace::pickerPlaceholderNamesTheDefault()
{
    RevisionPicker picker;
    picker.setDefaultSpec(QStringLiteral("merge-base(main,HEAD)"));
    QCOMPARE(picker.lineEdit()->placeholderText(), QStringLiteral("default: merge-base with main"));
    picker.setDefaultSpec(QStringLiteral("HEAD"));
    QCOMPARE(picker.lineEdit()->placeholderText(), QStringLiteral("default: HEAD"));
    picker.setDefaultSpec(QString());
    QCOMPARE(picker.lineEdit()->placeholderText(), QStringLiteral("default"));
}

void TstWorkspace::pickerPopupRenders()
{
    QWidget host;
    host.resize(300, 40); // narrower than the popup wants
    auto *layout = new QHBoxLayout(&host);
    layout->addWidget(new QLabel(QStringLiteral("Base"), &host));
    auto *picker = new RevisionPicker(&host);
    layout->addWidget(picker, 1);
    picker->setChoices(sampleChoices());
    picker->setDefaultSpec(QStringLiteral("merge-base(main,HEAD)"));
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    const QPixmap closed = host.grab();
    picker->showPopup();
    QWidget *popup = picker->view()->window();
    QTRY_VERIFY_WITH_TIMEOUT(popup->isVisible(), kGenerousMs);
    // Wider than the box: subjects and ages are not cut.
    QVERIFY(popup->width() > picker->width());
    const QPixmap open = popup->grab();
    QVERIFY(!open.isNull());
    // The closed box above its open popup, as a reviewer sees them.
    QPixmap shot(std::max(closed.width(), open.width()), closed.height() + open.height());
    shot.fill(host.palette().color(QPalette::Window));
    QPainter painter(&shot);
    painter.drawPixmap(0, 0, closed);
    painter.drawPixmap(0, closed.height(), open);
    painter.end();
    saveShot(shot, QStringLiteral("revision-picker.png"));
    picker->hidePopup();
}

void TstWorkspace::loaderListsARepository()
{
    RepoBuilder repo;
    repo.write("a.py", "x = 1\n");
    repo.commit("first");
    repo.tag("v0.1");
    repo.branch("agent");
    repo.checkout("agent");
    repo.write("a.py", "x = 2\n");
    repo.commit("second");
    repo.write("a.py", "x = 3\n"); // dirty

    RevisionLoader loader;
    QSignalSpy loaded(&loader, &RevisionLoader::loaded);
    QSignalSpy failed(&loader, &RevisionLoader::failed);
    const QString root = QString::fromStdString(repo.root());
    loader.load(root);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(failed.count(), 0);
    QCOMPARE(loaded.at(0).at(0).toString(), root);
    const auto choices = loaded.at(0).at(1).value<std::vector<RevisionChoice>>();
    QCOMPARE(choices.front().detail, std::string("uncommitted changes"));
    QCOMPARE(
        std::count_if(choices.begin(), choices.end(),
                      [](const RevisionChoice &c) { return c.kind == RevisionChoice::Commit; }),
        2L);
    QCOMPARE(loader.defaultHeadSpec(), QStringLiteral("WORKTREE"));
    QCOMPARE(loader.defaultBaseSpec(), QStringLiteral("merge-base(main,HEAD)"));

    // Fed to a picker: the tag is there.
    RevisionPicker picker;
    picker.setChoices(choices);
    QVERIFY(picker.choiceModel()->rowOfSpec(QStringLiteral("v0.1")) > 0);
}

void TstWorkspace::loaderReportsAFailure()
{
    QTemporaryDir notARepo;
    RevisionLoader loader;
    QSignalSpy loaded(&loader, &RevisionLoader::loaded);
    QSignalSpy failed(&loader, &RevisionLoader::failed);
    loader.load(notARepo.path());
    QVERIFY(failed.wait(kGenerousMs));
    QCOMPARE(loaded.count(), 0);
    QVERIFY2(failed.at(0).at(0).toString().contains(notARepo.path()),
             qPrintable(failed.at(0).at(0).toString()));
}

// ---------------------------------------------------------------------------------------
// RecentRepositories

void TstWorkspace::recentMostRecentFirstDeduplicatedCapped()
{
    QTemporaryDir tmp;
    const QString settings = tmp.filePath(QStringLiteral("settings.ini"));
    QStringList dirs;
    for (int i = 0; i < 12; ++i) {
        dirs << tmp.filePath(QStringLiteral("repo%1").arg(i));
        QVERIFY(QDir().mkpath(dirs.last()));
    }
    QVERIFY(QFile::link(dirs[0], tmp.filePath(QStringLiteral("alias"))));

    RecentRepositories recent(settings);
    recent.add(dirs[0]);
    recent.add(dirs[1]);
    recent.add(tmp.filePath(QStringLiteral("alias"))); // dirs[0] again, by another name
    recent.add(dirs[1] + QStringLiteral("/."));        // dirs[1] again
    recent.add(tmp.filePath(QStringLiteral("does-not-exist")));
    QCOMPARE(recent.list(), (QStringList{dirs[1], dirs[0]}));

    for (const QString &d : dirs)
        recent.add(d);
    QStringList expected;
    for (int i = 11; i >= 2; --i)
        expected << dirs[i];
    QCOMPARE(recent.list(), expected);
    QCOMPARE(recent.list().size(), RecentRepositories::kMax);
    // Another instance on the same file (next start of the app) sees the same list.
    QCOMPARE(RecentRepositories(settings).list(), expected);
}

void TstWorkspace::recentPrunesMissingDirectories()
{
    QTemporaryDir tmp;
    const QString a = tmp.filePath(QStringLiteral("a")), b = tmp.filePath(QStringLiteral("b"));
    QVERIFY(QDir().mkpath(a));
    QVERIFY(QDir().mkpath(b));
    RecentRepositories recent(tmp.filePath(QStringLiteral("settings.ini")));
    recent.add(a);
    recent.add(b);
    QVERIFY(QDir(b).removeRecursively());
    QCOMPARE(recent.list(), QStringList{a});
}

void TstWorkspace::recentMenuOpensAndClears()
{
    QTemporaryDir tmp;
    const QString a = tmp.filePath(QStringLiteral("alpha")),
                  b = tmp.filePath(QStringLiteral("b&b"));
    QVERIFY(QDir().mkpath(a));
    QVERIFY(QDir().mkpath(b));
    RecentRepositories recent(tmp.filePath(QStringLiteral("settings.ini")));
    recent.add(a);
    recent.add(b);

    QMenu menu;
    QStringList opened;
    recent.populateMenu(&menu, [&](const QString &path) { opened << path; });
    QAction *first = actionNamed(menu, QStringLiteral("recentRepository1"));
    QAction *second = actionNamed(menu, QStringLiteral("recentRepository2"));
    QVERIFY(first && second);
    QCOMPARE(first->data().toString(), b);
    QCOMPARE(first->shortcut(), QKeySequence(QStringLiteral("Ctrl+1")));
    QCOMPARE(second->shortcut(), QKeySequence(QStringLiteral("Ctrl+2")));
    QVERIFY2(first->text().startsWith(QLatin1String("&1")), qPrintable(first->text()));
    QVERIFY2(first->text().contains(QLatin1String("b&&b")), qPrintable(first->text()));
    second->trigger();
    QCOMPARE(opened, QStringList{a});

    // Repopulating from inside an action's own trigger is safe.
    recent.populateMenu(&menu, [&](const QString &path) {
        opened << path;
        recent.add(path);
        recent.populateMenu(&menu, [](const QString &) {});
    });
    actionNamed(menu, QStringLiteral("recentRepository2"))->trigger();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCOMPARE(recent.list(), (QStringList{a, b}));

    QAction *clear = actionNamed(menu, QStringLiteral("clearRecentRepositories"));
    QVERIFY(clear && clear->isEnabled());
    clear->trigger();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QVERIFY(recent.list().isEmpty());
    QStringList texts;
    for (QAction *action : menu.actions()) {
        if (!action->isSeparator())
            texts << action->text() + (action->isEnabled() ? QString() : QStringLiteral(" (off)"));
    }
    QCOMPARE(texts, (QStringList{QStringLiteral("No recent repositories (off)"),
                                 QStringLiteral("&Clear (off)")}));
}

// ---------------------------------------------------------------------------------------
// ViewedMarks

void TstWorkspace::viewedPersistsAcrossInstances()
{
    QTemporaryDir tmp;
    const QString file = tmp.filePath(QStringLiteral("data/viewed-marks.json"));
    const QString repo = tmp.path();
    {
        ViewedMarks marks(file);
        QVERIFY(!marks.isViewed(repo, QStringLiteral("a.py"), QStringLiteral("b1")));
        marks.setViewed(repo, QStringLiteral("a.py"), QStringLiteral("b1"), true);
        marks.setViewed(repo, QStringLiteral("tests/t.py"), QStringLiteral("b2"), true);
        QVERIFY2(marks.lastError().isEmpty(), qPrintable(marks.lastError()));
    }
    ViewedMarks again(file);
    QVERIFY(again.isViewed(repo, QStringLiteral("a.py"), QStringLiteral("b1")));
    QVERIFY(
        again.isViewed(repo + QStringLiteral("/."), QStringLiteral("a.py"), QStringLiteral("b1")));
    // The agent changed a.py again: new blob, no mark.
    QVERIFY(!again.isViewed(repo, QStringLiteral("a.py"), QStringLiteral("b9")));
    QVERIFY(!again.isViewed(tmp.filePath(QStringLiteral("data")), QStringLiteral("a.py"),
                            QStringLiteral("b1"))); // another repository
    const std::vector<std::pair<QString, QString>> files = {
        {QStringLiteral("a.py"), QStringLiteral("b9")},
        {QStringLiteral("tests/t.py"), QStringLiteral("b2")},
        {QStringLiteral("new.py"), QStringLiteral("b3")}};
    QCOMPARE(again.viewedCount(repo, files), 1);
    again.setViewed(repo, QStringLiteral("tests/t.py"), QStringLiteral("b2"), false);
    QCOMPARE(ViewedMarks(file).viewedCount(repo, files), 0);
    QVERIFY(QJsonDocument::fromJson(readFile(file)).isObject());
}

void TstWorkspace::viewedResetsWhenTheWorktreeFileChanges()
{
    RepoBuilder b;
    b.write("pkg/calc.py", "def f():\n    return 1\n");
    b.commit("base");
    b.write("pkg/calc.py", "def f():\n    return 2\n"); // the agent's edit
    QTemporaryDir tmp;
    const QString file = tmp.filePath(QStringLiteral("viewed.json"));
    const QString repoPath = QString::fromStdString(b.root());
    auto blobAtWorktree = [&] {
        const auto repo = pw::core::Repository::open(b.root());
        return QString::fromStdString(
            repo.entry(repo.resolve("WORKTREE"), "pkg/calc.py").value().blob);
    };
    const QString first = blobAtWorktree();
    ViewedMarks(file).setViewed(repoPath, QStringLiteral("pkg/calc.py"), first, true);
    QVERIFY(ViewedMarks(file).isViewed(repoPath, QStringLiteral("pkg/calc.py"), blobAtWorktree()));
    b.write("pkg/calc.py", "def f():\n    return 3\n"); // the agent again
    QVERIFY(blobAtWorktree() != first);
    QVERIFY(!ViewedMarks(file).isViewed(repoPath, QStringLiteral("pkg/calc.py"), blobAtWorktree()));
}

void TstWorkspace::viewedMergesWritesOfTwoWindows()
{
    QTemporaryDir tmp;
    const QString file = tmp.filePath(QStringLiteral("viewed.json"));
    ViewedMarks one(file), two(file);
    one.setViewed(tmp.path(), QStringLiteral("a.py"), QStringLiteral("1"), true);
    two.setViewed(tmp.path(), QStringLiteral("b.py"), QStringLiteral("2"), true);
    ViewedMarks fresh(file);
    QVERIFY(fresh.isViewed(tmp.path(), QStringLiteral("a.py"), QStringLiteral("1")));
    QVERIFY(fresh.isViewed(tmp.path(), QStringLiteral("b.py"), QStringLiteral("2")));
}

// ---------------------------------------------------------------------------------------
// RepositoryWatcher

void TstWorkspace::watcherEmitsOnceForABurst()
{
    RepoBuilder b;
    b.write("tests/test_a.py", "def test_a():\n    assert True\n");
    b.write("pkg/calc.py", "X = 1\n");
    b.commit("base");
    RepositoryWatcher watcher;
    watcher.setDebounce(250);
    watcher.watch(QString::fromStdString(b.root()),
                  {QStringLiteral("tests"), QStringLiteral("pkg"), QStringLiteral("gone/away")});
    const QStringList watched = watcher.watchedPaths();
    QVERIFY(watched.contains(QString::fromStdString(b.root() + "/tests/test_a.py")));
    QVERIFY(watched.contains(QString::fromStdString(b.root() + "/.git/index")));
    QVERIFY(watched.contains(QString::fromStdString(b.root() + "/.git/refs/heads")));
    QSignalSpy spy(&watcher, &RepositoryWatcher::changed);

    // An agent's burst: files written in place, created, written again.
    for (int round = 0; round < 3; ++round) {
        b.write("tests/test_a.py", "def test_a():\n    assert " + std::to_string(round) + "\n");
        b.write("pkg/calc.py", "X = " + std::to_string(round) + "\n");
        b.write("tests/test_new_" + std::to_string(round) + ".py", "");
    }
    QVERIFY(spy.wait(kGenerousMs));
    QTest::qWait(4 * watcher.debounce()); // a second signal would have come by now
    QCOMPARE(spy.count(), 1);

    // The next burst is another signal — also for a file created in the first one.
    b.write("tests/test_new_1.py", "def test_new():\n    pass\n");
    QVERIFY(spy.wait(kGenerousMs));
    QTest::qWait(4 * watcher.debounce());
    QCOMPARE(spy.count(), 2);
}

void TstWorkspace::watcherIgnoresCachesAndBuildOutput()
{
    RepoBuilder b;
    b.write("tests/test_a.py", "def test_a():\n    pass\n");
    b.commit("base");
    RepositoryWatcher watcher;
    watcher.setDebounce(150);
    watcher.watch(QString::fromStdString(b.root()),
                  {QStringLiteral("tests"), QStringLiteral("build/lib"), QStringLiteral(".")});
    for (const QString &path : watcher.watchedPaths())
        QVERIFY2(!path.contains(QLatin1String("/build")), qPrintable(path));
    QSignalSpy spy(&watcher, &RepositoryWatcher::changed);
    // What running pytest and a build leave behind.
    b.write("tests/__pycache__/test_a.cpython-311-pytest-8.0.pyc", "bytecode");
    b.write("__pycache__/x.pyc", "bytecode");
    b.write(".pytest_cache/v/cache/lastfailed", "{}");
    b.write("build/lib/pkg/calc.py", "X = 1\n");
    QVERIFY(!spy.wait(8 * watcher.debounce()));
    QCOMPARE(spy.count(), 0);
    // A real edit next to the cache still counts.
    b.write("tests/test_a.py", "def test_a():\n    assert False\n");
    QVERIFY(spy.wait(kGenerousMs));

    QVERIFY(RepositoryWatcher::isIgnored(QStringLiteral("build/x.o")));
    QVERIFY(RepositoryWatcher::isIgnored(QStringLiteral(".git/objects/ab/cdef")));
    QVERIFY(RepositoryWatcher::isIgnored(QStringLiteral("pkg/__pycache__/m.pyc")));
    QVERIFY(!RepositoryWatcher::isIgnored(QStringLiteral("pkg/build.py")));
    QVERIFY(!RepositoryWatcher::isIgnored(QStringLiteral(".git/index")));
}

void TstWorkspace::watcherSeesGitRefs()
{
    RepoBuilder b;
    b.write("a.py", "x = 1\n");
    b.commit("base");
    RepositoryWatcher watcher;
    watcher.setDebounce(150);
    watcher.watch(QString::fromStdString(b.root()), {}); // refs, HEAD and index only
    QSignalSpy spy(&watcher, &RepositoryWatcher::changed);
    b.branch("agent");
    QVERIFY(spy.wait(kGenerousMs));
    QTest::qWait(4 * watcher.debounce());
    QCOMPARE(spy.count(), 1);
    b.write("a.py", "x = 2\n");
    b.commit("agent's change"); // index and the branch ref are rewritten
    QVERIFY(spy.wait(kGenerousMs));
}

void TstWorkspace::watcherStops()
{
    RepoBuilder b;
    b.write("tests/test_a.py", "");
    b.commit("base");
    RepositoryWatcher watcher;
    watcher.setDebounce(100);
    watcher.watch(QString::fromStdString(b.root()), {QStringLiteral("tests")});
    QVERIFY(watcher.isWatching());
    QSignalSpy spy(&watcher, &RepositoryWatcher::changed);
    b.write("tests/test_a.py", "x = 1\n");
    watcher.stop(); // also drops the burst in flight
    QVERIFY(!watcher.isWatching());
    QVERIFY(watcher.watchedPaths().isEmpty());
    b.write("tests/test_a.py", "x = 2\n");
    QVERIFY(!spy.wait(8 * watcher.debounce()));
}

void TstWorkspace::watcherResolvesLinkedWorktrees()
{
    // `git worktree add` leaves a ".git" file in the work tree and a "commondir" file in
    // the worktree's git directory.
    QTemporaryDir tmp;
    RepoBuilder mainTree(tmp.filePath(QStringLiteral("main"))); // libgit2 opens real ones
    mainTree.write("a.txt", "a\n");
    mainTree.commit("base");
    mainTree.branch("wt");
    const QString main = tmp.filePath(QStringLiteral("main/.git"));
    const QString wtGit = main + QStringLiteral("/worktrees/wt");
    const QString wt = tmp.filePath(QStringLiteral("wt"));
    QVERIFY(QDir().mkpath(wtGit));
    QVERIFY(QDir().mkpath(main + QStringLiteral("/refs/heads")));
    QVERIFY(QDir().mkpath(wt));
    writeFile(wt + QStringLiteral("/.git"), "gitdir: " + wtGit.toUtf8() + "\n");
    writeFile(wtGit + QStringLiteral("/commondir"), "../..\n");
    writeFile(wtGit + QStringLiteral("/HEAD"), "ref: refs/heads/wt\n");
    writeFile(wtGit + QStringLiteral("/index"), "");
    const RepositoryWatcher::GitDirs dirs = RepositoryWatcher::gitDirs(wt);
    QCOMPARE(dirs.gitDir, wtGit);
    QCOMPARE(dirs.commonDir, main);

    RepositoryWatcher watcher;
    watcher.watch(wt, {});
    const QStringList watched = watcher.watchedPaths();
    QVERIFY(watched.contains(wtGit + QStringLiteral("/HEAD")));
    QVERIFY(watched.contains(wtGit + QStringLiteral("/index")));
    QVERIFY(watched.contains(main + QStringLiteral("/refs/heads")));

    // A relative gitdir is relative to the work tree.
    writeFile(wt + QStringLiteral("/.git"), "gitdir: ../main/.git/worktrees/wt\n");
    QCOMPARE(RepositoryWatcher::gitDirs(wt).gitDir, wtGit);
    QCOMPARE(RepositoryWatcher::gitDirs(tmp.path()).gitDir, QString()); // no repository
}

// ---------------------------------------------------------------------------------------
// SettingsDialog

void TstWorkspace::settingsOkDisabledWithReason_data()
{
    QTest::addColumn<QString>("field"); // object name of the widget to edit
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("status"); // object name of the label that says why
    QTest::addColumn<QString>("reason");
    QTest::newRow("empty python") << QStringLiteral("pythonEdit") << QString()
                                  << QStringLiteral("pythonStatus") << QStringLiteral("Required");
    QTest::newRow("python not on PATH")
        << QStringLiteral("pythonEdit") << QStringLiteral("no-such-python-9")
        << QStringLiteral("pythonStatus") << QStringLiteral("is not on PATH");
    QTest::newRow("python path missing")
        << QStringLiteral("pythonEdit") << QStringLiteral(".venv/bin/python")
        << QStringLiteral("pythonStatus") << QStringLiteral("does not exist");
    QTest::newRow("python is a directory")
        << QStringLiteral("pythonEdit") << QStringLiteral("/usr/bin/")
        << QStringLiteral("pythonStatus") << QStringLiteral("is a directory");
    QTest::newRow("latitude 0") << QStringLiteral("latitudeSpin") << QStringLiteral("0")
                                << QStringLiteral("latitudeStatus")
                                << QStringLiteral("Must be at least 1");
    QTest::newRow("no test glob") << QStringLiteral("testGlobsEdit") << QStringLiteral("\n  \n")
                                  << QStringLiteral("testGlobsStatus")
                                  << QStringLiteral("at least one glob");
    QTest::newRow("absolute fixture glob")
        << QStringLiteral("fixtureGlobsEdit") << QStringLiteral("data/**\n/etc/*")
        << QStringLiteral("fixtureGlobsStatus") << QStringLiteral("Line 2");
}

void TstWorkspace::settingsOkDisabledWithReason()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, status);
    QFETCH(QString, reason);
    QTemporaryDir repo;
    writeFile(repo.filePath(QStringLiteral(".patchwitness/config.toml")),
              "python = \"" + QByteArray::fromStdString(pw::test::testPython()) + "\"\n");
    SettingsDialog dialog(repo.path());
    QPushButton *ok = child<QDialogButtonBox>(&dialog, "buttonBox")->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    QWidget *widget = child<QWidget>(&dialog, qPrintable(field));
    QVERIFY(widget);
    if (auto *line = qobject_cast<QLineEdit *>(widget)) {
        line->clear();
        QTest::keyClicks(line, value);
    } else if (auto *text = qobject_cast<QPlainTextEdit *>(widget)) {
        text->setPlainText(value);
    } else if (auto *spin = qobject_cast<QSpinBox *>(widget)) {
        spin->setValue(value.toInt());
    }
    QVERIFY(!ok->isEnabled());
    QLabel *label = child<QLabel>(&dialog, qPrintable(status));
    QVERIFY2(label->text().contains(reason), qPrintable(label->text()));
    // OK does nothing while invalid, even when forced.
    dialog.accept();
    QVERIFY(dialog.result() != QDialog::Accepted);
}

void TstWorkspace::settingsWritingKeepsComments()
{
    QTemporaryDir repo;
    const QString path = repo.filePath(QStringLiteral(".patchwitness/config.toml"));
    const QByteArray python = QByteArray::fromStdString(pw::test::testPython());
    writeFile(path, "# Reviewed thresholds: ask #qa before loosening\n"
                    "python = \"" +
                        python +
                        "\"   # system pytest\n"
                        "latitude_max = 4 # tight\n"
                        "future_option = true\n"
                        "\n"
                        "[timeouts]\n"
                        "per_test = 30\n");
    SettingsDialog dialog(repo.path());
    QCOMPARE(dialog.configPath(), path);
    auto *spin = child<QSpinBox>(&dialog, "latitudeSpin");
    QCOMPARE(spin->value(), 4);
    spin->setValue(6);
    child<QPlainTextEdit>(&dialog, "fixtureGlobsEdit")->setPlainText(QStringLiteral("data/**\n"));
    QTest::mouseClick(child<QDialogButtonBox>(&dialog, "buttonBox")->button(QDialogButtonBox::Ok),
                      Qt::LeftButton);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QVERIFY(dialog.written());
    QCOMPARE(readFile(path), QByteArray("# Reviewed thresholds: ask #qa before loosening\n"
                                        "python = \"" +
                                        python +
                                        "\"   # system pytest\n"
                                        "latitude_max = 6 # tight\n"
                                        "future_option = true\n"
                                        "fixture_globs = [\"data/**\"]\n"
                                        "\n"
                                        "[timeouts]\n"
                                        "per_test = 30\n"));
}

void TstWorkspace::settingsWritesOnlyWhatChanged()
{
    QTemporaryDir repo;
    const QString path = repo.filePath(QStringLiteral(".patchwitness/config.toml"));
    // No file yet: the defaults are shown and nothing is written when nothing changes.
    {
        SettingsDialog dialog(repo.path());
        QCOMPARE(child<QLineEdit>(&dialog, "pythonEdit")->text(), QStringLiteral("python3"));
        QVERIFY(child<QPlainTextEdit>(&dialog, "testGlobsEdit")
                    ->toPlainText()
                    .contains(QLatin1String("tests/**/*.py")));
        QVERIFY(dialog.changes().empty());
    }
    SettingsDialog dialog(repo.path());
    auto *pythonEdit = child<QLineEdit>(&dialog, "pythonEdit");
    pythonEdit->setText(QString::fromStdString(pw::test::testPython()));
    QCOMPARE(dialog.changes().size(), size_t(1));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(readFile(path),
             "python = \"" + QByteArray::fromStdString(pw::test::testPython()) + "\"\n");
}

void TstWorkspace::settingsRefusesAFileChangedOnDisk()
{
    QTemporaryDir repo;
    const QString path = repo.filePath(QStringLiteral(".patchwitness/config.toml"));
    writeFile(path, "latitude_max = 4\n");
    SettingsDialog dialog(repo.path());
    dialog.show();
    // Someone (the agent, a colleague's pull) edits the file while the dialog is open.
    const QByteArray theirs = "# tightened by CI\nlatitude_max = 2\n";
    writeFile(path, theirs);
    child<QSpinBox>(&dialog, "latitudeSpin")->setValue(9);
    dialog.accept();
    QVERIFY(dialog.result() != QDialog::Accepted);
    QVERIFY(dialog.isVisible()); // the edits are still there to copy
    QVERIFY(!dialog.written());
    QCOMPARE(readFile(path), theirs);
    QVERIFY2(dialog.lastError().contains(QLatin1String("changed on disk")),
             qPrintable(dialog.lastError()));
    auto *box = dialog.findChild<QMessageBox *>(QStringLiteral("settingsError"));
    QVERIFY(box);
    QVERIFY(box->text().contains(QLatin1String("changed on disk")));
    box->close();
}

void TstWorkspace::settingsBrokenFileIsNotEditable()
{
    QTemporaryDir repo;
    const QString path = repo.filePath(QStringLiteral(".patchwitness/config.toml"));
    const QByteArray broken = "python = \"python3\"\nlatitude_max = = 4\n";
    writeFile(path, broken);
    SettingsDialog dialog(repo.path());
    auto *problem = child<QLabel>(&dialog, "problemLabel");
    QVERIFY(!problem->isHidden());
    QVERIFY2(problem->text().contains(path + QStringLiteral(":2:")), qPrintable(problem->text()));
    QVERIFY(
        !child<QDialogButtonBox>(&dialog, "buttonBox")->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(!child<QLineEdit>(&dialog, "pythonEdit")->isEnabled());
    dialog.accept();
    QCOMPARE(readFile(path), broken);
}

void TstWorkspace::settingsDialogRenders()
{
    QTemporaryDir repo;
    writeFile(repo.filePath(QStringLiteral(".patchwitness/config.toml")),
              "# thresholds\npython = \"python3\"\nlatitude_max = 4\n"
              "test_globs = [\"tests/**/*.py\", \"**/test_*.py\"]\n");
    SettingsDialog dialog(repo.path());
    child<QSpinBox>(&dialog, "latitudeSpin")->setValue(0); // show a reason
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QPixmap shot = dialog.grab();
    QVERIFY(!shot.isNull());
    saveShot(shot, QStringLiteral("settings-dialog.png"));
}

// Three requests while the first runs: the first is asked to stop (its token), the second
// is dropped without running, the third runs and is the one answer delivered; the task is
// busy until that answer is in.
void TstWorkspace::latestTaskDeliversOnlyTheNewestAnswer()
{
    std::vector<int> delivered;
    int starts = 0;
    LatestTask<int> task(
        this, [&](int answer) { delivered.push_back(answer); }, [&] { ++starts; });
    std::atomic<bool> firstSawStop{false};
    std::atomic<bool> firstRunning{false};
    task.start([&](std::stop_token stop) {
        firstRunning = true;
        while (!stop.stop_requested())
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        firstSawStop = true;
        return 1;
    });
    QTRY_VERIFY(firstRunning.load());
    std::atomic<int> ran{0};
    task.start([&](std::stop_token) { return ++ran, 2; });
    task.start([&](std::stop_token) { return ++ran, 3; });
    QVERIFY(task.isBusy());
    task.waitForIdle();
    QVERIFY(firstSawStop.load());
    QCOMPARE(ran.load(), 1);                  // only the newest of the waiting requests ran
    QCOMPARE(delivered, std::vector<int>{3}); // the stale answers never arrive
    QCOMPARE(starts, 2);
    QVERIFY(!task.isBusy());
}

// cancel() drops the waiting request and stops the running one, whose answer (saying it was
// stopped) is still delivered.
void TstWorkspace::latestTaskCancelStopsAndStillDelivers()
{
    std::vector<QString> delivered;
    LatestTask<QString> task(this, [&](QString answer) { delivered.push_back(answer); });
    std::atomic<bool> running{false};
    task.start([&](std::stop_token stop) {
        running = true;
        while (!stop.stop_requested())
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return QStringLiteral("stopped");
    });
    QTRY_VERIFY(running.load());
    bool waitingRan = false;
    task.start([&](std::stop_token) {
        waitingRan = true;
        return QStringLiteral("waiting");
    });
    task.cancel();
    task.waitForIdle();
    QVERIFY(!waitingRan);
    QCOMPARE(delivered, std::vector<QString>{QStringLiteral("stopped")});
}

// Issue 19: waiting for a task never runs it on the waiting (GUI) thread. The pool is kept
// busy so that the task has not started when waitForIdle() begins — QFuture::waitForFinished
// would then run it right here — and when the window goes away, a task not started yet
// never starts at all.
void TstWorkspace::latestTaskNeverRunsOnTheWaitingThread()
{
    QThreadPool *pool = QThreadPool::globalInstance();
    const struct Restore
    {
        QThreadPool *pool;
        int threads;
        ~Restore() { pool->setMaxThreadCount(threads); } // also when a check fails
    } restore{pool, pool->maxThreadCount()};
    pool->setMaxThreadCount(1);
    std::atomic<bool> release{false};
    std::atomic<bool> blocking{false};
    pool->start([&] {
        blocking = true;
        while (!release)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    QTRY_VERIFY(blocking.load());

    std::vector<std::thread::id> ranOn;
    {
        LatestTask<std::thread::id> task(this, [&](std::thread::id id) { ranOn.push_back(id); });
        task.start([](std::stop_token) { return std::this_thread::get_id(); });
        std::thread releaser([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            release = true;
        });
        task.waitForIdle();
        releaser.join();
    }
    QCOMPARE(ranOn.size(), size_t(1));
    QVERIFY(ranOn.front() != std::this_thread::get_id());

    // Destroyed before the pool picks it up: the task never runs, here or anywhere.
    release = false;
    blocking = false;
    pool->start([&] {
        blocking = true;
        while (!release)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    QTRY_VERIFY(blocking.load());
    std::atomic<bool> ran{false};
    {
        LatestTask<int> task(this, [](int) {});
        task.start([&](std::stop_token) { return ran = true, 1; });
    } // ~LatestTask while the only pool thread is busy
    release = true;
    pool->waitForDone();
    QVERIFY(!ran.load());
}

QTEST_MAIN(TstWorkspace)
#include "tst_workspace.moc"
