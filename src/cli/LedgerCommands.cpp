#include "LedgerCommands.h"

#include "Cli.h"
#include "CliSupport.h"
#include "audit/ReviewTarget.h"
#include "execution/RunEnvironment.h"
#include "ledger/Config.h"
#include "ledger/EvidenceFiles.h"
#include "ledger/LedgerActions.h"
#include "ledger/LedgerDate.h"
#include "ledger/LedgerHistory.h"
#include "ledger/LedgerLocation.h"
#include "ledger/LedgerStore.h"
#include "ledger/LedgerValidator.h"
#include "ledger/RunEvidence.h"
#include "python/FactExtractor.h"
#include "python/TestsAtRevision.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace pw::cli {
namespace {

using pw::core::Error;

// Options every ledger command shares.
struct Common
{
    QCommandLineOption repo = option("repo", "Repository (or a directory inside it).", "path", ".");
    QCommandLineOption ledgerDir =
        option("ledger-dir",
               "Ledger directory, relative to the repository root or absolute (default "
               ".patchwitness).",
               "dir", ".patchwitness");
    QCommandLineOption today =
        option("today", "Judge dates as if today were DATE (YYYY-MM-DD; default: today).", "date");
    QCommandLineOption head = option("head",
                                     "Revision in whose tests substitutes and witnesses must "
                                     "exist (default: WORKTREE when dirty, else HEAD).",
                                     "rev");
    QCommandLineOption python =
        option("python", "Python interpreter (overrides config `python`).", "path");
    QCommandLineOption cacheDir = option("cache-dir", "Fact cache directory.", "dir");

    void addTo(QCommandLineParser &p) const
    {
        p.addOptions({repo, ledgerDir, today, head, python, cacheDir});
    }
};

// The repository, its ledger directory on disk and the ledger directory's configuration.
struct Workspace
{
    core::Repository repo;
    std::string dir;    // absolute ledger directory
    std::string prefix; // repository-relative "<dir>/", empty when outside the repository
    core::Config config;
    QDate today;
    std::string cacheDir;

