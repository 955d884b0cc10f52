#include "execution/RunPool.h"

#include <QThread>
#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

namespace pw::core {

RunPool::RunPool(int workers)
    : m_workers(workers > 0 ? workers : std::max(1, QThread::idealThreadCount()))
{
}

void RunPool::setWorkers(int workers)
{
    m_workers = workers > 0 ? workers : std::max(1, QThread::idealThreadCount());
}

bool RunPool::lastRunCancelled()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_lastCancelled;
}

void RunPool::cancelAll()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_cancelled = true;
    for (PytestRun *running : m_active)
        running->cancel();
}

std::vector<RunResult> RunPool::run(const std::vector<RunSpec> &specs, const Progress &progress)
{
    if (!progress)
        return runIndexed(specs, {});
    return runIndexed(specs, [&progress](int done, int total, size_t, const RunResult &finished) {
        progress(done, total, finished);
    });
}

std::vector<RunResult> RunPool::runIndexed(const std::vector<RunSpec> &specs,
                                           const IndexedProgress &progress)
{
    const size_t total = specs.size();
    std::vector<std::optional<RunResult>> results(total);
    size_t next = 0; // guarded by m_mutex: FIFO order of starts
    int done = 0;    // guarded by m_mutex
    std::exception_ptr failure;
    std::mutex progressMutex;

    auto worker = [&]() {
        for (;;) {
            size_t index = 0;
            std::unique_ptr<PytestRun> job;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                if (m_cancelled || next >= total)
                    return;
                index = next++;
                job = std::make_unique<PytestRun>(specs[index]);
                m_active.insert(job.get());
            }
            std::optional<RunResult> result;
            try {
                result = job->run();
            } catch (...) {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_active.erase(job.get());
                if (!failure)
                    failure = std::current_exception();
                m_cancelled = true;
                for (PytestRun *running : m_active)
                    running->cancel();
                return;
            }
            // Held from the count to the call: the calls come one at a time with `done`
            // counting up (a count taken outside could reach the callback after a later one).
            const std::lock_guard<std::mutex> inOrder(progressMutex);
            int doneNow = 0;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_active.erase(job.get());
                results[index] = std::move(result);
                doneNow = ++done;
            }
            if (progress)
                progress(doneNow, int(total), index, *results[index]);
        }
    };

    std::vector<std::thread> threads;
    const size_t count = std::min(size_t(m_workers), total);
    threads.reserve(count);
    for (size_t i = 0; i < count; ++i)
        threads.emplace_back(worker);
    for (std::thread &thread : threads)
        thread.join();

    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_lastCancelled = m_cancelled;
        m_cancelled = false;
    }
    if (failure)
        std::rethrow_exception(failure);

    std::vector<RunResult> out;
    out.reserve(total);
    for (size_t i = 0; i < total; ++i) {
        if (results[i]) {
            out.push_back(std::move(*results[i]));
            continue;
        }
        RunResult skipped;
        skipped.arm = specs[i].arm;
        skipped.seed = specs[i].env.hashSeed;
        skipped.status = RunStatus::Cancelled;
        skipped.harnessReason = "cancelled before it started";
        out.push_back(std::move(skipped));
    }
    return out;
}

} // namespace pw::core
