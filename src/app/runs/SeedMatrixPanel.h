#pragma once

#include "runs/HeatmapView.h"
#include "runs/MatrixHeat.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QToolButton;

namespace pw::gui {

// The Seed matrix panel: the heatmap with its legend, filter (verdict), sort and zoom; the
// selected test's triage and the selected cell's log (its counts, its reproduction
// command, the log of the pytest run that held it) beside it; Grant freeze for a PRE_EXISTING
// row of a recorded matrix (disabled for any other, saying why) and Copy command for the
// selected cell.
class SeedMatrixPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SeedMatrixPanel(QWidget *parent = nullptr);

    MatrixHeat *heat() const { return m_heat; }
    HeatmapView *view() const { return m_view; }
    QPushButton *grantFreezeButton() const { return m_grantFreeze; }
    QPlainTextEdit *cellLog() const { return m_log; }
    QComboBox *filterBox() const { return m_filter; }
    QComboBox *sortBox() const { return m_sort; }

    // Selects the row of `test` (and, with `seed`, that seed's patched cell) and shows it.
    bool selectTest(const QString &test, std::optional<long long> seed = std::nullopt);
    // The log pane's text for one cell: test, tree, seed, fails/K, the command and the log
    // of the run that held it (from the finished matrix; what streamed in while running).
    QString cellText(int row, core::Arm arm, int seed) const;
    // A matrix that gave no result: the summary says why (until the next one).
    void setFailure(const QString &text);
    // Why Grant freeze is disabled for `row` ("" when it is enabled).
    QString freezeRefusal(int row) const;

Q_SIGNALS:
    // Grant freeze on a PRE_EXISTING row: the ledger desk opens the form pre-filled from the
    // matrix record.
    void grantFreezeRequested(const QString &test, const QString &record);

private:
    void updateRow();
    void showCell(int row, core::Arm arm, int seed);

    MatrixHeat *m_heat;
    HeatmapView *m_view;
    HeatmapLegend *m_legend;
    QComboBox *m_filter;
    QComboBox *m_sort;
    QToolButton *m_zoomOut;
    QToolButton *m_zoomIn;
    QLabel *m_summary;
    QLabel *m_triage; // the selected row's line
    QPushButton *m_grantFreeze;
    QPushButton *m_copyCommand;
    QPlainTextEdit *m_log;
};

} // namespace pw::gui
