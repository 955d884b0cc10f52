#include "DiffPainter.h"

#include <QFontDatabase>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QPainter>
#include <QtMath>
#include <algorithm>

namespace pw::gui {
namespace {

using core::DiffLine;

// Lines highlighted per paint to reach the state of a line far down a long hunk; the rest
// is done by following paints, so one frame never stalls on a 20,000-line hunk.
constexpr int kCatchUpBudget = 1000; // ~7 us a line for Python: ~7 ms

QColor over(const QColor &base, const QColor &tint, qreal alpha)
{
    return QColor::fromRgbF(base.redF() * (1 - alpha) + tint.redF() * alpha,
                            base.greenF() * (1 - alpha) + tint.greenF() * alpha,
                            base.blueF() * (1 - alpha) + tint.blueF() * alpha);
}

QColor withAlpha(QColor c, qreal alpha)
{
    c.setAlphaF(alpha);
    return c;
}

int digits(int n)
{
    int d = 1;
    for (; n >= 10; n /= 10)
        ++d;
    return d;
}

} // namespace

DiffColours DiffColours::fromPalette(const QPalette &palette)
{
    DiffColours c;
    c.base = palette.color(QPalette::Base);
    c.text = palette.color(QPalette::Text);
    c.dark = c.base.lightness() < 128;
    const bool d = c.dark;
    c.muted = over(c.base, c.text, 0.55);
    c.numbers = over(c.base, c.text, d ? 0.5 : 0.45);
    const QColor green = d ? QColor(0x2e, 0xa0, 0x43) : QColor(0x4a, 0xc2, 0x6b);
    const QColor red = d ? QColor(0xf8, 0x51, 0x49) : QColor(0xff, 0x81, 0x82);
    const QColor blue = d ? QColor(0x38, 0x8b, 0xfd) : QColor(0x54, 0xae, 0xff);
    c.addedBg = over(c.base, green, d ? 0.15 : 0.16);
    c.addedWord = over(c.base, green, d ? 0.42 : 0.45);
    c.addedGutter = over(c.base, green, d ? 0.28 : 0.30);
    c.addedSign = d ? QColor(0x3f, 0xb9, 0x50) : QColor(0x1a, 0x7f, 0x37);
    c.deletedBg = over(c.base, red, d ? 0.15 : 0.16);
    c.deletedWord = over(c.base, red, d ? 0.42 : 0.45);
    c.deletedGutter = over(c.base, red, d ? 0.28 : 0.30);
    c.deletedSign = d ? QColor(0xf8, 0x51, 0x49) : QColor(0xcf, 0x22, 0x2e);
    c.hunkBg = over(c.base, blue, d ? 0.15 : 0.15);
    c.hunkText = over(c.base, c.text, 0.62);
    c.noteBg = over(c.base, c.text, d ? 0.06 : 0.045);
    c.noteText = over(c.base, c.text, 0.85);
    c.fillerBg = over(c.base, c.text, d ? 0.035 : 0.03);
    c.fillerHatch = over(c.base, c.text, d ? 0.12 : 0.11);
    c.gutterBg = over(c.base, c.text, d ? 0.025 : 0.02);
    c.divider = over(c.base, c.text, d ? 0.25 : 0.18);
    const QColor highlight = palette.color(QPalette::Highlight);
    c.current = withAlpha(highlight, 0.13);
    c.currentFrame = highlight;
    c.block = d ? QColor(0xf8, 0x51, 0x49) : QColor(0xcf, 0x22, 0x2e);
    c.review = d ? QColor(0xd2, 0x99, 0x22) : QColor(0xd4, 0x9a, 0x00);
    c.info = d ? QColor(0x8b, 0x94, 0x9e) : QColor(0x8c, 0x95, 0x9f);
    return c;
}

QColor DiffColours::severity(core::Severity s) const
{
    switch (s) {
    case core::Severity::Block:
        return block;
    case core::Severity::Review:
        return review;
    case core::Severity::Info:
        break;
    }
    return info;
}

// The system's fixed-pitch font; some platforms (Qt 5's offscreen and minimal ones) answer
// with the proportional UI font, so fall back to what fontconfig calls monospace.
QFont DiffMetrics::fixedPitchFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (QFontInfo(font).fixedPitch())
        return font;
    for (const char *family : {"monospace", "DejaVu Sans Mono", "Liberation Mono", "Noto Mono"}) {
        QFont candidate = font;
        candidate.setFamily(QString::fromLatin1(family));
        candidate.setStyleHint(QFont::TypeWriter);
        candidate.setFixedPitch(true);
        if (QFontInfo(candidate).fixedPitch())
            return candidate;
    }
    font.setStyleHint(QFont::TypeWriter);
    font.setFixedPitch(true);
    return font;
}

