// Base/head attribution (core/dynamic/Attribution): every verdict produced by real
// pytest runs on a fixture repository whose head commit is "the patch" — a test the patch
// breaks, one failing on both trees, one passing on both, one whose exception the patch
// swallows, one whose failing seeds the patch moves; a test the patch adds or removes;
// a hanging test (harness errors, process groups gone); env digests that differ; and the
// evidence record in runs/ read back by AttributionRecord.

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/Attribution.h"
#include "execution/Sandbox.h"
#include "ledger/RunEvidence.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <mutex>
#include <thread>

using pw::core::Arm;
using pw::core::Attribution;
using pw::core::AttributionRecord;
using pw::core::AttributionRequest;
using pw::core::AttributionResult;
using pw::core::AttributionVerdict;
using pw::core::Outcome;
using pw::core::RunContext;
using pw::core::RunPool;
using pw::core::RunRequest;
using pw::test::RepoBuilder;

namespace {

const std::string kToday = "2024-05-10";

// One directory per scenario so a single pair of commits holds them all. The base commit:
const char *const kBaseFiles[][2] = {
    {"src/__init__.py", ""},
    {"src/calc.py", "def value():\n    return 1\n\n\ndef parse(text):\n    return int(text)\n"},
    {"tests/induced/test_induced.py",
     "from src.calc import value\n\n\ndef test_value_is_one():\n    assert value() == 1\n"},
    {"tests/pre/test_pre.py", "def test_always_broken():\n    assert 1 + 1 == 3\n\n\n"
                              "import random\n\n\n"
                              "def test_seed_broken():\n    assert random.randrange(3) != 0\n"},
    {"tests/green/test_green.py", "def test_fine():\n    assert True\n"},
    {"tests/masks/test_masks.py",
     "from src.calc import parse\n\n\ndef test_parse_garbage():\n    assert parse('x') == 0\n"},
    {"tests/env/test_env.py",
     "import random\n\n\ndef test_seeded():\n    assert random.randrange(3) != 1\n"},
    // Fails on both trees; in the sandbox, because the sandbox has no network.
    {"tests/net/test_net.py", "import socket\n\n\ndef test_connect():\n"
                              "    socket.create_connection(('192.0.2.1', 9), timeout=2)\n"},
    // randrange(3) for seeds 0-5 is 1 0 0 0 0 2: base fails on seed 0, head on seed 5.
    {"tests/env/test_env_same.py",
     "import random\n\n\ndef test_seeded():\n    assert random.randrange(3) != 1\n"},
    {"tests/gone/test_gone.py", "def test_removed_later():\n    assert True\n\n\n"
                                "def test_failing_removed():\n    assert False\n"},
    {"tests/brokenmod/test_brokenmod.py", "def test_imports():\n    assert True\n"},
    {"tests/skip/test_skip.py", "import random\n\n\ndef test_skipped_by_the_patch():\n"
                                "    assert True\n\n\n"
                                "def test_skips_on_some_seeds():\n"
                                "    if random.randrange(2):\n"
                                "        import pytest\n        pytest.skip('seeded')\n"},
};

// The patch: value() changes, parse() swallows the exception, the seeded condition moves,
// a test function and a test file are added, one test is removed.
const char *const kHeadFiles[][2] = {
    {"src/calc.py", "def value():\n    return 2\n\n\ndef parse(text):\n    try:\n"
                    "        return int(text)\n    except ValueError:\n        return 0\n"},
    {"tests/env/test_env.py",
     "import random\n\n\ndef test_seeded():\n    assert random.randrange(3) != 0\n"},
    {"tests/env/test_env_same.py",
     "import random\n\n\ndef test_seeded():\n    assert random.randrange(3) != 2\n"},
    {"tests/green/test_green.py",
     "def test_fine():\n    assert True\n\n\ndef test_new_here():\n    assert True\n"},
    {"tests/added/test_added.py", "def test_brand_new():\n    assert True\n"},
    {"tests/brokenmod/test_brokenmod.py",
     "import no_such_module_pw\n\n\ndef test_imports():\n    assert True\n"},
    {"tests/skip/test_skip.py", "import random\n\nimport pytest\n\n\n"
                                "@pytest.mark.skip(reason='the patch broke it')\n"
                                "def test_skipped_by_the_patch():\n    assert True\n\n\n"
                                "def test_skips_on_some_seeds():\n"
                                "    if random.randrange(2):\n"
                                "        pytest.skip('seeded')\n"},
    {"tests/gone/test_gone.py", "def test_other():\n    assert True\n"},
};

} // namespace

