#include "ShardCommands.h"

#include "AttributeCommands.h"
#include "Cli.h"
#include "CliSupport.h"
#include "MatrixCommands.h"
#include "RunOptions.h"
#include "dynamic/CellsRecord.h"
#include "dynamic/ShardMerge.h"
#include "ledger/LedgerDate.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Format.h"

#include <QDate>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace pw::cli {

namespace {

using nlohmann::json;

std::string shown(const std::string &repoRoot, const std::string &path)
{
    return repoRoot.empty() ? path : relativeTo(repoRoot, path);
}

std::string count(const core::ArmEvidence &arm)
{
    return std::to_string(arm.fails) + "/" + std::to_string(arm.evidence);
}

} // namespace

ShardOptions::ShardOptions()
    : shard(option("shard",
                   "Run only CI job i of n (numbered from 1, as CI matrices number them) and "
                   "write its shard ledger instead of a verdict; `merge` joins the n ledgers "
                   "(SPEC 9).",
                   "i/n")),
      out(option("out",
                 "With --shard: write the shard ledger to this file (default: into "
                 "<ledger dir>/runs/).",
                 "file"))
{
}

void ShardOptions::addTo(QCommandLineParser &p) const
{
    p.addOptions({shard, out});
}

bool ShardOptions::apply(const QCommandLineParser &p, const std::string &command, FILE *err,
                         std::optional<core::Shard> *shardOut, std::string *outPath,
                         int *exitCode) const
{
    if (p.isSet(out) && !p.isSet(shard)) {
        *exitCode =
            usageError(err, command + ": --out is the shard ledger's path: it needs --shard");
        return false;
    }
    if (!p.isSet(shard))
        return true;
    try {
        *shardOut = core::Shard::parse(p.value(shard).toStdString());
    } catch (const core::Error &e) {
        *exitCode = usageError(err, command + ": " + e.what());
        return false;
    }
    if (p.isSet(out))
        *outPath = QFileInfo(p.value(out)).absoluteFilePath().toStdString();
    return true;
}

std::string shardAttributionText(const std::string &repoRoot, const core::AttributionResult &r)
{
    const bool swept = r.mode == core::AttributionRequest::Mode::Swept;
    const std::string shard = "shard " + (r.shard ? r.shard->name() : std::string("?"));
    std::string t = "attribute " + r.test + ": " + core::modeName(r.mode) + ", " +
                    std::to_string(r.runsPerArm) + " run(s) per tree" +
                    (swept ? ", seeds 0.." + std::to_string(r.runsPerArm - 1)
                           : ", seed " + std::to_string(r.seeds.front()) + " on every run") +
                    "; " + shard + " runs " + std::to_string(r.head.runs.size()) + " pair(s)\n";
    t += "  base " + r.baseSpec +
         (r.baseCommit.empty() ? "" : " (" + core::shortId(r.baseCommit, 10) + ")") + "\n";
    t += "  head " + r.headSpec +
         (r.headCommit.empty() ? "" : " (" + core::shortId(r.headCommit, 10) + ")") + "\n\n";

    size_t width = 6;
    for (const core::ArmEvidence *arm : {&r.base, &r.head})
        for (const core::NodeRun &run : arm->runs)
            width = std::max(width, std::string(core::outcomeName(run.outcome)).size() + 2);
    t += pad(swept ? "seed" : "run", 6);
    for (const core::NodeRun &run : r.base.runs)
        t += padLeft(std::to_string(swept ? run.seed : uint32_t(run.index + 1)), width);
    t += "\n";
    for (const auto &[name, arm] :
         {std::pair<const char *, const core::ArmEvidence *>{"base", &r.base}, {"head", &r.head}}) {
        t += pad(name, 6);
        for (const core::NodeRun &run : arm->runs)
            t += padLeft(core::outcomeName(run.outcome), width);
        t += "\n";
    }
    t += "\n" + shard + " tallies: base fails " + count(r.base) + ", head fails " + count(r.head);
    if (r.base.harnessErrors + r.head.harnessErrors > 0)
        t += " (harness errors not counted: base " + std::to_string(r.base.harnessErrors) +
             ", head " + std::to_string(r.head.harnessErrors) + ")";
    if (!r.base.failingSeeds.empty() || !r.head.failingSeeds.empty())
        t += "; failing seeds base " + seedList(r.base.failingSeeds) + ", head " +
             seedList(r.head.failingSeeds);
    t += "\n" + r.sentence + "\n";
    if (!r.recordPath.empty())
        t += "shard ledger: " + shown(repoRoot, r.recordPath) + "\n";
    else if (!r.recordError.empty())
        t += "shard ledger: not written: " + r.recordError + "\n";
    else
        t += "shard ledger: not written (interrupted)\n";
    if (!r.notes.empty()) {
        t += "notes:\n";
        for (const std::string &n : r.notes)
            t += "  " + n + "\n";
    }
    return t;
}

int mergeCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Joins the shard ledgers of one sweep (attribute or cells run with --shard i/n, one\n"
        "CI job each) and prints the whole sweep's result exactly as the unsharded command\n"
        "would, with its exit code. The ledgers must be of the same sweep (kind, test,\n"
        "parameters), the same base and head commits and the same n; a shard given twice or\n"
        "a unit in two shards is refused, and so is a missing shard (\"missing shard 3/3\")\n"
        "unless --partial, which merges what there is, says so, and exits at least 2.\n"
        "Runs keep their own env digests: base and head runs of one seed whose digests\n"
        "differ are never compared (no verdict).\n"
        "--record writes the evidence record as the unsharded command does (attribution:\n"
        "for `freeze --from-run`; cells: patchwitness.cells/1) into <ledger dir>/runs/.\n"
        "Exit as attribute / cells; 3 for ledgers that do not parse or do not belong\n"
        "together."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("SHARD.json"),
                            QStringLiteral("Shard ledgers (schema patchwitness.shard/1)."),
                            QStringLiteral("SHARD.json…"));
    const QCommandLineOption repo =
        option("repo", "Repository whose ledger directory --record writes to.", "path", ".");
    const QCommandLineOption ledgerDir = option("ledger-dir",
                                                "Ledger directory, relative to the repository "
                                                "root or absolute (default .patchwitness).",
                                                "dir", ".patchwitness");
    const QCommandLineOption record = option("record", "Write the merged sweep's evidence record.");
    const QCommandLineOption partial =
        option("partial", "Merge although shards are missing (never recorded; exit at least 2).");
    const QCommandLineOption format = option("format", "text or json.", "format", "text");
    const QCommandLineOption today =
        option("today", "The record's date (YYYY-MM-DD; default today).", "date");
    const QCommandLineOption quiet = option("quiet", "No progress on standard error.");
    p.addOptions({repo, ledgerDir, record, partial, format, today, quiet});

    if (std::optional<int> done = parseCommandLine(p, QStringLiteral("merge"), arguments, out, err))
        return *done;
    if (std::optional<int> done = requireTextOrJson(p, format, QStringLiteral("merge"), err))
        return *done;
    const bool asJson = p.value(format) == QLatin1String("json");
    if (p.positionalArguments().isEmpty())
        return usageError(err, "merge: give the shard ledgers (merge shard-1.json shard-2.json …)");
    if (p.isSet(record) && p.isSet(partial))
        return usageError(err, "merge: --record needs every shard: a partial merge is no evidence "
                               "record");
    if (std::optional<int> done = checkToday(p, today, QStringLiteral("merge"), err))
        return *done;
    const std::string recorded =
        p.isSet(today) ? p.value(today).toStdString() : core::ledgerDateText(QDate::currentDate());

    std::vector<core::ShardLedger> ledgers;
    for (const QString &file : p.positionalArguments())
        ledgers.push_back(core::ShardLedger::read(file.toStdString()));
    const core::ShardSet set = core::ShardSet::gather(std::move(ledgers));
    if (!set.complete() && !p.isSet(partial))
        return usageError(err,
                          "merge: " + set.missingText() +
                              " (give every shard's ledger, or --partial to merge what there is)");
    if (!p.isSet(quiet)) {
        std::string given;
        for (const core::ShardLedger &l : set.shards)
            given += (given.empty() ? "" : ", ") + l.shard.name() + " " + l.file;
        printText(err, "merge: " + set.first().kind + " " + set.first().parametersText() +
                           ": shards " + given + "\n");
    }

    std::string repoRoot;
    std::string runsDir;
    if (p.isSet(record)) {
        const core::Repository repository = core::Repository::open(p.value(repo).toStdString());
        repoRoot = repository.workdir();
        if (repository.isBare() && QDir::isRelativePath(p.value(ledgerDir)))
            throw core::Error::input(
                repository.gitDir() +
                " is a bare repository: --record writes runs/ into the ledger "
                "directory of a work tree; run it in a clone, or name a directory "
                "with --ledger-dir /absolute/path");
        runsDir = QDir::cleanPath(
                      QDir(QString::fromStdString(repoRoot)).absoluteFilePath(p.value(ledgerDir)))
                      .toStdString() +
                  "/" + core::AttributionRecord::kRunsDir;
    }
    const std::string notAsked = p.isSet(record) ? "" : "merge without --record";
    std::string report;
    int exitCode = ExitPass;
    std::string recordError;
    core::MergedSweep merged = core::mergeSweep(set, p.isSet(record) ? runsDir : "", recorded);
    if (merged.attribution) {
        const core::AttributionResult &r = *merged.attribution;
        recordError = r.recordError;
        report = attributionReport(repoRoot, r, asJson, notAsked);
        exitCode = attributionExitCode(r);
    } else if (merged.matrix) {
        const core::MatrixResult &r = *merged.matrix;
        recordError = r.recordError;
        report = asJson ? matrixJson(repoRoot, r, recorded) : matrixText(repoRoot, r);
        exitCode = matrixExit(r);
        if (!r.recordError.empty())
            exitCode = ExitInternal;
    } else {
        const core::ReproCellsResult &r = *merged.cells;
        recordError = r.recordError;
        report = cellsReport(repoRoot, r, asJson, notAsked, recorded);
        exitCode = cellsExitCode(r);
        if (!r.recordError.empty())
            exitCode = ExitInternal;
    }

    if (asJson) {
        json doc = json::parse(report);
        json shards = json::array();
        for (const core::ShardLedger &l : set.shards)
            shards.push_back({{"shard", l.shard.name()}, {"file", l.file}});
        doc["merged_shards"] = shards;
        doc["missing_shards"] = set.missing;
        doc["partial"] = !set.complete();
        report = doc.dump(2) + "\n";
    } else if (!set.complete()) {
        report = "partial merge (--partial): " + set.missingText() +
                 "; what follows counts only the shards given and is not recordable\n\n" + report;
    }
    printText(out, report);
    if (!recordError.empty())
        printText(err, "patchwitness-cli: merge: " + recordError + "\n");
    if (!set.complete() && (exitCode == ExitPass))
        return ExitReview;
    return exitCode;
}

} // namespace pw::cli
