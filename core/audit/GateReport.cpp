#include "audit/GateReport.h"

namespace pw::core {

std::set<std::string> patchedFiles(const std::vector<ChangedFile> &changed)
{
    std::set<std::string> out;
    for (const ChangedFile &f : changed) {
        out.insert(f.path);
        if (!f.oldPath.empty())
            out.insert(f.oldPath);
    }
    return out;
}

const char *severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Review:
        return "review";
    case Severity::Block:
        return "block";
    }
    return "info";
}

const char *verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Pass:
        return "PASS";
    case Verdict::Review:
        return "REVIEW";
    case Verdict::Block:
        return "BLOCK";
    }
    return "PASS";
}

void GateReport::computeVerdict()
{
    if (count(Severity::Block) > 0)
        verdict = Verdict::Block;
    else if (count(Severity::Review) > 0)
        verdict = Verdict::Review;
    else
        verdict = Verdict::Pass;
}

int GateReport::count(Severity s, bool unsatisfiedOnly) const
{
    int n = 0;
    for (const Finding &f : findings) {
        if (f.severity == s && (!unsatisfiedOnly || !f.satisfiedBy))
            ++n;
    }
    return n;
}

} // namespace pw::core
