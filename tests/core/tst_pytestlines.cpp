// The dynamic gates end to end on each pytest line (Debian's 7.2, pytest 8.x, the newest
// release: PytestLines.h) — the census, attribution, the four cells and the shadow sample
// on one small repository, with the same verdicts on every line — and the venv cache the
// lines live in (tests/support/pytest_lines.py): built once by processes started together,
// reused after it answers for itself, rebuilt when it does not, and a package registry that
// cannot be reached a failure in pip's words, never a skip.

#include "PytestLines.h"
#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/Attribution.h"
#include "dynamic/Census.h"
#include "dynamic/ReproCells.h"
#include "dynamic/Shadow.h"
#include "execution/RunPool.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using namespace pw::core;
using pw::test::PytestLine;
using pw::test::RepoBuilder;

namespace {

const char *const kToday = "2024-05-10";

// The order victim of tst_reprocells: test_a leaves "strict" in a module cache and test_b
// fails after it. Collection order a, b, c, d; --pw-seed 1 runs d a c b, seed 2 b c d a.
const char *const kBaseFiles[][2] = {
    {"calc.py", "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return 2 * x\n"},
    {"tests/test_calc.py", "from calc import add\n\n\n"
                           "def test_add():\n    assert add(1, 2) == 3\n\n\n"
                           "def test_gone():\n    assert add(5, 5) == 10\n\n\n"
                           "def test_broken():\n    assert add(2, 2) == 5\n"},
    {"tests/test_double.py", "from calc import double\n\n\n"
                             "def test_double():\n    assert double(2) == 4\n"},
    {"tests/test_plain.py", "def test_plain():\n    assert 1 + 1 == 2\n"},
    {"tests/order/order_registry.py", "CACHE = {}\n"},
    {"tests/order/test_order_a.py", "import order_registry\n\n\ndef test_a():\n"
                                    "    order_registry.CACHE['mode'] = 'strict'\n"},
    {"tests/order/test_order_b.py", "import order_registry\n\n\ndef test_b():\n"
                                    "    assert order_registry.CACHE.get('mode') != 'strict'\n"},
    {"tests/order/test_order_c.py", "def test_c():\n    pass\n"},
    {"tests/order/test_order_d.py", "def test_d():\n    pass\n"},
};

// The patch: double() broken, test_gone deleted.
const char *const kHeadFiles[][2] = {
    {"calc.py", "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return x + x + 1\n"},
    {"tests/test_calc.py", "from calc import add\n\n\n"
                           "def test_add():\n    assert add(1, 2) == 3\n\n\n"
                           "def test_broken():\n    assert add(2, 2) == 5\n"},
};

const Finding *findingOf(const std::vector<Finding> &findings, const std::string &code,
                         const std::string &test)
{
    for (const Finding &f : findings) {
        if (f.code == code && f.test == test)
            return &f;
    }
    return nullptr;
}

const ShadowDecision *decisionOf(const ShadowReport &r, const std::string &node)
{
    for (const ShadowDecision &d : r.decisions) {
        if (d.nodeId == node)
            return &d;
    }
    return nullptr;
}

// Lines a text holds that contain `needle`.
int linesWith(const std::string &text, const std::string &needle)
{
    int count = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
        ++count;
    return count;
}

QProcessEnvironment scriptEnvironment(const QString &root)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATCHWITNESS_TEST_VENVS"), root);
    return env;
}

} // namespace

class TestPytestLines : public QObject
{
    Q_OBJECT

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::string m_base, m_head;

    // The repository's base..head with `line`'s interpreter, a cache of the line's own (the
    // shadow sample's stored witness is the interpreter's).
    RunContext context(PytestLine line, const std::string &python) const
    {
        const std::string cache =
            m_cache->path().toStdString() + "/" + pw::test::pytestLineName(line);
        return RunContext::open(
            pw::test::runRequest(m_repo->root(), cache, m_base, m_head, kToday, python));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_repo = std::make_unique<RepoBuilder>();
        m_cache = std::make_unique<QTemporaryDir>();
        QVERIFY(m_cache->isValid());
        for (const auto &file : kBaseFiles)
            m_repo->write(file[0], file[1]);
        m_base = m_repo->commit("base");
        for (const auto &file : kHeadFiles)
            m_repo->write(file[0], file[1]);
        m_head = m_repo->commit("the patch");
    }

    // --- the gates on each line --------------------------------------------------------

