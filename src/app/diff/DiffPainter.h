#pragma once

#include "DiffHighlighter.h"
#include "DiffRows.h"
#include "audit/Finding.h"

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QRect>
#include <QTextLayout>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

class QPainter;

namespace pw::gui {

// Colours of the diff, derived from the palette so light and dark themes both read well.
struct DiffColours
{
    bool dark = false;
    QColor base, text, muted, numbers;
    QColor addedBg, addedWord, addedGutter, addedSign;
    QColor deletedBg, deletedWord, deletedGutter, deletedSign;
    QColor hunkBg, hunkText, noteBg, noteText, fillerBg, fillerHatch, gutterBg, divider;
    QColor current, currentFrame;
    QColor block, review, info;

    static DiffColours fromPalette(const QPalette &palette);
    QColor severity(core::Severity s) const;
};

// Font-derived sizes (so they follow the DPI and the font, never fixed pixels).
struct DiffMetrics
{
    qreal charWidth = 8;
    int rowHeight = 18;
    int textTop = 2; // y of the text line inside a row
    int pad = 4;     // small horizontal padding
    int markerWidth = 16;
    int numberWidth = 40;
    int signWidth = 12;

    static DiffMetrics fromFont(const QFont &font, int maxLineNumber);
    static QFont fixedPitchFont();
};

// Horizontal layout of a row for one viewport width and mode; index 0 = old, 1 = new.
struct DiffColumns
{
    bool unified = false;
    int width = 0;
    int cellX[2] = {0, 0};
    int cellWidth[2] = {0, 0};
    int numberX[2] = {0, 0};
    int signX[2] = {0, 0};
    int textX[2] = {0, 0};
    int textWidth[2] = {0, 0};

    static DiffColumns compute(const DiffMetrics &m, DiffMode mode, int width);
};

// What one frame shows besides the rows themselves.
struct DiffFrame
{
    DiffMode mode = DiffMode::SideBySide;
    int firstRow = 0;
    int hscroll = 0;
    QSize size;
    int currentRow = -1;
    DiffSide currentSide = DiffSide::New;
    bool focused = false;
    const std::map<int, core::Severity> *markers = nullptr; // row -> worst severity
};

// Paints rows of one file diff with per-cell QTextLayouts built on first paint and kept for
// the rows around the visible ones: no QTextDocument, no work for rows never shown.
class DiffPainter
{
public:
    explicit DiffPainter(DiffHighlighter &highlighter);
    ~DiffPainter();

    void setStyle(const QFont &font, const QPalette &palette);
    void setContent(const core::FileDiff *file, const DiffRows *rows); // drops the cells
    void invalidate();

    const DiffColours &colours() const { return m_colours; }
    const DiffMetrics &metrics() const { return m_metrics; }
    const QFont &font() const { return m_font; }

    // Paints the visible rows; returns true when some lines were painted before their
    // highlighting caught up (paint again soon).
    bool paint(QPainter &painter, const DiffFrame &frame);
    // Drops cached cells far from [firstRow, lastRow].
    void trim(int firstRow, int lastRow);

    // The text a cell shows (control characters as visible symbols, long lines cut).
    QString cellText(int hunk, int line) const;
    // Width in pixels the longest line needs in a text column.
    int contentWidth() const;
    // Text of a hunk header row including the hidden-lines count.
    QString hunkHeaderText(int hunk) const;
    QString hiddenLinesText(int hunk) const;

    static constexpr int kMaxShownChars = 4000;

private:
    struct Cell
    {
        std::unique_ptr<QTextLayout> layout;
        std::vector<std::pair<qreal, qreal>> words; // x ranges of intraline changes
        qreal width = 0;
        bool highlighted = false;
    };

    Cell &cell(int row, DiffSide side, int hunk, int line, int *budget, bool *pending);
    void paintLineRow(QPainter &p, const DiffFrame &f, const DiffColumns &c, int row, int y,
                      int *budget, bool *pending);
    void paintCell(QPainter &p, const DiffFrame &f, const DiffColumns &c, int row, int y,
                   DiffSide side, int column, int *budget, bool *pending);
    void paintFullWidthRow(QPainter &p, const DiffFrame &f, const DiffColumns &c, int row, int y);

    DiffHighlighter &m_highlighter;
    const core::FileDiff *m_file = nullptr;
    const DiffRows *m_rows = nullptr;
    QFont m_font, m_boldFont, m_italicFont;
    DiffColours m_colours;
    DiffMetrics m_metrics;
    std::unordered_map<qint64, Cell> m_cells; // key: row * 2 + side
};

} // namespace pw::gui
