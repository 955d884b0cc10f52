#pragma once

#include "execution/Interpreter.h"
#include "execution/TreeLayout.h"

#include <stop_token>
#include <string>
#include <vector>

namespace pw::core {

struct RunEnvironment;
struct TagDistance;

// How runs on one materialised tree import the tree's own code, checked before the first
// run: base tests base's code and head tests head's code, whatever the interpreter has
// installed, and the reports say so.
struct TreeImports
{
    TreeLayout layout;
    // Absolute: the tree's import roots, then the directory of its generated dist-info.
    std::vector<std::string> importPath;
    // Generated modules the runs import (TreeLayout::generatedModules): name and file.
    std::vector<std::pair<std::string, std::string>> generatedModules;
    // What would have shadowed the tree and was overridden, one sentence each ("an installed
    // copy of attr at /usr/lib/python3/dist-packages/attr (attrs 22.2.0)", "an editable
    // install of attrs pointing at file:///home/r/attrs").
    std::vector<std::string> overridden;
    // Where each tree package comes from in the runs (the preflight's answer).
    std::vector<std::pair<std::string, std::string>> origins;

    // "attr, attrs from src/ (pyproject.toml [tool.hatch.build.targets.wheel] packages);
    // attrs 25.3.0 (git describe (hatch-vcs))".
    std::string summary() const;
};

// Reads the tree's layout (readTreeLayout), stages its distribution metadata under
// `cacheRoot`, and runs the preflight: `pw_plugin.layout.describe()` with the environment
// the runs get (`env` with the tree's import path; inside the sandbox when `sandbox`).
// Throws Error::input, naming the tree (`label`: "base merge-base(main,HEAD)") and what to
// do, when the tree cannot be tested as asked: its pytest configuration needs pytest 9
// and the interpreter's is older; the interpreter does not start in the sandbox (a file
// under /tmp the private /tmp hides) or is another Python when started in the tree (a
// pyenv `.python-version`); a tree package still comes from elsewhere. A preflight still
// running when `stop` is requested is killed, and Error::interrupted.
TreeImports prepareTreeImports(const std::string &treeDir, const std::string &label,
                               const RunEnvironment &env, const InterpreterProbe &probe,
                               const TagDistance *vcs, bool dirty, const std::string &cacheRoot,
                               bool sandbox, std::stop_token stop = {});

} // namespace pw::core
