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

AuditOutcome AuditRunner::runNow(const core::AuditRequest &request)
{
    AuditOutcome out;
    try {
        out.report = core::Audit::run(request);
        const core::Repository repo = core::Repository::open(request.repoPath);
        const core::Revision base = repo.resolve(*out.report.base.commit);
        const core::Revision head = repo.resolve(out.report.head.rev);
        out.diff = repo.diff(base, head, core::DiffOptions());
        out.ok = true;
    } catch (const core::Error &e) {
        out.error = QString::fromStdString(e.what());
    } catch (const std::exception &e) {
        out.error = QStringLiteral("internal error: %1").arg(QString::fromStdString(e.what()));
    }
    return out;
}

void AuditRunner::start(const core::AuditRequest &request)
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
}

void AuditRunner::onFinished()
{
    m_outcome = m_watcher.result();
    Q_EMIT finished();
    if (m_pending) {
        const core::AuditRequest next = *m_pending;
        m_pending.reset();
        start(next);
    }
}

} // namespace pw::gui
