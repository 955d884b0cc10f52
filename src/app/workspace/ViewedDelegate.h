#pragma once

#include <QStyledItemDelegate>

namespace pw::gui {

// Paints the check box of a checkable column itself, in colours taken from the view's
// palette at a contrast that reads on light and dark palettes alike (the box's outline at
// least 3:1 against the base, WCAG's rule for controls; the check mark as text): a style's
// own indicator can all but vanish on a dark base (~1.05:1 with Fusion). Clicks and the
// space bar still toggle it through QStyledItemDelegate, on the rectangle the style gives.
class ViewedDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;

    // The outline and mark colours paint() uses on `palette` (for tests).
    static QColor outlineColour(const QPalette &palette);
    static QColor markColour(const QPalette &palette);
};

} // namespace pw::gui
