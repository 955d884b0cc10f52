#include "AttributeCommands.h"

#include "Cli.h"
#include "CliSupport.h"
#include "RunOptions.h"
#include "ShardCommands.h"
#include "dynamic/Attribution.h"
#include "dynamic/CellsRecord.h"
#include "dynamic/ReproCells.h"
#include "execution/RunEnvironment.h"
#include "execution/RunPool.h"
#include "ledger/LedgerDate.h"
#include "util/Format.h"

#include <QDate>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace pw::cli {

namespace {

using nlohmann::json;

std::string shortSha(const std::string &sha)
{
    return sha.empty() ? std::string() : " (" + core::shortId(sha, 10) + ")";
}

// Reads a positive integer option; nullopt and *exitCode set when it is not one.
std::optional<int> positive(const QCommandLineParser &p, const QCommandLineOption &o,
                            const std::string &command, FILE *err, int *exitCode, int minimum = 1)
{
    return integerValue(p.value(o), o, command, err, exitCode, minimum);
}

// Each finished run as a progress line (not with --quiet).
core::NodeRunCallback sayProgress(const core::RunContext &context)
{
    return [&context](const core::NodeRunProgress &tick) { context.say(tick.line()); };
}

// The one positional argument: the node id.
std::optional<std::string> testArgument(const QCommandLineParser &p, const std::string &command,
                                        FILE *err, int *exitCode)
{
    const QStringList rest = p.positionalArguments();
    if (rest.size() != 1) {
        *exitCode = usageError(
            err, command + (rest.isEmpty() ? ": a test node id is required (" + command +
                                                 " path/to/test_x.py::test_name)"
                                           : ": one test at a time, not '" +
                                                 rest.join(QLatin1Char(' ')).toStdString() + "'"));
        return std::nullopt;
    }
    return rest.constFirst().toStdString();
}

// ---- the freeze hint (attribute and cells) ----------------------------------------------

// The options of a run that a printed next command repeats, so it reads the same
// repository, ledger directory, interpreter and day. Empty when the run had the default.
struct Repeat
{
    std::string repo, ledgerDir, today, python, cacheDir, config;
    bool noSandbox = false;
    int freezeMaxDays = 14;

    static Repeat of(const core::RunRequest &request, const core::RunContext &ctx)
    {
        Repeat r;
        if (request.target.repoPath != ".")
            r.repo = ctx.repoRoot();
        if (request.target.ledgerDir != ".patchwitness")
            r.ledgerDir = request.target.ledgerDir;
        r.today = request.target.today;
        r.python = request.target.python.value_or("");
        r.cacheDir = request.cacheRoot;
        r.config = request.target.configPath;
        r.noSandbox = request.sandbox == std::optional<bool>(false);
        r.freezeMaxDays = ctx.config().freezeMaxDays;
        return r;
    }

    static std::string opt(const char *name, const std::string &value)
    {
        return value.empty() ? std::string()
                             : std::string(" --") + name + " " + core::shellQuote(value);
    }
    // What every command of ours reads: the repository, its ledger directory, the day.
    std::string common() const
    {
        return opt("repo", repo) + opt("ledger-dir", ledgerDir) + opt("today", today) +
               opt("python", python);
    }
    // What a run also needs.
    std::string runs() const
    {
        return common() + opt("cache-dir", cacheDir) + opt("config", config) +
               (noSandbox ? " --no-sandbox" : "");
    }
};

// A revision as a command names it: its commit when it is one, else as given (WORKTREE,
// PATCH:file).
std::string revisionArg(const std::string &spec, const std::string &commit)
{
    const bool committed = !commit.empty() && spec != "WORKTREE" && !spec.starts_with("PATCH:");
    return core::shellQuote(committed ? commit : spec);
}

const char *stanceName(core::FreezeCase::Stance stance)
{
    switch (stance) {
    case core::FreezeCase::Stance::Allowed:
        return "allowed";
    case core::FreezeCase::Stance::NeedsAttribution:
        return "needs-attribution";
    case core::FreezeCase::Stance::NeedsCells:
        return "needs-cells";
    case core::FreezeCase::Stance::Refused:
        return "refused";
    }
    return "?";
}

// What the freeze rule tells a reviewer to do: the command to run first, if evidence is
// missing, and the freeze command — every field either given, taken from the records
// (--from-run and the newest cells record: verdict, attribution, witness seed, baseline
// sha, evidence, replay) or a '<…>' only a person can fill in (FreezeCase::isPlaceholder
// refuses it unfilled).
struct FreezeHint
{
    core::FreezeCase::Stance stance = core::FreezeCase::Stance::NeedsAttribution;
    std::string reason;
    std::string first;   // a command to run before, or ""
    std::string command; // the freeze command, or "" (refused, or no record to freeze from)
    std::string missing; // why there is no freeze command although it is not refused

