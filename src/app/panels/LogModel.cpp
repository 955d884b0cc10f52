#include "LogModel.h"

#include "EvidenceRoles.h"
#include "SeverityStyle.h"

#include <algorithm>

namespace pw::gui {

namespace style = severity_style;

namespace {

// A warning reads like a finding to review, an error like a blocker.
core::Severity severityOf(LogModel::Level level)
{
    switch (level) {
    case LogModel::Level::Error:
        return core::Severity::Block;
    case LogModel::Level::Warning:
        return core::Severity::Review;
    case LogModel::Level::Info:
        break;
    }
    return core::Severity::Info;
}

} // namespace

LogModel::LogModel(QObject *parent) : QAbstractTableModel(parent) {}

QString LogModel::levelName(Level level)
{
    switch (level) {
    case Level::Info:
        return tr("info");
    case Level::Warning:
        return tr("warning");
    case Level::Error:
        return tr("error");
    }
    return {};
}

void LogModel::append(Level level, const QString &message, const QDateTime &when)
{
    if (m_maxRows <= 0)
        return;
    if (int(m_entries.size()) >= m_maxRows)
        dropOldest(int(m_entries.size()) - m_maxRows + 1);
    const int row = int(m_entries.size());
    beginInsertRows({}, row, row);
    m_entries.push_back({when, level, message, m_sequence++});
    endInsertRows();
}

void LogModel::clear()
{
    beginResetModel();
    m_entries.clear();
    endResetModel();
}

void LogModel::setMaxRows(int rows)
{
    m_maxRows = std::max(0, rows);
    if (int(m_entries.size()) > m_maxRows)
        dropOldest(int(m_entries.size()) - m_maxRows);
}

void LogModel::dropOldest(int count)
{
    if (count <= 0)
        return;
    beginRemoveRows({}, 0, count - 1);
    m_entries.erase(m_entries.begin(), m_entries.begin() + count);
    endRemoveRows();
}

int LogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int LogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LogModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const Entry &e = m_entries[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return e.time.toString(QStringLiteral("HH:mm:ss"));
        case LevelColumn:
            return levelName(e.level);
        case MessageColumn: {
            // Rows are one line high; the tooltip has the rest (tracebacks, stderr).
            const int newline = e.message.indexOf(QLatin1Char('\n'));
            return newline < 0 ? e.message
                               : QString(e.message.left(newline) + QStringLiteral(" …"));
        }
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case TimeColumn:
            return e.time.toString(Qt::ISODateWithMs);
        default:
            return e.message;
        }
    case Qt::ForegroundRole:
        if (index.column() == LevelColumn) // on its tint
            return style::foregroundData(style::toneForSeverity(severityOf(e.level)));
        if (e.level == Level::Error)
            return style::textData(style::toneForSeverity(severityOf(e.level)));
        break;
    case Qt::BackgroundRole:
        if (index.column() == LevelColumn)
            return style::backgroundData(style::toneForSeverity(severityOf(e.level)));
        break;
    case PathRole:
    case TestRole:
        return QString();
    case LineRole:
        return 0;
    case SeverityRole:
        return int(e.level);
    case SortRole:
        switch (index.column()) {
        case TimeColumn:
            return e.sequence;
        case LevelColumn:
            return int(e.level);
        default:
            return e.message;
        }
    }
    return {};
}

QVariant LogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case LevelColumn:
        return tr("Level");
    case MessageColumn:
        return tr("Message");
    }
    return {};
}

} // namespace pw::gui
