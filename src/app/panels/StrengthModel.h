#pragma once

#include "audit/Finding.h"
#include "audit/GateReport.h"

#include <QAbstractTableModel>
#include <optional>

namespace pw::gui {

// The "Oracle strength" panel: per test the oracle metrics at base and head
// ("3→1"; one number when unchanged), the flags and the resulting action. Metric cells named
// by a flag are coloured (weaker amber, blocker red, stronger green).
class StrengthModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        TestColumn,
        FlagsColumn,
        AssertionsColumn, // headers are short ("Asserts"); the tooltip has metricName()
        ComparisonsColumn,
        TruthyColumn,
        ToleranceColumn, // widest relative tolerance: "1e-06→computed"
        BroadRaisesColumn,
        SkipMarkersColumn,
        ActionColumn, // pass / review / block
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setReport(const core::GateReport &report);
    const core::StrengthRow &row(int row) const { return m_strength.tests.at(size_t(row)); }
    // "Oracle strength: 6 tests, action BLOCK (1 blocker, 3 weaker, 1 stronger, 1 new)".
    QString summary() const;
    core::Severity summarySeverity() const { return m_strength.action; }

    // "1e-06", "computed" (not a literal: unbounded), "none" (no tolerance).
    static QString formatTolerance(const std::optional<double> &value);
    // The long name of a metric column ("Truthy-only assertions"), for tooltips.
    static QString metricName(int column);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QString text(const core::StrengthRow &r, int column) const;
    QVariant sortKey(const core::StrengthRow &r, int column) const;

    core::StrengthReport m_strength;
};

} // namespace pw::gui
