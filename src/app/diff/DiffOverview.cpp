#include "DiffOverview.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace pw::gui {

using core::DiffLine;

DiffOverview::DiffOverview(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("diffOverview"));
    setFixedWidth(kWidth);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview of the file: changes and findings; click to go there"));
}

void DiffOverview::setContent(const core::FileDiff *file, const DiffRows *rows,
                              const std::map<int, core::Severity> *markers)
{
    m_file = file;
    m_rows = rows;
    m_markers = markers;
    m_dirty = true;
    update();
}

void DiffOverview::markersChanged()
{
    m_dirty = true;
    update();
}

void DiffOverview::setColours(const DiffColours &colours)
{
    m_colours = colours;
    update();
}

void DiffOverview::setWindow(int firstRow, int visibleRows)
{
    if (firstRow == m_firstRow && visibleRows == m_visibleRows)
        return;
    m_firstRow = firstRow;
    m_visibleRows = visibleRows;
    update();
}

DiffOverview::Band DiffOverview::bandOf(const DiffRow &row) const
{
    if (row.kind != DiffRow::Kind::Line || !m_file || row.hunk < 0 ||
        size_t(row.hunk) >= m_file->hunks.size())
        return Band::None;
    const auto &lines = m_file->hunks[size_t(row.hunk)].lines;
    const auto originAt = [&](DiffSide side) {
        const int index = row.lineAt(side);
        return index < 0 || size_t(index) >= lines.size() ? std::optional<DiffLine::Origin>()
                                                          : lines[size_t(index)].origin;
    };
    const auto oldOrigin = originAt(DiffSide::Old);
    const auto newOrigin = originAt(DiffSide::New);
    const bool deleted = oldOrigin == DiffLine::Origin::Deleted;
    const bool added = newOrigin == DiffLine::Origin::Added;
    if (deleted && added)
        return Band::Changed;
    if (added)
        return Band::Added;
    if (deleted)
        return Band::Deleted;
    return Band::None;
}

void DiffOverview::rebuild() const
{
    m_dirty = false;
    const int h = std::max(0, height());
    m_bands.assign(size_t(h), Band::None);
    m_markerSeverity.assign(size_t(h), -1);
    const int n = m_rows ? m_rows->size() : 0;
    if (n == 0 || h == 0)
        return;
    const auto rank = [](Band b) {
        return b == Band::Changed ? 3 : b == Band::Deleted ? 2 : b == Band::Added ? 1 : 0;
    };
    for (int row = 0; row < n; ++row) {
        const Band band = bandOf(m_rows->at(row));
        if (band == Band::None)
            continue;
        const int top = yOfRow(row);
        const int bottom = std::max(top + 1, yOfRow(row + 1));
        for (int y = top; y < bottom && y < h; ++y) {
            if (rank(band) > rank(m_bands[size_t(y)]))
                m_bands[size_t(y)] = band;
        }
    }
    if (!m_markers)
        return;
    for (const auto &[row, severity] : *m_markers) {
        const int y = std::min(h - 1, yOfRow(row));
        m_markerSeverity[size_t(y)] =
            std::max(m_markerSeverity[size_t(y)], static_cast<signed char>(severity));
    }
}

int DiffOverview::yOfRow(int row) const
{
    const int n = m_rows ? m_rows->size() : 0;
    return n == 0 ? 0 : int(qint64(row) * height() / n);
}

int DiffOverview::rowAtY(int y) const
{
    const int n = m_rows ? m_rows->size() : 0;
    if (n == 0 || height() <= 0)
        return -1;
    return std::clamp(int(qint64(std::clamp(y, 0, height() - 1)) * n / height()), 0, n - 1);
}

DiffOverview::Band DiffOverview::bandAt(int y) const
{
    if (m_dirty)
        rebuild();
    return y >= 0 && y < int(m_bands.size()) ? m_bands[size_t(y)] : Band::None;
}

std::optional<core::Severity> DiffOverview::markerAt(int y) const
{
    if (m_dirty)
        rebuild();
    // A tick is drawn 3 px tall: it answers for the two pixel rows below its own too.
    for (int at = y; at >= std::max(0, y - 2); --at) {
        if (at < int(m_markerSeverity.size()) && m_markerSeverity[size_t(at)] >= 0)
            return core::Severity(m_markerSeverity[size_t(at)]);
    }
    return std::nullopt;
}

void DiffOverview::paintEvent(QPaintEvent *)
{
    if (m_dirty)
        rebuild();
    QPainter p(this);
    p.fillRect(rect(), m_colours.gutterBg);
    p.fillRect(QRect(0, 0, 1, height()), m_colours.divider);
    // Bands: runs of one kind, one rectangle each.
    const int h = int(m_bands.size());
    for (int y = 0; y < h;) {
        const Band band = m_bands[size_t(y)];
        int end = y + 1;
        while (end < h && m_bands[size_t(end)] == band)
            ++end;
        if (band != Band::None) {
            // Changed on both sides: blue, as Meld and KDiff3 draw it (review ticks are amber).
            const QColor changed =
                m_colours.dark ? QColor(0x58, 0xa6, 0xff) : QColor(0x1f, 0x6f, 0xeb);
            const QColor colour = band == Band::Added     ? m_colours.addedSign
                                  : band == Band::Deleted ? m_colours.deletedSign
                                                          : changed;
            p.fillRect(QRect(3, y, kWidth - 6, end - y), colour);
        }
        y = end;
    }
    // The part on screen.
    if (m_rows && m_rows->size() > 0 && m_visibleRows < m_rows->size()) {
        const int top = yOfRow(m_firstRow);
        const int bottom = std::max(top + 4, yOfRow(m_firstRow + m_visibleRows));
        QColor frame = m_colours.text;
        frame.setAlphaF(0.35f);
        QColor fill = m_colours.text;
        fill.setAlphaF(0.08f);
        p.fillRect(QRect(1, top, kWidth - 1, bottom - top), fill);
        p.setPen(frame);
        p.drawRect(QRect(1, top, kWidth - 2, bottom - top - 1));
    }
    // Findings on top: a tick across the ruler.
    for (int y = 0; y < int(m_markerSeverity.size()); ++y) {
        const signed char s = m_markerSeverity[size_t(y)];
        if (s >= 0)
            p.fillRect(QRect(1, std::min(y, height() - 3), kWidth - 1, 3),
                       m_colours.severity(core::Severity(s)));
    }
}

void DiffOverview::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_dirty = true;
}

void DiffOverview::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    const int row = rowAtY(event->pos().y());
    if (row >= 0)
        Q_EMIT rowRequested(row);
}

void DiffOverview::mouseMoveEvent(QMouseEvent *event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return QWidget::mouseMoveEvent(event);
    const int row = rowAtY(event->pos().y());
    if (row >= 0)
        Q_EMIT rowRequested(row);
}

} // namespace pw::gui