class TestAttribution : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void patchInduced();
    void preExistingMatched();
    void preExistingSweptWitnessIsFirstFailingSeed();
    void noRepro();
    void skippedAtHeadIsNoPass();
    void sandboxBlockedFailuresAreNamedInTheSentence();
    void sandboxBlockedNetworkIsNamedAfterRealRuns();
    void brokenModuleAtHeadIsAHarnessErrorNamingIt();
    void patchMasks();
    void harnessEnvWhenFailingSeedsDiffer();
    void baseAndHeadRunsInterleave();
    void notCollected_data();
    void notCollected();
    void collectedNowhereIsRefusedAfterOnePair_data();
    void collectedNowhereIsRefusedAfterOnePair();
    void hangingTestIsHarnessErrorAndLeavesNothing();
    void cancelDuringTheFirstPairStartsNothingElse();
    void differentEnvDigestsAreNotCompared();
    void recordIsWrittenAndReadBack();
    void portableReplayOnlyBetweenCommits();
    void badNodeIdsAreRefused_data();
    void badNodeIdsAreRefused();
    void runsBelowOneAreRefused();
    void missingInterpreterNamesItsConfigFile();
    void runsBeyondTheTrialBudgetAreRefused();

private:
    RunRequest request(double timeoutSeconds = 120) const;
    AttributionResult attribute(const std::string &test,
                                AttributionRequest::Mode mode = AttributionRequest::Mode::Matched,
                                int runs = 2);

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::string m_base, m_head;
    std::unique_ptr<RunContext> m_ctx;
};

void TestAttribution::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_cache = std::make_unique<QTemporaryDir>();
    m_scratch = std::make_unique<QTemporaryDir>();
    const std::string pids = m_scratch->path().toStdString();
    for (const auto &file : kBaseFiles)
        m_repo->write(file[0], file[1]);
    m_repo->write("tests/hang/test_hang.py", pw::test::hangingTestSource(pids + "/base.pids"));
    m_base = m_repo->commit("base");
    for (const auto &file : kHeadFiles)
        m_repo->write(file[0], file[1]);
    m_repo->remove("tests/gone/test_gone.py");
    m_repo->write("tests/gone/test_gone2.py", "def test_other():\n    assert True\n");
    m_repo->write("tests/hang/test_hang.py", pw::test::hangingTestSource(pids + "/head.pids"));
    m_head = m_repo->commit("the patch");
    m_ctx = std::make_unique<RunContext>(RunContext::open(request()));
}

RunRequest TestAttribution::request(double timeoutSeconds) const
{
    RunRequest r;
    r.target.repoPath = m_repo->root();
    r.target.base = m_base;
    r.target.head = m_head;
    r.target.python = pw::test::testPython();
    r.target.today = kToday;
    r.cacheRoot = m_cache->path().toStdString();
    r.workers = 2;
    r.timeoutSeconds = timeoutSeconds;
    r.sandbox = false; // the hanging test writes its pids outside the tree
    return r;
}

AttributionResult TestAttribution::attribute(const std::string &test, AttributionRequest::Mode mode,
                                             int runs)
{
    AttributionRequest req;
    req.test = test;
    req.mode = mode;
    req.runs = runs;
    req.record = false;
    RunPool pool(m_ctx->workers());
    return Attribution::run(*m_ctx, req, pool);
}

void TestAttribution::patchInduced()
{
    AttributionRequest req;
    req.test = "tests/induced/test_induced.py::test_value_is_one";
    req.runs = 2;
    req.record = false;
    std::mutex mutex;
    std::vector<pw::core::NodeRunProgress> ticks;
    RunPool pool(2);
    const AttributionResult r =
        Attribution::run(*m_ctx, req, pool, [&](const pw::core::NodeRunProgress &tick) {
            std::lock_guard<std::mutex> lock(mutex);
            ticks.push_back(tick);
        });
    QVERIFY(r.verdict.has_value());
    QCOMPARE(*r.verdict, AttributionVerdict::PatchInduced);
    QCOMPARE(r.base.fails, 0);
    QCOMPARE(r.head.fails, 2);
    QCOMPARE(r.base.evidence, 2);
    QVERIFY(!r.freezeAllowed());
    QCOMPARE(r.witnessSeed.value_or(99), 0u);
    QVERIFY2(r.sentence.find("induced by the patch") != std::string::npos, r.sentence.c_str());
    // The window's report blocks on it, as the CLI's exit code does.
    const std::optional<pw::core::Finding> finding = r.finding();
    QVERIFY(finding);
    QCOMPARE(finding->gate, std::string("run"));
    QCOMPARE(finding->code, std::string("A-PATCH_INDUCED"));
    QCOMPARE(finding->severity, pw::core::Severity::Block);
    QCOMPARE(finding->test, req.test);
    QCOMPARE(finding->path, std::string("tests/induced/test_induced.py"));
    QVERIFY(finding->message.find(r.sentence) != std::string::npos);
    QCOMPARE(r.base.runs.size(), size_t(2));
    QCOMPARE(r.head.runs.front().outcome, Outcome::Fail);
    QCOMPARE(r.head.runs.front().label, std::string("head"));
    QCOMPARE(r.base.runs.front().envDigest, r.head.runs.front().envDigest);
    QCOMPARE(r.envDigest.size(), size_t(16));
    QVERIFY(r.replay.find("tests/induced/test_induced.py::test_value_is_one") != std::string::npos);
    QVERIFY(r.replay.find(m_ctx->treeDir(Arm::Head)) != std::string::npos);
    // Streamed: one tick per run, counting up to the total, then the diff-coverage rerun
    // of the witness seed at head as one more.
    QCOMPARE(ticks.size(), size_t(5));
    QCOMPARE(ticks[3].done, 4);
    QCOMPARE(ticks[3].total, 4);
    const std::string line = ticks[3].line();
    QVERIFY2(line.starts_with("4/4 ") && line.find(" seed 0: ") != std::string::npos, line.c_str());
    QVERIFY(r.coverage);
    const std::string rerun = ticks.back().line();
    QVERIFY2(rerun.starts_with("5/5 head seed 0: fail, diff coverage ("), rerun.c_str());
}