    std::string path(const std::string &name) const
    {
        return QDir(QString::fromStdString(dir))
            .filePath(QString::fromStdString(name))
            .toStdString();
    }
};

QDate parseDate(const QString &text, const std::string &what)
{
    const std::optional<QDate> d = parseDay(text);
    if (!d)
        throw Error::input(what + ": \"" + text.toStdString() + "\" is not a date (YYYY-MM-DD)");
    return *d;
}

// `command` reads or writes the ledger directory on disk (everything but `ledger history`):
// a bare repository has none unless --ledger-dir names one, and the current directory is not
// one.
Workspace openWorkspace(const QCommandLineParser &p, const Common &c, const char *command)
{
    core::Repository repo = core::Repository::open(p.value(c.repo).toStdString());
    const core::LedgerLocation where =
        core::LedgerLocation::resolve(repo.workdir(), p.value(c.ledgerDir).toStdString());
    if (command && !where.onDisk())
        throw Error::input(repo.gitDir() + " is a bare repository: " + command +
                           " reads and writes the ledger directory of a work tree; run it in a "
                           "clone, or name a directory with --ledger-dir /absolute/path");
    core::Config config =
        where.onDisk() ? core::Config::load(where.path("config.toml")) : core::Config{};
    if (p.isSet(c.python))
        config.python = p.value(c.python).toStdString();
    const QDate today =
        p.isSet(c.today) ? parseDate(p.value(c.today), "--today") : QDate::currentDate();
    std::string cacheDir = p.value(c.cacheDir).toStdString();
    if (cacheDir.empty())
        cacheDir = core::FactExtractor::defaultCacheDir();
    return {std::move(repo), where.dir, where.prefix, std::move(config), today, cacheDir};
}

// Validation context with head lookups of `testIds` (only their files are read).
core::ValidationContext context(const Workspace &ws, const QCommandLineParser &p, const Common &c,
                                const std::vector<std::string> &testIds,
                                core::Revision *headOut = nullptr)
{
    const core::Revision head =
        p.isSet(c.head) ? ws.repo.resolve(p.value(c.head).toStdString()) : ws.repo.defaultHead();
    core::FactExtractor extractor = core::extractorFor(ws.config, ws.cacheDir);
    auto index = std::make_shared<core::TestsAtRevision>(
        core::TestsAtRevision::read(ws.repo, head, testIds, extractor));
    core::ValidationContext ctx = core::validationContext(ws.config, ws.today);
    ctx.testExistsAtHead = [index](const std::string &id) { return index->listed(id); };
    ctx.pathExistsAtHead =
        core::pathLookup(std::make_shared<const std::set<std::string>>(ws.repo.pathsAt(head)));
    if (headOut)
        *headOut = head;
    return ctx;
}

// Parses the command line; returns an exit code when the command is done (help, error).
std::optional<int> parse(QCommandLineParser &p, const QString &command, const QStringList &args,
                         FILE *out, FILE *err)
{
    p.addHelpOption();
    return parseCommandLine(p, command, args, out, err, command + QStringLiteral(": "));
}

std::optional<int> requireBy(const QCommandLineParser &p, const QCommandLineOption &by,
                             const QString &command, FILE *err)
{
    if (p.value(by).trimmed().isEmpty())
        return usageError(err, command + QStringLiteral(": --by NAME is required (this is a human "
                                                        "decision, recorded with its author)"));
    return std::nullopt;
}

std::optional<std::string> stringOption(const QCommandLineParser &p, const QCommandLineOption &o)
{
    if (!p.isSet(o))
        return std::nullopt;
    return p.value(o).toStdString();
}

std::optional<long long> integerOption(const QCommandLineParser &p, const QCommandLineOption &o)
{
    if (!p.isSet(o))
        return std::nullopt;
    bool ok = false;
    const long long v = p.value(o).toLongLong(&ok);
    if (!ok)
        throw Error::input("--" + o.names().constFirst().toStdString() + ": \"" +
                           p.value(o).toStdString() + "\" is not an integer");
    return v;
}

QStringList listOption(const QCommandLineParser &p, const QCommandLineOption &o)
{
    QStringList items;
    for (const QString &value : p.values(o)) {
        for (const QString &item : value.split(QLatin1Char(','), Qt::SkipEmptyParts))
            items << item.trimmed();
    }
    return items;
}

// ledger check ---------------------------------------------------------------------------

nlohmann::json problemJson(const core::LedgerProblem &p)
{
    return {{"file", p.file},   {"line", p.line}, {"column", p.column},  {"entry", p.entry},
            {"field", p.field}, {"rule", p.rule}, {"message", p.message}};
}

// The commands that back a freeze granted without evidence files: a fresh attribution at
// its witness seed on its baseline, then --attach.
std::string backingCommand(const core::QuarantineEntry &e)
{
    const std::string test = core::shellQuote(*e.test);
    return "patchwitness-cli attribute " + test + " --base " +
           e.baselineSha.value_or("<baseline sha>") + " --seed " +
           (e.witnessSeed ? std::to_string(*e.witnessSeed) : std::string("<witness seed>")) +
           " && patchwitness-cli freeze " + test + " --attach --by <you>";
}

int ledgerCheck(const QStringList &args, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Validates every ledger of the ledger directory on disk (waivers, freezes, the seed "
        "journal, fixture notes, as the audit reads them). Exit 0 when all "
        "hold up, 1 when any entry has a problem, 3 on an input error."));
    Common c;
    c.addTo(p);
    const QCommandLineOption base =
        option("base",
               "Also check the patch base..head: guarded files it edits while a freeze "
               "is active, open journal rows it deletes.",
               "rev");
    const QCommandLineOption format = option("format", "text or json.", "format", "text");
    p.addOptions({base, format});
    if (std::optional<int> done = parse(p, QStringLiteral("ledger check"), args, out, err))
        return *done;
    if (std::optional<int> done = refusePositionals(p, QStringLiteral("ledger check"), err))
        return *done;
    if (std::optional<int> done = requireTextOrJson(p, format, QStringLiteral("ledger check"), err))
        return *done;

