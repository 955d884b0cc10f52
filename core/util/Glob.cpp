#include "util/Glob.h"

namespace pw::core {
namespace {

// Matches a character class starting at p[0] == '['; advances p past ']' and reports
// whether c is in it. A malformed class (no closing ']') matches a literal '['.
bool matchClass(const char *&p, char c, bool *ok)
{
    const char *q = p + 1;
    bool negate = false;
    if (*q == '!' || *q == '^') {
        negate = true;
        ++q;
    }
    bool found = false;
    bool first = true;
    while (*q && (*q != ']' || first)) {
        first = false;
        if (q[1] == '-' && q[2] && q[2] != ']') {
            if (c >= q[0] && c <= q[2])
                found = true;
            q += 3;
        } else {
            if (c == *q)
                found = true;
            ++q;
        }
    }
    if (*q != ']') {
        *ok = false;
        return c == '[';
    }
    *ok = true;
    p = q + 1;
    return found != negate;
}

bool matchHere(const char *p, const char *s)
{
    while (*p) {
        if (p[0] == '*' && p[1] == '*') {
            // "**" as a whole segment: "**/" zero or more directories, trailing "**" all.
            if (p[2] == '/') {
                const char *rest = p + 3;
                for (const char *t = s;; ++t) {
                    if ((t == s || t[-1] == '/') && matchHere(rest, t))
                        return true;
                    if (!*t)
                        return false;
                }
            }
            if (p[2] == '\0')
                return true;
            // "**" glued to other characters behaves like "*".
            ++p;
            continue;
        }
        switch (*p) {
        case '*': {
            const char *rest = p + 1;
            for (const char *t = s;; ++t) {
                if (matchHere(rest, t))
                    return true;
                if (!*t || *t == '/')
                    return false;
            }
        }
        case '?':
            if (!*s || *s == '/')
                return false;
            ++p;
            ++s;
            break;
        case '[': {
            if (!*s || *s == '/')
                return false;
            bool ok = false;
            const char *q = p;
            if (!matchClass(q, *s, &ok))
                return false;
            p = ok ? q : p + 1;
            ++s;
            break;
        }
        default:
            if (*p != *s)
                return false;
            ++p;
            ++s;
        }
    }
    return *s == '\0';
}

} // namespace

Glob::Glob(std::string pattern) : m_pattern(std::move(pattern))
{
    while (m_pattern.size() > 1 && m_pattern[0] == '.' && m_pattern[1] == '/')
        m_pattern.erase(0, 2);
}

bool Glob::matches(const std::string &path) const
{
    return matchHere(m_pattern.c_str(), path.c_str());
}

GlobSet::GlobSet(const std::vector<std::string> &patterns)
{
    m_globs.reserve(patterns.size());
    for (const std::string &p : patterns)
        m_globs.emplace_back(p);
}

bool GlobSet::matches(const std::string &path) const
{
    for (const Glob &g : m_globs) {
        if (g.matches(path))
            return true;
    }
    return false;
}

} // namespace pw::core