DiffMetrics DiffMetrics::fromFont(const QFont &font, int maxLineNumber)
{
    const QFontMetricsF fm(font);
    DiffMetrics m;
    m.charWidth = fm.horizontalAdvance(QLatin1Char('0'));
    const qreal height = fm.height();
    m.rowHeight = qCeil(height * 1.35);
    m.textTop = (m.rowHeight - qCeil(height)) / 2;
    m.pad = std::max(2, qRound(m.charWidth * 0.6));
    m.markerWidth = qCeil(m.charWidth * 2.4);
    m.numberWidth = qCeil(m.charWidth * (std::max(3, digits(maxLineNumber)) + 1.6));
    m.signWidth = qCeil(m.charWidth * 1.8);
    return m;
}

DiffColumns DiffColumns::compute(const DiffMetrics &m, DiffMode mode, int width)
{
    DiffColumns c;
    c.width = width;
    c.unified = mode == DiffMode::Unified;
    const int left = m.markerWidth;
    if (c.unified) {
        c.cellX[0] = c.cellX[1] = left;
        c.cellWidth[0] = c.cellWidth[1] = std::max(0, width - left);
        c.numberX[0] = left;
        c.numberX[1] = left + m.numberWidth;
        c.signX[0] = c.signX[1] = left + 2 * m.numberWidth;
    } else {
        const int half = std::max(0, (width - left) / 2);
        c.cellX[0] = left;
        c.cellWidth[0] = half;
        c.cellX[1] = left + half;
        c.cellWidth[1] = std::max(0, width - c.cellX[1]);
        for (int s = 0; s < 2; ++s) {
            c.numberX[s] = c.cellX[s];
            c.signX[s] = c.cellX[s] + m.numberWidth;
        }
    }
    for (int s = 0; s < 2; ++s) {
        c.textX[s] = c.signX[s] + m.signWidth;
        c.textWidth[s] = std::max(0, c.cellX[s] + c.cellWidth[s] - c.textX[s]);
    }
    return c;
}

DiffPainter::DiffPainter(DiffHighlighter &highlighter) : m_highlighter(highlighter) {}

DiffPainter::~DiffPainter() = default;

void DiffPainter::setStyle(const QFont &font, const QPalette &palette)
{
    m_font = font;
    m_boldFont = font;
    m_boldFont.setBold(true);
    m_italicFont = font;
    m_italicFont.setItalic(true);
    m_colours = DiffColours::fromPalette(palette);
    m_metrics = DiffMetrics::fromFont(m_font, m_rows ? m_rows->maxLineNumber() : 0);
    m_cells.clear();
}

void DiffPainter::setContent(const core::FileDiff *file, const DiffRows *rows)
{
    m_file = file;
    m_rows = rows;
    m_metrics = DiffMetrics::fromFont(m_font, m_rows ? m_rows->maxLineNumber() : 0);
    m_cells.clear();
}

void DiffPainter::invalidate()
{
    m_cells.clear();
}

QString DiffPainter::cellText(int hunk, int line) const
{
    const std::string &t = m_file->hunks[size_t(hunk)].lines[size_t(line)].text;
    QString s = QString::fromUtf8(t.data(), int(t.size()));
    if (s.size() > kMaxShownChars) {
        s.truncate(kMaxShownChars);
        s.append(QChar(0x2026)); // …
    }
    // Control characters (a stray \r of a CRLF line) as the Unicode control pictures: same
    // length, so syntax and intraline offsets still fit.
    for (QChar &ch : s) {
        const ushort u = ch.unicode();
        if (u < 0x20 && u != '\t')
            ch = QChar(ushort(0x2400 + u));
        else if (u == 0x7f)
            ch = QChar(ushort(0x2421));
    }
    return s;
}

int DiffPainter::contentWidth() const
{
    const int columns = std::min(m_rows ? m_rows->maxColumns() : 0, kMaxShownChars + 1);
    return qCeil((columns + 2) * m_metrics.charWidth) + 2 * m_metrics.pad;
}

