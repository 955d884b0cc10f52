#pragma once

#include "audit/Finding.h"
#include "execution/ReplayServer.h"
#include "execution/RunContext.h"
#include "execution/RunPool.h"
#include "execution/RunProvenance.h"
#include "execution/Shard.h"
#include "ledger/RunEvidence.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pw::core {

// One test's seed matrix on one tree in the seeds' compatible format (seed 000's
// seed_matrix.py writes it, triage.py reads two of them), one file per test and tree in
// `<ledger dir>/runs/`:
//
//   {"impl": "<tree>::<test>", "prop": "<test>", "replays": 5, "seeds": {"0": 0, "1": 5}}
//
// `seeds` maps each seed to the fails out of `replays`.
struct SeedLedger
{
    std::string file; // origin, as named in errors
    std::string impl; // "<tree>::<test>": the tree is a commit (40 hex) or a revision spec
    std::string prop; // the test (pytest node id)
    int replays = 0;
    std::map<long long, int> seeds; // seed → fails out of replays
    // Fields this reader does not know: (key, JSON text), in file order, written back as is.
    std::vector<std::pair<std::string, std::string>> unknownFields;

    // Throws Error::input "origin:line:column: message" for JSON that does not parse, and
    // "origin: field: message" for a missing or mistyped field: `replays` at least 1, each
    // seed a non-negative integer (as a string key), each count 0..replays. `impl` and
    // `prop` may be absent (an older script's file): then they are "".
    static SeedLedger parse(const std::string &text, const std::string &origin);
    static SeedLedger read(const std::string &path); // parse() of the file; unreadable: input
    // Two spaces of indent, impl/prop/replays/seeds (in seed order), then the unknown
    // fields; a final newline. parse(format()) gives it back.
    std::string format() const;
};

// SPEC 5.2's decision table, in this order (first match wins), over the seeds both ledgers
// share:
//   1. every patched cell 0                     → NO_SIGNAL ("green on the patch is not
//                                                  evidence");
//   2. a seed fails K/K patched and 0 baseline  → PATCH_BUG, witness = the first such seed;
//   3. a seed fails 0 < f < K patched           → FLAKY_ORACLE (not freezable yet);
//   4. a seed fails patched (and baseline)      → PRE_EXISTING, witness = the first such seed;
//   5. else                                     → NEEDS_MANUAL_REVIEW.
// Over complete ledgers rule 5 is never reached. A matrix run whose cells are not all
// evidence (harness errors, a budget) adds what it could not observe: a verdict that
// speaks for every seed (NO_SIGNAL, PRE_EXISTING) cannot be given then, and is
// NEEDS_MANUAL_REVIEW naming the seeds; PATCH_BUG and FLAKY_ORACLE rest on the cells seen.
enum class Triage
{
    NoSignal,
    PatchBug,
    FlakyOracle,
    PreExisting,
    NeedsManualReview
};
const char *triageName(Triage triage); // "NO_SIGNAL", "PATCH_BUG", …
// What a verdict asks of the reviewer: PATCH_BUG blocks, FLAKY_ORACLE and
// NEEDS_MANUAL_REVIEW ask for review, PRE_EXISTING and NO_SIGNAL inform. The gate report's
// M-* findings and the heatmap's colours both read it.
Severity triageSeverity(Triage triage);

struct TriageResult
{
    std::optional<Triage> triage;         // none: no seed to compare (the reason says why)
    std::optional<long long> witnessSeed; // PATCH_BUG and PRE_EXISTING
    std::optional<long long> flakySeed;   // FLAKY_ORACLE: the first seed with 0 < f < K
    // The seeds' line after the verdict: "witness seed=3 (5/5 patched, 0/5 baseline)",
    // "green on the patch is not evidence", …; or why there is no triage.
    std::string message;
    std::vector<long long> seedsCompared; // ascending

    // "PATCH_BUG   witness seed=3 (5/5 patched, 0/5 baseline)": what triage.py prints.
    std::string line() const;
};

