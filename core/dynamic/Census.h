#pragma once

#include "audit/Finding.h"
#include "execution/CensusDump.h"
#include "execution/PytestRun.h"
#include "execution/RunContext.h"
#include "execution/RunPool.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One collect-only run of one tree.
struct CensusCollection
{
    Arm arm = Arm::Base;
    RunResult run;
    bool ok = false;   // the dump was written: exit 0, 5 (nothing collected) or 2 (errors)
    std::string error; // why not ok (timeout, crash, usage error, no dump)
    CensusDump dump;
    // Files that fail to collect: path → pytest's message (last line of the error).
    std::map<std::string, std::string> collectErrors;
    // Set: nothing at all collected here — a conftest the patch changed raises (pytest's
    // words); the dump is empty and every file still here is in collectErrors.
    std::string wholeTreeError;
};

// What the static facts say about one test function (node id without parameters).
struct CensusFacts
{
    std::string bodyHash;
    int assertions = 0;
    std::optional<int> parametrizeCases; // nullopt: not a literal list (data, a call)
    bool parametrized = false;
};

// One node id, base vs head, and the class the census gives it.
struct CensusRow
{
    std::string nodeId;
    bool atBase = false;
    bool atHead = false;
    bool skippedBase = false; // at collection, or reported skipped by the execution
    bool skippedHead = false;
    std::optional<Outcome> outcomeBase; // from the execution runs, when they ran
    std::optional<Outcome> outcomeHead;
    // removed, added, kept, renamed (a base id), renamed-to (the head id a rename made),
    // narrowed, skip-added, density-down, collect-error
    std::string change;
    std::string code; // the finding's code, empty when the row raises none
    Severity severity = Severity::Info;
    std::string detail; // for humans: why this class
    std::optional<std::string> satisfiedBy;
};

struct CensusArmSummary
{
    int collected = 0;
    std::string digest;
    int executed = 0; // pass + fail + error in the execution run
    int skipped = 0;  // skipped at collection or by the execution run
    int assertions = 0;
    int testFunctions = 0;
    double assertionDensity() const
    {
        return testFunctions > 0 ? double(assertions) / testFunctions : 0.0;
    }
};

struct CensusOptions
{
    bool execute = true; // also run both suites for executed vs skipped (and witnesses)
};

// The census of a RunContext: collect-only on both trees — the base twice —
// then (with execute) one run of each suite; node ids, counts, digests, removed/added,
// executed vs skipped, static assertion density, and the classification:
//   node removed without a waiver                                  → C-REMOVED block
//   removed with a waiver whose witness is collected and passed at head → satisfied
//   skip/xfail added without an active freeze                      → C-SKIP block
//   assertion density down, node unchanged                         → C-DENSITY review
//   parametrize cardinality down                                   → C-PARAM block
//                                      (review when the case list is data)
//   pure rename (same body hash)                                   → C-RENAME info
//   a file that collects at base but fails to collect at head      → C-COLLECT block
//   the two base collections differ                                → C-UNSTABLE review
// Waivers and freezes count as the static audit counts them (the base revision's ledgers,
// entries the patch itself adds do not count); a waiver's witness is now checked for real.
struct CensusReport
{
    std::string repo;
    std::string base; // rev specs and commits
    std::string baseCommit;
    std::string head;
    std::string headCommit;
    std::string envDigest;
    RunProvenance provenance;                  // the interpreter and each tree's imports
    std::vector<CensusCollection> collections; // base, head, base again (run order)
    std::vector<RunResult> executions;         // base, head (when executed)
    bool unstable = false;
    std::string unstableDetail;
    CensusArmSummary baseSummary;
    CensusArmSummary headSummary;
    std::vector<CensusRow> rows; // every node id of either tree, sorted; kept rows included
    std::vector<Finding> findings;
    std::vector<std::string> warnings;
    bool interrupted = false;
    bool executed = false;    // the suites ran (not --collect-only)
    bool sandboxed = false;   // the runs were inside the sandbox
    std::string harnessError; // set: the census could not be taken (no verdict)

    Verdict verdict() const;
    int count(const std::string &change) const;
};

class Census
{
public:
    using Progress = std::function<void(const std::string &line)>;

    // The shape of every dynamic gate (DynamicGate.h). `progress` is called as each run
    // ends (a view streams runs from it); `total` counts the runs planned so far (the
    // witness run is planned last, when needed).
    static CensusReport run(const RunContext &context, const CensusOptions &options, RunPool &pool,
                            const RunPool::Progress &progress = {});

    // Reads a collect-only run's dump and JUnit errors into `collection`.
    static void readCollection(CensusCollection &collection, const std::string &dumpPath);
};

// Text and JSON (schema `patchwitness.census-report/1`) renderings for the CLI.
std::string formatCensusText(const CensusReport &report);
std::string formatCensusJson(const CensusReport &report);

} // namespace pw::core
