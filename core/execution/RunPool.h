#pragma once

#include "execution/PytestRun.h"

#include <functional>
#include <mutex>
#include <set>
#include <vector>

namespace pw::core {

// Executes pytest runs on a fixed number of worker threads (default one per
// core). Runs start in the order given, so a caller that interleaves base and head specs
// (b, h, b, h, …) gets both arms hit by the same machine noise; results come back in
// that order too. Every worker is joined before run() returns: nothing is left running
// behind the caller, and cancelAll() kills the process groups of the running specs.
class RunPool
{
public:
    // Called from worker threads after each run ends: one call at a time, `done` counting up
    // 1, 2, … `total`.
    using Progress = std::function<void(int done, int total, const RunResult &finished)>;

    explicit RunPool(int workers = 0); // 0: QThread::idealThreadCount()

    int workers() const { return m_workers; }
    // Before run(), on the thread that will call it: the count a RunContext resolved (a
    // pool made before the context, so that another thread can cancel while it prepares).
    void setWorkers(int workers);

    // Blocking. A spec that never started because of cancelAll() comes back Cancelled
    // (a harness error, never a pass or fail). An exception from a run (Error::input: the
    // interpreter is missing) cancels the rest and is rethrown once every worker ended.
    // One run() at a time per pool.
    std::vector<RunResult> run(const std::vector<RunSpec> &specs, const Progress &progress = {});
    // run() whose progress also hears which spec finished (its index in `specs`).
    using IndexedProgress =
        std::function<void(int done, int total, size_t index, const RunResult &finished)>;
    std::vector<RunResult> runIndexed(const std::vector<RunSpec> &specs,
                                      const IndexedProgress &progress);

    // Thread-safe (also from the progress callback): drops the queue and kills the
    // running process groups; run() then returns promptly. Sticky until that run()
    // returns, so a cancel that arrives just before run() starts is not lost (and one
    // made while the pool is idle cancels the next run()).
    void cancelAll();
    // Whether the last run() was cancelled: a caller that runs the pool again for what a
    // run left over (a fork server's continuation) stops instead.
    bool lastRunCancelled();

private:
    int m_workers;
    std::mutex m_mutex;
    bool m_cancelled = false;       // guarded by m_mutex; reset when run() returns
    bool m_lastCancelled = false;   // guarded by m_mutex
    std::set<PytestRun *> m_active; // guarded by m_mutex
};

} // namespace pw::core
