// The four-cell reproduction matrix (core/dynamic/ReproCells) on real pytest runs: a
// victim of an earlier test's module cache (order fails on some seeds, solo and isolate
// pass), a test that only passes after another (solo fails), leakage from a sibling
// module's import (isolate and every order seed fail), a test broken alone, a test that
// depends on the local date (clock fails), the clock cell without freezegun (unknown, never
// a pass), and a green test (not reproduced).

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/ReproCells.h"
#include "util/Error.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

using pw::core::CellsRequest;
using pw::core::CellStatus;
using pw::core::ReproCells;
using pw::core::ReproCellsResult;
using pw::core::RunContext;
using pw::core::RunPool;
using pw::core::RunRequest;
using pw::test::RepoBuilder;

namespace {

// Collection order a, b, c, d; shuffled with random.Random(seed): seed 1 → d a c b,
// seed 2 → b c d a, seed 3 → d a c b. So with R = 3, `a` runs before `b` on seeds 1 and 3.
const char *const kFiles[][2] = {
    // order: test_a leaves "strict" in a module cache; test_b fails after it.
    {"tests/order/order_registry.py", "CACHE = {}\n"},
    {"tests/order/test_order_a.py", "import order_registry\n\n\ndef test_a():\n"
                                    "    order_registry.CACHE['mode'] = 'strict'\n"},
    {"tests/order/test_order_b.py", "import order_registry\n\n\ndef test_b():\n"
                                    "    assert order_registry.CACHE.get('mode') != 'strict'\n"},
    {"tests/order/test_order_c.py", "def test_c():\n    pass\n"},
    {"tests/order/test_order_d.py", "def test_d():\n    pass\n"},
    // dep: test_b passes only when test_a ran first in the same process.
    {"tests/dep/dep_registry.py", "CACHE = {}\n"},
    {"tests/dep/test_dep_a.py",
     "import dep_registry\n\n\ndef test_a():\n    dep_registry.CACHE['ready'] = True\n"},
    {"tests/dep/test_dep_b.py",
     "import dep_registry\n\n\ndef test_b():\n    assert dep_registry.CACHE.get('ready')\n"},
    {"tests/dep/test_dep_c.py", "def test_c():\n    pass\n"},
    {"tests/dep/test_dep_d.py", "def test_d():\n    pass\n"},
    // leak: a sibling module changes the cache when it is imported (at collection).
    {"tests/leak/leak_registry.py", "CACHE = {}\n"},
    {"tests/leak/test_leak_p.py", "import leak_registry\n\nleak_registry.CACHE['mode'] = "
                                  "'strict'\n\n\ndef test_p():\n    pass\n"},
    {"tests/leak/test_leak_v.py", "import leak_registry\n\n\ndef test_v():\n"
                                  "    assert leak_registry.CACHE.get('mode') != 'strict'\n"},
    // proc: a module sets the cache when imported; a later test repairs it. So test_c fails
    // in a fresh process after the scope's collection and whenever test_b has not run
    // before it (seeds 1 and 3), passes alone and on seed 2.
    {"tests/proc/proc_registry.py", "CACHE = {}\n"},
    {"tests/proc/test_proc_a.py", "import proc_registry\n\nproc_registry.CACHE['mode'] = "
                                  "'strict'\n\n\ndef test_a():\n    pass\n"},
    {"tests/proc/test_proc_b.py", "import proc_registry\n\n\ndef test_b():\n"
                                  "    proc_registry.CACHE.pop('mode', None)\n"},
    {"tests/proc/test_proc_c.py", "import proc_registry\n\n\ndef test_c():\n"
                                  "    assert proc_registry.CACHE.get('mode') != 'strict'\n"},
    {"tests/proc/test_proc_d.py", "def test_d():\n    pass\n"},
    {"tests/broken/test_broken.py", "def test_broken():\n    assert [] == [1]\n"},
    // clock: "today" in local time is the UTC day — true with TZ=UTC, false at 12:00 UTC
    // in Kiritimati (UTC+14).
    {"tests/clock/test_clock.py",
     "import datetime\n\n\ndef test_local_day_is_utc_day():\n"
     "    assert datetime.date.today() == datetime.datetime.utcnow().date()\n"},
    {"tests/green/test_green.py", "def test_ok():\n    assert 2 + 2 == 4\n"},
};

} // namespace

