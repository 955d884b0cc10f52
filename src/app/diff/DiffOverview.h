#pragma once

#include "DiffPainter.h"
#include "DiffRows.h"
#include "audit/Finding.h"

#include <QWidget>
#include <map>
#include <vector>

namespace pw::gui {

// The overview ruler beside the diff (Meld's, KDiff3's, Sublime Merge's): the whole file
// scaled to the view's height, every change as a band — added, deleted, changed on both
// sides — and every finding as a tick in its severity's colour, with the part on screen
// outlined. A click or a drag scrolls there. Painting costs one pass over the rows when the
// rows or the height change, then one rectangle per pixel row at most.
class DiffOverview : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kWidth = 14;

    enum class Band : unsigned char
    {
        None,
        Added,
        Deleted,
        Changed
    };

    explicit DiffOverview(QWidget *parent = nullptr);

    // Both outlive the next setContent (the view owns them); null: nothing to show.
    void setContent(const core::FileDiff *file, const DiffRows *rows,
                    const std::map<int, core::Severity> *markers);
    void markersChanged(); // the findings moved to other rows
    void setColours(const DiffColours &colours);
    void setWindow(int firstRow, int visibleRows);

    // For tests: what the ruler shows at pixel row `y`, and the diff row a click there
    // scrolls to.
    Band bandAt(int y) const;
    std::optional<core::Severity> markerAt(int y) const;
    int rowAtY(int y) const;

Q_SIGNALS:
    void rowRequested(int row); // centre this row

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    void rebuild() const;
    Band bandOf(const DiffRow &row) const;
    int yOfRow(int row) const;

    const core::FileDiff *m_file = nullptr;
    const DiffRows *m_rows = nullptr;
    const std::map<int, core::Severity> *m_markers = nullptr;
    DiffColours m_colours;
    int m_firstRow = 0;
    int m_visibleRows = 0;
    mutable bool m_dirty = true;
    mutable std::vector<Band> m_bands;                 // per pixel row
    mutable std::vector<signed char> m_markerSeverity; // per pixel row, -1 none
};

} // namespace pw::gui