    const Workspace ws = openWorkspace(p, c, "ledger check");
    const core::LedgerSet set = core::LedgerSet::loadDirectory(ws.dir);
    core::Revision head;
    core::ValidationContext ctx = context(ws, p, c, set.referencedTests(), &head);
    std::optional<core::SeedJournal> journalBefore;
    if (p.isSet(base)) {
        const core::Revision b = ws.repo.resolve(p.value(base).toStdString());
        core::DiffOptions options;
        options.contextLines = 0;
        options.intraline = false;
        for (const core::FileDiff &f : ws.repo.diff(b, head, options).files) {
            if (!f.oldPath.empty())
                ctx.patchedFiles.insert(f.oldPath);
            if (!f.newPath.empty())
                ctx.patchedFiles.insert(f.newPath);
        }
        const std::string journalPath = ws.prefix + core::SeedJournal::kFileName;
        if (!ws.prefix.empty() && ws.repo.entry(b, journalPath)) {
            try {
                journalBefore = core::SeedJournal::parse(ws.repo.readFile(b, journalPath),
                                                         b.spec + ":" + journalPath);
            } catch (const Error &e) {
                printText(err, std::string("warning: ") + e.what() +
                                   " (open rows at the base are not checked)\n");
            }
        }
        if (journalBefore)
            ctx.journalBefore = &*journalBefore;
    }
    ctx.readLedgerFile = core::EvidenceFiles::reader(ws.dir);
    const std::vector<core::LedgerProblem> problems = core::LedgerValidator(ctx).check(set);
    // Freezes granted before evidence/ existed: no problem of theirs, but each is named
    // with the commands that back it.
    std::vector<std::pair<const core::QuarantineEntry *, std::string>> unbacked;
    if (set.quarantine)
        for (const core::QuarantineEntry &e : set.quarantine->entries)
            if (e.test && !(e.evidence && e.evidence->record))
                unbacked.emplace_back(&e, backingCommand(e));

    if (p.value(format) == QLatin1String("json")) {
        nlohmann::json doc = {{"schema", "patchwitness.ledger-check/1"},
                              {"ledger_dir", ws.dir},
                              {"today", core::ledgerDateText(ws.today)},
                              {"ok", problems.empty()},
                              {"problems", nlohmann::json::array()}};
        for (const core::LedgerProblem &pr : problems)
            doc["problems"].push_back(problemJson(pr));
        doc["unbacked"] = nlohmann::json::array();
        for (const auto &[e, command] : unbacked)
            doc["unbacked"].push_back(
                {{"test", *e->test}, {"line", e->info.line}, {"command", command}});
        printText(out, doc.dump(2) + "\n");
    } else {
        for (const core::LedgerProblem &pr : problems)
            printText(out, pr.toString() + " [" + pr.rule + "]\n");
        for (const auto &[e, command] : unbacked)
            printText(out, set.quarantine->file + ":" + std::to_string(e->info.line) + ": " +
                               *e->test +
                               ": note: no evidence file (granted before evidence/): back it "
                               "with\n    " +
                               command + "\n");
        const size_t freezes = set.quarantine ? set.quarantine->entries.size() : 0;
        const size_t waivers = set.waivers ? set.waivers->entries.size() : 0;
        const size_t rows = set.journal ? set.journal->rows.size() : 0;
        const std::string counts = std::to_string(freezes) + " freeze(s), " +
                                   std::to_string(waivers) + " waiver(s), " + std::to_string(rows) +
                                   " journal row(s)";
        printText(out, problems.empty() ? "ledger check: OK (" + counts + ")\n"
                                        : "ledger check: " + std::to_string(problems.size()) +
                                              " problem(s) in " + counts + "\n");
    }
    return problems.empty() ? ExitPass : ExitBlock;
}

// ledger history ---------------------------------------------------------------------------

