#pragma once

#include "ledger/LedgerProblem.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pw::core {

struct QuarantineEntry;

// The attribution evidence of one test, one JSON object per file in
// `<ledger dir>/runs/` (`runs/*.json`): written by the run engine, read by
// `freeze` to fill a freeze's evidence fields so a reviewer does not copy numbers by hand.
//
//   {"schema": "patchwitness.attribution/1", "test": "tests/t.py::test_a",
//    "verdict": "PRE_EXISTING", "mode": "matched", "base_fail": 3, "head_fail": 3,
//    "runs": 5, "seeds": [0, 1, 2, 3, 4], "head_failing_seeds": [2, 4], "witness_seed": 2,
//    "env_digest": "…",
//    "baseline_sha": "<40 hex>", "base": "<rev>", "head": "<rev>", "attribution": "solo",
//    "replay": "patchwitness-cli attribute 'tests/t.py::test_a' --base <sha> --head <sha>
//    --seed 2", "replay_exact": "cd … && env -i … python3 -m pytest …", "recorded": "2026-11-30",
//    "diff_coverage": "untouched", "diff_coverage_detail": "did not touch the change …"}
//
// `schema` and `test` are required; every other field may be absent (or null).
struct AttributionRecord
{
    static constexpr const char *kSchema = "patchwitness.attribution/1";
    // A seed matrix's record (SeedMatrix::formatRecord): one row per test, read as an
    // attribution record of that test by ofMatrixRecord.
    static constexpr const char *kMatrixSchema = "patchwitness.matrix/1";
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
    // The interpreter the runs used and its versions (absent in records before them).
    std::optional<std::string> interpreter;
    std::optional<std::string> pythonVersion;
    std::optional<std::string> pytestVersion;
    std::optional<std::string> baselineSha;
    std::optional<std::string> base; // revision specs as the run was asked for
    std::optional<std::string> head;
    std::optional<std::string> attribution; // solo / order / isolate / clock / ...
    // `replay` runs from any checkout (the CLI on the trees' commits at the witness seed);
    // `replay_exact` is the run's own shell line on the machine that recorded it.
    std::optional<std::string> replay;
    std::optional<std::string> replayExact;
    std::optional<std::string> recorded; // YYYY-MM-DD, or an ISO 8601 timestamp
    // Diff coverage of the failing test (absent in records before it, or when head
    // did not fail): "touched", "untouched" (did not touch the change) or "unknown", and
    // its sentence ("touched 3 changed lines in src/m.py", "unknown: <why>").
    std::optional<std::string> diffCoverage;
    std::optional<std::string> diffCoverageDetail;
    // Fields this reader does not know: (key, JSON text), in file order, written back as is.
    std::vector<std::pair<std::string, std::string>> unknownFields;
    // The seeds that failed at head (`head_failing_seeds`; a matrix record's row says them
    // seed by seed; absent in records before it). The freeze rule wants the witness among
    // them.
    std::optional<std::vector<long long>> headFailingSeeds;

    // Throws Error::input "origin:line:column: message" for JSON that does not parse, and
    // "origin: field: message" for a missing `schema`/`test`, another schema, or a field of
    // the wrong type (counts are non-negative integers, `recorded` a date).
    static AttributionRecord parse(const std::string &text, const std::string &origin);
    // Two spaces of indent, known fields in the order above, then the unknown ones; a final
    // newline. parse(format()) gives the record back.
    std::string format() const;

    // A matrix record's row for `test` as an attribution record: verdict (the triage),
    // mode "matrix", the fails over the seeds compared per tree, runs (seeds × K), seeds,
    // the head's failing seeds, witness, env digest, baseline sha, the portable replay and
    // the head's command at the witness. nullopt: not a matrix record (another schema, JSON
    // that does not parse) or no row for `test`. A field of the wrong type reads as absent.
    static std::optional<AttributionRecord>
    ofMatrixRecord(const std::string &text, const std::string &origin, const std::string &test);
    // The record a freeze of `test` rests on, of either kind: a matrix record's row
    // (ofMatrixRecord) or an attribution record (parse). Throws Error::input for what does
    // not parse, a matrix record without a row for `test`, and a record of another test.
    static AttributionRecord evidenceFor(const std::string &text, const std::string &origin,
                                         const std::string &test);

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

// A four-cell reproduction matrix's evidence record (schema patchwitness.cells/1,
// written by the run engine's CellsRecord) as the freeze rule reads it: which test, which
// tree, and the main attribution with its sentence. The cells themselves are not read.
struct CellsEvidence
{
    static constexpr const char *kSchema = "patchwitness.cells/1";

    std::string file; // origin, as named in errors
    std::string test;
    std::string arm;         // "head" / "base"
    std::string revision;    // the arm's revision spec
    std::string commit;      // "" when the tree was no commit (WORKTREE, a patch file)
    std::string attribution; // solo, order, isolate, leakage, clock, none, unknown; "" none
    std::string sentence;
    std::optional<std::string> recorded; // YYYY-MM-DD
    bool interrupted = false;

