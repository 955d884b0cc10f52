#pragma once

#include "audit/Finding.h"
#include "ledger/LedgerHistory.h"

#include <QAbstractTableModel>
#include <optional>
#include <vector>

namespace pw::gui {

// The "History" panel's rows: ledger events newest first, one row each.
// Answers the EvidenceRole roles: PathRole = the ledger file at that commit, TestRole = the
// entry, so the panel's filter box filters by test.
class LedgerEventsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        DateColumn,   // author date, UTC, "yyyy-MM-dd HH:mm" (expiries: the day)
        EventColumn,  // added / renewed / edited / expired / removed / unreadable
        EntryColumn,  // test / node / id
        FileColumn,   // ledger file path at that commit
        CommitColumn, // 10 hex digits
        AuthorColumn,
        DetailColumn, // changed fields, or the parse error
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    // `events` oldest first, as LedgerHistory gives them; shown newest first.
    void setEvents(std::vector<core::LedgerEvent> events);
    void clear();

    const core::LedgerEvent *eventAt(int row) const;
    static QString dateText(const core::LedgerEvent &event);
    // 1 (review) for removed / expired / unreadable, else 0.
    static core::Severity severityOf(core::LedgerEvent::Kind kind);
    // "14 events in 3 ledger files"
    QString summary() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QString text(const core::LedgerEvent &event, int column) const;

    std::vector<core::LedgerEvent> m_events; // newest first
};

} // namespace pw::gui
