#include "audit/StrengthGate.h"

#include <algorithm>
#include <limits>
#include <set>

namespace pw::core {
namespace {

constexpr int kBroadRaisesRank = 3;

double width(const std::optional<double> &v)
{
    return v ? *v : 0.0;
}

} // namespace

StrengthMetrics StrengthGate::metrics(const TestFunctionFacts &t)
{
    StrengthMetrics m;
    m.assertions = t.asserts;
    m.comparisons = t.comparisons;
    m.truthyOnly = t.truthyOnly;
    for (const ToleranceFact &tol : t.tolerances) {
        const double w = tol.value ? *tol.value : std::numeric_limits<double>::infinity();
        if (!m.widestTolerance || w > *m.widestTolerance)
            m.widestTolerance = w;
    }
    m.broadRaises = int(std::count_if(t.raises.begin(), t.raises.end(), [](const RaisesFact &r) {
        return r.rank >= kBroadRaisesRank;
    }));
    m.skipMarkers = int(t.skip.size());
    return m;
}

StrengthRow StrengthGate::compare(const std::string &testId, const std::string &path,
                                  const TestFunctionFacts *base, const TestFunctionFacts *head)
{
    StrengthRow row;
    row.test = testId;
    row.path = path;
    row.line = head ? head->line : (base ? base->line : 0);
    if (base)
        row.base = metrics(*base);
    if (head)
        row.head = metrics(*head);
    if (!base && head) {
        row.flags.push_back("NEW:test");
        return row;
    }
    if (base && !head) {
        row.flags.push_back("BLOCKER:deleted");
        return row;
    }
    if (!base || !head)
        return row;
    const StrengthMetrics &b = *row.base;
    const StrengthMetrics &h = *row.head;
    if (h.assertions < b.assertions)
        row.flags.push_back("WEAKER:assertions");
    if (h.comparisons < b.comparisons)
        row.flags.push_back("WEAKER:comparisons");
    if (h.truthyOnly > b.truthyOnly)
        row.flags.push_back("WEAKER:truthiness");
    if (width(h.widestTolerance) > width(b.widestTolerance))
        row.flags.push_back("WEAKER:tolerance");
    if (h.broadRaises > b.broadRaises)
        row.flags.push_back("WEAKER:raises-scope");
    if (h.skipMarkers > b.skipMarkers)
        row.flags.push_back("BLOCKER:marker");
    if (h.comparisons > b.comparisons)
        row.flags.push_back("STRONGER:comparisons");
    return row;
}

bool StrengthGate::strengthens(const std::string &flag)
{
    return flag.starts_with("STRONGER:") || flag == "NEW:test";
}

Severity StrengthGate::flagSeverity(const std::string &flag, bool fileStrengthened)
{
    if (flag.starts_with("BLOCKER:"))
        return Severity::Block;
    if (flag.starts_with("WEAKER:"))
        return fileStrengthened ? Severity::Info : Severity::Review;
    if (flag == "NEW:test")
        return Severity::Review;
    return Severity::Info;
}

namespace {

std::set<std::string> strengthenedFiles(const StrengthReport &report)
{
    std::set<std::string> files;
    for (const StrengthRow &row : report.tests) {
        if (std::any_of(row.flags.begin(), row.flags.end(), StrengthGate::strengthens))
            files.insert(row.path);
    }
    return files;
}

std::string flagMessage(const std::string &flag, const StrengthRow &row)
{
    const StrengthMetrics b = row.base.value_or(StrengthMetrics{});
    const StrengthMetrics h = row.head.value_or(StrengthMetrics{});
    auto change = [](int from, int to) {
        return std::to_string(from) + " -> " + std::to_string(to);
    };
    if (flag == "WEAKER:assertions")
        return "fewer assertions: " + change(b.assertions, h.assertions);
    if (flag == "WEAKER:comparisons")
        return "fewer comparisons: " + change(b.comparisons, h.comparisons);
    if (flag == "WEAKER:truthiness")
        return "more truthiness-only assertions: " + change(b.truthyOnly, h.truthyOnly);
    if (flag == "WEAKER:tolerance")
        return "widest tolerance grew";
    if (flag == "WEAKER:raises-scope")
        return "more broad `raises(Exception)`: " + change(b.broadRaises, h.broadRaises);
    if (flag == "BLOCKER:marker")
        return "skip/xfail markers added: " + change(b.skipMarkers, h.skipMarkers);
    if (flag == "BLOCKER:deleted")
        return "test deleted by the patch";
    if (flag == "STRONGER:comparisons")
        return "more comparisons: " + change(b.comparisons, h.comparisons);
    if (flag == "NEW:test")
        return "new test: review what its oracle checks";
    return flag;
}

std::string flagEvidence(const std::string &flag)
{
    if (flag == "BLOCKER:deleted")
        return "replacement test id or written rationale (a census waiver)";
    if (flag == "BLOCKER:marker")
        return "a freeze record with an expiry";
    if (flag.starts_with("WEAKER:"))
        return "reviewer note naming the property still covered";
    if (flag == "NEW:test")
        return "reviewer look at the new oracle";
    return "none";
}

} // namespace

std::vector<Finding> StrengthGate::findings(const StrengthReport &report)
{
    const std::set<std::string> strengthened = strengthenedFiles(report);
    std::vector<Finding> out;
    for (const StrengthRow &row : report.tests) {
        for (const std::string &flag : row.flags) {
            Finding f;
            f.gate = "strength";
            f.code = flag;
            f.severity = flagSeverity(flag, strengthened.count(row.path) > 0);
            f.path = row.path;
            f.line = row.line;
            f.test = row.test;
            f.message = flagMessage(flag, row);
            if (flag.starts_with("WEAKER:") && f.severity == Severity::Info)
                f.message += " (the file gains strength elsewhere in the patch)";
            f.evidence = flagEvidence(flag);
            out.push_back(std::move(f));
        }
    }
    return out;
}

void StrengthGate::finalize(StrengthReport &report)
{
    const std::set<std::string> strengthened = strengthenedFiles(report);
    report.action = Severity::Info;
    for (StrengthRow &row : report.tests) {
        row.action = Severity::Info;
        const bool fileStrengthened = strengthened.count(row.path) > 0;
        for (const std::string &flag : row.flags)
            row.action = std::max(row.action, flagSeverity(flag, fileStrengthened));
        report.action = std::max(report.action, row.action);
    }
}

} // namespace pw::core
