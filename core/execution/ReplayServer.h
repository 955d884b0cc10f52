#pragma once

#include "execution/OutcomeRows.h"
#include "execution/PytestRun.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pw::core {

class RunPool;

constexpr size_t kTrialsPerShard = 32;     // fewest replays worth one more collection
constexpr int kFreshStartupMs = 10 * 1000; // a fresh replay run's start-up allowance

// Isolated replays: every (node, seed, replay) runs in a process no other
// replay ran in, seeded as a fresh `--pw-seed <seed>` run of that node alone would be.
struct ReplayRequest
{
    // Tree, environment (python, plugins, hash seed, sandbox), arm, and the timeout of
    // one run: a fork-server run holds many replays (size it for them; each replay has
    // its own timeout below). runDir: the runs' directories go below it; empty: a
    // temporary directory removed after. Witness options, selection and extraArgs are
    // set per run.
    RunSpec base;
    std::vector<std::string> nodeIds; // distinct; each names one item ("f.py::test_x[1]")
    std::vector<uint32_t> seeds;      // distinct
    int replays = 1;
    int perReplayTimeoutMs = 60 * 1000; // 0: none (the run's timeout still holds)
    // The trial budget over the whole matrix, counted in file, node, seed, replay
    // order: trials past it are HarnessError "not run: trial budget exhausted". 0: none.
    int budget = 0;
    bool probe = false; // state probe: the kinds of leak rows land in the cells
    // Diagnostics only: the replays of a server run one after another in its own
    // process, with nothing isolating them (what the fork prevents).
    bool inProcess = false;
};

struct ReplayCell
{
    Outcome outcome = Outcome::HarnessError;
    std::string detail; // why a HarnessError; which phase failed for a Fail
    double seconds = 0; // setup + call + teardown
    std::vector<std::string> leaks;
    int run = -1; // index into ReplayMatrix::runs of the pytest run that held it; -1: none
};

struct ReplayMatrix
{
    std::vector<std::string> nodeIds;
    std::vector<uint32_t> seeds;
    int replays = 0;
    std::vector<ReplayCell> cells; // node-major: [node][seed][replay]
    std::vector<RunResult> runs;   // the pytest runs behind the cells
    // Fork servers only: why a server stopped early and the rest of its plan ran in a new
    // one ("replay 0 of f.py::test_x at seed 3 wrote tests/data.txt"), in order.
    std::vector<std::string> restarts;
    bool budgetExhausted = false;
    int64_t durationMs = 0; // wall clock of the whole matrix

    const ReplayCell &at(size_t node, size_t seed, int replay) const
    {
        return cells[(node * seeds.size() + seed) * size_t(replays) + size_t(replay)];
    }
    ReplayCell &at(size_t node, size_t seed, int replay)
    {
        return cells[(node * seeds.size() + seed) * size_t(replays) + size_t(replay)];
    }
    // Fail cells of (node, seed) out of `replays`: the seed journal's "fails out of K".
    int fails(size_t node, size_t seed) const;
    int count(Outcome outcome) const;
};

// The fork server: PytestRuns with the plugin's `--pw-replays` plan, collected once, then
// a forked child per replay. One run per test file of `nodeIds` (the file's nodes
// selected, so a replay sees the imports a fresh run of its node would, and no other
// file's); a large file's seeds are split over up to pool.workers() runs side by side
// (kTrialsPerShard replays at least each), as fresh runs share the pool. The replays of a
// server share its copy of the tree and its HOME, so a replay that writes into either
// (the plugin watches them) stops the server after it, and the rest of the plan runs in a
// new server in a fresh copy: every replay starts from what a fresh run would (restarts
// says why each stop happened; each child also has a TMPDIR of its own). A child killed
// by a signal, exiting early or outliving perReplayTimeoutMs is a HarnessError cell; the
// others complete. Cells a run never reached (it timed out, crashed, or failed to
// collect) are HarnessError with the run's harness reason. Blocking; cancel with
// pool.cancelAll(). Throws what PytestRun throws (Error::input: no interpreter) and
// Error::input for an empty or repeating request or a plan that cannot be written.
ReplayMatrix forkReplays(const ReplayRequest &request, RunPool &pool);

// A fork-server run that ended, for progress: which request, its nodes and seeds, and
// what its replays said.
struct ReplayServerRun
{
    size_t request = 0; // index into the requests
    std::vector<std::string> nodeIds;
    std::vector<uint32_t> seeds;
    int trials = 0; // replays it reported
    int fails = 0;
    int errors = 0;              // harness-error replays
    std::vector<Trial> reported; // the replays it reported (replay >= 0), in its rows' order
    const RunResult *result = nullptr;
};
// `done` of `total` runs ended (the total grows when a server stops early and its plan
// continues in a new one). Called from pool workers, one call at a time.
using ReplayProgress = std::function<void(int done, int total, const ReplayServerRun &run)>;
// Several matrices at once (a base and a head tree): every request's servers dealt
// round-robin into one pool (b, h, b, h, …) so both trees meet the same machine noise;
// each matrix as forkReplays(request) makes it, in the order of `requests`.
std::vector<ReplayMatrix> forkReplays(const std::vector<ReplayRequest> &requests, RunPool &pool,
                                      const ReplayProgress &progress = {});

// The reference: one interpreter per (node, seed, replay), the node selected alone with
// `--pw-seed <seed>`, through `pool`; each run's timeout is perReplayTimeoutMs plus
// interpreter start-up and collection (kFreshStartupMs). A run that did not end by itself
// with exit 0 or 1 is a HarnessError cell. Same matrix, cell by cell.
ReplayMatrix freshReplays(const ReplayRequest &request, RunPool &pool);

} // namespace pw::core