QString DiffPainter::hunkHeaderText(int hunk) const
{
    const core::DiffHunk &h = m_file->hunks[size_t(hunk)];
    QString header = QString::fromStdString(h.header).trimmed();
    if (header.isEmpty())
        header = QStringLiteral("@@ -%1,%2 +%3,%4 @@")
                     .arg(h.oldStart)
                     .arg(h.oldLines)
                     .arg(h.newStart)
                     .arg(h.newLines);
    return header;
}

QString DiffPainter::hiddenLinesText(int hunk) const
{
    // Lines between the previous hunk and this one (old side; a hunk of 0 old lines
    // starts after its oldStart).
    auto startOf = [](const core::DiffHunk &h) {
        return h.oldLines == 0 ? h.oldStart + 1 : h.oldStart;
    };
    auto endOf = [&](const core::DiffHunk &h) { return startOf(h) + h.oldLines; };
    const core::DiffHunk &h = m_file->hunks[size_t(hunk)];
    const int previousEnd = hunk == 0 ? 1 : endOf(m_file->hunks[size_t(hunk - 1)]);
    const int hidden = startOf(h) - previousEnd;
    if (hidden <= 0)
        return {};
    return hidden == 1 ? QStringLiteral("1 unchanged line")
                       : QStringLiteral("%1 unchanged lines").arg(hidden);
}

DiffPainter::Cell &DiffPainter::cell(int row, DiffSide side, int hunk, int line, int *budget,
                                     bool *pending)
{
    const qint64 key = qint64(row) * 2 + qint64(side);
    auto it = m_cells.find(key);
    if (it != m_cells.end() && it->second.highlighted)
        return it->second;
    std::optional<LineFormats> formats = m_highlighter.formats(hunk, line, side, budget);
    if (!formats)
        *pending = true;
    if (it != m_cells.end() && !formats)
        return it->second; // still plain; keep the layout we have

    Cell &c = m_cells[key];
    const DiffLine &dl = m_file->hunks[size_t(hunk)].lines[size_t(line)];
    const QString text = cellText(hunk, line);
    c.layout = std::make_unique<QTextLayout>(text, m_font);
    QTextOption option;
    option.setWrapMode(QTextOption::NoWrap);
    option.setTabStopDistance(m_metrics.charWidth * DiffRows::kTabWidth);
    c.layout->setTextOption(option);
    if (formats && !formats->isEmpty()) {
        LineFormats clipped;
        clipped.reserve(formats->size());
        for (const QTextLayout::FormatRange &r : std::as_const(*formats)) {
            if (r.start >= text.size())
                continue;
            QTextLayout::FormatRange range = r;
            range.length = std::min(r.length, int(text.size()) - r.start);
            clipped.append(range);
        }
        c.layout->setFormats(clipped);
    }
    c.layout->setCacheEnabled(true);
    c.layout->beginLayout();
    QTextLine tl = c.layout->createLine();
    tl.setLineWidth(1e7);
    tl.setPosition(QPointF(0, 0));
    c.layout->endLayout();
    c.width = tl.naturalTextWidth();
    c.highlighted = formats.has_value();
    c.words.clear();
    for (const auto &[start, length] : utf16Ranges(dl.text, dl.intraline)) {
        if (start >= text.size() || length <= 0)
            continue;
        const int end = std::min(start + length, int(text.size()));
        c.words.emplace_back(tl.cursorToX(start), tl.cursorToX(end));
    }
    return c;
}

