#pragma once

#include "dynamic/Attribution.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pw::core {

// The four-cell reproduction matrix of one test on one tree. The scoped suite is
// the directory of the test's file (pytest recurses into it; "." for a file at the root):
// wide enough that a sibling module's leftovers and import-time side effects show, small
// enough to run R times.
//
//   solo     the node alone, seed 0 (pytest's order), a fresh interpreter: 1 run.
//   order    the scoped suite, shuffled with seeds 1..R (R = config `order_seeds`), in one
//            process; only the node's outcome counts: R runs.
//   isolate  the scoped suite collected in one process (every module of it imported, its
//            conftests loaded), then the node alone in a child forked for it before any
//            other test ran (the bundled plugin's fork server, random seeded 1..R): R
//            trials in 1 run. It differs from solo by the suite's import-time state and
//            from order by having no earlier test in the process.
//   clock    the node alone with TZ = a far-off zone (Pacific/Kiritimati, UTC+14) and the
//            clock frozen at 2038-01-19T12:00:00Z (after the 32-bit time_t overflow, on
//            another local date than UTC) through freezegun or time_machine — only when
//            the project can import one of them; otherwise `unknown`, never a pass.
struct CellsRequest
{
    static constexpr const char *kFreezeTime = "2038-01-19T12:00:00+00:00";
    static constexpr const char *kClockZone = "Pacific/Kiritimati";

    std::string test;
    Arm arm = Arm::Head;
    std::optional<int> orderSeeds; // R; default config `order_seeds`
    std::string freezeTime = kFreezeTime;
    std::string clockZone = kClockZone;
    // The last word on each run before it is queued (tests); `cell` is its cell's name.
    std::function<void(const std::string &cell, RunSpec &)> adjust;
    // Write the evidence record (schema patchwitness.cells/1, CellsRecord) to
    // <ledger dir>/runs/ when the run finished and the tree has the node.
    bool record = true;
    // Run only this shard's units (0 solo, 1..R the order seeds, R+1 isolate, R+2
    // clock), attribute nothing, and write the shard ledger (ShardLedger) instead of the
    // record: to `shardOut`, or into <ledger dir>/runs/ when it is empty.
    std::optional<Shard> shard;
    std::string shardOut;
};

enum class CellStatus
{
    Pass,   // every trial that is evidence passed (at least one did)
    Fail,   // at least one trial failed
    Unknown // unsupported, or no trial is evidence (harness errors, not collected, skipped)
};
const char *cellStatusName(CellStatus status); // "pass", "fail", "unknown"

struct ReproCell
{
    std::string name;        // solo, order, isolate, clock
    std::string description; // what the cell ran
    CellStatus status = CellStatus::Unknown;
    std::vector<NodeRun> trials; // one per run (isolate: one per forked replay)
    int evidence = 0;
    int fails = 0;
    int harnessErrors = 0;
    std::set<uint32_t> failingSeeds;
    std::set<uint32_t> passingSeeds;
    std::string unknownReason; // why the cell is unknown
    std::string replay;        // shell line that reruns the cell's (first failing) run
    // Not run because the verdict was decided without it (solo failed: a broken test); its
    // unknownReason says so ("not run: solo already decided …").
    bool notRun = false;

    int runs() const { return int(trials.size()); }
};

// One attribution the matrix supports; the first of a result is the main one.
struct CellFinding
{
    // solo, order, isolate, leakage, clock (a failing cell), none (not reproduced),
    // unknown (no evidence) — the freeze form's `attribution`.
    std::string attribution;
    std::string sentence;
};

struct ReproCellsResult
{
    std::string test;
    Arm arm = Arm::Head;
    std::string revision;     // the arm's revision spec
    std::string commit;       // the arm's commit
    std::string scope;        // the scoped suite's directory
    RunProvenance provenance; // the interpreter and each tree's imports
    int orderSeeds = 0;
    std::string freezeTime;
    std::string clockZone;
    std::vector<ReproCell> cells; // solo, order, isolate, clock
    std::vector<CellFinding> findings;
    bool interrupted = false;
    int cancelledRuns = 0;
    bool notCollected = false;  // the tree has no such node
    std::string recordPath;     // the evidence record (or shard ledger) written, if any
    std::string recordError;    // why writing it failed
    std::optional<Shard> shard; // a shard's runs only: no attribution until merged
    // The freeze rule (FreezeCase) on this matrix and the test's attribution records in
    // runs/: set by `run` for a finished matrix of a collected node.
    std::optional<FreezeCase> freeze;

    const ReproCell &cell(const std::string &name) const; // one of the four
    bool reproduced() const;                              // a cell failed
    bool noEvidence() const;                              // solo, order and isolate are all unknown
};

class ReproCells
{
public:
    // The shape of every dynamic gate (DynamicGate.h). The solo run goes to `pool` first, then all
    // the others at once — unless solo failed, which decides the verdict (broken test): then no
    // other cell runs (each is unknown, `notRun`; a shard still runs its units). `progress` is
    // called from worker threads. Throws Error::input for a bad node id or R < 1, and for a node
    // the tree does not collect (the solo run says so before the rest is queued).
    static ReproCellsResult run(const RunContext &ctx, const CellsRequest &request, RunPool &pool,
                                const NodeRunCallback &progress = {});

    // The findings from the cells (pure; `run` calls it).
    static void attribute(ReproCellsResult &result);

    // The four cells in order with what they run, from the result's scope, R, zone and
    // freeze time (run and the shard merge call it before adding trials).
    static void describe(ReproCellsResult &result);
    // Each cell's replay: its first failing trial's command, else its first trial's.
    static void pickReplays(ReproCellsResult &result);
    // Unit of the sweep a trial belongs to (solo 0, order 1..R, isolate R+1, clock
    // R+2), from its cell and index.
    static int unitOf(const std::string &cell, int index, int orderSeeds);

    // The directory of the node's file: "tests/unit/test_x.py::t" → "tests/unit"; "." at
    // the root.
    static std::string scopeOf(const std::string &nodeId);
};

} // namespace pw::core
