// The seed matrix and triage (core/dynamic/SeedMatrix, SPEC 5.2): the decision table's
// order on ledgers; the seeds' compatible ledger format read and written, and refused
// with the field named; every verdict produced by real fork-server runs on a fixture
// repository whose head commit is "the patch" (a seeded property the patch breaks, a test
// flaky whatever the seed, a seeded failure on both trees, a stable test, a test that
// hangs at one seed, a test the patch adds); each cell's command reproducing it when
// pasted; a cancel leaving nothing recorded; and `patchwitness-cli matrix` and `triage`.

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/SeedMatrix.h"
#include "dynamic/ShardMerge.h"
#include "repo/DemoRepository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>

using pw::core::Arm;
using pw::core::armName;
using pw::core::MatrixRequest;
using pw::core::MatrixResult;
using pw::core::MatrixTest;
using pw::core::RunContext;
using pw::core::RunPool;
using pw::core::RunRequest;
using pw::core::SeedLedger;
using pw::core::SeedMatrix;
using pw::core::Triage;
using pw::core::TriageCell;
using pw::core::TriageResult;
using pw::test::RepoBuilder;

Q_DECLARE_METATYPE(std::vector<TriageCell>)

namespace {

const std::string kToday = "2024-05-10";
const std::string kPatchBug = "tests/test_prop.py::test_clamp_keeps_small_values";
const std::string kFlaky = "tests/test_flaky.py::test_flaky_whatever_the_seed";
const std::string kPre = "tests/test_seeded.py::test_fails_on_some_seeds";
const std::string kStable = "tests/test_stable.py::test_stable";
const std::string kHang = "tests/test_hang.py::test_sometimes_hangs";
const std::string kAdded = "tests/test_added.py::test_new";

// A test failing on every other replay, whatever the seed: a counter outside the tree
// (one per tree, so that the trees' servers do not share it) that each replay bumps.
std::string flakySource(const std::string &counter)
{
    return "import fcntl\n\n\n"
           "def test_flaky_whatever_the_seed():\n"
           "    with open('" +
           counter +
           "', 'a+') as f:\n"
           "        fcntl.flock(f, fcntl.LOCK_EX)\n"
           "        f.seek(0)\n"
           "        n = len(f.read())\n"
           "        f.write('x')\n"
           "    assert n % 2 == 0\n";
}

std::string readAll(const std::string &path)
{
    return pw::core::readWholeFile(path).value_or("");
}

struct Shell
{
    int exitCode = -1;
    QString out; // stdout, then stderr
    QString stdoutText;
};

Shell shell(const std::string &command, const QStringList &args = {})
{
    QProcess p;
    if (args.isEmpty())
        p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QString::fromStdString(command)});
    else
        p.start(QString::fromStdString(command), args);
    if (!p.waitForFinished(240000))
        p.kill();
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const QString err = QString::fromUtf8(p.readAllStandardError());
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, out + err, out};
}

std::string seedsJson(const std::map<long long, int> &cells)
{
    std::string out;
    for (const auto &[seed, fails] : cells)
        out += (out.empty() ? "" : ", ") + ("\"" + std::to_string(seed) + "\": ") +
               std::to_string(fails);
    return "{" + out + "}";
}

// What the seeds' seed_matrix.py writes: json.dump's one-line layout.
std::string scriptLedger(const std::string &impl, int replays,
                         const std::map<long long, int> &cells)
{
    return "{\"impl\": \"" + impl + "\", \"prop\": \"seed_matrix::order_preserved\", " +
           "\"replays\": " + std::to_string(replays) + ", \"seeds\": " + seedsJson(cells) + "}";
}

} // namespace

class TestSeedMatrix : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void triageOrder_data();
    void triageOrder();
    void unobservedSeedsOnlyWeakenWhatSpeaksForEverySeed();
    void ledgerReadsTheSeedsScriptAndRoundTrips();
    void badLedgersNameTheField_data();
    void badLedgersNameTheField();

    void everyVerdictFromRealRuns();
    void ledgersAndRecordAreWrittenAndTriageAgrees();
    void witnessCommandReproducesWhenPasted();
    void cancelRecordsNothing();
    void badRequestsAreRefused();

    void cliMatrixAndTriage();
    void demoPatchHasEveryVerdict();
    void shardsMergeIntoTheMatrix();
    void cliUsageErrors_data();
    void cliUsageErrors();

private:
    RunRequest request() const;

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::string m_base, m_head;
    std::unique_ptr<RunContext> m_ctx;
    MatrixResult m_matrix; // all six tests, seeds 0..5, 4 replays, recorded
};

