// The demo repository: built from the recipe in resources/demo, reused while
// current, rebuilt when the recipe changed, never clobbering a foreign directory; its
// base tests really pass under pytest, and its patch shows every static verdict.
#include "TestSupport.h"
#include "audit/Audit.h"
#include "ledger/LedgerHistory.h"
#include "repo/DemoRepository.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QProcess>
#include <QtTest>
#include <algorithm>
#include <map>
#include <set>

using namespace pw::core;

namespace {

QString sentinelPath(const std::string &demo)
{
    return QString::fromStdString(demo) + QLatin1String("/.git/tst_demo-sentinel");
}

bool touch(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write("x") == 1;
}

} // namespace

class TstDemo : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void buildsBaseAndAgentCommits();
    void reusesACurrentDemo();
    void rebuildsWhenTheRecipeDigestDiffers();
    void refusesToReplaceAForeignDirectory();
    void recipeTreePassesUnderPytest_data();
    void recipeTreePassesUnderPytest();
    void auditShowsEveryStaticVerdict();

private:
    std::string demoDir() const { return m_tmp->filePath(QStringLiteral("demo")).toStdString(); }
    std::unique_ptr<QTemporaryDir> m_tmp;
};

void TstDemo::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
}

void TstDemo::buildsBaseAndAgentCommits()
{
    const std::string path = DemoRepository::ensure(demoDir());
    QCOMPARE(QString::fromStdString(path),
             QDir(m_tmp->filePath(QStringLiteral("demo"))).canonicalPath());

    const Repository repo = Repository::open(path);
    QVERIFY(!repo.isDirty());
    // The agent's commit on the maintainers' ledger history: the base package, then six
    // ledger commits (a freeze granted, renewed and removed after its expiry, a waiver, a
    // journal row opened and closed), newest first.
    const std::vector<CommitInfo> commits = repo.recentCommits(20);
    QCOMPARE(commits.size(), size_t(8));
    QCOMPARE(commits[0].subject, std::string("Fix banker's rounding in round_half"));
    QCOMPARE(commits[0].author, std::string("coding-agent"));
    QCOMPARE(commits.back().author, std::string("Maintainer"));
    for (size_t i = 1; i < commits.size(); ++i)
        QVERIFY(commits[i - 1].time > commits[i].time);
    QVERIFY(commits[1].subject.find("Journal: close") == 0);
    const std::vector<LedgerEvent> events =
        LedgerHistory::ofDirectory(path, ".patchwitness", QDate(2024, 5, 3));
    QStringList kinds;
    for (const LedgerEvent &e : events)
        kinds << QString::fromLatin1(ledgerEventName(e.kind));
    QCOMPARE(kinds.join(u' '), QStringLiteral("added renewed expired removed added added edited"));
    // The agent's patch leaves the ledgers as main has them.
    const Revision patched = repo.resolve(DemoRepository::kHeadBranch);
    const Revision main = repo.resolve(DemoRepository::kBaseBranch);
    for (const char *file : {".patchwitness/quarantine.toml", ".patchwitness/census_waiver.toml",
                             ".patchwitness/seed_journal.jsonl"})
        QCOMPARE(repo.readFile(patched, file), repo.readFile(main, file));
    // "{{base}}" became the base commit's id.
    QVERIFY(repo.readFile(repo.resolve("HEAD~6"), ".patchwitness/quarantine.toml")
                .find("baseline_sha = \"" + commits.back().commit + "\"") != std::string::npos);

    const Revision head = repo.defaultHead();
    QVERIFY(!head.isWorktree());
    QCOMPARE(head.commit, repo.resolve(DemoRepository::kHeadBranch).commit);
    QCOMPARE(head.commit, commits[0].commit);
    const Revision base = repo.defaultBase(head);
    QCOMPARE(base.commit, repo.resolve(DemoRepository::kBaseBranch).commit);
    QCOMPARE(base.commit, commits[1].commit); // main: the last ledger commit
    const std::optional<std::string> headRef = readWholeFile(path + "/.git/HEAD");
    QVERIFY(headRef);
    QCOMPARE(*headRef, std::string("ref: refs/heads/agent/fix-rounding\n"));

    // The build happened next to the demo; nothing of it is left behind.
    QCOMPARE(QDir(m_tmp->path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("demo")});
}

void TstDemo::reusesACurrentDemo()
{
    const std::string first = DemoRepository::ensure(demoDir());
    const std::string headId = Repository::open(first).resolve("HEAD").commit;
    QVERIFY(touch(sentinelPath(first)));

    const std::string second = DemoRepository::ensure(demoDir());
    QCOMPARE(second, first);
    QVERIFY2(QFileInfo::exists(sentinelPath(second)), "a current demo must not be rebuilt");
    QCOMPARE(Repository::open(second).resolve("HEAD").commit, headId);
}

