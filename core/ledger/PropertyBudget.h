#pragma once

#include "ledger/LedgerProblem.h"

#include <map>
#include <optional>
#include <string>

namespace pw::core {

// property_budget.toml: the limits of property-based test runs.
struct PropertyBudget
{
    static constexpr const char *kFileName = "property_budget.toml";

    std::string file;
    std::optional<long long> maxExamples;
    std::optional<long long> deadlineMs;
    std::optional<long long> maxWorkers;
    LedgerEntryInfo info; // the whole file is one entry

    // Throws Error::input "origin:line:column: message" when the TOML does not parse.
    static PropertyBudget parse(const std::string &text, const std::string &origin);
    // `text` with the given top-level integers set in place (comments, unknown keys kept).
    static std::string setValues(const std::string &text, const std::string &origin,
                                 const std::map<std::string, long long> &values);
};

} // namespace pw::core