void TestAttribution::preExistingMatched()
{
    const AttributionResult r = attribute("tests/pre/test_pre.py::test_always_broken");
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QCOMPARE(r.base.fails, 2);
    QCOMPARE(r.head.fails, 2);
    QVERIFY(r.freezeAllowed());
    QCOMPARE(r.witnessSeed.value_or(99), 0u);
    QCOMPARE(r.seeds, std::vector<uint32_t>{0});
    QCOMPARE(r.finding()->code, std::string("A-PRE_EXISTING"));
    QCOMPARE(r.finding()->severity, pw::core::Severity::Info);
}

void TestAttribution::preExistingSweptWitnessIsFirstFailingSeed()
{
    // random.seed(s); randrange(3) for s = 0..3 gives 1, 0, 0, 0: seeds 1, 2, 3 fail.
    const AttributionResult r =
        attribute("tests/pre/test_pre.py::test_seed_broken", AttributionRequest::Mode::Swept, 4);
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QCOMPARE(r.head.failingSeeds, (std::set<uint32_t>{1, 2, 3}));
    QCOMPARE(r.base.failingSeeds, r.head.failingSeeds);
    QCOMPARE(r.witnessSeed.value_or(99), 1u);
    QCOMPARE(r.seeds, (std::vector<uint32_t>{0, 1, 2, 3}));
    // The replay reruns the witness: seed 1.
    QVERIFY2(r.replay.find("PYTHONHASHSEED=1 ") != std::string::npos, r.replay.c_str());
}

void TestAttribution::noRepro()
{
    const AttributionResult r = attribute("tests/green/test_green.py::test_fine");
    QCOMPARE(r.verdict.value_or(AttributionVerdict::PreExisting), AttributionVerdict::NoRepro);
    QCOMPARE(r.base.fails + r.head.fails, 0);
    QVERIFY(!r.witnessSeed);
    QVERIFY(!r.freezeAllowed());
    QCOMPARE(r.finding()->severity, pw::core::Severity::Info);
}

// A skip is no pass: a test the patch skips has no verdict (not NO_REPRO, "passed"), and a
// NO_REPRO over runs that partly skipped does not claim passes.
void TestAttribution::skippedAtHeadIsNoPass()
{
    const AttributionResult r = attribute("tests/skip/test_skip.py::test_skipped_by_the_patch");
    QVERIFY(!r.verdict);
    QCOMPARE(r.head.skipped, r.head.evidence);
    QVERIFY2(r.sentence.starts_with("skipped on every head run: a skipped test proves nothing"),
             r.sentence.c_str());
    QVERIFY2(r.sentence.find("C-SKIP") != std::string::npos, r.sentence.c_str());
    QVERIFY(!r.freezeAllowed());
    QCOMPARE(r.finding()->code, std::string("A-NONE")); // no verdict: a reviewer looks
    QCOMPARE(r.finding()->severity, pw::core::Severity::Review);

    AttributionRequest swept;
    swept.test = "tests/skip/test_skip.py::test_skips_on_some_seeds";
    swept.mode = AttributionRequest::Mode::Swept;
    swept.runs = 6;
    swept.record = false;
    RunPool pool(2);
    const AttributionResult partly = Attribution::run(*m_ctx, swept, pool);
    QVERIFY(partly.base.skipped > 0 && partly.base.skipped < partly.base.evidence);
    QCOMPARE(partly.verdict.value_or(AttributionVerdict::PreExisting), AttributionVerdict::NoRepro);
    QVERIFY2(partly.sentence.find("passed on every run") == std::string::npos &&
                 partly.sentence.find("run(s) skipped") != std::string::npos,
             partly.sentence.c_str());
}

// judge() alone: failures whose reason carries the sandbox's note are named as the
// sandbox's in the sentence the CLI prints and the record keeps (issue 5).
void TestAttribution::sandboxBlockedFailuresAreNamedInTheSentence()
{
    AttributionResult r;
    r.test = "tests/test_net.py::test_connect";
    for (auto *arm : {&r.base, &r.head}) {
        for (int i = 0; i < 2; ++i) {
            pw::core::NodeRun run;
            run.label = arm == &r.base ? "base" : "head";
            run.index = i;
            run.outcome = Outcome::Fail;
            run.envDigest = "d";
            run.reason = std::string("OSError: [Errno 101] Network is unreachable") +
                         pw::core::Sandbox::kBlockedNote;
            arm->runs.push_back(run);
        }
    }
    Attribution::judge(r);
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QVERIFY2(r.sentence.find("the sandbox blocked network access in 4 failing run(s)") !=
                 std::string::npos,
             r.sentence.c_str());
}

