#pragma once

#include "audit/Finding.h"
#include "dynamic/DiffCoverage.h"
#include "execution/RunContext.h"
#include "execution/RunPool.h"
#include "execution/Shard.h"
#include "ledger/RunEvidence.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pw::core {

// What one pytest run says about the node under study.
struct NodeRun
{
    std::string label; // "base" / "head", or the reproduction cell
    uint32_t seed = 0; // PYTHONHASHSEED and --pw-seed of the run (a fork-server replay: its seed)
    int index = 0;     // position within its arm or cell, from 0
    // Pass, Fail, Error (a setup/teardown error: counts as a failure), Skipped, NotCollected
    // (pytest did not find the node) or HarnessError (the run is no evidence).
    Outcome outcome = Outcome::HarnessError;
    double seconds = 0;    // the whole run's wall time
    std::string command;   // the run's own shell line (RunResult::command)
    std::string envDigest; // runs with different digests are never compared
    // RunResult::seedlessDigest ("" when read from an older shard ledger)
    std::string seedlessDigest;
    std::string reason; // why: the harness reason, the failure message, what was not found

    bool failed() const { return outcome == Outcome::Fail || outcome == Outcome::Error; }
    // Pass, fail, error or skip: the node ran in a trustworthy run.
    bool evidence() const
    {
        return outcome != Outcome::HarnessError && outcome != Outcome::NotCollected;
    }
};

// One finished run, for streaming (CLI progress lines, GUI rows).
struct NodeRunProgress
{
    int done = 0;
    int total = 0;
    NodeRun run;
    std::string seeds;  // overrides "seed N" when one run holds several trials ("1..4")
    std::string detail; // e.g. "2/4 forked replays failed"

    // "3/10 head seed 2: fail (0.4 s)"
    std::string line() const;
};
using NodeRunCallback = std::function<void(const NodeRunProgress &)>;

// The node's outcome in `result`: its JUnit row; a harness error when the run is no
// evidence — except that pytest's own "not found" (exit 4) or "nothing collected" (exit 5)
// means the tree has no such node (NotCollected). A node the run did not report is
// NotCollected.
NodeRun nodeRun(const RunResult &result, const std::string &nodeId);

// Refuses (Error::input) what cannot be a pytest node id of this repository: no "::", an
// option, an absolute path or "..", or a file that exists in neither tree.
void checkNodeId(const RunContext &ctx, const std::string &nodeId);

struct AttributionRequest
{
    // matched: every run at `seed` (default 0: pytest's order, PYTHONHASHSEED=0) on both
    // trees, repeated `runs` times; swept: seeds 0..runs-1 on both trees.
    enum class Mode
    {
        Matched,
        Swept
    };
    std::string test; // pytest node id
    Mode mode = Mode::Matched;
    std::optional<int> runs; // per tree; default config `replays` (matched) / `seeds` (swept)
    uint32_t seed = 0;       // matched only
    bool record = true;      // write the evidence record to <ledger dir>/runs/
    // The last word on each run before it is queued (tests; an extra variable).
    std::function<void(Arm, RunSpec &)> adjust;
    // Diff coverage: when head failed (PATCH_INDUCED, PRE_EXISTING, HARNESS_ENV),
    // rerun the node once at head at the witness seed with --pw-cover (see DiffCoverage).
    bool coverage = true;
    // Run only this shard's base/head pairs (unit i = the i-th pair), judge nothing,
    // and write the shard ledger (ShardLedger) instead of the evidence record: to
    // `shardOut`, or into <ledger dir>/runs/ when it is empty.
    std::optional<Shard> shard;
    std::string shardOut;
};

const char *modeName(AttributionRequest::Mode mode); // "matched", "swept"

// The attribution table, from the fail counts b (base) and h (head).
enum class AttributionVerdict
{
    NoRepro,      // b = 0, h = 0
    PreExisting,  // b > 0, h > 0, the same failing seeds
    HarnessEnv,   // b > 0, h > 0, different failing seeds
    PatchInduced, // b = 0, h > 0
    PatchMasks    // b > 0, h = 0
};
const char *attributionVerdictName(AttributionVerdict verdict); // "NO_REPRO", …

// The runs of one tree and what they add up to. Harness errors and not-collected runs are
// no evidence: they are listed, never counted as passes or failures.
struct ArmEvidence
{
    std::vector<NodeRun> runs; // in seed/repeat order
    int evidence = 0;          // runs that are evidence
    int fails = 0;             // fail or error
    int skipped = 0;
    int harnessErrors = 0;
    int notCollected = 0;
    std::set<uint32_t> failingSeeds;

    // Not collected on every run that finished (and no run that is evidence).
    bool absent() const { return notCollected > 0 && evidence == 0; }
};

