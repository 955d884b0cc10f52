#pragma once

#include <string>
#include <sys/types.h>

namespace pw::core {

// What a run leaves behind when there is no sandbox (whose pid namespace takes everything
// with it): a daemon that started a session of its own is out of reach of the run's
// process-group kill, but it keeps the environment it was started with. Every run's
// process environment carries kRunTokenVariable=<a token of its own> (never part of the
// env digest or the replay command); after the run, whatever process still holds the
// token is killed — and so it is when this process dies before the run ends, SIGKILL
// included: the watchdog (GroupWatchdog) knows the running runs' tokens and scans for
// them then. A process that cleared its environment is not found (README).
namespace stray {

inline constexpr const char *kRunTokenVariable = "PATCHWITNESS_RUN_TOKEN";
// Longer than any token newToken() makes, with its terminating NUL.
inline constexpr int kTokenCapacity = 56;

// A token no other run has: "<pid>-<random hex>".
std::string newToken();

// SIGKILLs every process of this user whose environment holds `token` — not this process,
// nor a member of process group `group` (the run's own, already killed, maybe still
// exiting) — scanning /proc again until a pass finds none (a daemon may fork while it is
// being killed; at most kMaxPasses passes). The signal goes through a pidfd opened before
// the environment is read, so a pid reused meanwhile is never hit. Returns how many it
// killed; 0 where /proc is not Linux's.
int killHolders(const std::string &token, long long group);

inline constexpr int kMaxPasses = 20;

// One pass of that scan, async-signal-safe (system calls and fixed buffers only: no
// allocation, no lock), so that a forked child of a threaded process — the watchdog, after
// this process died — can run it: every process but the caller and the members of
// `group` (> 1; else none is skipped) whose environment has the entry
// kRunTokenVariable=<one of `tokens[0..tokenCount)`> is SIGKILLed. `killed[0..*count)`
// are pids killed before: one found again is no new find; a new one is appended while
// `capacity` allows. Returns how many new ones it killed.
int killPass(const char *const tokens[], int tokenCount, long long group, pid_t killed[],
             int capacity, int *count);

} // namespace stray
} // namespace pw::core
