#include "RunsPanel.h"

#include "RunController.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "runs/RunsModel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

namespace pw::gui {

RunsPanel::RunsPanel(RunController *controller, QWidget *parent)
    : QWidget(parent), m_controller(controller), m_model(new RunsModel(this)),
      m_progress(new QProgressBar(this)), m_cancel(new QPushButton(tr("&Cancel runs"), this)),
      m_status(new QLabel(this)), m_queueBox(new QWidget(this)),
      m_queue(new QListWidget(m_queueBox)),
      m_dropQueued(new QPushButton(tr("&Remove from queue"), m_queueBox)),
      m_table(new EvidencePanel(this)), m_log(new QPlainTextEdit(this))
{
    m_progress->setObjectName(QStringLiteral("runsProgress"));
    m_cancel->setObjectName(QStringLiteral("cancelRuns"));
    m_status->setObjectName(QStringLiteral("runsStatus"));
    m_table->setObjectName(QStringLiteral("runsTable"));
    m_log->setObjectName(QStringLiteral("runLog"));
    m_queue->setObjectName(QStringLiteral("runsQueue"));
    m_dropQueued->setObjectName(QStringLiteral("dropQueued"));
    m_dropQueued->setToolTip(tr("Take the selected job out of the queue; it never starts"));
    m_dropQueued->setEnabled(false); // until a waiting job is selected
    m_queue->setMaximumHeight(m_queue->fontMetrics().height() * 4 + 8);
    auto *queueRow = new QHBoxLayout(m_queueBox);
    queueRow->setContentsMargins(0, 0, 0, 0);
    auto *queueLabel = new QLabel(tr("Queued:"), m_queueBox);
    queueLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    queueRow->addWidget(queueLabel, 0, Qt::AlignTop);
    queueRow->addWidget(m_queue, 1);
    queueRow->addWidget(m_dropQueued, 0, Qt::AlignTop);
    m_queueBox->hide();
    m_cancel->setToolTip(tr("Kill the running pytest process groups and drop the queue"));
    m_cancel->setEnabled(false);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("idle"));
    m_status->setText(tr("No runs yet. Runs ▸ Run census starts one."));
    m_status->setWordWrap(true);
    m_log->setReadOnly(true);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("Select a run to see its command, seed, env digest and "
                                 "output."));
    m_table->setModel(m_model);
    m_table->setPrimaryColumn(RunsModel::TestsColumn);

    auto *top = new QHBoxLayout;
    top->addWidget(m_progress, 1);
    top->addWidget(m_cancel);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_log);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(m_queueBox);
    layout->addWidget(split, 1);

    connect(m_cancel, &QPushButton::clicked, m_controller, &RunController::cancel);
    connect(m_dropQueued, &QPushButton::clicked, this, [this] {
        if (const QListWidgetItem *item = m_queue->currentItem())
            m_controller->dropQueued(item->data(Qt::UserRole).toInt());
    });
    connect(m_queue, &QListWidget::currentItemChanged, this,
            [this](const QListWidgetItem *current) { m_dropQueued->setEnabled(current); });
    connect(m_controller, &RunController::queueChanged, this, [this] {
        updateQueue();
        updateProgress();
    });
    connect(m_controller, &RunController::started, this, [this] {
        m_log->clear();
        m_failure.clear();
        updateProgress();
    });
    connect(m_controller, &RunController::progressChanged, this, &RunsPanel::updateProgress);
    connect(m_controller, &RunController::runFinished, this,
            [this](const QString &job, const core::RunResult &run) {
                m_model->append(job, run);
                selectNewRunIfNone();
            });
    connect(m_controller, &RunController::nodeRunFinished, this,
            [this](const QString &job, const core::NodeRunProgress &run) {
                m_model->append(job, run);
                selectNewRunIfNone();
            });
    connect(m_controller, &RunController::finished, this, &RunsPanel::updateProgress);
    connect(m_controller, &RunController::failed, this,
            [this](const QString &job, const QString &message) {
                // Kept until the next job: `finished` follows and redraws the status.
                m_failure = tr("%1 failed: %2").arg(job, message);
                updateProgress();
            });
    connect(m_table->view()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                const QModelIndex source = m_table->proxy()->mapToSource(current);
                showRun(source.isValid() ? source.row() : -1);
            });
}

void RunsPanel::selectRun(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    const QModelIndex index = m_table->proxy()->mapFromSource(m_model->index(row, 0));
    m_table->view()->setCurrentIndex(index);
    showRun(row);
}

void RunsPanel::showRun(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        m_log->clear();
        return;
    }
    m_log->setPlainText(m_model->row(row).log);
}

// The first run to arrive is shown; the reader's own choice is left alone after that.
void RunsPanel::selectNewRunIfNone()
{
    if (!m_table->view()->currentIndex().isValid())
        selectRun(m_model->rowCount() - 1);
}

// The selection stays with its job (by id), not its row: when the front job leaves to
// run, the rows shift, and Remove must not drop another job than the one picked.
void RunsPanel::updateQueue()
{
    const QList<RunController::QueuedJob> jobs = m_controller->queuedJobs();
    const QListWidgetItem *current = m_queue->currentItem();
    const int keep = current ? current->data(Qt::UserRole).toInt() : 0;
    m_queue->clear();
    for (int i = 0; i < jobs.size(); ++i) {
        auto *item = new QListWidgetItem(tr("%1. %2").arg(i + 1).arg(jobs[i].title), m_queue);
        item->setData(Qt::UserRole, jobs[i].id);
        if (jobs[i].id == keep)
            m_queue->setCurrentItem(item);
    }
    m_dropQueued->setEnabled(m_queue->currentItem());
    m_queueBox->setVisible(!jobs.isEmpty());
}

void RunsPanel::updateProgress()
{
    const bool running = m_controller->isRunning();
    m_cancel->setEnabled(m_controller->isBusy());
    const int total = m_controller->total();
    if (running && total == 0) {
        m_progress->setRange(0, 0); // busy: trees are being materialised
    } else {
        m_progress->setRange(0, std::max(1, total));
        m_progress->setValue(m_controller->done());
    }
    const bool failed = !running && !m_failure.isEmpty();
    m_progress->setFormat(
        running      ? m_controller->progressText()
        : total == 0 ? (failed ? tr("stopped") : tr("idle"))
                     : (failed ? tr("%1: stopped after %2/%3 runs") : tr("%1: %2/%3 runs done"))
                           .arg(m_controller->job())
                           .arg(m_controller->done())
                           .arg(total));
    const QString session = tr("%n run(s) in this session.", nullptr, m_model->rowCount());
    m_status->setText(
        running
            ? (m_controller->queued().isEmpty()
                   ? tr("Running %1 — Cancel kills every pytest process group.")
                         .arg(m_controller->job())
                   : tr("Running %1, %n job(s) queued — Cancel kills every pytest process group "
                        "and drops the queue.",
                        nullptr, int(m_controller->queued().size()))
                         .arg(m_controller->job()))
            : (failed ? m_failure + QStringLiteral(" — ") + session : session));
}

} // namespace pw::gui