class TestReproCells : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void orderCoupledVictimFailsOnSomeSeeds();
    void dependentTestFailsSolo();
    void brokenTestStartsNoOtherRun();
    void leakageFromSiblingModule();
    void processStateFromTheScopesImports();
    void brokenTestFailsSolo();
    void clockFindsTimeDependence();
    void clockIsUnknownWithoutFreezegun();
    void greenTestIsNotReproduced();
    void missingNodeIsRefusedAfterTheSoloRun();
    void scopeIsTheFilesDirectory();
    void trialBudgetIsEnforcedBeforeAnyRun();

private:
    ReproCellsResult cells(const std::string &test, const RunContext *ctx = nullptr);

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::unique_ptr<RunContext> m_ctx;
    RunRequest m_request;
};

void TestReproCells::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_cache = std::make_unique<QTemporaryDir>();
    m_scratch = std::make_unique<QTemporaryDir>();
    for (const auto &file : kFiles)
        m_repo->write(file[0], file[1]);
    const std::string commit = m_repo->commit("tests");
    m_request.target.repoPath = m_repo->root();
    m_request.target.base = commit;
    m_request.target.head = commit;
    m_request.target.python = pw::test::testPython();
    m_request.cacheRoot = m_cache->path().toStdString();
    m_request.workers = 2;
    m_request.timeoutSeconds = 120;
    m_request.sandbox = false; // the freezegun-less interpreter lives in a temporary directory
    m_ctx = std::make_unique<RunContext>(RunContext::open(m_request));
}

ReproCellsResult TestReproCells::cells(const std::string &test, const RunContext *ctx)
{
    CellsRequest req;
    req.test = test;
    req.orderSeeds = 3;
    RunPool pool(2);
    return ReproCells::run(ctx ? *ctx : *m_ctx, req, pool);
}

void TestReproCells::orderCoupledVictimFailsOnSomeSeeds()
{
    const ReproCellsResult r = cells("tests/order/test_order_b.py::test_b");
    QCOMPARE(r.cells.size(), size_t(4));
    QCOMPARE(r.cell("solo").status, CellStatus::Pass);
    QCOMPARE(r.cell("isolate").status, CellStatus::Pass); // no earlier test in its process
    QCOMPARE(r.cell("isolate").runs(), 3);
    QCOMPARE(r.cell("order").status, CellStatus::Fail);
    QCOMPARE(r.cell("order").runs(), 3);
    QCOMPARE(r.cell("order").failingSeeds, (std::set<uint32_t>{1, 3}));
    QCOMPARE(r.cell("order").passingSeeds, std::set<uint32_t>{2});
    QCOMPARE(r.cell("clock").status, CellStatus::Pass);
    QVERIFY(!r.findings.empty());
    QCOMPARE(r.findings.front().attribution, std::string("order"));
    QVERIFY2(r.findings.front().sentence.starts_with("ordering/shared state"),
             r.findings.front().sentence.c_str());
    QCOMPARE(r.findings.size(), size_t(1));
    QVERIFY(r.reproduced());
    QVERIFY(r.cell("order").replay.find("PYTHONHASHSEED=1 ") != std::string::npos);
}

// Solo fails (test_a, which it needs, never ran): a broken test, decided by that one run —
// the other cells are not run and say so.
void TestReproCells::dependentTestFailsSolo()
{
    const ReproCellsResult r = cells("tests/dep/test_dep_b.py::test_b");
    QCOMPARE(r.cell("solo").status, CellStatus::Fail);
    for (const char *name : {"order", "isolate", "clock"}) {
        const pw::core::ReproCell &c = r.cell(name);
        QCOMPARE(c.status, CellStatus::Unknown);
        QVERIFY(c.notRun);
        QCOMPARE(c.runs(), 0);
        QVERIFY2(c.unknownReason.starts_with("not run: solo already decided"),
                 c.unknownReason.c_str());
    }
    QCOMPARE(r.findings.front().attribution, std::string("solo"));
    QVERIFY(r.findings.front().sentence.starts_with("broken test"));
    QVERIFY2(r.findings.front().sentence.find("order, isolate and clock not run") !=
                 std::string::npos,
             r.findings.front().sentence.c_str());
    QCOMPARE(r.findings.size(), size_t(1));
    QVERIFY(r.reproduced());
}

