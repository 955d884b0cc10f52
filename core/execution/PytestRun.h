#pragma once

#include "execution/JUnitReader.h"
#include "execution/RunEnvironment.h"
#include "execution/Sandbox.h"

#include <QStringList>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace pw::core {

// One pytest invocation to make (what RunPool queues).
struct RunSpec
{
    std::string treeDir; // where pytest runs: a materialised tree (TreeCache)
    // Trusted bytecode of treeDir (TreeCache's `<key>.pyc`, TreeBytecode), written on first
    // use and seeded into the run's copy; empty: the run compiles everything itself.
    std::string bytecodeDir;
    RunEnvironment env;
    std::vector<std::string> selection; // node ids or paths; empty = the whole suite
    QStringList extraArgs;              // before the selection
    int timeoutMs = 900 * 1000;         // config `timeouts` per run
    // junit.xml, home/ and tmp/ of the run; empty: a temporary directory removed after.
    std::string runDir;
    std::string arm;       // "base" / "head": carried into the result
    int infraFailPct = 50; // config `infra_fail_pct`
    // The share check needs this many reported tests: one selected test that fails is
    // a result, not an infrastructure failure.
    int infraMinTests = 5;
    int maxOutputBytes = 256 * 1024; // per stream; the tail is kept
    // Run inside bubblewrap (Sandbox): the tree and the run's directories
    // read-write, the rest read-only, a private /tmp, no network. When bwrap is missing
    // or does not work the run does not start and is a harness error, never unsandboxed.
    bool sandbox = false;
};

enum class RunStatus
{
    Completed,     // pytest exited by itself (any exit code)
    TimedOut,      // killed (with its process group) at the timeout
    Crashed,       // died from a signal it was not sent by us
    Cancelled,     // killed by cancel()
    FailedToStart, // the interpreter could not be started
};

const char *runStatusName(RunStatus status); // "completed", "timed_out", …

struct RunResult
{
    std::string arm;
    RunStatus status = RunStatus::FailedToStart;
    int exitCode = -1; // pytest's, when Completed
    int64_t durationMs = 0;
    int64_t pid = 0;     // of pytest (bwrap when sandboxed), which is also its process group id
    std::string command; // the exact shell line that ran (with its scratch files and sandbox)
    std::string replay;  // the copyable one to repeat it by hand (replayCommand)
    std::string envDigest;
    // The env digest with PYTHONHASHSEED 0: equal for every run of one environment,
    // whatever its seed (runs of different seeds are compared by it across shards).
    std::string seedlessDigest;
    // The interpreter that ran it, with its Python and pytest versions:
    // "/repo/.venv/bin/python (Python 3.11.2, pytest 8.4.2)".
    std::string interpreter;
    uint32_t seed = 0;      // PYTHONHASHSEED of the run
    bool sandboxed = false; // ran inside the sandbox (outcomes may be sandboxBlocked)
    // Processes that outlived the run outside its process group (a daemon in a session of its
    // own) and were killed by its token (StrayProcesses); 0 in the sandbox, which needs none.
    int strayProcesses = 0;
    // Files of trusted bytecode the run's copy started with (RunSpec::bytecodeDir).
    int bytecodeSeeded = 0;
    // From the JUnit file; without one, every selected node as HarnessError. Selected
    // node ids the run never reported are NotCollected.
    std::vector<NodeOutcome> outcomes;
    // Exit 2–5 or another unexpected code, timeout, crash, cancel, no or
    // broken JUnit, or more than infra_fail_pct failing. Such a run's outcomes are never
    // evidence for or against a test.
    bool harnessError = true;
    std::string harnessReason;
    // What pytest said broke before the tests ran, when it said so (part of harnessReason):
    // "collection error in tests/t.py: ModuleNotFoundError: …", "conftest … failed to load:
    // …", a plugin that does not import. Empty otherwise.
    std::string errorDetail;
    std::string stdoutTail;
    std::string stderrTail;
    int64_t outputDropped = 0; // bytes cut from the front of both streams

    bool evidence() const { return !harnessError; }
    // A test failed (exit 1 with a failing test: tests stopped by the per-test timeout
    // alone are harness errors, not failures).
    bool caught() const
    {
        return evidence() && exitCode == 1 && count(Outcome::Fail) + count(Outcome::Error) > 0;
    }
    int count(Outcome outcome) const;
};

// A shell line that reruns `spec` by hand: its pinned environment, plugin and seed, without
// the run's scratch files (outcome rows, home, tmp — deleted when a gate ends) and without
// the sandbox; JUnit to /dev/null.
std::string replayCommand(const RunSpec &spec);

// What a sandboxed run of `env` in `treeDir` may touch: the tree, `runDir`, the private
// home and temp directories and the plugin's output directories read-write; the plugin,
// the tree's import path and whatever the interpreter needs (a wrapper's directory, the
// interpreter behind it, a venv and its base, sys.path) read-only. Probes the interpreter
// (cached).
SandboxPolicy runSandboxPolicy(const std::string &treeDir, const std::string &runDir,
                               const RunEnvironment &env);

// Runs pytest once, in its own session and process group, with the pinned environment.
// The timeout and cancel() kill the whole group (SIGKILL to -pgid), so a test's
// subprocesses die with it; after a normal exit, leftovers of the group are killed too.
// (A process that starts its own session escapes the group; only the sandbox, whose pid
// namespace dies with bwrap's child, reaches it.)
class PytestRun
{
public:
    explicit PytestRun(RunSpec spec) : m_spec(std::move(spec)) {}

    // Blocking; call once, from any thread. Throws Error::input when the interpreter is
    // missing or has no pytest (the env digest needs it) and Error::harness when the
    // bundled plugin cannot be staged — never for what pytest does.
    RunResult run();
    // Thread-safe; before run() it makes run() return Cancelled at once.
    void cancel() { m_cancel.store(true); }

    static void killProcessGroup(int64_t pgid);

private:
    RunResult execute(const std::string &runDir);

    RunSpec m_spec;
    std::atomic<bool> m_cancel{false};
};

} // namespace pw::core
