#pragma once

#include <string>

namespace pw::core {

// A repository path that is documentation (`*.md`, `*.rst`, anything below `docs/`): no
// test run reads it in practice, so a patch's change to it is exempt where the question is
// whether a test could see the change (Shadow's unwitnessed-file warning, DiffCoverage).
inline bool isDocumentation(const std::string &path)
{
    return path.ends_with(".md") || path.ends_with(".rst") || path.starts_with("docs/");
}

} // namespace pw::core
