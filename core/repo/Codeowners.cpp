#include "repo/Codeowners.h"

#include "repo/Repository.h"

#include <algorithm>
#include <cctype>

namespace pw::core {
namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t';
}

// A GitHub user or team (`@name`, `@org/team`) or an e-mail address.
bool isOwner(const std::string &token)
{
    auto nameChars = [](const std::string &s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
        });
    };
    if (token.size() > 1 && token[0] == '@') {
        const std::string name = token.substr(1);
        const size_t slash = name.find('/');
        if (slash == std::string::npos)
            return nameChars(name);
        return nameChars(name.substr(0, slash)) && nameChars(name.substr(slash + 1));
    }
    const size_t at = token.find('@');
    if (at == std::string::npos || at == 0 || token.find('@', at + 1) != std::string::npos)
        return false;
    const std::string domain = token.substr(at + 1);
    const size_t dot = domain.find('.');
    return dot != std::string::npos && dot > 0 && dot + 1 < domain.size();
}

struct ParsedLine
{
    std::string pattern; // as Glob syntax; escaped metacharacters as one-character classes
    std::vector<std::string> owners;
    std::string error; // why GitHub would skip the line
};

// Splits a non-blank, non-comment line into its pattern (with `\` escapes resolved) and
// its owners (up to a `#` that starts a trailing comment).
ParsedLine splitLine(const std::string &line)
{
    ParsedLine out;
    size_t i = 0;
    for (; i < line.size() && !isSpace(line[i]); ++i) {
        const char c = line[i];
        if (c == '\\') {
            if (i + 1 >= line.size()) {
                out.error = "the pattern ends with an unfinished escape (\\)";
                return out;
            }
            const char next = line[++i];
            if (next == '*' || next == '?' || next == '[' || next == ']')
                out.pattern += std::string("[") + next + "]";
            else
                out.pattern += next;
            continue;
        }
        if (c == '[' || c == ']') {
            out.error = "character ranges ([ ]) are not supported in CODEOWNERS";
            return out;
        }
        if (c == '!' && i == 0) {
            out.error = "negation (!) is not supported in CODEOWNERS";
            return out;
        }
        out.pattern += c;
    }
    while (i < line.size()) {
        while (i < line.size() && isSpace(line[i]))
            ++i;
        if (i >= line.size() || line[i] == '#')
            break;
        const size_t begin = i;
        while (i < line.size() && !isSpace(line[i]))
            ++i;
        const std::string token = line.substr(begin, i - begin);
        if (!isOwner(token)) {
            out.error =
                "'" + token + "' is not an owner (expected @user, @org/team or an e-mail address)";
            return out;
        }
        out.owners.push_back(token);
    }
    return out;
}

} // namespace

Codeowners Codeowners::parse(const std::string &text, const std::string &origin)
{
    Codeowners out;
    out.m_file = origin;
    if (text.size() > kMaxFileSize) {
        out.m_warnings.push_back(origin + ":1: larger than GitHub's 3 MB limit: not read");
        return out;
    }
    int number = 0;
    size_t begin = 0;
    while (begin < text.size()) {
        ++number;
        const size_t nl = text.find('\n', begin);
        std::string line = text.substr(begin, nl == std::string::npos ? nl : nl - begin);
        begin = nl == std::string::npos ? text.size() : nl + 1;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#')
            continue;
        line.erase(0, first);
        while (!line.empty() && isSpace(line.back()))
            line.pop_back();

        ParsedLine parsed = splitLine(line);
        if (!parsed.error.empty()) {
            out.m_warnings.push_back(origin + ':' + std::to_string(number) + ": " + parsed.error +
                                     " (line skipped)");
            continue;
        }
        std::string pattern = parsed.pattern;
        Rule::Target target = Rule::Target::PathOrAncestor;
        if (pattern.size() > 1 && pattern.back() == '/') {
            target = Rule::Target::AncestorOnly;
            while (pattern.size() > 1 && pattern.back() == '/')
                pattern.pop_back();
        }
        bool anchored = false;
        if (pattern.front() == '/') {
            anchored = true;
            pattern.erase(0, pattern.find_first_not_of('/'));
        }
        if (pattern.empty()) {
            pattern = "**"; // "/" is the root directory: everything
            target = Rule::Target::PathOrAncestor;
        }
        anchored = anchored || pattern.find('/') != std::string::npos;
        // `docs/*` owns the files directly in docs/, not those further down.
        const size_t slash = pattern.rfind('/');
        if (target != Rule::Target::AncestorOnly && anchored &&
            pattern.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos, "*") ==
                0)
            target = Rule::Target::PathOnly;
        if (!anchored)
            pattern = "**/" + pattern;
        out.m_rules.push_back({Glob(pattern), target, std::move(parsed.owners), number});
    }
    return out;
}

Codeowners Codeowners::load(const Repository &repo, const Revision &rev)
{
    if (rev.commit.empty() && !rev.isWorktree())
        return {}; // an unborn revision has no files
    for (const char *candidate : {".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}) {
        if (repo.entry(rev, candidate))
            return parse(repo.readFile(rev, candidate), candidate);
    }
    return {};
}

bool Codeowners::matches(const Rule &rule, const std::string &path,
                         const std::vector<std::string> &ancestors)
{
    if (rule.target != Rule::Target::AncestorOnly && rule.glob.matches(path))
        return true;
    if (rule.target == Rule::Target::PathOnly)
        return false;
    return std::any_of(ancestors.begin(), ancestors.end(),
                       [&rule](const std::string &dir) { return rule.glob.matches(dir); });
}

std::vector<std::string> Codeowners::ownersOf(const std::string &path) const
{
    std::string p = path;
    while (p.size() > 1 && p[0] == '.' && p[1] == '/')
        p.erase(0, 2);
    p.erase(0, std::min(p.find_first_not_of('/'), p.size()));
    // "a/b/c.py" lies in the directories "a" and "a/b".
    std::vector<std::string> ancestors;
    for (size_t at = p.find('/'); at != std::string::npos; at = p.find('/', at + 1))
        ancestors.push_back(p.substr(0, at));
    for (auto it = m_rules.rbegin(); it != m_rules.rend(); ++it) {
        if (matches(*it, p, ancestors))
            return it->owners;
    }
    return {};
}

} // namespace pw::core