// Solo decides "broken test": no other pytest process starts — counted by the scoped
// suite's conftest, which logs every session that loads it (solo's, and each order,
// isolate and clock run's before the fix: 1 + R + 1 + 1).
void TestReproCells::brokenTestStartsNoOtherRun()
{
    const std::string log = m_scratch->path().toStdString() + "/sessions.log";
    RepoBuilder repo;
    repo.write("tests/stop/conftest.py", "import sys\n\n\ndef pytest_sessionstart(session):\n"
                                         "    with open(" +
                                             std::string("'") + log + "'" +
                                             ", 'a') as f:\n"
                                             "        f.write(' '.join(sys.argv[1:]) + '\\n')\n");
    repo.write("tests/stop/test_stop.py", "def test_broken():\n    assert {} == {'a': 1}\n");
    repo.write("tests/stop/test_other.py", "def test_fine():\n    pass\n");
    const std::string commit = repo.commit("a broken test");
    RunRequest request = m_request;
    request.target.repoPath = repo.root();
    request.target.base = commit;
    request.target.head = commit;
    const RunContext ctx = RunContext::open(request);

    CellsRequest req;
    req.test = "tests/stop/test_stop.py::test_broken";
    req.orderSeeds = 3;
    RunPool pool(2);
    std::mutex mutex;
    std::vector<pw::core::NodeRunProgress> ticks;
    const ReproCellsResult r =
        ReproCells::run(ctx, req, pool, [&](const pw::core::NodeRunProgress &tick) {
            std::lock_guard<std::mutex> lock(mutex);
            ticks.push_back(tick);
        });
    QFile sessions(QString::fromStdString(log));
    QVERIFY(sessions.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = sessions.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 1); // solo alone
    QVERIFY2(lines.front().contains("tests/stop/test_stop.py::test_broken"),
             lines.front().constData());
    QCOMPARE(ticks.size(), size_t(1));
    QCOMPARE(ticks.front().run.label, std::string("solo"));
    QCOMPARE(r.findings.front().attribution, std::string("solo"));

    // The record says which cells did not run, and why.
    QVERIFY(!r.recordPath.empty());
    QFile record(QString::fromStdString(r.recordPath));
    QVERIFY(record.open(QIODevice::ReadOnly));
    const nlohmann::json doc = nlohmann::json::parse(record.readAll().toStdString());
    QCOMPARE(doc["attribution"].get<std::string>(), std::string("solo"));
    for (const nlohmann::json &cell : doc["cells"]) {
        const bool solo = cell["name"] == "solo";
        QCOMPARE(cell["not_run"].get<bool>(), !solo);
        if (!solo) {
            QCOMPARE(cell["status"].get<std::string>(), std::string("unknown"));
            QVERIFY(cell["unknown_reason"].get<std::string>().starts_with(
                "not run: solo already decided"));
            QVERIFY(cell["trials"].empty());
        }
    }
    // What a freeze would make of it: never.
    QVERIFY(r.freeze.has_value());
    QVERIFY(r.freeze->refused());
    QVERIFY2(r.freeze->reason().find("broken test") != std::string::npos,
             r.freeze->reason().c_str());
}

