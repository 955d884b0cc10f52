#include "RunController.h"

#include "LatestTask.h"
#include "execution/RunPool.h"
#include "util/Error.h"
#include "util/Format.h"

#include <QMetaObject>
#include <QtConcurrent>
#include <algorithm>

namespace pw::gui {

RunController::RunController(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &RunController::onFinished);
}

RunController::~RunController()
{
    m_queue.clear(); // no queueChanged(): listeners may be gone already
    if (m_pool)
        m_pool->cancelAll();
    waitWithoutRunning(m_watcher, /*cancelUnstarted=*/true);
}

QList<RunController::QueuedJob> RunController::queuedJobs() const
{
    QList<QueuedJob> jobs;
    for (const Pending &p : m_queue)
        jobs.append({p.id, p.title});
    return jobs;
}

QStringList RunController::queued() const
{
    QStringList titles;
    for (const Pending &p : m_queue)
        titles << p.title;
    return titles;
}

bool RunController::dropQueued(int id)
{
    const auto it =
        std::find_if(m_queue.begin(), m_queue.end(), [id](const Pending &p) { return p.id == id; });
    if (it == m_queue.end())
        return false;
    m_queue.erase(it);
    Q_EMIT queueChanged();
    return true;
}

QString RunController::progressText() const
{
    if (m_total <= 0)
        return m_job.isEmpty() ? QString() : tr("%1: preparing trees…").arg(m_job);
    QString text = tr("%1: %2/%3 runs").arg(m_job).arg(m_done).arg(m_total);
    if (isRunning() && m_done > 0 && m_done < m_total) {
        const double perRun = double(m_clock.elapsed()) / m_done;
        const double left = std::max(1.0, (m_total - m_done) * perRun / 1000.0);
        text += tr(" · about %1 left").arg(QString::fromStdString(core::formatSeconds(left)));
    }
    return text;
}

void RunController::advance(int done, int total, std::function<void()> emitRow)
{
    QMetaObject::invokeMethod(
        this,
        [this, done, total, emitRow = std::move(emitRow)] {
            // The newest tick's plan counts: an attribution that stops spending runs on a
            // tree without the test shrinks it.
            if (done >= m_done)
                m_total = std::max(done, total);
            m_done = std::max(m_done, done);
            emitRow();
            Q_EMIT progressChanged(m_done, m_total);
        },
        Qt::QueuedConnection);
}

void RunController::post(int done, int total, const core::RunResult &run)
{
    advance(done, total, [this, run] { Q_EMIT runFinished(m_job, run); });
}

void RunController::postNode(const core::NodeRunProgress &run)
{
    advance(run.done, run.total, [this, run] { Q_EMIT nodeRunFinished(m_job, run); });
}

bool RunController::start(const QString &title, const core::RunRequest &request, const QString &tag,
                          Job job)
{
    Pending pending{m_nextId++, tag, title, request, std::move(job)};
    if (isBusy()) {
        m_queue.push_back(std::move(pending));
        Q_EMIT queueChanged();
        return true;
    }
    launch(std::move(pending), false);
    return true;
}

void RunController::launch(Pending pending, bool fromQueue)
{
    const core::RunRequest request = std::move(pending.request);
    const Job job = std::move(pending.job);
    m_job = pending.title;
    m_tag = pending.tag;
    m_fromQueue = fromQueue;
    m_done = 0;
    m_total = 0;
    m_clock.start();
    m_pool = std::make_shared<core::RunPool>(); // here, so that cancel() reaches it at once
    const std::shared_ptr<core::RunPool> pool = m_pool;
    m_watcher.setFuture(QtConcurrent::run([request, job, pool]() -> Outcome {
        Outcome out;
        try {
            const core::RunContext context = core::RunContext::open(request);
            pool->setWorkers(context.workers()); // config `workers`, or the request's
            job(context, *pool, out);
        } catch (const std::exception &e) {
            out.error = QString::fromUtf8(e.what());
        }
        return out;
    }));
    Q_EMIT started(m_job); // after setFuture: listeners see isRunning()
    Q_EMIT progressChanged(0, 0);
}

QString RunController::censusTitle(bool execute)
{
    return execute ? tr("census") : tr("census (collect only)");
}

bool RunController::startCensus(const core::RunRequest &request, bool execute, const QString &tag)
{
    return start(censusTitle(execute), request, tag,
                 [this, execute](const core::RunContext &ctx, core::RunPool &pool, Outcome &out) {
                     core::CensusOptions options;
                     options.execute = execute;
                     out.census =
                         core::Census::run(ctx, options, pool,
                                           [this](int done, int total, const core::RunResult &run) {
                                               post(done, total, run);
                                           });
                 });
}

