#pragma once

#include "audit/GateReport.h"
#include "python/TestFacts.h"

namespace pw::core {

// Oracle strength: per-test metrics at base and head and the flags between
// them. Rows are per test; the action of a WEAKER row depends on its file (a file that
// gains strength elsewhere in the patch only informs), so `finalize` runs over all rows.
class StrengthGate
{
public:
    static StrengthMetrics metrics(const TestFunctionFacts &t);
    static StrengthRow compare(const std::string &testId, const std::string &path,
                               const TestFunctionFacts *base, const TestFunctionFacts *head);
    // Sets each row's action and the overall action.
    static void finalize(StrengthReport &report);
    // Severity of one flag: BLOCKER → block; WEAKER → review, or info when the same file
    // gains strength in the patch; NEW:test → review; STRONGER → info.
    static Severity flagSeverity(const std::string &flag, bool fileStrengthened);
    static bool strengthens(const std::string &flag);
    // One finding per flag of every row (after finalize).
    static std::vector<Finding> findings(const StrengthReport &report);
};

} // namespace pw::core
