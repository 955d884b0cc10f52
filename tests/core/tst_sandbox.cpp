// Sandbox (core/execution): pytest runs inside bubblewrap see their own copy of the tree (bound
// at the tree's path) and their run directory read-write, the rest read-only, a private
// /tmp and no network; network failures the sandbox causes are labelled;
// timeout and cancel still kill everything; a requested sandbox that is unavailable stops
// the run instead of running unsandboxed.

#include "RunFixtures.h"
#include "TestSupport.h"
#include "execution/PytestRun.h"
#include "execution/Sandbox.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <future>

using pw::core::NetworkBlock;
using pw::core::NodeOutcome;
using pw::core::Outcome;
using pw::core::PytestRun;
using pw::core::RunResult;
using pw::core::RunSpec;
using pw::core::RunStatus;
using pw::core::Sandbox;
using pw::core::SandboxPolicy;
using pw::test::writeText;

namespace {

// A fixture project under /tmp (so every bind must survive the private /tmp): `tree/`
// holds the files, `run/` the run's private directory.
struct Project
{
    QTemporaryDir dir{QStringLiteral("/tmp/pw-sandbox-XXXXXX")};
    std::string tree() const { return dir.path().toStdString() + "/tree"; }
    std::string runDir() const { return dir.path().toStdString() + "/run"; }
    std::string pidFile() const { return runDir() + "/pids"; } // writable in the sandbox
    void write(const std::string &path, const std::string &content) const
    {
        writeText(tree(), path, content);
    }
    RunSpec spec(bool sandbox) const
    {
        RunSpec spec = pw::test::runSpec(tree(), runDir());
        spec.sandbox = sandbox;
        return spec;
    }
};

const NodeOutcome *rowOf(const RunResult &result, const std::string &nodeId)
{
    for (const NodeOutcome &row : result.outcomes) {
        if (row.nodeId == nodeId)
            return &row;
    }
    return nullptr;
}

Outcome outcomeOf(const RunResult &result, const std::string &nodeId)
{
    const NodeOutcome *row = rowOf(result, nodeId);
    return row ? row->outcome : Outcome::NotCollected;
}

std::string describe(const RunResult &r)
{
    std::string text = std::string(pw::core::runStatusName(r.status)) + " exit " +
                       std::to_string(r.exitCode) + " " + r.harnessReason + "\n";
    for (const NodeOutcome &row : r.outcomes)
        text += row.nodeId + " " + pw::core::outcomeName(row.outcome) + " " + row.message + "\n";
    return text + r.stdoutTail.substr(r.stdoutTail.size() > 3000 ? r.stdoutTail.size() - 3000 : 0) +
           r.stderrTail;
}

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

// Restores PATH lookup of bwrap when a test pointed the sandbox elsewhere.
struct ProgramOverride
{
    explicit ProgramOverride(const std::string &path) { Sandbox::setProgram(path); }
    ~ProgramOverride() { Sandbox::setProgram({}); }
};

const char kNetworkTests[] = "import socket\n\n"
                             "def test_connect():\n"
                             "    socket.create_connection(('192.0.2.1', 9), timeout=2)\n\n"
                             "def test_resolve():\n"
                             "    socket.getaddrinfo('example.com', 80)\n";

} // namespace

#define REQUIRE_SANDBOX() PW_REQUIRE_SANDBOX()

