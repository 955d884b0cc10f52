#pragma once

#include "DiffRows.h"
#include "audit/Finding.h"
#include "repo/PatchDiff.h"

#include <QString>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pw::gui {

// The findings of one file anchored to the rows that show their lines (the gutter markers).
// A finding names a head-side line; the findings about a deleted test (T-DEL, BLOCKER:deleted)
// and those on a renamed file's old path name base-side lines; a line
// the diff does not show anchors at the nearest hunk header, a file-level finding (line 0)
// at the first row, and everything at the summary row of a capped file.
class DiffFindings
{
public:
    void set(std::vector<core::Finding> findings) { m_findings = std::move(findings); }
    void clear() { m_findings.clear(); }
    const std::vector<core::Finding> &findings() const { return m_findings; }

    // Recomputes the anchors for `rows` (built from `file`).
    void anchor(const core::FileDiff &file, const DiffRows &rows, bool capped);

    const std::map<int, core::Severity> &markers() const { return m_markers; } // worst per row
    bool hasRow(int row) const { return m_rows.count(row) > 0; }
    std::optional<core::Severity> marker(int row) const;
    // "BLOCK T-DEL: test function test_x disappeared", one line per finding of the row.
    QString toolTip(int row, const DiffRows &rows) const;
    int next(int row) const;       // first anchored row after `row`, -1 if none
    int previous(int row) const;   // last anchored row before `row`, -1 if none
    bool onOldSide(int row) const; // the row's first finding names a base-side line
    // The row `f` (one of this file's findings, compared by value) is anchored at, -1 if
    // none; `oldSide` says whether it names a base-side line.
    int rowOf(const core::Finding &f, bool *oldSide = nullptr) const;

private:
    bool namesOldLine(const core::Finding &f) const;
    bool onOldPath(const core::Finding &f) const; // a renamed file's base path
    int rowFor(const core::Finding &f, const core::FileDiff &file, const DiffRows &rows,
               bool capped) const;

    std::vector<core::Finding> m_findings;
    std::map<int, std::vector<int>> m_rows; // row -> indices into m_findings
    std::map<int, core::Severity> m_markers;
    bool m_deletedFile = false;
    std::string m_oldPath;                // of a renamed file: findings on it name base-side lines
    std::set<std::string> m_deletedTests; // every finding about one names a base-side line
};

} // namespace pw::gui
