#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pw::core {

struct QuarantineEntry;

// The attribution evidence of one test (SPEC §5.3), one JSON object per file in
// `<ledger dir>/runs/` (SPEC §6 `runs/*.json`): written by the run engine, read by
// `freeze` to fill a freeze's evidence fields so a reviewer does not copy numbers by hand.
//
//   {"schema": "patchwitness.attribution/1", "test": "tests/t.py::test_a",
//    "verdict": "PRE_EXISTING", "mode": "matched", "base_fail": 3, "head_fail": 3,
//    "runs": 5, "seeds": [0, 1, 2, 3, 4], "witness_seed": 2, "env_digest": "…",
//    "baseline_sha": "<40 hex>", "base": "<rev>", "head": "<rev>", "attribution": "solo",
//    "replay": "patchwitness-cli attribute 'tests/t.py::test_a' --base <sha> --head <sha>
//    --seed 2", "replay_exact": "cd … && env -i … python3 -m pytest …", "recorded": "2026-11-30",
//    "diff_coverage": "untouched", "diff_coverage_detail": "did not touch the change …"}
//
// `schema` and `test` are required; every other field may be absent (or null).
struct AttributionRecord
{
    static constexpr const char *kSchema = "patchwitness.attribution/1";
    static constexpr const char *kRunsDir = "runs"; // inside the ledger directory

    std::string file; // origin, as named in errors (the path it was read from)
    std::string test;
    std::optional<std::string> verdict; // NO_REPRO, PRE_EXISTING, HARNESS_ENV, ...
    std::optional<std::string> mode;    // matched | swept
    std::optional<long long> baseFail;
    std::optional<long long> headFail;
    std::optional<long long> runs;
    std::optional<std::vector<long long>> seeds;
    std::optional<long long> witnessSeed;
    std::optional<std::string> envDigest;
    std::optional<std::string> baselineSha;
    std::optional<std::string> base; // revision specs as the run was asked for
    std::optional<std::string> head;
    std::optional<std::string> attribution; // solo / order / isolate / clock / ...
    // `replay` runs from any checkout (the CLI on the trees' commits at the witness seed);
    // `replay_exact` is the run's own shell line on the machine that recorded it.
    std::optional<std::string> replay;
    std::optional<std::string> replayExact;
    std::optional<std::string> recorded; // YYYY-MM-DD, or an ISO 8601 timestamp
    // SPEC §10 diff coverage of the failing test (absent in records before it, or when head
    // did not fail): "touched", "untouched" (did not touch the change) or "unknown", and
    // its sentence ("touched 3 changed lines in src/m.py", "unknown: <why>").
    std::optional<std::string> diffCoverage;
    std::optional<std::string> diffCoverageDetail;
    // Fields this reader does not know: (key, JSON text), in file order, written back as is.
    std::vector<std::pair<std::string, std::string>> unknownFields;

    // Throws Error::input "origin:line:column: message" for JSON that does not parse, and
    // "origin: field: message" for a missing `schema`/`test`, another schema, or a field of
    // the wrong type (counts are non-negative integers, `recorded` a date).
    static AttributionRecord parse(const std::string &text, const std::string &origin);
    // Two spaces of indent, known fields in the order above, then the unknown ones; a final
    // newline. parse(format()) gives the record back.
    std::string format() const;

    // The newest record for `test` among `runsDir`/*.json: the latest `recorded` (a record
    // without one is the oldest), ties broken by file name (the later name wins). Files that
    // do not parse as attribution records (other ledgers, broken files) are skipped.
    // A file named as the run engine names records, `<YYYY-MM-DD|undated>-<name part>-….json`
    // (RunsDir::recordStem), is taken by its name: only those of this test's name part
    // are read, newest day first, and no day older than the newest record found is read (the
    // name's day is the record's `recorded` day). Files named otherwise are all read.
    static std::optional<AttributionRecord> latestFor(const std::string &runsDir,
                                                      const std::string &test);

    // `test` as record file names carry it: [A-Za-z0-9.-] kept, other runs as one "_", no
    // "_"/"." at either end; past 80 characters cut, with "-" and 8 hex of its sha256.
    static std::string fileNamePart(const std::string &test);

    // Fills what `entry` lacks — verdict, attribution, witness_seed, baseline_sha, replay and
    // each evidence field (base_fail, head_fail, mode, seeds, env_digest) — from this record.
    // Fields the entry already has are never changed: a value a person typed wins.
    void fillFreeze(QuarantineEntry &entry) const;
};

} // namespace pw::core
