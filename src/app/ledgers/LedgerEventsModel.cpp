#include "LedgerEventsModel.h"

#include "ledger/LedgerDate.h"
#include "panels/EvidenceRoles.h"
#include "panels/PanelText.h"
#include "panels/SeverityStyle.h"
#include "util/Format.h"

#include <QDateTime>
#include <algorithm>
#include <set>

namespace pw::gui {

namespace style = severity_style;

namespace {

style::Tone toneOf(core::LedgerEvent::Kind kind)
{
    switch (kind) {
    case core::LedgerEvent::Kind::Added:
    case core::LedgerEvent::Kind::Renewed:
        return style::Tone::Good;
    case core::LedgerEvent::Kind::Removed:
    case core::LedgerEvent::Kind::Expired:
    case core::LedgerEvent::Kind::Unreadable:
        return style::Tone::Review;
    case core::LedgerEvent::Kind::Edited:
        break;
    }
    return style::Tone::Neutral;
}

} // namespace

void LedgerEventsModel::setEvents(std::vector<core::LedgerEvent> events)
{
    // Oldest first with ties in history order: reversed, the latest of a tie comes first.
    std::reverse(events.begin(), events.end());
    beginResetModel();
    m_events = std::move(events);
    endResetModel();
}

void LedgerEventsModel::clear()
{
    beginResetModel();
    m_events.clear();
    endResetModel();
}

const core::LedgerEvent *LedgerEventsModel::eventAt(int row) const
{
    return row >= 0 && row < int(m_events.size()) ? &m_events[size_t(row)] : nullptr;
}

QString LedgerEventsModel::dateText(const core::LedgerEvent &event)
{
    const QDateTime when = QDateTime::fromSecsSinceEpoch(event.time, Qt::UTC);
    // An expiry is a day, not a moment someone did something.
    if (event.kind == core::LedgerEvent::Kind::Expired)
        return QString::fromStdString(core::ledgerDateText(when.date()));
    return when.toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

core::Severity LedgerEventsModel::severityOf(core::LedgerEvent::Kind kind)
{
    return toneOf(kind) == style::Tone::Review ? core::Severity::Review : core::Severity::Info;
}

QString LedgerEventsModel::summary() const
{
    if (m_events.empty())
        return tr("No ledger history");
    std::set<std::string> files;
    for (const core::LedgerEvent &e : m_events)
        files.insert(e.file);
    const int n = int(m_events.size());
    const int f = int(files.size());
    return (n == 1 ? tr("1 event") : tr("%1 events").arg(n)) + QLatin1Char(' ') +
           (f == 1 ? tr("in 1 ledger file") : tr("in %1 ledger files").arg(f));
}

int LedgerEventsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_events.size());
}

int LedgerEventsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString LedgerEventsModel::text(const core::LedgerEvent &e, int column) const
{
    switch (column) {
    case DateColumn:
        return dateText(e);
    case EventColumn:
        return QString::fromLatin1(core::ledgerEventName(e.kind));
    case EntryColumn:
        return qs(e.entry);
    case FileColumn:
        return qs(e.file);
    case CommitColumn:
        return qs(core::shortId(e.commit, 10));
    case AuthorColumn:
        return qs(e.author);
    case DetailColumn: {
        // Parse errors can span lines; the tooltip has all of it.
        const QString detail = qs(e.detail);
        const int newline = detail.indexOf(QLatin1Char('\n'));
        return newline < 0 ? detail : QString(detail.left(newline) + QStringLiteral(" …"));
    }
    }
    return {};
}

QVariant LedgerEventsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const int row = index.row();
    const core::LedgerEvent &e = m_events[size_t(row)];
    switch (role) {
    case Qt::DisplayRole:
        return text(e, index.column());
    case Qt::ToolTipRole:
        switch (index.column()) {
        case CommitColumn:
            return qs(e.commit);
        case DateColumn:
            return QDateTime::fromSecsSinceEpoch(e.time, Qt::UTC).toString(Qt::ISODate);
        default:
            return e.detail.empty() ? QVariant() : QVariant(qs(e.detail));
        }
    case Qt::ForegroundRole:
        if (index.column() == EventColumn)
            return style::foregroundData(toneOf(e.kind));
        break;
    case Qt::BackgroundRole:
        if (index.column() == EventColumn)
            return style::backgroundData(toneOf(e.kind));
        break;
    case PathRole:
        return qs(e.file);
    case LineRole:
        return 0;
    case TestRole:
        return qs(e.entry);
    case SeverityRole:
        return int(severityOf(e.kind));
    case CodeRole:
        return QString(); // rows are ledger entries / events, not findings
    case SortRole:
        switch (index.column()) {
        case DateColumn:
            // Ties in time keep history order (rows are newest first).
            return qint64(e.time) * 1'000'000 + (rowCount() - row);
        case EventColumn:
            return int(e.kind);
        default:
            return text(e, index.column());
        }
    }
    return {};
}

QVariant LedgerEventsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case DateColumn:
        return tr("Date (UTC)");
    case EventColumn:
        return tr("Event");
    case EntryColumn:
        return tr("Entry");
    case FileColumn:
        return tr("File");
    case CommitColumn:
        return tr("Commit");
    case AuthorColumn:
        return tr("Author");
    case DetailColumn:
        return tr("Detail");
    }
    return {};
}

} // namespace pw::gui
