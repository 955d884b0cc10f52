#pragma once

#include "audit/Finding.h"
#include "python/TestFacts.h"
#include "repo/PatchDiff.h"

#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One test file as the patch changed it: facts at base and/or head.
struct TestFileChange
{
    std::string path;     // head path (base path when the file is gone)
    std::string basePath; // empty when added
    ChangeStatus status = ChangeStatus::Modified;
    int similarity = 0;
    std::optional<FileFacts> base;
    std::optional<FileFacts> head;

    std::string testId(const std::string &name) const { return path + "::" + name; }
};

// The test-manifest diff (SPEC §4.1): T-ADD, T-DEL, T-GONE, T-SKIP, T-WEAK, plus
// T-RENAME (info) for renamed files and pure function renames, and PARSE_ERROR.
class ManifestDiff
{
public:
    static std::vector<Finding> evaluate(const TestFileChange &change);
};

} // namespace pw::core
