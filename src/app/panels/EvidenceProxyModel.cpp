#include "EvidenceProxyModel.h"

#include "EvidenceRoles.h"

#include <algorithm>
#include <numeric>

namespace pw::gui {

namespace {

bool isNumber(const QVariant &v)
{
    switch (v.userType()) {
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
    case QMetaType::Double:
    case QMetaType::Float:
    case QMetaType::Bool:
        return true;
    default:
        return false;
    }
}

QVariant sortKey(const QModelIndex &index)
{
    const QVariant key = index.data(SortRole);
    return key.isValid() ? key : index.data(Qt::DisplayRole);
}

} // namespace

EvidenceProxyModel::EvidenceProxyModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setFilterKeyColumn(-1); // every column
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setSortRole(SortRole);
}

void EvidenceProxyModel::setFilterText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    setFilterFixedString(text);
}

void EvidenceProxyModel::setFileFilter(const QString &path)
{
    if (path == m_path)
        return;
    m_path = path;
    invalidateFilter();
}

void EvidenceProxyModel::setRenames(QHash<QString, QString> renames)
{
    if (renames == m_renames)
        return;
    m_renames = std::move(renames);
    if (!m_path.isEmpty())
        invalidateFilter();
}

bool EvidenceProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_path.isEmpty()) {
        const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
        const QString path = index.data(PathRole).toString();
        if (path != m_path && (path.isEmpty() || path != m_renames.value(m_path)))
            return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

void EvidenceProxyModel::setSourceModel(QAbstractItemModel *source)
{
    if (source == sourceModel())
        return;
    for (const QMetaObject::Connection &c : std::as_const(m_sourceConnections))
        disconnect(c);
    m_sourceConnections.clear();
    QSortFilterProxyModel::setSourceModel(source);
    m_orderValid = false;
    if (!source)
        return;
    auto stale = [this] { m_orderValid = false; };
    m_sourceConnections = {
        connect(source, &QAbstractItemModel::modelReset, this, stale),
        connect(source, &QAbstractItemModel::rowsInserted, this, stale),
        connect(source, &QAbstractItemModel::rowsRemoved, this, stale),
        connect(source, &QAbstractItemModel::rowsMoved, this, stale),
        connect(source, &QAbstractItemModel::dataChanged, this, stale),
        connect(source, &QAbstractItemModel::layoutChanged, this, stale),
    };
}

void EvidenceProxyModel::sort(int column, Qt::SortOrder order)
{
    m_orderValid = false;
    QSortFilterProxyModel::sort(column, order);
}

const std::vector<int> &EvidenceProxyModel::sourceRowsInOrder() const
{
    if (m_orderValid)
        return m_order;
    m_orderValid = true;
    m_order.clear();
    m_positions.clear();
    const QAbstractItemModel *source = sourceModel();
    if (!source)
        return m_order;
    m_order.resize(size_t(source->rowCount()));
    std::iota(m_order.begin(), m_order.end(), 0);
    const int column = sortColumn();
    if (column >= 0 && column < source->columnCount()) {
        // As QSortFilterProxyModel sorts: stable, descending by the swapped comparison.
        const bool ascending = sortOrder() == Qt::AscendingOrder;
        std::stable_sort(m_order.begin(), m_order.end(), [&](int a, int b) {
            const QModelIndex l = source->index(a, column);
            const QModelIndex r = source->index(b, column);
            return ascending ? lessThan(l, r) : lessThan(r, l);
        });
    }
    m_positions.assign(m_order.size(), -1);
    for (size_t i = 0; i < m_order.size(); ++i)
        m_positions[size_t(m_order[i])] = int(i);
    return m_order;
}

int EvidenceProxyModel::positionInOrder(int sourceRow) const
{
    sourceRowsInOrder();
    return sourceRow >= 0 && size_t(sourceRow) < m_positions.size() ? m_positions[size_t(sourceRow)]
                                                                    : -1;
}

bool EvidenceProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant l = sortKey(left);
    const QVariant r = sortKey(right);
    // Equal keys in the model's order: a total order, so the view and sourceRowsInOrder()
    // (the order F8 walks) agree however the rows came and went.
    int c = 0;
    if (isNumber(l) && isNumber(r))
        c = l.toDouble() < r.toDouble() ? -1 : r.toDouble() < l.toDouble() ? 1 : 0;
    else
        c = QString::compare(l.toString(), r.toString(), sortCaseSensitivity());
    return c != 0 ? c < 0 : left.row() < right.row();
}

} // namespace pw::gui
