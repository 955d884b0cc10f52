#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pw::core {

enum class Severity
{
    Info,
    Review,
    Block
};
const char *severityName(Severity s); // "info", "review", "block"

enum class Verdict
{
    Pass,
    Review,
    Block
};
const char *verdictName(Verdict v); // "PASS", "REVIEW", "BLOCK"

// One finding of a gate: what, where, how bad, what a reviewer must attach,
// and the ledger entry that satisfies it (if any).
struct Finding
{
    std::string gate; // manifest | latitude | strength | conftest | fixture | ledger | census | run
    std::string code; // T-DEL, LATITUDE, WEAKER:assertions, PARSE_ERROR, ...
    Severity severity = Severity::Info;
    std::string path;
    int line = 0;
    std::string test; // "tests/test_x.py::Class::test_y" or empty
    std::string message;
    std::string evidence;
    std::optional<std::string> satisfiedBy;
    // T-DEL: the test where the deleted one's checks most likely went (a new or changed test
    // of the same file calling the same code), which a waiver's witness is pre-filled with.
    std::optional<std::string> successor;

    bool blocksUnsatisfied() const { return severity == Severity::Block && !satisfiedBy; }
};

} // namespace pw::core
