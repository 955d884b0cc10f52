#pragma once

#include "LatestTask.h"
#include "audit/Audit.h"
#include "audit/ReviewTarget.h"
#include "execution/Sandbox.h"
#include "ledger/Config.h"
#include "ledger/LedgerSet.h"
#include "ledger/RunRecords.h"
#include "ledgers/HeadTests.h"
#include "repo/Codeowners.h"
#include "repo/PatchDiff.h"

#include <QObject>
#include <QString>
#include <map>
#include <optional>
#include <set>
#include <stop_token>

namespace pw::gui {

// What the window asks for: the audit and how to show the patch diff.
struct WorkbenchRequest
{
    core::AuditRequest audit;
    core::DiffOptions diff;
};

// What one audit hands the window: the gate report, the patch diff with hunks and the
// configuration that was in force.
struct AuditOutcome
{
    bool ok = false;
    bool cancelled = false; // stopped by AuditRunner::cancel(): never shown as a result
    QString error;          // the readable message when !ok
    core::GateReport report;
    core::PatchDiff diff;
    core::ReviewTarget target; // what was audited, resolved: what the desks work on
    core::Config config;
    WorkbenchRequest request;

    // The ledger directory on disk — what the forms write and the Ledgers panel shows —
    // with every entry judged as `ledger check` would: today, the config's limits, the
    // tests at head, the files the patch changes.
    QString ledgerDir;    // absolute
    QString ledgerPrefix; // repository-relative "<dir>/"; empty when outside the repository
    core::LedgerSet ledgers;
    std::vector<core::LedgerProblem> ledgerProblems;
    std::vector<core::RunRecordFile> runRecords; // the ledger directory's runs/
    QDate today;
    // Where the gate's ledgers come from when the directory is in the repository ("the base,
    // merge-base(main,HEAD) (1a2b3c4)"; empty: the directory itself, outside the repository),
    // and the entries on disk it does not have as they are — (file as named above, entry id)
    // → true for one the base lacks (it counts once committed there), false for one the base
    // words otherwise (the base's version counts until then).
    QString countedLedgers;
    std::map<std::pair<std::string, std::string>, bool> entriesNotOnBase;

    // What the ledger desk pre-fills its forms from, read with the audit (off the GUI
    // thread): the tests at head of the files the findings, patch and ledgers name, git's
    // user.name, the base's CODEOWNERS.
    HeadTests::Files headTests;
    // Every path at head (Repository::pathsAt): a freeze's guards are checked against it.
    std::shared_ptr<const std::set<std::string>> headPaths;
    QString reviewer;
    core::Codeowners owners;
    // Whether bwrap runs here, probed with the audit (once per process): the run desk asks
    // before a run and must not start the probe on the GUI thread.
    core::SandboxStatus sandbox;
};

// The evidence files of `ledgerDir`/runs/, named as the outcome names the ledgers
// (`ledgerPrefix` + "runs/…", or the absolute path when the directory is outside the
// repository).
std::vector<core::RunRecordFile> readRunRecords(const QString &ledgerDir,
                                                const QString &ledgerPrefix);

// Runs the audit off the GUI thread (LatestTask) and reports back on it: its step lines
// as progress(), its outcome as finished(). One audit at a time: a request made while one
// runs replaces any queued one, stops the running one at its next step and starts when it
// has ended, so a burst of refreshes costs one audit and the start of another. cancel()
// stops the running audit (its fact extractor is killed) and drops the queued one;
// cancelled() then reports it and outcome() stays the last finished audit's.
class AuditRunner : public QObject
{
    Q_OBJECT
public:
    explicit AuditRunner(QObject *parent = nullptr);
    ~AuditRunner() override;

    void start(const WorkbenchRequest &request);
    void cancel();
    bool isRunning() const { return m_task.isBusy(); }
    // Blocks until the running and the queued audit are done, delivering finished().
    void waitForFinished();

    static AuditOutcome runNow(const WorkbenchRequest &request);
    const AuditOutcome &outcome() const { return m_outcome; }

Q_SIGNALS:
    void started();
    void progress(const QString &line); // "3 file(s) changed", "2 test file(s) read", …
    void finished();
    void cancelled();

private:
    void onFinished(AuditOutcome result);

    AuditOutcome m_outcome;
    LatestTask<AuditOutcome> m_task;
};

} // namespace pw::gui