// The same, end to end: sandboxed runs of a test that connects out, on both trees.
void TestAttribution::sandboxBlockedNetworkIsNamedAfterRealRuns()
{
    PW_REQUIRE_SANDBOX();
    RunRequest sandboxed = request();
    sandboxed.sandbox = true;
    const RunContext ctx = RunContext::open(sandboxed);
    AttributionRequest req;
    req.test = "tests/net/test_net.py::test_connect";
    req.runs = 1;
    req.record = false;
    RunPool pool(2);
    const AttributionResult r = Attribution::run(ctx, req, pool);
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QVERIFY2(r.sentence.find("the sandbox blocked network access in 2 failing run(s)") !=
                 std::string::npos,
             r.sentence.c_str());
}

// pytest says "not found" (exit 4) for a node whose module fails to import: that is no
// removed test but a harness error naming the file and the exception.
void TestAttribution::brokenModuleAtHeadIsAHarnessErrorNamingIt()
{
    const AttributionResult r = attribute("tests/brokenmod/test_brokenmod.py::test_imports",
                                          AttributionRequest::Mode::Matched, 1);
    QVERIFY(!r.verdict);
    QCOMPARE(r.head.harnessErrors, 1);
    QCOMPARE(r.head.notCollected, 0);
    QVERIFY2(r.head.runs.front().reason.find(
                 "collection error in tests/brokenmod/test_brokenmod.py: ModuleNotFoundError: "
                 "No module named 'no_such_module_pw'") != std::string::npos,
             r.head.runs.front().reason.c_str());
    QVERIFY2(r.sentence.find("removed or renamed") == std::string::npos, r.sentence.c_str());
}

void TestAttribution::patchMasks()
{
    const AttributionResult r = attribute("tests/masks/test_masks.py::test_parse_garbage");
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PatchMasks);
    QCOMPARE(r.base.fails, 2);
    QCOMPARE(r.head.fails, 0);
    QVERIFY2(r.sentence.find("swallowed exception") != std::string::npos, r.sentence.c_str());
    QCOMPARE(r.finding()->code, std::string("A-PATCH_MASKS"));
    QCOMPARE(r.finding()->severity, pw::core::Severity::Block);
}

void TestAttribution::harnessEnvWhenFailingSeedsDiffer()
{
    // Base fails where randrange(3) == 1 (seed 0), head where it is 0 (seeds 1, 2, 3).
    const AttributionResult r =
        attribute("tests/env/test_env.py::test_seeded", AttributionRequest::Mode::Swept, 4);
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::HarnessEnv);
    QCOMPARE(r.base.failingSeeds, std::set<uint32_t>{0});
    QCOMPARE(r.head.failingSeeds, (std::set<uint32_t>{1, 2, 3}));
    QVERIFY(!r.freezeAllowed());
    QVERIFY2(r.sentence.find("different seeds") != std::string::npos, r.sentence.c_str());
    QCOMPARE(r.finding()->code, std::string("A-HARNESS_ENV"));
    QCOMPARE(r.finding()->severity, pw::core::Severity::Review);

    // The attribution table's own example: the same count on both trees (1 of 6), on different
    // seeds.
    const AttributionResult same =
        attribute("tests/env/test_env_same.py::test_seeded", AttributionRequest::Mode::Swept, 6);
    QCOMPARE(same.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::HarnessEnv);
    QCOMPARE(same.base.failingSeeds, std::set<uint32_t>{0});
    QCOMPARE(same.head.failingSeeds, std::set<uint32_t>{5});
    QCOMPARE(same.base.fails, same.head.fails);
    QVERIFY2(same.sentence.find("different seeds") != std::string::npos, same.sentence.c_str());
}

// Base, head, base, head, …: both trees meet the same machine noise. On one worker the runs
// also finish in that order.
void TestAttribution::baseAndHeadRunsInterleave()
{
    AttributionRequest req;
    req.test = "tests/env/test_env.py::test_seeded";
    req.mode = AttributionRequest::Mode::Swept;
    req.runs = 3;
    req.record = false;
    std::vector<std::pair<pw::core::Arm, uint32_t>> queued;
    req.adjust = [&queued](pw::core::Arm arm, pw::core::RunSpec &spec) {
        queued.emplace_back(arm, spec.env.hashSeed);
    };
    std::vector<std::string> finished;
    RunPool pool(1);
    const AttributionResult r =
        Attribution::run(*m_ctx, req, pool, [&finished](const pw::core::NodeRunProgress &p) {
            finished.push_back(p.run.label + " " + std::to_string(p.run.seed));
        });
    QVERIFY(r.verdict.has_value());
    // (A diff-coverage run of the test may follow the six.)
    QVERIFY(queued.size() >= 6 && finished.size() >= 6);
    queued.resize(6);
    finished.resize(6);
    for (size_t i = 0; i < queued.size(); ++i) {
        QCOMPARE(queued[i].first, i % 2 ? pw::core::Arm::Head : pw::core::Arm::Base);
        QCOMPARE(queued[i].second, uint32_t(i / 2));
    }
    QCOMPARE(finished, (std::vector<std::string>{"base 0", "head 0", "base 1", "head 1", "base 2",
                                                 "head 2"}));
}

