#pragma once

#include "execution/PytestRun.h"
#include "execution/RunContext.h"
#include "execution/RunPool.h"
#include "ledger/QuarantineLedger.h"

#include <QDate>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// The seeds' FREEZE_GATE: the suite runs in full — nothing is skipped — and the ledger's
// freezes are applied to its outcomes. An active freeze (opened <= today < expires) turns
// its test's failure into `frozen` (shown, counted, not failing the run) and its pass into
// `thaw-candidate` (the freeze may go); an expired freeze fails the run, naming the test
// and the day it expired, whether or not its test ran. A freeze matches its node id and
// that id's parametrisations ("t.py::test_a" matches "t.py::test_a[1]").
struct FrozenOutcome
{
    std::string test;
    // pass, fail, frozen, thaw-candidate, skipped, harness_error
    std::string outcome;
    std::string freeze;  // the freeze it fell under: "frozen until 2024-05-20 by sam (…:3)"
    std::string message; // pytest's failure / skip message
    double seconds = 0;
};

struct FrozenRunResult
{
    std::vector<FrozenOutcome> outcomes; // in the run's JUnit order
    // "tests/t.py::test_a: the freeze expired on 2024-05-01 (quarantine.toml:7)"
    std::vector<std::string> expired;
    // Freezes that are no freeze (no test or no dates): their tests are not frozen.
    std::vector<std::string> notes;
    // pass: nothing failed but frozen tests and no freeze expired; fail; harness_error:
    // the run is no evidence (nothing is claimed either way).
    std::string verdict = "harness_error";
    std::string ledgerFile; // the quarantine.toml applied ("" when there is none)
    RunResult run;

    int count(const std::string &outcome) const;
};

class FrozenRun
{
public:
    // Runs the head tree's suite (pytest `args`: paths, node ids, options; empty: the whole
    // suite) once in the pinned environment, seed 0, and applies `ledger`'s freezes on
    // `today`. Throws what RunContext's runs throw (Error::input: no interpreter).
    static FrozenRunResult run(const RunContext &ctx, const std::vector<std::string> &args,
                               const QuarantineLedger &ledger, const QDate &today, RunPool &pool);

    // The freezes applied to a finished run (pure; `run` calls it). The infrastructure
    // check (SPEC 10) counts the failures that are not frozen: more than `infraFailPct` of
    // at least `infraMinTests` tests make the run a harness error (a frozen failure is
    // expected, not a sign of a broken environment).
    static FrozenRunResult apply(const RunResult &run, const QuarantineLedger &ledger,
                                 const QDate &today, int infraFailPct = 50, int infraMinTests = 5);

    // JUnit XML of the result: one testcase per outcome; a frozen failure keeps its message
    // in a <system-out> and carries properties patchwitness.outcome and
    // patchwitness.freeze (it is not a <failure>: it does not fail the run); an expired
    // freeze is a failing testcase of its own ("patchwitness.freezes" / the test).
    static std::string junit(const FrozenRunResult &result);
};

} // namespace pw::core