void TestSeedMatrix::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_cache = std::make_unique<QTemporaryDir>();
    m_scratch = std::make_unique<QTemporaryDir>();
    const std::string scratch = m_scratch->path().toStdString();
    // A replay that hangs is stopped by the per-test timeout (2 s).
    m_repo->write(".patchwitness/config.toml", "[timeouts]\nper_test = 2\n");
    m_repo->write("src/__init__.py", "");
    m_repo->write("src/calc.py", "def clamp(x):\n    return min(x, 100)\n");
    // random.seed(s) then randrange(200): 98 34 14 60 60 159 for s = 0..5 — seed 5 is the
    // only one at or above 100, where the patch's clamp differs.
    m_repo->write("tests/test_prop.py", "import random\n\nfrom src.calc import clamp\n\n\n"
                                        "def test_clamp_keeps_small_values():\n"
                                        "    x = random.randrange(200)\n"
                                        "    assert clamp(x) == min(x, 100)\n");
    m_repo->write("tests/test_flaky.py", flakySource(scratch + "/base.count"));
    // randrange(3) for s = 0..5: 1 0 0 0 0 2 — seeds 1 to 4 fail on both trees.
    m_repo->write("tests/test_seeded.py", "import random\n\n\n"
                                          "def test_fails_on_some_seeds():\n"
                                          "    assert random.randrange(3) != 0\n");
    m_repo->write("tests/test_stable.py", "def test_stable():\n    assert sum([1, 2]) == 3\n");
    m_repo->write("tests/test_hang.py", "def test_sometimes_hangs():\n    pass\n");
    m_base = m_repo->commit("base");
    m_repo->write("src/calc.py", "def clamp(x):\n    return min(x, 99)\n");
    m_repo->write("tests/test_flaky.py", flakySource(scratch + "/head.count"));
    // Hangs at seed 0 only (randrange(3) == 1).
    m_repo->write("tests/test_hang.py", "import random\nimport time\n\n\n"
                                        "def test_sometimes_hangs():\n"
                                        "    if random.randrange(3) == 1:\n"
                                        "        time.sleep(600)\n");
    m_repo->write("tests/test_added.py", "def test_new():\n    pass\n");
    m_head = m_repo->commit("the patch");
    m_ctx = std::make_unique<RunContext>(RunContext::open(request()));

    MatrixRequest req;
    req.tests = {kPatchBug, kFlaky, kPre, kStable, kHang, kAdded};
    req.seeds = 6;
    req.replays = 4;
    RunPool pool(2);
    m_matrix = SeedMatrix::run(*m_ctx, req, pool);
}

RunRequest TestSeedMatrix::request() const
{
    RunRequest r;
    r.target.repoPath = m_repo->root();
    r.target.base = m_base;
    r.target.head = m_head;
    r.target.python = pw::test::testPython();
    r.target.today = kToday;
    r.cacheRoot = m_cache->path().toStdString();
    r.workers = 2;
    r.timeoutSeconds = 120;
    r.sandbox = false; // the flaky test counts its replays outside the tree
    return r;
}

void TestSeedMatrix::triageOrder_data()
{
    QTest::addColumn<std::vector<TriageCell>>("cells");
    QTest::addColumn<int>("verdict"); // -1: no triage
    QTest::addColumn<int>("witness"); // -1: none

    using V = std::vector<TriageCell>;
    const int none = -1;
    QTest::newRow("all green: no signal")
        << V{{0, 0, 0}, {1, 3, 0}} << int(Triage::NoSignal) << none;
    QTest::newRow("K/K patched, 0 baseline")
        << V{{0, 0, 0}, {1, 0, 5}, {2, 0, 5}} << int(Triage::PatchBug) << 1;
    QTest::newRow("patch bug before an earlier flaky seed")
        << V{{0, 0, 2}, {1, 0, 5}} << int(Triage::PatchBug) << 1;
    QTest::newRow("patch bug before an earlier pre-existing seed")
        << V{{0, 5, 5}, {1, 0, 5}} << int(Triage::PatchBug) << 1;
    QTest::newRow("flaky before pre-existing")
        << V{{0, 5, 5}, {1, 1, 3}} << int(Triage::FlakyOracle) << none;
    QTest::newRow("flaky on the patch alone") << V{{0, 0, 2}} << int(Triage::FlakyOracle) << none;
    QTest::newRow("pre-existing: first failing seed")
        << V{{3, 0, 0}, {4, 1, 5}, {7, 5, 5}} << int(Triage::PreExisting) << 4;
    QTest::newRow("no seed") << V{} << none << none;
}

void TestSeedMatrix::triageOrder()
{
    QFETCH(std::vector<TriageCell>, cells);
    QFETCH(int, verdict);
    QFETCH(int, witness);
    const TriageResult r = pw::core::triageCells(cells, 5, 5);
    QCOMPARE(r.triage ? int(*r.triage) : -1, verdict);
    QCOMPARE(r.witnessSeed ? int(*r.witnessSeed) : -1, witness);
    QCOMPARE(int(r.seedsCompared.size()), int(cells.size()));
    if (verdict == int(Triage::NoSignal))
        QCOMPARE(r.line(), std::string("NO_SIGNAL   green on the patch is not evidence"));
    if (verdict == int(Triage::PatchBug))
        QCOMPARE(r.message,
                 "witness seed=" + std::to_string(witness) + " (5/5 patched, 0/5 baseline)");
    if (verdict == int(Triage::FlakyOracle)) {
        QVERIFY(r.flakySeed);
        QVERIFY2(r.message.find("not freezable yet") != std::string::npos, r.message.c_str());
    }
}

