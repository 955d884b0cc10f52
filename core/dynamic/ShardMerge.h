#pragma once

#include "dynamic/Attribution.h"
#include "dynamic/ReproCells.h"
#include "dynamic/SeedMatrix.h"
#include "dynamic/ShardLedger.h"

#include <optional>
#include <string>

namespace pw::core {

// The sweeps' side of sharding: a shard run ends in its ledger, and the ledgers
// merge back into the sweep's result.

// Throws Error::input unless both revisions of `ctx` are commits: a shard ledger names its
// trees by commit, and a WORKTREE or PATCH: head has none of its own (shards of different
// patches would merge silently). `sweep` names the command in the message.
void checkShardable(const RunContext &ctx, const std::string &sweep);

// The end of a sharded run (`request.shard`): the result gets its shard and no verdict
// ("shard i/n: no verdict until merged", the tallies stay), and unless it was interrupted
// its shard ledger is written to `out` or into ctx.runsDir() (result.recordPath, or
// result.recordError when that failed). Attribution::run and ReproCells::run call it in
// place of judging/recording; for cells, before ReproCells::attribute.
void finishShard(const RunContext &ctx, const Shard &shard, const std::string &out,
                 AttributionResult &result);
void finishShard(const RunContext &ctx, const Shard &shard, const std::string &out,
                 ReproCellsResult &result);
// A matrix shard (SeedMatrix::run with request.shard): no test triaged ("shard i/n: no
// triage until merged"), and unless interrupted the ledger — kind "matrix", parameters
// tests (one per line), seeds (all of the matrix's, comma-separated) and replays, one run per
// replay labelled matrixRunLabel, its unit the seed's position in `allSeeds` — written to
// `out` or into runs/.
void finishShard(const RunContext &ctx, const Shard &shard, const std::string &out,
                 MatrixResult &result, const std::vector<uint32_t> &allSeeds,
                 std::vector<ShardRun> runs);
// "head tests/t.py::test_a": a matrix shard run's tree and test.
std::string matrixRunLabel(Arm arm, const std::string &test);

// The whole sweep's result rebuilt from its shards and judged (Attribution::judge,
// ReproCells::attribute) as the unsharded run would have been; with shards missing (a
// partial merge) from the runs there are. Throws Error::input for a ledger of another kind
// or a run that does not fit its sweep (naming the file and the field).
AttributionResult mergeAttribution(const ShardSet &set);
ReproCellsResult mergeCells(const ShardSet &set);
// The whole matrix from its shards, triaged as the unsharded run would have been; the
// seeds of missing shards (a partial merge) are no evidence (NEEDS_MANUAL_REVIEW names
// them). Throws Error::input for a run that does not fit (its label, unit, seed or replay),
// a unit without every replay of every test on both trees, or a replay given twice.
MatrixResult mergeMatrix(const ShardSet &set);

// The merged sweep: one of the two, by the set's kind.
struct MergedSweep
{
    std::optional<AttributionResult> attribution;
    std::optional<ReproCellsResult> cells;
    std::optional<MatrixResult> matrix;
};
// mergeAttribution, mergeCells or mergeMatrix by the set's kind. With `runsDir` (a complete
// set only: a partial merge is no evidence) it also writes the sweep's evidence record as
// the unsharded run would — attribution with a verdict, cells of a collected node, a
// matrix's ledgers and record — dated
// `recorded`; a write that fails is the result's recordError. Throws Error::input for a
// kind merge does not know. (The CLI's `merge` and the workbench's Merge shard ledgers.)
MergedSweep mergeSweep(const ShardSet &set, const std::string &runsDir,
                       const std::string &recorded);

} // namespace pw::core
