#pragma once

#include "execution/JUnitReader.h"
#include "execution/JsonLines.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One line of the bundled plugin's JSONL file (--pw-out, resources/python/pw_plugin/session.py).
// `when` is a test phase ("setup", "call", "teardown") or one of the plugin's own rows:
// "leak" (state probe: kind + detail), "budget" (outcome "budget_exhausted", nodeId = the
// first test not run), "replay" (a fork-server child that ended without a verdict:
// outcome "harness_error", detail), "collect" (outcome "not_collected": a planned node
// that collection did not produce), "clock".
struct OutcomeRow
{
    std::string run;
    std::string arm;
    std::string nodeId;
    std::string when;
    std::string outcome; // pytest's "passed" / "failed" / "skipped", or the plugin's
    double duration = 0; // seconds
    uint32_t seed = 0;
    std::optional<int> replay; // fork-server rows only
    bool xfail = false;
    std::string kind;   // leak rows: env | tmp | modules | watched
    std::string detail; // leak, replay and budget rows
    int line = 0;       // 1-based line in the file
};

using OutcomeRowsFile = JsonLinesFile<OutcomeRow>;

// Reads the JSONL back (parseJsonLines). The plugin writes each line with one write(2), so
// only the last line of a killed run can be incomplete: it is ignored. Any other line that
// is not a JSON object with string "nodeid", "when" and "outcome" is an error naming
// file:line, and then no rows are returned.
OutcomeRowsFile readOutcomeRows(const std::string &path);
OutcomeRowsFile parseOutcomeRows(const std::string &text, const std::string &name);

// One test execution: the rows of one (nodeId, seed, replay) folded together.
struct Trial
{
    std::string nodeId;
    uint32_t seed = 0;
    int replay = -1; // -1: not a fork-server replay
    // HarnessError for a `replay` harness_error row; NotCollected for a `collect` row;
    // else Fail when any phase failed (a setup/teardown error too: failedPhase says
    // which), else Skipped when one was skipped, else Pass when the call phase passed,
    // else HarnessError (no call row: the process died mid-test).
    Outcome outcome = Outcome::Pass;
    std::string failedPhase; // "setup" / "call" / "teardown" when outcome == Fail
    std::string detail;      // harness_error detail
    bool xfail = false;
    double seconds = 0;             // sum of the phase durations
    std::vector<std::string> leaks; // kinds of the trial's leak rows, in file order
};

// Trials in order of first appearance. Budget rows, clock rows and leak rows of trials
// that have no phase rows are not trials.
std::vector<Trial> foldTrials(const std::vector<OutcomeRow> &rows);

// The first budget row, if the run was capped.
const OutcomeRow *budgetRow(const std::vector<OutcomeRow> &rows);

} // namespace pw::core