void TestSeedMatrix::unobservedSeedsOnlyWeakenWhatSpeaksForEverySeed()
{
    const std::vector<long long> gap = {2};
    // Green where seen, a seed unseen: not NO_SIGNAL, review.
    TriageResult r =
        pw::core::triageCells({{0, 0, 0}, {1, 0, 0}}, 5, 5, gap, "head seed 2: timed out");
    QCOMPARE(r.triage, std::optional<Triage>(Triage::NeedsManualReview));
    QVERIFY2(r.message.find("seed 2") != std::string::npos &&
                 r.message.find("timed out") != std::string::npos,
             r.message.c_str());
    // A freezable verdict needs every seed.
    r = pw::core::triageCells({{0, 5, 5}}, 5, 5, gap);
    QCOMPARE(r.triage, std::optional<Triage>(Triage::NeedsManualReview));
    QVERIFY(!r.witnessSeed);
    // What was seen stands.
    r = pw::core::triageCells({{0, 0, 5}}, 5, 5, gap);
    QCOMPARE(r.triage, std::optional<Triage>(Triage::PatchBug));
    QCOMPARE(r.witnessSeed, std::optional<long long>(0));
    r = pw::core::triageCells({{0, 0, 1}}, 5, 5, gap);
    QCOMPARE(r.triage, std::optional<Triage>(Triage::FlakyOracle));
    // Nothing seen at all: no triage.
    r = pw::core::triageCells({}, 5, 5, gap);
    QVERIFY(!r.triage);
}

void TestSeedMatrix::ledgerReadsTheSeedsScriptAndRoundTrips()
{
    const SeedLedger base = SeedLedger::parse(
        scriptLedger("./trees/baseline::dedupe", 5, {{0, 0}, {1, 0}, {2, 5}, {10, 0}}),
        "base.json");
    QCOMPARE(base.impl, std::string("./trees/baseline::dedupe"));
    QCOMPARE(base.prop, std::string("seed_matrix::order_preserved"));
    QCOMPARE(base.replays, 5);
    QCOMPARE(base.seeds.size(), size_t(4));
    QCOMPARE(base.seeds.at(10), 0); // numeric keys, not "10" < "2"
    const SeedLedger patched = SeedLedger::parse(
        scriptLedger("./trees/patched::dedupe", 5, {{0, 0}, {1, 5}, {2, 5}, {11, 5}}),
        "patched.json");
    const TriageResult t = pw::core::triage(base, patched);
    QCOMPARE(t.triage, std::optional<Triage>(Triage::PatchBug));
    QCOMPARE(t.witnessSeed, std::optional<long long>(1));
    QCOMPARE(t.seedsCompared, (std::vector<long long>{0, 1, 2})); // 10 and 11 are not shared
    QCOMPARE(t.line(), std::string("PATCH_BUG   witness seed=1 (5/5 patched, 0/5 baseline)"));

    SeedLedger extra = SeedLedger::parse(
        "{\"replays\": 3, \"seeds\": {\"4\": 1}, \"raised_by\": \"sam\", \"notes\": [1, 2]}", "x");
    QVERIFY(extra.impl.empty());
    QCOMPARE(extra.unknownFields.size(), size_t(2));
    const SeedLedger again = SeedLedger::parse(extra.format(), "y");
    QCOMPARE(again.format(), extra.format());
    QCOMPARE(again.seeds, extra.seeds);
    QVERIFY(extra.format().find("\"raised_by\": \"sam\"") != std::string::npos);

    // No seed in common: no triage, and both sides' seeds named.
    const SeedLedger other = SeedLedger::parse(scriptLedger("t::f", 5, {{20, 0}}), "other.json");
    const TriageResult none = pw::core::triage(base, other);
    QVERIFY(!none.triage);
    QVERIFY2(none.message.find("base.json has") != std::string::npos &&
                 none.message.find("other.json has 20") != std::string::npos,
             none.message.c_str());
}

void TestSeedMatrix::badLedgersNameTheField_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not json") << "{\"replays\": 5,\n \"seeds\": {"
                              << "x.json:2:";
    QTest::newRow("not an object") << "[1, 2]"
                                   << "must be a JSON object";
    QTest::newRow("no replays") << "{\"seeds\": {}}"
                                << "x.json: replays: missing";
    QTest::newRow("replays 0") << "{\"replays\": 0, \"seeds\": {}}"
                               << "replays: must be an integer";
    QTest::newRow("replays text") << "{\"replays\": \"5\", \"seeds\": {}}"
                                  << "replays: must be";
    QTest::newRow("no seeds") << "{\"replays\": 5}"
                              << "seeds: missing";
    QTest::newRow("seeds a list") << "{\"replays\": 5, \"seeds\": [0]}"
                                  << "seeds: must be an object";
    QTest::newRow("seed not a number") << "{\"replays\": 5, \"seeds\": {\"a\": 0}}"
                                       << "seeds.a: a seed must be a non-negative integer";
    QTest::newRow("negative seed") << "{\"replays\": 5, \"seeds\": {\"-1\": 0}}"
                                   << "seeds.-1:";
    QTest::newRow("more fails than replays") << "{\"replays\": 5, \"seeds\": {\"3\": 6}}"
                                             << "seeds.3: must be the fails out of 5";
    QTest::newRow("fraction") << "{\"replays\": 5, \"seeds\": {\"3\": 0.5}}"
                              << "seeds.3:";
    QTest::newRow("duplicate key") << "{\"replays\": 5, \"replays\": 4, \"seeds\": {}}"
                                   << "x.json:1:";
    QTest::newRow("impl a number") << "{\"impl\": 3, \"replays\": 5, \"seeds\": {}}"
                                   << "impl: must be a string";
}

void TestSeedMatrix::badLedgersNameTheField()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    try {
        SeedLedger::parse(text.toStdString(), "x.json");
        QFAIL("parsed");
    } catch (const pw::core::Error &e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(expected), e.what());
    }
}

