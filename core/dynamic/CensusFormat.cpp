// Text and JSON renderings of a CensusReport (the CLI's stdout, the workbench's export).

#include "audit/ReportFormat.h"
#include "dynamic/Census.h"
#include "util/Format.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace pw::core {

namespace {

std::string fixed2(double value)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", value);
    return buf;
}

// `unmeasured`: why the arm's executed count is not known (empty: it is); an unknown
// count is no zero.
std::string armLine(const char *name, const CensusArmSummary &s, bool executed,
                    const std::string &unmeasured)
{
    std::string line = std::string("  ") + name + ": " + std::to_string(s.collected) +
                       " collected (digest " + s.digest + ")";
    if (executed)
        line += unmeasured.empty() ? ", " + std::to_string(s.executed) + " executed"
                                   : ", executed not measured (" + unmeasured + ")";
    line += ", " + std::to_string(s.skipped) + " skipped, assertion density " +
            fixed2(s.assertionDensity()) + " (" + std::to_string(s.assertions) + " assertions in " +
            std::to_string(s.testFunctions) + " test functions)\n";
    return line;
}

// Executed counts are compared only when both suite runs are evidence (Census::run), so
// one run that is not leaves both arms unmeasured: why, for `arm` (0 base, 1 head).
std::string unmeasuredReason(const CensusReport &r, size_t arm)
{
    const auto evidence = [&r](size_t i) {
        return i < r.executions.size() && !r.executions[i].harnessError;
    };
    if (evidence(0) && evidence(1))
        return {};
    return evidence(arm) ? "the other tree's suite run is no evidence"
                         : "its suite run is no evidence";
}

nlohmann::json armJson(const CensusArmSummary &s)
{
    return {{"collected", s.collected},
            {"digest", s.digest},
            {"executed", s.executed},
            {"skipped", s.skipped},
            {"assertions", s.assertions},
            {"test_functions", s.testFunctions},
            {"assertion_density", s.assertionDensity()}};
}

nlohmann::json optionalText(const std::optional<std::string> &text)
{
    return text ? nlohmann::json(*text) : nlohmann::json(nullptr);
}

} // namespace

std::string formatCensusText(const CensusReport &r)
{
    std::string out = "census: base " + r.base +
                      (r.baseCommit.empty() ? "" : " (" + shortId(r.baseCommit) + ")") + ", head " +
                      r.head + (r.headCommit.empty() ? "" : " (" + shortId(r.headCommit) + ")") +
                      (r.envDigest.empty() ? "" : ", env " + r.envDigest) +
                      (r.sandboxed ? ", sandboxed" : ", NOT sandboxed") + "\n";
    out += r.provenance.text("  ");
    if (!r.harnessError.empty())
        return out + "no census: " + r.harnessError + "\n";
    out += armLine("base", r.baseSummary, r.executed, unmeasuredReason(r, 0));
    out += armLine("head", r.headSummary, r.executed, unmeasuredReason(r, 1));
    out += "  removed " + std::to_string(r.count("removed")) + ", added " +
           std::to_string(r.count("added")) + ", renamed " + std::to_string(r.count("renamed")) +
           ", narrowed " + std::to_string(r.count("narrowed")) + ", skip added " +
           std::to_string(r.count("skip-added")) + ", density down " +
           std::to_string(r.count("density-down")) + ", failing to collect " +
           std::to_string(r.count("collect-error")) + "\n";
    out += r.unstable ? "  baseline census UNSTABLE: " + r.unstableDetail + "\n"
                      : "  baseline census reproducible (taken twice)\n";
    for (const std::string &w : r.warnings)
        out += "  warning: " + w + "\n";
    if (!r.findings.empty())
        out += "\n";
    for (const Finding &f : r.findings) {
        std::string sev = severityName(f.severity);
        for (char &c : sev)
            c = char(std::toupper(static_cast<unsigned char>(c)));
        out += (f.satisfiedBy ? std::string("ok      ") : sev + std::string(8 - sev.size(), ' ')) +
               f.code + "  " + f.message + "\n";
        if (f.satisfiedBy)
            out += "      satisfied by " + *f.satisfiedBy + "\n";
        else if (f.severity != Severity::Info)
            out += "      needs: " + f.evidence + "\n";
    }
    if (r.interrupted)
        return out + "\ninterrupted: the census is incomplete, no verdict\n";
    out += std::string("\nverdict: ") + verdictName(r.verdict()) + "\n";
    return out;
}

