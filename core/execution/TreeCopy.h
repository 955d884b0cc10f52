#pragma once

#include <memory>
#include <string>

namespace pw::core {

// A run's own writable copy of a pristine tree (TreeCache), removed when the last copy of
// this handle goes — also when the run timed out, was cancelled or threw. Runs never get
// the pristine tree writable: a test that rewrites a source file, drops bytecode into
// `__pycache__` or writes a file next to itself changes only its copy, so neither a later
// run nor one running at the same time sees it.
//
// Where: `<pristine>.run-XXXXXX`, next to the pristine tree, so pytest finds the same
// ancestors above the tree (rootdir and ini-file discovery, conftest.py search) as in the
// pristine tree, and never a world-writable /tmp. Files are copied with copy_file_range
// (a reflink where the filesystem shares extents, btrfs and XFS), plainly otherwise;
// symlinks as symlinks, the executable bit and the files' times kept; `__pycache__` is
// never copied: a run's bytecode comes from patchwitness' own compile of the pristine tree
// (TreeBytecode, seeded by PytestRun), or the run compiles its own.
class TreeCopy
{
public:
    TreeCopy() = default;

    // Copies `pristine`. Throws Error::input when the copy cannot be written.
    static TreeCopy make(const std::string &pristine);

    bool isNull() const { return !m_state; }
    const std::string &path() const;     // the copy, absolute
    const std::string &pristine() const; // the tree it copies

    // `path` under the pristine tree as the same path under the copy (others unchanged).
    std::string toCopy(const std::string &path) const;
    // Every mention of the copy's directory in `text` as the pristine tree's: what reports,
    // records and replay commands name, so they stay comparable across runs and valid.
    std::string toPristine(std::string text) const;

private:
    struct State;
    std::shared_ptr<State> m_state;
};

// Removes a copy's directory, making read-only directories a test left writable first.
// Never throws: a copy that cannot be removed only costs disk (the cache removes `<key>.run-*`
// when it rebuilds or evicts that tree).
void removeTreeCopy(const std::string &dir);

} // namespace pw::core