int ledgerHistory(const QStringList &args, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Per-entry events (added, renewed, edited, expired, removed) of the ledger files "
        "across the commits that changed them, oldest first. TEST keeps one entry's events."));
    Common c;
    c.addTo(p);
    const QCommandLineOption rev =
        option("rev", "Walk the history from this revision.", "rev", "HEAD");
    const QCommandLineOption file =
        option("file", "Only this ledger file (e.g. quarantine.toml).", "name");
    const QCommandLineOption format = option("format", "text or json.", "format", "text");
    p.addOptions({rev, file, format});
    p.addPositionalArgument(QStringLiteral("TEST"), QStringLiteral("Entry id (test, node, row)."),
                            QStringLiteral("[TEST]"));
    if (std::optional<int> done = parse(p, QStringLiteral("ledger history"), args, out, err))
        return *done;
    if (p.positionalArguments().size() > 1)
        return usageError(err, QStringLiteral("ledger history: one TEST at most"));
    if (std::optional<int> done =
            requireTextOrJson(p, format, QStringLiteral("ledger history"), err))
        return *done;

    const Workspace ws = openWorkspace(p, c, nullptr);
    if (ws.prefix.empty())
        throw Error::input(ws.dir + " is outside the repository: its ledgers have no git history");
    // The commits are all it reads: a bare repository (a mirror) is opened by its git dir.
    const std::string historyRoot = ws.repo.isBare() ? ws.repo.gitDir() : ws.repo.workdir();
    std::vector<core::LedgerEvent> events =
        p.isSet(file)
            ? core::LedgerHistory::of(historyRoot, ws.prefix + p.value(file).toStdString(),
                                      ws.today, p.value(rev).toStdString())
            : core::LedgerHistory::ofDirectory(historyRoot, ws.prefix, ws.today,
                                               p.value(rev).toStdString());
    if (!p.positionalArguments().isEmpty())
        events = core::LedgerHistory::forEntry(events,
                                               p.positionalArguments().constFirst().toStdString());

    if (p.value(format) == QLatin1String("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const core::LedgerEvent &e : events) {
            list.push_back({{"event", core::ledgerEventName(e.kind)},
                            {"file", e.file},
                            {"entry", e.entry},
                            {"commit", e.commit},
                            {"author", e.author},
                            {"time", e.time},
                            {"detail", e.detail}});
        }
        printText(out,
                  nlohmann::json({{"schema", "patchwitness.ledger-history/1"}, {"events", list}})
                          .dump(2) +
                      "\n");
        return ExitPass;
    }
    for (const core::LedgerEvent &e : events) {
        const std::string day =
            core::ledgerDateText(QDateTime::fromSecsSinceEpoch(e.time, Qt::UTC).date());
        std::string line = day + "  " + core::ledgerEventName(e.kind) + "  " + e.file + "  " +
                           (e.entry.empty() ? "-" : e.entry) + "  " + e.commit.substr(0, 10) +
                           "  " + e.author;
        if (!e.detail.empty())
            line += "  (" + e.detail + ")";
        printText(out, line + "\n");
    }
    if (events.empty())
        printText(err, "ledger history: no events\n");
    return ExitPass;
}

// The record `--from-run FILE` names (relative to the ledger directory): an attribution
// record of `test`, or a matrix record with a row for it.
core::AttributionRecord fromRunRecord(const Workspace &ws, const QString &fromRun,
                                      const std::string &test)
{
    const std::string path =
        QDir::cleanPath(QDir(QString::fromStdString(ws.dir)).absoluteFilePath(fromRun))
            .toStdString();
    const std::optional<std::string> text = core::readWholeFile(path);
    if (!text)
        throw Error::input("--from-run: " + path + ": cannot read the file");
    // An attribution record, or a seed matrix's record with a row for the test.
    return core::AttributionRecord::evidenceFor(*text, path, test);
}

// The copies a freeze wrote, one line each.
void reportEvidence(FILE *out, const Workspace &ws, const std::vector<core::EvidenceCopy> &copies)
{
    for (const core::EvidenceCopy &copy : copies)
        printText(out, "evidence " + copy.path + " (sha256 " + copy.sha256.substr(0, 12) + "…" +
                           (copy.present ? ", already there"
                                         : ", copied from " + relativeTo(ws.dir, copy.source)) +
                           ")\n");
}

