#pragma once

#include "audit/GateReport.h"

#include <QAbstractTableModel>

namespace pw::gui {

// The patch's changed files with their status and finding badges ("2 block · 1 review").
class ChangedFilesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        StatusColumn,
        PathColumn,
        BadgeColumn,
        ColumnCount
    };
    enum Role
    {
        PathRole = Qt::UserRole + 1
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setReport(const core::GateReport &report);
    int rowOf(const QString &path) const;
    // The row a reviewer should see first: most blocking, then most review findings.
    int mostSevereRow() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        core::ChangedFile file;
        int block = 0;
        int review = 0;
        int info = 0;
    };
    std::vector<Row> m_rows;
};

} // namespace pw::gui