struct AttributionResult
{
    std::string test;
    AttributionRequest::Mode mode = AttributionRequest::Mode::Matched;
    int runsPerArm = 0;
    std::vector<uint32_t> seeds; // the distinct seeds asked for
    std::string baseSpec, headSpec;
    std::string baseCommit, headCommit;
    ArmEvidence base, head;

    std::optional<AttributionVerdict> verdict; // none: nothing may be compared
    std::string sentence;                      // for humans: the verdict, or why there is none
    std::vector<std::string> notes;            // harness errors with reasons, digest remarks
    std::optional<uint32_t> witnessSeed;       // first failing seed at head
    std::string envDigest; // of the replay run; "" when base and head digests differ
    bool digestsMatch = true;
    RunProvenance provenance; // the interpreter and each tree's imports
    std::string replay;       // shell line: the witness run at head, else the first head run
    // The same run for any checkout of the repository, where `replay` names this machine's
    // tree cache, plugin directory and PATH: "patchwitness-cli attribute 'T' --base <sha>
    // --head <sha> --seed S --no-record". Empty unless both trees are commits (a working
    // tree or a patch file is this checkout's). The record, and so a freeze, carries it as
    // `replay` when there is one, else the shell line.
    std::string portableReplay;
    bool interrupted = false; // a run was cancelled: no verdict, nothing recorded
    int cancelledRuns = 0;
    // Neither tree has the node: check its id (run() refuses such a node after its first
    // pair; judge() still says it of runs merged from shards).
    bool notCollectedAnywhere = false;
    std::string recordPath;     // the evidence record written, if any
    std::string recordError;    // why writing it failed
    std::optional<Shard> shard; // a shard's runs only: tallies, no verdict
    // Did the failing test execute the patch's changed lines? (none: not asked,
    // or head did not fail)
    std::optional<DiffCoverageResult> coverage;
    // The freeze rule (FreezeCase) on this result's record and what runs/ holds for the test
    // (its newest cells record): set by `run` for a result with a verdict.
    std::optional<FreezeCase> freeze;

    // PRE_EXISTING, and no record the freeze rule reads forbids it (`freeze`: a cells record
    // that says broken test). It may still need evidence first (freeze->stance()).
    bool freezeAllowed() const
    {
        return verdict == AttributionVerdict::PreExisting && !(freeze && freeze->refused());
    }
    // The result as a finding of the gate report (gate "run", code "A-" and the
    // verdict name, or "A-NONE"): PATCH_INDUCED and PATCH_MASKS block, HARNESS_ENV and no
    // verdict review, PRE_EXISTING and NO_REPRO info — the CLI's exit codes 1, 2 and 0,
    // except that the CLI exits 4 where a tree's runs were all no evidence (review here:
    // the report has no "harness error" severity). nullopt for a shard's runs and an
    // interrupted job: they judge nothing.
    std::optional<Finding> finding() const;
    // The schema patchwitness.attribution/1 record of this result, recorded on `today`.
    AttributionRecord record(const std::string &today) const;
};

// Base/head attribution: runs the node on both trees, interleaved (base, head,
// base, head, …) on `pool` so machine noise hits both alike, and judges the fail counts.
class Attribution
{
public:
    // The shape of every dynamic gate (DynamicGate.h); `progress` gets each node run. Throws
    // Error::input for a bad node id or runs < 1, and for a node neither tree collects: the
    // first base/head pair runs alone and answers that before the rest is queued. With a
    // verdict, not interrupted and request.record, writes the record (writeRecord) into
    // ctx.runsDir().
    static AttributionResult run(const RunContext &ctx, const AttributionRequest &request,
                                 RunPool &pool, const NodeRunCallback &progress = {});

    // Fills the tallies, verdict, sentence, notes, witness seed, digest and replay of a
    // result whose runs are in place (pure; `run` calls it).
    static void judge(AttributionResult &result);

    // Diff coverage, after judging: with a verdict where head failed, measures the
    // witness seed's coverage (DiffCoverage::measure) into result.coverage and adds it to
    // the sentence (did not touch the change) or the notes. A separate step: `run` calls it.
    // `progress` hears the rerun as one more head run (detail "diff coverage").
    static void addCoverage(const RunContext &ctx, const AttributionRequest &request, RunPool &pool,
                            AttributionResult &result, const NodeRunCallback &progress = {});

    // `<runsDir>/<recorded>-<test, sanitised>-<mode>.json`, or …_02.json, …_03.json when
    // a file of that name exists (never overwritten: the later record of a day sorts
    // after the earlier, as AttributionRecord::latestFor expects); written atomically.
    // Returns the path; throws Error::input when it cannot be written.
    static std::string writeRecord(const std::string &runsDir, const AttributionRecord &record);
};

} // namespace pw::core
