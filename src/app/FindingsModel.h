#pragma once

#include "audit/Finding.h"

#include <QAbstractTableModel>
#include <vector>

namespace pw::gui {

// The findings of a gate report: severity, code, location, message, evidence.
class FindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        SeverityColumn,
        CodeColumn,
        LocationColumn,
        MessageColumn,
        EvidenceColumn,
        ColumnCount
    };
    // Rows answer the shared evidence roles (panels/EvidenceRoles.h).

    using QAbstractTableModel::QAbstractTableModel;

    void setFindings(std::vector<core::Finding> findings);
    const core::Finding &finding(int row) const { return m_findings.at(size_t(row)); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<core::Finding> m_findings;
};

} // namespace pw::gui