void TestAttribution::notCollected_data()
{
    QTest::addColumn<QString>("test");
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<QString>("also");
    QTest::addColumn<bool>("atBase");
    QTest::addColumn<bool>("atHead");
    const QString added =
        QStringLiteral("test added by the patch: no attribution; run it against the base code");
    const QString removed =
        QStringLiteral("not collected at head: the patch removed or renamed this test");
    QTest::newRow("function added to an existing file")
        << QStringLiteral("tests/green/test_green.py::test_new_here") << added
        << QStringLiteral("; at head it failed 0 of 3 run(s)") << false << true;
    QTest::newRow("file added") << QStringLiteral("tests/added/test_added.py::test_brand_new")
                                << added << QStringLiteral("; at head it failed 0 of 3 run(s)")
                                << false << true;
    QTest::newRow("removed by the patch")
        << QStringLiteral("tests/gone/test_gone.py::test_removed_later") << removed
        << QStringLiteral("; at base it failed 0 of 3 run(s)") << true << false;
    QTest::newRow("failing test removed by the patch")
        << QStringLiteral("tests/gone/test_gone.py::test_failing_removed") << removed
        << QStringLiteral("; at base it failed 3 of 3 run(s): the patch took away a test that "
                          "fails")
        << true << false;
    // Collected nowhere: refused, see collectedNowhereIsRefusedAfterOnePair.
}

// The tree without the test runs once (no attribution either way); the other
// tree runs all three and its counts are in the sentence.
void TestAttribution::notCollected()
{
    QFETCH(QString, test);
    QFETCH(QString, sentence);
    QFETCH(QString, also);
    QFETCH(bool, atBase);
    QFETCH(bool, atHead);
    const AttributionResult r = attribute(test.toStdString(), AttributionRequest::Mode::Matched, 3);
    QVERIFY(!r.verdict);
    QVERIFY2(r.sentence.starts_with(sentence.toStdString()), r.sentence.c_str());
    QVERIFY2(r.sentence.find(also.toStdString()) != std::string::npos, r.sentence.c_str());
    QCOMPARE(r.base.absent(), !atBase);
    QCOMPARE(r.head.absent(), !atHead);
    QCOMPARE(r.base.runs.size(), size_t(atBase ? 3 : 1));
    QCOMPARE(r.head.runs.size(), size_t(atHead ? 3 : 1));
    QCOMPARE(r.notCollectedAnywhere, !atBase && !atHead);
    QVERIFY(!r.freezeAllowed());
    QCOMPARE(r.finding()->code, std::string("A-NONE"));
    if (!atBase)
        QCOMPARE(r.base.runs.front().outcome, Outcome::NotCollected);
}

void TestAttribution::collectedNowhereIsRefusedAfterOnePair_data()
{
    QTest::addColumn<bool>("swept");
    QTest::newRow("matched") << false;
    QTest::newRow("swept") << true;
}

// A typo'd node (its file exists on both trees) is an input error naming it, answered by the
// first base/head pair: the other 2 × 5 - 2 runs never start and nothing is recorded.
void TestAttribution::collectedNowhereIsRefusedAfterOnePair()
{
    QFETCH(bool, swept);
    const RunContext &ctx = *m_ctx;
    AttributionRequest req;
    req.test = "tests/green/test_green.py::test_typo";
    req.mode = swept ? AttributionRequest::Mode::Swept : AttributionRequest::Mode::Matched;
    req.runs = 5;
    std::mutex mutex;
    std::vector<pw::core::NodeRunProgress> ticks;
    RunPool pool(2);
    try {
        Attribution::run(ctx, req, pool, [&](const pw::core::NodeRunProgress &tick) {
            std::lock_guard<std::mutex> lock(mutex);
            ticks.push_back(tick);
        });
        QFAIL("a node collected nowhere was accepted");
    } catch (const pw::core::Error &e) {
        QCOMPARE(e.kind(), pw::core::Error::Kind::Input);
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(QLatin1String("'tests/green/test_green.py::test_typo'")),
                 e.what());
        QVERIFY2(message.contains(QLatin1String("not collected at base nor at head (base ")),
                 e.what());
        QVERIFY2(message.contains(QLatin1String("no such test on either tree")), e.what());
        // a swept run refuses at seed 0 and says how to try a seed that may collect it
        QCOMPARE(message.contains(QLatin1String("at seed 0 (the first the sweep ran)")), swept);
        QCOMPARE(message.contains(QLatin1String("--mode matched --seed S")), swept);
    }
    QCOMPARE(ticks.size(), size_t(2)); // one pair ran, of ten
    for (const pw::core::NodeRunProgress &tick : ticks) {
        QCOMPARE(tick.total, 10);
        QCOMPARE(tick.run.outcome, Outcome::NotCollected);
        QCOMPARE(tick.run.seed, 0u);
    }
    QVERIFY(QDir(QString::fromStdString(ctx.runsDir()))
                .entryList(QStringList{QStringLiteral("*test_typo*")}, QDir::Files)
                .isEmpty());

    // A node collected at one tree only. Matched: the tree without it stops after its first
    // run (no attribution), the other runs all of its own. Swept: every seed runs,
    // since another seed may collect what seed 0 did not (a parametrize over a set).
    ticks.clear();
    req.test = "tests/green/test_green.py::test_new_here";
    req.record = false;
    const AttributionResult added = Attribution::run(ctx, req, pool, [&](const auto &tick) {
        std::lock_guard<std::mutex> lock(mutex);
        ticks.push_back(tick);
    });
    const size_t planned = swept ? 10 : 6;
    QCOMPARE(ticks.size(), planned);
    QCOMPARE(added.base.runs.size(), size_t(swept ? 5 : 1));
    QCOMPARE(added.base.notCollected, swept ? 5 : 1);
    QCOMPARE(added.head.evidence, 5);
    QVERIFY(!added.verdict);
    QVERIFY2(added.sentence.find("test added by the patch") == 0, added.sentence.c_str());
    QVERIFY2(added.sentence.find("; at head it failed 0 of 5 run(s)") != std::string::npos,
             added.sentence.c_str());
    if (swept) {
        QVERIFY(added.notes.empty());
    } else {
        QCOMPARE(added.notes.size(), size_t(1));
        QVERIFY2(added.notes.front().find("not collected at base on the first run: the other 4 "
                                          "run(s) there were not spent") == 0,
                 added.notes.front().c_str());
    }
    std::set<int> done;
    for (const pw::core::NodeRunProgress &tick : ticks) {
        done.insert(tick.done);
        // matched: the plan shrinks after the pair
        QCOMPARE(tick.total, tick.done <= 2 ? 10 : int(planned));
    }
    QCOMPARE(int(done.size()), int(planned));
    QCOMPARE(*done.rbegin(), int(planned));
}

