#pragma once

// Helpers shared by the run-engine tests (tst_pytestrun, tst_runpool, tst_census,
// tst_shadow): fixture Python projects written into a directory, the gates' run request,
// and process checks that read /proc.

#include "execution/PytestRun.h"
#include "execution/RunContext.h"

#include <functional>
#include <string>
#include <vector>

namespace pw::test {

// Writes `content` to `dir/relPath`, creating directories.
void writeText(const std::string &dir, const std::string &relPath, const std::string &content);

// A spec for `dir` with /usr/bin/python3 (testPython()), a 120 s timeout and `runDir`.
core::RunSpec runSpec(const std::string &treeDir, const std::string &runDir);
// The same with `python` (a pytest line's interpreter, PytestLines.h).
core::RunSpec runSpec(const std::string &treeDir, const std::string &runDir,
                      const std::string &python);

// A request for `base`..`head` of the repository at `repoRoot` as the gate tests run it:
// testPython(), fact cache `cacheDir`/facts, tree cache `cacheDir`/trees, two workers, a
// 120 s timeout per run and no sandbox.
core::RunRequest runRequest(const std::string &repoRoot, const std::string &cacheDir,
                            const std::string &base, const std::string &head,
                            const std::string &today);
// The same with `python` in place of testPython().
core::RunRequest runRequest(const std::string &repoRoot, const std::string &cacheDir,
                            const std::string &base, const std::string &head,
                            const std::string &today, const std::string &python);

// A test module whose one test starts a grandchild `sleep 600`, writes its own pid and
// the grandchild's as "<pytest pid> <sleep pid>" into `pidFile`, then sleeps 600 s.
std::string hangingTestSource(const std::string &pidFile);

// A test module whose one test starts a daemon — `sleep 600` in a session of its own,
// out of reach of a process-group kill — writes "<pytest pid> <daemon pid>" into
// `pidFile`, then sleeps 600 s when `hang`, else passes at once.
std::string daemonTestSource(const std::string &pidFile, bool hang);

// Pids read from a file written by hangingTestSource; empty until it exists.
std::vector<long> readPids(const std::string &pidFile);
// Polls `done` every 20 ms until it holds (true) or `timeoutMs` passes (false); the waits
// below are this with their condition.
bool pollUntil(const std::function<bool()> &done, int timeoutMs);
// Polls until `path` exists (true) or `timeoutMs` passes (false).
bool waitForFile(const std::string &path, int timeoutMs);
// Whether testPython() can import `module` (an optional package a test needs: coverage,
// freezegun, pytest-xdist).
bool testPythonImports(const std::string &module);

// Alive = exists and is not a zombie (an orphan's zombie waits for a reaper we do not
// control; it runs nothing).
bool isAlive(long pid);
// Live processes whose process group is `pgid`.
std::vector<long> liveGroupMembers(long pgid);
// Polls until liveGroupMembers(pgid) is empty; true when that happened within `timeoutMs`
// (processes killed with their pid namespace die a moment after the run returns).
bool waitUntilGroupGone(long pgid, int timeoutMs);
// Polls until none of `pids` is alive; true when that happened within `timeoutMs`.
bool waitUntilGone(const std::vector<long> &pids, int timeoutMs);
// Live processes (host pids) whose working directory is `dir` or below it: how a test
// finds what a sandboxed run left behind, whose own pids are its namespace's. (A process
// already exiting has no working directory left: pair it with waitUntilGroupGone.)
std::vector<long> processesWorkingIn(const std::string &dir);
// Polls until processesWorkingIn(dir) is empty; true when that happened within `timeoutMs`.
bool waitUntilNoneWorkingIn(const std::string &dir, int timeoutMs);

} // namespace pw::test