    void censusBlocksTheDeletedTest_data() { pw::test::addPytestLineRows(); }
    void censusBlocksTheDeletedTest()
    {
        QFETCH(PytestLine, line);
        const pw::test::PinnedPython pinned = pw::test::pytestPython(line);
        QVERIFY2(pinned.ok(), pinned.error.c_str());
        const RunContext ctx = context(line, pinned.python);
        RunPool pool(ctx.workers());
        const CensusReport r = Census::run(ctx, CensusOptions{}, pool);
        const std::string text = formatCensusText(r);
        QVERIFY2(r.harnessError.empty(), text.c_str());
        QVERIFY2(!r.unstable, text.c_str());
        QCOMPARE(r.baseSummary.collected, 9);
        QCOMPARE(r.headSummary.collected, 8);
        QVERIFY2(r.executed && r.baseSummary.executed == 9, text.c_str());
        const Finding *removed =
            findingOf(r.findings, "C-REMOVED", "tests/test_calc.py::test_gone");
        QVERIFY2(removed && removed->severity == Severity::Block, text.c_str());
        QCOMPARE(r.verdict(), Verdict::Block);
    }

    void attributionJudgesBothFailures_data() { pw::test::addPytestLineRows(); }
    void attributionJudgesBothFailures()
    {
        QFETCH(PytestLine, line);
        const pw::test::PinnedPython pinned = pw::test::pytestPython(line);
        QVERIFY2(pinned.ok(), pinned.error.c_str());
        const RunContext ctx = context(line, pinned.python);
        RunPool pool(2);
        const auto attribute = [&](const std::string &test) {
            AttributionRequest req;
            req.test = test;
            req.runs = 1;
            req.record = false;
            return Attribution::run(ctx, req, pool);
        };
        const AttributionResult pre = attribute("tests/test_calc.py::test_broken");
        QVERIFY2(pre.verdict == AttributionVerdict::PreExisting, pre.sentence.c_str());
        const AttributionResult induced = attribute("tests/test_double.py::test_double");
        QVERIFY2(induced.verdict == AttributionVerdict::PatchInduced, induced.sentence.c_str());
        // Diff coverage of the failing head run (the plugin's coverage seam): it ran the
        // changed line.
        QVERIFY2(induced.coverage.has_value(), induced.sentence.c_str());
        QVERIFY2(induced.sentence.find("did not touch") == std::string::npos,
                 induced.sentence.c_str());
    }

    void cellsFindTheOrderVictim_data() { pw::test::addPytestLineRows(); }
    void cellsFindTheOrderVictim()
    {
        QFETCH(PytestLine, line);
        const pw::test::PinnedPython pinned = pw::test::pytestPython(line);
        QVERIFY2(pinned.ok(), pinned.error.c_str());
        CellsRequest req;
        req.test = "tests/order/test_order_b.py::test_b";
        req.orderSeeds = 2;
        req.record = false;
        RunPool pool(2);
        const ReproCellsResult r = ReproCells::run(context(line, pinned.python), req, pool);
        QCOMPARE(r.cell("solo").status, CellStatus::Pass);
        QCOMPARE(r.cell("order").failingSeeds, std::set<uint32_t>{1}); // the seeded shuffle
        QCOMPARE(r.cell("order").passingSeeds, std::set<uint32_t>{2});
        QCOMPARE(r.cell("isolate").status, CellStatus::Pass); // the fork server
        QCOMPARE(r.cell("clock").status, CellStatus::Pass);   // the frozen clock
        QVERIFY(!r.findings.empty());
        QCOMPARE(r.findings.front().attribution, std::string("order"));
    }

    void shadowSkipsWhatTheWitnessClears_data() { pw::test::addPytestLineRows(); }
    void shadowSkipsWhatTheWitnessClears()
    {
        QFETCH(PytestLine, line);
        const pw::test::PinnedPython pinned = pw::test::pytestPython(line);
        QVERIFY2(pinned.ok(), pinned.error.c_str());
        ShadowOptions options;
        options.pct = 100; // every skip-witnessed test is sampled
        const RunContext ctx = context(line, pinned.python);
        RunPool pool(ctx.workers());
        const ShadowReport r = Shadow::run(ctx, options, pool);
        const std::string text = formatShadowText(r);
        QVERIFY2(r.harnessError.empty(), text.c_str());
        QCOMPARE(r.witnessState, std::string("recorded"));
        const ShadowDecision *plain = decisionOf(r, "tests/test_plain.py::test_plain");
        QVERIFY2(plain && !plain->run && plain->reason == "witnessed" && plain->sampled,
                 text.c_str());
        QVERIFY(plain->outcome == Outcome::Pass);
        const ShadowDecision *doubled = decisionOf(r, "tests/test_double.py::test_double");
        QVERIFY2(doubled && doubled->run, text.c_str());
        QCOMPARE(doubled->reason, std::string("witnessed import calc.py changed"));
        QVERIFY(doubled->outcome == Outcome::Fail);
        QVERIFY2(r.bugs.empty(), text.c_str());
    }

    // --- the venv cache ----------------------------------------------------------------

