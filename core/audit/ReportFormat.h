#pragma once

#include "audit/GateReport.h"

#include <nlohmann/json.hpp>
#include <string>

namespace pw::core {

// The gate report in its four formats plus HTML for the workbench export.
// JSON field names are a contract: only add fields, never rename.
enum class ReportFormat
{
    Text,
    Json,
    Markdown,
    JUnit,
    Html
};

// "text", "json", "md"/"markdown", "junit", "html"; nullopt for anything else.
std::optional<ReportFormat> reportFormatFromName(const std::string &name);

nlohmann::json reportToJson(const GateReport &report);
// One finding as the report's JSON writes it (also the census's): `test` and `satisfied_by`
// are null when absent.
nlohmann::json findingJson(const Finding &finding);
std::string formatReport(const GateReport &report, ReportFormat format);

} // namespace pw::core
