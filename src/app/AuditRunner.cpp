#include "AuditRunner.h"

#include "ledger/LedgerDate.h"
#include "ledger/LedgerLocation.h"
#include "ledger/LedgerValidator.h"
#include "ledger/RunEvidence.h"
#include "ledger/TestIndex.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCoreApplication>
#include <QDir>

namespace pw::gui {
namespace {

// The ledgers on disk, named as in the repository (".patchwitness/quarantine.toml"), and
// their problems. A ledger that cannot be judged is a problem, never a failed audit.
void loadLedgers(const core::Repository &repo, const core::Revision &head, AuditOutcome &out)
{
    const core::LedgerLocation where =
        core::LedgerLocation::resolve(repo.workdir(), out.request.audit.ledgerDir);
    const QString dir = QString::fromStdString(where.dir);
    out.ledgerDir = dir;
    out.ledgerPrefix = QString::fromStdString(where.prefix);
    const std::string display = where.display();
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
    core::ValidationContext ctx = core::validationContext(out.config, out.today);
    ctx.patchedFiles = core::patchedFiles(out.report.changedFiles);
    try {
        core::FactExtractor extractor(out.request.audit.python.value_or(out.config.python),
                                      out.request.audit.cacheDir.empty()
                                          ? core::FactExtractor::defaultCacheDir()
                                          : out.request.audit.cacheDir);
        extractor.setMaxFileBytes(out.config.testFileMaxBytes);
        extractor.setStartTimeout(core::Config::milliseconds(out.config.timeoutProbe));
        extractor.setStopToken(out.request.audit.stop);
        auto index = std::make_shared<core::TestIndex>(
            core::TestIndex::build(repo, head, out.ledgers.referencedTests(), extractor));
        ctx.testExistsAtHead = [index](const std::string &id) { return index->contains(id); };
    } catch (const core::Error &e) {
        if (e.kind() == core::Error::Kind::Interrupted)
            throw; // stopped, not a problem of the ledgers
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

AuditRunner::AuditRunner(QObject *parent)
    : QObject(parent), m_task(
                           this, [this](AuditOutcome result) { onFinished(std::move(result)); },
                           [this] { Q_EMIT started(); })
{
}

AuditRunner::~AuditRunner() = default; // m_task waits for a running audit

AuditOutcome AuditRunner::runNow(const WorkbenchRequest &request)
{
    AuditOutcome out;
    out.request = request;
    try {
        out.report = core::Audit::run(request.audit);
        if (request.audit.stop.stop_requested())
            throw core::Error::interrupted("the audit was stopped");
        out.config = core::Audit::loadConfig(request.audit);
        const core::Repository repo = core::Repository::open(request.audit.repoPath);
        const core::Revision base = repo.resolve(*out.report.base.commit);
        const core::Revision head =
            repo.resolveHead(out.report.head.rev, base, out.config.patchMaxBytes);
        out.diff = repo.diff(base, head, request.diff);
        loadLedgers(repo, head, out);
        out.ok = true;
    } catch (const core::Error &e) {
        out.cancelled =
            e.kind() == core::Error::Kind::Interrupted && request.audit.stop.stop_requested();
        out.error = QString::fromStdString(e.what());
    } catch (const std::exception &e) {
        out.error = QStringLiteral("internal error: %1").arg(QString::fromStdString(e.what()));
    }
    // The outcome's request is what was audited, without this run's callbacks.
    out.request.audit.progress = {};
    out.request.audit.stop = {};
    return out;
}

void AuditRunner::start(const WorkbenchRequest &request)
{
    m_task.start([this, request](std::stop_token stop) {
        WorkbenchRequest asked = request;
        asked.audit.stop = std::move(stop);
        // The audit's step lines, from its thread to this one (the runner outlives it).
        asked.audit.progress = [this](const std::string &line) {
            QMetaObject::invokeMethod(
                this, [this, text = QString::fromStdString(line)] { Q_EMIT progress(text); },
                Qt::QueuedConnection);
        };
        return runNow(asked);
    });
}

void AuditRunner::cancel()
{
    m_task.cancel();
}

void AuditRunner::waitForFinished()
{
    m_task.waitForIdle();
    QCoreApplication::processEvents(); // the progress lines queued before the end
}

void AuditRunner::onFinished(AuditOutcome result)
{
    if (result.cancelled) { // the last outcome stays what the window shows
        Q_EMIT cancelled();
        return;
    }
    m_outcome = std::move(result);
    Q_EMIT finished();
}

} // namespace pw::gui
