#include "FindingsModel.h"

#include "panels/EvidenceRoles.h"
#include "panels/SeverityStyle.h"

#include <QBrush>
#include <QColor>
#include <QStringList>

namespace pw::gui {

void FindingsModel::setFindings(std::vector<core::Finding> findings,
                                const QHash<QString, int> &fileRank)
{
    beginResetModel();
    m_findings = std::move(findings);
    m_ranks = fileRank;
    int next = 0;
    for (int rank : fileRank)
        next = std::max(next, rank + 1);
    QStringList others; // paths outside the tree, by name after it
    for (const core::Finding &f : m_findings) {
        const QString path = QString::fromStdString(f.path);
        if (!path.isEmpty() && !m_ranks.contains(path) && !others.contains(path))
            others << path;
    }
    others.sort();
    for (const QString &path : std::as_const(others))
        m_ranks.insert(path, next++);
    m_ranks.insert(QString(), next); // no path: last
    m_places.clear();
    m_places.reserve(m_findings.size());
    for (const core::Finding &f : m_findings)
        m_places.push_back(place(m_ranks.value(QString::fromStdString(f.path)), f.line));
    endResetModel();
}

int FindingsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_findings.size());
}

int FindingsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::Finding &f = m_findings[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        switch (index.column()) {
        case SeverityColumn:
            return QString(QString::fromLatin1(core::severityName(f.severity)) +
                           (f.satisfiedBy ? QStringLiteral(" ✓") : QString()));
        case CodeColumn:
            return QString::fromStdString(f.code);
        case LocationColumn:
            if (!f.test.empty())
                return QString::fromStdString(f.test);
            return f.line > 0
                       ? QStringLiteral("%1:%2").arg(QString::fromStdString(f.path)).arg(f.line)
                       : QString::fromStdString(f.path);
        case MessageColumn:
            return QString::fromStdString(f.message);
        case EvidenceColumn:
            return QString::fromStdString(f.evidence);
        }
        break;
    case Qt::ForegroundRole:
        if (index.column() == SeverityColumn) {
            return severity_style::textData(severity_style::toneForSeverity(f.severity));
        }
        break;
    case PathRole:
        return QString::fromStdString(f.path);
    case LineRole:
        return f.line;
    case TestRole:
        return QString::fromStdString(f.test);
    case SeverityRole:
        return int(f.severity);
    case CodeRole:
        return QString::fromStdString(f.code);
    case SortRole:
        if (index.column() == SeverityColumn)
            return int(f.severity) * 2 + (f.satisfiedBy ? 0 : 1);
        if (index.column() == LocationColumn)
            return m_places[size_t(index.row())];
        return data(index, Qt::DisplayRole);
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *names[] = {"Severity", "Code", "Location", "Finding", "Evidence needed"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace pw::gui