// One seed of one test on both trees.
struct TriageCell
{
    long long seed = 0;
    int baseFails = 0;
    int headFails = 0;
};

// The table over `cells` (ascending seeds), with K = `headReplays` for "K/K" and
// `baseReplays` in messages. `unobserved`: seeds left out because a tree's replays there
// were not all evidence, named in NEEDS_MANUAL_REVIEW's message ("seeds 3, 7: …").
TriageResult triageCells(const std::vector<TriageCell> &cells, int baseReplays, int headReplays,
                         const std::vector<long long> &unobserved = {},
                         const std::string &unobservedWhy = {});
// triage.py: the table over the seeds `base` and `patched` share. No shared seed: no
// triage ("no seed in common: base has 0..19, patched 20..39").
TriageResult triage(const SeedLedger &base, const SeedLedger &patched);

// "0..19" for a run of seeds, else "3" or "0, 4, 9"; "none" for no seed: a list of seeds
// as messages name it.
std::string seedsText(const std::vector<long long> &seeds);

// ---- the matrix run ------------------------------------------------------------------

struct MatrixRequest
{
    std::vector<std::string> tests;                // pytest node ids, distinct
    std::optional<int> seeds;                      // N: seeds 0..N-1; default config `seeds`
    std::optional<std::vector<uint32_t>> seedList; // exactly these seeds (a cell's replay)
    std::optional<int> replays;                    // K; default config `replays`
    bool record = true;                            // write the ledgers and the record into runs/
    // One CI job's part (`--shard i/n`): the units are the seeds (in seedsFor order, dealt
    // round-robin), each shard runs every test at its seeds on both trees and writes a shard
    // ledger (kind "matrix") instead of a triage; `merge` joins them. `shardOut`: the
    // ledger's path (default: into runs/).
    std::optional<Shard> shard;
    std::string shardOut;

    // The seeds the matrix runs: seedList, else 0..seeds-1 (default config `seeds`). Throws
    // Error::input for fewer than one seed or a repeated one. The run and the heatmap's
    // shape both ask here, so that the two cannot differ.
    std::vector<uint32_t> seedsFor(const Config &config) const;
};

// One test's cells on one tree.
struct MatrixTree
{
    // Per seed (MatrixResult::seeds order): fails out of K, and the replays that were no
    // evidence (harness errors, not collected, not run).
    std::vector<int> fails, errors;
    // Per seed: the pytest run (index into MatrixResult::runs) that held its first failing
    // replay, else its first replay; -1 when no run held it (the file is not on the tree).
    std::vector<int> runs;
    bool collected = true; // false: not collected on any replay
    // The first failure ("seed 3: call failed") and the first replay that was no evidence
    // ("seed 4: run timed_out").
    std::string detail, problem;
    std::string ledger; // path of the compatible-format file, if written
    // Each cell's reproduction: the pytest line of a fresh run of the test alone at that
    // seed, in the pinned environment the replays had (per seed).
    std::vector<std::string> commands;
};

// One test's matrix on both trees.
struct MatrixTest
{
    std::string test;
    MatrixTree base, head;
    TriageResult triage;
    // Why there is no triage, or what it rests on beyond the table ("seed 4: 2 of 5 head
    // replays were harness errors: run timed_out").
    std::string reason;

    MatrixTree &tree(Arm arm) { return arm == Arm::Base ? base : head; }
    const MatrixTree &tree(Arm arm) const { return arm == Arm::Base ? base : head; }
};

struct MatrixResult
{
    std::vector<uint32_t> seeds;
    int replays = 0;
    std::string baseSpec, headSpec, baseCommit, headCommit;
    std::string envDigest; // of every replay (PYTHONHASHSEED 0 throughout)
    // The digests, when the replays had more than one (then no test is triaged).
    std::string digestConflict;
    RunProvenance provenance;
    std::vector<MatrixTest> tests;
    std::vector<RunResult> runs;       // the pytest runs behind the cells (base's, then head's)
    std::vector<std::string> restarts; // fork servers stopped early, and why
    bool interrupted = false;          // cancelled: no triage, nothing recorded
    bool budgetExhausted = false;
    int64_t durationMs = 0;
    int serverRuns = 0;          // pytest runs behind the cells (collections)
    std::string recordPath;      // the patchwitness.matrix/1 record, if written
    std::string recordError;     // why writing it (or a ledger) failed
    std::string portableCommand; // the matrix again from any checkout ("" unless commits)
    // A shard's part of the matrix: `seeds` are the shard's, no test is triaged, and
    // recordPath is the shard ledger.
    std::optional<Shard> shard;
    int mergedShards = 0; // merged from this many shard ledgers (mergeMatrix); 0: run here

