#pragma once

#include "dynamic/Attribution.h"
#include "dynamic/Census.h"
#include "dynamic/ReproCells.h"
#include "dynamic/SeedMatrix.h"
#include "dynamic/Shadow.h"
#include "execution/RunContext.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <deque>
#include <functional>
#include <memory>

namespace pw::core {
class RunPool;
}

namespace pw::gui {

// Runs the dynamic gates off the GUI thread: one job at a time on a
// RunPool it owns, the others waiting in a queue in the order they were asked for; every
// finished pytest run streams back as runFinished() while the job proceeds, the job's
// report arrives at the end, then the next queued job starts. cancel() drops the queue and
// kills the running process groups (RunPool::cancelAll); the destructor cancels and waits,
// so nothing outlives the window.
class RunController : public QObject
{
    Q_OBJECT
public:
    explicit RunController(QObject *parent = nullptr);
    ~RunController() override;

    bool isRunning() const { return m_watcher.isRunning(); }
    // Running, or jobs wait: what Cancel would stop.
    bool isBusy() const { return isRunning() || !m_queue.empty(); }
    struct QueuedJob
    {
        int id = 0;    // unique in this controller; stays with the job while it waits
        QString title; // "attribute tests/t.py::test_x"
    };
    // The waiting jobs, next first.
    QList<QueuedJob> queuedJobs() const;
    QStringList queued() const; // their titles
    // Takes the waiting job `id` out of the queue; false when it is not waiting (any more).
    bool dropQueued(int id);
    // The running job's tag (what start*() was given), and whether it waited in the queue
    // (false: it started when asked).
    QString jobTag() const { return m_tag; }
    bool startedFromQueue() const { return m_fromQueue; }
    QString job() const { return m_job; }
    int done() const { return m_done; }
    int total() const { return m_total; }
    // "3/5 runs · 4 s left" while running; the estimate uses the mean run so far.
    QString progressText() const;

    // The start functions run the job now, or queue it when another runs or waits (true
    // either way). `tag` travels with the job (jobTag()): RunDesk names the comparison the
    // job was asked for, so a result is shown only for that one.
    // The census: collect both trees, the base twice; with `execute` both suites too.
    bool startCensus(const core::RunRequest &request, bool execute, const QString &tag = {});
    // The census job's title (and the source its findings are reported under).
    static QString censusTitle(bool execute);
    // Base/head attribution of one test; writes the evidence record to runs/.
    bool startAttribution(const core::RunRequest &request,
                          const core::AttributionRequest &attribution, const QString &tag = {});
    // The four-cell reproduction matrix of one test on one tree.
    bool startCells(const core::RunRequest &request, const core::CellsRequest &cells,
                    const QString &tag = {});
    // Skip witnesses and the shadow sample: the base witness (stored or
    // taken), the head collection, then the head tests that must run plus the sample.
    bool startShadow(const core::RunRequest &request, const core::ShadowOptions &options,
                     const QString &tag = {});
    // The seed matrix of `matrix.tests` on both trees (seeds and replays as given); the
    // replays stream in as matrixReported() per server run that ends.
    bool startMatrix(const core::RunRequest &request, const core::MatrixRequest &matrix,
                     const QString &tag = {});
    static QString matrixTitle(const std::vector<std::string> &tests);
    void cancel();          // drops the queue and kills the running job's process groups
    void waitForFinished(); // blocks until the running job ends, delivering its signals

Q_SIGNALS:
    void started(const QString &job);
    void queueChanged(); // a job was queued, dropped or taken off to run
    void progressChanged(int done, int total);
    void runFinished(const QString &job, const core::RunResult &run);
    void nodeRunFinished(const QString &job, const core::NodeRunProgress &run);
    void censusReady(const core::CensusReport &report);
    void attributionReady(const core::AttributionResult &result);
    void cellsReady(const core::ReproCellsResult &result);
    void shadowReady(const core::ShadowReport &report);
    // A matrix job began running (it may have waited in the queue): its shape.
    void matrixStarted(const QStringList &tests, const std::vector<uint32_t> &seeds, int replays);
    // The replays one server run of `arm` reported.
    void matrixReported(core::Arm arm, const std::vector<core::Trial> &reported);
    void matrixReady(const core::MatrixResult &result);
    void failed(const QString &job, const QString &message); // no report: why
    void finished(const QString &job);

private:
    struct Outcome
    {
        std::optional<core::CensusReport> census;
        std::optional<core::AttributionResult> attribution;
        std::optional<core::ReproCellsResult> cells;
        std::optional<core::ShadowReport> shadow;
        std::optional<core::MatrixResult> matrix;
        QString error;
    };
    using Job = std::function<void(const core::RunContext &, core::RunPool &, Outcome &)>;
    struct Pending
    {
        int id = 0;
        QString tag;
        QString title;
        core::RunRequest request;
        Job job;
    };
    bool start(const QString &title, const core::RunRequest &request, const QString &tag, Job job);
    void launch(Pending pending, bool fromQueue);
    void onFinished();
    // From a worker thread: hands the run to the GUI thread.
    void post(int done, int total, const core::RunResult &run);
    void postNode(const core::NodeRunProgress &run);
    // On the GUI thread, later: counts `done` of `total`, then emitRow() and the progress.
    void advance(int done, int total, std::function<void()> emitRow);

    std::shared_ptr<core::RunPool> m_pool;
    QFutureWatcher<Outcome> m_watcher;
    std::deque<Pending> m_queue;
    int m_nextId = 1;
    QString m_tag;
    bool m_fromQueue = false;
    QString m_job;
    int m_done = 0;
    int m_total = 0;
    QElapsedTimer m_clock;
};

} // namespace pw::gui
