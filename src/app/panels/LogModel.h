#pragma once

#include <QAbstractTableModel>
#include <QDateTime>
#include <deque>

namespace pw::gui {

// The workbench log: what went wrong (bad revision, parse error, missing interpreter) as
// readable rows, newest last. Append-only and capped: past maxRows() the oldest rows go,
// so a chatty run cannot grow the window's memory without bound.
class LogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum class Level
    {
        Info,
        Warning,
        Error
    };
    enum Column
    {
        TimeColumn,
        LevelColumn,
        MessageColumn,
        ColumnCount
    };
    static constexpr int kDefaultMaxRows = 5000;

    explicit LogModel(QObject *parent = nullptr);

    void append(Level level, const QString &message,
                const QDateTime &when = QDateTime::currentDateTime());
    void clear();
    void setMaxRows(int rows); // drops the oldest rows at once if there are more
    int maxRows() const { return m_maxRows; }
    static QString levelName(Level level); // "info", "warning", "error"

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Entry
    {
        QDateTime time;
        Level level;
        QString message;
        qint64 sequence; // ties in time keep their order when sorted
    };
    void dropOldest(int count);

    std::deque<Entry> m_entries;
    int m_maxRows = kDefaultMaxRows;
    qint64 m_sequence = 0;
};

} // namespace pw::gui
