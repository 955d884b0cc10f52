#pragma once

#include "dynamic/Attribution.h"
#include "execution/PytestRun.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <vector>

namespace pw::gui {

// The Runs panel's rows: one per finished pytest run of the dynamic
// gates, in the order they ended — job, arm, kind, seed, status, counts, seconds and the
// env digest; the tooltip and runLog() give the exact command to repeat it.
class RunsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        JobColumn,
        ArmColumn,
        KindColumn,
        SeedColumn,
        StatusColumn,
        TestsColumn,
        SecondsColumn,
        EnvColumn,
        ColumnCount
    };

    // One finished run as the panel shows it, from a whole pytest run (census) or from
    // what a node-level gate (attribution, cells) says about the node in it.
    struct Row
    {
        QString job;   // "census", "attribute tests/x.py::t", ...
        QString arm;   // base / head, or the cell (solo, order, isolate, clock)
        QString kind;  // collect, run, node
        QString seeds; // "0", or "1..4" for the trials of one fork-server run
        QString status;
        QString tests; // "3 pass · 1 fail · 0 skip", or the node's outcome
        double seconds = 0;
        QString envDigest;
        QString command;
        QString log; // the whole log pane text
        bool harnessError = false;
        QString test; // the node, when the run is about one
        QDateTime finished;
    };

    // A long session keeps the newest rows only (each holds its output tails).
    static constexpr int kMaxRows = 2000;

    explicit RunsModel(QObject *parent = nullptr);

    void append(const QString &job, const core::RunResult &run);
    void append(const QString &job, const core::NodeRunProgress &progress);
    void clear();
    const Row &row(int index) const { return m_rows[size_t(index)]; }

    // The log pane of a whole run: command, seed, env digest, status and why, the node
    // outcomes and the tails of stdout/stderr.
    static QString runLog(const QString &job, const core::RunResult &run);
    static QString kindOf(const core::RunResult &run); // "collect" or "run"
    static QString statusText(const core::RunResult &run);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void push(Row row); // stamps it, drops the oldest past kMaxRows
    std::vector<Row> m_rows;
};

} // namespace pw::gui
