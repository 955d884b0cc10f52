#pragma once

#include "audit/Audit.h"
#include "ledger/Config.h"
#include "ledger/LedgerSet.h"
#include "ledger/RunRecords.h"
#include "repo/PatchDiff.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <optional>

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
    QString error; // the readable message when !ok
    core::GateReport report;
    core::PatchDiff diff;
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
};

// The evidence files of `ledgerDir`/runs/, named as the outcome names the ledgers
// (`ledgerPrefix` + "runs/…", or the absolute path when the directory is outside the
// repository).
std::vector<core::RunRecordFile> readRunRecords(const QString &ledgerDir,
                                                const QString &ledgerPrefix);

// Runs the audit off the GUI thread (QtConcurrent) and reports back on it. One audit at
// a time: a request made while one runs replaces any queued one and starts when the
// running one ends, so a burst of refreshes costs at most two audits.
class AuditRunner : public QObject
{
    Q_OBJECT
public:
    explicit AuditRunner(QObject *parent = nullptr);
    ~AuditRunner() override;

    void start(const WorkbenchRequest &request);
    bool isRunning() const { return m_watcher.isRunning(); }
    // Blocks until the running and the queued audit are done, delivering finished().
    void waitForFinished();

    static AuditOutcome runNow(const WorkbenchRequest &request);
    const AuditOutcome &outcome() const { return m_outcome; }

Q_SIGNALS:
    void started();
    void finished();

private:
    void onFinished();

    QFutureWatcher<AuditOutcome> m_watcher;
    AuditOutcome m_outcome;
    std::optional<WorkbenchRequest> m_pending;
};

} // namespace pw::gui