bool RunController::startAttribution(const core::RunRequest &request,
                                     const core::AttributionRequest &attribution,
                                     const QString &tag)
{
    return start(
        tr("attribute %1").arg(QString::fromStdString(attribution.test)), request, tag,
        [this, attribution](const core::RunContext &ctx, core::RunPool &pool, Outcome &out) {
            out.attribution = core::Attribution::run(
                ctx, attribution, pool, [this](const core::NodeRunProgress &p) { postNode(p); });
        });
}

bool RunController::startCells(const core::RunRequest &request, const core::CellsRequest &cells,
                               const QString &tag)
{
    return start(tr("cells %1").arg(QString::fromStdString(cells.test)), request, tag,
                 [this, cells](const core::RunContext &ctx, core::RunPool &pool, Outcome &out) {
                     out.cells = core::ReproCells::run(
                         ctx, cells, pool, [this](const core::NodeRunProgress &p) { postNode(p); });
                 });
}

bool RunController::startShadow(const core::RunRequest &request, const core::ShadowOptions &options,
                                const QString &tag)
{
    return start(tr("shadow sample"), request, tag,
                 [this, options](const core::RunContext &ctx, core::RunPool &pool, Outcome &out) {
                     core::ShadowOptions o = options;
                     out.shadow = core::Shadow::run(
                         ctx, o, pool, [this](int done, int total, const core::RunResult &run) {
                             post(done, total, run);
                         });
                 });
}

QString RunController::matrixTitle(const std::vector<std::string> &tests)
{
    if (tests.size() == 1)
        return tr("matrix %1").arg(QString::fromStdString(tests.front()));
    return tr("matrix of %n test(s)", nullptr, int(tests.size()));
}

bool RunController::startMatrix(const core::RunRequest &request, const core::MatrixRequest &matrix,
                                const QString &tag)
{
    return start(
        matrixTitle(matrix.tests), request, tag,
        [this, matrix](const core::RunContext &ctx, core::RunPool &pool, Outcome &out) {
            core::MatrixRequest m = matrix;
            const std::vector<uint32_t> seeds = m.seedsFor(ctx.config());
            const int replays = m.replays.value_or(ctx.config().replays);
            QStringList tests;
            for (const std::string &t : m.tests)
                tests << QString::fromStdString(t);
            QMetaObject::invokeMethod(
                this,
                [this, tests, seeds, replays] { Q_EMIT matrixStarted(tests, seeds, replays); },
                Qt::QueuedConnection);
            out.matrix = core::SeedMatrix::run(ctx, m, pool, [this](const core::MatrixProgress &p) {
                const core::RunResult run = p.run ? *p.run : core::RunResult();
                const bool hasRun = p.run != nullptr;
                const core::Arm arm = p.arm;
                const std::vector<core::Trial> reported = p.reported;
                advance(p.done, p.total, [this, run, hasRun, arm, reported] {
                    if (hasRun)
                        Q_EMIT runFinished(m_job, run);
                    Q_EMIT matrixReported(arm, reported);
                });
            });
        });
}

void RunController::cancel()
{
    if (!m_queue.empty()) {
        m_queue.clear();
        Q_EMIT queueChanged();
    }
    if (m_pool)
        m_pool->cancelAll();
}

void RunController::waitForFinished()
{
    waitWithoutRunning(m_watcher, /*cancelUnstarted=*/false);
    QCoreApplication::sendPostedEvents(this);
}

void RunController::onFinished()
{
    // Runs posted from the workers arrive before this (posted earlier, same receiver).
    QCoreApplication::sendPostedEvents(this);
    const Outcome out = m_watcher.result();
    if (out.census)
        Q_EMIT censusReady(*out.census);
    else if (out.attribution)
        Q_EMIT attributionReady(*out.attribution);
    else if (out.cells)
        Q_EMIT cellsReady(*out.cells);
    else if (out.shadow)
        Q_EMIT shadowReady(*out.shadow);
    else if (out.matrix)
        Q_EMIT matrixReady(*out.matrix);
    else
        Q_EMIT failed(m_job, out.error);
    Q_EMIT finished(m_job);
    // A job queued by a `finished` listener waits behind the older ones.
    if (!isRunning() && !m_queue.empty()) {
        Pending next = std::move(m_queue.front());
        m_queue.pop_front();
        Q_EMIT queueChanged();
        launch(std::move(next), true);
    }
}

} // namespace pw::gui
