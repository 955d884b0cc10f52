#pragma once

#include "dynamic/Attribution.h"
#include "execution/Shard.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pw::core {

// One run of a shard: the unit of the sweep it belongs to and what it said.
struct ShardRun
{
    int unit = 0;
    NodeRun run;
};

// What one shard ran (schema patchwitness.shard/1): enough to rebuild the whole sweep's
// result once every shard is in (`merge`). Written atomically by the sweep, one file per
// shard:
//
//   {"schema": "patchwitness.shard/1", "kind": "attribution",
//    "parameters": {"test": "tests/t.py::test_a", "mode": "swept", "runs": 60},
//    "base": {"spec": "main", "commit": "<40 hex>"}, "head": {"spec": "HEAD", …},
//    "shard": {"index": 2, "count": 3}, "units": 60, "ran": [1, 4, 7, …],
//    "env_digests": ["…"], "notes": {}, "recorded": "2026-11-30",
//    "runs": [{"unit": 1, "label": "base", "seed": 1, "index": 1, "outcome": "fail",
//              "seconds": 0.4, "command": "…", "env_digest": "…",
//              "env_digest_seedless": "…", "reason": "…"}, …]}
//
// `env_digest_seedless` (the run's env digest at hash seed 0) is optional: ledgers written
// before it are read as before.
struct ShardLedger
{
    static constexpr const char *kSchema = "patchwitness.shard/1";

    std::string file; // origin, as named in errors
    std::string kind; // "attribution", "cells"
    // The sweep's parameters: (name, JSON text of the value), in the sweep's order. Shards
    // merge only when these are equal.
    std::vector<std::pair<std::string, std::string>> parameters;
    std::string baseSpec, baseCommit, headSpec, headCommit;
    Shard shard;
    int units = 0;        // of the whole sweep
    std::vector<int> ran; // this shard's units, ascending
    std::vector<ShardRun> runs;
    // Per label, what the runs themselves cannot say (cells: why the clock cell is unknown).
    std::map<std::string, std::string> notes;
    std::string recorded; // YYYY-MM-DD

    // The distinct env digests of the runs, sorted (informational: each run keeps its own).
    std::vector<std::string> envDigests() const;

    void setParameter(const std::string &name, const std::string &value);
    void setParameter(const std::string &name, long long value);
    // The parameter's value; throws Error::input "file: parameters.name: …" when it is
    // missing or of another type.
    std::string stringParameter(const std::string &name) const;
    long long integerParameter(const std::string &name) const;
    bool hasParameter(const std::string &name) const;
    std::string parametersText() const; // {"test": …, "runs": 60} for messages

    // Throws Error::input "origin:line:column: message" for JSON that does not parse and
    // "origin: field: message" for a missing or mistyped field.
    static ShardLedger parse(const std::string &text, const std::string &origin);
    static ShardLedger read(const std::string &path); // parse() of the file; unreadable: input
    std::string format() const;                       // parse(format()) gives it back

    // `<runsDir>/<date>-<test>-<what>-shard-<i>of<n>.json` (never overwritten, like
    // Attribution::writeRecord), or exactly `out` when given (replaced atomically: a CI job
    // names its artefact). Returns the path; throws Error::input when it cannot write.
    std::string write(const std::string &runsDir, const std::string &test, const std::string &what,
                      const std::string &out) const;
};

// Shard ledgers that belong together, in shard order: one sweep (same kind and
// parameters), the same base and head commits, the same n and unit count, no shard twice
// and no unit in two shards.
struct ShardSet
{
    std::vector<ShardLedger> shards; // by index
    std::vector<int> missing;        // shard numbers not given
    int count = 0;                   // n

    // Checks the ledgers; throws Error::input naming the files that do not belong together.
    // Missing shards are listed in `missing`, not thrown: the caller decides (--partial).
    static ShardSet gather(std::vector<ShardLedger> ledgers);

    bool complete() const { return missing.empty(); }
    const ShardLedger &first() const { return shards.front(); }
    // "missing shard 3/3", "missing shards 2/4, 4/4"; empty when complete.
    std::string missingText() const;
    // Every run of every shard, by unit (then by index within the unit).
    std::vector<ShardRun> runs() const;
};

} // namespace pw::core
