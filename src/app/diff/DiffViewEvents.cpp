// DiffView's event handlers: style and palette changes, painting, focus, the mouse, the
// keyboard and tooltips (the content, rows and navigation are DiffView.cpp).
#include "DiffOverview.h"
#include "DiffView.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>

namespace pw::gui {

// --- events -------------------------------------------------------------------------

void DiffView::applyStyle()
{
    m_painter.setStyle(font(), palette());
    m_overview->setColours(m_painter.colours());
    m_highlighter.setDarkTheme(m_painter.colours().dark);
    updateScrollBars();
    viewport()->update();
}

void DiffView::changeEvent(QEvent *event)
{
    QAbstractScrollArea::changeEvent(event);
    switch (event->type()) {
    case QEvent::PaletteChange:
    case QEvent::FontChange:
    case QEvent::StyleChange:
        if (!m_styling)
            applyStyle();
        break;
    default:
        break;
    }
}

void DiffView::paintEvent(QPaintEvent *)
{
    ensureRows();
    QPainter p(viewport());
    if (!m_hasFile) {
        p.fillRect(viewport()->rect(), m_painter.colours().base);
        p.setPen(m_painter.colours().muted);
        p.drawText(viewport()->rect().adjusted(24, 24, -24, -24),
                   Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    DiffFrame frame;
    frame.mode = layoutMode();
    frame.firstRow = firstVisibleRow();
    frame.hscroll = horizontalScrollBar()->value();
    frame.size = viewport()->size();
    frame.currentRow = m_current;
    frame.currentSide = m_currentSide;
    frame.focused = hasFocus();
    frame.markers = &m_findings.markers();
    const bool pending = m_painter.paint(p, frame);
    m_painter.trim(frame.firstRow, frame.firstRow + visibleRowCount());
    if (pending)
        m_highlightTimer.start();
}

void DiffView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void DiffView::focusInEvent(QFocusEvent *event)
{
    QAbstractScrollArea::focusInEvent(event);
    viewport()->update();
}

void DiffView::focusOutEvent(QFocusEvent *event)
{
    QAbstractScrollArea::focusOutEvent(event);
    viewport()->update();
}

void DiffView::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    if (event->button() != Qt::LeftButton)
        return QAbstractScrollArea::mousePressEvent(event);
    const QPoint pos = event->pos();
    const int row = rowAt(pos.y());
    if (!selectable(row))
        return;
    const DiffColumns c =
        DiffColumns::compute(m_painter.metrics(), layoutMode(), viewport()->width());
    const DiffSide side = !c.unified && pos.x() < c.cellX[1] ? DiffSide::Old : DiffSide::New;
    setCurrent(row, side, Reveal::Nearest);
}

void DiffView::mouseReleaseEvent(QMouseEvent *event)
{
    event->setAccepted(event->button() == Qt::LeftButton); // the press selected the row
}

void DiffView::keyPressEvent(QKeyEvent *event)
{
    ensureRows();
    if (event->matches(QKeySequence::Copy)) {
        copyCurrentLine();
        return;
    }
    const Qt::KeyboardModifiers mods =
        event->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier | Qt::GroupSwitchModifier);
    const QString text = event->text();
    if (mods == Qt::NoModifier && text.size() == 1) {
        const QChar ch = text.front();
        if (ch == QLatin1Char('n'))
            nextHunk();
        else if (ch == QLatin1Char('p'))
            previousHunk();
        else if (ch == QLatin1Char(']'))
            nextFinding();
        else if (ch == QLatin1Char('['))
            previousFinding();
        if (ch == QLatin1Char('n') || ch == QLatin1Char('p') || ch == QLatin1Char(']') ||
            ch == QLatin1Char('['))
            return;
    }

    const int page = std::max(1, visibleRowCount() - 1);
    auto towards = [this](int target, int direction) {
        target = std::clamp(target, 0, m_rows.size() - 1);
        if (selectable(target))
            return target;
        const int there = stepSelectable(target, direction);
        return there >= 0 ? there : stepSelectable(target, -direction);
    };
    int target = -2;
    switch (event->key()) {
    case Qt::Key_Up:
        target = m_current < 0 ? towards(firstVisibleRow(), 1) : stepSelectable(m_current, -1);
        break;
    case Qt::Key_Down:
        target = m_current < 0 ? towards(firstVisibleRow(), 1) : stepSelectable(m_current, 1);
        break;
    case Qt::Key_PageUp:
        verticalScrollBar()->setValue(firstVisibleRow() - page);
        target = towards((m_current < 0 ? firstVisibleRow() : m_current) - page, -1);
        break;
    case Qt::Key_PageDown:
        verticalScrollBar()->setValue(firstVisibleRow() + page);
        target = towards((m_current < 0 ? firstVisibleRow() : m_current) + page, 1);
        break;
    case Qt::Key_Home:
        target = stepSelectable(-1, 1);
        break;
    case Qt::Key_End:
        target = stepSelectable(m_rows.size(), -1);
        break;
    case Qt::Key_Left:
    case Qt::Key_Right: {
        const DiffSide side = event->key() == Qt::Key_Left ? DiffSide::Old : DiffSide::New;
        if (layoutMode() == DiffMode::SideBySide && m_current >= 0 && m_currentSide != side &&
            sideFor(m_current, side) == side) {
            setCurrent(m_current, side, Reveal::Nearest);
        } else {
            QScrollBar *bar = horizontalScrollBar();
            bar->setValue(bar->value() + (side == DiffSide::Old ? -1 : 1) * bar->singleStep());
        }
        return;
    }
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    if (target >= 0)
        setCurrent(target, m_currentSide, Reveal::Nearest);
}

bool DiffView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::Resize) { // the ruler follows the viewport's right edge
        const QRect v = viewport()->geometry();
        m_overview->setGeometry(v.right() + 1, v.top(), DiffOverview::kWidth, v.height());
        m_overview->setWindow(firstVisibleRow(), visibleRowCount());
    }
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int row = rowAt(help->pos().y());
        const DiffColumns c =
            DiffColumns::compute(m_painter.metrics(), layoutMode(), viewport()->width());
        const int x = help->pos().x();
        const bool inGutter =
            c.unified ? x < c.textX[0] : x < c.textX[0] || (x >= c.cellX[1] && x < c.textX[1]);
        const QString tip = row >= 0 && inGutter ? rowToolTip(row) : QString();
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, viewport(), rowRect(row));
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

} // namespace pw::gui
