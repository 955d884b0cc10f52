#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pw::core {

// The patch diff as plain values (Qt Creator's FileData → ChunkData → RowData idea):
// produced off the GUI thread, cheap to copy, no libgit2 handle inside.

enum class ChangeStatus
{
    Added,
    Deleted,
    Modified,
    Renamed,
    Copied,
    TypeChange
};

const char *changeStatusLetter(ChangeStatus status); // "A", "D", "M", "R", "C", "T"
const char *changeStatusName(ChangeStatus status);   // "added", "deleted", ...

struct DiffLine
{
    enum class Origin
    {
        Context,
        Added,
        Deleted
    };
    Origin origin = Origin::Context;
    int oldLine = 0;  // 1-based, 0 when the line has no old side
    int newLine = 0;  // 1-based, 0 when the line has no new side
    std::string text; // without the trailing newline
    // Changed byte ranges within `text` (offset, length) against the paired line of the
    // other side; empty when the line has no partner or intraline was not asked for.
    std::vector<std::pair<int, int>> intraline;
    bool noNewlineAtEnd = false;
};

struct DiffHunk
{
    int oldStart = 0;
    int oldLines = 0;
    int newStart = 0;
    int newLines = 0;
    std::string header; // "@@ -1,3 +1,4 @@ def f():"
    std::vector<DiffLine> lines;
};

struct FileDiff
{
    ChangeStatus status = ChangeStatus::Modified;
    std::string oldPath; // empty for Added
    std::string newPath; // empty for Deleted
    std::string oldBlob; // 40-hex blob id, empty when absent
    std::string newBlob;
    uint32_t oldMode = 0; // git file mode (0100644, 0100755, 0120000 ...), 0 when absent
    uint32_t newMode = 0;
    int similarity = 0; // 0..100 for renames and copies
    bool binary = false;
    int additions = 0;
    int deletions = 0;
    std::vector<DiffHunk> hunks; // empty when binary or when hunks were not requested

    // The path to show and to key findings by: the new path, or the old one when deleted.
    const std::string &path() const { return newPath.empty() ? oldPath : newPath; }
    bool modeChanged() const { return oldMode != 0 && newMode != 0 && oldMode != newMode; }
};

struct DiffOptions
{
    bool ignoreWhitespace = false;
    int contextLines = 3;
    bool withHunks = true; // false: only the file list (cheap; what the audit needs first)
    bool intraline = true;
    bool detectRenames = true;
};

struct PatchDiff
{
    std::vector<FileDiff> files;
};

// Word-level changed ranges between an old and a new line: the byte ranges of each
// side that are not part of their longest common token subsequence. Tokens are runs of
// word characters, runs of white space, and single other characters. None (both empty)
// when the lines share less than half of their visible text: a replaced line, not an edit.
std::pair<std::vector<std::pair<int, int>>, std::vector<std::pair<int, int>>>
intralineRanges(const std::string &oldText, const std::string &newText);

} // namespace pw::core
