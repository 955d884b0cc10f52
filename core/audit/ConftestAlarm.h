#pragma once

#include "audit/Finding.h"
#include "repo/PatchDiff.h"

#include <string>
#include <vector>

namespace pw::core {

// Collection-hook alarm: every way a patch can drop tests from collection
// without deleting them. Review only; never blocks on its own.
//  - Added lines of a conftest.py or pytest plugin module that touch collection
//    (`pytest_collection_modifyitems`, `pytest_ignore_collect`, `pytest_deselected`,
//    `collect_ignore`, `collect_ignore_glob`, `add_marker`, `.skip(`, `deselect`).
//  - Changes to `testpaths`, `norecursedirs`, `python_files`, `python_functions`,
//    `python_classes`, and to the collection options of `addopts` (`-k`, `-m`, `--deselect`,
//    `--ignore`, `--ignore-glob`, `-p`) in pytest's own section of its configuration files
//    (PytestConfig): compared as pytest reads them, so a removed line, a continuation line
//    or a TOML array element is a change too, and another tool's `testpaths` is not.
class ConftestAlarm
{
public:
    // Whether the added lines of `file` contain a collection-touching pattern at all
    // (cheap; decides whether the file needs a closer look).
    static bool touchesCollection(const FileDiff &file);
    static std::vector<Finding> scan(const FileDiff &file);
    static bool isConftest(const std::string &path);

    // The collection-relevant options of pytest's configuration that differ between the
    // file's base side and head side (a path empty: the file is absent on that side, or is
    // no pytest configuration file there; each side is read as its own name says).
    static std::vector<Finding> scanConfig(const std::string &basePath, const std::string &baseText,
                                           const std::string &headPath,
                                           const std::string &headText);

    // The modules a conftest's `pytest_plugins = [...]` names (dotted, as written).
    static std::vector<std::string> declaredPlugins(const std::string &conftestText);
};

} // namespace pw::core
