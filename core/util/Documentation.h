#pragma once

#include <string>

namespace pw::core {

// A repository path that is documentation (`*.md`, `*.rst`, anything below `docs/`): no
// test run reads it in practice, so a patch's change to it is exempt where the question is
// whether a test could see the change (Shadow's unwitnessed-file warning, DiffCoverage).
inline bool isDocumentation(const std::string &path)
{
    const auto endsWith = [&](const char *suffix, size_t n) {
        return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
    };
    return endsWith(".md", 3) || endsWith(".rst", 4) || path.compare(0, 5, "docs/") == 0;
}

} // namespace pw::core