bool DiffPainter::paint(QPainter &p, const DiffFrame &f)
{
    p.fillRect(QRect(QPoint(0, 0), f.size), m_colours.base);
    if (!m_rows || !m_file)
        return false;
    const DiffColumns columns = DiffColumns::compute(m_metrics, f.mode, f.size.width());
    const int rowHeight = m_metrics.rowHeight;
    const int last = std::min(m_rows->size() - 1, f.firstRow + f.size.height() / rowHeight + 1);
    int budget = kCatchUpBudget;
    bool pending = false;
    for (int row = std::max(0, f.firstRow); row <= last; ++row) {
        const int y = (row - f.firstRow) * rowHeight;
        if (m_rows->at(row).kind == DiffRow::Kind::Line)
            paintLineRow(p, f, columns, row, y, &budget, &pending);
        else
            paintFullWidthRow(p, f, columns, row, y);

        if (f.markers) {
            if (auto m = f.markers->find(row); m != f.markers->end()) {
                const QColor colour = m_colours.severity(m->second);
                p.fillRect(QRect(0, y, m_metrics.markerWidth, rowHeight),
                           over(m_colours.gutterBg, colour, 0.22));
                const qreal size = std::min(m_metrics.markerWidth, rowHeight) * 0.55;
                const QRectF dot((m_metrics.markerWidth - size) / 2, y + (rowHeight - size) / 2,
                                 size, size);
                p.save();
                p.setRenderHint(QPainter::Antialiasing);
                p.setPen(Qt::NoPen);
                p.setBrush(colour);
                if (m->second == core::Severity::Block)
                    p.drawRoundedRect(dot, size * 0.2, size * 0.2);
                else
                    p.drawEllipse(dot);
                p.restore();
            }
        }
        if (row == f.currentRow) {
            QRect r(0, y, f.size.width(), rowHeight);
            if (m_rows->at(row).kind == DiffRow::Kind::Line && !columns.unified) {
                const int s = int(f.currentSide);
                r = QRect(columns.cellX[s], y, columns.cellWidth[s], rowHeight);
            }
            p.fillRect(r, m_colours.current);
            QColor frame = m_colours.currentFrame;
            frame.setAlphaF(f.focused ? 0.9 : 0.45);
            p.setPen(frame);
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(0, 0, -1, -1));
        }
    }
    return pending;
}

void DiffPainter::paintFullWidthRow(QPainter &p, const DiffFrame &f, const DiffColumns &c, int row,
                                    int y)
{
    const DiffRow &r = m_rows->at(row);
    const int h = m_metrics.rowHeight;
    const QRect rect(0, y, f.size.width(), h);
    const int textX = c.signX[0];
    const QRect textRect(textX, y, std::max(0, f.size.width() - textX - m_metrics.pad), h);
    switch (r.kind) {
    case DiffRow::Kind::HunkHeader: {
        p.fillRect(rect, m_colours.hunkBg);
        p.setPen(m_colours.hunkText);
        p.setFont(m_font);
        const QString hidden = hiddenLinesText(r.hunk);
        QRect headerRect = textRect;
        if (!hidden.isEmpty()) {
            p.setFont(m_italicFont);
            p.drawText(textRect, Qt::AlignRight | Qt::AlignVCenter, hidden);
            headerRect.setRight(textRect.right() -
                                qCeil(QFontMetricsF(m_italicFont).horizontalAdvance(hidden)) -
                                2 * m_metrics.pad);
            p.setFont(m_font);
        }
        p.drawText(headerRect, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(m_font).elidedText(hunkHeaderText(r.hunk), Qt::ElideRight,
                                                   headerRect.width()));
        // The gutter shows a fold mark where unchanged lines are not displayed.
        p.drawText(QRect(c.cellX[0], y, c.signX[0] - c.cellX[0], h), Qt::AlignCenter,
                   QStringLiteral("\u22EF"));
        break;
    }
    case DiffRow::Kind::Note:
    case DiffRow::Kind::SizeCap: {
        p.fillRect(rect, m_colours.noteBg);
        p.setPen(m_colours.noteText);
        p.setFont(m_italicFont);
        const QString text = r.kind == DiffRow::Kind::Note
                                 ? m_rows->notes()[size_t(r.hunk)]
                                 : DiffRows::capSummary(*m_file) +
                                       QStringLiteral(" \u2014 over the size cap, not shown");
        p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, text);
        p.setFont(m_font);
        p.drawText(QRect(c.cellX[0], y, c.signX[0] - c.cellX[0], h), Qt::AlignCenter,
                   r.kind == DiffRow::Kind::Note ? QStringLiteral("\u2139")
                                                 : QStringLiteral("\u26A0"));
        break;
    }
    case DiffRow::Kind::Line:
        break;
    }
    p.fillRect(QRect(0, y + h - 1, f.size.width(), 1), m_colours.divider);
    p.fillRect(QRect(0, y, m_metrics.markerWidth, h), m_colours.gutterBg);
}

void DiffPainter::paintLineRow(QPainter &p, const DiffFrame &f, const DiffColumns &c, int row,
                               int y, int *budget, bool *pending)
{
    const DiffRow &r = m_rows->at(row);
    p.fillRect(QRect(0, y, m_metrics.markerWidth, m_metrics.rowHeight), m_colours.gutterBg);
    if (c.unified) {
        const DiffSide side = r.line[1] < 0 ? DiffSide::Old : DiffSide::New;
        paintCell(p, f, c, row, y, side, 0, budget, pending);
        return;
    }
    paintCell(p, f, c, row, y, DiffSide::Old, 0, budget, pending);
    paintCell(p, f, c, row, y, DiffSide::New, 1, budget, pending);
    p.fillRect(QRect(c.cellX[1] - 1, y, 1, m_metrics.rowHeight), m_colours.divider);
}