// freeze --attach: an existing freeze pinned to the record that backs it.
int attachEvidence(const Workspace &ws, const QCommandLineParser &p, const Common &c,
                   const std::string &test, const QString &fromRun, FILE *out)
{
    std::optional<core::AttributionRecord> chosen;
    if (!fromRun.isEmpty())
        chosen = fromRunRecord(ws, fromRun, test);
    const core::FreezeCase evidence =
        core::FreezeCase::gather(ws.path(core::AttributionRecord::kRunsDir), test, chosen);
    core::QuarantineEntry pins;
    const std::vector<core::EvidenceCopy> copies =
        core::EvidenceFiles::planFor(ws.dir, evidence, pins);
    core::ValidationContext ctx = context(ws, p, c, {});
    ctx.readLedgerFile = core::EvidenceFiles::reader(ws.dir, copies);
    const core::LedgerActions actions{core::LedgerValidator(std::move(ctx))};
    core::LedgerStore store =
        core::LedgerStore::openForUpdate(ws.path(core::QuarantineLedger::kFileName));
    const std::string text = actions.attachEvidence(store.loaded(), store.path(), test, evidence,
                                                    pins.evidence.value_or(core::FreezeEvidence()));
    core::EvidenceFiles::writeBefore(ws.dir, copies, [&] { store.write(text); });
    reportEvidence(out, ws, copies);
    printText(out, "backed the freeze of " + test + " with " +
                       relativeTo(ws.dir, evidence.attribution()->file) + " (" + store.path() +
                       ")\n");
    return ExitPass;
}

// The text an action added or changed, for the user to see what was written.
void reportWrite(FILE *out, const std::string &what, const std::string &path,
                 const std::string &block)
{
    printText(out, what + " (" + path + ")\n" + block);
    if (!block.empty() && block.back() != '\n')
        printText(out, "\n");
}

} // namespace

int ledgerCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    const QString sub = arguments.isEmpty() ? QString() : arguments.constFirst();
    if (sub == QLatin1String("check"))
        return ledgerCheck(arguments.mid(1), out, err);
    if (sub == QLatin1String("history"))
        return ledgerHistory(arguments.mid(1), out, err);
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h")) {
        printText(out, "usage: patchwitness-cli ledger check|history [options]\n");
        return ExitPass;
    }
    return usageError(err,
                      QStringLiteral("ledger: expected 'check' or 'history'%1")
                          .arg(sub.isEmpty() ? QString() : QStringLiteral(", got '%1'").arg(sub)));
}

int waiveCommand(const QStringList &args, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Approves a census waiver for a removed test NODE (census_waiver.toml), refusing one "
        "that would not validate."));
    Common c;
    c.addTo(p);
    const QCommandLineOption reason =
        option("reason", "obsolete-behavior, duplicate-coverage or environment.", "reason");
    const QCommandLineOption witness =
        option("witness", "Test at head that covers the behaviour now.", "test");
    const QCommandLineOption by = option("by", "Who approves (required).", "name");
    const QCommandLineOption note = option("note", "Free text kept with the entry.", "text");
    const QCommandLineOption base =
        option("base", "Revision whose tests NODE must be one of (the review's base).", "rev");
    p.addOptions({reason, witness, by, note, base});
    p.addPositionalArgument(QStringLiteral("NODE"), QStringLiteral("The removed test node."));
    if (std::optional<int> done = parse(p, QStringLiteral("waive"), args, out, err))
        return *done;
    if (p.positionalArguments().size() != 1)
        return usageError(err, QStringLiteral("waive: expected exactly one NODE"));
    if (std::optional<int> done = requireBy(p, by, QStringLiteral("waive"), err))
        return *done;

    const Workspace ws = openWorkspace(p, c, "waive");
    core::WaiverEntry entry;
    entry.node = p.positionalArguments().constFirst().toStdString();
    entry.reason = stringOption(p, reason);
    entry.witness = stringOption(p, witness);
    entry.approvedBy = p.value(by).toStdString();
    entry.note = stringOption(p, note);
    std::vector<std::string> ids;
    if (entry.witness)
        ids.push_back(*entry.witness);
    core::ValidationContext ctx = context(ws, p, c, ids);
    if (p.isSet(base)) {
        // Answered here, while the extractor lives: the one node the entry names.
        const core::Revision at = ws.repo.resolve(p.value(base).toStdString());
        core::FactExtractor extractor = core::extractorFor(ws.config, ws.cacheDir);
        core::TestsAtRevision index(ws.repo, at, extractor);
        const std::string node = *entry.node;
        const std::string file = core::TestsAtRevision::fileOf(node);
        const core::TestsAtRevision::FileTests &tests = index.load(file);
        bool had = false;
        for (const std::string &id : tests.ids) // a file node: any test of it
            had = had || node.find("::") == std::string::npos ||
                  id == file + "::" + core::TestsAtRevision::nameOf(node);
        const std::string problem = had ? std::string() : tests.problem;
        ctx.testExistedAtBase = [node, had, problem](const std::string &id) {
            if (id != node)
                throw Error::harness("only " + node + " was looked up at base");
            if (!problem.empty())
                throw Error::harness(problem);
            return had;
        };
    }
    const core::LedgerActions actions{core::LedgerValidator(std::move(ctx))};
    core::LedgerStore store =
        core::LedgerStore::openForUpdate(ws.path(core::WaiverLedger::kFileName));
    const std::string text = actions.waive(store.loaded(), store.path(), entry);
    store.write(text);
    entry.approvedOn = ws.today;
    reportWrite(out, "approved waiver for " + *entry.node, store.path(),
                core::WaiverLedger::format(entry));
    return ExitPass;
}

