#pragma once

#include <QHash>
#include <QList>
#include <QSortFilterProxyModel>
#include <vector>

namespace pw::gui {

// The proxy between an evidence model and its view: free text across every column (case
// insensitive), an optional "only this file" filter on PathRole (a renamed file's rows under
// its old path included), and sorting by SortRole
// (numbers as numbers), falling back to the display text for models without SortRole.
class EvidenceProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit EvidenceProxyModel(QObject *parent = nullptr);

    void setFilterText(const QString &text);
    QString filterText() const { return m_text; }
    void setFileFilter(const QString &path); // empty: every file
    QString fileFilter() const { return m_path; }
    // Renamed files, new path -> old path: the file filter of a new path also keeps the rows
    // of its old one (the base's census names the old path).
    void setRenames(QHash<QString, QString> renames);
    QString renamedFrom(const QString &path) const { return m_renames.value(path); }

    // Every source row in the order the view sorts them, whatever the filters hide: the
    // order F8 walks (the model's own order while unsorted). Kept until the source model or
    // the sort changes, so a step costs no sort.
    const std::vector<int> &sourceRowsInOrder() const;
    int positionInOrder(int sourceRow) const; // index into sourceRowsInOrder(), -1 if none

    void setSourceModel(QAbstractItemModel *source) override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_text;
    QString m_path;
    QHash<QString, QString> m_renames;
    mutable std::vector<int> m_order; // sourceRowsInOrder(), empty while stale
    mutable std::vector<int> m_positions;
    mutable bool m_orderValid = false;
    QList<QMetaObject::Connection> m_sourceConnections;
};

} // namespace pw::gui