void TstDemo::rebuildsWhenTheRecipeDigestDiffers()
{
    const std::string path = DemoRepository::ensure(demoDir());
    const std::string headId = Repository::open(path).resolve("HEAD").commit;
    QVERIFY(touch(sentinelPath(path)));
    QVERIFY(writeFileAtomically(DemoRepository::digestFile(path), "0000 an older recipe\n"));

    QCOMPARE(DemoRepository::ensure(demoDir()), path);
    QVERIFY2(!QFileInfo::exists(sentinelPath(path)), "a stale demo must be rebuilt");
    const std::optional<std::string> digest = readWholeFile(DemoRepository::digestFile(path));
    QVERIFY(digest);
    QCOMPARE(*digest, DemoRepository::recipeDigest() + "\n");
    // Fixed authors and times: a rebuild reproduces the same commits.
    QCOMPARE(Repository::open(path).resolve("HEAD").commit, headId);
    QVERIFY(!Repository::open(path).isDirty());
    QCOMPARE(QDir(m_tmp->path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("demo")});
}

void TstDemo::refusesToReplaceAForeignDirectory()
{
    const QString dir = QString::fromStdString(demoDir());
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(touch(dir + QLatin1String("/notes.txt")));
    try {
        DemoRepository::ensure(demoDir());
        QFAIL("ensure() replaced a directory that is not a demo");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), int(Error::Kind::Input));
        QVERIFY2(QString::fromUtf8(e.what()).contains(dir), e.what());
    }
    QVERIFY(QFileInfo::exists(dir + QLatin1String("/notes.txt")));
}

void TstDemo::recipeTreePassesUnderPytest_data()
{
    QTest::addColumn<int>("tree");
    // The base is the maintainer's green suite. The head is green too: that is the point
    // of the demo — a passing CI run proves little about the agent's patch.
    QTest::newRow("base") << int(DemoRepository::Tree::Base);
    QTest::newRow("head") << int(DemoRepository::Tree::Head);
}

void TstDemo::recipeTreePassesUnderPytest()
{
    QFETCH(int, tree);
    const QString dir = m_tmp->filePath(QStringLiteral("tree"));
    DemoRepository::writeTree(DemoRepository::Tree(tree), dir.toStdString());

    QProcess pytest;
    pytest.setWorkingDirectory(dir);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    env.remove(QStringLiteral("PYTEST_ADDOPTS"));
    // The recipe's own suite, not whatever pytest plugins this machine has installed.
    env.insert(QStringLiteral("PYTEST_DISABLE_PLUGIN_AUTOLOAD"), QStringLiteral("1"));
    pytest.setProcessEnvironment(env);
    pytest.setProcessChannelMode(QProcess::MergedChannels);
    pytest.start(QString::fromStdString(pw::test::testPython()),
                 {QStringLiteral("-m"), QStringLiteral("pytest"), QStringLiteral("-q"),
                  QStringLiteral("-p"), QStringLiteral("no:cacheprovider")});
    QVERIFY2(pytest.waitForFinished(120'000), "pytest did not finish");
    const QByteArray output = pytest.readAll();
    QVERIFY2(pytest.exitStatus() == QProcess::NormalExit && pytest.exitCode() == 0,
             output.constData());
    QVERIFY2(output.contains(" passed"), output.constData());
}

void TstDemo::auditShowsEveryStaticVerdict()
{
    AuditRequest request;
    request.repoPath = DemoRepository::ensure(demoDir());
    request.python = pw::test::testPython();
    request.cacheDir = m_tmp->filePath(QStringLiteral("cache")).toStdString();
    const GateReport report = Audit::run(request);

    QCOMPARE(verdictName(report.verdict), "BLOCK");
    std::map<std::string, int> counts;
    for (const Finding &f : report.findings)
        ++counts[f.code];
    QStringList seen;
    for (const auto &[code, n] : counts)
        seen << QStringLiteral("%1=%2").arg(QString::fromStdString(code)).arg(n);
    qInfo("findings by code: %s", qPrintable(seen.join(QLatin1Char(' '))));

    for (const char *code :
         {"T-ADD", "T-DEL", "T-GONE", "T-SKIP", "T-WEAK", "T-RENAME", "F-DRIFT", "LATITUDE",
          "CONFTEST-HOOK", "WEAKER:assertions", "BLOCKER:deleted", "NEW:test"})
        QVERIFY2(
            counts.count(code),
            qPrintable(
                QStringLiteral("no %1 finding; got %2").arg(QLatin1String(code), seen.join(u' '))));

    QStringList signals;
    for (const LatitudeTestScore &t : report.latitude.tests)
        for (const std::string &s : t.signals)
            signals << QString::fromStdString(t.test + ": " + s);
    for (const char *signal :
         {"compare rank", "exception rank", "base class", "tolerance", "skip/xfail added"}) {
        QVERIFY2(std::any_of(signals.cbegin(), signals.cend(),
                             [&](const QString &s) { return s.contains(QLatin1String(signal)); }),
                 qPrintable(QStringLiteral("no latitude signal '%1' in:\n%2")
                                .arg(QLatin1String(signal), signals.join(u'\n'))));
    }
    QVERIFY(report.latitude.total >= report.latitude.threshold);
}

QTEST_GUILESS_MAIN(TstDemo)
#include "tst_demo.moc"
