#pragma once

#include <string>

namespace pw::core {

// What a run leaves behind when there is no sandbox (whose pid namespace takes everything
// with it): a daemon that started a session of its own is out of reach of the run's
// process-group kill, but it keeps the environment it was started with. Every run's
// process environment carries kRunTokenVariable=<a token of its own> (never part of the
// env digest or the replay command); after the run, whatever process still holds the
// token is killed. A process that cleared its environment is not found (README).
namespace stray {

inline constexpr const char *kRunTokenVariable = "PATCHWITNESS_RUN_TOKEN";

// A token no other run has: "<pid>-<random hex>".
std::string newToken();

// SIGKILLs every process of this user whose environment holds `token` — not this process,
// nor a member of process group `group` (the run's own, already killed, maybe still
// exiting) — scanning /proc again until a pass finds none (a daemon may fork while it is
// being killed; at most 20 passes). The signal goes through a pidfd opened before the
// environment is read, so a pid reused meanwhile is never hit. Returns how many it killed;
// 0 where /proc is not Linux's.
int killHolders(const std::string &token, long long group);

} // namespace stray
} // namespace pw::core
