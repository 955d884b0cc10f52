// The dynamic gates in the workbench: a census started from the desk runs
// off the GUI thread, streams each finished pytest run into the Runs panel, fills the
// Census panel (rows with finding codes the ledger desk acts on), cancel kills the running
// process groups, and running a project's code without a sandbox is asked once per
// repository.
#include "AuditRunner.h"
#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/ShardLedger.h"
#include "execution/TreeCache.h"
#include "ledgers/LedgerDesk.h"
#include "ledgers/LedgerFormDialog.h"
#include "ledgers/LedgersModel.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "panels/EvidenceRoles.h"
#include "runs/AttributionModel.h"
#include "runs/CensusModel.h"
#include "runs/RunController.h"
#include "runs/RunDesk.h"
#include "runs/RunsModel.h"
#include "runs/RunsPanel.h"
#include "runs/SeedMatrixPanel.h"
#include "runs/ShadowModel.h"
#include "util/Files.h"
#include "util/ThreadRule.h"

#include <QAction>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTreeView>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace pw::gui;
using pw::test::RepoBuilder;

namespace {

const char *kBase = "def test_a():\n    assert 1 == 1\n\n\ndef test_b():\n    assert 2 == 2\n\n\n"
                    "def test_c():\n    assert 3 == 3\n";
const char *kHead = "import pytest\n\n\ndef test_a():\n    assert 1 == 1\n\n\n"
                    "@pytest.mark.skip(reason='later')\ndef test_c():\n    assert 3 == 3\n";

bool waitFor(RunController *controller, int ms)
{
    QElapsedTimer clock;
    clock.start();
    while (controller->isBusy() && clock.elapsed() < ms)
        QTest::qWait(20);
    QTest::qWait(50); // deliver finished()
    return !controller->isBusy();
}

// A desk (owned by `window`) showing `outcome` that answers yes when asked to run the
// project's code without a sandbox.
RunDesk &consentingDesk(QWidget &window, const AuditOutcome &outcome)
{
    auto *desk = new RunDesk(&window);
    desk->setConsentHandler([](const QString &, const QString &) { return true; });
    desk->setOutcome(outcome);
    return *desk;
}

} // namespace

