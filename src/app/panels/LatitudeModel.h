#pragma once

#include "audit/Finding.h"
#include "audit/GateReport.h"

#include <QAbstractTableModel>
#include <optional>

namespace pw::gui {

// The "Oracle latitude" panel: one row per scored test, including tests whose
// oracle did not get cheaper (score 0), with the signals that make up the score and the
// test's share of the patch total. The patch total against the threshold is summary().
class LatitudeModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        TestColumn,
        ScoreColumn,   // "+3", coloured: 0 neutral, amber below threshold, red at/over it
        SignalsColumn, // joined with "; "
        ShareColumn,   // the test's share of the patch total ("43%")
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setReport(const core::GateReport &report);
    const core::LatitudeTestScore &test(int row) const { return m_latitude.tests.at(size_t(row)); }
    int total() const { return m_latitude.total; }
    int threshold() const { return m_latitude.threshold; }
    // "Patch latitude 7 (threshold 4): <policy>", for the panel's header label.
    QString summary() const;
    // Severity of the patch total (Info unchanged, Review below threshold, Block at/over).
    core::Severity summarySeverity() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QString text(const core::LatitudeTestScore &t, int column) const;
    double share(const core::LatitudeTestScore &t) const;
    core::Severity severity(const core::LatitudeTestScore &t) const;

    core::LatitudeReport m_latitude;
};

} // namespace pw::gui
