// RunPool (core/execution): runs on worker threads, results in submission order, progress per
// run, and cancelAll() that leaves no process behind.

#include "RunFixtures.h"
#include "execution/RunPool.h"
#include "util/Error.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <chrono>
#include <future>
#include <mutex>

using pw::core::Error;
using pw::core::RunPool;
using pw::core::RunResult;
using pw::core::RunSpec;
using pw::core::RunStatus;

class TestRunPool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultsToOneWorkerPerCore()
    {
        QCOMPARE(RunPool().workers(), std::max(1, QThread::idealThreadCount()));
        QCOMPARE(RunPool(3).workers(), 3);
    }

    void quickRunsCompleteInSubmissionOrder()
    {
        QTemporaryDir dir;
        const std::string tree = dir.path().toStdString() + "/tree";
        pw::test::writeText(tree, "tests/test_q.py",
                            "def test_a():\n    pass\n\ndef test_b():\n    pass\n");
        std::vector<RunSpec> specs;
        for (int i = 0; i < 6; ++i) {
            RunSpec spec =
                pw::test::runSpec(tree, dir.path().toStdString() + "/run" + std::to_string(i));
            spec.arm = i % 2 == 0 ? "base" : "head"; // interleaved by the caller
            spec.env.hashSeed = uint32_t(i);
            spec.selection = {i % 2 == 0 ? "tests/test_q.py::test_a" : "tests/test_q.py::test_b"};
            specs.push_back(spec);
        }
        std::mutex mutex;
        std::vector<int> progress;
        int totalSeen = 0;
        RunPool pool(2);
        const std::vector<RunResult> results =
            pool.run(specs, [&](int done, int total, const RunResult &) {
                std::lock_guard<std::mutex> lock(mutex);
                progress.push_back(done);
                totalSeen = total;
            });
        QCOMPARE(results.size(), size_t(6));
        for (size_t i = 0; i < results.size(); ++i) {
            QCOMPARE(results[i].status, RunStatus::Completed);
            QCOMPARE(results[i].exitCode, 0);
            QCOMPARE(results[i].seed, uint32_t(i));
            QCOMPARE(results[i].arm, specs[i].arm);
            QCOMPARE(results[i].outcomes.size(), size_t(1));
            QCOMPARE(results[i].outcomes[0].nodeId, specs[i].selection[0]);
        }
        QCOMPARE(progress, (std::vector<int>{1, 2, 3, 4, 5, 6}));
        QCOMPARE(totalSeen, 6);
    }

    void cancelAllKillsRunningGroupsAndDropsTheQueue()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        std::vector<RunSpec> specs;
        std::vector<std::string> pidFiles;
        for (int i = 0; i < 4; ++i) {
            const std::string tree = root + "/tree" + std::to_string(i);
            pidFiles.push_back(root + "/pids" + std::to_string(i));
            pw::test::writeText(tree, "tests/test_hang.py",
                                pw::test::hangingTestSource(pidFiles.back()));
            specs.push_back(pw::test::runSpec(tree, root + "/run" + std::to_string(i)));
        }
        RunPool pool(2);
        auto future = std::async(std::launch::async, [&] { return pool.run(specs); });
        QVERIFY(pw::test::waitForFile(pidFiles[0], 60000));
        QVERIFY(pw::test::waitForFile(pidFiles[1], 60000));
        pool.cancelAll();
        QVERIFY(future.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const std::vector<RunResult> results = future.get();

        QCOMPARE(results.size(), size_t(4));
        std::vector<long> pids;
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(results[size_t(i)].status, RunStatus::Cancelled);
            QVERIFY(results[size_t(i)].pid > 0);
            QVERIFY(pw::test::waitUntilGroupGone(results[size_t(i)].pid, 10000));
            for (long pid : pw::test::readPids(pidFiles[size_t(i)]))
                pids.push_back(pid);
        }
        QCOMPARE(pids.size(), size_t(4));
        QVERIFY(pw::test::waitUntilGone(pids, 10000));
        for (int i = 2; i < 4; ++i) {
            QCOMPARE(results[size_t(i)].status, RunStatus::Cancelled);
            QVERIFY(results[size_t(i)].harnessError);
            QCOMPARE(results[size_t(i)].pid, int64_t(0)); // never started
            QVERIFY(!QFileInfo::exists(QString::fromStdString(pidFiles[size_t(i)])));
        }

        // The pool is usable again once run() returned.
        QTemporaryDir again;
        const std::string tree = again.path().toStdString() + "/tree";
        pw::test::writeText(tree, "tests/test_ok.py", "def test_ok():\n    pass\n");
        const std::vector<RunResult> next =
            pool.run({pw::test::runSpec(tree, again.path().toStdString() + "/run")});
        QCOMPARE(next.at(0).exitCode, 0);
    }

    void aRunThatThrowsCancelsTheRestAndIsRethrown()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        pw::test::writeText(root + "/tree", "tests/test_ok.py", "def test_ok():\n    pass\n");
        std::vector<RunSpec> specs;
        for (int i = 0; i < 3; ++i)
            specs.push_back(pw::test::runSpec(root + "/tree", root + "/run" + std::to_string(i)));
        specs[1].env.python = "/nonexistent/python3";
        RunPool pool(1);
        try {
            pool.run(specs);
            QFAIL("the missing interpreter was not reported");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            QVERIFY(std::string(e.what()).find("/nonexistent/python3") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestRunPool)
#include "tst_runpool.moc"
