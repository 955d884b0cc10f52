#pragma once

#include <QWidget>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace pw::gui {

class EvidencePanel;
class RunController;
class RunsModel;

// The Runs panel: the running job with a progress bar (counts and ETA) and a
// Cancel button, the queue of jobs waiting behind it (one can be taken out), every
// finished run as a row as it ends, and the log of the selected run (the exact command,
// seed, env digest, outcomes, output tails).
// Object names: runsProgress, cancelRuns, runsStatus, runsQueue, dropQueued, runsTable,
// runLog.
class RunsPanel : public QWidget
{
    Q_OBJECT
public:
    RunsPanel(RunController *controller, QWidget *parent = nullptr);

    RunsModel *model() const { return m_model; }
    EvidencePanel *table() const { return m_table; }
    QPlainTextEdit *log() const { return m_log; }
    void selectRun(int row);

private:
    void selectNewRunIfNone();
    void updateProgress();
    void showRun(int row);
    void updateQueue();

    RunController *m_controller;
    RunsModel *m_model;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QLabel *m_status;
    QWidget *m_queueBox; // hidden while nothing waits
    QListWidget *m_queue;
    QPushButton *m_dropQueued;
    QString m_failure; // why the last job failed, until the next one starts
    EvidencePanel *m_table;
    QPlainTextEdit *m_log;
};

} // namespace pw::gui