    std::string text() const
    {
        using Stance = core::FreezeCase::Stance;
        std::string t;
        if (stance == Stance::Refused)
            return "freeze: not allowed: " + reason + "\n";
        if (stance == Stance::Allowed)
            t = "freeze: allowed: " + reason + "\n";
        else
            t = "freeze: not yet: " + reason + "\n";
        if (!first.empty())
            t += "run first:\n  " + first + "\n";
        if (!command.empty())
            t += std::string(first.empty() ? "" : "then ") +
                 "freeze with (fill in the <…> fields):\n  " + command + "\n";
        else if (!missing.empty())
            t += "freeze: " + missing + "\n";
        return t;
    }

    json toJson() const
    {
        const auto orNull = [](const std::string &s) { return s.empty() ? json() : json(s); };
        return {{"stance", stanceName(stance)},
                {"reason", reason},
                {"first", orNull(first)},
                {"command", orNull(command)}};
    }
};

// `base`/`head`: the revisions the run compared (for the command to run first).
FreezeHint freezeHint(const core::FreezeCase &fc, const Repeat &repeat, const std::string &base,
                      const std::string &head)
{
    using Stance = core::FreezeCase::Stance;
    FreezeHint h;
    h.stance = fc.stance();
    h.reason = fc.reason();
    if (h.stance == Stance::Refused)
        return h;
    const std::string test = core::shellQuote(fc.test());
    // Without the revisions (a merged sweep) the reason alone says what to run.
    const std::string revisions =
        base.empty() || head.empty() ? std::string() : " --base " + base + " --head " + head;
    if (h.stance == Stance::NeedsAttribution) {
        if (!revisions.empty())
            h.first = "patchwitness-cli attribute " + test + revisions + repeat.runs();
        return h; // attribute prints the freeze command with its record
    }
    if (h.stance == Stance::NeedsCells && !revisions.empty())
        h.first = "patchwitness-cli cells " + test + revisions + repeat.runs();
    const std::optional<core::AttributionRecord> &rec = fc.attribution();
    if (!rec || rec->file.empty()) {
        h.missing = "the attribution was not recorded (--no-record): run `patchwitness-cli "
                    "attribute` with a record to freeze from";
        return h;
    }
    const QDate today = repeat.today.empty()
                            ? QDate::currentDate()
                            : QDate::fromString(QString::fromStdString(repeat.today), Qt::ISODate);
    const std::string expires = core::ledgerDateText(today.addDays(repeat.freezeMaxDays));
    const std::string fromRun =
        std::string(core::AttributionRecord::kRunsDir) + "/" +
        QFileInfo(QString::fromStdString(rec->file)).fileName().toStdString();
    h.command = "patchwitness-cli freeze " + test + " --from-run " + core::shellQuote(fromRun) +
                " --owner '<who fixes the test>' --expires " + expires +
                " --obligation '<the behaviour the fix must restore>'"
                " --substitute '<a test at head that covers it meanwhile>'"
                " --guards '<files the patch must leave alone meanwhile>'"
                " --by '<your name>'" +
                repeat.common() + (head.empty() ? std::string() : " --head " + head);
    return h;
}

// The hint of a result that carries no freeze case (a merged sweep): from its record's
// directory, or none.
std::optional<core::FreezeCase> freezeCaseOf(const std::optional<core::FreezeCase> &own,
                                             const std::string &test, const std::string &recordPath,
                                             const std::optional<core::AttributionRecord> &rec)
{
    if (own)
        return own;
    if (recordPath.empty())
        return std::nullopt;
    const std::string runsDir =
        QFileInfo(QString::fromStdString(recordPath)).absolutePath().toStdString();
    return core::FreezeCase::gather(runsDir, test, rec);
}

// ---- attribute -------------------------------------------------------------------------

json runJson(const core::NodeRun &run)
{
    return {{"run", run.index + 1},
            {"seed", run.seed},
            {"outcome", core::outcomeName(run.outcome)},
            {"seconds", core::wholeMillis(run.seconds)},
            {"env_digest", run.envDigest},
            {"command", run.command},
            {"reason", run.reason}};
}

json armJson(const core::ArmEvidence &arm, const std::string &revision, const std::string &commit)
{
    json runs = json::array();
    for (const core::NodeRun &run : arm.runs)
        runs.push_back(runJson(run));
    return {{"revision", revision},
            {"commit", commit},
            {"fails", arm.fails},
            {"evidence", arm.evidence},
            {"skipped", arm.skipped},
            {"harness_errors", arm.harnessErrors},
            {"not_collected", arm.notCollected},
            {"failing_seeds", arm.failingSeeds},
            {"runs", runs}};
}

json coverageJson(const std::optional<core::DiffCoverageResult> &c)
{
    if (!c)
        return json();
    return {{"verdict", core::coverageVerdictName(c->verdict)},
            {"summary", c->summary()},
            {"seed", c->seed ? json(*c->seed) : json()},
            {"changed_lines", c->changedLines},
            {"touched_lines", c->touchedLines},
            {"touched_files", c->touchedFiles},
            {"reason", c->reason.empty() ? json() : json(c->reason)},
            {"left_out", c->leftOut}};
}

// The freeze case of an attribution result (its own, or for a merged sweep its record's).
std::optional<core::FreezeCase> attributionFreeze(const core::AttributionResult &r)
{
    if (!r.verdict || r.interrupted || r.shard)
        return std::nullopt;
    return freezeCaseOf(r.freeze, r.test, r.recordPath, std::nullopt);
}

std::optional<FreezeHint> attributionHint(const core::AttributionResult &r, const Repeat &repeat)
{
    const std::optional<core::FreezeCase> fc = attributionFreeze(r);
    if (!fc)
        return std::nullopt;
    return freezeHint(*fc, repeat, revisionArg(r.baseSpec, r.baseCommit),
                      revisionArg(r.headSpec, r.headCommit));
}

std::string attributionJson(const std::string &repoRoot, const core::AttributionResult &r,
                            const Repeat &repeat)
{
    const auto orNull = [](const std::string &s) { return s.empty() ? json() : json(s); };
    const std::optional<core::FreezeCase> fc = attributionFreeze(r);
    const std::optional<FreezeHint> hint = attributionHint(r, repeat);
    json doc = {
        {"schema", "patchwitness.attribution-run/1"},
        {"test", r.test},
        {"mode", core::modeName(r.mode)},
        {"runs_per_arm", r.runsPerArm},
        {"seeds", r.seeds},
        {"base", armJson(r.base, r.baseSpec, r.baseCommit)},
        {"head", armJson(r.head, r.headSpec, r.headCommit)},
        {"verdict", r.verdict ? json(core::attributionVerdictName(*r.verdict)) : json()},
        {"sentence", r.sentence},
        {"freeze_allowed", r.freezeAllowed() && !(fc && fc->refused())},
        {"freeze", hint ? hint->toJson() : json()},
        {"witness_seed", r.witnessSeed ? json(*r.witnessSeed) : json()},
        {"env_digest", orNull(r.envDigest)},
        {"digests_match", r.digestsMatch},
        {"interpreter", r.provenance.interpreterJson()},
        {"trees", r.provenance.treesJson()},
        // as the record names them: `replay` runs from any checkout when the trees are
        // commits, `replay_exact` is the run's own shell line here
        {"replay", orNull(r.portableReplay.empty() ? r.replay : r.portableReplay)},
        {"replay_exact", orNull(r.replay)},
        {"interrupted", r.interrupted},
        {"notes", r.notes},
        {"record", r.recordPath.empty() ? json() : json(relativeTo(repoRoot, r.recordPath))},
        {"record_error", orNull(r.recordError)},
        {"shard", r.shard ? json(r.shard->name()) : json()},
        {"diff_coverage", coverageJson(r.coverage)},
    };
    return doc.dump(2) + "\n";
}

// `notAsked`: why no record was asked for ("--no-record"); empty when it was.
std::string attributionText(const std::string &repoRoot, const core::AttributionResult &r,
                            const std::string &notAsked, const Repeat &repeat)
{
    const bool swept = r.mode == core::AttributionRequest::Mode::Swept;
    std::string t = "attribute " + r.test + ": " + core::modeName(r.mode) + ", " +
                    std::to_string(r.runsPerArm) + " run(s) per tree" +
                    (swept ? ", seeds 0.." + std::to_string(r.runsPerArm - 1)
                           : ", seed " + std::to_string(r.seeds.front()) + " on every run") +
                    "\n";
    t += "  base " + r.baseSpec + shortSha(r.baseCommit) + "\n";
    t += "  head " + r.headSpec + shortSha(r.headCommit) + "\n\n";

    // The seed row: one column per run, both trees under each other.
    size_t width = 4;
    for (const core::ArmEvidence *arm : {&r.base, &r.head})
        for (const core::NodeRun &run : arm->runs)
            width = std::max(width, std::string(core::outcomeName(run.outcome)).size());
    width += 2;
    t += pad(swept ? "seed" : "run", 6);
    // Labelled by the runs' own seeds: a partial merge lacks some of them.
    const std::vector<core::NodeRun> &longer =
        r.head.runs.size() >= r.base.runs.size() ? r.head.runs : r.base.runs;
    for (const core::NodeRun &run : longer)
        t += padLeft(std::to_string(swept ? run.seed : uint32_t(run.index + 1)), width);
    t += "\n";
    for (const auto &[name, arm] :
         {std::pair<const char *, const core::ArmEvidence *>{"base", &r.base}, {"head", &r.head}}) {
        t += pad(name, 6);
        for (const core::NodeRun &run : arm->runs)
            t += padLeft(core::outcomeName(run.outcome), width);
        t += "\n";
    }
    t += "\n";
    t += "base fails " + std::to_string(r.base.fails) + "/" + std::to_string(r.base.evidence) +
         ", head fails " + std::to_string(r.head.fails) + "/" + std::to_string(r.head.evidence);
    if (r.base.harnessErrors + r.head.harnessErrors > 0)
        t += " (harness errors not counted: base " + std::to_string(r.base.harnessErrors) +
             ", head " + std::to_string(r.head.harnessErrors) + ")";
    if (!r.base.failingSeeds.empty() || !r.head.failingSeeds.empty())
        t += "; failing seeds base " + seedList(r.base.failingSeeds) + ", head " +
             seedList(r.head.failingSeeds);
    t += "\n";
    t += std::string("verdict: ") +
         (r.verdict ? core::attributionVerdictName(*r.verdict) : "none") + "\n";
    t += "  " + r.sentence + "\n";
    if (r.witnessSeed)
        t += "witness seed: " + std::to_string(*r.witnessSeed) + "\n";
    if (r.coverage) {
        t += "diff coverage: " + r.coverage->summary() + "\n";
        if (!r.coverage->leftOut.empty())
            t += "  " + r.coverage->leftOutText() + "\n";
    }
    if (!r.envDigest.empty())
        t += "env digest: " + r.envDigest + " (base and head equal)\n";
    else if (!r.digestsMatch)
        t += "env digests differ between base and head: not compared\n";
    t += r.provenance.text("");
    if (const std::optional<FreezeHint> hint = attributionHint(r, repeat))
        t += hint->text();
    else if (r.freezeAllowed()) // a merged sweep not recorded: no records to judge it with
        t += "freeze: PRE_EXISTING, but no record to freeze from (merge with --record)\n";
    else
        t += "freeze: not allowed (only PRE_EXISTING may be frozen)\n";
    if (!r.recordPath.empty())
        t += "record: " + relativeTo(repoRoot, r.recordPath) + "\n";
    else if (!r.recordError.empty())
        t += "record: not written: " + r.recordError + "\n";
    else
        t += std::string("record: not written (") +
             (!notAsked.empty() ? notAsked
              : r.interrupted   ? std::string("interrupted")
                                : std::string("no verdict")) +
             ")\n";
    if (!r.replay.empty())
        t += "replay:\n  " + r.replay + "\n";
    if (!r.portableReplay.empty()) // what the record (and a freeze) carries
        t += "replay from any checkout:\n  " + r.portableReplay + "\n";
    if (!r.notes.empty()) {
        t += "notes:\n";
        for (const std::string &n : r.notes)
            t += "  " + n + "\n";
    }
    return t;
}

int attributeExit(const core::AttributionResult &r)
{
    if (r.interrupted)
        return ExitInternal;
    if (r.notCollectedAnywhere)
        return ExitUsage;
    if (!r.recordError.empty())
        return ExitInternal;
    // No evidence on a tree that has the test: the harness failed, not the review.
    const bool noEvidence =
        (r.base.evidence == 0 && !r.base.absent()) || (r.head.evidence == 0 && !r.head.absent());
    if (!r.verdict && noEvidence)
        return ExitInternal;
    // The severity the workbench's report gives the result.
    const std::optional<core::Finding> finding = r.finding();
    if (!finding)
        return ExitInternal;
    switch (finding->severity) {
    case core::Severity::Info:
        return ExitPass;
    case core::Severity::Review:
        return ExitReview;
    case core::Severity::Block:
        return ExitBlock;
    }
    return ExitInternal;
}

// ---- cells -----------------------------------------------------------------------------

// The evidence record (CellsRecord, schema patchwitness.cells/1) plus where it was written.
std::optional<FreezeHint> cellsHint(const core::ReproCellsResult &r, const Repeat &repeat,
                                    const std::string &base, const std::string &head)
{
    if (r.interrupted || r.notCollected || r.shard)
        return std::nullopt;
    const std::optional<core::FreezeCase> fc =
        freezeCaseOf(r.freeze, r.test, r.recordPath, std::nullopt);
    if (!fc)
        return std::nullopt;
    return freezeHint(*fc, repeat, base, head);
}

// `base`/`head`: the revisions of the run as commands name them ("" for a merged sweep:
// its trees are the shard ledgers').
std::string cellsJson(const std::string &repoRoot, const core::ReproCellsResult &r,
                      const std::string &recorded, const std::optional<FreezeHint> &hint)
{
    json doc = json::parse(core::formatCellsRecord(r, recorded));
    doc["record"] = r.recordPath.empty() ? json() : json(relativeTo(repoRoot, r.recordPath));
    doc["record_error"] = r.recordError.empty() ? json() : json(r.recordError);
    doc["shard"] = r.shard ? json(r.shard->name()) : json();
    doc["freeze"] = hint ? hint->toJson() : json();
    return doc.dump(2) + "\n";
}

// `notAsked`: why no record was asked for ("--no-record"); empty when it was.
std::string cellsText(const std::string &repoRoot, const core::ReproCellsResult &r,
                      const std::string &notAsked, const std::optional<FreezeHint> &hint)
{
    std::string t = "cells " + r.test + " at " + core::armName(r.arm) + " " + r.revision +
                    ": scoped suite " + r.scope + ", " + std::to_string(r.orderSeeds) +
                    " order seed(s)\n";
    t += r.provenance.text("  ") + "\n";
    t += "cell     status   runs  fails  harness  notes\n";
    for (const core::ReproCell &c : r.cells) {
        t += pad(c.name, 9) + pad(core::cellStatusName(c.status), 7) +
             padLeft(std::to_string(c.runs()), 6) + padLeft(std::to_string(c.fails), 7) +
             padLeft(std::to_string(c.harnessErrors), 9) + "  ";
        if (c.status == core::CellStatus::Unknown)
            t += c.unknownReason;
        else if (!c.failingSeeds.empty() && c.name != "solo" && c.name != "clock")
            t += "failing seeds " + seedList(c.failingSeeds);
        t += "\n";
    }
    t += "\n";
    for (const core::ReproCell &c : r.cells)
        t += "  " + pad(c.name + ":", 9) + c.description + "\n";
    t += "\n";
    if (!r.findings.empty()) {
        t += "attribution: " + r.findings.front().attribution + "\n";
        t += "  " + r.findings.front().sentence + "\n";
        for (size_t i = 1; i < r.findings.size(); ++i)
            t += "also (" + r.findings[i].attribution + "): " + r.findings[i].sentence + "\n";
    }
    // The replay of the cell behind the main attribution (all of them are in the JSON).
    if (!r.findings.empty()) {
        std::string cell = r.findings.front().attribution;
        if (cell == "leakage")
            cell = "isolate";
        for (const core::ReproCell &c : r.cells) {
            if (c.name == cell && c.status == core::CellStatus::Fail && !c.replay.empty())
                t += "replay (" + c.name + "):\n  " + c.replay + "\n";
        }
    }
    if (hint)
        t += hint->text();
    const std::string what = r.shard ? "shard ledger" : "record";
    if (!r.recordPath.empty())
        t += what + ": " + relativeTo(repoRoot, r.recordPath) + "\n";
    else if (!r.recordError.empty())
        t += what + ": not written: " + r.recordError + "\n";
    else
        t += what + ": not written (" +
             (!notAsked.empty() ? notAsked
              : r.interrupted   ? std::string("interrupted")
              : r.notCollected  ? std::string("no such test")
                                : std::string("no attribution")) +
             ")\n";
    return t;
}

int cellsExit(const core::ReproCellsResult &r)
{
    if (r.interrupted)
        return ExitInternal;
    if (r.notCollected)
        return ExitUsage;
    if (r.reproduced())
        return ExitBlock;
    // A cell that could not run is no "not reproduced": the harness failed, not the test.
    for (const core::ReproCell &c : r.cells)
        if (c.harnessErrors > 0)
            return ExitInternal;
    if (r.noEvidence())
        return ExitReview;
    return ExitPass;
}

} // namespace

int attributeCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Base/head attribution (SPEC 5.3): runs TEST (a pytest node id) on the base and the\n"
        "head tree, interleaved, and judges the fail counts b (base) and h (head):\n"
        "  NO_REPRO b=0,h=0; PRE_EXISTING b>0,h>0 on the same seeds (the only verdict a\n"
        "  freeze accepts); HARNESS_ENV b>0,h>0 on different seeds; PATCH_INDUCED b=0,h>0;\n"
        "  PATCH_MASKS b>0,h=0 (usually a swallowed exception).\n"
        "matched: every run at one seed (--seed, default 0), --runs times (default config\n"
        "`replays`); swept: seeds 0..N-1, N = --runs (default config `seeds`). Harness errors\n"
        "are listed and never counted. With a verdict the evidence is recorded in\n"
        "<ledger dir>/runs/ for `freeze --from-run`.\n"
        "When head failed, the test is run once more at head at the witness seed under\n"
        "coverage.py: a failing test that executed none of the patch's changed lines \"did\n"
        "not touch the change\" (strong evidence of a flake); --no-coverage skips it.\n"
        "Exit 0 NO_REPRO or PRE_EXISTING (nothing blamed on the patch), 1 PATCH_INDUCED or\n"
        "PATCH_MASKS, 2 HARNESS_ENV or no verdict (review), 3 usage or input error (also: the\n"
        "test exists on neither tree), 4 harness error or interrupted."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("TEST"),
                            QStringLiteral("pytest node id: path/to/test_x.py::test_name"));
    const RunOptions common;
    common.addTo(p);
    const QCommandLineOption mode = option("mode", "matched or swept.", "mode", "matched");
    const QCommandLineOption runs =
        option("runs", "Runs per tree (default: config `replays` matched, `seeds` swept).", "n");
    const QCommandLineOption seed =
        option("seed", "matched: the seed of every run (default 0).", "s", "0");
    const QCommandLineOption noRecord = option("no-record", "Do not write the evidence record.");
    const QCommandLineOption noCoverage =
        option("no-coverage", "Skip the diff-coverage rerun of a failing head (does the failing "
                              "test run the lines the patch changed?).");
    p.addOptions({mode, runs, seed, noRecord, noCoverage});

    const ShardOptions sharding; // --shard i/n, --out
    sharding.addTo(p);

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> runRequest =
        common.parse(p, QStringLiteral("attribute"), arguments, out, err, &exitCode);
    if (!runRequest)
        return exitCode;
    const std::optional<std::string> test = testArgument(p, "attribute", err, &exitCode);
    if (!test)
        return exitCode;

    core::AttributionRequest request;
    request.test = *test;
    request.record = !p.isSet(noRecord);
    request.coverage = !p.isSet(noCoverage);
    const QString modeText = p.value(mode);
    if (modeText == QLatin1String("swept"))
        request.mode = core::AttributionRequest::Mode::Swept;
    else if (modeText != QLatin1String("matched"))
        return usageError(err, "attribute: unknown --mode '" + modeText.toStdString() +
                                   "' (matched, swept)");
    if (p.isSet(runs)) {
        request.runs = positive(p, runs, "attribute", err, &exitCode);
        if (!request.runs)
            return exitCode;
    }
    if (p.isSet(seed)) {
        if (request.mode == core::AttributionRequest::Mode::Swept)
            return usageError(err, "attribute: --seed is for --mode matched (swept runs seeds "
                                   "0..N-1)");
        const std::optional<int> s = positive(p, seed, "attribute", err, &exitCode, 0);
        if (!s)
            return exitCode;
        request.seed = uint32_t(*s);
    }
    if (!sharding.apply(p, "attribute", err, &request.shard, &request.shardOut, &exitCode))
        return exitCode;

    const InterruptGuard guard;
    const core::RunContext context = core::RunContext::open(guard.stopping(*runRequest));
    core::RunPool pool(context.workers());
    core::AttributionResult result;
    // A Ctrl-C after the last run ended cancelled nothing: the result stands, the exit code
    // still says the command was interrupted.
    const bool stopped = runInterruptible(guard, pool, [&] {
        result = core::Attribution::run(context, request, pool, sayProgress(context));
    });
    const bool interrupted = stopped || result.interrupted;
    const Repeat repeat = Repeat::of(*runRequest, context);
    if (result.shard) { // One job's part of the sweep, no verdict
        printText(out, common.json(p) ? attributionJson(context.repoRoot(), result, repeat)
                                      : shardAttributionText(context.repoRoot(), result));
        return failureExit("attribute", interrupted, result.recordError, err);
    }
    printText(out, common.json(p) ? attributionJson(context.repoRoot(), result, repeat)
                                  : attributionText(context.repoRoot(), result,
                                                    request.record ? "" : "--no-record", repeat));
    if (interrupted) {
        printText(err, "patchwitness-cli: attribute: interrupted\n");
        return ExitInternal;
    } else if (result.notCollectedAnywhere)
        printText(err, "patchwitness-cli: attribute: " + result.sentence + "\n");
    else if (!result.recordError.empty())
        printText(err, "patchwitness-cli: attribute: " + result.recordError + "\n");
    return attributeExit(result);
}

int cellsCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Four-cell reproduction matrix (SPEC 5.4) of TEST on one tree (default head):\n"
        "  solo     the node alone, seed 0 (pytest's order), a fresh interpreter;\n"
        "  order    the scoped suite (the test file's directory) shuffled with seeds 1..R,\n"
        "           R = --order-seeds (default config `order_seeds`); only TEST counts;\n"
        "  isolate  the scoped suite collected once, TEST forked alone before any other test\n"
        "           ran (R forked replays);\n"
        "  clock    the node alone with TZ=Pacific/Kiritimati and the clock frozen at\n"
        "           2038-01-19T12:00:00Z, when freezegun or time_machine is importable;\n"
        "           otherwise unknown (never a pass).\n"
        "Attribution: solo fails → broken test (fix or delete, never freeze); order fails on\n"
        "some seeds only → ordering/shared state; isolate fails → process state; order fails\n"
        "on all seeds and isolate fails → leakage from earlier tests; clock fails → time\n"
        "dependence; all pass → not reproduced (raise R before calling it flaky).\n"
        "The evidence record (patchwitness.cells/1) goes to <ledger dir>/runs/ unless\n"
        "--no-record.\n"
        "Exit 0 not reproduced, 1 a cell fails, 2 no evidence (solo, order and isolate\n"
        "unknown), 3 usage or input error (also: no such test), 4 harness error (a run of\n"
        "some cell was one, and no cell fails) or interrupted."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("TEST"),
                            QStringLiteral("pytest node id: path/to/test_x.py::test_name"));
    const RunOptions common;
    common.addTo(p);
    const QCommandLineOption orderSeeds = option("order-seeds",
                                                 "R: shuffle seeds 1..R for order and isolate "
                                                 "(default config `order_seeds`).",
                                                 "r");
    const QCommandLineOption arm =
        option("arm", "The tree to reproduce on: head or base.", "arm", "head");
    const QCommandLineOption noRecord = option("no-record", "Do not write the evidence record.");
    p.addOptions({orderSeeds, arm, noRecord});

    const ShardOptions sharding; // --shard i/n, --out
    sharding.addTo(p);

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> runRequest =
        common.parse(p, QStringLiteral("cells"), arguments, out, err, &exitCode);
    if (!runRequest)
        return exitCode;
    const std::optional<std::string> test = testArgument(p, "cells", err, &exitCode);
    if (!test)
        return exitCode;
    core::CellsRequest request;
    request.test = *test;
    if (p.value(arm) == QLatin1String("base"))
        request.arm = core::Arm::Base;
    else if (p.value(arm) != QLatin1String("head"))
        return usageError(err,
                          "cells: unknown --arm '" + p.value(arm).toStdString() + "' (head, base)");
    if (p.isSet(orderSeeds)) {
        request.orderSeeds = positive(p, orderSeeds, "cells", err, &exitCode);
        if (!request.orderSeeds)
            return exitCode;
    }
    request.record = !p.isSet(noRecord);
    if (!sharding.apply(p, "cells", err, &request.shard, &request.shardOut, &exitCode))
        return exitCode;

    const InterruptGuard guard;
    const core::RunContext context = core::RunContext::open(guard.stopping(*runRequest));
    core::RunPool pool(context.workers());
    core::ReproCellsResult result;
    const bool stopped = runInterruptible(guard, pool, [&] {
        result = core::ReproCells::run(context, request, pool, sayProgress(context));
    });
    const bool interrupted = stopped || result.interrupted;
    if (result.shard) { // One job's part of the sweep, no attribution
        printText(out, common.json(p) ? cellsJson(context.repoRoot(), result,
                                                  core::recordDate(context), std::nullopt)
                                      : cellsText(context.repoRoot(), result, "", std::nullopt));
        return failureExit("cells", interrupted, result.recordError, err);
    }
    const std::optional<FreezeHint> hint =
        cellsHint(result, Repeat::of(*runRequest, context),
                  revisionArg(context.base().spec, context.base().commit),
                  revisionArg(context.head().spec, context.head().commit));
    printText(out, common.json(p)
                       ? cellsJson(context.repoRoot(), result, core::recordDate(context), hint)
                       : cellsText(context.repoRoot(), result, request.record ? "" : "--no-record",
                                   hint));
    if (interrupted) {
        printText(err, "patchwitness-cli: cells: interrupted\n");
        return ExitInternal;
    }
    if (result.notCollected)
        printText(err, "patchwitness-cli: cells: " + result.findings.front().sentence + "\n");
    return cellsExit(result);
}

// ---- the reports, for merge (ShardCommands) --------------------------------------------

std::string attributionReport(const std::string &repoRoot, const core::AttributionResult &r,
                              bool asJson, const std::string &notAsked)
{
    return asJson ? attributionJson(repoRoot, r, Repeat())
                  : attributionText(repoRoot, r, notAsked, Repeat());
}

int attributionExitCode(const core::AttributionResult &r)
{
    return attributeExit(r);
}

std::string cellsReport(const std::string &repoRoot, const core::ReproCellsResult &r, bool asJson,
                        const std::string &notAsked, const std::string &recorded)
{
    // The merged trees are the shard ledgers': no command to run first is printed.
    const std::optional<FreezeHint> hint = cellsHint(r, Repeat(), "", "");
    return asJson ? cellsJson(repoRoot, r, recorded, hint) : cellsText(repoRoot, r, notAsked, hint);
}

int cellsExitCode(const core::ReproCellsResult &r)
{
    return cellsExit(r);
}

} // namespace pw::cli
