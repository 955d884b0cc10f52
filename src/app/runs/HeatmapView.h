#pragma once

#include "runs/MatrixHeat.h"

#include <QAbstractScrollArea>
#include <QColor>
#include <QImage>
#include <QPalette>
#include <QStaticText>
#include <optional>

namespace pw::gui {

// The seed-matrix heatmap: one row per test (MatrixHeat::shown() order), the test and its
// triage in a column that stays put, then the baseline block and the patched block of
// seed cells side by side. A cell's colour is fails/K on one scale (legend: HeatmapLegend);
// its count is drawn inside when the cell is large enough, so the picture does not read
// by colour alone. A cell whose replays were not all evidence is hatched; a tree that did
// not collect the test is drawn blank with a dash; a cell still waiting is an outline. The
// PATCH_BUG witness is framed and marked in its corner, on both trees.
//
// Only what is in the viewport is painted: a frame costs the visible cells, not the
// matrix (500 tests × 200 seeds scroll as fast as 5 × 20).
class HeatmapView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit HeatmapView(MatrixHeat *heat, QWidget *parent = nullptr);

    struct Hit
    {
        int row = -1;  // index into MatrixHeat rows (not the shown position)
        int seed = -1; // index into MatrixHeat::seeds(); -1: the label column
        core::Arm arm = core::Arm::Head;
        bool operator==(const Hit &o) const
        {
            return row == o.row && seed == o.seed && (seed < 0 || arm == o.arm);
        }
    };
    // What is at `pos` (viewport coordinates): a cell, a row's label, or nothing.
    std::optional<Hit> hitAt(const QPoint &pos) const;
    // Where a cell is drawn (viewport coordinates; empty when it is not shown).
    QRect cellRect(int row, core::Arm arm, int seed) const;

    int cellSize() const { return m_cell; }
    void setCellSize(int pixels); // clamped to kMinCell..kMaxCell
    void zoomIn();
    void zoomOut();
    static constexpr int kMinCell = 3;
    static constexpr int kMaxCell = 40;

    // The selected row (index into MatrixHeat rows; -1: none) and cell.
    int currentRow() const { return m_current.row; }
    std::optional<Hit> currentCell() const;
    void setCurrent(const Hit &hit); // scrolls it into view; emits currentChanged
    // The tooltip of a cell or label: test, seed, both trees' fails/K, the command.
    QString toolTipFor(const Hit &hit) const;

    // Colour of fails/K on `palette` (light or dark): a neutral shade for 0/K, then one
    // hue from pale to deep (light) or from dim to bright (dark) up to K/K. Also the
    // legend's swatches.
    static QColor cellColour(int fails, int replays, const QPalette &palette);
    // Whether cells are large enough to carry their count.
    bool drawsCounts() const;

    // Paints one full frame into `painter`'s device (the benchmark's measure).
    void paintFrame(QPainter &painter);

Q_SIGNALS:
    void currentChanged(int row);
    void cellActivated(int row, core::Arm arm, int seed); // clicked or Enter on a cell
    void zoomChanged(int cellSize);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;

private:
    void updateScrollBars();
    // After the matrix changed: the current row found again by its test, dropped when it
    // is gone or filtered out (emits currentChanged when it moved).
    void followCurrent();
    const std::vector<QStaticText> &digits();
    int labelWidth() const;
    int headerHeight() const;
    int rowHeight() const { return m_cell; }
    int blockWidth() const; // one tree's cells
    int blockGap() const;
    // x of seed `seed` of `arm` in content coordinates (from the blocks' left edge).
    int contentX(core::Arm arm, int seed) const;
    void paintHeader(QPainter &p, const QRect &area);
    void paintLabels(QPainter &p, int firstShown, int lastShown);
    void paintCells(QPainter &p, int firstShown, int lastShown);
    // Small cells: every cell a pixel of an image of the shown rows (built once per change
    // of the matrix, its order or the palette), scaled up without smoothing.
    void paintTinyCells(QPainter &p, int firstShown, int lastShown);
    const QImage &tinyImage();

    MatrixHeat *m_heat;
    int m_cell = 18;
    Hit m_current;
    QString m_currentTest; // the current row's test: rows are found again by it after a reset
    // The counts 0..K laid out once (per K and font), not once per frame.
    std::vector<QStaticText> m_digits;
    int m_digitsK = -1;
    QFont m_digitsFont;
    QImage m_tiny; // null: to be built
};

// The heatmap's key: a swatch for every fails/K step (0/K … K/K, at most 6 shown), then
// "no evidence" (hatched), "waiting", "not collected" and "witness"; painted with
// HeatmapView::cellColour on the widget's own palette.
class HeatmapLegend : public QWidget
{
    Q_OBJECT
public:
    explicit HeatmapLegend(MatrixHeat *heat, QWidget *parent = nullptr);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    MatrixHeat *m_heat;
};

} // namespace pw::gui