class TestRunPanels : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_facts;

    AuditOutcome audit(const RepoBuilder &repo, const std::string &base)
    {
        WorkbenchRequest request;
        request.audit.repoPath = repo.root();
        request.audit.base = base;
        request.audit.head = "HEAD";
        request.audit.python = pw::test::testPython();
        request.audit.cacheDir = m_facts.path().toStdString();
        // This thread stands in for AuditRunner's while a desk may be marking it.
        const pw::core::BlockingWorkAllowed auditThread;
        return AuditRunner::runNow(request);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("patchwitness-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_runpanels"));
        RunDesk::forgetConsent();
        // Base witnesses are kept in the (test-mode) user cache and fixture commit ids repeat
        // from run to run: start without them, so the shadow test takes its own witness.
        QDir(QString::fromStdString(pw::core::TreeCache::defaultRoot() + "/witness"))
            .removeRecursively();
    }

    void censusStreamsRunsIntoThePanels()
    {
        RepoBuilder repo;
        repo.write("tests/test_x.py", kBase);
        const std::string base = repo.commit("base");
        repo.write("tests/test_x.py", kHead);
        repo.commit("agent: drop b, skip c");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));

        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        QSignalSpy runs(desk.controller(), &RunController::runFinished);
        QSignalSpy ready(desk.controller(), &RunController::censusReady);
        QVERIFY(desk.startCensus(true));
        QVERIFY(
            desk.runsPanel()->findChild<QPushButton *>(QStringLiteral("cancelRuns"))->isEnabled());
        QVERIFY(waitFor(desk.controller(), 120000));

        QCOMPARE(runs.count(), 5); // collect base, head, base; run base, head
        QCOMPARE(ready.count(), 1);
        QCOMPARE(desk.runsPanel()->model()->rowCount(), 5);
        QCOMPARE(desk.controller()->progressText(), QStringLiteral("census: 5/5 runs"));
        QVERIFY(
            !desk.runsPanel()->findChild<QPushButton *>(QStringLiteral("cancelRuns"))->isEnabled());
        auto *bar = desk.runsPanel()->findChild<QProgressBar *>(QStringLiteral("runsProgress"));
        QCOMPARE(bar->value(), 5);

        // The selected run's log names the command, seed and env digest.
        desk.runsPanel()->selectRun(3);
        const QString log = desk.runsPanel()->log()->toPlainText();
        const RunsModel::Row &run = desk.runsPanel()->model()->row(3);
        QVERIFY(log.contains(run.command));
        QVERIFY(log.contains(QStringLiteral("seed 0")));
        QVERIFY(log.contains(run.envDigest));
        QVERIFY(!run.envDigest.isEmpty());

        CensusModel *census = desk.censusModel();
        QVERIFY(census->hasReport());
        QVERIFY2(census->summary().endsWith(QStringLiteral("BLOCK")),
                 qPrintable(census->summary()));
        QStringList codes;
        for (int r = 0; r < census->rowCount(); ++r)
            codes << census->index(r, 0).data(CodeRole).toString();
        QVERIFY2(codes.contains(QStringLiteral("C-REMOVED")), qPrintable(codes.join(',')));
        QVERIFY(codes.contains(QStringLiteral("C-SKIP")));
        for (int r = 0; r < census->rowCount(); ++r) {
            if (census->index(r, 0).data(CodeRole).toString() == QLatin1String("C-REMOVED")) {
                QCOMPARE(census->index(r, 0).data(TestRole).toString(),
                         QStringLiteral("tests/test_x.py::test_b"));
                QCOMPARE(census->index(r, 0).data(SeverityRole).toInt(), 2);
            }
        }
        QCOMPARE(desk.censusPanel()->summary(), census->summary());
    }

    void cancelKillsTheRunningProcessGroups()
    {
        RepoBuilder repo;
        repo.write("tests/test_x.py", "import time\n\n\ndef test_slow():\n    time.sleep(600)\n");
        const std::string base = repo.commit("base");
        repo.write("tests/test_y.py", "def test_y():\n    pass\n");
        repo.commit("head");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));

        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        QVERIFY(desk.startCensus(true));
        // The three collections end quickly; the two suite runs then sleep.
        QElapsedTimer clock;
        clock.start();
        while (desk.controller()->done() < 3 && clock.elapsed() < 60000)
            QTest::qWait(20);
        QCOMPARE(desk.controller()->done(), 3);
        QTest::qWait(500);
        QVERIFY(desk.controller()->isRunning());
        // Results stream in while runs proceed: the three finished runs are rows already, and
        // the progress line counts them and estimates what is left.
        QCOMPARE(desk.runsPanel()->model()->rowCount(), 3);
        const QString progress = desk.controller()->progressText();
        QVERIFY2(progress.startsWith(QStringLiteral("census: 3/5 runs · about ")) &&
                     progress.endsWith(QStringLiteral(" s left")),
                 qPrintable(progress));
        clock.restart();
        desk.runsPanel()->findChild<QPushButton *>(QStringLiteral("cancelRuns"))->click();
        QVERIFY(waitFor(desk.controller(), 30000));
        QVERIFY(clock.elapsed() < 30000);

        RunsModel *runs = desk.runsPanel()->model();
        QCOMPARE(runs->rowCount(), 5);
        for (int r = 3; r < 5; ++r) {
            QCOMPARE(runs->row(r).status, QStringLiteral("cancelled"));
            QVERIFY(runs->row(r).harnessError);
        }
        for (const pw::core::RunResult &r : desk.censusModel()->report().executions) {
            QCOMPARE(r.status, pw::core::RunStatus::Cancelled);
            QVERIFY(pw::test::waitUntilGroupGone(long(r.pid), 10000));
        }
        QVERIFY(desk.censusModel()->report().interrupted);
    }

    // The Runs desk: jobs asked for while one runs wait in a queue, in order; one can be
    // taken out before it starts, and Cancel drops the rest.
    void jobsWaitInAQueueBehindTheRunningOne()
    {
        RepoBuilder repo;
        repo.write("tests/test_x.py", "def test_ok():\n    assert True\n");
        const std::string base = repo.commit("base");
        repo.write("tests/test_x.py", "def test_ok():\n    assert False\n");
        repo.commit("agent: break test_ok");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));

        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        RunController *controller = desk.controller();
        QSignalSpy started(controller, &RunController::started);
        QSignalSpy censusReady(controller, &RunController::censusReady);
        QSignalSpy attributionReady(controller, &RunController::attributionReady);
        QSignalSpy cellsReady(controller, &RunController::cellsReady);
        const QString test = QStringLiteral("tests/test_x.py::test_ok");
        QVERIFY(desk.startCensus(false));
        QVERIFY(desk.startAttribution(test));
        QVERIFY(desk.startCells(test));
        QVERIFY(desk.startCensus(false));
        QCOMPARE(started.count(), 1);
        const QString collectOnly = QStringLiteral("census (collect only)");
        QCOMPARE(controller->queued(), QStringList({QStringLiteral("attribute ") + test,
                                                    QStringLiteral("cells ") + test, collectOnly}));
        auto *queue = desk.runsPanel()->findChild<QListWidget *>(QStringLiteral("runsQueue"));
        QVERIFY(queue && !queue->parentWidget()->isHidden());
        QCOMPARE(queue->count(), 3);
        QCOMPARE(queue->item(1)->text(), QStringLiteral("2. cells ") + test);
        const auto *status = desk.runsPanel()->findChild<QLabel *>(QStringLiteral("runsStatus"));
        QVERIFY2(status->text().contains(QStringLiteral("3 job(s) queued")),
                 qPrintable(status->text()));
        auto *drop = desk.runsPanel()->findChild<QPushButton *>(QStringLiteral("dropQueued"));
        QVERIFY(!drop->isEnabled()); // nothing picked yet

        // The cells job is picked; the attribution leaves the queue to run, the rows shift,
        // and the pick stays with the cells job: Remove takes it out, it never starts.
        queue->setCurrentRow(1);
        QVERIFY(drop->isEnabled());
        QElapsedTimer clock;
        clock.start();
        while (started.count() < 2 && clock.elapsed() < 120000)
            QTest::qWait(20);
        QCOMPARE(started.count(), 2);
        QCOMPARE(queue->count(), 2);
        QCOMPARE(queue->currentItem()->text(), QStringLiteral("1. cells ") + test);
        drop->click();
        QCOMPARE(controller->queued(), QStringList(collectOnly));
        QVERIFY(waitFor(controller, 180000));
        QCOMPARE(started.count(), 3);
        QCOMPARE(started.at(0).at(0).toString(), collectOnly);
        QCOMPARE(started.at(1).at(0).toString(), QStringLiteral("attribute ") + test);
        QCOMPARE(started.at(2).at(0).toString(), collectOnly);
        QCOMPARE(censusReady.count(), 2);
        QCOMPARE(attributionReady.count(), 1);
        QCOMPARE(cellsReady.count(), 0);
        QVERIFY(desk.attributionModel()->result().verdict ==
                pw::core::AttributionVerdict::PatchInduced);
        QVERIFY(queue->parentWidget()->isHidden());
        QVERIFY(
            !desk.runsPanel()->findChild<QPushButton *>(QStringLiteral("cancelRuns"))->isEnabled());
        // The report's run findings: the attribution's, and the census's.
        QVERIFY2(desk.dynamicSources().contains(QStringLiteral("attribute ") + test) &&
                     desk.dynamicSources().contains(collectOnly),
                 qPrintable(desk.dynamicSources()));

        // Cancel stops the running job and drops the queue: the shadow sample never starts.
        started.clear();
        QVERIFY(desk.startCensus(true));
        QVERIFY(desk.startShadow(true));
        QCOMPARE(controller->queued().size(), 1);
        desk.runsPanel()->findChild<QPushButton *>(QStringLiteral("cancelRuns"))->click();
        QVERIFY(controller->queued().isEmpty());
        QVERIFY(waitFor(controller, 60000));
        QCOMPARE(started.count(), 1);
        QVERIFY(queue->parentWidget()->isHidden());
    }

    // A census that cannot be taken (the base does not collect either) is no clean run:
    // one review finding says so in the window's report.
    void censusWithoutAResultIsAReviewFinding()
    {
        RepoBuilder repo;
        repo.write("tests/conftest.py", "raise RuntimeError('broken on both trees')\n");
        repo.write("tests/test_x.py", "def test_a():\n    assert True\n");
        repo.write("mod.py", "X = 1\n");
        const std::string base = repo.commit("base");
        repo.write("mod.py", "X = 2\n");
        repo.commit("head");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));
        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        QVERIFY(desk.startCensus(false));
        QVERIFY(waitFor(desk.controller(), 120000));
        const std::vector<pw::core::Finding> found = desk.dynamicFindings();
        QCOMPARE(found.size(), size_t(1));
        QCOMPARE(found.front().code, std::string("C-NONE"));
        QCOMPARE(found.front().severity, pw::core::Severity::Review);
        QVERIFY2(found.front().message.find("broken on both trees") != std::string::npos,
                 found.front().message.c_str());
    }

    void attributionGatesGrantFreezeOnPreExisting()
    {
        RepoBuilder repo;
        repo.write("tests/test_x.py", "def test_old_bug():\n    assert 1 == 2\n\n\n"
                                      "def test_new_bug():\n    assert True\n");
        const std::string base = repo.commit("base");
        repo.write("tests/test_x.py", "def test_old_bug():\n    assert 1 == 2\n\n\n"
                                      "def test_new_bug():\n    assert False\n");
        repo.commit("agent: break test_new_bug");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));

        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        QSignalSpy nodeRuns(desk.controller(), &RunController::nodeRunFinished);
        QSignalSpy freeze(&desk, &RunDesk::grantFreezeRequested);
        // The Ledgers panel lists runs/ and reads it again when a run writes a record there
        // (the window makes this connection).
        LedgerDesk ledgers(&window);
        ledgers.setOutcome(outcome);
        QCOMPARE(ledgers.ledgersModel()->rowCount(), 0);
        QSignalSpy written(&desk, &RunDesk::recordWritten);
        connect(&desk, &RunDesk::recordWritten, &ledgers, &LedgerDesk::refreshRunRecords);

        auto *copyReplay = window.findChild<QPushButton *>(QStringLiteral("copyReplay"));
        QVERIFY(copyReplay && !copyReplay->isEnabled()); // nothing to copy yet
        QVERIFY(desk.startAttribution(QStringLiteral("tests/test_x.py::test_old_bug")));
        QVERIFY(!desk.grantFreezeButton()->isEnabled());
        QVERIFY(waitFor(desk.controller(), 120000));
        const pw::core::AttributionResult &pre = desk.attributionModel()->result();
        QVERIFY2(pre.verdict == pw::core::AttributionVerdict::PreExisting,
                 qPrintable(desk.attributionModel()->summary()));
        // Every run is listed in the Runs panel, the diff-coverage rerun last.
        QCOMPARE(nodeRuns.count(), 2 * pre.runsPerArm + 1);
        QCOMPARE(desk.attributionModel()->rowCount(), 2 * pre.runsPerArm);
        QCOMPARE(desk.runsPanel()->model()->row(0).kind, QStringLiteral("node"));
        const int last = desk.runsPanel()->model()->rowCount() - 1;
        QCOMPARE(last, 2 * pre.runsPerArm);
        QCOMPARE(desk.runsPanel()->model()->row(last).tests, QStringLiteral("diff coverage"));
        QCOMPARE(desk.runsPanel()->model()->row(last).arm, QStringLiteral("head"));
        QVERIFY(desk.runsPanel()->model()->row(last).command.contains(
            QStringLiteral("tests/test_x.py::test_old_bug")));
        QVERIFY(desk.attributionTable()->summary().startsWith(QStringLiteral("PRE_EXISTING")));
        QVERIFY(QFileInfo::exists(QString::fromStdString(pre.recordPath)));
        QCOMPARE(written.count(), 1);
        QCOMPARE(written.at(0).at(0).toString(), QString::fromStdString(pre.recordPath));
        const LedgersModel &listed = *ledgers.ledgersModel();
        QCOMPARE(listed.rowCount(), 1);
        QCOMPARE(listed.rowAt(0)->kind, LedgerRow::Kind::Run);
        QCOMPARE(listed.rowAt(0)->entry, QStringLiteral("tests/test_x.py::test_old_bug"));
        QVERIFY2(listed.rowAt(0)->result.startsWith(QStringLiteral("PRE_EXISTING · matched")),
                 qPrintable(listed.rowAt(0)->result));
        QCOMPARE(QFileInfo(listed.rowAt(0)->file).fileName(),
                 QFileInfo(QString::fromStdString(pre.recordPath)).fileName());
        QVERIFY(ledgers.ledgersPanel()->summary().contains(QStringLiteral("1 run record")));
        // Grant freeze on the PRE_EXISTING record's row: the form is about its test and
        // pre-filled from that very record, even when a newer one (here a NO_REPRO of a
        // later day) is what `freeze` would take by default.
        const QString runsDir = QFileInfo(QString::fromStdString(pre.recordPath)).path();
        pw::test::writeText(runsDir.toStdString(), "2099-01-01-later-matched.json",
                            R"({"schema": "patchwitness.attribution/1", "test": )"
                            R"("tests/test_x.py::test_old_bug", "verdict": "NO_REPRO", )"
                            R"("base_fail": 0, "head_fail": 0, "recorded": "2099-01-01"})");
        ledgers.refreshRunRecords();
        QCOMPARE(listed.rowCount(), 2);
        const int preRow =
            listed.rowAt(0)->result.startsWith(QStringLiteral("PRE_EXISTING")) ? 0 : 1;
        EvidencePanel *ledgersPanel = ledgers.ledgersPanel();
        ledgersPanel->view()->setCurrentIndex(
            ledgersPanel->proxy()->mapFromSource(listed.index(preRow, 0)));
        ledgers.action(QStringLiteral("actionGrantFreeze"))->trigger();
        auto *form = window.findChild<LedgerFormDialog *>();
        QVERIFY(form);
        QVERIFY2(form->previewText().contains(
                     QStringLiteral("test = \"tests/test_x.py::test_old_bug\"")),
                 qPrintable(form->previewText()));
        QVERIFY2(form->previewText().contains(QStringLiteral("base_fail = 5")),
                 qPrintable(form->previewText()));
        QVERIFY2(form->previewText().contains(QStringLiteral("verdict = \"PRE_EXISTING\"")),
                 qPrintable(form->previewText()));
        form->reject();
        delete form;
        QVERIFY(QFile::remove(runsDir + QStringLiteral("/2099-01-01-later-matched.json")));
        // A shard ledger's row is about its test, but is no attribution record: the form
        // takes the test's newest record instead.
        pw::test::writeText(runsDir.toStdString(), "shard-1.json",
                            R"({"schema": "patchwitness.shard/1", "kind": "attribution", )"
                            R"("parameters": {"test": "tests/test_x.py::test_old_bug"}, )"
                            R"("shard": {"index": 1, "count": 2}})");
        ledgers.refreshRunRecords();
        QCOMPARE(listed.rowCount(), 2);
        const int shardRow = listed.rowAt(0)->recordKind == QLatin1String("shard") ? 0 : 1;
        ledgersPanel->view()->setCurrentIndex(
            ledgersPanel->proxy()->mapFromSource(listed.index(shardRow, 0)));
        ledgers.action(QStringLiteral("actionGrantFreeze"))->trigger();
        form = window.findChild<LedgerFormDialog *>();
        QVERIFY(form);
        QVERIFY2(form->previewText().contains(QStringLiteral("base_fail = 5")),
                 qPrintable(form->previewText()));
        form->reject();
        delete form;
        QVERIFY(QFile::remove(runsDir + QStringLiteral("/shard-1.json")));
        QVERIFY(desk.grantFreezeButton()->isEnabled());
        QVERIFY(copyReplay->isEnabled());
        // Diff coverage: test_old_bug never runs the changed line (test_new_bug's).
        const auto *coverage = window.findChild<QLabel *>(QStringLiteral("diffCoverage"));
        QVERIFY(coverage);
        QVERIFY(!coverage->isHidden());
        QVERIFY2(coverage->text().contains(QStringLiteral("DID NOT TOUCH THE CHANGE")),
                 qPrintable(coverage->text()));
        QCOMPARE(desk.attributionModel()->coverageSeverity(),
                 std::optional(pw::core::Severity::Review));
        desk.grantFreezeButton()->click();
        QCOMPARE(freeze.count(), 1);
        QCOMPARE(freeze.at(0).at(0).toString(), QStringLiteral("tests/test_x.py::test_old_bug"));

        QVERIFY(desk.startAttribution(QStringLiteral("tests/test_x.py::test_new_bug")));
        QVERIFY(waitFor(desk.controller(), 120000));
        QVERIFY(desk.attributionModel()->result().verdict ==
                pw::core::AttributionVerdict::PatchInduced);
        QVERIFY(!desk.grantFreezeButton()->isEnabled()); // only PRE_EXISTING may be frozen
        QCOMPARE(desk.attributionModel()->summarySeverity(),
                 std::optional(pw::core::Severity::Block));
        QVERIFY2(coverage->text().endsWith(QStringLiteral("touched 1 changed line in "
                                                          "tests/test_x.py")),
                 qPrintable(coverage->text()));
        QCOMPARE(desk.attributionModel()->coverageSeverity(),
                 std::optional(pw::core::Severity::Info));

        // A bad node id is refused with the reason, no crash.
        QSignalSpy failed(desk.controller(), &RunController::failed);
        QVERIFY(desk.startAttribution(QStringLiteral("no-such-node")));
        QVERIFY(waitFor(desk.controller(), 60000));
        QCOMPARE(failed.count(), 1);
        QVERIFY(desk.attributionTable()->summary().contains(QStringLiteral("failed")));
        // The Runs panel keeps saying why after the job ended, until the next one starts.
        const QString status =
            desk.runsPanel()->findChild<QLabel *>(QStringLiteral("runsStatus"))->text();
        QVERIFY2(status.contains(QStringLiteral("failed: ")) &&
                     status.contains(QStringLiteral("no-such-node")),
                 qPrintable(status));
    }

    // The shadow sample in the workbench: the test whose module the patch changes runs, the other
    // is skipped by its witness; the panel says which and why.
    void shadowSampleFillsThePanel()
    {
        RepoBuilder repo;
        repo.write("pkg/__init__.py", "");
        repo.write("pkg/a.py", "def one():\n    return 1\n");
        repo.write("pkg/b.py", "def two():\n    return 2\n");
        repo.write("tests/test_a.py", "from pkg.a import one\n\n\ndef test_one():\n"
                                      "    assert one() == 1\n");
        repo.write("tests/test_b.py", "from pkg.b import two\n\n\ndef test_two():\n"
                                      "    assert two() == 2\n");
        const std::string base = repo.commit("base");
        repo.write("pkg/a.py", "def one():\n    return 3 - 2\n");
        repo.commit("agent: rewrite one()");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));

        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        QSignalSpy runs(desk.controller(), &RunController::runFinished);
        QSignalSpy shown(&desk, &RunDesk::shadowShown);
        QVERIFY(desk.startShadow());
        QVERIFY(waitFor(desk.controller(), 120000));
        QCOMPARE(shown.count(), 1);
        QCOMPARE(runs.count(), 3); // base witness, head collection, head run
        // Counted as one job: the head run is the third of three, not "1/1".
        QCOMPARE(desk.controller()->progressText(), QStringLiteral("shadow sample: 3/3 runs"));
        ShadowModel *shadow = desk.shadowModel();
        QCOMPARE(shadow->rowCount(), 2);
        QMap<QString, QString> decision, why;
        for (int r = 0; r < 2; ++r) {
            const QString test = shadow->index(r, ShadowModel::TestColumn).data().toString();
            decision[test] = shadow->index(r, ShadowModel::DecisionColumn).data().toString();
            why[test] = shadow->index(r, ShadowModel::WhyColumn).data().toString();
        }
        QCOMPARE(decision[QStringLiteral("tests/test_a.py::test_one")], QStringLiteral("run"));
        QVERIFY2(why[QStringLiteral("tests/test_a.py::test_one")].contains(
                     QStringLiteral("pkg/a.py changed")),
                 qPrintable(why[QStringLiteral("tests/test_a.py::test_one")]));
        QVERIFY(decision[QStringLiteral("tests/test_b.py::test_two")] == QStringLiteral("skip") ||
                decision[QStringLiteral("tests/test_b.py::test_two")] ==
                    QStringLiteral("shadow sample"));
        QVERIFY2(desk.shadowPanel()->summary().contains(QStringLiteral("2 head tests · 1 run")),
                 qPrintable(desk.shadowPanel()->summary()));
        QCOMPARE(shadow->summarySeverity(), std::optional(pw::core::Severity::Info));
    }

    // Shard ledgers of one sweep, run elsewhere, merge in the workbench into the
    // Attribution panel (the record written as `merge --record` does); a missing shard and
    // shards of other commits are refused with the reason.
    void mergedShardsShowInTheAttributionPanel()
    {
        RepoBuilder repo;
        repo.write("tests/test_x.py", "def test_old_bug():\n    assert 1 == 2\n");
        const std::string base = repo.commit("base");
        repo.write("README", "x\n");
        repo.commit("head");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));

        QTemporaryDir out;
        pw::core::RunRequest request;
        request.target.repoPath = repo.root();
        request.target.base = base;
        request.target.head = "HEAD";
        request.target.python = pw::test::testPython();
        request.target.cacheDir = m_facts.path().toStdString();
        const pw::core::RunContext ctx = pw::core::RunContext::open(request);
        QStringList shards;
        for (int i = 1; i <= 2; ++i) {
            pw::core::AttributionRequest a;
            a.test = "tests/test_x.py::test_old_bug";
            a.mode = pw::core::AttributionRequest::Mode::Swept;
            a.runs = 4;
            a.shard = pw::core::Shard{i, 2};
            a.shardOut = out.filePath(QStringLiteral("s%1.json").arg(i)).toStdString();
            pw::core::RunPool pool(2);
            const pw::core::AttributionResult r = pw::core::Attribution::run(ctx, a, pool);
            QVERIFY2(!r.verdict, "a shard has no verdict");
            shards << QString::fromStdString(a.shardOut);
        }

        QWidget window;
        RunDesk desk(&window);
        desk.setOutcome(outcome);
        QSignalSpy messages(&desk, &RunDesk::message);
        QVERIFY(!desk.mergeShards({shards.front()}));
        QVERIFY(!messages.isEmpty());
        QVERIFY2(messages.last().at(1).toString().contains(QStringLiteral("missing shard 2/2")),
                 qPrintable(messages.last().at(1).toString()));
        QVERIFY(!desk.attributionModel()->hasResult());

        // The Runs menu action goes through the chooser.
        desk.setShardChooser([&shards](const QString &) { return shards; });
        QAction *merge = nullptr;
        for (QAction *a : desk.actions()) {
            if (a->objectName() == QLatin1String("actionMergeShards"))
                merge = a;
        }
        QVERIFY(merge);
        merge->trigger();
        QVERIFY(desk.attributionModel()->hasResult());
        const pw::core::AttributionResult &merged = desk.attributionModel()->result();
        QVERIFY(merged.verdict == pw::core::AttributionVerdict::PreExisting);
        QCOMPARE(int(merged.base.runs.size() + merged.head.runs.size()), 8);
        QVERIFY(QFileInfo::exists(QString::fromStdString(merged.recordPath)));
        QVERIFY(desk.grantFreezeButton()->isEnabled());

        // Shards of another comparison are not about the open one.
        repo.write("README", "y\n");
        repo.commit("newer head");
        const AuditOutcome newer = audit(repo, base);
        QVERIFY2(newer.ok, qPrintable(newer.error));
        desk.setOutcome(newer);
        QVERIFY(!desk.mergeShards(shards));
        QVERIFY2(messages.last().at(1).toString().contains(QStringLiteral("not the open base "
                                                                          "and head")),
                 qPrintable(messages.last().at(1).toString()));
    }

    void cellsFillTheMatrix()
    {
        RepoBuilder repo;
        repo.write("tests/test_x.py", "def test_fine():\n    assert True\n");
        const std::string base = repo.commit("base");
        repo.write("README", "x\n");
        repo.commit("head");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));
        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        QVERIFY(desk.startCells(QStringLiteral("tests/test_x.py::test_fine")));
        QVERIFY(waitFor(desk.controller(), 180000));
        CellsModel *cells = desk.cellsModel();
        QVERIFY(cells->hasResult());
        QCOMPARE(cells->rowCount(), 4);
        QStringList names;
        for (int r = 0; r < 4; ++r)
            names << cells->index(r, CellsModel::CellColumn).data().toString();
        QCOMPARE(names, QStringList({QStringLiteral("solo"), QStringLiteral("order"),
                                     QStringLiteral("isolate"), QStringLiteral("clock")}));
        QCOMPARE(cells->index(0, CellsModel::StatusColumn).data().toString(),
                 QStringLiteral("pass"));
        // The solo cell says what to paste to rerun it, and in which environment.
        const QString replay = cells->index(0, CellsModel::ReplayColumn).data().toString();
        QVERIFY2(replay.contains(QStringLiteral("tests/test_x.py::test_fine")), qPrintable(replay));
        QCOMPARE(cells->index(0, CellsModel::EnvColumn).data().toString().size(), 16);
        QVERIFY(!cells->result().reproduced());
        QCOMPARE(desk.cellsPanel()->summary(), cells->summary());
    }

    void seedMatrixFillsTheHeatmap()
    {
        // Seeds 0..5 of random.randrange(200): 98 34 14 60 60 159 — the patch's clamp
        // differs at seed 5 only (PATCH_BUG); randrange(3): 1 0 0 0 0 2 — seeds 1..4 fail on
        // both trees (PRE_EXISTING); a stable test (NO_SIGNAL); a test the patch adds (none).
        RepoBuilder repo;
        repo.write(".patchwitness/config.toml", "seeds = 6\nreplays = 2\n");
        repo.write("src/__init__.py", "");
        repo.write("src/calc.py", "def clamp(x):\n    return min(x, 100)\n");
        repo.write("tests/test_prop.py", "import random\n\nfrom src.calc import clamp\n\n\n"
                                         "def test_clamp():\n"
                                         "    x = random.randrange(200)\n"
                                         "    assert clamp(x) == min(x, 100)\n");
        repo.write("tests/test_seeded.py", "import random\n\n\n"
                                           "def test_some_seeds():\n"
                                           "    assert random.randrange(3) != 0\n");
        repo.write("tests/test_stable.py", "def test_stable():\n    assert True\n");
        const std::string base = repo.commit("base");
        repo.write("src/calc.py", "def clamp(x):\n    return min(x, 99)\n");
        repo.write("tests/test_stable.py", "def test_stable():\n    assert 1\n");
        repo.write("tests/test_added.py", "def test_new():\n    pass\n");
        repo.commit("the patch");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));

        QWidget window;
        RunDesk &desk = consentingDesk(window, outcome);
        SeedMatrixPanel *panel = desk.matrixPanel();
        MatrixHeat *heat = panel->heat();
        QSignalSpy reported(desk.controller(), &RunController::matrixReported);
        QSignalSpy runs(desk.controller(), &RunController::runFinished);
        QSignalSpy shown(&desk, &RunDesk::matrixShown);
        QSignalSpy freeze(&desk, &RunDesk::matrixFreezeRequested);
        const QString bug = QStringLiteral("tests/test_prop.py::test_clamp");
        const QString pre = QStringLiteral("tests/test_seeded.py::test_some_seeds");
        const QString stable = QStringLiteral("tests/test_stable.py::test_stable");
        const QString added = QStringLiteral("tests/test_added.py::test_new");
        // With nothing chosen, the tests of the test files the patch changes (an added file
        // has no baseline to triage against).
        QCOMPARE(desk.patchTests(), (QStringList{stable}));
        QVERIFY(desk.startMatrix({bug, pre, stable, added}));
        QVERIFY(waitFor(desk.controller(), 240000));

        // Streamed: each server run's replays reached the heatmap before the result, and
        // each run is in the Runs panel.
        QVERIFY(reported.count() >= 4);
        QCOMPARE(runs.count(), reported.count());
        QVERIFY(shown.count() >= 2); // began, ended
        QVERIFY(!heat->running());
        const pw::core::MatrixResult *result = heat->result();
        QVERIFY(result);
        QCOMPARE(heat->seeds().size(), size_t(6));
        QCOMPARE(heat->replays(), 2);
        QVERIFY2(!result->recordPath.empty(), result->recordError.c_str());

        // Sorted by verdict: PATCH_BUG, PRE_EXISTING, NO_SIGNAL, no triage.
        QStringList order;
        for (int i : heat->shown())
            order << heat->row(i).test;
        QCOMPARE(order, (QStringList{bug, pre, stable, added}));
        const MatrixHeat::Row &bugRow = heat->row(heat->rowOf(bug));
        QCOMPARE(bugRow.triage, std::optional(pw::core::Triage::PatchBug));
        QCOMPARE(bugRow.witnessSeed, std::optional<long long>(5));
        QCOMPARE(bugRow.head[5].fails, 2);
        QCOMPARE(bugRow.base[5].fails, 0);
        QVERIFY(!heat->row(heat->rowOf(added)).baseCollected);
        QVERIFY2(heat->summary().contains(QStringLiteral("PATCH_BUG 1")),
                 qPrintable(heat->summary()));
        // The matrix's findings join the report: a PATCH_BUG blocks.
        bool blocks = false;
        for (const pw::core::Finding &f : desk.dynamicFindings())
            blocks = blocks || (f.code == "M-PATCH_BUG" && f.severity == pw::core::Severity::Block);
        QVERIFY(blocks);

        // The first row's witness cell is open: its log has the counts, the command and the
        // log of the run that held it.
        HeatmapView *view = panel->view();
        window.resize(1000, 700);
        panel->setGeometry(0, 0, 1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(view->viewport()->width() > 600);
        QCOMPARE(view->currentRow(), heat->rowOf(bug));
        const QString log = panel->cellLog()->toPlainText();
        QVERIFY2(log.contains(QStringLiteral("seed 5")) && log.contains(QStringLiteral("2 of 2")),
                 qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("--pw-seed 5")), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("PYTHONHASHSEED=0")), qPrintable(log));

        // Where a cell is drawn is where a click finds it; the tooltip names both trees and
        // the command.
        const QRect cell = view->cellRect(heat->rowOf(bug), pw::core::Arm::Head, 5);
        QVERIFY(!cell.isEmpty());
        const std::optional<HeatmapView::Hit> hit = view->hitAt(cell.center());
        QVERIFY(hit);
        QCOMPARE(hit->row, heat->rowOf(bug));
        QCOMPARE(hit->seed, 5);
        QVERIFY(hit->arm == pw::core::Arm::Head);
        const QString tip = view->toolTipFor(*hit);
        QVERIFY2(tip.contains(QStringLiteral("2/2")) && tip.contains(QStringLiteral("0/2")) &&
                     tip.contains(QStringLiteral("--pw-seed 5")) &&
                     tip.contains(QStringLiteral("witness")),
                 qPrintable(tip));
        QSignalSpy activated(view, &HeatmapView::cellActivated);
        const QRect baseCell = view->cellRect(heat->rowOf(pre), pw::core::Arm::Base, 1);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, baseCell.center());
        QCOMPARE(activated.count(), 1);
        QVERIFY(panel->cellLog()->toPlainText().contains(QStringLiteral("baseline · seed 1")));

        // Grant freeze: a PRE_EXISTING row of a recorded matrix only; the others say why.
        QCOMPARE(view->currentRow(), heat->rowOf(pre));
        QVERIFY(panel->grantFreezeButton()->isEnabled());
        panel->grantFreezeButton()->click();
        QCOMPARE(freeze.count(), 1);
        QCOMPARE(freeze.at(0).at(0).toString(), pre);
        QCOMPARE(freeze.at(0).at(1).toString(), QString::fromStdString(result->recordPath));
        view->setCurrent({heat->rowOf(bug), -1, pw::core::Arm::Head});
        QVERIFY(!panel->grantFreezeButton()->isEnabled());
        QVERIFY2(panel->grantFreezeButton()->toolTip().contains(QStringLiteral("never freeze")),
                 qPrintable(panel->grantFreezeButton()->toolTip()));
        QVERIFY(panel->freezeRefusal(heat->rowOf(stable)).startsWith(QStringLiteral("NO_SIGNAL")));
        QVERIFY(panel->freezeRefusal(heat->rowOf(added)).startsWith(QStringLiteral("No triage")));

        // The matrix record pre-fills the freeze as an attribution record would.
        const std::optional<pw::core::AttributionRecord> evidence =
            pw::core::AttributionRecord::ofMatrixRecord(
                pw::core::readWholeFile(result->recordPath).value_or(""), result->recordPath,
                pre.toStdString());
        QVERIFY(evidence);
        QCOMPARE(evidence->verdict, std::optional<std::string>("PRE_EXISTING"));
        QCOMPARE(evidence->witnessSeed, std::optional<long long>(1));
        QCOMPARE(evidence->headFail, std::optional<long long>(8)); // seeds 1..4, 2 of 2 each
        QCOMPARE(evidence->baseFail, evidence->headFail);
        QCOMPARE(evidence->runs, std::optional<long long>(12));
        QCOMPARE(evidence->baselineSha, std::optional<std::string>(base));
        QCOMPARE(evidence->mode, std::optional<std::string>("matrix"));
        QVERIFY(!pw::core::AttributionRecord::ofMatrixRecord("{}", "x.json", pre.toStdString()));

        // A record whose fields are not what they should be reads as absent values, never
        // as a crash.
        nlohmann::json row = {{"test", pre.toStdString()},
                              {"triage", "PRE_EXISTING"},
                              {"seeds_compared", {1, "x", 2}},
                              {"base", {1, 2}},
                              {"head", {{"1", "2"}, {"2", 2}}},
                              {"commands", nlohmann::json::array()},
                              {"witness_seed", "1"}};
        const std::string mistyped = nlohmann::json({{"schema", "patchwitness.matrix/1"},
                                                     {"replays", "2"},
                                                     {"trees", nlohmann::json::array()},
                                                     {"interpreter", 3},
                                                     {"tests", {7, row}}})
                                         .dump();
        const std::optional<pw::core::AttributionRecord> odd =
            pw::core::AttributionRecord::ofMatrixRecord(mistyped, "odd.json", pre.toStdString());
        QVERIFY(odd);
        QCOMPARE(odd->verdict, std::optional<std::string>("PRE_EXISTING"));
        QCOMPARE(odd->headFail, std::optional<long long>(2));
        QCOMPARE(odd->baseFail, std::optional<long long>(0));
        QVERIFY(!odd->witnessSeed && !odd->runs && !odd->base && !odd->interpreter);

        // Filter by verdict, then every row again; a selected row the filter hides is no
        // longer selected.
        auto *filter = panel->filterBox();
        QCOMPARE(view->currentRow(), heat->rowOf(bug));
        filter->setCurrentIndex(filter->findText(QStringLiteral("PRE_EXISTING")));
        QCOMPARE(heat->shown(), std::vector<int>{heat->rowOf(pre)});
        QCOMPARE(view->currentRow(), -1);
        QVERIFY(!panel->grantFreezeButton()->isEnabled());
        filter->setCurrentIndex(filter->findText(QStringLiteral("No triage")));
        QCOMPARE(heat->shown(), std::vector<int>{heat->rowOf(added)});
        filter->setCurrentIndex(0);
        QCOMPARE(heat->shown().size(), size_t(4));
        panel->sortBox()->setCurrentIndex(1); // by test
        QCOMPARE(heat->row(heat->shown().front()).test, added);

        // Zoom: counts are drawn in large cells only; the cell under the pointer moves with it.
        view->setCellSize(HeatmapView::kMaxCell);
        QVERIFY(view->drawsCounts());
        view->setCellSize(4);
        QVERIFY(!view->drawsCounts());
        QCOMPARE(view->cellSize(), 4);
        const QRect small = view->cellRect(heat->rowOf(bug), pw::core::Arm::Head, 5);
        QCOMPARE(small.width(), 4);
        const std::optional<HeatmapView::Hit> smallHit = view->hitAt(small.center());
        QVERIFY(smallHit);
        QCOMPARE(smallHit->seed, 5);

        // A new matrix replaces the rows: the selection follows its test, the old cell's log
        // is gone.
        QVERIFY(panel->selectTest(pre, 1));
        QVERIFY(!panel->cellLog()->toPlainText().isEmpty());
        heat->begin({stable, pre}, heat->seeds(), 2);
        QCOMPARE(view->currentRow(), heat->rowOf(pre));
        QCOMPARE(heat->rowOf(pre), 1);
        QVERIFY(panel->cellLog()->toPlainText().isEmpty());
        heat->begin({stable}, heat->seeds(), 2);
        QCOMPARE(view->currentRow(), -1);
    }

    void heatmapColoursReadInBothPalettes()
    {
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        for (const QPalette &palette : {light, dark}) {
            const QColor base = palette.color(QPalette::Base);
            // More fails stand further from the background, step by step; 0/K is a neutral.
            double previous = -1;
            for (int f = 0; f <= 5; ++f) {
                const QColor c = HeatmapView::cellColour(f, 5, palette);
                const double distance = std::abs(c.lightnessF() - base.lightnessF()) +
                                        (f > 0 ? c.hsvSaturationF() : 0.0);
                QVERIFY2(distance > previous, qPrintable(QStringLiteral("%1/5").arg(f)));
                previous = distance;
                if (f == 0)
                    QCOMPARE(c.hsvSaturationF(), base.hsvSaturationF());
            }
        }
        QVERIFY(HeatmapView::cellColour(5, 5, light) != HeatmapView::cellColour(5, 5, dark));
    }

    void heatmapPaintsOnlyWhatIsInView()
    {
        // 500 tests × 200 seeds, painted into an image of the viewport's size: every cell
        // in view is drawn with its colour, and a frame is a frame however large the matrix.
        MatrixHeat heat;
        pw::core::MatrixResult result;
        result.replays = 5;
        for (uint32_t s = 0; s < 200; ++s)
            result.seeds.push_back(s);
        for (int t = 0; t < 500; ++t) {
            pw::core::MatrixTest test;
            test.test = "tests/test_big.py::test_" + std::to_string(t);
            for (pw::core::MatrixTree *tree : {&test.base, &test.head}) {
                tree->errors.assign(200, 0);
                tree->runs.assign(200, -1);
                for (int s = 0; s < 200; ++s)
                    tree->fails.push_back((t + s) % 6);
            }
            result.tests.push_back(std::move(test));
        }
        heat.setResult(result);
        HeatmapView view(&heat);
        view.resize(800, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.viewport()->height() > 300);
        view.setCellSize(18);
        view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum());
        view.horizontalScrollBar()->setValue(view.horizontalScrollBar()->maximum());
        QImage image(view.viewport()->size(), QImage::Format_ARGB32);
        QPainter painter(&image);
        view.paintFrame(painter);
        painter.end();
        const int lastShown = heat.shown().back();
        const QRect last = view.cellRect(lastShown, pw::core::Arm::Head, 199);
        QVERIFY2(view.viewport()->rect().contains(last.center()), "scrolled to the last cell");
        const pw::core::MatrixTree &tree = result.tests[size_t(lastShown)].head;
        const QColor expected = HeatmapView::cellColour(tree.fails[199], 5, view.palette());
        // A corner of the cell (its count is drawn in the middle).
        QCOMPARE(image.pixelColor(last.topLeft() + QPoint(1, last.height() - 3)).rgb(),
                 expected.rgb());
        // Small cells come from one image of the matrix, scaled: the same colours.
        view.setCellSize(4);
        view.verticalScrollBar()->setValue(0);
        view.horizontalScrollBar()->setValue(0);
        image.fill(Qt::black);
        painter.begin(&image);
        view.paintFrame(painter);
        painter.end();
        for (int s : {0, 3, 17}) {
            const int row = heat.shown()[2];
            const QRect tiny = view.cellRect(row, pw::core::Arm::Base, s);
            QCOMPARE(tiny.size(), QSize(4, 4));
            QCOMPARE(image.pixelColor(tiny.center()).rgb(),
                     HeatmapView::cellColour(result.tests[size_t(row)].base.fails[size_t(s)], 5,
                                             view.palette())
                         .rgb());
        }
    }

    void runningWithoutASandboxIsAskedOncePerRepository()
    {
        RepoBuilder repo;
        repo.write(".patchwitness/config.toml", "sandbox = false\n");
        repo.write("tests/test_x.py", kBase);
        const std::string base = repo.commit("base");
        repo.write("tests/test_x.py", kHead);
        repo.commit("head");
        const AuditOutcome outcome = audit(repo, base);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));
        QVERIFY(!outcome.config.sandbox);

        QWidget window;
        RunDesk desk(&window);
        desk.setOutcome(outcome);
        int asked = 0;
        bool answer = false;
        QString reason;
        desk.setConsentHandler([&](const QString &, const QString &why) {
            ++asked;
            reason = why;
            return answer;
        });
        QSignalSpy messages(&desk, &RunDesk::message);
        QVERIFY(!desk.startCensus(false)); // declined: nothing runs
        QCOMPARE(asked, 1);
        QVERIFY(reason.contains(QStringLiteral("sandbox = false")));
        QVERIFY(!desk.controller()->isRunning());
        QVERIFY(!messages.isEmpty());

        answer = true;
        QVERIFY(desk.startCensus(false));
        QCOMPARE(asked, 2);
        QVERIFY(waitFor(desk.controller(), 120000));
        QVERIFY(desk.startCensus(false)); // remembered for this repository
        QCOMPARE(asked, 2);
        QVERIFY(waitFor(desk.controller(), 120000));
        for (int r = 0; r < desk.runsPanel()->model()->rowCount(); ++r)
            QVERIFY(!desk.runsPanel()->model()->row(r).command.contains(QStringLiteral("bwrap")));

        RunDesk::forgetConsent(QString::fromStdString(outcome.report.repo));
        QVERIFY(desk.startCensus(false));
        QCOMPARE(asked, 3); // forgotten: asked again
        QVERIFY(waitFor(desk.controller(), 120000));
    }
};

QTEST_MAIN(TestRunPanels)
#include "tst_runpanels.moc"