std::string formatCensusJson(const CensusReport &r)
{
    using nlohmann::json;
    json doc = {
        {"schema", "patchwitness.census-report/1"},
        {"repo", r.repo},
        {"base", {{"rev", r.base}, {"commit", r.baseCommit}}},
        {"head",
         {{"rev", r.head}, {"commit", r.headCommit.empty() ? json(nullptr) : json(r.headCommit)}}},
        {"env_digest", r.envDigest},
        {"interpreter", r.provenance.interpreterJson()},
        {"trees", r.provenance.treesJson()},
        {"interrupted", r.interrupted}};
    if (!r.harnessError.empty()) {
        doc["verdict"] = nullptr;
        doc["harness_error"] = r.harnessError;
        return doc.dump(2) + "\n";
    }
    doc["verdict"] = r.interrupted ? json(nullptr) : json(verdictName(r.verdict()));
    doc["sandboxed"] = r.sandboxed;
    doc["unstable"] = r.unstable;
    doc["unstable_detail"] = r.unstable ? json(r.unstableDetail) : json(nullptr);
    doc["summary"] = {{"base", armJson(r.baseSummary)}, {"head", armJson(r.headSummary)}};
    for (const auto &[key, arm] : {std::pair{"base", size_t(0)}, std::pair{"head", size_t(1)}})
        doc["summary"][key]["executed_measured"] = r.executed && unmeasuredReason(r, arm).empty();
    json collections = json::array();
    for (const CensusCollection &c : r.collections)
        collections.push_back(
            {{"arm", armName(c.arm)},
             {"count", c.dump.count()},
             {"digest", c.dump.digest},
             {"exit_code", c.run.exitCode},
             {"command", c.run.replay},
             {"collect_errors", c.collectErrors},
             {"whole_tree_error",
              c.wholeTreeError.empty() ? json(nullptr) : json(c.wholeTreeError)}});
    doc["collections"] = collections;
    json runs = json::array();
    for (const RunResult &e : r.executions)
        runs.push_back({{"arm", e.arm},
                        {"status", runStatusName(e.status)},
                        {"exit_code", e.exitCode},
                        {"evidence", e.evidence()},
                        {"harness_reason", e.harnessReason},
                        {"seconds", e.durationMs / 1000.0},
                        {"command", e.replay}});
    doc["executions"] = runs;
    json rows = json::array();
    for (const CensusRow &row : r.rows) {
        json j = {
            {"node", row.nodeId},
            {"base", row.atBase},
            {"head", row.atHead},
            {"change", row.change},
            {"skipped_base", row.skippedBase},
            {"skipped_head", row.skippedHead},
            {"outcome_base", row.outcomeBase ? json(outcomeName(*row.outcomeBase)) : json(nullptr)},
            {"outcome_head", row.outcomeHead ? json(outcomeName(*row.outcomeHead)) : json(nullptr)},
            {"code", row.code.empty() ? json(nullptr) : json(row.code)},
            {"detail", row.detail},
            {"satisfied_by", optionalText(row.satisfiedBy)}};
        rows.push_back(std::move(j));
    }
    doc["nodes"] = rows;
    json findings = json::array();
    for (const Finding &f : r.findings)
        findings.push_back(findingJson(f));
    doc["findings"] = findings;
    doc["warnings"] = r.warnings;
    return doc.dump(2) + "\n";
}

} // namespace pw::core