void TestSeedMatrix::everyVerdictFromRealRuns()
{
    const MatrixResult &m = m_matrix;
    QVERIFY(!m.interrupted);
    QCOMPARE(m.seeds, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
    QCOMPARE(m.replays, 4);
    QVERIFY(!m.envDigest.empty());
    QCOMPARE(m.tests.size(), size_t(6));
    auto verdict = [&m](const std::string &test) -> const MatrixTest & {
        const MatrixTest *t = m.find(test);
        if (!t)
            throw std::runtime_error("no row for " + test);
        return *t;
    };
    auto says = [](const MatrixTest &t) {
        return t.test + ": " + t.triage.line() + " / " + t.reason + " / " + t.head.detail + " / " +
               t.head.problem;
    };

    const MatrixTest &bug = verdict(kPatchBug);
    QVERIFY2(bug.triage.triage == Triage::PatchBug, says(bug).c_str());
    QCOMPARE(bug.triage.witnessSeed, std::optional<long long>(5));
    QCOMPARE(bug.head.fails, (std::vector<int>{0, 0, 0, 0, 0, 4}));
    QCOMPARE(bug.base.fails, (std::vector<int>{0, 0, 0, 0, 0, 0}));
    QCOMPARE(bug.triage.line(),
             std::string("PATCH_BUG   witness seed=5 (4/4 patched, 0/4 baseline)"));

    const MatrixTest &flaky = verdict(kFlaky);
    QVERIFY2(flaky.triage.triage == Triage::FlakyOracle, says(flaky).c_str());
    QCOMPARE(flaky.head.fails, (std::vector<int>{2, 2, 2, 2, 2, 2})); // every other replay
    QVERIFY(!flaky.triage.witnessSeed);
    QCOMPARE(flaky.triage.flakySeed, std::optional<long long>(0));

    const MatrixTest &pre = verdict(kPre);
    QVERIFY2(pre.triage.triage == Triage::PreExisting, says(pre).c_str());
    QCOMPARE(pre.triage.witnessSeed, std::optional<long long>(1));
    QCOMPARE(pre.base.fails, (std::vector<int>{0, 4, 4, 4, 4, 0}));
    QCOMPARE(pre.head.fails, pre.base.fails);

    const MatrixTest &stable = verdict(kStable);
    QVERIFY2(stable.triage.triage == Triage::NoSignal, says(stable).c_str());
    QCOMPARE(stable.triage.message, std::string("green on the patch is not evidence"));

    // Seed 0 hangs at head: the per-test timeout makes its replays harness errors, never
    // passes — the green of the other seeds is not a NO_SIGNAL.
    const MatrixTest &hang = verdict(kHang);
    QVERIFY2(hang.triage.triage == Triage::NeedsManualReview, says(hang).c_str());
    QCOMPARE(hang.head.errors.front(), 4);
    QCOMPARE(hang.head.fails.front(), 0);
    QVERIFY2(hang.triage.message.find("seed 0 ") != std::string::npos, hang.triage.message.c_str());
    QCOMPARE(hang.triage.seedsCompared, (std::vector<long long>{1, 2, 3, 4, 5}));

    const MatrixTest &added = verdict(kAdded);
    QVERIFY2(!added.triage.triage, says(added).c_str());
    QVERIFY(!added.base.collected);
    QVERIFY(added.head.collected);
    QVERIFY2(added.reason.find("not collected at base") != std::string::npos, added.reason.c_str());
    // A tree without the file holds no run; every other cell names the run that held it
    // (a failing cell the run that failed it), of its own tree.
    QCOMPARE(added.base.runs, std::vector<int>(6, -1));
    QCOMPARE(int(m_matrix.runs.size()), m_matrix.serverRuns);
    for (const MatrixTest &t : m_matrix.tests)
        for (Arm arm : {Arm::Base, Arm::Head}) {
            if (!t.tree(arm).collected)
                continue;
            for (int run : t.tree(arm).runs) {
                QVERIFY2(run >= 0 && run < int(m_matrix.runs.size()), t.test.c_str());
                QCOMPARE(m_matrix.runs[size_t(run)].arm, std::string(armName(arm)));
            }
        }
}

void TestSeedMatrix::ledgersAndRecordAreWrittenAndTriageAgrees()
{
    const MatrixResult &m = m_matrix;
    QVERIFY2(m.recordError.empty(), m.recordError.c_str());
    QVERIFY(QFileInfo::exists(QString::fromStdString(m.recordPath)));
    QVERIFY2(m.recordPath.find("/.patchwitness/runs/2024-05-10-") != std::string::npos,
             m.recordPath.c_str());
    for (const MatrixTest &t : m.tests) {
        QVERIFY(QFileInfo::exists(QString::fromStdString(t.base.ledger)));
        const SeedLedger base = SeedLedger::read(t.base.ledger);
        const SeedLedger head = SeedLedger::read(t.head.ledger);
        QCOMPARE(base.prop, t.test);
        QCOMPARE(head.impl, m_head + "::" + t.test);
        QCOMPARE(base.impl, m_base + "::" + t.test);
        QCOMPARE(head.replays, 4);
        if (t.test == kAdded || t.test == kHang)
            continue; // harness errors and uncollected cells are no counts: not in the ledger
        const TriageResult again = pw::core::triage(base, head);
        QCOMPARE(again.triage, t.triage.triage);
        QCOMPARE(again.witnessSeed, t.triage.witnessSeed);
        QCOMPARE(again.message, t.triage.message);
    }
    // The hanging seed is not in head's ledger; the others are.
    const SeedLedger hangHead = SeedLedger::read(m.find(kHang)->head.ledger);
    QCOMPARE(hangHead.seeds.count(0), size_t(0));
    QCOMPARE(hangHead.seeds.size(), size_t(5));

    const nlohmann::json record = nlohmann::json::parse(readAll(m.recordPath));
    QCOMPARE(record["schema"].get<std::string>(), std::string("patchwitness.matrix/1"));
    QCOMPARE(record["seeds"].get<int>(), 6);
    QCOMPARE(record["replays"].get<int>(), 4);
    QCOMPARE(record["env_digest"].get<std::string>(), m.envDigest);
    QCOMPARE(record["trees"]["base"]["commit"].get<std::string>(), m_base);
    QCOMPARE(record["recorded"].get<std::string>(), kToday);
    QCOMPARE(record["tests"].size(), size_t(6));
    const nlohmann::json &bug = record["tests"][0];
    QCOMPARE(bug["test"].get<std::string>(), kPatchBug);
    QCOMPARE(bug["triage"].get<std::string>(), std::string("PATCH_BUG"));
    QCOMPARE(bug["witness_seed"].get<int>(), 5);
    QCOMPARE(bug["head"]["5"].get<int>(), 4);
    QCOMPARE(bug["base"]["5"].get<int>(), 0);
    QCOMPARE(bug["ledgers"]["head"].get<std::string>(), m.tests[0].head.ledger);
    QVERIFY(bug["commands"]["head"]["5"].get<std::string>().find("--pw-seed 5") !=
            std::string::npos);
    const std::string portable = bug["portable"].get<std::string>();
    QVERIFY2(portable.find("patchwitness-cli matrix " + kPatchBug + " --base " + m_base) !=
                     std::string::npos &&
                 portable.find("--seed 5 --replays 4") != std::string::npos,
             portable.c_str());
    QVERIFY(record["tests"][5]["triage"].is_null());
    QCOMPARE(record["tests"][4]["head_errors"]["0"].get<int>(), 4);
}

void TestSeedMatrix::witnessCommandReproducesWhenPasted()
{
    const MatrixTest *bug = m_matrix.find(kPatchBug);
    QVERIFY(bug);
    // Every cell's command names its seed and the pinned hash seed the replays had.
    for (size_t s = 0; s < m_matrix.seeds.size(); ++s) {
        QVERIFY2(bug->head.commands[s].find("--pw-seed " + std::to_string(s)) != std::string::npos,
                 bug->head.commands[s].c_str());
        QVERIFY(bug->head.commands[s].find("PYTHONHASHSEED=0") != std::string::npos);
    }
    const Shell witness = shell(bug->head.commands[5]);
    QVERIFY2(witness.exitCode == 1, qPrintable(witness.out)); // the failure, reproduced
    const Shell baseline = shell(bug->base.commands[5]);
    QVERIFY2(baseline.exitCode == 0, qPrintable(baseline.out));
    const Shell otherSeed = shell(bug->head.commands[0]);
    QVERIFY2(otherSeed.exitCode == 0, qPrintable(otherSeed.out));
}

void TestSeedMatrix::cancelRecordsNothing()
{
    const QString runs = QString::fromStdString(m_ctx->runsDir());
    const QStringList before = QDir(runs).entryList(QDir::Files);
    MatrixRequest req;
    req.tests = {kStable, kPre};
    req.seeds = 6;
    req.replays = 4;
    RunPool pool(2);
    std::atomic<int> ticks{0};
    const MatrixResult r =
        SeedMatrix::run(*m_ctx, req, pool, [&](const pw::core::MatrixProgress &) {
            if (ticks++ == 0)
                pool.cancelAll();
        });
    QVERIFY(r.interrupted);
    QVERIFY(r.recordPath.empty());
    for (const MatrixTest &t : r.tests) {
        QVERIFY(!t.triage.triage);
        QVERIFY(t.base.ledger.empty());
    }
    QCOMPARE(QDir(runs).entryList(QDir::Files), before);
}

void TestSeedMatrix::badRequestsAreRefused()
{
    RunPool pool(2);
    auto refused = [&](MatrixRequest req, const std::string &expected) {
        try {
            SeedMatrix::run(*m_ctx, req, pool);
        } catch (const pw::core::Error &e) {
            return std::string(e.what()).find(expected) != std::string::npos
                       ? std::string()
                       : std::string("wrong message: ") + e.what();
        }
        return std::string("not refused");
    };
    MatrixRequest none;
    QCOMPARE(refused(none, "at least one test"), std::string());
    MatrixRequest twice;
    twice.tests = {kStable, kStable};
    QCOMPARE(refused(twice, "given twice"), std::string());
    MatrixRequest badId;
    badId.tests = {"tests/test_stable.py"};
    QCOMPARE(refused(badId, "tests/test_stable.py"), std::string());
    MatrixRequest big;
    big.tests = {kStable};
    big.seeds = 300;
    big.replays = 5; // 300 × 5 × 2 = 3000 > 2000
    QCOMPARE(refused(big, "3000 trials exceed the trial budget of 2000"), std::string());
    MatrixRequest zero;
    zero.tests = {kStable};
    zero.replays = 0;
    QCOMPARE(refused(zero, "--replays must be at least 1"), std::string());
}

void TestSeedMatrix::cliMatrixAndTriage()
{
    const QStringList common = {
        QStringLiteral("--repo"),       QString::fromStdString(m_repo->root()),
        QStringLiteral("--base"),       QString::fromStdString(m_base),
        QStringLiteral("--head"),       QString::fromStdString(m_head),
        QStringLiteral("--python"),     QString::fromStdString(pw::test::testPython()),
        QStringLiteral("--cache-dir"),  m_cache->path(),
        QStringLiteral("--no-sandbox"), QStringLiteral("--today"),
        QStringLiteral("2024-05-10")};
    // One cell, as the portable command names it: seed 5 of the patch bug.
    Shell r =
        shell(PW_CLI_PATH, QStringList{QStringLiteral("matrix"), QString::fromStdString(kPatchBug),
                                       QStringLiteral("--seed"), QStringLiteral("5"),
                                       QStringLiteral("--replays"), QStringLiteral("2"),
                                       QStringLiteral("--format"), QStringLiteral("json")} +
                               common);
    QVERIFY2(r.exitCode == 1, qPrintable(r.out)); // PATCH_BUG blocks
    const nlohmann::json doc = nlohmann::json::parse(r.stdoutText.toStdString(), nullptr, false);
    QVERIFY2(doc.is_object(), qPrintable(r.out));
    QCOMPARE(doc["tests"][0]["triage"].get<std::string>(), std::string("PATCH_BUG"));
    QVERIFY(doc["seed_list"] == nlohmann::json::parse("[5]"));
    const std::string baseLedger = doc["tests"][0]["ledgers"]["base"].get<std::string>();
    const std::string headLedger = doc["tests"][0]["ledgers"]["head"].get<std::string>();
    QVERIFY2(baseLedger.rfind(".patchwitness/runs/", 0) == 0, baseLedger.c_str()); // from the repo

    // Two CI jobs' shards, then merge: the same verdict and exit code as one matrix.
    QStringList shards;
    for (const char *i : {"1", "2"}) {
        const QString file = QString::fromStdString(m_scratch->path().toStdString()) +
                             QStringLiteral("/cli-shard-%1.json").arg(QLatin1String(i));
        const Shell part =
            shell(PW_CLI_PATH,
                  QStringList{
                      QStringLiteral("matrix"), QString::fromStdString(kPatchBug),
                      QStringLiteral("--seeds"), QStringLiteral("6"), QStringLiteral("--replays"),
                      QStringLiteral("2"), QStringLiteral("--shard"),
                      QStringLiteral("%1/2").arg(QLatin1String(i)), QStringLiteral("--out"), file} +
                      common);
        QVERIFY2(part.exitCode == 0, qPrintable(part.out));
        QVERIFY2(part.out.contains(QStringLiteral("no triage until merged")), qPrintable(part.out));
        shards << file;
    }
    const Shell merged = shell(PW_CLI_PATH, QStringList{QStringLiteral("merge")} + shards);
    QVERIFY2(merged.exitCode == 1, qPrintable(merged.out));
    QVERIFY2(merged.out.contains(QLatin1String("PATCH_BUG   witness seed=5 (2/2 patched, 0/2 "
                                               "baseline)")) &&
                 merged.out.contains(QLatin1String("merged from 2 shard ledger(s)")),
             qPrintable(merged.out));
    const Shell outOnly =
        shell(PW_CLI_PATH, QStringList{QStringLiteral("matrix"), QString::fromStdString(kPatchBug),
                                       QStringLiteral("--out"), QStringLiteral("x.json")} +
                               common);
    QCOMPARE(outOnly.exitCode, 3);

    // triage on what matrix wrote: the same verdict, the seeds' line.
    r = shell(PW_CLI_PATH,
              {QStringLiteral("triage"), QString::fromStdString(m_repo->root() + "/" + baseLedger),
               QString::fromStdString(m_repo->root() + "/" + headLedger)});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.out.contains(QLatin1String("PATCH_BUG   witness seed=5 (2/2 patched, 0/2 baseline)")),
        qPrintable(r.out));

    // Ledgers as the seeds' script writes them, one per exit code.
    const std::string dir = m_scratch->path().toStdString();
    auto ledger = [&dir](const std::string &name, const std::map<long long, int> &cells) {
        pw::test::writeText(dir, name, scriptLedger("./trees/x::f", 5, cells));
        return QString::fromStdString(dir + "/" + name);
    };
    const QString base = ledger("b.json", {{0, 0}, {1, 5}, {2, 0}});
    const struct
    {
        const char *name;
        std::map<long long, int> cells;
        int exitCode;
        const char *says;
    } cases[] = {
        {"nosignal.json",
         {{0, 0}, {1, 0}, {2, 0}},
         0,
         "NO_SIGNAL   green on the patch is not evidence"},
        {"bug.json", {{0, 0}, {1, 5}, {2, 5}}, 1, "PATCH_BUG   witness seed=2"},
        {"flaky.json", {{0, 3}, {1, 5}, {2, 0}}, 2, "FLAKY_ORACLE   seed=0 3/5 on patch"},
        {"pre.json",
         {{0, 0}, {1, 5}, {2, 0}},
         0,
         "PRE_EXISTING   seed=1 5/5 patched and 5/5 baseline"},
        {"apart.json", {{7, 5}}, 4, "no triage: no seed in common"},
    };
    for (const auto &c : cases) {
        r = shell(PW_CLI_PATH, {QStringLiteral("triage"), base, ledger(c.name, c.cells)});
        QVERIFY2(r.exitCode == c.exitCode, qPrintable(QString::fromLatin1(c.name) + ": " + r.out));
        QVERIFY2(r.out.contains(QLatin1String(c.says)), qPrintable(r.out));
    }
    r = shell(PW_CLI_PATH,
              {QStringLiteral("triage"), base, QString::fromStdString(dir + "/bug.json"),
               QStringLiteral("--format"), QStringLiteral("json")});
    const nlohmann::json t = nlohmann::json::parse(r.stdoutText.toStdString(), nullptr, false);
    QVERIFY2(t.is_object(), qPrintable(r.out));
    QCOMPARE(t["schema"].get<std::string>(), std::string("patchwitness.triage/1"));
    QCOMPARE(t["triage"].get<std::string>(), std::string("PATCH_BUG"));
    QCOMPARE(t["witness_seed"].get<int>(), 2);
    QVERIFY(t["seeds_compared"] == nlohmann::json::parse("[0, 1, 2]"));
    QVERIFY(t["message"].is_string());
}

