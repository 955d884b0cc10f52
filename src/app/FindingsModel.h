#pragma once

#include "audit/Finding.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QString>
#include <algorithm>
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

    // `fileRank` is each changed file's place in the file tree (a renamed file's old path
    // ranked as its new one): the Location column sorts by it, then by line, so the panel
    // reads in the tree's order. Paths outside the tree (a ledger the patch leaves alone)
    // follow by name, findings without a path come last.
    void setFindings(std::vector<core::Finding> findings, const QHash<QString, int> &fileRank = {});
    const core::Finding &finding(int row) const { return m_findings.at(size_t(row)); }
    const std::vector<core::Finding> &findings() const { return m_findings; }
    // Where a finding sits in that order: file rank, then line (file-level findings first).
    qint64 place(int row) const { return m_places.at(size_t(row)); }
    static qint64 place(int fileRank, int line)
    {
        return (qint64(fileRank) << 32) | qint64(std::max(line, 0));
    }
    // The rank of `path` as setFindings ranked it (-1: no finding there and not in the tree).
    int rankOf(const QString &path) const { return m_ranks.value(path, -1); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<core::Finding> m_findings;
    std::vector<qint64> m_places;
    QHash<QString, int> m_ranks;
};

} // namespace pw::gui