void TestAttribution::hangingTestIsHarnessErrorAndLeavesNothing()
{
    const RunContext ctx = RunContext::open(request(/*timeoutSeconds=*/3));
    AttributionRequest req;
    req.test = "tests/hang/test_hang.py::test_hangs";
    req.runs = 1;
    RunPool pool(2);
    const AttributionResult r = Attribution::run(ctx, req, pool);
    QVERIFY(!r.verdict);
    QCOMPARE(r.base.harnessErrors, 1);
    QCOMPARE(r.head.harnessErrors, 1);
    QCOMPARE(r.base.evidence + r.head.evidence, 0);
    QVERIFY2(r.sentence.find("harness error") != std::string::npos, r.sentence.c_str());
    QCOMPARE(r.notes.size(), size_t(2));
    QVERIFY2(r.notes.front().find("timed out") != std::string::npos, r.notes.front().c_str());
    QVERIFY(r.recordPath.empty()); // no verdict: nothing recorded even when asked
    for (const char *arm : {"base", "head"}) {
        const std::vector<long> pids =
            pw::test::readPids(m_scratch->path().toStdString() + "/" + arm + ".pids");
        QCOMPARE(pids.size(), size_t(2)); // pytest and its grandchild `sleep`
        QVERIFY(pw::test::waitUntilGone(pids, 5000));
    }
}

// Ctrl-C / the Runs panel's Cancel while the first pair runs alone: the pair's process
// groups die, the other 2 × N - 2 runs come back "cancelled before it started" (none is
// spent), there is no verdict and nothing is recorded.
void TestAttribution::cancelDuringTheFirstPairStartsNothingElse()
{
    const std::string pids = m_scratch->path().toStdString();
    for (const char *arm : {"/base.pids", "/head.pids"})
        QFile::remove(QString::fromStdString(pids + arm));
    AttributionRequest req;
    req.test = "tests/hang/test_hang.py::test_hangs";
    req.runs = 4;
    RunPool pool(2);
    std::thread canceller([&] {
        // both runs of the first pair are inside the test, then the cancel
        pw::test::waitForFile(pids + "/base.pids", 60000);
        pw::test::waitForFile(pids + "/head.pids", 60000);
        pool.cancelAll();
    });
    const AttributionResult r = Attribution::run(*m_ctx, req, pool);
    canceller.join();
    QVERIFY(r.interrupted);
    QCOMPARE(r.cancelledRuns, 8);
    QVERIFY(!r.verdict);
    QVERIFY(r.recordPath.empty());
    QCOMPARE(r.base.runs.size(), size_t(4));
    QCOMPARE(r.head.runs.size(), size_t(4));
    for (const auto *arm : {&r.base, &r.head}) {
        QCOMPARE(arm->runs.front().reason, std::string("cancelled; process group killed"));
        for (size_t i = 1; i < arm->runs.size(); ++i)
            QCOMPARE(arm->runs[i].reason, std::string("cancelled before it started"));
    }
    for (const char *arm : {"/base.pids", "/head.pids"}) {
        const std::vector<long> ran = pw::test::readPids(pids + arm);
        QCOMPARE(ran.size(), size_t(2)); // pytest and its grandchild `sleep`
        QVERIFY(pw::test::waitUntilGone(ran, 5000));
    }
}

