#pragma once

#include <QCoreApplication>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>
#include <functional>
#include <optional>
#include <stop_token>
#include <utility>

namespace pw::gui {

// One background task at a time whose newest request wins: the shape of every "read this
// off the GUI thread, then show it" in the workbench (the audit, the revision list, the
// ledger history and one version of a ledger).
//
// start() while a task runs keeps only the newest request, asks the running task to stop
// (through its std::stop_token) and starts the newest when the running one ends; the
// stale answer is dropped, so `deliver` only ever sees answers to the newest request, on
// the thread of `context`. Busy from start() until the answer is delivered (a finished
// task's signal may still be queued). cancel() stops the running task and drops the
// waiting request; the stopped task's answer is still delivered and says so itself.
//
// A task runs on Qt's global thread pool and must own everything it reads; the
// destructor waits for it, so it never outlives the object that asked for it.
// Waits for `watcher`'s future to finish without running it here: QFuture::waitForFinished
// runs a task the pool has not started yet on the calling thread — for the workbench, git
// and processes on the GUI thread, which core::checkBlockingWorkAllowed forbids. With
// `cancelUnstarted` (an owner going away) a task not started yet is cancelled, so it never
// starts, and a running one is waited for; else the event loop runs until the watcher says
// the task finished (its finished() is delivered on the way, and so are timers and queued
// calls meanwhile, as processEvents() would; user input waits).
inline void waitWithoutRunning(QFutureWatcherBase &watcher, bool cancelUnstarted)
{
    if (cancelUnstarted) {
        watcher.cancel();          // QtConcurrent::run skips a cancelled task it has not started
        watcher.waitForFinished(); // stolen, it returns at once; running, it is waited for
        return;
    }
    if (watcher.isFinished())
        return;
    QEventLoop loop;
    QObject::connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
    loop.exec(QEventLoop::ExcludeUserInputEvents);
}

template <typename Result> class LatestTask
{
public:
    using Task = std::function<Result(std::stop_token)>;

    LatestTask(QObject *context, std::function<void(Result)> deliver,
               std::function<void()> started = {})
        : m_deliver(std::move(deliver)), m_started(std::move(started))
    {
        QObject::connect(&m_watcher, &QFutureWatcherBase::finished, context,
                         [this] { onFinished(); });
    }
    ~LatestTask()
    {
        m_pending.reset();
        m_stop.request_stop(); // a closing window does not wait for a whole audit
        waitWithoutRunning(m_watcher, /*cancelUnstarted=*/true);
    }
    LatestTask(const LatestTask &) = delete;
    LatestTask &operator=(const LatestTask &) = delete;

    void start(Task task)
    {
        if (m_busy) {
            m_pending = std::move(task);
            m_stop.request_stop();
            return;
        }
        m_busy = true;
        m_stop = std::stop_source();
        if (m_started)
            m_started();
        m_watcher.setFuture(QtConcurrent::run(
            [task = std::move(task), token = m_stop.get_token()] { return task(token); }));
    }

    void cancel()
    {
        m_pending.reset();
        if (m_busy)
            m_stop.request_stop();
    }

    bool isBusy() const { return m_busy; }

    // Blocks until no task runs or waits, delivering every answer (processes events).
    void waitForIdle()
    {
        while (m_busy) {
            waitWithoutRunning(m_watcher, /*cancelUnstarted=*/false);
            QCoreApplication::processEvents(); // delivers, or starts the waiting request
        }
    }

private:
    void onFinished()
    {
        m_busy = false;
        if (m_pending) { // a newer request is waiting: this answer is already stale
            Task next = std::move(*m_pending);
            m_pending.reset();
            start(std::move(next));
            return;
        }
        Result result;
        try {
            result = m_watcher.result();
        } catch (const std::exception &e) { // the tasks answer errors; this is a bug
            qCritical("background task failed: %s", e.what());
            return;
        } catch (...) {
            qCritical("background task failed");
            return;
        }
        m_deliver(std::move(result));
    }

    QFutureWatcher<Result> m_watcher;
    std::function<void(Result)> m_deliver;
    std::function<void()> m_started;
    std::optional<Task> m_pending;
    std::stop_source m_stop;
    bool m_busy = false;
};

} // namespace pw::gui
