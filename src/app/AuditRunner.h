#pragma once

#include "audit/Audit.h"
#include "repo/PatchDiff.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

namespace pw::gui {

// What one audit hands the window: the gate report and the patch diff with hunks.
struct AuditOutcome
{
    bool ok = false;
    QString error; // the readable message when !ok
    core::GateReport report;
    core::PatchDiff diff;
};

// Runs the audit off the GUI thread (QtConcurrent) and reports back on it. One audit at
// a time: starting another while one runs queues the newest request.
class AuditRunner : public QObject
{
    Q_OBJECT
public:
    explicit AuditRunner(QObject *parent = nullptr);
    ~AuditRunner() override;

    void start(const core::AuditRequest &request);
    bool isRunning() const { return m_watcher.isRunning(); }
    void waitForFinished();

    static AuditOutcome runNow(const core::AuditRequest &request);

Q_SIGNALS:
    void started();
    void finished();

public:
    const AuditOutcome &outcome() const { return m_outcome; }

private:
    void onFinished();

    QFutureWatcher<AuditOutcome> m_watcher;
    AuditOutcome m_outcome;
    std::optional<core::AuditRequest> m_pending;
};

} // namespace pw::gui
