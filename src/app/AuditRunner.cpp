#include "AuditRunner.h"

#include "repo/Repository.h"
#include "util/Error.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>

namespace pw::gui {

AuditRunner::AuditRunner(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<AuditOutcome>::finished, this, &AuditRunner::onFinished);
}

AuditRunner::~AuditRunner()
{
    m_watcher.waitForFinished(); // never leave a task writing into a dead runner
}

AuditOutcome AuditRunner::runNow(const WorkbenchRequest &request)
{
    AuditOutcome out;
    out.request = request;
    try {
        out.report = core::Audit::run(request.audit);
        out.config = core::Audit::loadConfig(request.audit);
        const core::Repository repo = core::Repository::open(request.audit.repoPath);
        const core::Revision base = repo.resolve(*out.report.base.commit);
        const core::Revision head = repo.resolveHead(out.report.head.rev, base);
        out.diff = repo.diff(base, head, request.diff);
        out.ok = true;
    } catch (const core::Error &e) {
        out.error = QString::fromStdString(e.what());
    } catch (const std::exception &e) {
        out.error = QStringLiteral("internal error: %1").arg(QString::fromStdString(e.what()));
    }
    return out;
}

void AuditRunner::start(const WorkbenchRequest &request)
{
    if (m_watcher.isRunning()) {
        m_pending = request;
        return;
    }
    Q_EMIT started();
    m_watcher.setFuture(QtConcurrent::run([request] { return runNow(request); }));
}

void AuditRunner::waitForFinished()
{
    while (m_watcher.isRunning() || m_pending) {
        m_watcher.waitForFinished();
        QCoreApplication::processEvents(); // deliver finished(), start the pending one
    }
    QCoreApplication::processEvents();
}

void AuditRunner::onFinished()
{
    m_outcome = m_watcher.result();
    if (m_pending) { // a newer request supersedes this result
        const WorkbenchRequest next = *m_pending;
        m_pending.reset();
        start(next);
        return;
    }
    Q_EMIT finished();
}

} // namespace pw::gui
