#include "DiffRows.h"

#include <QLocale>
#include <algorithm>

namespace pw::gui {
namespace {

using core::DiffLine;

QString modeText(uint32_t mode)
{
    return QString::number(mode, 8).rightJustified(6, QLatin1Char('0'));
}

int expandedColumns(const std::string &text)
{
    int columns = 0;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\t')
            columns += DiffRows::kTabWidth - columns % DiffRows::kTabWidth;
        else if ((byte & 0xC0) != 0x80) // not a UTF-8 continuation byte
            ++columns;
    }
    return columns;
}

} // namespace

std::vector<QString> DiffRows::fileNotes(const core::FileDiff &file)
{
    std::vector<QString> notes;
    const QString oldPath = QString::fromStdString(file.oldPath);
    if (file.status == core::ChangeStatus::Renamed)
        notes.push_back(
            QStringLiteral("renamed from %1, similarity %2%").arg(oldPath).arg(file.similarity));
    else if (file.status == core::ChangeStatus::Copied)
        notes.push_back(
            QStringLiteral("copied from %1, similarity %2%").arg(oldPath).arg(file.similarity));
    if (file.status == core::ChangeStatus::TypeChange)
        notes.push_back(QStringLiteral("file type changed: mode %1 \u2192 %2")
                            .arg(modeText(file.oldMode), modeText(file.newMode)));
    else if (file.modeChanged())
        notes.push_back(QStringLiteral("mode changed %1 \u2192 %2%3")
                            .arg(modeText(file.oldMode), modeText(file.newMode),
                                 (file.newMode & 0111) && !(file.oldMode & 0111)
                                     ? QStringLiteral(" (now executable)")
                                 : !(file.newMode & 0111) && (file.oldMode & 0111)
                                     ? QStringLiteral(" (no longer executable)")
                                     : QString()));
    if (file.binary) {
        const QString what = file.status == core::ChangeStatus::Added ? QStringLiteral("added")
                             : file.status == core::ChangeStatus::Deleted
                                 ? QStringLiteral("deleted")
                                 : QStringLiteral("changed");
        notes.push_back(QStringLiteral("binary file %1, contents not shown").arg(what));
    } else if (file.hunks.empty() && notes.empty()) {
        notes.push_back(file.status == core::ChangeStatus::Added ? QStringLiteral("new empty file")
                        : file.status == core::ChangeStatus::Deleted
                            ? QStringLiteral("deleted empty file")
                            : QStringLiteral("no textual change"));
    }
    return notes;
}

qint64 DiffRows::textBytes(const core::FileDiff &file)
{
    qint64 bytes = 0;
    for (const core::DiffHunk &h : file.hunks)
        for (const DiffLine &l : h.lines)
            bytes += qint64(l.text.size()) + 1;
    return bytes;
}

qint64 DiffRows::lineCount(const core::FileDiff &file)
{
    qint64 lines = 0;
    for (const core::DiffHunk &h : file.hunks)
        lines += qint64(h.lines.size());
    return lines;
}

QString DiffRows::capSummary(const core::FileDiff &file)
{
    const QLocale locale;
    return QStringLiteral("%1 diff, %2 lines")
        .arg(locale.formattedDataSize(textBytes(file), 1, QLocale::DataSizeSIFormat),
             locale.toString(lineCount(file)));
}

