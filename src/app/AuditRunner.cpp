#include "AuditRunner.h"

#include "ledger/LedgerDate.h"
#include "ledger/LedgerValidator.h"
#include "ledger/RunEvidence.h"
#include "ledger/TestIndex.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCoreApplication>
#include <QDir>
#include <QtConcurrent/QtConcurrentRun>

namespace pw::gui {
namespace {

// The ledgers on disk, named as in the repository (".patchwitness/quarantine.toml"), and
// their problems. A ledger that cannot be judged is a problem, never a failed audit.
void loadLedgers(const core::Repository &repo, const core::Revision &head, AuditOutcome &out)
{
    const QString root = QString::fromStdString(repo.workdir());
    const QString dir = QDir::cleanPath(
        QDir(root).absoluteFilePath(QString::fromStdString(out.request.audit.ledgerDir)));
    out.ledgerDir = dir;
    out.ledgerPrefix = dir.startsWith(root + QLatin1Char('/'))
                           ? dir.mid(root.size() + 1) + QLatin1Char('/')
                           : QString();
    const std::string display =
        out.ledgerPrefix.isEmpty() ? dir.toStdString() + "/" : out.ledgerPrefix.toStdString();
    // A file that is there but cannot be read is a problem of its own, never an absent
    // (empty) ledger.
    std::vector<core::LedgerProblem> unreadable;
    out.ledgers = core::LedgerSet::load(
        [&](const std::string &name) -> std::optional<std::string> {
            core::FileRead read = core::readFileIfPresent(
                QDir(dir).filePath(QString::fromStdString(name)).toStdString());
            if (read.status == core::FileRead::Status::Unreadable) {
                core::LedgerProblem p;
                p.file = display + name;
                p.rule = "parse";
                p.message = "cannot be read: " + read.reason;
                unreadable.push_back(std::move(p));
            }
            if (read.status != core::FileRead::Status::Read)
                return std::nullopt;
            return std::move(read.bytes);
        },
        display);
    out.ledgers.loadProblems.insert(out.ledgers.loadProblems.end(), unreadable.begin(),
                                    unreadable.end());
    out.runRecords = readRunRecords(out.ledgerDir, out.ledgerPrefix);
    const std::optional<QDate> today = core::parseLedgerDate(out.request.audit.today);
    out.today = today ? *today : QDate::currentDate();
    core::ValidationContext ctx;
    ctx.today = out.today;
    ctx.freezeMaxDays = out.config.freezeMaxDays;
    ctx.renewalRecencyDays = out.config.renewalRecencyDays;
    for (const core::ChangedFile &f : out.report.changedFiles) {
        ctx.patchedFiles.insert(f.path);
        if (!f.oldPath.empty())
            ctx.patchedFiles.insert(f.oldPath);
    }
    try {
        core::FactExtractor extractor(out.request.audit.python.value_or(out.config.python),
                                      out.request.audit.cacheDir.empty()
                                          ? core::FactExtractor::defaultCacheDir()
                                          : out.request.audit.cacheDir);
        extractor.setMaxFileBytes(out.config.testFileMaxBytes);
        extractor.setStartTimeout(core::Config::milliseconds(out.config.timeoutProbe));
        auto index = std::make_shared<core::TestIndex>(
            core::TestIndex::build(repo, head, out.ledgers.referencedTests(), extractor));
        ctx.testExistsAtHead = [index](const std::string &id) { return index->contains(id); };
    } catch (const core::Error &e) {
        core::LedgerProblem p;
        p.file = display;
        p.rule = "lookup";
        p.message =
            std::string("substitutes and witnesses were not looked up at head: ") + e.what();
        out.ledgerProblems.push_back(std::move(p));
    }
    std::vector<core::LedgerProblem> problems = core::LedgerValidator(ctx).check(out.ledgers);
    out.ledgerProblems.insert(out.ledgerProblems.end(), problems.begin(), problems.end());
}

} // namespace

std::vector<core::RunRecordFile> readRunRecords(const QString &ledgerDir,
                                                const QString &ledgerPrefix)
{
    const QString shown = ledgerPrefix.isEmpty() ? ledgerDir + QLatin1Char('/') : ledgerPrefix;
    const QString runs = QLatin1String(core::AttributionRecord::kRunsDir);
    return core::readRunRecords(QDir(ledgerDir).filePath(runs).toStdString(),
                                QString(shown + runs + QLatin1Char('/')).toStdString());
}

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
        const core::Revision head =
            repo.resolveHead(out.report.head.rev, base, out.config.patchMaxBytes);
        out.diff = repo.diff(base, head, request.diff);
        loadLedgers(repo, head, out);
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