void TestReproCells::leakageFromSiblingModule()
{
    const ReproCellsResult r = cells("tests/leak/test_leak_v.py::test_v");
    QCOMPARE(r.cell("solo").status, CellStatus::Pass); // its own module alone is fine
    QCOMPARE(r.cell("isolate").status, CellStatus::Fail);
    QCOMPARE(r.cell("isolate").fails, 3);
    QCOMPARE(r.cell("order").fails, 3);
    QCOMPARE(r.findings.front().attribution, std::string("leakage"));
    QVERIFY2(r.findings.front().sentence.starts_with("leakage from earlier tests"),
             r.findings.front().sentence.c_str());

    // The isolate cell's copyable command carries its replay plan inline: it needs no
    // scratch file and repeats the cell by hand.
    const std::string replay = r.cell("isolate").replay;
    QVERIFY2(replay.find("replays.json") == std::string::npos, replay.c_str());
    QVERIFY2(replay.find("--pw-replays={\"nodeids\"") != std::string::npos, replay.c_str());
    QProcess shell;
    shell.start(QStringLiteral("/bin/sh"),
                QStringList{QStringLiteral("-c"), QString::fromStdString(replay)});
    QVERIFY(shell.waitForFinished(120000));
    QVERIFY2(shell.readAllStandardOutput().contains("patchwitness replays: 3 run, 3 failed"),
             shell.readAllStandardError().constData());
}

// The isolate cell alone fails: not on every order seed (a test repairs the state on one),
// so it is the process state of the scope's imports, not leakage before every run.
void TestReproCells::processStateFromTheScopesImports()
{
    const ReproCellsResult r = cells("tests/proc/test_proc_c.py::test_c");
    QCOMPARE(r.cell("solo").status, CellStatus::Pass);
    QCOMPARE(r.cell("isolate").status, CellStatus::Fail);
    QCOMPARE(r.cell("isolate").fails, 3);
    QCOMPARE(r.cell("order").fails, 2);
    QCOMPARE(r.findings.front().attribution, std::string("isolate"));
    QVERIFY2(r.findings.front().sentence.starts_with("process state"),
             r.findings.front().sentence.c_str());
    QCOMPARE(r.findings.size(), size_t(2));
    QCOMPARE(r.findings[1].attribution, std::string("order"));
}

void TestReproCells::brokenTestFailsSolo()
{
    const ReproCellsResult r = cells("tests/broken/test_broken.py::test_broken");
    QCOMPARE(r.cell("solo").status, CellStatus::Fail);
    QCOMPARE(r.cell("solo").fails, 1);
    QCOMPARE(r.findings.front().attribution, std::string("solo"));
    QVERIFY2(r.findings.front().sentence.find("never freeze") != std::string::npos,
             r.findings.front().sentence.c_str());
    QCOMPARE(r.findings.size(), size_t(1)); // the other cells did not run: nothing else
}

void TestReproCells::clockFindsTimeDependence()
{
    const ReproCellsResult r = cells("tests/clock/test_clock.py::test_local_day_is_utc_day");
    QCOMPARE(r.cell("solo").status, CellStatus::Pass);
    QCOMPARE(r.cell("order").status, CellStatus::Pass);
    QCOMPARE(r.cell("isolate").status, CellStatus::Pass);
    QCOMPARE(r.cell("clock").status, CellStatus::Fail);
    QCOMPARE(r.findings.front().attribution, std::string("clock"));
    QVERIFY2(r.findings.front().sentence.starts_with("time dependence"),
             r.findings.front().sentence.c_str());
    QVERIFY(r.cell("clock").replay.find("TZ=Pacific/Kiritimati") != std::string::npos);
    QVERIFY(r.cell("clock").replay.find("--pw-freeze-time=2038-01-19T12:00:00+00:00") !=
            std::string::npos);
}