void TestSeedMatrix::cliUsageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("matrix without a test")
        << QStringList{QStringLiteral("matrix")} << "at least one test node id is required";
    QTest::newRow("seeds 0") << QStringList{QStringLiteral("matrix"), QStringLiteral("t.py::x"),
                                            QStringLiteral("--seeds"), QStringLiteral("0")}
                             << "--seeds must be an integer of at least 1";
    QTest::newRow("seeds and seed")
        << QStringList{QStringLiteral("matrix"),  QStringLiteral("t.py::x"),
                       QStringLiteral("--seeds"), QStringLiteral("3"),
                       QStringLiteral("--seed"),  QStringLiteral("1")}
        << "exclude each other";
    QTest::newRow("triage one file")
        << QStringList{QStringLiteral("triage"), QStringLiteral("a.json")}
        << "two ledgers are required";
    QTest::newRow("triage missing file")
        << QStringList{QStringLiteral("triage"), QStringLiteral("/nonexistent/a.json"),
                       QStringLiteral("/nonexistent/b.json")}
        << "/nonexistent/a.json: cannot read";
}

void TestSeedMatrix::cliUsageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const Shell r = shell(PW_CLI_PATH, args);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.out.contains(expected), qPrintable(r.out));
}

QTEST_GUILESS_MAIN(TestSeedMatrix)
// The demo's patch shows every verdict the heatmap paints (README, `patchwitness --demo
// --run matrix --panel heatmap`), with its own config's 8 seeds × 5 replays.
void TestSeedMatrix::demoPatchHasEveryVerdict()
{
    QTemporaryDir dir;
    RunRequest r;
    r.target.repoPath =
        pw::core::DemoRepository::ensure(dir.filePath(QStringLiteral("demo")).toStdString());
    r.target.base = pw::core::DemoRepository::kBaseBranch;
    r.target.head = pw::core::DemoRepository::kHeadBranch;
    r.target.python = pw::test::testPython();
    r.target.today = kToday;
    r.cacheRoot = m_cache->path().toStdString();
    r.workers = 2;
    r.timeoutSeconds = 120;
    const RunContext ctx = RunContext::open(r);
    QCOMPARE(ctx.config().seeds, 8);
    QCOMPARE(ctx.config().replays, 5);
    MatrixRequest req;
    req.tests = {"tests/test_parsing.py::test_decimal_places_counts_cents_as_written",
                 "tests/test_cache.py::test_bulk_job_fits_its_retry_budget",
                 "tests/test_parsing.py::test_parse_amount_reads_what_customers_type",
                 "tests/test_parsing.py::test_parse_amount_plain"};
    req.record = false;
    RunPool pool(2);
    const MatrixResult m = SeedMatrix::run(ctx, req, pool);
    QCOMPARE(m.seeds.size(), size_t(8));
    QCOMPARE(m.replays, 5);
    const auto verdict = [&m](const std::string &test) {
        const MatrixTest *t = m.find(test);
        return t && t->triage.triage ? std::string(triageName(*t->triage.triage)) : "none";
    };
    // decimal_places now drops trailing zeros: "5.30" has one decimal at head, at seed 2.
    QCOMPARE(verdict(req.tests[0]), std::string("PATCH_BUG"));
    QCOMPARE(m.find(req.tests[0])->triage.witnessSeed, std::optional<long long>(2));
    // Seeds 5 and 6 draw a big job, whose jittered wait passes about half the replays. About
    // one matrix in 200 draws all-or-nothing there (0/5 or 5/5 on both seeds, or 5/5 at head
    // with 0/5 on the base): a second matrix of the test settles it.
    std::string flaky = verdict(req.tests[1]);
    if (flaky != "FLAKY_ORACLE") {
        MatrixRequest again = req;
        again.tests = {req.tests[1]};
        const MatrixResult second = SeedMatrix::run(ctx, again, pool);
        const MatrixTest *t = second.find(req.tests[1]);
        flaky = t && t->triage.triage ? triageName(*t->triage.triage) : "none";
    }
    QCOMPARE(flaky, std::string("FLAKY_ORACLE"));
    // "1,250.00" (seeds 5 and 7) is refused by both trees' parse_amount.
    QCOMPARE(verdict(req.tests[2]), std::string("PRE_EXISTING"));
    QCOMPARE(m.find(req.tests[2])->triage.witnessSeed, std::optional<long long>(5));
    QCOMPARE(verdict(req.tests[3]), std::string("NO_SIGNAL"));
}