int freezeCommand(const QStringList &args, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Grants a freeze (quarantine.toml) for TEST, refusing one that would not validate "
        "(every field required, verdict PRE_EXISTING, expiry within "
        "freeze_max_days, a substitute that exists at head)."));
    Common c;
    c.addTo(p);
    const QCommandLineOption owner = option("owner", "Who fixes the test.", "name");
    const QCommandLineOption opened = option("opened", "Opening day (default: today).", "date");
    const QCommandLineOption expires = option("expires", "Expiry day (YYYY-MM-DD).", "date");
    const QCommandLineOption verdict =
        option("verdict", "Attribution verdict (default PRE_EXISTING).", "verdict");
    const QCommandLineOption attribution =
        option("attribution", "solo, order, isolate, clock, ...", "cell");
    const QCommandLineOption witnessSeed = option("witness-seed", "The failing seed.", "seed");
    const QCommandLineOption baselineSha =
        option("baseline-sha", "Base commit the failure reproduces on.", "sha");
    const QCommandLineOption baseFail = option("base-fail", "Failures on base.", "n");
    const QCommandLineOption headFail = option("head-fail", "Failures on head.", "n");
    const QCommandLineOption mode = option("mode", "matched or swept.", "mode");
    const QCommandLineOption seeds = option("seeds", "Seeds run (comma-separated).", "list");
    const QCommandLineOption envDigest = option("env-digest", "Env digest of the runs.", "digest");
    const QCommandLineOption obligation =
        option("obligation", "The behaviour the fix must restore (a sentence).", "text");
    const QCommandLineOption substitute =
        option("substitute", "Test that exists and passes meanwhile.", "test");
    const QCommandLineOption guards =
        option("guards", "Guarded files (comma-separated or repeated).", "files");
    const QCommandLineOption replay = option("replay", "Command that reproduces it.", "command");
    const QCommandLineOption lastReproduced =
        option("last-reproduced", "Day of the last reproduction.", "date");
    const QCommandLineOption note = option("note", "Free text kept with the entry.", "text");
    const QCommandLineOption by = option("by", "Who grants it (required).", "name");
    const QCommandLineOption fromRun =
        option("from-run",
               "Attribution record (runs/*.json, relative to the ledger directory) that fills "
               "the evidence fields not given here (default: the newest record for TEST in "
               "<ledger dir>/runs/, if any). The attribution comes from the newest cells "
               "record; a record whose verdict is not PRE_EXISTING, a newer one that says "
               "otherwise, or cells that say broken test (solo) refuse the freeze.",
               "file");
    const QCommandLineOption attach(
        QStringLiteral("attach"),
        QStringLiteral("Back the existing freeze of TEST, granted before evidence/ existed, "
                       "with its record (--from-run, else the test's newest in runs/): the "
                       "record is copied into evidence/ and the entry pinned to it, refused "
                       "when the record does not back the freeze or the entry contradicts it "
                       "(`ledger check` prints the command for each such freeze)."));
    p.addOptions({owner,       opened,     expires,  verdict, attribution,    witnessSeed,
                  baselineSha, baseFail,   headFail, mode,    seeds,          envDigest,
                  obligation,  substitute, guards,   replay,  lastReproduced, note,
                  by,          fromRun,    attach});
    p.addPositionalArgument(QStringLiteral("TEST"), QStringLiteral("The test to freeze."));
    if (std::optional<int> done = parse(p, QStringLiteral("freeze"), args, out, err))
        return *done;
    if (p.positionalArguments().size() != 1)
        return usageError(err, QStringLiteral("freeze: expected exactly one TEST"));
    if (std::optional<int> done = requireBy(p, by, QStringLiteral("freeze"), err))
        return *done;
    if (p.isSet(fromRun) && p.value(fromRun).trimmed().isEmpty())
        return usageError(err, QStringLiteral("freeze: --from-run needs a FILE"));

    const Workspace ws = openWorkspace(p, c, "freeze");
    if (p.isSet(attach))
        return attachEvidence(ws, p, c, p.positionalArguments().constFirst().toStdString(),
                              p.isSet(fromRun) ? p.value(fromRun) : QString(), out);
    core::QuarantineEntry e;
    e.test = p.positionalArguments().constFirst().toStdString();
    e.owner = stringOption(p, owner);
    if (p.isSet(opened))
        e.opened = parseDate(p.value(opened), "--opened");
    if (p.isSet(expires))
        e.expires = parseDate(p.value(expires), "--expires");
    e.verdict = stringOption(p, verdict);
    e.attribution = stringOption(p, attribution);
    e.witnessSeed = integerOption(p, witnessSeed);
    e.baselineSha = stringOption(p, baselineSha);
    core::FreezeEvidence ev;
    ev.baseFail = integerOption(p, baseFail);
    ev.headFail = integerOption(p, headFail);
    ev.mode = stringOption(p, mode);
    if (p.isSet(seeds)) {
        std::vector<long long> list;
        for (const QString &s : listOption(p, seeds)) {
            bool ok = false;
            list.push_back(s.toLongLong(&ok));
            if (!ok)
                throw Error::input("--seeds: \"" + s.toStdString() + "\" is not an integer");
        }
        ev.seeds = std::move(list);
    }
    ev.envDigest = stringOption(p, envDigest);
    if (ev.baseFail || ev.headFail || ev.mode || ev.seeds || ev.envDigest)
        e.evidence = std::move(ev);
    e.obligation = stringOption(p, obligation);
    e.substitute = stringOption(p, substitute);
    if (p.isSet(guards)) {
        std::vector<std::string> list;
        for (const QString &g : listOption(p, guards))
            list.push_back(g.toStdString());
        e.guards = std::move(list);
    }
    e.replay = stringOption(p, replay);
    if (p.isSet(lastReproduced))
        e.lastReproduced = parseDate(p.value(lastReproduced), "--last-reproduced");
    e.note = stringOption(p, note);
    e.grantedBy = p.value(by).toStdString();
    // The freeze rule on the records of runs/ (FreezeCase): the attribution record given,
    // else the test's newest, and its newest cells record. Values given here win; the
    // records fill only what is missing — but what the rule refuses stays refused.
    std::optional<core::AttributionRecord> chosen;
    if (p.isSet(fromRun))
        chosen = fromRunRecord(ws, p.value(fromRun), *e.test);
    const core::FreezeCase evidence =
        core::FreezeCase::gather(ws.path(core::AttributionRecord::kRunsDir), *e.test, chosen);
    evidence.fill(e);
    if (evidence.attribution())
        printText(out, "evidence from " + relativeTo(ws.dir, evidence.attribution()->file) + "\n");
    if (evidence.cells())
        printText(out, "cells from " + relativeTo(ws.dir, evidence.cells()->file) + " (" +
                           (evidence.cells()->attribution.empty() ? std::string("no attribution")
                                                                  : evidence.cells()->attribution) +
                           ")\n");
    std::vector<std::string> ids;
    if (e.substitute)
        ids.push_back(*e.substitute);
    // The records are copied into the tracked evidence/ and the entry pins them; validation
    // reads them as they will be written.
    const std::vector<core::EvidenceCopy> copies =
        core::EvidenceFiles::planFor(ws.dir, evidence, e);

    core::ValidationContext ctx = context(ws, p, c, ids);
    ctx.readLedgerFile = core::EvidenceFiles::reader(ws.dir, copies);
    const core::LedgerActions actions{core::LedgerValidator(std::move(ctx))};
    core::LedgerStore store =
        core::LedgerStore::openForUpdate(ws.path(core::QuarantineLedger::kFileName));
    const std::string text = actions.freeze(store.loaded(), store.path(), e, &evidence);
    // Under the ledger directory's lock: the evidence first.
    core::EvidenceFiles::writeBefore(ws.dir, copies, [&] { store.write(text); });
    reportEvidence(out, ws, copies);
    if (!e.opened)
        e.opened = ws.today;
    if (!e.verdict)
        e.verdict = "PRE_EXISTING";
    reportWrite(out, "granted freeze for " + *e.test, store.path(),
                core::QuarantineLedger::format(e));
    return ExitPass;
}

