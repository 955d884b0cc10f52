#pragma once

#include <string>
#include <vector>

namespace pw::core {

// The demo repository: a small Python package with a maintainer's base commit on
// `main` and a coding agent's patch on `agent/fix-rounding` that exhibits every static
// verdict. It is built from the recipe compiled into core (resources/demo.qrc; the README
// next to it says what each change exhibits), so `patchwitness --demo` works on a fresh
// machine. Commits have fixed authors and times: every build has the same commit ids.
class DemoRepository
{
public:
    enum class Tree
    {
        Base,
        Head
    };

    static constexpr const char *kBaseBranch = "main";
    static constexpr const char *kHeadBranch = "agent/fix-rounding";

    // Returns the absolute path of a current demo repository at `dir` (empty: defaultDir()),
    // building it first when it is missing or was built from another recipe. A build
    // happens in a temporary sibling directory that is renamed into place, so `dir` never
    // holds a half-built repository. Refuses to replace a directory that is neither empty
    // nor a demo. Throws Error: Input for an unusable directory, Harness for a failed build.
    static std::string ensure(const std::string &dir = {});

    // <generic data location>/patchwitness/demo, e.g. ~/.local/share/patchwitness/demo.
    static std::string defaultDir();

    // sha256 of the recipe (both trees, both commit messages, the build format). A demo
    // stores it in .git/patchwitness-demo-recipe; a different value means "rebuild".
    static std::string recipeDigest();
    static std::string digestFile(const std::string &repoDir);

    // The recipe's files for one side, '/'-separated relative paths, sorted.
    static std::vector<std::string> files(Tree tree);
    // Writes every file of one side of the recipe under `dir` (created when missing).
    static void writeTree(Tree tree, const std::string &dir);
};

} // namespace pw::core