    // Two processes asking for a line at once: one builds, the other waits for it (or finds
    // it built); one venv, nothing half-made left beside it.
    void processesStartedTogetherShareOneBuild()
    {
        QTemporaryDir root;
        const QProcessEnvironment env = scriptEnvironment(root.path());
        QProcess first, second;
        for (QProcess *p : {&first, &second}) {
            p->setProcessEnvironment(env);
            p->start(QStringLiteral(PW_TEST_PYTHON),
                     {QStringLiteral(PW_SOURCE_DIR "/tests/support/pytest_lines.py"),
                      QStringLiteral("path"), QStringLiteral("bare")});
        }
        std::string out[2], err[2];
        int i = 0;
        for (QProcess *p : {&first, &second}) {
            QVERIFY(p->waitForFinished(120 * 1000));
            QCOMPARE(p->exitCode(), 0);
            out[i] = p->readAllStandardOutput().trimmed().toStdString();
            err[i++] = p->readAllStandardError().toStdString();
        }
        QCOMPARE(out[0], out[1]);
        QVERIFY(QFileInfo::exists(QString::fromStdString(out[0])));
        QCOMPARE(linesWith(err[0] + err[1], ": built "), 1);
        const QStringList entries =
            QDir(root.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        QCOMPARE(entries.filter(QStringLiteral("bare-")).size(), 2); // the venv and its lock
        QVERIFY2(entries.filter(QStringLiteral(".tmp-")).isEmpty(), qPrintable(entries.join(' ')));

        // Reused as it is: no second build.
        const pw::test::ScriptRun again =
            pw::test::runPytestLines({QStringLiteral("path"), QStringLiteral("bare")}, env);
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(again.out, out[0] + "\n");
        QCOMPARE(linesWith(again.err, ": built "), 0);
    }

    // A cached venv that does not answer for itself is rebuilt, not trusted.
    void aBrokenCachedVenvIsRebuilt()
    {
        QTemporaryDir root;
        const QProcessEnvironment env = scriptEnvironment(root.path());
        const pw::test::ScriptRun built =
            pw::test::runPytestLines({QStringLiteral("path"), QStringLiteral("bare")}, env);
        QCOMPARE(built.exitCode, 0);
        const QString python = QString::fromStdString(built.out).trimmed();
        QVERIFY(QFile::remove(python));
        // What a build killed midway leaves beside it goes with the next build.
        QDir venv = QFileInfo(python).dir(); // <root>/<line>-<key>/bin
        QVERIFY(venv.cdUp());
        const QString leftover = root.filePath(QStringLiteral(".%1.tmp-1").arg(venv.dirName()));
        QVERIFY(QDir().mkpath(leftover));
        const pw::test::ScriptRun rebuilt =
            pw::test::runPytestLines({QStringLiteral("path"), QStringLiteral("bare")}, env);
        QVERIFY2(rebuilt.exitCode == 0, rebuilt.err.c_str());
        QCOMPARE(QString::fromStdString(rebuilt.out).trimmed(), python);
        QVERIFY2(rebuilt.err.find("rebuilding") != std::string::npos, rebuilt.err.c_str());
        QVERIFY(QFileInfo::exists(python));
        QVERIFY(!QFileInfo::exists(leftover));
    }

    // Without the package registry a line's venv cannot be built: the script fails with
    // pip's own words (the tests then QFAIL with them), and leaves no venv behind.
    void aMissingRegistryFailsInPipsWords()
    {
        QTemporaryDir root;
        QProcessEnvironment env = scriptEnvironment(root.path());
        env.insert(QStringLiteral("PIP_INDEX_URL"), QStringLiteral("http://127.0.0.1:9/simple/"));
        env.insert(QStringLiteral("PIP_CONFIG_FILE"), QStringLiteral("/dev/null"));
        env.insert(QStringLiteral("PIP_CACHE_DIR"), root.filePath(QStringLiteral("pip-cache")));
        env.remove(QStringLiteral("PIP_FIND_LINKS"));
        env.remove(QStringLiteral("PIP_EXTRA_INDEX_URL"));
        const pw::test::ScriptRun run =
            pw::test::runPytestLines({QStringLiteral("path"), QStringLiteral("pytest8")}, env);
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.out.empty());
        for (const char *said : {"cannot provide pytest8", "pip install pytest==8.4.2",
                                 "the pytest8 line needs the package registry",
                                 "No matching distribution found for pytest==8.4.2"})
            QVERIFY2(run.err.find(said) != std::string::npos, run.err.c_str());
        const QStringList entries =
            QDir(root.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        for (const QString &entry : entries)
            QVERIFY2(entry.endsWith(QLatin1String(".lock")) || entry == QLatin1String("pip-cache"),
                     qPrintable(entry));
    }
};

QTEST_GUILESS_MAIN(TestPytestLines)
#include "tst_pytestlines.moc"