class TestSandbox : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wrapBindsAfterTheTmpfsAndEndsWithTheProgram()
    {
        SandboxPolicy policy;
        policy.treeDir = "/tmp/t/tree";
        policy.writableDirs = {"/tmp/t/run", "/tmp/t/run", "/tmp/t/tree", "/var/out"};
        policy.readOnlyDirs = {"/usr/lib/x", "/tmp/cache/plugin", "/tmp"};
        const pw::core::SandboxCommand c =
            Sandbox::wrap("/usr/bin/bwrap", QStringLiteral("python3"),
                          QStringList{QStringLiteral("-m"), QStringLiteral("pytest")}, policy);
        QCOMPARE(c.program, QStringLiteral("/usr/bin/bwrap"));
        const QStringList expected = QStringList{
            QStringLiteral("--ro-bind"), QStringLiteral("/"), QStringLiteral("/"),
            QStringLiteral("--dev"), QStringLiteral("/dev"), QStringLiteral("--proc"),
            QStringLiteral("/proc"), QStringLiteral("--tmpfs"), QStringLiteral("/tmp"),
            // Only read-only directories the tmpfs hides; never /tmp itself.
            QStringLiteral("--ro-bind"), QStringLiteral("/tmp/cache/plugin"),
            QStringLiteral("/tmp/cache/plugin"),
            // Writable ones last, once each, so they win over everything above.
            QStringLiteral("--bind"), QStringLiteral("/tmp/t/tree"), QStringLiteral("/tmp/t/tree"),
            QStringLiteral("--bind"), QStringLiteral("/tmp/t/run"), QStringLiteral("/tmp/t/run"),
            QStringLiteral("--bind"), QStringLiteral("/var/out"), QStringLiteral("/var/out"),
            QStringLiteral("--unshare-net"), QStringLiteral("--unshare-ipc"),
            QStringLiteral("--unshare-pid"), QStringLiteral("--die-with-parent"),
            QStringLiteral("--chdir"), QStringLiteral("/tmp/t/tree"), QStringLiteral("--"),
            QStringLiteral("python3"), QStringLiteral("-m"), QStringLiteral("pytest")};
        QCOMPARE(c.arguments, expected);
        // The process group must stay bwrap's, so the group kill reaches it.
        QVERIFY(!c.arguments.contains(QStringLiteral("--new-session")));
    }

    // A run's own copy of the tree is bound at the tree's path, after everything else (an
    // import root inside the tree bound read-only must not shadow it); the tree itself is
    // then not bound writable. The preflight sees its tree read-only.
    void aRunsCopyIsBoundAtTheTreesPath()
    {
        pw::core::SandboxPolicy policy;
        policy.treeDir = "/tmp/c/trees/abc";
        policy.treeSource = "/tmp/c/trees/abc.run-x1";
        policy.writableDirs = {"/tmp/t/run"};
        policy.readOnlyDirs = {"/tmp/c/trees/abc/src"};
        const QStringList args =
            Sandbox::wrap("/usr/bin/bwrap", QStringLiteral("python3"), {}, policy).arguments;
        const QString tree = QStringLiteral("/tmp/c/trees/abc");
        const qsizetype copyAt = args.indexOf(QStringLiteral("/tmp/c/trees/abc.run-x1"));
        QVERIFY2(copyAt > 0, qPrintable(args.join(QLatin1Char(' '))));
        QCOMPARE(args[copyAt - 1], QStringLiteral("--bind"));
        QCOMPARE(args[copyAt + 1], tree);
        QVERIFY(copyAt > args.indexOf(QStringLiteral("/tmp/c/trees/abc/src")));
        QVERIFY(copyAt > args.indexOf(QStringLiteral("/tmp/t/run")));
        QCOMPARE(args.count(tree), 2); // the bind's target and --chdir
        QCOMPARE(args[args.indexOf(QStringLiteral("--chdir")) + 1], tree);

        policy.treeSource.clear();
        policy.treeReadOnly = true;
        const QStringList preflight =
            Sandbox::wrap("/usr/bin/bwrap", QStringLiteral("python3"), {}, policy).arguments;
        const qsizetype at =
            preflight.lastIndexOf(tree, preflight.indexOf(QStringLiteral("--chdir")));
        QVERIFY(at > 1);
        QCOMPARE(preflight[at - 2], QStringLiteral("--ro-bind"));
        QCOMPARE(preflight[at - 1], tree);
    }

    void classifierTellsCertainFromPossibleNetworkBlocks_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("block");
        const int certain = int(NetworkBlock::Certain);
        const int possible = int(NetworkBlock::Possible);
        const int none = int(NetworkBlock::None);
        // The first rows are what pytest's JUnit `message` held in a sandboxed run here.
        QTest::newRow("connect: ENETUNREACH")
            << "OSError: [Errno 101] Network is unreachable" << certain;
        QTest::newRow("getaddrinfo: EAI_AGAIN")
            << "socket.gaierror: [Errno -3] Temporary failure in name resolution" << certain;
        QTest::newRow("urllib")
            << "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name "
               "resolution>"
            << certain;
        QTest::newRow("urllib3") << "urllib3.exceptions.NewConnectionError: <urllib3.connection."
                                    "HTTPConnection object at 0x7f>: Failed to establish a new "
                                    "connection: [Errno 101] Network is unreachable"
                                 << certain;
        QTest::newRow("loopback service: ECONNREFUSED")
            << "ConnectionRefusedError: [Errno 111] Connection refused" << possible;
        QTest::newRow("bind host address: EADDRNOTAVAIL")
            << "OSError: [Errno 99] Cannot assign requested address" << possible;
        QTest::newRow("unknown name: EAI_NONAME")
            << "socket.gaierror: [Errno -2] Name or service not known" << possible;
        QTest::newRow("EAI_NODATA")
            << "socket.gaierror: [Errno -5] No address associated with hostname" << possible;
        QTest::newRow("assertion") << "assert 1 == 2" << none;
        QTest::newRow("read-only file system")
            << "OSError: [Errno 30] Read-only file system: '/var/x'" << none;
        QTest::newRow("errno -30 is not -3") << "OSError: [Errno -30] whatever" << none;
        QTest::newRow("empty") << "" << none;
    }

    void classifierTellsCertainFromPossibleNetworkBlocks()
    {
        QFETCH(QString, message);
        QFETCH(int, block);
        QCOMPARE(int(Sandbox::classifyFailure(message.toStdString())), block);
    }

    void writingOutsideTheTreeFailsOnlyInTheSandbox_data()
    {
        QTest::addColumn<QString>("base");
        // Hidden by the private /tmp, and read-only like the rest of the filesystem.
        QTest::newRow("under /tmp") << QStringLiteral("/tmp");
        QTest::newRow("under /var/tmp") << QStringLiteral("/var/tmp");
    }

    void writingOutsideTheTreeFailsOnlyInTheSandbox()
    {
        REQUIRE_SANDBOX();
        QFETCH(QString, base);
        QTemporaryDir outside(base + QStringLiteral("/pw-outside-XXXXXX"));
        if (!outside.isValid())
            QSKIP("cannot create a directory there");
        const std::string target = outside.path().toStdString() + "/written.txt";
        Project p;
        p.write("tests/test_out.py", "def test_writes_outside():\n"
                                     "    with open('" +
                                         target +
                                         "', 'w') as f:\n"
                                         "        f.write('x')\n");
        const RunResult boxed = PytestRun(p.spec(true)).run();
        QVERIFY(boxed.sandboxed);
        QCOMPARE(outcomeOf(boxed, "tests/test_out.py::test_writes_outside"), Outcome::Fail);
        QVERIFY(!QFileInfo::exists(QString::fromStdString(target)));
        QVERIFY(!rowOf(boxed, "tests/test_out.py::test_writes_outside")->sandboxBlocked);

        const RunResult open = PytestRun(p.spec(false)).run();
        QVERIFY(!open.sandboxed);
        QVERIFY2(open.exitCode == 0, describe(open).c_str());
        QVERIFY(QFileInfo::exists(QString::fromStdString(target)));
    }

    void writingTheTreeTmpPathHomeAndTmpdirPasses()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_in.py",
                "import os, pathlib, tempfile\n\n"
                "def test_writes_inside(tmp_path):\n"
                "    pathlib.Path('made_by_test.txt').write_text('cwd')\n"
                "    (pathlib.Path(__file__).parent / 'beside.txt').write_text('tree')\n"
                "    (tmp_path / 'x.txt').write_text('tmp_path')\n"
                "    pathlib.Path(os.environ['HOME'], 'h.txt').write_text('home')\n"
                "    fd, name = tempfile.mkstemp()\n"
                "    os.write(fd, b'tmpdir')\n"
                "    os.close(fd)\n"
                "    with open('/tmp/private.txt', 'w') as f:\n"
                "        f.write('private tmp')\n");
        const RunResult r = PytestRun(p.spec(true)).run();
        QVERIFY2(r.exitCode == 0 && r.evidence(), describe(r).c_str());
        QCOMPARE(outcomeOf(r, "tests/test_in.py::test_writes_inside"), Outcome::Pass);
        // The tree it wrote is its own copy (issue 18): the tree it copied is left as it was.
        QVERIFY(!QFileInfo::exists(QString::fromStdString(p.tree() + "/made_by_test.txt")));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(p.tree() + "/tests/beside.txt")));
        QVERIFY(QFileInfo::exists(QString::fromStdString(p.runDir() + "/home/h.txt")));
    }

    void hostTmpIsNotVisibleAndSandboxTmpDoesNotLeak()
    {
        REQUIRE_SANDBOX();
        QTemporaryDir hostOnly(QStringLiteral("/tmp/pw-host-only-XXXXXX"));
        QVERIFY(hostOnly.isValid());
        writeText(hostOnly.path().toStdString(), "secret.txt", "host");
        const std::string hostFile = hostOnly.path().toStdString() + "/secret.txt";
        const std::string leaked = hostOnly.path().toStdString() + "-leaked.txt";
        Project p;
        p.write("tests/test_tmp.py", "import os\n\n"
                                     "def test_tmp_is_private():\n"
                                     "    assert not os.path.exists('" +
                                         hostFile +
                                         "')\n"
                                         "    open('" +
                                         leaked + "', 'w').write('x')\n");
        const RunResult r = PytestRun(p.spec(true)).run();
        QVERIFY2(r.exitCode == 0, describe(r).c_str());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(leaked)));
        QVERIFY(QFileInfo::exists(QString::fromStdString(hostFile)));
    }

    void networkAccessFailsAndIsLabelledSandboxBlocked()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_net.py", kNetworkTests);
        const RunResult r = PytestRun(p.spec(true)).run();
        QCOMPARE(r.exitCode, 1);
        for (const char *id :
             {"tests/test_net.py::test_connect", "tests/test_net.py::test_resolve"}) {
            const NodeOutcome *row = rowOf(r, id);
            QVERIFY2(row, describe(r).c_str());
            QCOMPARE(row->outcome, Outcome::Fail);
            QVERIFY2(row->sandboxBlocked, row->message.c_str());
            QVERIFY2(row->message.find(Sandbox::kBlockedNote) != std::string::npos,
                     row->message.c_str());
        }
        QVERIFY(rowOf(r, "tests/test_net.py::test_connect")->message.find("[Errno 101]") !=
                std::string::npos);
        QVERIFY(rowOf(r, "tests/test_net.py::test_resolve")->message.find("[Errno -3]") !=
                std::string::npos);
    }

    void networkFailureWithoutTheSandboxIsNotLabelled()
    {
        Project p;
        p.write("tests/test_net.py", kNetworkTests);
        const RunResult r = PytestRun(p.spec(false)).run(); // this host may have no network
        QVERIFY(!r.sandboxed);
        QVERIFY2(r.status == RunStatus::Completed, describe(r).c_str());
        for (const NodeOutcome &row : r.outcomes) {
            QVERIFY(!row.sandboxBlocked);
            QVERIFY(row.message.find("sandbox") == std::string::npos);
        }
    }

    void commandShowsTheBwrapLineAndReproducesTheRun()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_ok.py", "def test_ok():\n    pass\n");
        const RunResult r = PytestRun(p.spec(true)).run();
        QVERIFY2(r.exitCode == 0, describe(r).c_str());
        const std::string bwrap = Sandbox::status().program;
        QVERIFY2(r.command.find("cd " + p.tree() + " && env -i ") == 0, r.command.c_str());
        const size_t at = r.command.find(" " + bwrap + " --ro-bind / / ");
        QVERIFY2(at != std::string::npos, r.command.c_str());
        QVERIFY(r.command.find("PYTHONHASHSEED=") < at); // env -i K=V… before bwrap
        QVERIFY(r.command.find("--unshare-net") != std::string::npos);
        QVERIFY(r.command.find(" -- " + pw::test::testPython() + " -m pytest") !=
                std::string::npos);

        QFile::remove(QString::fromStdString(p.runDir() + "/junit.xml"));
        QProcess shell;
        shell.start(QStringLiteral("/bin/sh"),
                    QStringList{QStringLiteral("-c"), QString::fromStdString(r.command)});
        QVERIFY(shell.waitForFinished(60000));
        QCOMPARE(shell.exitCode(), 0);
        QVERIFY(QFileInfo::exists(QString::fromStdString(p.runDir() + "/junit.xml")));
    }

    // The copyable line (RunResult::replay) names none of the run's scratch files and no
    // sandbox, so it still works once the gate has removed its run directory.
    void replayWorksAfterTheRunDirectoryIsGone()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_ok.py", "def test_ok():\n    pass\n");
        const RunResult r = PytestRun(p.spec(true)).run();
        QVERIFY2(r.exitCode == 0, describe(r).c_str());
        QVERIFY2(r.replay.find(p.runDir()) == std::string::npos, r.replay.c_str());
        QVERIFY2(r.replay.find(Sandbox::status().program) == std::string::npos, r.replay.c_str());
        QVERIFY(r.replay.find("PYTHONHASHSEED=") != std::string::npos);
        QVERIFY(QDir(QString::fromStdString(p.runDir())).removeRecursively());

        QProcess shell;
        shell.start(QStringLiteral("/bin/sh"),
                    QStringList{QStringLiteral("-c"), QString::fromStdString(r.replay)});
        QVERIFY(shell.waitForFinished(60000));
        QVERIFY2(shell.exitCode() == 0, shell.readAllStandardError().constData());
        QVERIFY(shell.readAllStandardOutput().contains("1 passed"));
    }

    // The staged plugin is read-only inside the sandbox, so pytest cannot cache the
    // plugin's rewritten bytecode there; the run writes it beforehand, outside.
    void sandboxedRunsFindThePluginBytecodeCached()
    {
        REQUIRE_SANDBOX();
        const QString cache = QString::fromStdString(pw::core::RunEnvironment::pluginDir() +
                                                     "/pw_plugin/__pycache__");
        QVERIFY(QDir(cache).removeRecursively());
        Project p;
        p.write("tests/test_ok.py", "def test_ok():\n    pass\n");
        RunSpec spec = p.spec(true);
        spec.env.witness.enabled = true;
        const RunResult r = PytestRun(spec).run();
        QVERIFY2(r.exitCode == 0, describe(r).c_str());
        // every module of the package, as pytest rewrote it
        const QStringList cached =
            QDir(cache).entryList(QStringList{QStringLiteral("*-pytest-*.pyc")}, QDir::Files);
        QCOMPARE(cached.size(), int(pw::core::RunEnvironment::pluginFiles().size()));
    }

    void pluginOutputOutsideTheRunDirIsWritable()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_ok.py", "def test_ok():\n    pass\n");
        QTemporaryDir out(QStringLiteral("/tmp/pw-sandbox-out-XXXXXX"));
        RunSpec spec = p.spec(true);
        spec.env.witness.enabled = true;
        spec.env.witness.outFile = out.path().toStdString() + "/rows/outcomes.jsonl";
        spec.env.witness.orderFile = out.path().toStdString() + "/order.txt";
        const RunResult r = PytestRun(spec).run();
        QVERIFY2(r.exitCode == 0, describe(r).c_str());
        QVERIFY(QFileInfo(QString::fromStdString(spec.env.witness.outFile)).size() > 0);
        QVERIFY(QFileInfo(QString::fromStdString(spec.env.witness.orderFile)).size() > 0);
    }

    // Sandboxed runs have their own pid namespace, so the pids a test writes are the
    // namespace's: what is left behind is found by working directory (the tree) instead.
    void hangingTestInTheSandboxLeavesNoProcessAfterTheTimeout()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_hang.py", pw::test::hangingTestSource(p.pidFile()));
        RunSpec spec = p.spec(true);
        spec.timeoutMs = 6000;
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::TimedOut);
        QVERIFY(r.harnessError);
        QCOMPARE(pw::test::readPids(p.pidFile()).size(), size_t(2)); // the `sleep` started
        QVERIFY(pw::test::waitUntilNoneWorkingIn(p.tree(), 10000));
        QVERIFY(pw::test::waitUntilGroupGone(r.pid, 10000));
        QVERIFY(!pw::test::isAlive(r.pid));
    }

    void cancelInTheSandboxLeavesNoProcess()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_hang.py", pw::test::hangingTestSource(p.pidFile()));
        PytestRun run(p.spec(true));
        auto future = std::async(std::launch::async, [&run] { return run.run(); });
        QVERIFY(pw::test::waitForFile(p.pidFile(), 60000));
        // bwrap, the namespace's init, pytest and its `sleep` all work in the tree.
        QVERIFY(pw::test::processesWorkingIn(p.tree()).size() >= 3);
        run.cancel();
        QVERIFY(future.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const RunResult r = future.get();
        QCOMPARE(r.status, RunStatus::Cancelled);
        QVERIFY(pw::test::waitUntilNoneWorkingIn(p.tree(), 10000));
        QVERIFY(pw::test::waitUntilGroupGone(r.pid, 10000));
    }

    // A daemon — its own session, out of the group kill's reach — dies with the pid
    // namespace: when the run times out, is cancelled, or simply ends.
    void daemonInTheSandboxDiesWithTheTimedOutRun()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_daemon.py", pw::test::daemonTestSource(p.pidFile(), true));
        RunSpec spec = p.spec(true);
        spec.timeoutMs = 6000;
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::TimedOut);
        QCOMPARE(pw::test::readPids(p.pidFile()).size(), size_t(2));
        QVERIFY(pw::test::waitUntilNoneWorkingIn(p.tree(), 10000));
    }

    void daemonInTheSandboxDiesWhenTheRunEnds()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_daemon.py", pw::test::daemonTestSource(p.pidFile(), false));
        PytestRun run(p.spec(true));
        const RunResult r = runBounded(run);
        QVERIFY2(r.exitCode == 0, describe(r).c_str());
        const NodeOutcome *row = rowOf(r, "tests/test_daemon.py::test_daemon");
        QVERIFY(row && row->outcome == Outcome::Pass);
        QCOMPARE(pw::test::readPids(p.pidFile()).size(), size_t(2));
        QVERIFY(pw::test::waitUntilNoneWorkingIn(p.tree(), 10000));
    }

    // Without the sandbox a daemon escapes the group kill, but not its run's token: it dies
    // when the run ends or times out, and the run counts it.
    void daemonWithoutTheSandboxIsKilledByTheRunsToken_data()
    {
        QTest::addColumn<bool>("hang");
        QTest::newRow("the run ends") << false;
        QTest::newRow("the run times out") << true;
    }

    void daemonWithoutTheSandboxIsKilledByTheRunsToken()
    {
        QFETCH(bool, hang);
        Project p;
        p.write("tests/test_daemon.py", pw::test::daemonTestSource(p.pidFile(), hang));
        RunSpec spec = p.spec(false);
        spec.timeoutMs = hang ? 6000 : spec.timeoutMs;
        PytestRun run(spec);
        const RunResult r = runBounded(run);
        QVERIFY(!r.sandboxed);
        QCOMPARE(r.status, hang ? RunStatus::TimedOut : RunStatus::Completed);
        const std::vector<long> pids = pw::test::readPids(p.pidFile());
        QCOMPARE(pids.size(), size_t(2));
        QCOMPARE(r.strayProcesses, 1); // pytest died with its group; the daemon by the token
        QVERIFY(pw::test::waitUntilGone({pids[1]}, 5000));
    }

    void interpreterKilledInTheSandboxIsACrash()
    {
        REQUIRE_SANDBOX();
        Project p;
        p.write("tests/test_die.py",
                "import os, signal\n\n"
                "def test_dies():\n    os.kill(os.getpid(), signal.SIGKILL)\n");
        PytestRun run(p.spec(true));
        const RunResult r = runBounded(run);
        QCOMPARE(r.status, RunStatus::Crashed);
        QVERIFY(r.harnessError);
        QVERIFY2(r.harnessReason.find("signal 9") != std::string::npos, r.harnessReason.c_str());
    }

    void unavailableSandboxIsAHarnessErrorAndNothingRuns()
    {
        Project p;
        const std::string marker = p.tree() + "/ran.txt";
        p.write("tests/test_ok.py", "def test_ok():\n    open('" + marker + "', 'w').write('x')\n");
        const ProgramOverride missing("/nonexistent/bwrap");
        const pw::core::SandboxStatus status = Sandbox::status();
        QVERIFY(!status.available);
        QVERIFY2(status.reason.find("/nonexistent/bwrap") != std::string::npos,
                 status.reason.c_str());
        RunSpec spec = p.spec(true);
        spec.selection = {"tests/test_ok.py::test_ok"};
        const RunResult r = PytestRun(spec).run();
        QCOMPARE(r.status, RunStatus::FailedToStart);
        QVERIFY(r.harnessError);
        QVERIFY(!r.sandboxed);
        QCOMPARE(r.pid, int64_t(0));
        QVERIFY2(r.harnessReason.find("sandbox") != std::string::npos, r.harnessReason.c_str());
        QVERIFY2(r.harnessReason.find("/nonexistent/bwrap") != std::string::npos,
                 r.harnessReason.c_str());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(marker)));
    }

    void sandboxSetupFailureIsAHarnessErrorNamingBwrap()
    {
        REQUIRE_SANDBOX();
        const std::string real = Sandbox::status().program;
        Project p;
        p.write("tests/test_ok.py", "def test_ok():\n    pass\n");
        // Works for the probe, fails like bwrap does for the run (exit 1, before pytest).
        const std::string fake = p.dir.path().toStdString() + "/bwrap";
        writeText(p.dir.path().toStdString(), "bwrap",
                  "#!/bin/sh\n"
                  "case \"$*\" in *pytest*)\n"
                  "  echo \"bwrap: Can't mount tmpfs on /newroot/tmp: Operation not permitted\" "
                  ">&2\n"
                  "  exit 1;;\n"
                  "esac\n"
                  "exec " +
                      real + " \"$@\"\n");
        QFile::setPermissions(QString::fromStdString(fake),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const ProgramOverride broken(fake);
        QVERIFY2(Sandbox::available(), Sandbox::status().reason.c_str());
        const RunResult r = PytestRun(p.spec(true)).run();
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.harnessError);
        QVERIFY(!r.caught());
        QVERIFY2(r.harnessReason.find("sandbox could not be set up: bwrap: Can't mount tmpfs") !=
                     std::string::npos,
                 r.harnessReason.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSandbox)
#include "tst_sandbox.moc"
