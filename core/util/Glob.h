#pragma once

#include <string>
#include <vector>

namespace pw::core {

// A path glob as in .gitignore / pytest configs: `*` and `?` stay within one path
// segment, `**/` matches zero or more directories, a trailing `/**` everything below,
// `[abc]` a character class. Paths are '/'-separated and relative to the repository.
class Glob
{
public:
    explicit Glob(std::string pattern);

    bool matches(const std::string &path) const;
    const std::string &pattern() const { return m_pattern; }

private:
    std::string m_pattern;
};

class GlobSet
{
public:
    GlobSet() = default;
    explicit GlobSet(const std::vector<std::string> &patterns);

    bool matches(const std::string &path) const;
    bool empty() const { return m_globs.empty(); }

private:
    std::vector<Glob> m_globs;
};

} // namespace pw::core
