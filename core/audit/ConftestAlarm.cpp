#include "audit/ConftestAlarm.h"

#include <array>

namespace pw::core {
namespace {

constexpr std::array<const char *, 4> kPatterns = {"pytest_collection_modifyitems", "add_marker",
                                                   ".skip(", "deselect"};

const char *matchedPattern(const std::string &line)
{
    for (const char *p : kPatterns) {
        if (line.find(p) != std::string::npos)
            return p;
    }
    return nullptr;
}

} // namespace

bool ConftestAlarm::isConftest(const std::string &path)
{
    return path == "conftest.py" ||
           (path.size() > 12 && path.compare(path.size() - 12, 12, "/conftest.py") == 0);
}

bool ConftestAlarm::touchesCollection(const FileDiff &file)
{
    for (const DiffHunk &h : file.hunks) {
        for (const DiffLine &l : h.lines) {
            if (l.origin == DiffLine::Origin::Added && matchedPattern(l.text))
                return true;
        }
    }
    return false;
}

std::vector<Finding> ConftestAlarm::scan(const FileDiff &file)
{
    std::vector<Finding> out;
    for (const DiffHunk &h : file.hunks) {
        for (const DiffLine &l : h.lines) {
            if (l.origin != DiffLine::Origin::Added)
                continue;
            const char *pattern = matchedPattern(l.text);
            if (!pattern)
                continue;
            Finding f;
            f.gate = "conftest";
            f.code = "CONFTEST-HOOK";
            f.severity = Severity::Review;
            f.path = file.path();
            f.line = l.newLine;
            f.message = std::string("collection logic touched (`") + pattern +
                        "` added): human review required";
            f.evidence = "reviewer confirms which tests the hook skips, deselects or marks";
            out.push_back(std::move(f));
        }
    }
    return out;
}

} // namespace pw::core