void TestAttribution::differentEnvDigestsAreNotCompared()
{
    AttributionRequest req;
    req.test = "tests/induced/test_induced.py::test_value_is_one";
    req.runs = 1;
    req.record = false;
    // A plugin named for head only (a built-in one, loaded anyway): another env digest.
    req.adjust = [](Arm arm, pw::core::RunSpec &spec) {
        if (arm == Arm::Head)
            spec.env.plugins.push_back("doctest");
    };
    RunPool pool(2);
    const AttributionResult r = Attribution::run(*m_ctx, req, pool);
    QVERIFY(!r.verdict);
    QVERIFY(!r.digestsMatch);
    QVERIFY(r.envDigest.empty());
    QVERIFY(r.base.runs.front().envDigest != r.head.runs.front().envDigest);
    QVERIFY2(r.sentence.find("env digests differ") != std::string::npos, r.sentence.c_str());
    QVERIFY2(r.sentence.find("never compared") != std::string::npos, r.sentence.c_str());
}

void TestAttribution::recordIsWrittenAndReadBack()
{
    const std::string test = "tests/pre/test_pre.py::test_seed_broken";
    AttributionRequest req;
    req.test = test;
    req.mode = AttributionRequest::Mode::Swept;
    req.runs = 3;
    RunPool pool(2);
    const AttributionResult r = Attribution::run(*m_ctx, req, pool);
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QVERIFY2(r.recordError.empty(), r.recordError.c_str());
    const std::string runsDir = m_ctx->runsDir();
    QCOMPARE(r.recordPath,
             runsDir + "/2024-05-10-tests_pre_test_pre.py_test_seed_broken-swept.json");

    const std::string text = pw::core::readWholeFile(r.recordPath).value_or("");
    const AttributionRecord rec = AttributionRecord::parse(text, r.recordPath);
    QCOMPARE(rec.test, test);
    QCOMPARE(rec.verdict.value_or(""), std::string("PRE_EXISTING"));
    QCOMPARE(rec.mode.value_or(""), std::string("swept"));
    QCOMPARE(rec.baseFail.value_or(-1), 2LL); // seeds 1 and 2 of 0..2
    QCOMPARE(rec.headFail.value_or(-1), 2LL);
    QCOMPARE(rec.runs.value_or(-1), 3LL);
    QCOMPARE(rec.seeds.value_or(std::vector<long long>{}), (std::vector<long long>{0, 1, 2}));
    QCOMPARE(rec.witnessSeed.value_or(-1), 1LL);
    QCOMPARE(rec.envDigest.value_or(""), r.envDigest);
    QCOMPARE(rec.baselineSha.value_or(""), m_base);
    QCOMPARE(rec.base.value_or(""), m_base);
    QCOMPARE(rec.head.value_or(""), m_head);
    // The record's replay runs from any checkout (the witness seed, the trees' commits);
    // the machine's own shell line (tree cache, PATH) is kept beside it.
    QCOMPARE(rec.replay.value_or(""), "patchwitness-cli attribute " + req.test + " --base " +
                                          m_base + " --head " + m_head + " --seed 1 --no-record");
    QCOMPARE(rec.replay.value_or(""), r.portableReplay);
    QCOMPARE(rec.replayExact.value_or(""), r.replay);
    QVERIFY(r.replay.find(m_ctx->treeDir(Arm::Head)) != std::string::npos);
    QCOMPARE(rec.recorded.value_or(""), kToday);

    // The same day again: a new file, the first one untouched; the newest wins for freeze.
    AttributionRequest again = req;
    again.runs = 4;
    const AttributionResult second = Attribution::run(*m_ctx, again, pool);
    QCOMPARE(second.recordPath,
             runsDir + "/2024-05-10-tests_pre_test_pre.py_test_seed_broken-swept_02.json");
    QCOMPARE(pw::core::readWholeFile(r.recordPath).value_or(""), text);
    const std::optional<AttributionRecord> latest = AttributionRecord::latestFor(runsDir, test);
    QVERIFY(latest.has_value());
    QCOMPARE(latest->runs.value_or(-1), 4LL);
    // No stray temporary file is left next to the records; git does not see them, so the
    // work tree stays clean and the default head stays HEAD.
    QCOMPARE(
        QDir(QString::fromStdString(runsDir)).entryList(QDir::Files | QDir::Hidden),
        (QStringList{
            QStringLiteral(".gitignore"),
            QStringLiteral("2024-05-10-tests_pre_test_pre.py_test_seed_broken-swept.json"),
            QStringLiteral("2024-05-10-tests_pre_test_pre.py_test_seed_broken-swept_02.json")}));
    const pw::core::Repository repo = pw::core::Repository::open(m_ctx->repoRoot());
    QVERIFY(!repo.isDirty());
    QCOMPARE(repo.defaultHead().spec, std::string("HEAD"));
}

