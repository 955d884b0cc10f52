#include "AuditRunner.h"

#include "ledger/EvidenceFiles.h"
#include "ledger/LedgerDate.h"
#include "ledger/LedgerSnapshot.h"
#include "ledger/LedgerValidator.h"
#include "ledger/RunEvidence.h"
#include "python/FactExtractor.h"
#include "python/TestsAtRevision.h"
#include "repo/Codeowners.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCoreApplication>
#include <QDir>
#include <algorithm>
#include <map>

namespace pw::gui {
namespace {

// The entries of the ledger files on disk that the base revision's files lack or word
// otherwise (what a reviewer wrote and has not committed there yet): the gate counts the
// base's ledgers, so these answer no finding until they are on the base. A directory
// outside the repository is what the gate reads: all of it counts.
void markEntriesNotOnBase(const core::PreparedReview &review,
                          const std::map<std::string, std::string> &onDisk, AuditOutcome &out)
{
    const core::LedgerLocation &where = review.target().ledgers;
    const core::Revision &base = review.target().base;
    if (!where.onDisk() || where.prefix.empty())
        return;
    out.countedLedgers =
        base.commit.empty()
            ? QCoreApplication::translate("AuditRunner", "the base (no commits yet)")
            : QCoreApplication::translate("AuditRunner", "the base, %1 (%2)")
                  .arg(QString::fromStdString(base.spec),
                       QString::fromStdString(base.commit.substr(0, 7)));
    for (const auto &[name, text] : onDisk) {
        const std::string path = where.prefix + name;
        try {
            const core::LedgerSnapshot disk = core::LedgerSnapshot::parse(name, text, path);
            core::LedgerSnapshot atBase;
            atBase.file = name;
            if (!base.commit.empty() && review.repo().entry(base, path))
                atBase =
                    core::LedgerSnapshot::parse(name, review.repo().readFile(base, path), path);
            for (const core::EntryChange &c : core::compareSnapshots(atBase, disk)) {
                if (c.kind != core::EntryChange::Kind::Removed)
                    out.entriesNotOnBase.emplace(std::pair(path, c.id),
                                                 c.kind == core::EntryChange::Kind::Added);
            }
        } catch (const core::Error &e) {
            if (e.kind() == core::Error::Kind::Interrupted)
                throw;
            // A side that does not parse: its load problem says so.
        }
    }
}

// The ledgers on disk, named as in the repository (".patchwitness/quarantine.toml"), and
// their problems. A ledger that cannot be judged is a problem, never a failed audit.
void loadLedgers(const core::PreparedReview &review, AuditOutcome &out)
{
    const core::LedgerLocation &where = review.target().ledgers;
    const QString dir = QString::fromStdString(where.dir);
    out.ledgerDir = dir;
    out.ledgerPrefix = QString::fromStdString(where.prefix);
    const std::string display = where.display();
    // A file that is there but cannot be read is a problem of its own, never an absent
    // (empty) ledger.
    std::vector<core::LedgerProblem> unreadable;
    std::map<std::string, std::string> onDisk; // file name → text, compared with the base's
    out.ledgers = core::LedgerSet::load(
        [&](const std::string &name) -> std::optional<std::string> {
            if (!where.onDisk()) {
                // A bare repository: the ledgers are the head revision's (no work tree
                // holds others, and the current directory is not one).
                const std::string path = where.prefix + name;
                if (where.prefix.empty() || !review.repo().entry(review.head(), path))
                    return std::nullopt;
                return review.repo().readFile(review.head(), path);
            }
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
            onDisk[name] = read.bytes;
            return std::move(read.bytes);
        },
        display);
    markEntriesNotOnBase(review, onDisk, out);
    out.ledgers.loadProblems.insert(out.ledgers.loadProblems.end(), unreadable.begin(),
                                    unreadable.end());
    if (where.onDisk()) // runs/ is scratch of a work tree: a bare repository has none
        out.runRecords = readRunRecords(out.ledgerDir, out.ledgerPrefix);
    const std::optional<QDate> today = core::parseLedgerDate(out.request.audit.today);
    out.today = today ? *today : QDate::currentDate();
    core::ValidationContext ctx = core::validationContext(out.config, out.today);
    ctx.patchedFiles = core::patchedFiles(out.report.changedFiles);
    try {
        core::FactExtractor extractor =
            core::extractorFor(out.config, review.target().cacheDir, out.request.audit.stop);
        auto index = std::make_shared<core::TestsAtRevision>(core::TestsAtRevision::read(
            review.repo(), review.head(), out.ledgers.referencedTests(), extractor));
        ctx.testExistsAtHead = [index](const std::string &id) { return index->listed(id); };
        out.headPaths =
            std::make_shared<const std::set<std::string>>(review.repo().pathsAt(review.head()));
        ctx.pathExistsAtHead = core::pathLookup(out.headPaths);
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
    // The freezes' evidence files, where the ledgers were read from.
    if (where.onDisk()) {
        ctx.readLedgerFile = core::EvidenceFiles::reader(where.dir);
    } else if (!where.prefix.empty()) {
        ctx.readLedgerFile = core::EvidenceFiles::pinnedReader(
            out.ledgers.quarantine ? &*out.ledgers.quarantine : nullptr,
            [&](const std::string &file) -> std::optional<std::string> {
                const std::string path = where.prefix + file;
                if (!review.repo().entry(review.head(), path))
                    return std::nullopt;
                return review.repo().readFile(review.head(), path);
            });
    }
    std::vector<core::LedgerProblem> problems = core::LedgerValidator(ctx).check(out.ledgers);
    out.ledgerProblems.insert(out.ledgerProblems.end(), problems.begin(), problems.end());
}

// What the ledger desk's forms will ask of head, read here so the GUI thread need not: the
// test files the findings, the patch and the ledgers name (through the fact cache, which
// the audit has just filled for most of them).
HeadTests::Files deskTests(const core::PreparedReview &review, const AuditOutcome &out,
                           const std::stop_token &stop)
{
    std::vector<std::string> files;
    for (const std::string &id : out.ledgers.referencedTests())
        files.push_back(core::TestsAtRevision::fileOf(id));
    for (const core::Finding &f : out.report.findings) {
        if (!f.test.empty())
            files.push_back(core::TestsAtRevision::fileOf(f.test));
    }
    for (const core::ChangedFile &f : out.report.changedFiles) {
        if (f.testFile && f.status != "D")
            files.push_back(f.path);
    }
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    core::FactExtractor extractor = core::extractorFor(out.config, review.target().cacheDir, stop);
    core::TestsAtRevision lookup(review.repo(), review.head(), extractor); // both outlive it
    HeadTests::Files read = HeadTests::read(lookup, files);
    if (stop.stop_requested())
        throw core::Error::interrupted("the audit was stopped");
    return read;
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
        // One repository, one resolution, one read of the config and one application of a
        // PATCH head for the audit, the diff shown beside it and the ledger checks.
        const core::PreparedReview review = core::PreparedReview::prepare(request.audit);
        out.target = review.target();
        out.config = review.config();
        out.report = core::Audit::run(review, request.audit);
        if (request.audit.stop.stop_requested())
            throw core::Error::interrupted("the audit was stopped");
        out.diff = review.repo().diff(review.base(), review.head(), request.diff);
        loadLedgers(review, out);
        out.headTests = deskTests(review, out, request.audit.stop);
        try {
            out.reviewer = QString::fromStdString(review.repo().userName()).trimmed();
        } catch (const core::Error &) {
        }
        try {
            // The base's: the patch under review must not pick its own owner.
            out.owners = core::Codeowners::load(review.repo(), review.base());
        } catch (const core::Error &) {
            // No owners to offer; the reviewer types one.
        }
        out.sandbox = core::Sandbox::status();
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
