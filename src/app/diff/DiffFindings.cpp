#include "DiffFindings.h"

#include <QStringList>
#include <algorithm>
#include <climits>

namespace pw::gui {

using core::DiffLine;

bool DiffFindings::namesOldLine(const core::Finding &f) const
{
    // A deleted test has no head line: every finding about it (T-DEL, the strength gate's
    // BLOCKER:deleted, …) carries the line of the test at base; so does a finding on a
    // renamed file's old path (the base's census of it).
    return m_deletedFile || f.code.starts_with("T-DEL") || f.code == "BLOCKER:deleted" ||
           (!f.test.empty() && m_deletedTests.count(f.test)) || onOldPath(f);
}

bool DiffFindings::onOldPath(const core::Finding &f) const
{
    return !m_oldPath.empty() && f.path == m_oldPath;
}

void DiffFindings::anchor(const core::FileDiff &file, const DiffRows &rows, bool capped)
{
    m_rows.clear();
    m_markers.clear();
    m_deletedFile = file.newPath.empty();
    m_oldPath = file.status == core::ChangeStatus::Renamed && file.oldPath != file.newPath
                    ? file.oldPath
                    : std::string();
    m_deletedTests.clear();
    for (const core::Finding &f : m_findings) {
        if ((f.code.starts_with("T-DEL") || f.code == "BLOCKER:deleted") && !f.test.empty())
            m_deletedTests.insert(f.test);
    }
    for (size_t i = 0; i < m_findings.size(); ++i) {
        const int row = rowFor(m_findings[i], file, rows, capped);
        if (row < 0)
            continue;
        m_rows[row].push_back(int(i));
        auto [it, inserted] = m_markers.emplace(row, m_findings[i].severity);
        if (!inserted)
            it->second = std::max(it->second, m_findings[i].severity);
    }
}

int DiffFindings::rowFor(const core::Finding &f, const core::FileDiff &file, const DiffRows &rows,
                         bool capped) const
{
    if (rows.size() == 0)
        return -1;
    if (capped)
        return rows.size() - 1; // the summary row
    if (f.line <= 0 || file.hunks.empty())
        return 0; // file-level
    auto find = [&](bool old) {
        for (size_t h = 0; h < file.hunks.size(); ++h) {
            const auto &lines = file.hunks[h].lines;
            for (size_t i = 0; i < lines.size(); ++i) {
                const DiffLine &l = lines[i];
                if (old ? (l.origin != DiffLine::Origin::Added && l.oldLine == f.line)
                        : (l.origin != DiffLine::Origin::Deleted && l.newLine == f.line))
                    return rows.rowOfLine(int(h), int(i));
            }
        }
        return -1;
    };
    const bool oldFirst = namesOldLine(f);
    int row = find(oldFirst);
    // A line of the renamed file's base is never one of its head (they only share a number).
    if (row < 0 && !m_deletedFile && !onOldPath(f))
        row = find(!oldFirst);
    if (row >= 0)
        return row;
    // Not shown: the header of the hunk nearest to that line.
    int best = -1, bestDistance = INT_MAX;
    for (size_t h = 0; h < file.hunks.size(); ++h) {
        const core::DiffHunk &hunk = file.hunks[h];
        const int start = oldFirst ? hunk.oldStart : hunk.newStart;
        const int end = start + std::max(0, (oldFirst ? hunk.oldLines : hunk.newLines) - 1);
        const int distance = f.line < start ? start - f.line : f.line > end ? f.line - end : 0;
        if (distance < bestDistance) {
            bestDistance = distance;
            best = int(h);
        }
    }
    return std::max(0, rows.rowOfHeader(best));
}

std::optional<core::Severity> DiffFindings::marker(int row) const
{
    auto it = m_markers.find(row);
    if (it == m_markers.end())
        return std::nullopt;
    return it->second;
}

QString DiffFindings::toolTip(int row, const DiffRows &rows) const
{
    auto it = m_rows.find(row);
    if (it == m_rows.end())
        return {};
    const bool exact = row < rows.size() && rows.at(row).kind == DiffRow::Kind::Line;
    QStringList lines;
    for (const int index : it->second) {
        const core::Finding &f = m_findings[size_t(index)];
        QString line = QString::fromLatin1(core::severityName(f.severity)).toUpper() +
                       QLatin1Char(' ') + QString::fromStdString(f.code) + QStringLiteral(": ") +
                       QString::fromStdString(f.message);
        if (!exact && f.line > 0)
            line += QStringLiteral(" (line %1, outside the shown context)").arg(f.line);
        if (!f.test.empty())
            line += QStringLiteral("\n    ") + QString::fromStdString(f.test);
        lines.append(line);
    }
    return lines.join(QLatin1Char('\n'));
}

int DiffFindings::next(int row) const
{
    auto it = m_rows.upper_bound(row);
    return it == m_rows.end() ? -1 : it->first;
}

int DiffFindings::previous(int row) const
{
    auto it = m_rows.lower_bound(row);
    return it == m_rows.begin() ? -1 : std::prev(it)->first;
}

int DiffFindings::rowOf(const core::Finding &f, bool *oldSide) const
{
    for (const auto &[row, indices] : m_rows) {
        for (int i : indices) {
            const core::Finding &x = m_findings[size_t(i)];
            if (x.code == f.code && x.path == f.path && x.line == f.line && x.test == f.test &&
                x.message == f.message && x.gate == f.gate) {
                if (oldSide)
                    *oldSide = namesOldLine(x);
                return row;
            }
        }
    }
    return -1;
}

bool DiffFindings::onOldSide(int row) const
{
    auto it = m_rows.find(row);
    return it != m_rows.end() && namesOldLine(m_findings[size_t(it->second.front())]);
}

} // namespace pw::gui
