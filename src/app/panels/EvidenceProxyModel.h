#pragma once

#include <QSortFilterProxyModel>

namespace pw::gui {

// The proxy between an evidence model and its view: free text across every column (case
// insensitive), an optional "only this file" filter on PathRole, and sorting by SortRole
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

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_text;
    QString m_path;
};

} // namespace pw::gui
