// The dynamic gates in the workbench (SPEC §8 "Runs"): a census started from the desk runs
// off the GUI thread, streams each finished pytest run into the Runs panel, fills the
// Census panel (rows with finding codes the ledger desk acts on), cancel kills the running
// process groups, and running a project's code without a sandbox is asked once per
// repository.
#include "AuditRunner.h"
#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "panels/AttributionModel.h"
#include "panels/CensusModel.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceRoles.h"
#include "panels/RunsModel.h"
#include "runs/RunController.h"
#include "runs/RunDesk.h"
#include "runs/RunsPanel.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

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
    while (controller->isRunning() && clock.elapsed() < ms)
        QTest::qWait(20);
    QTest::qWait(50); // deliver finished()
    return !controller->isRunning();
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
        return AuditRunner::runNow(request);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("patchwitness-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_runpanels"));
        RunDesk::forgetConsent();
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
        RunDesk desk(&window);
        desk.setConsentHandler([](const QString &, const QString &) { return true; });
        desk.setOutcome(outcome);
        QSignalSpy runs(desk.controller(), &RunController::runFinished);
        QSignalSpy ready(desk.controller(), &RunController::censusReady);
        QVERIFY(desk.startCensus(true));
        QVERIFY(!desk.startCensus(true)); // one job at a time
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
        RunDesk desk(&window);
        desk.setConsentHandler([](const QString &, const QString &) { return true; });
        desk.setOutcome(outcome);
        QVERIFY(desk.startCensus(true));
        // The three collections end quickly; the two suite runs then sleep.
        QElapsedTimer clock;
        clock.start();
        while (desk.controller()->done() < 3 && clock.elapsed() < 60000)
            QTest::qWait(20);
        QCOMPARE(desk.controller()->done(), 3);
        QTest::qWait(500);
        QVERIFY(desk.controller()->isRunning());
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
            QVERIFY(pw::test::liveGroupMembers(long(r.pid)).empty());
        }
        QVERIFY(desk.censusModel()->report().interrupted);
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
        RunDesk desk(&window);
        desk.setConsentHandler([](const QString &, const QString &) { return true; });
        desk.setOutcome(outcome);
        QSignalSpy nodeRuns(desk.controller(), &RunController::nodeRunFinished);
        QSignalSpy freeze(&desk, &RunDesk::grantFreezeRequested);

        QVERIFY(desk.startAttribution(QStringLiteral("tests/test_x.py::test_old_bug")));
        QVERIFY(!desk.grantFreezeButton()->isEnabled());
        QVERIFY(waitFor(desk.controller(), 120000));
        const pw::core::AttributionResult &pre = desk.attributionModel()->result();
        QVERIFY2(pre.verdict == pw::core::AttributionVerdict::PreExisting,
                 qPrintable(desk.attributionModel()->summary()));
        QCOMPARE(nodeRuns.count(), 2 * pre.runsPerArm);
        QCOMPARE(desk.attributionModel()->rowCount(), 2 * pre.runsPerArm);
        QCOMPARE(desk.runsPanel()->model()->row(0).kind, QStringLiteral("node"));
        QVERIFY(desk.attributionTable()->summary().startsWith(QStringLiteral("PRE_EXISTING")));
        QVERIFY(QFileInfo::exists(QString::fromStdString(pre.recordPath)));
        QVERIFY(desk.grantFreezeButton()->isEnabled());
        // SPEC §10 diff coverage: test_old_bug never runs the changed line (test_new_bug's).
        const auto *coverage = window.findChild<QLabel *>(QStringLiteral("diffCoverage"));
        QVERIFY(coverage);
        QVERIFY(!coverage->isHidden());
        QVERIFY2(coverage->text().contains(QStringLiteral("DID NOT TOUCH THE CHANGE")),
                 qPrintable(coverage->text()));
        QCOMPARE(desk.attributionModel()->coverageSeverity(), 1);
        desk.grantFreezeButton()->click();
        QCOMPARE(freeze.count(), 1);
        QCOMPARE(freeze.at(0).at(0).toString(), QStringLiteral("tests/test_x.py::test_old_bug"));

        QVERIFY(desk.startAttribution(QStringLiteral("tests/test_x.py::test_new_bug")));
        QVERIFY(waitFor(desk.controller(), 120000));
        QVERIFY(desk.attributionModel()->result().verdict ==
                pw::core::AttributionVerdict::PatchInduced);
        QVERIFY(!desk.grantFreezeButton()->isEnabled()); // only PRE_EXISTING may be frozen
        QCOMPARE(desk.attributionModel()->summarySeverity(), 2);
        QVERIFY2(coverage->text().endsWith(QStringLiteral("touched 1 changed line in "
                                                          "tests/test_x.py")),
                 qPrintable(coverage->text()));
        QCOMPARE(desk.attributionModel()->coverageSeverity(), 0);

        // A bad node id is refused with the reason, no crash.
        QSignalSpy failed(desk.controller(), &RunController::failed);
        QVERIFY(desk.startAttribution(QStringLiteral("no-such-node")));
        QVERIFY(waitFor(desk.controller(), 60000));
        QCOMPARE(failed.count(), 1);
        QVERIFY(desk.attributionTable()->summary().contains(QStringLiteral("failed")));
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
        RunDesk desk(&window);
        desk.setConsentHandler([](const QString &, const QString &) { return true; });
        desk.setOutcome(outcome);
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
        QVERIFY(!cells->result().reproduced());
        QCOMPARE(desk.cellsPanel()->summary(), cells->summary());
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
