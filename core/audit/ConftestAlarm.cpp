#include "audit/ConftestAlarm.h"

#include "audit/PytestConfig.h"

#include <algorithm>
#include <array>

namespace pw::core {
namespace {

// Longer names first, so a line is reported by its most specific pattern.
constexpr std::array<const char *, 8> kPatterns = {"pytest_collection_modifyitems",
                                                   "pytest_ignore_collect",
                                                   "pytest_deselected",
                                                   "collect_ignore_glob",
                                                   "collect_ignore",
                                                   "add_marker",
                                                   ".skip(",
                                                   "deselect"};

// Options of pytest's configuration that decide which files, classes and functions are
// collected; `addopts` counts only through its collection options (collectionArgs).
constexpr std::array<const char *, 6> kConfigKeys = {
    "testpaths", "norecursedirs", "python_files", "python_functions", "python_classes", "addopts"};

const char *kEvidence = "reviewer confirms which tests the change skips, deselects or marks";

const char *matchedPattern(const std::string &line)
{
    for (const char *p : kPatterns) {
        if (line.find(p) != std::string::npos)
            return p;
    }
    return nullptr;
}

std::string quoted(const std::vector<std::string> &args)
{
    std::string out;
    for (const std::string &a : args)
        out += (out.empty() ? "`" : ", `") + a + "`";
    return out.empty() ? "nothing" : out;
}

std::string spaced(const std::vector<std::string> &args)
{
    std::string out;
    for (const std::string &a : args)
        out += (out.empty() ? "" : " ") + a;
    return "`" + out + "`";
}

// What is in `a` and not in `b`, as multisets.
std::vector<std::string> minus(std::vector<std::string> a, std::vector<std::string> b)
{
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<std::string> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

Finding configFinding(const std::string &path, int line, const std::string &what)
{
    Finding f;
    f.gate = "conftest";
    f.code = "CONFTEST-HOOK";
    f.severity = Severity::Review;
    f.path = path;
    f.line = line;
    f.message =
        "pytest configuration: " + what + ": collection logic touched: human review required";
    f.evidence = kEvidence;
    return f;
}

// The sentence for one option that differs, or empty when it does not (for addopts: when
// its collection options do not).
std::string describeChange(const std::string &key, const PytestOption *base,
                           const PytestOption *head)
{
    const std::vector<std::string> none;
    if (key == "addopts") {
        const std::vector<std::string> before = collectionArgs(base ? base->args : none);
        const std::vector<std::string> after = collectionArgs(head ? head->args : none);
        const std::vector<std::string> added = minus(after, before);
        const std::vector<std::string> dropped = minus(before, after);
        if (added.empty() && dropped.empty())
            return {};
        std::string text = "`addopts`";
        if (!added.empty())
            text += " adds " + quoted(added);
        if (!dropped.empty())
            text += std::string(added.empty() ? "" : " and") + " drops " + quoted(dropped);
        return text;
    }
    if (base && head && base->args == head->args)
        return {};
    if (!base)
        return "`" + key + "` set to " + spaced(head->args);
    if (!head)
        return "`" + key + "` removed (was " + spaced(base->args) + ")";
    return "`" + key + "` changed from " + spaced(base->args) + " to " + spaced(head->args);
}

} // namespace

bool ConftestAlarm::isConftest(const std::string &path)
{
    return path == "conftest.py" || (path.size() > 12 && path.ends_with("/conftest.py"));
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
            f.evidence = kEvidence;
            out.push_back(std::move(f));
        }
    }
    return out;
}

std::vector<Finding> ConftestAlarm::scanConfig(const std::string &basePath,
                                               const std::string &baseText,
                                               const std::string &headPath,
                                               const std::string &headText)
{
    std::vector<Finding> out;
    const std::string path = headPath.empty() ? basePath : headPath;
    const PytestConfig base = PytestConfig::parse(basePath, baseText);
    const PytestConfig head = PytestConfig::parse(headPath, headText);
    if (head.error) {
        out.push_back(configFinding(path, 0,
                                    "the file does not parse at head (" + *head.error +
                                        "), so what it asks pytest to collect cannot be compared"));
        return out;
    }
    // By key, whichever of pytest's sections holds it (a file has one that pytest reads):
    // moving the options from one section or file name to another changes nothing.
    auto byKey = [](const PytestConfig &config, const char *key) -> const PytestOption * {
        for (const PytestOption &o : config.options) {
            if (o.key == key)
                return &o;
        }
        return nullptr;
    };
    for (const char *key : kConfigKeys) {
        const PytestOption *b = byKey(base, key);
        const PytestOption *h = byKey(head, key);
        if (!b && !h)
            continue;
        const std::string what = describeChange(key, b, h);
        if (what.empty())
            continue;
        const std::string where =
            " in " + (h ? h->section : b->section) +
            (h                  ? std::string()
             : headPath.empty() ? " (" + basePath + " is gone at head)"
                                : " (base line " + std::to_string(b->line) + ")");
        out.push_back(configFinding(path, h ? h->line : 0, what + where));
    }
    return out;
}

std::vector<std::string> ConftestAlarm::declaredPlugins(const std::string &text)
{
    std::vector<std::string> out;
    for (size_t at = text.find("pytest_plugins"); at != std::string::npos;
         at = text.find("pytest_plugins", at + 1)) {
        size_t i = at + 14;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        if (i >= text.size() || text[i] != '=' || (i + 1 < text.size() && text[i + 1] == '='))
            continue;
        ++i;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        // To the closing bracket of a list or tuple, or to the end of the line.
        const char open = i < text.size() ? text[i] : '\0';
        const char close = open == '[' ? ']' : open == '(' ? ')' : '\n';
        const size_t end = text.find(close, i + 1);
        const std::string value =
            text.substr(i, end == std::string::npos ? std::string::npos : end - i);
        for (size_t q = value.find_first_of("'\""); q != std::string::npos;
             q = value.find_first_of("'\"", q + 1)) {
            const size_t qe = value.find(value[q], q + 1);
            if (qe == std::string::npos)
                break;
            out.push_back(value.substr(q + 1, qe - q - 1));
            q = qe;
        }
    }
    return out;
}

} // namespace pw::core
