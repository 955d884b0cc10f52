#pragma once

#include "audit/Finding.h"
#include "dynamic/Census.h"

#include <QAbstractTableModel>
#include <optional>

namespace pw::gui {

// The Census panel: one row per node id whose class is not "kept" — removed,
// added, renamed, narrowed, skip added, density down, failing to collect — with base and
// head presence and outcomes, the finding code, why, and the ledger entry that answers it.
// Kept nodes are counted in the summary, not listed (thousands of unchanged rows would
// bury the few that matter). Rows answer the EvidenceRole roles; CodeRole lets the ledger
// desk offer "Approve waiver" on C-REMOVED and "Grant freeze" on C-SKIP.
class CensusModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        NodeColumn,
        ChangeColumn,
        BaseColumn,
        HeadColumn,
        CodeColumn,
        DetailColumn,
        SatisfiedColumn,
        ColumnCount
    };

    explicit CensusModel(QObject *parent = nullptr);

    void setReport(const core::CensusReport &report);
    void clear();
    const core::CensusReport &report() const { return m_report; }
    bool hasReport() const { return m_hasReport; }
    // "base 10 · head 7 collected · 1 removed · … · BLOCK" (or why there is no census).
    QString summary() const;
    std::optional<core::Severity> summarySeverity() const; // the verdict's; nullopt: no census

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    core::CensusReport m_report;
    std::vector<const core::CensusRow *> m_rows; // into m_report
    bool m_hasReport = false;
};

} // namespace pw::gui
