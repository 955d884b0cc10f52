// Isolated replays: the plugin's fork server driven by forkReplays against one
// fresh interpreter per replay (freshReplays), cell by cell, on tests that keep module
// state; crashes and hangs confined to their replay; the trial budget; and the JSONL
// reader the matrix is built from. Every test function runs on each pytest line (Debian's
// 7.2, 8.x, the newest release: PytestLines.h).

#include "PytestLines.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "execution/OutcomeRows.h"
#include "execution/ReplayServer.h"
#include "execution/RunPool.h"

#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using pw::core::forkReplays;
using pw::core::freshReplays;
using pw::core::Outcome;
using pw::core::outcomeName;
using pw::core::ReplayMatrix;
using pw::core::ReplayRequest;
using pw::core::RunPool;

Q_DECLARE_METATYPE(pw::core::Outcome)

namespace {

const std::string kState = "tests/test_state.py::";

// Module state a replay must never see from another: a list each run appends to, a
// helper module caching the first value random gives after seeding, and a test whose
// outcome depends only on the seed (random.random() < 0.3 after random.seed: seeds 1, 3
// and 4 fail, 2, 5 and 6 pass).
void writeStatefulTests(const std::string &tree)
{
    pw::test::writeText(tree, "tests/seedcache.py",
                        "import random\n"
                        "_first = None\n\n"
                        "def first():\n"
                        "    global _first\n"
                        "    if _first is None:\n"
                        "        _first = random.random()\n"
                        "    return _first\n");
    pw::test::writeText(tree, "tests/test_state.py",
                        "import random\n"
                        "import seedcache\n\n"
                        "SEEN = []\n\n"
                        "def test_list_is_fresh():\n"
                        "    SEEN.append(1)\n"
                        "    assert len(SEEN) == 1\n\n"
                        "def test_cache_is_fresh(witness_seed):\n"
                        "    cached = seedcache.first()\n"
                        "    random.seed(witness_seed)\n"
                        "    assert cached == random.random()\n\n"
                        "def test_some_seeds_fail():\n"
                        "    assert random.random() >= 0.3\n");
}

struct Fixture
{
    explicit Fixture(std::string interpreter) : python(std::move(interpreter)) {}

    QTemporaryDir dir;
    std::string python; // the row's pytest line
    std::string tree() const { return dir.path().toStdString() + "/tree"; }

    ReplayRequest request(const std::vector<std::string> &nodes, std::vector<uint32_t> seeds,
                          int replays, const std::string &runDir)
    {
        ReplayRequest r;
        r.base = pw::test::runSpec(tree(), dir.path().toStdString() + "/" + runDir, python);
        r.base.arm = "head";
        r.nodeIds = nodes;
        r.seeds = std::move(seeds);
        r.replays = replays;
        r.perReplayTimeoutMs = 30 * 1000;
        return r;
    }
};

std::string describe(const ReplayMatrix &m, size_t node, size_t seed, int replay)
{
    const auto &cell = m.at(node, seed, replay);
    return m.nodeIds[node] + " seed " + std::to_string(m.seeds[seed]) + " replay " +
           std::to_string(replay) + ": " + outcomeName(cell.outcome) + " (" + cell.detail + ")";
}

// Every cell of `a` equals the cell of `b`; the first difference in the message.
bool sameOutcomes(const ReplayMatrix &a, const ReplayMatrix &b, std::string *difference)
{
    if (a.nodeIds != b.nodeIds || a.seeds != b.seeds || a.replays != b.replays) {
        *difference = "different shapes";
        return false;
    }
    for (size_t n = 0; n < a.nodeIds.size(); ++n)
        for (size_t s = 0; s < a.seeds.size(); ++s)
            for (int r = 0; r < a.replays; ++r)
                if (a.at(n, s, r).outcome != b.at(n, s, r).outcome) {
                    *difference = describe(a, n, s, r) + " vs " + describe(b, n, s, r);
                    return false;
                }
    return true;
}

std::string dump(const ReplayMatrix &m)
{
    std::string out;
    for (size_t n = 0; n < m.nodeIds.size(); ++n)
        for (size_t s = 0; s < m.seeds.size(); ++s)
            for (int r = 0; r < m.replays; ++r)
                out += describe(m, n, s, r) + "\n";
    for (const auto &run : m.runs)
        out += run.command + "\n" + run.stdoutTail + run.stderrTail + "\n";
    return out;
}

} // namespace

