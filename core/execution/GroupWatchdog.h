#pragma once

#include <cstdint>
#include <string>

namespace pw::core {

// Kills the runs when this process dies, however it dies (SIGKILL included, which runs no
// handler and no destructor). Without the sandbox (whose bwrap has --die-with-parent and
// whose pid namespace takes every process of the run with it), pytest's own
// PR_SET_PDEATHSIG (PytestRun) reaches pytest only, not the processes it started; this
// reaches its whole process group, and every process that left the group but still holds
// the run's token (a daemon a test started in a session of its own, StrayProcesses).
//
// A small process forked once, in its own session with every signal the terminal sends
// ignored, reads (group, token) records from a socket whose other end only this process
// holds (close-on-exec, so no run inherits it). When the socket reports end of file — this
// process has exited — it SIGKILLs every group still registered, then scans /proc for
// their tokens (stray::killPass, until a pass finds none), and exits. While this process
// lives, each run's own end does both (PytestRun), and the watchdog only forgets the run.
namespace watchdog {

// Registers a run's process group (its leader's pid) and the token in its environment
// (empty: none to look for, as in the sandbox). Returns false when the watchdog could not
// be started (then only PR_SET_PDEATHSIG holds). Thread-safe.
bool watch(int64_t group, const std::string &token);
// The group has been killed and reaped and its token's holders killed: forget them (the
// group's id may be reused).
void release(int64_t group);

} // namespace watchdog
} // namespace pw::core