void DiffPainter::paintCell(QPainter &p, const DiffFrame &f, const DiffColumns &c, int row, int y,
                            DiffSide side, int column, int *budget, bool *pending)
{
    const DiffRow &r = m_rows->at(row);
    const DiffMetrics &m = m_metrics;
    const int h = m.rowHeight;
    const QRect cellRect(c.cellX[column], y, c.cellWidth[column], h);
    const int index = r.lineAt(side);
    if (index < 0) { // filler facing a line of the other side
        p.fillRect(cellRect, m_colours.fillerBg);
        p.fillRect(cellRect, QBrush(m_colours.fillerHatch, Qt::BDiagPattern));
        return;
    }
    const DiffLine &line = m_file->hunks[size_t(r.hunk)].lines[size_t(index)];
    QColor background = m_colours.base;
    QColor gutter = m_colours.gutterBg;
    QColor word = m_colours.base;
    if (line.origin == DiffLine::Origin::Added) {
        background = m_colours.addedBg;
        gutter = m_colours.addedGutter;
        word = m_colours.addedWord;
    } else if (line.origin == DiffLine::Origin::Deleted) {
        background = m_colours.deletedBg;
        gutter = m_colours.deletedGutter;
        word = m_colours.deletedWord;
    }
    const QRect gutterRect(c.numberX[column], y, c.signX[column] - c.numberX[column], h);
    p.fillRect(gutterRect, gutter);
    p.fillRect(QRect(c.signX[column], y, cellRect.right() + 1 - c.signX[column], h), background);

    // Line numbers: one per side, both in unified mode.
    const bool current = row == f.currentRow && (c.unified || f.currentSide == side);
    p.setFont(current ? m_boldFont : m_font);
    p.setPen(current ? m_colours.text : m_colours.numbers);
    auto number = [&](int x, int n) {
        if (n > 0)
            p.drawText(QRect(x, y, m.numberWidth - m.pad, h), Qt::AlignRight | Qt::AlignVCenter,
                       QString::number(n));
    };
    if (c.unified) {
        number(c.numberX[0], line.oldLine);
        number(c.numberX[1], line.newLine);
    } else {
        number(c.numberX[column], side == DiffSide::Old ? line.oldLine : line.newLine);
    }
    if (line.origin != DiffLine::Origin::Context) {
        const bool added = line.origin == DiffLine::Origin::Added;
        p.setFont(m_boldFont);
        p.setPen(added ? m_colours.addedSign : m_colours.deletedSign);
        p.drawText(QRect(c.signX[column], y, m.signWidth, h), Qt::AlignCenter,
                   added ? QStringLiteral("+") : QStringLiteral("\u2212"));
    }

    // Text: diff backgrounds first (line, then changed words), syntax colours on top.
    const QRect textRect(c.textX[column], y, c.textWidth[column], h);
    if (textRect.width() <= 0)
        return;
    Cell &cl = cell(row, side, r.hunk, index, budget, pending);
    const qreal x0 = textRect.left() + m.pad - f.hscroll;
    p.save();
    p.setClipRect(textRect);
    for (const auto &[from, to] : cl.words)
        p.fillRect(QRectF(x0 + from, y, std::max<qreal>(to - from, 2), h), word);
    p.setPen(m_colours.text);
    cl.layout->draw(&p, QPointF(x0, y + m.textTop));
    if (line.noNewlineAtEnd) {
        p.setFont(m_italicFont);
        p.setPen(m_colours.muted);
        const qreal x = x0 + cl.width + 2 * m.charWidth;
        p.drawText(QRectF(x, y, 40 * m.charWidth, h), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("\u2205 no newline at end of file"));
    }
    p.restore();
}

void DiffPainter::trim(int firstRow, int lastRow)
{
    const int span = std::max(64, 2 * (lastRow - firstRow + 1));
    if (m_cells.size() < size_t(8 * span))
        return;
    for (auto it = m_cells.begin(); it != m_cells.end();) {
        const qint64 row = it->first / 2;
        if (row < firstRow - span || row > lastRow + span)
            it = m_cells.erase(it);
        else
            ++it;
    }
}

} // namespace pw::gui
