// PytestRun (core/execution): one pytest run on fixture projects with Debian's pytest — exit
// codes mapped to run statuses, harness errors for everything that is not a test result,
// infrastructure-failure protection, and no process outliving its run.

#include "RunFixtures.h"
#include "execution/OutcomeRows.h"
#include "execution/PytestRun.h"
#include "util/Error.h"

#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <future>

using pw::core::Error;
using pw::core::foldTrials;
using pw::core::NodeOutcome;
using pw::core::Outcome;
using pw::core::OutcomeRowsFile;
using pw::core::PytestRun;
using pw::core::readOutcomeRows;
using pw::core::RunResult;
using pw::core::RunSpec;
using pw::core::RunStatus;
using pw::core::Trial;
using pw::test::writeText;

namespace {

// A fixture project: `tree/` holds the files, `run/` the run's private directory.
struct Project
{
    QTemporaryDir dir;
    std::string tree() const { return dir.path().toStdString() + "/tree"; }
    std::string runDir() const { return dir.path().toStdString() + "/run"; }
    std::string pidFile() const { return dir.path().toStdString() + "/pids"; }
    void write(const std::string &path, const std::string &content) const
    {
        writeText(tree(), path, content);
    }
    RunSpec spec() const { return pw::test::runSpec(tree(), runDir()); }
};

Outcome outcomeOf(const RunResult &result, const std::string &nodeId)
{
    for (const NodeOutcome &row : result.outcomes) {
        if (row.nodeId == nodeId)
            return row.outcome;
    }
    return Outcome::NotCollected;
}

const char kPassing[] = "def test_a():\n    assert 1\n\n"
                        "def test_b():\n    assert 'x'\n\n"
                        "class TestC:\n    def test_c(self):\n        pass\n";

// Runs `spec` on another thread; the run must end within `limitS` (else its process group
// is killed so nothing leaks, and the test fails).
RunResult runBounded(PytestRun &run, int limitS = 90)
{
    auto future = std::async(std::launch::async, [&run] { return run.run(); });
    if (future.wait_for(std::chrono::seconds(limitS)) != std::future_status::ready) {
        run.cancel();
        future.wait();
        throw std::runtime_error("the run did not end within " + std::to_string(limitS) + " s");
    }
    return future.get();
}

} // namespace

class TestPytestRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void passingSuiteIsExitZeroAndEveryNodePasses()
    {
        Project p;
        p.write("tests/test_ok.py", kPassing);
        RunSpec spec = p.spec();
        spec.arm = "base";
        spec.env.hashSeed = 4;
        const RunResult r = PytestRun(spec).run();
        QCOMPARE(r.status, RunStatus::Completed);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.evidence(), r.harnessReason.c_str());
        QVERIFY(!r.caught());
        QCOMPARE(r.outcomes.size(), size_t(3));
        for (const NodeOutcome &row : r.outcomes)
            QCOMPARE(row.outcome, Outcome::Pass);
        QCOMPARE(outcomeOf(r, "tests/test_ok.py::TestC::test_c"), Outcome::Pass);
        QCOMPARE(r.arm, std::string("base"));
        QCOMPARE(r.seed, 4u);
        QCOMPARE(r.envDigest.size(), size_t(16));
        QVERIFY(r.pid > 0);
        QVERIFY(r.command.find("PYTHONHASHSEED=4") != std::string::npos);
        QVERIFY(r.command.find("cd " + p.tree()) == 0);
        QVERIFY(r.stdoutTail.find("3 passed") != std::string::npos);
    }

    void failingTestIsCaught()
    {
        Project p;
        p.write("tests/test_mixed.py", "def test_ok():\n    pass\n\n"
                                       "def test_broken():\n    assert 1 == 2\n\n"
                                       "def test_ok2():\n    pass\n");
        const RunResult r = PytestRun(p.spec()).run();
        QCOMPARE(r.status, RunStatus::Completed);
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.caught());
        QCOMPARE(outcomeOf(r, "tests/test_mixed.py::test_broken"), Outcome::Fail);
        QCOMPARE(outcomeOf(r, "tests/test_mixed.py::test_ok"), Outcome::Pass);
    }

    void errorExitsAreHarnessErrors_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("content");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("detail"); // what the reason names besides the exit code
        QTest::newRow("collection error → 2")
            << "tests/test_broken.py"
            << "import no_such_module_pw\n\ndef test_x():\n    pass\n"
            << 2
            << "collection error in tests/test_broken.py: ModuleNotFoundError: No module named "
               "'no_such_module_pw'";
        QTest::newRow("nothing collected → 5") << "tests/helper.py"
                                               << "X = 1\n"
                                               << 5 << "no tests collected";
        QTest::newRow("usage error → 4") << "tests/conftest.py"
                                         << "def pytest_configure(config):\n"
                                            "    import pytest\n"
                                            "    raise pytest.UsageError('bad option')\n"
                                         << 4 << "usage error";
        QTest::newRow("conftest raises → 4")
            << "tests/conftest.py"
            << "raise RuntimeError('boom')\n"
            << 4 << "conftest tests/conftest.py failed to load: RuntimeError: boom";
    }

    void errorExitsAreHarnessErrors()
    {
        QFETCH(QString, file);
        QFETCH(QString, content);
        QFETCH(int, exitCode);
        QFETCH(QString, detail);
        Project p;
        p.write(file.toStdString(), content.toStdString());
        const RunResult r = PytestRun(p.spec()).run();
        QCOMPARE(r.status, RunStatus::Completed);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY(r.harnessError);
        QVERIFY(!r.caught());
        QVERIFY2(r.harnessReason.find("exit " + std::to_string(exitCode)) != std::string::npos,
                 r.harnessReason.c_str());
        QVERIFY2(r.harnessReason.find(detail.toStdString()) != std::string::npos,
                 r.harnessReason.c_str());
    }

    void hangingTestTimesOutAndItsProcessGroupIsGone()
    {
        Project p;
        p.write("tests/test_hang.py", pw::test::hangingTestSource(p.pidFile()));
        RunSpec spec = p.spec();
        spec.timeoutMs = 6000;
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::TimedOut);
        QVERIFY(r.harnessError);
        QVERIFY(r.harnessReason.find("timed out") != std::string::npos);
        QVERIFY(r.outcomes.empty()); // no JUnit file, no selection: nothing to report
        const std::vector<long> pids = pw::test::readPids(p.pidFile());
        QCOMPARE(pids.size(), size_t(2));
        QCOMPARE(pids[0], long(r.pid));
        QVERIFY(pw::test::waitUntilGone(pids, 10000));
        QVERIFY(pw::test::waitUntilGroupGone(r.pid, 10000));
    }

    void timedOutSelectionIsHarnessErrorPerNode()
    {
        Project p;
        p.write("tests/test_hang.py", pw::test::hangingTestSource(p.pidFile()));
        RunSpec spec = p.spec();
        spec.timeoutMs = 6000;
        spec.selection = {"tests/test_hang.py::test_hangs"};
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::TimedOut);
        QCOMPARE(outcomeOf(r, "tests/test_hang.py::test_hangs"), Outcome::HarnessError);
        QVERIFY(pw::test::waitUntilGone(pw::test::readPids(p.pidFile()), 10000));
    }

    // config timeouts.per_test: the plugin stops the slow test (also one that catches
    // Exception), reads it as a harness error, and the rest of the run goes on.
    void perTestTimeoutStopsOnlyThatTest()
    {
        Project p;
        p.write("tests/test_slow.py", "import time\n\n"
                                      "def test_before():\n    pass\n\n"
                                      "def test_sleeps():\n    time.sleep(60)\n\n"
                                      "def test_swallows():\n"
                                      "    try:\n        time.sleep(60)\n"
                                      "    except Exception:\n        pass\n\n"
                                      "def test_after():\n    pass\n");
        RunSpec spec = p.spec();
        spec.env.witness.enabled = true;
        spec.env.witness.testTimeoutMs = 1000;
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::Completed);
        QVERIFY2(r.evidence(), r.harnessReason.c_str());
        QVERIFY(!r.caught()); // exit 1, but no test failed
        QCOMPARE(outcomeOf(r, "tests/test_slow.py::test_before"), Outcome::Pass);
        QCOMPARE(outcomeOf(r, "tests/test_slow.py::test_after"), Outcome::Pass);
        for (const char *slow :
             {"tests/test_slow.py::test_sleeps", "tests/test_slow.py::test_swallows"}) {
            QCOMPARE(outcomeOf(r, slow), Outcome::HarnessError);
            for (const NodeOutcome &row : r.outcomes) {
                if (row.nodeId == slow)
                    QVERIFY2(row.message.find("per-test timeout of 1 s") != std::string::npos,
                             row.message.c_str());
            }
        }
        QVERIFY(r.durationMs < 50000); // not the 60 s sleeps
    }

    // The timer expiring in a reporting hook between two phases must not become an
    // INTERNALERROR that loses the run: the test's next phase stops instead. The JSONL
    // rows (what fork-server replays and the isolate cell read) say harness_error too.
    void perTestTimeoutBetweenPhasesStopsTheNextPhase()
    {
        Project p;
        p.write("tests/conftest.py", "import time\n\n"
                                     "def pytest_runtest_logreport(report):\n"
                                     "    if report.when == 'setup' and 'slow_hook' in "
                                     "report.nodeid:\n"
                                     "        time.sleep(1.5)\n");
        p.write("tests/test_hook.py", "def test_slow_hook():\n    pass\n\n"
                                      "def test_after():\n    pass\n");
        RunSpec spec = p.spec();
        spec.env.witness.enabled = true;
        spec.env.witness.testTimeoutMs = 1000;
        spec.env.witness.outFile = p.dir.path().toStdString() + "/rows.jsonl";
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::Completed);
        QVERIFY2(r.evidence(), r.harnessReason.c_str()); // exit 1, not 3 (internal error)
        QCOMPARE(outcomeOf(r, "tests/test_hook.py::test_slow_hook"), Outcome::HarnessError);
        QCOMPARE(outcomeOf(r, "tests/test_hook.py::test_after"), Outcome::Pass);

        const OutcomeRowsFile rows = readOutcomeRows(spec.env.witness.outFile);
        QVERIFY2(rows.error.empty(), rows.error.c_str());
        const std::vector<Trial> trials = foldTrials(rows.rows);
        QCOMPARE(int(trials.size()), 2);
        for (const Trial &t : trials) {
            if (t.nodeId == "tests/test_hook.py::test_after")
                QCOMPARE(t.outcome, Outcome::Pass);
            else {
                QCOMPARE(t.outcome, Outcome::HarnessError);
                QVERIFY2(t.detail.find("per-test timeout of 1 s") != std::string::npos,
                         t.detail.c_str());
            }
        }
    }

    // os._exit(0) in a test ends the interpreter before pytest writes its JUnit XML: the
    // reason says so and names the test the run-order log saw start last, not just
    // "junit.xml: no JUnit XML".
    void interpreterExitingInATestNamesTheTest()
    {
        Project p;
        p.write("tests/test_exit.py", "import os\n\n"
                                      "def test_first():\n    pass\n\n"
                                      "def test_exits():\n    os._exit(0)\n\n"
                                      "def test_never():\n    pass\n");
        RunSpec spec = p.spec();
        spec.env.witness.enabled = true;
        spec.env.witness.orderFile = p.dir.path().toStdString() + "/order.log";
        spec.env.witness.outFile = p.dir.path().toStdString() + "/rows.jsonl";
        spec.selection = {"tests/test_exit.py::test_first", "tests/test_exit.py::test_exits"};
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::Completed);
        QVERIFY(r.harnessError);
        QVERIFY2(r.harnessReason.find("the interpreter exited during "
                                      "tests/test_exit.py::test_exits (pytest exit 0 without "
                                      "its JUnit XML): os._exit()") != std::string::npos,
                 r.harnessReason.c_str());
        QCOMPARE(outcomeOf(r, "tests/test_exit.py::test_exits"), Outcome::HarnessError);

        // Without the plugin's log there is no test to name, and still no bare file error.
        PytestRun bareRun(p.spec());
        const RunResult bare = runBounded(bareRun);
        QVERIFY(bare.harnessError);
        QVERIFY2(bare.harnessReason.find("the interpreter exited before pytest finished its "
                                         "session (pytest exit 0") != std::string::npos,
                 bare.harnessReason.c_str());
    }

    void killedInterpreterIsACrash()
    {
        Project p;
        p.write("tests/test_die.py",
                "import os, signal\n\n"
                "def test_ok():\n    pass\n\n"
                "def test_dies():\n    os.kill(os.getpid(), signal.SIGKILL)\n");
        PytestRun run(p.spec());
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::Crashed);
        QVERIFY(r.harnessError);
        QVERIFY(!r.caught());
    }

    void cancelFromAnotherThreadStopsAHangingRun()
    {
        Project p;
        p.write("tests/test_hang.py", pw::test::hangingTestSource(p.pidFile()));
        PytestRun run(p.spec()); // 120 s timeout: only cancel() can end it in time
        auto future = std::async(std::launch::async, [&run] { return run.run(); });
        QVERIFY(pw::test::waitForFile(p.pidFile(), 60000));
        run.cancel();
        QVERIFY(future.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const RunResult r = future.get();
        QCOMPARE(r.status, RunStatus::Cancelled);
        QVERIFY(r.harnessError);
        QVERIFY(pw::test::waitUntilGone(pw::test::readPids(p.pidFile()), 10000));
        QVERIFY(pw::test::waitUntilGroupGone(r.pid, 10000));
    }

    void cancelBeforeRunStartsNothing()
    {
        Project p;
        p.write("tests/test_ok.py", kPassing);
        PytestRun run(p.spec());
        run.cancel();
        const RunResult r = run.run();
        QCOMPARE(r.status, RunStatus::Cancelled);
        QCOMPARE(r.pid, int64_t(0));
    }

    void backgroundProcessesDoNotOutliveTheRun()
    {
        Project p;
        p.write("tests/test_daemon.py", "import subprocess\n\n"
                                        "def test_leaves_a_daemon():\n"
                                        "    child = subprocess.Popen(['sleep', '600'])\n"
                                        "    open('" +
                                            p.pidFile() + "', 'w').write(str(child.pid))\n");
        const RunResult r = PytestRun(p.spec()).run();
        QCOMPARE(r.exitCode, 0);
        QVERIFY(pw::test::waitUntilGone(pw::test::readPids(p.pidFile()), 10000));
    }

    void mostlyFailingRunIsAnInfrastructureFailure()
    {
        Project p;
        std::string source;
        for (int i = 0; i < 6; ++i)
            source += "def test_" + std::to_string(i) + "():\n    assert " +
                      (i < 4 ? "False" : "True") + "\n\n";
        p.write("tests/test_infra.py", source);
        const RunResult r = PytestRun(p.spec()).run();
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.harnessError); // 4 of 6 > 50 %
        QVERIFY(!r.caught());
        QVERIFY2(r.harnessReason.find("infra_fail_pct") != std::string::npos,
                 r.harnessReason.c_str());
        QCOMPARE(r.count(Outcome::Fail), 4); // kept for display, flagged as no evidence

        RunSpec lenient = p.spec();
        lenient.infraFailPct = 70;
        QVERIFY(PytestRun(lenient).run().caught());

        // One selected failing test is a result, not an infrastructure failure.
        RunSpec single = p.spec();
        single.selection = {"tests/test_infra.py::test_0"};
        const RunResult one = PytestRun(single).run();
        QVERIFY2(one.caught(), one.harnessReason.c_str());
    }

    void deselectedNodeIsNotCollected()
    {
        Project p;
        p.write("tests/test_ok.py", kPassing);
        RunSpec spec = p.spec();
        spec.selection = {"tests/test_ok.py::test_a", "tests/test_ok.py::test_b"};
        spec.extraArgs = QStringList{QStringLiteral("-k"), QStringLiteral("test_a")};
        const RunResult r = PytestRun(spec).run();
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(outcomeOf(r, "tests/test_ok.py::test_a"), Outcome::Pass);
        bool seen = false;
        for (const NodeOutcome &row : r.outcomes)
            seen = seen || (row.nodeId == "tests/test_ok.py::test_b" &&
                            row.outcome == Outcome::NotCollected);
        QVERIFY(seen);
    }

    void runSeesOnlyThePinnedEnvironment()
    {
        Project p;
        p.write("tests/test_env.py",
                "import os\n\n"
                "def test_env():\n"
                "    e = os.environ\n"
                "    assert e['PYTHONHASHSEED'] == '5'\n"
                "    assert e['TZ'] == 'UTC' and e['LC_ALL'] == 'C.UTF-8'\n"
                "    assert e['PYTEST_DISABLE_PLUGIN_AUTOLOAD'] == '1'\n"
                "    assert e['HOME'] == '" +
                    p.runDir() +
                    "/home'\n"
                    "    assert e['TMPDIR'] == '" +
                    p.runDir() +
                    "/tmp'\n"
                    "    assert 'PYTHONPATH' not in e and 'PW_SECRET' not in e\n"
                    "    assert hash('abc') == hash('abc')\n");
        qputenv("PYTHONPATH", "/leaked");
        qputenv("PW_SECRET", "token");
        RunSpec spec = p.spec();
        spec.env.hashSeed = 5;
        const RunResult r = PytestRun(spec).run();
        qunsetenv("PYTHONPATH");
        qunsetenv("PW_SECRET");
        QVERIFY2(r.exitCode == 0, r.stdoutTail.c_str());
    }

    void outputIsBounded()
    {
        Project p;
        p.write("tests/test_loud.py",
                "def test_loud():\n    print('x' * 200000)\n    assert False\n");
        RunSpec spec = p.spec();
        spec.maxOutputBytes = 4096;
        const RunResult r = PytestRun(spec).run();
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.stdoutTail.size() <= 4096);
        QVERIFY(r.outputDropped > 0);
        QVERIFY(r.stdoutTail.find("failed") != std::string::npos); // the summary is the tail
    }

    void missingInterpreterIsAnInputError()
    {
        Project p;
        p.write("tests/test_ok.py", kPassing);
        RunSpec spec = p.spec();
        spec.env.python = "/nonexistent/python3";
        try {
            PytestRun(spec).run();
            QFAIL("a run with a missing interpreter did not throw");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            QVERIFY(std::string(e.what()).find("/nonexistent/python3") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestPytestRun)
#include "tst_pytestrun.moc"