class TestForkServer : public QObject
{
    Q_OBJECT

    std::string m_python; // the current row's interpreter (init)

private Q_SLOTS:
    void initTestCase_data() { pw::test::addPytestLineRows(); }
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // stage the plugin under ~/.qttest
    }
    void init()
    {
        QFETCH_GLOBAL(pw::test::PytestLine, line);
        const pw::test::PinnedPython pinned = pw::test::pytestPython(line);
        QVERIFY2(pinned.ok(), pinned.error.c_str());
        m_python = pinned.python;
    }

    void forkServerEqualsFreshInterpretersCellByCell()
    {
        Fixture f(m_python);
        writeStatefulTests(f.tree());
        const std::vector<std::string> nodes = {kState + "test_list_is_fresh",
                                                kState + "test_cache_is_fresh",
                                                kState + "test_some_seeds_fail"};
        RunPool pool(2);
        const ReplayMatrix forked = forkReplays(f.request(nodes, {1, 2, 5}, 3, "fork"), pool);
        const ReplayMatrix fresh = freshReplays(f.request(nodes, {1, 2, 5}, 3, "fresh"), pool);
        QCOMPARE(forked.runs.size(), size_t(1)); // one file: one server
        QCOMPARE(fresh.runs.size(), size_t(27));
        std::string difference;
        QVERIFY2(sameOutcomes(forked, fresh, &difference), difference.c_str());

        // And the outcomes are the isolated ones: state never carried over, the seed alone
        // decides the seed-dependent test.
        for (size_t s = 0; s < 3; ++s) {
            for (int r = 0; r < 3; ++r) {
                QVERIFY2(forked.at(0, s, r).outcome == Outcome::Pass, dump(forked).c_str());
                QVERIFY2(forked.at(1, s, r).outcome == Outcome::Pass, dump(forked).c_str());
                const Outcome seeded = forked.seeds[s] == 1 ? Outcome::Fail : Outcome::Pass;
                QVERIFY2(forked.at(2, s, r).outcome == seeded, dump(forked).c_str());
            }
        }
        QCOMPARE(forked.fails(2, 0), 3);
        QCOMPARE(forked.fails(2, 1), 0);
        QCOMPARE(forked.at(2, 0, 1).detail, std::string("call failed"));
        QCOMPARE(forked.count(Outcome::HarnessError), 0);
        QVERIFY(!forked.budgetExhausted);
        QCOMPARE(forked.runs[0].exitCode, 1); // a replay failed: pytest's "caught"
        QVERIFY(forked.runs[0].evidence());
    }

    // The same replays in one process, nothing isolating them: the stateful tests fail
    // from the second replay on. This is the difference the equality above rests on.
    void withoutTheForkTheReplaysSeeEachOthersState()
    {
        Fixture f(m_python);
        writeStatefulTests(f.tree());
        const std::vector<std::string> nodes = {kState + "test_list_is_fresh",
                                                kState + "test_cache_is_fresh"};
        RunPool pool(1);
        ReplayRequest shared = f.request(nodes, {1, 2, 5}, 3, "shared");
        shared.inProcess = true;
        const ReplayMatrix together = forkReplays(shared, pool);
        const ReplayMatrix forked = forkReplays(f.request(nodes, {1, 2, 5}, 3, "fork"), pool);
        std::string difference;
        QVERIFY(!sameOutcomes(together, forked, &difference));
        QVERIFY2(together.at(0, 0, 0).outcome == Outcome::Pass, dump(together).c_str());
        QCOMPARE(together.at(0, 0, 1).outcome, Outcome::Fail); // SEEN has 2 entries
        QCOMPARE(together.at(0, 2, 2).outcome, Outcome::Fail);
        QCOMPARE(together.at(1, 0, 2).outcome, Outcome::Pass); // seed 1 cached seed 1
        QCOMPARE(together.at(1, 1, 0).outcome, Outcome::Fail); // seed 2 sees seed 1's
        QCOMPARE(together.fails(1, 2), 3);
        QCOMPARE(forked.count(Outcome::Pass), int(forked.cells.size()));
    }

    // Enough replays for two collections: the seeds split over the pool's two workers,
    // each server forking its own share, and the cells the same as with one server.
    void largeMatricesSplitTheSeedsOverTheWorkers()
    {
        Fixture f(m_python);
        writeStatefulTests(f.tree());
        const std::vector<std::string> nodes = {kState + "test_list_is_fresh",
                                                kState + "test_some_seeds_fail"};
        RunPool pool(2);
        const ReplayMatrix split =
            forkReplays(f.request(nodes, {1, 2, 3, 4, 5, 6}, 6, "split"), pool);
        QCOMPARE(split.runs.size(), size_t(2));
        RunPool single(1);
        const ReplayMatrix one =
            forkReplays(f.request(nodes, {1, 2, 3, 4, 5, 6}, 6, "one"), single);
        QCOMPARE(one.runs.size(), size_t(1));
        std::string difference;
        QVERIFY2(sameOutcomes(split, one, &difference), difference.c_str());
        QCOMPARE(split.count(Outcome::Pass), 36 + 3 * 6); // seeds 2, 5, 6 pass the second
        for (size_t s = 0; s < 6; ++s)
            QCOMPARE(split.fails(1, s), split.seeds[s] == 2 || split.seeds[s] >= 5 ? 0 : 6);
    }

    // A fresh run of a node imports its own file only; so does the server (one per file).
    void replaysOfOneFileDoNotSeeAnothersImports()
    {
        Fixture f(m_python);
        pw::test::writeText(f.tree(), "tests/test_a.py",
                            "import os\nos.environ['PW_IMPORTED_A'] = '1'\n\n"
                            "def test_a():\n    pass\n");
        pw::test::writeText(f.tree(), "tests/test_b.py",
                            "import os\n\n"
                            "def test_b():\n    assert 'PW_IMPORTED_A' not in os.environ\n");
        RunPool pool(2);
        const ReplayMatrix forked = forkReplays(
            f.request({"tests/test_a.py::test_a", "tests/test_b.py::test_b"}, {1}, 2, "fork"),
            pool);
        QCOMPARE(forked.runs.size(), size_t(2));
        QVERIFY2(forked.count(Outcome::Pass) == 4, dump(forked).c_str());
    }

    void aReplayThatKillsItselfIsAHarnessErrorAlone()
    {
        Fixture f(m_python);
        pw::test::writeText(f.tree(), "tests/test_die.py",
                            "import os, signal\n\n"
                            "def test_dies_on_seed_2(witness_seed):\n"
                            "    if witness_seed == 2:\n"
                            "        os.kill(os.getpid(), signal.SIGKILL)\n\n"
                            "def test_fine():\n    pass\n");
        const std::vector<std::string> nodes = {"tests/test_die.py::test_dies_on_seed_2",
                                                "tests/test_die.py::test_fine"};
        RunPool pool(2);
        const ReplayMatrix forked = forkReplays(f.request(nodes, {1, 2, 3}, 2, "fork"), pool);
        for (size_t s = 0; s < 3; ++s) {
            for (int r = 0; r < 2; ++r) {
                const auto &cell = forked.at(0, s, r);
                if (forked.seeds[s] == 2) {
                    QVERIFY2(cell.outcome == Outcome::HarnessError, dump(forked).c_str());
                    QVERIFY2(cell.detail.find("SIGKILL") != std::string::npos, cell.detail.c_str());
                } else {
                    QVERIFY2(cell.outcome == Outcome::Pass, dump(forked).c_str());
                }
                QCOMPARE(forked.at(1, s, r).outcome, Outcome::Pass); // the next replays ran
            }
        }
        QVERIFY(forked.runs[0].evidence()); // the server survived its children
        const ReplayMatrix fresh = freshReplays(f.request(nodes, {1, 2, 3}, 2, "fresh"), pool);
        std::string difference;
        QVERIFY2(sameOutcomes(forked, fresh, &difference), difference.c_str());
    }

    void aHangingReplayTimesOutAndTheOthersComplete()
    {
        Fixture f(m_python);
        pw::test::writeText(f.tree(), "tests/test_hang.py",
                            "import time\n\n"
                            "def test_hangs_on_seed_3(witness_seed):\n"
                            "    if witness_seed == 3:\n"
                            "        time.sleep(600)\n");
        RunPool pool(1);
        ReplayRequest request =
            f.request({"tests/test_hang.py::test_hangs_on_seed_3"}, {1, 3, 4}, 2, "fork");
        request.perReplayTimeoutMs = 1500;
        QElapsedTimer clock;
        clock.start();
        const ReplayMatrix forked = forkReplays(request, pool);
        QVERIFY(clock.elapsed() < 60 * 1000);
        for (size_t s = 0; s < 3; ++s) {
            for (int r = 0; r < 2; ++r) {
                const auto &cell = forked.at(0, s, r);
                if (forked.seeds[s] == 3) {
                    QVERIFY2(cell.outcome == Outcome::HarnessError, dump(forked).c_str());
                    QVERIFY2(cell.detail.find("timed out after 1.5 s") != std::string::npos,
                             cell.detail.c_str());
                } else {
                    QVERIFY2(cell.outcome == Outcome::Pass, dump(forked).c_str());
                }
            }
        }
        QVERIFY(forked.runs[0].evidence());
    }

    // The plugin's per-test timer (config timeouts.per_test) inside a replay child: the
    // cell is a harness error naming the timeout, never a failure; the child goes on to
    // report, so the other cells complete.
    void aPerTestTimeoutInAReplayIsAHarnessError()
    {
        Fixture f(m_python);
        pw::test::writeText(f.tree(), "tests/test_slow.py",
                            "import time\n\n"
                            "def test_slow_on_seed_3(witness_seed):\n"
                            "    if witness_seed == 3:\n"
                            "        time.sleep(600)\n");
        RunPool pool(1);
        ReplayRequest request =
            f.request({"tests/test_slow.py::test_slow_on_seed_3"}, {1, 3}, 2, "fork");
        request.base.env.witness.testTimeoutMs = 1000;
        const ReplayMatrix forked = forkReplays(request, pool);
        for (size_t s = 0; s < 2; ++s) {
            for (int r = 0; r < 2; ++r) {
                const auto &cell = forked.at(0, s, r);
                if (forked.seeds[s] == 3) {
                    QVERIFY2(cell.outcome == Outcome::HarnessError, dump(forked).c_str());
                    QVERIFY2(cell.detail.find("per-test timeout of 1 s") != std::string::npos,
                             cell.detail.c_str());
                } else {
                    QVERIFY2(cell.outcome == Outcome::Pass, dump(forked).c_str());
                }
            }
        }
    }

    void theTrialBudgetCapsTheMatrix()
    {
        Fixture f(m_python);
        writeStatefulTests(f.tree());
        RunPool pool(2);
        ReplayRequest request = f.request({kState + "test_list_is_fresh"}, {1, 2}, 3, "fork");
        request.budget = 4;
        const ReplayMatrix forked = forkReplays(request, pool);
        QVERIFY(forked.budgetExhausted);
        QCOMPARE(forked.count(Outcome::Pass), 4);
        for (int r = 1; r < 3; ++r) { // seed 1: 3 replays, seed 2: the first only
            QCOMPARE(forked.at(0, 1, r).outcome, Outcome::HarnessError);
            QCOMPARE(forked.at(0, 1, r).detail, std::string("not run: trial budget exhausted"));
        }
        request.base.runDir = f.dir.path().toStdString() + "/fresh";
        const ReplayMatrix fresh = freshReplays(request, pool);
        QCOMPARE(fresh.runs.size(), size_t(4));
        std::string difference;
        QVERIFY2(sameOutcomes(forked, fresh, &difference), difference.c_str());
    }

    // A replay that writes into its tree or HOME hands nothing to the replays after it:
    // its server stops and the rest runs in a new server on a fresh copy, so the cells
    // equal fresh interpreters'. A file next to the test, a data file rewritten with its
    // size and mtime kept, a cache in HOME; a fixed name in gettempdir() is kept apart by
    // the child's own TMPDIR (no restart); a test that only reads costs none.
    void aReplayThatWritesIntoItsTreeDoesNotReachTheNext()
    {
        Fixture f(m_python);
        pw::test::writeText(f.tree(), "tests/data.txt", "clean\n");
        pw::test::writeText(f.tree(), "tests/test_writes.py",
                            "import os, pathlib, tempfile\n"
                            "HERE = pathlib.Path(__file__).parent\n\n"
                            "def test_next_to_itself():\n"
                            "    marker = HERE / 'written.txt'\n"
                            "    assert not marker.exists()\n"
                            "    marker.write_text('x')\n\n"
                            "def test_rewrites_keeping_mtime():\n"
                            "    path = HERE / 'data.txt'\n"
                            "    assert path.read_text() == 'clean\\n'\n"
                            "    st = path.stat()\n"
                            "    path.write_text('dirty\\n')\n"
                            "    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))\n\n"
                            "def test_home_cache():\n"
                            "    seen = pathlib.Path(os.environ['HOME']) / '.cache' / 'seen'\n"
                            "    assert not seen.exists()\n"
                            "    seen.parent.mkdir(parents=True, exist_ok=True)\n"
                            "    seen.write_text('1')\n\n"
                            "def test_fixed_temp_name():\n"
                            "    fixed = pathlib.Path(tempfile.gettempdir()) / 'pw-fixed'\n"
                            "    assert not fixed.exists()\n"
                            "    fixed.write_text('1')\n\n"
                            "def test_reads_only():\n"
                            "    assert (HERE / 'data.txt').read_text() == 'clean\\n'\n");
        const std::string file = "tests/test_writes.py::";
        const std::vector<std::string> nodes = {
            file + "test_next_to_itself", file + "test_rewrites_keeping_mtime",
            file + "test_home_cache", file + "test_fixed_temp_name", file + "test_reads_only"};
        RunPool pool(2);
        const ReplayMatrix forked = forkReplays(f.request(nodes, {1}, 2, "fork"), pool);
        QVERIFY2(forked.count(Outcome::Pass) == 10, dump(forked).c_str());
        // The three writers' six replays each stop a server; the rest share the last one.
        QCOMPARE(forked.restarts.size(), size_t(6));
        QCOMPARE(forked.runs.size(), size_t(7));
        QVERIFY2(forked.restarts[0] == "replay 0 of " + file + "test_next_to_itself" +
                                           " at seed 1 wrote tests/written.txt",
                 forked.restarts[0].c_str());
        QVERIFY2(forked.restarts[2].find("wrote tests/data.txt") != std::string::npos,
                 forked.restarts[2].c_str());
        QVERIFY2(forked.restarts[4].find("wrote HOME/.cache") != std::string::npos,
                 forked.restarts[4].c_str());
        const ReplayMatrix fresh = freshReplays(f.request(nodes, {1}, 2, "fresh"), pool);
        std::string difference;
        QVERIFY2(sameOutcomes(forked, fresh, &difference), difference.c_str());

        // A budget still counts every replay once across the servers.
        ReplayRequest capped = f.request(nodes, {1}, 2, "capped");
        capped.budget = 3;
        const ReplayMatrix three = forkReplays(capped, pool);
        QVERIFY2(three.count(Outcome::Pass) == 3, dump(three).c_str());
        QVERIFY(three.budgetExhausted);
        QCOMPARE(three.at(1, 0, 1).detail, std::string("not run: trial budget exhausted"));
        QCOMPARE(three.at(4, 0, 1).detail, std::string("not run: trial budget exhausted"));
    }

    void probeLeaksLandInTheirCells()
    {
        Fixture f(m_python);
        pw::test::writeText(f.tree(), "tests/test_leak.py",
                            "import os\n\n"
                            "def test_sets_env():\n    os.environ['PW_LEAKED'] = '1'\n\n"
                            "def test_clean():\n    pass\n");
        RunPool pool(1);
        ReplayRequest request =
            f.request({"tests/test_leak.py::test_sets_env", "tests/test_leak.py::test_clean"}, {1},
                      2, "fork");
        request.probe = true;
        const ReplayMatrix forked = forkReplays(request, pool);
        for (int r = 0; r < 2; ++r) { // every replay leaks afresh: none saw the other's
            QCOMPARE(forked.at(0, 0, r).leaks, std::vector<std::string>{"env"});
            QVERIFY(forked.at(1, 0, r).leaks.empty());
        }
    }

    // --- the JSONL reader and the fold ---------------------------------------------------

    void tornLastLineIsIgnored()
    {
        const std::string text = "{\"nodeid\": \"t::a\", \"when\": \"call\", \"outcome\": "
                                 "\"passed\", \"seed\": 3, \"replay\": 1, \"duration\": 0.5}\n"
                                 "{\"nodeid\": \"t::a\", \"when\": \"tear";
        const auto file = pw::core::parseOutcomeRows(text, "o.jsonl");
        QVERIFY2(file.ok(), file.error.c_str());
        QVERIFY(file.tornTail);
        QCOMPARE(file.rows.size(), size_t(1));
        QCOMPARE(file.rows[0].seed, uint32_t(3));
        QCOMPARE(file.rows[0].replay.value_or(-1), 1);
        QCOMPARE(file.rows[0].duration, 0.5);
    }

    void garbledMiddleLineNamesFileAndLine_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("why");
        QTest::newRow("not json") << "{\"nodeid\": "
                                  << "o.jsonl:2: not JSON";
        QTest::newRow("array") << "[1, 2]"
                               << "o.jsonl:2: not a JSON object";
        QTest::newRow("no when") << "{\"nodeid\": \"t::a\", \"outcome\": \"passed\"}"
                                 << "o.jsonl:2: \"when\" missing or not a string";
        QTest::newRow("negative seed")
            << "{\"nodeid\": \"t\", \"when\": \"call\", \"outcome\": \"passed\", \"seed\": -1}"
            << "o.jsonl:2: \"seed\" is not a 32-bit unsigned number";
    }
    void garbledMiddleLineNamesFileAndLine()
    {
        QFETCH(QString, line);
        QFETCH(QString, why);
        const std::string good = "{\"nodeid\": \"t::a\", \"when\": \"setup\", \"outcome\": "
                                 "\"passed\"}\n";
        const auto file =
            pw::core::parseOutcomeRows(good + line.toStdString() + "\n" + good, "o.jsonl");
        QCOMPARE(QString::fromStdString(file.error), why);
        QVERIFY(file.rows.empty());
    }

    void missingFileIsAnError()
    {
        QTemporaryDir dir;
        const auto file = pw::core::readOutcomeRows(dir.path().toStdString() + "/none.jsonl");
        QVERIFY(!file.ok());
        QVERIFY(file.error.find("none.jsonl") != std::string::npos);
    }

    void foldOneOutcomePerTrial_data()
    {
        QTest::addColumn<QString>("rows"); // when:outcome, space-separated
        QTest::addColumn<pw::core::Outcome>("outcome");
        QTest::addColumn<QString>("phase");
        QTest::newRow("pass") << "setup:passed call:passed teardown:passed" << Outcome::Pass << "";
        QTest::newRow("call failed")
            << "setup:passed call:failed teardown:passed" << Outcome::Fail << "call";
        QTest::newRow("teardown error")
            << "setup:passed call:passed teardown:failed" << Outcome::Fail << "teardown";
        QTest::newRow("setup error") << "setup:failed teardown:passed" << Outcome::Fail << "setup";
        QTest::newRow("skipped in setup")
            << "setup:skipped teardown:passed" << Outcome::Skipped << "";
        QTest::newRow("died mid-test") << "setup:passed" << Outcome::HarnessError << "";
        QTest::newRow("child killed")
            << "setup:passed call:passed replay:harness_error" << Outcome::HarnessError << "";
        QTest::newRow("not collected") << "collect:not_collected" << Outcome::NotCollected << "";
        QTest::newRow("per-test timeout")
            << "setup:passed call:harness_error teardown:passed" << Outcome::HarnessError << "";
    }
    void foldOneOutcomePerTrial()
    {
        QFETCH(QString, rows);
        QFETCH(pw::core::Outcome, outcome);
        QFETCH(QString, phase);
        std::vector<pw::core::OutcomeRow> parsed;
        for (const QString &part : rows.split(QLatin1Char(' '))) {
            pw::core::OutcomeRow row;
            row.nodeId = "t::a";
            row.seed = 7;
            row.replay = 0;
            row.when = part.section(QLatin1Char(':'), 0, 0).toStdString();
            row.outcome = part.section(QLatin1Char(':'), 1, 1).toStdString();
            parsed.push_back(row);
        }
        pw::core::OutcomeRow other = parsed.front(); // another replay: its own trial
        other.replay = 1;
        other.when = "call";
        other.outcome = "passed";
        parsed.push_back(other);
        pw::core::OutcomeRow leak = other;
        leak.when = "leak";
        leak.outcome = "leak";
        leak.kind = "tmp";
        parsed.push_back(leak);
        const std::vector<pw::core::Trial> trials = pw::core::foldTrials(parsed);
        QCOMPARE(trials.size(), size_t(2));
        QCOMPARE(trials[0].outcome, outcome);
        QCOMPARE(QString::fromStdString(trials[0].failedPhase), phase);
        QCOMPARE(trials[1].replay, 1);
        QCOMPARE(trials[1].leaks, std::vector<std::string>{"tmp"});
    }
};

QTEST_GUILESS_MAIN(TestForkServer)
#include "tst_forkserver.moc"
