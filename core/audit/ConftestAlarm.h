#pragma once

#include "audit/Finding.h"
#include "repo/PatchDiff.h"

#include <vector>

namespace pw::core {

// Collection-hook alarm (SPEC §4.4): added lines of a conftest.py or pytest plugin module
// that touch collection (`pytest_collection_modifyitems`, `add_marker`, `.skip(`,
// `deselect`). Review only; never blocks on its own.
class ConftestAlarm
{
public:
    // Whether the added lines of `file` contain a collection-touching pattern at all
    // (cheap; decides whether the file needs a closer look).
    static bool touchesCollection(const FileDiff &file);
    static std::vector<Finding> scan(const FileDiff &file);
    static bool isConftest(const std::string &path);
};

} // namespace pw::core
