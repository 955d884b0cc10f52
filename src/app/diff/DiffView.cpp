#include "DiffView.h"

#include "DiffOverview.h"

#include <QApplication>
#include <QClipboard>
#include <QPushButton>
#include <QScrollBar>
#include <algorithm>

namespace pw::gui {
using core::DiffLine;

DiffView::DiffView(QWidget *parent) : QAbstractScrollArea(parent), m_painter(m_highlighter)
{
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    m_styling = true;
    setFont(DiffMetrics::fixedPitchFont());
    m_styling = false;

    m_loadButton = new QPushButton(tr("Load anyway"), viewport());
    m_loadButton->setObjectName(QStringLiteral("loadAnywayButton"));
    m_loadButton->setFont(QApplication::font(m_loadButton)); // not the view's code font
    m_loadButton->setToolTip(tr("Show this file's diff although it is over the size cap"));
    m_loadButton->hide();
    connect(m_loadButton, &QPushButton::clicked, this, [this] { loadAnyway(); });

    m_highlightTimer.setSingleShot(true);
    m_highlightTimer.setInterval(0);
    connect(&m_highlightTimer, &QTimer::timeout, this, [this] { viewport()->update(); });

    m_overview = new DiffOverview(this);
    setViewportMargins(0, 0, DiffOverview::kWidth, 0);
    connect(m_overview, &DiffOverview::rowRequested, this,
            [this](int row) { verticalScrollBar()->setValue(row - visibleRowCount() / 2); });

    m_painter.setContent(nullptr, &m_rows);
    applyStyle();
}

DiffView::~DiffView() = default;

QString DiffView::highlightingDescription()
{
    return DiffHighlighter::description();
}

// --- content ------------------------------------------------------------------------

void DiffView::setFile(const core::FileDiff &file)
{
    m_file = file;
    resetContent();
}

void DiffView::setFile(core::FileDiff &&file)
{
    m_file = std::move(file);
    resetContent();
}

void DiffView::clear(const QString &message)
{
    m_file = core::FileDiff();
    resetContent();
    m_hasFile = false;
    m_message = message;
    m_highlighter.clear();
    m_painter.setContent(nullptr, &m_rows);
}

void DiffView::resetContent()
{
    m_overview->setContent(nullptr, nullptr, nullptr); // until the new rows are built
    m_hasFile = true;
    m_message.clear();
    m_textBytes = DiffRows::textBytes(m_file);
    m_loadAnyway = false;
    m_findings.clear();
    m_current = -1;
    m_currentSide = DiffSide::New;
    m_reportedLine = 0;
    m_reportedOld = false;
    m_highlighter.setFile(&m_file);
    m_rowsDirty = true; // rows, markers and scroll ranges are built on first use
    verticalScrollBar()->setValue(0);
    horizontalScrollBar()->setValue(0);
    m_loadButton->hide();
    viewport()->update();
}

void DiffView::ensureRows() const
{
    if (!m_rowsDirty)
        return;
    m_rowsDirty = false;
    m_rows = m_hasFile ? DiffRows::build(m_file, layoutMode(), isCapped()) : DiffRows();
    auto *self = const_cast<DiffView *>(this); // painter caches are derived state
    self->m_painter.setContent(m_hasFile ? &m_file : nullptr, &m_rows);
    self->updateScrollBars();

    mapFindings();
    m_overview->setContent(m_hasFile ? &m_file : nullptr, &m_rows, &m_findings.markers());
}

void DiffView::mapFindings() const
{
    m_findings.anchor(m_file, m_rows, isCapped());
    m_overview->markersChanged();
}

void DiffView::setFindings(const std::vector<core::Finding> &findingsOfThisFile)
{
    ensureRows();
    m_findings.set(findingsOfThisFile);
    mapFindings();
    viewport()->update();
}

// --- size cap -----------------------------------------------------------------------

bool DiffView::isCapped() const
{
    return m_hasFile && m_sizeCap > 0 && m_textBytes > m_sizeCap && !m_loadAnyway;
}

void DiffView::setSizeCap(qint64 bytes)
{
    const bool wasCapped = isCapped();
    m_sizeCap = std::max<qint64>(0, bytes);
    if (wasCapped == isCapped())
        return;
    m_current = -1;
    m_rowsDirty = true;
    ensureRows();
    updateLoadButton();
    viewport()->update();
}

void DiffView::loadAnyway()
{
    if (!isCapped())
        return;
    m_loadAnyway = true;
    m_current = -1;
    m_rowsDirty = true;
    ensureRows();
    updateLoadButton();
    viewport()->update();
}

void DiffView::updateLoadButton()
{
    if (!isCapped() || m_rowsDirty) {
        m_loadButton->hide();
        return;
    }
    const int row = m_rows.size() - 1; // the summary row is the last one
    const DiffColumns c =
        DiffColumns::compute(m_painter.metrics(), layoutMode(), viewport()->width());
    m_loadButton->resize(m_loadButton->sizeHint());
    m_loadButton->move(c.signX[0], rowRect(row).bottom() + 1 + m_painter.metrics().pad);
    m_loadButton->show();
}

// --- mode ---------------------------------------------------------------------------

void DiffView::setMode(DiffMode mode)
{
    if (mode == m_mode)
        return;
    ensureRows();
    const bool hadCurrent = m_current >= 0;
    const DiffAnchor anchor = m_rows.anchorOf(m_current, m_currentSide);
    const int offset = m_current - firstVisibleRow();
    m_mode = mode;
    m_rowsDirty = true;
    ensureRows();
    if (!hadCurrent) {
        viewport()->update();
        return;
    }
    const int row = m_rows.rowOf(anchor);
    m_current = -1;
    if (row < 0)
        return;
    verticalScrollBar()->setValue(row - offset); // the row stays where the eye left it
    setCurrent(row, m_currentSide, Reveal::Nearest);
}

// --- scroll geometry ----------------------------------------------------------------

void DiffView::updateScrollBars()
{
    ensureRows();
    const int visible = visibleRowCount();
    verticalScrollBar()->setRange(0, std::max(0, m_rows.size() - visible));
    verticalScrollBar()->setPageStep(visible);
    verticalScrollBar()->setSingleStep(1);
    const DiffColumns c =
        DiffColumns::compute(m_painter.metrics(), layoutMode(), viewport()->width());
    const int textWidth =
        std::max(1, c.unified ? c.textWidth[0] : std::min(c.textWidth[0], c.textWidth[1]));
    horizontalScrollBar()->setRange(0, std::max(0, m_painter.contentWidth() - textWidth));
    horizontalScrollBar()->setPageStep(textWidth);
    horizontalScrollBar()->setSingleStep(std::max(1, qRound(m_painter.metrics().charWidth * 4)));
    updateLoadButton();
}

int DiffView::firstVisibleRow() const
{
    return verticalScrollBar()->value();
}

int DiffView::visibleRowCount() const
{
    return std::max(1, viewport()->height() / m_painter.metrics().rowHeight);
}

QRect DiffView::rowRect(int row) const
{
    const int h = m_painter.metrics().rowHeight;
    return QRect(0, (row - firstVisibleRow()) * h, viewport()->width(), h);
}

int DiffView::rowAt(int y) const
{
    ensureRows();
    const int row = firstVisibleRow() + y / m_painter.metrics().rowHeight;
    return y >= 0 && row < m_rows.size() ? row : -1;
}

void DiffView::reveal(int row, Reveal how)
{
    const int first = firstVisibleRow();
    const int visible = visibleRowCount();
    if (how == Reveal::Centre)
        verticalScrollBar()->setValue(row - visible / 2);
    else if (row < first)
        verticalScrollBar()->setValue(row);
    else if (row >= first + visible)
        verticalScrollBar()->setValue(row - visible + 1);
}

void DiffView::scrollContentsBy(int, int)
{
    if (m_loadButton->isVisible())
        updateLoadButton();
    m_overview->setWindow(firstVisibleRow(), visibleRowCount());
    viewport()->update();
}

// --- current row --------------------------------------------------------------------

bool DiffView::selectable(int row) const
{
    return row >= 0 && row < m_rows.size() &&
           (m_rows.at(row).kind == DiffRow::Kind::Line || m_findings.hasRow(row));
}

int DiffView::stepSelectable(int from, int direction) const
{
    for (int row = from + direction; row >= 0 && row < m_rows.size(); row += direction)
        if (selectable(row))
            return row;
    return -1;
}

DiffSide DiffView::sideFor(int row, DiffSide preferred) const
{
    if (row < 0 || row >= m_rows.size() || m_rows.at(row).kind != DiffRow::Kind::Line)
        return DiffSide::New;
    const DiffRow &r = m_rows.at(row);
    if (layoutMode() == DiffMode::Unified)
        return r.line[1] < 0 ? DiffSide::Old : DiffSide::New;
    if (r.lineAt(preferred) >= 0)
        return preferred;
    return preferred == DiffSide::Old ? DiffSide::New : DiffSide::Old;
}

int DiffView::lineNumberOf(int row, DiffSide side) const
{
    if (row < 0 || row >= m_rows.size() || m_rows.at(row).kind != DiffRow::Kind::Line)
        return 0;
    const DiffRow &r = m_rows.at(row);
    const int index = r.lineAt(side);
    if (index < 0)
        return 0;
    const DiffLine &l = m_file.hunks[size_t(r.hunk)].lines[size_t(index)];
    return side == DiffSide::Old ? l.oldLine : l.newLine;
}

void DiffView::setCurrent(int row, DiffSide side, Reveal how)
{
    if (row < 0 || row >= m_rows.size())
        return;
    m_current = row;
    m_currentSide = sideFor(row, side);
    reveal(row, how);
    if (how == Reveal::Centre) // a jump (finding, hunk, line): its change in view sideways too
        revealChangedText();
    viewport()->update();
    const int line = lineNumberOf(row, m_currentSide);
    const bool old = line > 0 && m_currentSide == DiffSide::Old;
    if (line != m_reportedLine || old != m_reportedOld) {
        m_reportedLine = line;
        m_reportedOld = old;
        Q_EMIT currentLineChanged(line, old);
    }
}

void DiffView::revealChangedText()
{
    if (m_current < 0 || m_current >= m_rows.size())
        return;
    const DiffRow &r = m_rows.at(m_current);
    const int index = r.kind == DiffRow::Kind::Line ? r.lineAt(m_currentSide) : -1;
    if (index < 0)
        return;
    const DiffLine &l = m_file.hunks[size_t(r.hunk)].lines[size_t(index)];
    // Columns as the painter lays them out: one per character, tabs to the next stop.
    const auto columnOf = [&l](size_t byte) {
        int column = 0;
        for (size_t i = 0; i < byte && i < l.text.size(); ++i) {
            const auto ch = static_cast<unsigned char>(l.text[i]);
            if ((ch & 0xc0) == 0x80)
                continue; // a continuation byte of the character already counted
            column =
                ch == '\t' ? (column / DiffRows::kTabWidth + 1) * DiffRows::kTabWidth : column + 1;
        }
        return column;
    };
    const DiffMetrics &m = m_painter.metrics();
    const DiffColumns c = DiffColumns::compute(m, layoutMode(), viewport()->width());
    const int textWidth = c.unified ? c.textWidth[0] : c.textWidth[int(m_currentSide)];
    const auto xOf = [&](size_t byte) { return m.pad + qRound(columnOf(byte) * m.charWidth); };
    QScrollBar *bar = horizontalScrollBar();
    const int from = bar->value();
    if (l.intraline.empty()) {
        if (xOf(l.text.size()) < from) // the line ends left of the view: nothing of it shows
            bar->setValue(0);
        return;
    }
    const auto [start, length] = l.intraline.front();
    const int x0 = xOf(size_t(start));
    const int x1 = std::min(xOf(size_t(start + length)), x0 + textWidth / 2);
    if (x0 >= from && x1 <= from + textWidth)
        return; // in view already
    bar->setValue(x1 <= textWidth ? 0 : std::max(0, x0 - textWidth / 3));
}

int DiffView::currentLine() const
{
    ensureRows();
    return lineNumberOf(m_current, m_currentSide);
}

bool DiffView::currentLineIsOldSide() const
{
    return currentLine() > 0 && m_currentSide == DiffSide::Old;
}

bool DiffView::scrollToLine(int line, bool oldSide)
{
    ensureRows();
    if (line <= 0 || isCapped())
        return false;
    for (size_t h = 0; h < m_file.hunks.size(); ++h) {
        const core::DiffHunk &hunk = m_file.hunks[h];
        const int start = oldSide ? hunk.oldStart : hunk.newStart;
        const int count = oldSide ? hunk.oldLines : hunk.newLines;
        if (line < start || line >= start + count)
            continue;
        for (size_t i = 0; i < hunk.lines.size(); ++i) {
            const DiffLine &l = hunk.lines[i];
            const bool match = oldSide ? l.origin != DiffLine::Origin::Added && l.oldLine == line
                                       : l.origin != DiffLine::Origin::Deleted && l.newLine == line;
            if (!match)
                continue;
            const int row = m_rows.rowOfLine(int(h), int(i));
            if (row < 0)
                return false;
            setCurrent(row, oldSide ? DiffSide::Old : DiffSide::New, Reveal::Centre);
            return true;
        }
    }
    return false;
}

bool DiffView::nextHunk()
{
    ensureRows();
    for (const int target : m_rows.hunkTargets()) {
        if (target > m_current) {
            setCurrent(target, m_currentSide, Reveal::Centre);
            return true;
        }
    }
    return false;
}

bool DiffView::previousHunk()
{
    ensureRows();
    const auto &targets = m_rows.hunkTargets();
    for (auto it = targets.rbegin(); it != targets.rend(); ++it) {
        if (m_current >= 0 && *it < m_current) {
            setCurrent(*it, m_currentSide, Reveal::Centre);
            return true;
        }
    }
    return false;
}

bool DiffView::nextFinding()
{
    ensureRows();
    const int row = m_findings.next(m_current);
    if (row < 0)
        return false;
    setCurrent(row, m_findings.onOldSide(row) ? DiffSide::Old : DiffSide::New, Reveal::Centre);
    return true;
}

bool DiffView::previousFinding()
{
    ensureRows();
    const int row = m_current < 0 ? -1 : m_findings.previous(m_current);
    if (row < 0)
        return false;
    setCurrent(row, m_findings.onOldSide(row) ? DiffSide::Old : DiffSide::New, Reveal::Centre);
    return true;
}

bool DiffView::showFinding(const core::Finding &f)
{
    ensureRows();
    bool oldSide = false;
    const int row = m_findings.rowOf(f, &oldSide);
    if (row < 0)
        return false;
    setCurrent(row, oldSide ? DiffSide::Old : DiffSide::New, Reveal::Centre);
    return true;
}

void DiffView::copyCurrentLine() const
{
    if (m_current < 0)
        return;
    const QString text = rowText(m_current, m_currentSide);
    if (!text.isEmpty())
        QGuiApplication::clipboard()->setText(text);
}

// --- test hooks ---------------------------------------------------------------------

int DiffView::rowCount() const
{
    ensureRows();
    return m_rows.size();
}

DiffRow::Kind DiffView::rowKind(int row) const
{
    ensureRows();
    return m_rows.at(row).kind;
}

QString DiffView::rowText(int row, DiffSide side) const
{
    ensureRows();
    if (row < 0 || row >= m_rows.size())
        return {};
    const DiffRow &r = m_rows.at(row);
    switch (r.kind) {
    case DiffRow::Kind::Note:
        return m_rows.notes()[size_t(r.hunk)];
    case DiffRow::Kind::HunkHeader:
        return m_painter.hunkHeaderText(r.hunk);
    case DiffRow::Kind::SizeCap:
        return DiffRows::capSummary(m_file);
    case DiffRow::Kind::Line:
        break;
    }
    const int index = r.lineAt(side);
    if (index < 0)
        return {};
    const std::string &t = m_file.hunks[size_t(r.hunk)].lines[size_t(index)].text;
    return QString::fromUtf8(t.data(), int(t.size()));
}

int DiffView::rowLineNumber(int row, DiffSide side) const
{
    ensureRows();
    return lineNumberOf(row, side);
}

bool DiffView::rowHasNoNewlineAtEnd(int row, DiffSide side) const
{
    ensureRows();
    if (row < 0 || row >= m_rows.size() || m_rows.at(row).kind != DiffRow::Kind::Line)
        return false;
    const DiffRow &r = m_rows.at(row);
    const int index = r.lineAt(side);
    return index >= 0 && m_file.hunks[size_t(r.hunk)].lines[size_t(index)].noNewlineAtEnd;
}

std::optional<core::Severity> DiffView::rowMarker(int row) const
{
    ensureRows();
    return m_findings.marker(row);
}

QString DiffView::rowToolTip(int row) const
{
    ensureRows();
    return m_findings.toolTip(row, m_rows);
}

LineFormats DiffView::formatsForRow(int row, DiffSide side) const
{
    ensureRows();
    if (row < 0 || row >= m_rows.size() || m_rows.at(row).kind != DiffRow::Kind::Line)
        return {};
    const DiffRow &r = m_rows.at(row);
    const int index = r.lineAt(side);
    if (index < 0)
        return {};
    return m_highlighter.formats(r.hunk, index, side).value_or(LineFormats());
}

QString DiffView::definitionName() const
{
    return m_highlighter.definitionName();
}

} // namespace pw::gui