int renewCommand(const QStringList &args, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Renews the freeze of TEST in place: a new expiry within freeze_max_days of today, "
        "after a reproduction within renewal_recency_days."));
    Common c;
    c.addTo(p);
    const QCommandLineOption lastReproduced =
        option("last-reproduced", "Day the failure was last reproduced (required).", "date");
    const QCommandLineOption expires = option("expires", "New expiry day (required).", "date");
    const QCommandLineOption by = option("by", "Who renews it (required).", "name");
    p.addOptions({lastReproduced, expires, by});
    p.addPositionalArgument(QStringLiteral("TEST"), QStringLiteral("The frozen test."));
    if (std::optional<int> done = parse(p, QStringLiteral("renew"), args, out, err))
        return *done;
    if (p.positionalArguments().size() != 1)
        return usageError(err, QStringLiteral("renew: expected exactly one TEST"));
    if (std::optional<int> done = requireBy(p, by, QStringLiteral("renew"), err))
        return *done;
    if (!p.isSet(lastReproduced) || !p.isSet(expires))
        return usageError(err, QStringLiteral("renew: --last-reproduced DATE and --expires DATE "
                                              "are required (a renewal rests on a recent "
                                              "reproduction)"));

    const Workspace ws = openWorkspace(p, c, "renew");
    const std::string test = p.positionalArguments().constFirst().toStdString();
    const QDate reproduced = parseDate(p.value(lastReproduced), "--last-reproduced");
    const QDate until = parseDate(p.value(expires), "--expires");
    core::LedgerStore store =
        core::LedgerStore::openForUpdate(ws.path(core::QuarantineLedger::kFileName));
    std::vector<std::string> ids;
    if (store.existed()) {
        const core::QuarantineLedger ledger =
            core::QuarantineLedger::parse(store.loaded(), store.path());
        if (const core::QuarantineEntry *e = ledger.find(test); e && e->substitute)
            ids.push_back(*e->substitute);
    }
    const core::LedgerActions actions{core::LedgerValidator(context(ws, p, c, ids))};
    const std::string text = actions.renew(store.loaded(), store.path(), test, reproduced, until,
                                           p.value(by).toStdString());
    store.write(text);
    printText(out, "renewed freeze for " + test + " until " + core::ledgerDateText(until) + " (" +
                       store.path() + ")\n");
    return ExitPass;
}