DiffRows DiffRows::build(const core::FileDiff &file, DiffMode mode, bool capped)
{
    DiffRows r;
    r.m_notes = fileNotes(file);
    for (size_t i = 0; i < r.m_notes.size(); ++i)
        r.m_rows.push_back({DiffRow::Kind::Note, int(i), {-1, -1}});
    if (capped) {
        r.m_rows.push_back({DiffRow::Kind::SizeCap, -1, {-1, -1}});
        return r;
    }

    const int hunks = int(file.hunks.size());
    r.m_lineOffset.resize(size_t(hunks));
    r.m_headerRow.resize(size_t(hunks));
    int total = 0;
    for (int h = 0; h < hunks; ++h) {
        r.m_lineOffset[size_t(h)] = total;
        total += int(file.hunks[size_t(h)].lines.size());
    }
    r.m_rowOfLine.assign(size_t(total), -1);
    r.m_rows.reserve(r.m_rows.size() + size_t(total + hunks));

    auto push = [&r](int h, int oldIdx, int newIdx) {
        const int row = int(r.m_rows.size());
        r.m_rows.push_back({DiffRow::Kind::Line, h, {oldIdx, newIdx}});
        const int base = r.m_lineOffset[size_t(h)];
        if (oldIdx >= 0)
            r.m_rowOfLine[size_t(base + oldIdx)] = row;
        if (newIdx >= 0)
            r.m_rowOfLine[size_t(base + newIdx)] = row;
    };

    std::vector<int> deleted, added;
    for (int h = 0; h < hunks; ++h) {
        const core::DiffHunk &hunk = file.hunks[size_t(h)];
        r.m_maxLineNumber = std::max(
            {r.m_maxLineNumber, hunk.oldStart + hunk.oldLines, hunk.newStart + hunk.newLines});
        r.m_headerRow[size_t(h)] = int(r.m_rows.size());
        r.m_rows.push_back({DiffRow::Kind::HunkHeader, h, {-1, -1}});
        const int firstLineRow = int(r.m_rows.size());
        int firstChangeRow = -1;

        const int n = int(hunk.lines.size());
        for (int i = 0; i < n;) {
            const DiffLine &line = hunk.lines[size_t(i)];
            r.m_maxColumns = std::max(r.m_maxColumns, expandedColumns(line.text));
            r.m_maxLineNumber = std::max({r.m_maxLineNumber, line.oldLine, line.newLine});
            if (line.origin == DiffLine::Origin::Context) {
                push(h, i, i);
                ++i;
                continue;
            }
            if (firstChangeRow < 0)
                firstChangeRow = int(r.m_rows.size());
            if (mode == DiffMode::Unified) {
                if (line.origin == DiffLine::Origin::Deleted)
                    push(h, i, -1);
                else
                    push(h, -1, i);
                ++i;
                continue;
            }
            // Side by side: the k-th deleted line of a change block faces its k-th added one.
            deleted.clear();
            added.clear();
            for (; i < n && hunk.lines[size_t(i)].origin != DiffLine::Origin::Context; ++i) {
                const DiffLine &l = hunk.lines[size_t(i)];
                r.m_maxColumns = std::max(r.m_maxColumns, expandedColumns(l.text));
                r.m_maxLineNumber = std::max({r.m_maxLineNumber, l.oldLine, l.newLine});
                (l.origin == DiffLine::Origin::Deleted ? deleted : added).push_back(i);
            }
            const size_t pairs = std::max(deleted.size(), added.size());
            for (size_t k = 0; k < pairs; ++k)
                push(h, k < deleted.size() ? deleted[k] : -1, k < added.size() ? added[k] : -1);
        }
        if (firstChangeRow >= 0)
            r.m_hunkTargets.push_back(firstChangeRow);
        else if (firstLineRow < int(r.m_rows.size()))
            r.m_hunkTargets.push_back(firstLineRow);
        else
            r.m_hunkTargets.push_back(r.m_headerRow[size_t(h)]);
    }
    return r;
}

int DiffRows::rowOfLine(int hunk, int line) const
{
    if (hunk < 0 || hunk >= int(m_lineOffset.size()) || line < 0)
        return -1;
    const size_t at = size_t(m_lineOffset[size_t(hunk)] + line);
    return at < m_rowOfLine.size() ? m_rowOfLine[at] : -1;
}

int DiffRows::rowOfHeader(int hunk) const
{
    return hunk >= 0 && hunk < int(m_headerRow.size()) ? m_headerRow[size_t(hunk)] : -1;
}

int DiffRows::rowOf(const DiffAnchor &anchor) const
{
    switch (anchor.kind) {
    case DiffRow::Kind::Line:
        return rowOfLine(anchor.hunk, anchor.line);
    case DiffRow::Kind::HunkHeader:
        return rowOfHeader(anchor.hunk);
    case DiffRow::Kind::Note:
    case DiffRow::Kind::SizeCap:
        for (int row = 0; row < size(); ++row) {
            const DiffRow &r = at(row);
            if (r.kind == anchor.kind && r.hunk == anchor.hunk)
                return row;
            if (r.kind != DiffRow::Kind::Note && r.kind != DiffRow::Kind::SizeCap)
                break;
        }
        return -1;
    }
    return -1;
}

DiffAnchor DiffRows::anchorOf(int row, DiffSide side) const
{
    if (row < 0 || row >= size())
        return {DiffRow::Kind::Line, -1, -1};
    const DiffRow &r = at(row);
    if (r.kind != DiffRow::Kind::Line)
        return {r.kind, r.hunk, -1};
    const int other = side == DiffSide::Old ? r.line[1] : r.line[0];
    const int mine = r.lineAt(side);
    return {r.kind, r.hunk, mine >= 0 ? mine : other};
}

std::vector<std::pair<int, int>> utf16Ranges(const std::string &utf8,
                                             const std::vector<std::pair<int, int>> &byteRanges)
{
    if (byteRanges.empty())
        return {};
    const bool ascii = std::all_of(utf8.begin(), utf8.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (ascii)
        return byteRanges;
    // utf16At[b] = UTF-16 index of byte b (and of the end).
    std::vector<int> utf16At(utf8.size() + 1, 0);
    int units = 0;
    for (size_t b = 0; b < utf8.size(); ++b) {
        utf16At[b] = units;
        const auto byte = static_cast<unsigned char>(utf8[b]);
        if ((byte & 0xC0) != 0x80)
            units += byte >= 0xF0 ? 2 : 1; // 4-byte sequences are surrogate pairs
    }
    utf16At[utf8.size()] = units;
    std::vector<std::pair<int, int>> out;
    out.reserve(byteRanges.size());
    const int size = int(utf8.size());
    for (const auto &[offset, length] : byteRanges) {
        const int from = std::clamp(offset, 0, size);
        const int to = std::clamp(offset + length, from, size);
        out.emplace_back(utf16At[size_t(from)], utf16At[size_t(to)] - utf16At[size_t(from)]);
    }
    return out;
}

} // namespace pw::gui
