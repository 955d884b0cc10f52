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
    // A rename with only one side under the test globs: the other side's path (moved into
    // the globs from it, or out of them to it).
    std::string outsidePath;
    ChangeStatus status = ChangeStatus::Modified;
    int similarity = 0;
    std::optional<FileFacts> base;
    std::optional<FileFacts> head;

    std::string testId(const std::string &name) const { return path + "::" + name; }
};

struct TestPair;

// The test-manifest diff: T-ADD, T-DEL, T-GONE, T-SKIP, T-WEAK, plus
// T-RENAME (info) for renamed test files and for tests matched across a rename or move
// (TestPairing), and PARSE_ERROR.
//   - A skip is T-SKIP only on a test that exists at base (on it, its class, or the
//     module's pytestmark). A new test is never T-SKIP: when it does not run here from
//     birth it gets a T-ADD note — review when it never runs (an unconditional skip, a
//     skip call its body always reaches) or never counts (an unconditional xfail), info
//     naming the condition when a condition decides (skipif, importorskip, a skip behind
//     an `if`): whether a version or platform gate holds here is the census's to say.
//   - A test file that exists only at head is T-ADD when it has tests; one whose tests all
//     moved from a removed file is a T-RENAME of those tests, not a T-GONE plus a T-ADD.
//   - A rename where only one side is a test file: moved into the test globs is T-ADD of
//     its tests, moved out of them is T-GONE (its tests are no longer collected).
class ManifestDiff
{
public:
    // Every finding of the test files a patch changed; `pairs` are
    // pairPatchTests(changes).
    static std::vector<Finding> evaluate(const std::vector<TestFileChange> &changes,
                                         const std::vector<TestPair> &pairs);
};

} // namespace pw::core
