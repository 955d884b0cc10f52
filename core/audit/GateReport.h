#pragma once

#include "audit/Finding.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pw::core {

struct RevisionRef
{
    std::string rev;                   // as the user named it
    std::optional<std::string> commit; // null for WORKTREE
};

struct LatitudeTestScore
{
    std::string test; // test id at head
    std::string path;
    int line = 0;
    int score = 0;
    std::vector<std::string> signals;
};

struct LatitudeReport
{
    int total = 0;
    int threshold = 4;
    std::string policy;
    std::vector<LatitudeTestScore> tests; // every test present at both revisions that changed
};

struct StrengthMetrics
{
    int assertions = 0;
    int comparisons = 0;
    int truthyOnly = 0;
    std::optional<double> widestTolerance; // nullopt: none; infinity: computed
    int broadRaises = 0;                   // raises of Exception / BaseException
    int skipMarkers = 0;
};

struct StrengthRow
{
    std::string test;
    std::string path;
    int line = 0;
    std::optional<StrengthMetrics> base; // nullopt: only at head
    std::optional<StrengthMetrics> head; // nullopt: only at base
    std::vector<std::string> flags;      // WEAKER:assertions, NEW:test, ...
    Severity action = Severity::Info;
};

struct StrengthReport
{
    std::vector<StrengthRow> tests;
    Severity action = Severity::Info; // block | review | info (= pass)
};

struct FixtureChange
{
    std::string path;
    std::optional<std::string> base; // sha256, nullopt when absent
    std::optional<std::string> head;
};

struct ManifestFile
{
    std::string sha; // blob id
    std::vector<std::string> defs;
    std::vector<std::string> markers;
    int asserts = 0;
};

struct Manifest
{
    std::map<std::string, ManifestFile> tests;
    std::map<std::string, std::string> fixtures; // path → sha256
};

struct ChangedFile
{
    std::string path;
    std::string oldPath; // set for renames
    std::string status;  // A, D, M, R, C, T
    bool testFile = false;
    bool fixtureFile = false;
    bool binary = false;
    // The head side's blob id ("" when deleted) and git file mode (0 when deleted). Not in
    // the report formats: they tell two WORKTREE heads apart (the workbench keys run
    // results by them).
    std::string newBlob;
    uint32_t newMode = 0;
};

// Every path the patch touches: each changed file's path and a rename's old path (the
// ValidationContext's `patchedFiles`).
std::set<std::string> patchedFiles(const std::vector<ChangedFile> &changed);

struct AuditStats
{
    int filesChanged = 0;
    int testFilesParsed = 0; // facts needed for this audit (base + head sides)
    int cacheHits = 0;
    int interpreterRuns = 0;
};

// One report per (repo, base, head, config): every gate's findings and one verdict.
struct GateReport
{
    static constexpr const char *kSchema = "patchwitness.report/1";

    std::string repo; // the work tree root; a bare repository's git directory
    RevisionRef base;
    RevisionRef head;
    Verdict verdict = Verdict::Pass;
    std::vector<Finding> findings;
    LatitudeReport latitude;
    StrengthReport strength;
    std::vector<FixtureChange> fixtures;
    std::vector<ChangedFile> changedFiles;
    std::optional<Manifest> manifest;
    std::vector<std::string> warnings;
    AuditStats stats;

    // BLOCK if any unsatisfied block, REVIEW if any unsatisfied review, else PASS.
    void computeVerdict();
    int count(Severity s, bool unsatisfiedOnly = true) const;
};

} // namespace pw::core
