#pragma once

#include "repo/PatchDiff.h"

#include <QString>
#include <array>
#include <cstdint>
#include <vector>

namespace pw::gui {

enum class DiffMode
{
    SideBySide,
    Unified
};

enum class DiffSide
{
    Old = 0,
    New = 1
};

// One painted row of a file diff. Rows only index into the FileDiff (Qt Creator's RowData
// idea without copying text): building them for 20,000 lines is a few hundred KB of ints.
struct DiffRow
{
    enum class Kind : std::uint8_t
    {
        Note,       // file-level fact: binary, rename, mode change, empty file; `hunk` = note index
        HunkHeader, // "@@ -a,b +c,d @@ ..." before each hunk
        Line,       // one line (unified) or a paired old/new line (side by side)
        SizeCap     // summary of a file over the size cap, with the "Load anyway" button
    };
    Kind kind = Kind::Line;
    int hunk = -1;
    // Index into hunks[hunk].lines shown on each side, -1 for none (a filler cell in side by
    // side). In unified mode a context line sets both, an added/deleted line one.
    std::array<int, 2> line{-1, -1};

    int lineAt(DiffSide side) const { return line[size_t(side)]; }
};

// Where a row came from, the same in both modes: a note, a hunk header (line == -1) or
// a line of a hunk. Used to keep the current row across mode toggles.
struct DiffAnchor
{
    DiffRow::Kind kind = DiffRow::Kind::Line;
    int hunk = -1;
    int line = -1;
    bool operator==(const DiffAnchor &o) const
    {
        return kind == o.kind && hunk == o.hunk && line == o.line;
    }
};

class DiffRows
{
public:
    // The rows of `file` in `mode`; a capped file gets its notes and one SizeCap row.
    static DiffRows build(const core::FileDiff &file, DiffMode mode, bool capped);

    // File-level notes ("binary file", "renamed from X, similarity N%", "mode changed ...").
    static std::vector<QString> fileNotes(const core::FileDiff &file);
    // Bytes of the hunks' text (what the size cap compares) and the number of diff lines.
    static qint64 textBytes(const core::FileDiff &file);
    static qint64 lineCount(const core::FileDiff &file);
    // "1.8 MB diff, 23,000 lines"
    static QString capSummary(const core::FileDiff &file);

    const std::vector<DiffRow> &rows() const { return m_rows; }
    int size() const { return int(m_rows.size()); }
    const DiffRow &at(int row) const { return m_rows[size_t(row)]; }
    const std::vector<QString> &notes() const { return m_notes; }

    int rowOfLine(int hunk, int line) const;   // -1 when not shown
    int rowOfHeader(int hunk) const;           // -1 when not shown
    int rowOf(const DiffAnchor &anchor) const; // -1 when not shown
    DiffAnchor anchorOf(int row, DiffSide side) const;
    // First row of each hunk's first change (or its first line), ascending.
    const std::vector<int> &hunkTargets() const { return m_hunkTargets; }

    int maxLineNumber() const { return m_maxLineNumber; }
    int maxColumns() const { return m_maxColumns; } // longest line, tabs expanded

    static constexpr int kTabWidth = 4;

private:
    std::vector<DiffRow> m_rows;
    std::vector<QString> m_notes;
    std::vector<int> m_lineOffset; // per hunk: index of its first line in m_rowOfLine
    std::vector<int> m_rowOfLine;  // per line of every hunk
    std::vector<int> m_headerRow;  // per hunk
    std::vector<int> m_hunkTargets;
    int m_maxLineNumber = 0;
    int m_maxColumns = 0;
};

// Converts byte ranges of a UTF-8 string into UTF-16 ranges of its QString::fromUtf8.
std::vector<std::pair<int, int>> utf16Ranges(const std::string &utf8,
                                             const std::vector<std::pair<int, int>> &byteRanges);

} // namespace pw::gui