// matrix --shard i/n: the units are the seeds; each shard runs every test at its seeds on
// both trees and writes a ledger, and the merge triages what the unsharded matrix did.
void TestSeedMatrix::shardsMergeIntoTheMatrix()
{
    QTemporaryDir out;
    MatrixRequest req;
    req.tests = {kPatchBug, kPre, kStable, kAdded};
    req.seeds = 6;
    req.replays = 4;
    std::vector<pw::core::ShardLedger> ledgers;
    RunPool pool(2);
    for (int i = 1; i <= 2; ++i) {
        MatrixRequest part = req;
        part.shard = pw::core::Shard{i, 2};
        part.shardOut = out.filePath(QStringLiteral("shard-%1.json").arg(i)).toStdString();
        const MatrixResult r = SeedMatrix::run(*m_ctx, part, pool);
        QVERIFY(r.shard);
        QCOMPARE(r.seeds,
                 (i == 1 ? std::vector<uint32_t>{0, 2, 4} : std::vector<uint32_t>{1, 3, 5}));
        QCOMPARE(r.recordPath, part.shardOut);
        for (const MatrixTest &t : r.tests) // a shard triages nothing
            QVERIFY2(!t.triage.triage &&
                         t.reason.find("no triage until merged") != std::string::npos,
                     t.reason.c_str());
        ledgers.push_back(pw::core::ShardLedger::read(part.shardOut));
    }
    QCOMPARE(ledgers[0].kind, std::string("matrix"));
    const std::vector<pw::core::ShardLedger> both = ledgers;
    const MatrixResult merged = pw::core::mergeMatrix(pw::core::ShardSet::gather(both));
    QCOMPARE(merged.mergedShards, 2);
    QCOMPARE(merged.seeds.size(), size_t(6));
    // Cell for cell, verdict for verdict, what the matrix run in one piece found.
    for (const std::string &test : req.tests) {
        const MatrixTest *whole = m_matrix.find(test);
        const MatrixTest *parts = merged.find(test);
        QVERIFY(whole && parts);
        for (Arm arm : {Arm::Base, Arm::Head}) {
            QCOMPARE(parts->tree(arm).fails, whole->tree(arm).fails);
            QCOMPARE(parts->tree(arm).errors, whole->tree(arm).errors);
            QCOMPARE(parts->tree(arm).collected, whole->tree(arm).collected);
            QCOMPARE(parts->tree(arm).commands, whole->tree(arm).commands);
        }
        QCOMPARE(parts->triage.triage, whole->triage.triage);
        QCOMPARE(parts->triage.witnessSeed, whole->triage.witnessSeed);
    }
    QCOMPARE(merged.envDigest, m_matrix.envDigest);

    // A partial merge: the missing shard's seeds are no evidence, and a verdict that
    // speaks for every seed cannot be given.
    const MatrixResult partial = pw::core::mergeMatrix(pw::core::ShardSet::gather({ledgers[0]}));
    QCOMPARE(partial.find(kStable)->head.errors, (std::vector<int>{0, 4, 0, 4, 0, 4}));
    QCOMPARE(partial.find(kStable)->triage.triage, std::optional(Triage::NeedsManualReview));

    // A ledger that lost a replay does not merge as complete.
    pw::core::ShardLedger short1 = ledgers[0];
    short1.runs.pop_back();
    try {
        pw::core::mergeMatrix(pw::core::ShardSet::gather({short1, ledgers[1]}));
        QFAIL("a ledger without every replay merged");
    } catch (const pw::core::Error &e) {
        QVERIFY2(std::string(e.what()).find("has 3 replay(s) of") != std::string::npos, e.what());
    }
    // One with another test's label does not either.
    pw::core::ShardLedger other = ledgers[1];
    other.runs.front().run.label = "head tests/test_else.py::test_x";
    QVERIFY_EXCEPTION_THROWN(pw::core::mergeMatrix(pw::core::ShardSet::gather({ledgers[0], other})),
                             pw::core::Error);
    // Parameters no matrix run writes: refused, not trusted.
    std::vector<pw::core::ShardLedger> huge = ledgers, twice = ledgers;
    const auto set = [](std::vector<pw::core::ShardLedger> &list, const std::string &name,
                        const std::string &json) {
        for (pw::core::ShardLedger &l : list)
            for (auto &[key, value] : l.parameters)
                if (key == name)
                    value = json;
    };
    set(huge, "replays", "100000");
    set(twice, "tests", nlohmann::json(kPatchBug + "\n" + kPatchBug).dump());
    for (const auto *bad : {&huge, &twice}) {
        try {
            pw::core::mergeMatrix(pw::core::ShardSet::gather(*bad));
            QFAIL("a matrix ledger with impossible parameters merged");
        } catch (const pw::core::Error &e) {
            QVERIFY2(std::string(e.what()).find("parameters.") != std::string::npos, e.what());
        }
    }
    // More shards than seeds: a shard with no seed is refused before anything runs.
    MatrixRequest tooMany = req;
    tooMany.shard = pw::core::Shard{7, 7};
    QVERIFY_EXCEPTION_THROWN(SeedMatrix::run(*m_ctx, tooMany, pool), pw::core::Error);
}

#include "tst_seedmatrix.moc"