    // Throws Error::input "origin:line:column: message" for JSON that does not parse and
    // "origin: field: message" for another schema, a missing test or a field of the wrong
    // type.
    static CellsEvidence parse(const std::string &text, const std::string &origin);
    // The newest cells record for `test` in `runsDir`, chosen as AttributionRecord::latestFor
    // chooses (by `recorded`, then file name); files that are not cells records are skipped.
    static std::optional<CellsEvidence> latestFor(const std::string &runsDir,
                                                  const std::string &test);
};

// The freeze rule in one place: may `test` be frozen on the evidence
// the ledger directory's runs/ holds, and what does a freeze take from it? `attribute`'s
// and `cells`' hints, `freeze` (with or without --from-run), the workbench's Grant freeze
// and its Attribution panel all ask this, so none can say "allowed" where another refuses.
//
//   refused   the attribution record's verdict is not PRE_EXISTING (or a newer record of
//             the test says another verdict), or the four cells say "broken test" (solo
//             fails: fix or delete it, never freeze it) — the newest cells record, or the
//             attribution a person gives;
//   needs     no attribution record yet (`attribute` first), or no cells attribution yet:
//             the freeze's `attribution` is the four cells' verdict, and a matrix that did
//             not reproduce the failure (none) or had no evidence (unknown) names none;
//   allowed   a PRE_EXISTING attribution record and a cells attribution that permits it
//             (order, isolate, leakage, clock).
class FreezeCase
{
public:
    enum class Stance
    {
        Allowed,
        NeedsAttribution, // run `attribute` first
        NeedsCells,       // run `cells` first (or again)
        Refused
    };

    // No records consulted: NeedsAttribution, and only an entry's own values are judged
    // (problemsOf: solo typed, placeholders; explain says nothing).
    FreezeCase() = default;

    // The rule on these two records (either may be absent). `newer`: a more recent
    // attribution record of the test than `attribution`, if there is one (a reviewer may
    // freeze from an older record, never against a newer verdict).
    static FreezeCase judge(const std::string &test,
                            const std::optional<AttributionRecord> &attribution,
                            const std::optional<CellsEvidence> &cells,
                            const std::optional<AttributionRecord> &newer = std::nullopt);
    // The rule on what `runsDir` holds for `test`: `attribution` when given (--from-run, the
    // record a run just wrote, or one not written), else the newest attribution record;
    // `cells` when given, else the newest cells record. `ignore` drops files that are no
    // evidence (a record the patch under review brings).
    static FreezeCase gather(const std::string &runsDir, const std::string &test,
                             std::optional<AttributionRecord> attribution = std::nullopt,
                             std::optional<CellsEvidence> cells = std::nullopt,
                             const std::function<bool(const std::string &file)> &ignore = {});

    Stance stance() const { return m_stance; }
    bool allowed() const { return m_stance == Stance::Allowed; }
    bool refused() const { return m_stance == Stance::Refused; }
    // One sentence: why not, what to run first, or what it rests on.
    const std::string &reason() const { return m_reason; }
    const std::string &test() const { return m_test; }
    const std::optional<AttributionRecord> &attribution() const { return m_attribution; }
    const std::optional<CellsEvidence> &cells() const { return m_cells; }
    // The freeze's `attribution` the evidence gives: the cells record's when it names a
    // cell, else the attribution record's own field; "" when neither does.
    std::string cellAttribution() const;

    // Fills what `entry` lacks from the records (AttributionRecord::fillFreeze, and the
    // attribution from the cells). A value a person typed wins.
    void fill(QuarantineEntry &entry) const;
    // What the rule holds against `entry` as a freeze would write it (in ledger `file`):
    // a refusal of the evidence; an attribution that says the test is broken (solo); a
    // value still the placeholder a printed command left for a person (isPlaceholder); and,
    // when evidence is still to be run, a sentence saying which command gives a missing
    // field. Empty when the rule has nothing against it (the validator still judges it).
    std::vector<LedgerProblem> problemsOf(const QuarantineEntry &entry,
                                          const std::string &file) const;
    // The validator's "missing required field" problems of fields that evidence still to be
    // run would give (attribution: `cells`; the evidence fields: `attribute`) say so.
    void explain(std::vector<LedgerProblem> &problems) const;

    // "<what only a person can supply>": a field of a printed command left to fill in.
    static bool isPlaceholder(const std::string &value);
    static bool forbids(const std::string &cellAttribution); // "solo": a broken test

private:
    Stance m_stance = Stance::NeedsAttribution;
    std::string m_reason = "no attribution record: run `patchwitness-cli attribute` first";
    std::string m_field; // the entry's field a refusal is about: verdict or attribution
    std::string m_test;
    std::optional<AttributionRecord> m_attribution;
    std::optional<CellsEvidence> m_cells;
};

} // namespace pw::core