int journalCommand(const QStringList &args, FILE *out, FILE *err)
{
    if (args.isEmpty() || args.constFirst() != QLatin1String("close"))
        return usageError(err, QStringLiteral("journal: expected 'close ID --by NAME'"));
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Closes seed journal row ID (seed_journal.jsonl), refusing unless the row records two "
        "consecutive passing replays on its env digest."));
    Common c;
    c.addTo(p);
    const QCommandLineOption by = option("by", "Who closes it (required).", "name");
    p.addOptions({by});
    p.addPositionalArgument(QStringLiteral("ID"), QStringLiteral("The journal row."));
    if (std::optional<int> done = parse(p, QStringLiteral("journal close"), args.mid(1), out, err))
        return *done;
    if (p.positionalArguments().size() != 1)
        return usageError(err, QStringLiteral("journal close: expected exactly one ID"));
    if (std::optional<int> done = requireBy(p, by, QStringLiteral("journal close"), err))
        return *done;

    const Workspace ws = openWorkspace(p, c, "journal close");
    const std::string id = p.positionalArguments().constFirst().toStdString();
    const core::LedgerActions actions{
        core::LedgerValidator(core::validationContext(ws.config, ws.today))};
    core::LedgerStore store =
        core::LedgerStore::openForUpdate(ws.path(core::SeedJournal::kFileName));
    const std::string text =
        actions.closeJournalRow(store.loaded(), store.path(), id, p.value(by).toStdString());
    store.write(text);
    printText(out, "closed journal row " + id + " (" + store.path() + ")\n");
    return ExitPass;
}

} // namespace pw::cli
