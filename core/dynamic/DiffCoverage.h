#pragma once

#include "execution/RunContext.h"
#include "execution/RunPool.h"
#include "repo/PatchDiff.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pw::core {

// `diff` without the files under the run's ledger directory when it lies inside the
// repository: the witness and attribution records patchwitness writes there are untracked
// files of a WORKTREE head, not part of the patch under test.
PatchDiff withoutLedgerDir(PatchDiff diff, const RunContext &ctx);

// Diff-coverage attribution: did a failing test execute any line the patch
// changed? A failing test that executed none is strong evidence of a flake rather than a
// patch bug.

// The patch's changed lines on the head side.
struct ChangedLines
{
    // Python files (*.py) at head → new-side line numbers the patch added or modified. A
    // change that only deletes lines counts the head lines on either side of the deletion
    // point (the code the deleted lines sat between).
    std::map<std::string, std::set<int>> python;
    // Python files renamed or copied without a line changed: the module moved, so any line
    // of it executed counts as executing the change.
    std::set<std::string> wholeFiles;
    // Changed files coverage cannot measure but a test could read, import or run:
    // "path (why)" — non-Python files, deleted and binary Python files.
    std::vector<std::string> unmeasured;
    // Changed documentation (isDocumentation: *.md, *.rst, docs/): no test reads it in
    // practice, so it is exempt, neither measured nor a reason for `unknown`.
    std::vector<std::string> documentation;
    // Changed files Python never executes, "path (why)": type stubs (*.pyi, read only by
    // type checkers) and PEP 561's py.typed marker. Like documentation they are left out,
    // neither measured nor a reason for `unknown` (neverExecuted says which).
    std::vector<std::string> neverExecuted;

    // From a base→head diff with hunks (any context size).
    static ChangedLines fromDiff(const PatchDiff &diff);
    int lineCount() const; // changed Python lines, whole files not counted
    bool empty() const
    {
        return python.empty() && wholeFiles.empty() && unmeasured.empty() &&
               documentation.empty() && neverExecuted.empty();
    }
    // What the judgement leaves out and why: the never-executed files, then documentation
    // ("README.md (documentation)").
    std::vector<std::string> leftOut() const;
    // Why `path` is a file Python never executes ("type stub, never executed"); "" when it
    // may be executed.
    static std::string neverExecutedWhy(const std::string &path);
};

// What the plugin's `--pw-cover PATH` wrote: executed lines per rootdir-relative file.
struct CoverageReport
{
    std::optional<std::string> unavailable;        // coverage was not importable: why
    std::map<std::string, std::set<int>> inTests;  // "files": during setup/call/teardown
    std::map<std::string, std::set<int>> atImport; // "imported": only outside the tests
    // "statements" (optional; reports before it have none): per analysed changed file, each
    // line that holds code of an executable statement → the statement's first line (the
    // tracer may report any of its lines as executed). A line not here is in no statement.
    std::map<std::string, std::map<int, int>> statements;

    // Throws Error::input naming `origin` (and the field) for JSON that is not a report.
    static CoverageReport parse(const std::string &text, const std::string &origin);
};

enum class CoverageVerdict
{
    Touched,   // the test executed changed lines
    Untouched, // it executed none: "did not touch the change"
    Unknown    // no judgement: see the reason
};
const char *coverageVerdictName(CoverageVerdict verdict); // "touched", "untouched", "unknown"

struct DiffCoverageResult
{
    CoverageVerdict verdict = CoverageVerdict::Unknown;
    int changedLines = 0; // changed Python lines at head that are part of a statement
    int touchedLines = 0; // of those (and of moved files) executed by the test
    std::vector<std::string> touchedFiles; // where
    std::string reason;                    // Unknown: why
    std::optional<uint32_t> seed;          // of the coverage run
    // Changed files the judgement left out, "path (why)" (ChangedLines::leftOut): whatever
    // the verdict, a reader sees what it did not look at.
    std::vector<std::string> leftOut;

    static DiffCoverageResult unknown(const std::string &reason);
    // "did not touch the change", "touched 3 changed lines in src/pkg/mod.py", "unknown: …"
    std::string summary() const;
    // "left out: pkg/mod.pyi (type stub, never executed), README.md (documentation)"; "" when
    // nothing was.
    std::string leftOutText() const;
};

class DiffCoverage
{
public:
    // Pure: the failing test's coverage against the changed lines. A changed line counts
    // as its statement (executed when a line of the statement was) and not at all when
    // it is part of none (blank, comment, docstring), for files the report has statements
    // of; other files' changed lines count as they are. Touched when the test executed a
    // changed line during its phases; else Unknown when coverage was unavailable, the
    // patch changed nothing, changed files coverage cannot see, changed lines ran only at
    // import (module-level code: a def header or a constant is executed when the module is
    // imported, which says nothing about whether the test used it), or no changed line is
    // part of a statement; else Untouched.
    static DiffCoverageResult judge(const ChangedLines &changed, const CoverageReport &report);

    // Reruns `test` once at head with PYTHONHASHSEED/--pw-seed `seed` and --pw-cover (the
    // changed Python files listed in the report path + ".changed.json", so the plugin
    // reports their statements; the run's last word given to `adjust`), and judges it
    // against the base→head diff of `ctx`. Never throws for what the run or the diff did:
    // those are Unknown with the reason (the run was no evidence, the test did not fail in
    // it, no report). `progress` hears the rerun end, as RunPool::run's callback.
    static DiffCoverageResult measure(const RunContext &ctx, const std::string &test, uint32_t seed,
                                      RunPool &pool,
                                      const std::function<void(Arm, RunSpec &)> &adjust = {},
                                      const RunPool::Progress &progress = {});
};

} // namespace pw::core
