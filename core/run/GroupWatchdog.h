#pragma once

#include <cstdint>

namespace pw::core {

// Kills the process groups of the runs when this process dies, however it dies (SIGKILL
// included, which runs no handler and no destructor). Without the sandbox (whose bwrap has
// --die-with-parent and whose pid namespace takes every process of the run with it),
// pytest's own PR_SET_PDEATHSIG (PytestRun) reaches pytest only, not the processes it
// started; this reaches its whole process group.
//
// A small process forked once, in its own session with every signal the terminal sends
// ignored, reads process-group ids from a socket whose other end only this process holds
// (close-on-exec, so no run inherits it). When the socket reports end of file — this process
// has exited — it SIGKILLs every group still registered, and exits. A process a test
// started in a session of its own (a daemon) is not in the group: it is the stray-process
// scan's (StrayProcesses), which runs after each run while this process lives.
namespace watchdog {

// Registers a run's process group (its leader's pid). Returns false when the watchdog
// could not be started (then only PR_SET_PDEATHSIG holds). Thread-safe.
bool watch(int64_t group);
// The group has been killed and reaped: forget it (its id may be reused).
void release(int64_t group);

} // namespace watchdog
} // namespace pw::core
