#pragma once

#include "audit/Finding.h"
#include "dynamic/SkipWitness.h"
#include "execution/PytestRun.h"
#include "execution/RunContext.h"
#include "execution/RunPool.h"
#include "repo/PatchDiff.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pw::core {

// What the shadow sample decides for one head test.
struct ShadowDecision
{
    std::string nodeId;
    bool run = true;     // false: skip-witnessed
    std::string reason;  // for humans: "test file changed", "witnessed", …
    bool frozen = false; // an active freeze: runs, never shadow-sampled
    bool sampled = false;
    std::optional<Outcome> outcome;    // at head, when it ran in a run that is evidence
    std::string message;               // pytest's failure message
    std::optional<WitnessRow> witness; // the base witness; none for a new test

    bool failed() const { return outcome == Outcome::Fail || outcome == Outcome::Error; }
};

// A shadow-sampled (skip-witnessed) test that failed at head: its witness missed something.
struct WitnessBug
{
    std::string nodeId;
    std::string message;            // the failure
    std::vector<std::string> files; // what the witness said the test depends on
    std::vector<std::string> fixtures;
};

struct ShadowOptions
{
    std::optional<int> pct; // default: config shadow_pct
    bool rewitness = false; // take a new base witness even when a stored one is intact
    bool dryRun = false;    // decisions and sample only; head is not run
};

struct ShadowReport
{
    std::string repo;
    std::string base, baseCommit, head, headCommit;
    std::string envDigest;
    RunProvenance provenance; // the interpreter and each tree's imports
    std::string patchDigest;  // P: sha256 hex of the patch text (Shadow::patchText)
    int pct = 10;
    int changedPaths = 0;
    std::string witnessPath;  // the stored ledger ("" when not stored)
    std::string witnessState; // "reused", "recorded", "not stored: …"
    WitnessLedger witness;
    bool ambientDrift = false;
    std::string ambientDetail;
    // Set: the patch changes a file every test may read without running its code (a pytest
    // configuration file, a non-Python fixture file); the whole suite runs, as on drift.
    std::string suiteChange; // "pytest configuration changed: X", "fixture file changed: X"
    std::vector<ShadowDecision> decisions; // head collection order
    std::vector<RunResult> runs;           // witness run (when taken), head collect, head run
    std::vector<WitnessBug> bugs;
    std::vector<std::string> warnings;
    bool dryRun = false;
    bool sandboxed = false; // the runs were inside the sandbox
    bool headRan = false;
    bool interrupted = false;
    std::string harnessError; // set: no result (the runs were no evidence)

    int toRun() const;
    int skipped() const;
    int sampled() const;
    // Selected tests (not frozen) that failed at head.
    std::vector<const ShadowDecision *> failures() const;
    // Selected or sampled tests the head run gave no evidence for (harness_error such as
    // a per-test timeout, or not_collected): the report is then no result.
    std::vector<const ShadowDecision *> noEvidence() const;
    // Findings of the gate report (gate "run"): a witness bug (S-WITNESS-BUG)
    // and a selected test failing at head (S-FAIL) block, a selected test without evidence
    // (S-NO-EVIDENCE) is review (the CLI exits 4 for it: no result). None for a dry run,
    // an interrupted one or one that was no evidence.
    std::vector<Finding> findings() const;
};

// Skip witnesses and the patch-keyed shadow sample: the base tree's witness
// (stored, or taken with a full base run), the head collection, one decision per head
// test, then one head run of every test that must run plus the shadow sample.
class Shadow
{
public:
    // The shape of every dynamic gate (DynamicGate.h). `progress` is called as each run
    // ends; `done` and `total` count the job's runs so far (witness, head collection, then
    // the head run, planned last).
    static ShadowReport run(const RunContext &ctx, const ShadowOptions &options, RunPool &pool,
                            const RunPool::Progress &progress = {});

    // The patch text P is taken over: for each file of the diff (context 3, renames
    // detected, whitespace kept), "diff --git a/<old> b/<new>\n", "status <letter>
    // <old blob>..<new blob> <old mode>..<new mode>\n", each hunk's header line and its
    // lines prefixed " ", "+" or "-" (then "\\ No newline at end of file" where so), each
    // ending in "\n". Paths of an added/deleted file repeat the one that exists.
    static std::string patchText(const PatchDiff &diff);
    // sha256(text) as lower-case hex: P.
    static std::string patchDigest(const std::string &text);
    // int.from_bytes(sha256((P + ":" + nodeId).encode())[:4], "big") % 100
    static int pickValue(const std::string &patchDigest, const std::string &nodeId);
    static bool picked(const std::string &patchDigest, const std::string &nodeId, int pct)
    {
        return pickValue(patchDigest, nodeId) < pct;
    }

    // The shadow decision table for head's collected rows against the base witness. `changed`:
    // paths the patch touches (both sides of a rename); `frozenUntil(node)`: the expiry of
    // an active freeze; `fixtureGlobs`: config `fixture_globs`. Fills decisions (with the
    // sample), ambientDrift and its detail, suiteChange, and a warning for each changed
    // non-Python file (not documentation) that no witness lists.
    static void
    decide(ShadowReport &report, const std::vector<WitnessRow> &head,
           const std::set<std::string> &changed,
           const std::function<std::optional<std::string>(const std::string &)> &frozenUntil,
           const std::vector<std::string> &fixtureGlobs = {});
};

// Text and JSON (schema `patchwitness.shadow-report/1`) renderings for the CLI.
std::string formatShadowText(const ShadowReport &report);
std::string formatShadowJson(const ShadowReport &report);

} // namespace pw::core