    // "patchwitness-cli matrix 'T' --base <sha> --head <sha> --seed S --replays K" for one
    // cell of `test`, from any checkout; "" unless both trees are commits.
    std::string portableCell(const std::string &test, uint32_t seed) const;
    const MatrixTest *find(const std::string &test) const;
    // The gate report's findings, one per test (none when interrupted): M-PATCH_BUG blocks,
    // M-FLAKY_ORACLE, M-NEEDS_MANUAL_REVIEW and M-NONE (no triage) ask for review,
    // M-PRE_EXISTING and M-NO_SIGNAL inform ("green on the patch is not evidence").
    std::vector<Finding> findings() const;
};

// A server run of the matrix ended (progress lines, the workbench's stream).
struct MatrixProgress
{
    int done = 0;
    int total = 0;
    Arm arm = Arm::Head;
    std::string line;            // "3/8 head tests/t.py seeds 0..9 (50 replays): 5 failed (1.2 s)"
    std::vector<Trial> reported; // the replays that run reported (cells as they arrive)
    const RunResult *run = nullptr; // the run itself
};
using MatrixCallback = std::function<void(const MatrixProgress &)>;

class SeedMatrix
{
public:
    // For each test, seeds × K isolated replays on the base and the head tree through the
    // fork server (one collection per test file and tree, a forked child per replay), the
    // two trees' servers interleaved in `pool`; then triage per test. Throws Error::input
    // for no test, a bad node id (checkNodeId), a repeated test, seeds or replays below 1,
    // and a matrix over the trial budget (tests × seeds × K × 2 trees). A test neither tree
    // collects has no triage and says so. With request.record and not interrupted, writes
    // each test's two compatible ledgers and the record into ctx.runsDir().
    static MatrixResult run(const RunContext &ctx, const MatrixRequest &request, RunPool &pool,
                            const MatrixCallback &progress = {});

    // The triage of each test from its cells (pure; `run` calls it).
    static void judge(MatrixResult &result);
    // Each test's two compatible ledgers and the record (formatRecord, dated `date`) into
    // `runsDir`, never overwriting: the paths in the result, or recordError.
    static void record(MatrixResult &result, const std::string &runsDir, const std::string &date);
    // "patchwitness-cli matrix T… --base <sha> --head <sha> --seeds N --replays K" (or
    // "--seed S…" for a list that is not 0..N-1); "" unless both trees are commits.
    static std::string portableCommandOf(const MatrixResult &result);

    // Schema patchwitness.matrix/1 (SPEC 11): seeds, replays, env_digest, base/head
    // {spec, commit}, tests[] {test, triage, witness_seed, flaky_seed, reason, message,
    // seeds_compared, base, head ({"<seed>": fails}), base_errors, head_errors, ledgers
    // {base, head}, commands {base, head} ({"<seed>": cmd}), portable (the witness's
    // portable command)}, interpreter, restarts, interrupted, duration_ms, recorded.
    static std::string formatRecord(const MatrixResult &result, const std::string &recorded);
    // (A freeze reads this record through AttributionRecord::ofMatrixRecord.)
    // The name part of a matrix's files (record, shard ledger): its test, or the first and
    // how many more ("tests/t.py::test_a-and-3").
    static std::string fileName(const MatrixResult &result);
    // The compatible ledger of one test on one tree.
    static SeedLedger ledgerOf(const MatrixResult &result, const MatrixTest &test, Arm arm);
};

} // namespace pw::core
