#include "workspace/ViewedDelegate.h"

#include "panels/SeverityStyle.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

namespace pw::gui {

QColor ViewedDelegate::outlineColour(const QPalette &palette)
{
    // Secondary text already reads at 4.5:1, beyond the 3:1 a control's edge needs.
    QPalette p = palette;
    p.setColor(QPalette::Window, palette.color(QPalette::Base));
    p.setColor(QPalette::WindowText, palette.color(QPalette::Text));
    return severity_style::mutedText(p);
}

QColor ViewedDelegate::markColour(const QPalette &palette)
{
    return palette.color(QPalette::Text);
}

void ViewedDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                           const QModelIndex &index) const
{
    const QVariant state = index.data(Qt::CheckStateRole);
    if (!state.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    // The cell without its indicator (selection, focus), then the indicator drawn here.
    QStyleOptionViewItem cell = opt;
    cell.features &= ~QStyleOptionViewItem::HasCheckIndicator;
    style->drawControl(QStyle::CE_ItemViewItem, &cell, painter, widget);

    const QRect box = style->subElementRect(QStyle::SE_ItemViewItemCheckIndicator, &opt, widget);
    const int side = std::max(8, std::min(box.width(), box.height()) - 2);
    const QRectF square(box.center().x() - side / 2.0 + 0.5, box.center().y() - side / 2.0 + 0.5,
                        side - 1, side - 1);
    const bool selected = opt.state & QStyle::State_Selected;
    QPalette palette = opt.palette;
    if (selected) { // on the highlight: its text colour against it
        palette.setColor(QPalette::Base, opt.palette.color(QPalette::Highlight));
        palette.setColor(QPalette::Text, opt.palette.color(QPalette::HighlightedText));
    }
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(outlineColour(palette), 1.2));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(square, 2, 2);
    if (state.toInt() == Qt::Checked) {
        QPainterPath mark;
        mark.moveTo(square.left() + side * 0.22, square.top() + side * 0.52);
        mark.lineTo(square.left() + side * 0.42, square.top() + side * 0.72);
        mark.lineTo(square.left() + side * 0.78, square.top() + side * 0.28);
        painter->setPen(QPen(markColour(palette), std::max(1.6, side / 7.0), Qt::SolidLine,
                             Qt::RoundCap, Qt::RoundJoin));
        painter->drawPath(mark);
    }
    painter->restore();
}

} // namespace pw::gui