// An interpreter the config names and that is not there: refused when the context opens,
// naming the config file and the field (not by the first run, naming neither).
// A working tree or a patch file exists on this checkout only: the record then carries the
// machine's own line as `replay`; between two commits, the CLI line any checkout can run.
void TestAttribution::portableReplayOnlyBetweenCommits()
{
    AttributionResult r;
    r.test = "tests/t.py::test_p[a b]";
    r.runsPerArm = 1;
    r.seeds = {0};
    r.baseSpec = "main";
    r.baseCommit = std::string(40, 'a');
    r.headSpec = "WORKTREE";
    r.headCommit = std::string(40, 'b');
    for (pw::core::ArmEvidence *arm : {&r.base, &r.head}) {
        pw::core::NodeRun run;
        run.label = arm == &r.base ? "base" : "head";
        run.outcome = Outcome::Fail;
        run.seed = 3;
        run.command = "cd /cache/" + run.label + " && python3 -m pytest";
        arm->runs.push_back(run);
    }
    Attribution::judge(r);
    QCOMPARE(r.replay, std::string("cd /cache/head && python3 -m pytest"));
    QVERIFY(r.portableReplay.empty());
    QCOMPARE(r.record(kToday).replay.value_or(""), r.replay);
    QCOMPARE(r.record(kToday).replayExact.value_or(""), r.replay);

    r.headSpec = "PATCH:/home/ada/fix.diff";
    Attribution::judge(r);
    QVERIFY(r.portableReplay.empty());

    r.headSpec = "HEAD";
    Attribution::judge(r);
    QCOMPARE(r.portableReplay, "patchwitness-cli attribute 'tests/t.py::test_p[a b]' --base " +
                                   r.baseCommit + " --head " + r.headCommit +
                                   " --seed 3 --no-record");
    QCOMPARE(r.record(kToday).replay.value_or(""), r.portableReplay);
}

void TestAttribution::missingInterpreterNamesItsConfigFile()
{
    const std::string config = m_scratch->path().toStdString() + "/no-python.toml";
    QVERIFY(pw::core::writeFileAtomically(config, "python = \"/nope/python3\"\n"));
    RunRequest r = request();
    r.target.python.reset();
    r.target.configPath = config;
    try {
        RunContext::open(r);
        QFAIL("a missing interpreter was accepted");
    } catch (const pw::core::Error &e) {
        QCOMPARE(e.kind(), pw::core::Error::Kind::Input);
        QVERIFY2(std::string(e.what()).starts_with(config + ": python = \"/nope/python3\": "),
                 e.what());
    }
}

void TestAttribution::badNodeIdsAreRefused_data()
{
    QTest::addColumn<QString>("test");
    QTest::addColumn<QString>("message");
    QTest::newRow("no ::") << QStringLiteral("tests/green/test_green.py")
                           << QStringLiteral("not a pytest node id");
    QTest::newRow("empty name") << QStringLiteral("tests/green/test_green.py::")
                                << QStringLiteral("not a pytest node id");
    QTest::newRow("option") << QStringLiteral("--co::x") << QStringLiteral("not an option");
    QTest::newRow("absolute") << QStringLiteral("/etc/passwd::x")
                              << QStringLiteral("relative to the repository root");
    QTest::newRow("outside") << QStringLiteral("tests/../../x.py::t")
                             << QStringLiteral("inside the repository");
    QTest::newRow("no such file") << QStringLiteral("tests/nope/test_nope.py::test_a")
                                  << QStringLiteral("exists neither at base");
}

void TestAttribution::badNodeIdsAreRefused()
{
    QFETCH(QString, test);
    QFETCH(QString, message);
    AttributionRequest req;
    req.test = test.toStdString();
    RunPool pool(1);
    try {
        Attribution::run(*m_ctx, req, pool);
        QFAIL("accepted");
    } catch (const pw::core::Error &e) {
        QCOMPARE(e.kind(), pw::core::Error::Kind::Input);
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TestAttribution::runsBelowOneAreRefused()
{
    AttributionRequest req;
    req.test = "tests/green/test_green.py::test_fine";
    req.runs = 0;
    RunPool pool(1);
    QVERIFY_EXCEPTION_THROWN(Attribution::run(*m_ctx, req, pool), pw::core::Error);
}

void TestAttribution::runsBeyondTheTrialBudgetAreRefused()
{
    AttributionRequest req;
    req.test = "tests/green/test_green.py::test_fine";
    req.runs = 1001; // 2 × 1001 > the default trial_budget of 2000
    req.record = false;
    int runs = 0;
    RunPool pool(1);
    try {
        Attribution::run(*m_ctx, req, pool, [&](const pw::core::NodeRunProgress &) { ++runs; });
        QFAIL("the budget was not enforced");
    } catch (const pw::core::Error &e) {
        QVERIFY2(std::string(e.what()).find("attribute: 2 × 1001 runs exceed the trial budget "
                                            "of 2000 (config trial_budget") == 0,
                 e.what());
    }
    QCOMPARE(runs, 0);
    // Sharded, only the shard's own pairs count: 1/2 of 2001 pairs is 1001 (2002 trials).
    req.runs = 2001;
    req.shard = pw::core::Shard{1, 2};
    try {
        Attribution::run(*m_ctx, req, pool, [&](const pw::core::NodeRunProgress &) { ++runs; });
        QFAIL("the shard's share was not held to the budget");
    } catch (const pw::core::Error &e) {
        QVERIFY2(std::string(e.what()).find("attribute: shard 1/2's share of 2 × 2001 runs: 2002 "
                                            "of 4002 trials exceed the trial budget of 2000") == 0,
                 e.what());
    }
    QCOMPARE(runs, 0);
}

QTEST_GUILESS_MAIN(TestAttribution)
#include "tst_attribution.moc"
