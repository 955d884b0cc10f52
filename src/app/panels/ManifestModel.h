#pragma once

#include "audit/Finding.h"
#include "audit/GateReport.h"

#include <QAbstractTableModel>
#include <optional>
#include <vector>

namespace pw::gui {

// The "Manifest diff" panel: findings of the manifest, fixture, conftest and ledger gates
// plus every PARSE_ERROR, one row each. Answers the EvidenceRole roles.
class ManifestModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        VerdictColumn,   // code, coloured by severity
        LocationColumn,  // test id, else path:line
        BlockingColumn,  // yes / review / no ("no (satisfied)" once a ledger entry covers it)
        EvidenceColumn,  // what a reviewer must attach
        SatisfiedColumn, // ledger entry that satisfies it, "—" if none
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    // Whether the panel shows this finding (by gate, or because it is a PARSE_ERROR).
    static bool accepts(const core::Finding &finding);

    void setReport(const core::GateReport &report);
    const core::Finding &finding(int row) const { return m_findings.at(size_t(row)); }
    // "5 findings: 3 block, 1 review, 1 info" (satisfied ones counted apart).
    QString summary() const;
    // Highest severity among unsatisfied rows (0 info, 1 review, 2 block).
    core::Severity summarySeverity() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QString text(const core::Finding &f, int column) const;

    std::vector<core::Finding> m_findings;
};

} // namespace pw::gui
