#include "ChangedFilesModel.h"

#include <QBrush>
#include <QColor>
#include <map>
#include <utility>

namespace pw::gui {

void ChangedFilesModel::setReport(const core::GateReport &report)
{
    beginResetModel();
    m_rows.clear();
    std::map<std::string, size_t> byPath;
    for (const core::ChangedFile &f : report.changedFiles) {
        byPath[f.path] = m_rows.size();
        m_rows.push_back({f});
    }
    for (const core::Finding &f : report.findings) {
        auto it = byPath.find(f.path);
        if (it == byPath.end() || f.satisfiedBy)
            continue;
        Row &row = m_rows[it->second];
        (f.severity == core::Severity::Block    ? row.block
         : f.severity == core::Severity::Review ? row.review
                                                : row.info)++;
    }
    endResetModel();
}

int ChangedFilesModel::rowOf(const QString &path) const
{
    const std::string p = path.toStdString();
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].file.path == p)
            return int(i);
    }
    return -1;
}

int ChangedFilesModel::mostSevereRow() const
{
    int best = m_rows.empty() ? -1 : 0;
    for (size_t i = 1; i < m_rows.size(); ++i) {
        const Row &r = m_rows[i];
        const Row &b = m_rows[size_t(best)];
        if (std::pair(r.block, r.review) > std::pair(b.block, b.review))
            best = int(i);
    }
    return best;
}

int ChangedFilesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ChangedFilesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ChangedFilesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &row = m_rows[size_t(index.row())];
    if (role == PathRole)
        return QString::fromStdString(row.file.path);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case StatusColumn:
            return QString::fromStdString(row.file.status);
        case PathColumn:
            return row.file.oldPath.empty()
                       ? QString::fromStdString(row.file.path)
                       : QStringLiteral("%1 ← %2").arg(QString::fromStdString(row.file.path),
                                                       QString::fromStdString(row.file.oldPath));
        case BadgeColumn: {
            QStringList parts;
            if (row.block)
                parts << tr("%n block", nullptr, row.block);
            if (row.review)
                parts << tr("%n review", nullptr, row.review);
            return parts.join(QStringLiteral(" · "));
        }
        }
    }
    if (role == Qt::ForegroundRole && index.column() == BadgeColumn)
        return QBrush(row.block ? QColor(0xc6, 0x28, 0x28) : QColor(0xb2, 0x6a, 0x00));
    return {};
}

QVariant ChangedFilesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StatusColumn:
        return tr("St");
    case PathColumn:
        return tr("File");
    case BadgeColumn:
        return tr("Findings");
    }
    return {};
}

} // namespace pw::gui