void TestReproCells::clockIsUnknownWithoutFreezegun()
{
    // An interpreter that cannot import freezegun or time_machine: packages of those names
    // that raise ImportError come first on its path.
    const std::string dir = m_scratch->path().toStdString();
    for (const char *module : {"freezegun", "time_machine"})
        pw::test::writeText(dir + "/hide", std::string(module) + "/__init__.py",
                            "raise ImportError('hidden by the test')\n");
    const std::string python = dir + "/python";
    pw::test::writeText(dir, "python",
                        "#!/bin/sh\nPYTHONPATH=\"" + dir +
                            "/hide${PYTHONPATH:+:$PYTHONPATH}\" exec " + pw::test::testPython() +
                            " \"$@\"\n");
    QFile::setPermissions(QString::fromStdString(python),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    RunRequest request = m_request;
    request.target.python = python;
    const RunContext ctx = RunContext::open(request);

    const ReproCellsResult r = cells("tests/clock/test_clock.py::test_local_day_is_utc_day", &ctx);
    const pw::core::ReproCell &clock = r.cell("clock");
    QCOMPARE(clock.status, CellStatus::Unknown); // never a pass
    QVERIFY2(clock.unknownReason.find("freezegun") != std::string::npos,
             clock.unknownReason.c_str());
    QCOMPARE(r.cell("solo").status, CellStatus::Pass);
    QCOMPARE(r.findings.front().attribution, std::string("none"));
    QVERIFY2(r.findings.front().sentence.find("not tested: clock") != std::string::npos,
             r.findings.front().sentence.c_str());
    QVERIFY(!r.reproduced());
}

void TestReproCells::greenTestIsNotReproduced()
{
    const ReproCellsResult r = cells("tests/green/test_green.py::test_ok");
    for (const pw::core::ReproCell &c : r.cells)
        QCOMPARE(c.status, CellStatus::Pass);
    QCOMPARE(r.findings.size(), size_t(1));
    QCOMPARE(r.findings.front().attribution, std::string("none"));
    QVERIFY2(r.findings.front().sentence.find("raise R") != std::string::npos,
             r.findings.front().sentence.c_str());
    QVERIFY(!r.reproduced());
    QVERIFY(!r.noEvidence());
}

// A typo'd node (its file exists) is an input error naming it, answered by the solo run
// alone: the 3 order runs, the isolate run and the clock run never start.
void TestReproCells::missingNodeIsRefusedAfterTheSoloRun()
{
    CellsRequest req;
    req.test = "tests/green/test_green.py::test_typo";
    req.orderSeeds = 3;
    RunPool pool(2);
    std::mutex mutex;
    std::vector<pw::core::NodeRunProgress> ticks;
    try {
        ReproCells::run(*m_ctx, req, pool, [&](const pw::core::NodeRunProgress &tick) {
            std::lock_guard<std::mutex> lock(mutex);
            ticks.push_back(tick);
        });
        QFAIL("a node the tree does not collect was accepted");
    } catch (const pw::core::Error &e) {
        QCOMPARE(e.kind(), pw::core::Error::Kind::Input);
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(QLatin1String("'tests/green/test_green.py::test_typo'")),
                 e.what());
        QVERIFY2(message.contains(QLatin1String("not collected at head (")), e.what());
    }
    QCOMPARE(ticks.size(), size_t(1));
    QCOMPARE(ticks.front().run.label, std::string("solo"));
    QCOMPARE(ticks.front().run.outcome, pw::core::Outcome::NotCollected);
    QCOMPARE(ticks.front().total, 6); // solo, 3 order, isolate, clock
}

void TestReproCells::scopeIsTheFilesDirectory()
{
    QCOMPARE(ReproCells::scopeOf("tests/unit/test_x.py::TestC::test_a[1/2]"),
             std::string("tests/unit"));
    QCOMPARE(ReproCells::scopeOf("test_x.py::test_a"), std::string("."));
}

// 2 + 2 × 1000 trials exceed the default trial_budget of 2000; nothing runs.
void TestReproCells::trialBudgetIsEnforcedBeforeAnyRun()
{
    CellsRequest req;
    req.test = "tests/green/test_green.py::test_typo";
    req.orderSeeds = 1000;
    req.record = false;
    int runs = 0;
    RunPool pool(1);
    try {
        ReproCells::run(*m_ctx, req, pool, [&](const pw::core::NodeRunProgress &) { ++runs; });
        QFAIL("the budget was not enforced");
    } catch (const pw::core::Error &e) {
        QVERIFY2(std::string(e.what()) ==
                     "cells: 2 + 2 × 1000 trials exceed the trial budget of 2000 (config "
                     "trial_budget, " +
                         m_ctx->config().source + "); ask for fewer or raise trial_budget",
                 e.what());
    }
    QCOMPARE(runs, 0);
    QVERIFY_EXCEPTION_THROWN(pw::core::checkTrialBudget(*m_ctx, "cells", "x", 2001),
                             pw::core::Error);
    pw::core::checkTrialBudget(*m_ctx, "cells", "x", 2000);
}

QTEST_GUILESS_MAIN(TestReproCells)
#include "tst_reprocells.moc"
