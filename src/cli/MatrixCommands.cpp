#include "MatrixCommands.h"

#include "Cli.h"
#include "CliSupport.h"
#include "RunOptions.h"
#include "ShardCommands.h"
#include "dynamic/CellsRecord.h"
#include "dynamic/FrozenRun.h"
#include "dynamic/SeedMatrix.h"
#include "execution/RunPool.h"
#include "ledger/LedgerDate.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace pw::cli {

namespace {

using nlohmann::ordered_json;

// One character per seed: "." no failure, "1".."9" the fails out of K ("*" past 9), "?"
// a seed whose replays were not all evidence.
std::string strip(const std::vector<int> &fails, const std::vector<int> &errors)
{
    std::string out;
    for (size_t s = 0; s < fails.size(); ++s) {
        if (s < errors.size() && errors[s] > 0)
            out += '?';
        else if (fails[s] == 0)
            out += '.';
        else
            out += fails[s] > 9 ? '*' : char('0' + fails[s]);
    }
    return out;
}

int triageExit(const core::TriageResult &t)
{
    if (!t.triage)
        return ExitInternal;
    switch (*t.triage) {
    case core::Triage::PatchBug:
        return ExitBlock;
    case core::Triage::FlakyOracle:
    case core::Triage::NeedsManualReview:
        return ExitReview;
    case core::Triage::PreExisting:
    case core::Triage::NoSignal:
        return ExitPass;
    }
    return ExitReview;
}

std::string seedList(const std::vector<uint32_t> &seeds)
{
    return core::seedsText(std::vector<long long>(seeds.begin(), seeds.end()));
}

std::string revisionText(const std::string &spec, const std::string &commit)
{
    return commit.empty() || commit == spec ? spec : spec + " (" + core::shortId(commit, 10) + ")";
}

} // namespace

// The exit code of a whole matrix: interrupted 4; any PATCH_BUG 1; any FLAKY_ORACLE or
// NEEDS_MANUAL_REVIEW 2; a test without triage 4; else 0 (PRE_EXISTING, NO_SIGNAL).
int matrixExit(const core::MatrixResult &r)
{
    if (r.interrupted)
        return ExitInternal;
    bool review = false, none = false;
    for (const core::MatrixTest &t : r.tests) {
        if (!t.triage.triage) {
            none = true;
            continue;
        }
        switch (*t.triage.triage) {
        case core::Triage::PatchBug:
            return ExitBlock;
        case core::Triage::FlakyOracle:
        case core::Triage::NeedsManualReview:
            review = true;
            break;
        case core::Triage::PreExisting:
        case core::Triage::NoSignal:
            break;
        }
    }
    return review ? ExitReview : none ? ExitInternal : ExitPass;
}

std::string matrixText(const std::string &repoRoot, const core::MatrixResult &r)
{
    std::string t = "seed matrix: " + std::to_string(r.tests.size()) + " test(s) × " +
                    std::to_string(r.seeds.size()) + " seeds × " + std::to_string(r.replays) +
                    " isolated replays, base " + revisionText(r.baseSpec, r.baseCommit) +
                    " and head " + revisionText(r.headSpec, r.headCommit) + "\n";
    t += "env digest " +
         (r.envDigest.empty() ? std::string("(differs between runs)") : r.envDigest) + ", " +
         (r.mergedShards > 0
              ? "merged from " + std::to_string(r.mergedShards) + " shard ledger(s)"
              : r.provenance.interpreterLine() + ", " + std::to_string(r.serverRuns) +
                    " fork-server runs, " + core::formatSeconds(double(r.durationMs) / 1000.0)) +
         "\n";
    if (r.shard)
        t += "shard " + r.shard->name() + " of the matrix: seeds " + seedList(r.seeds) +
             "; no triage until merged (patchwitness-cli merge, with every shard's ledger)\n";
    t += "cells: one per seed " + seedList(r.seeds) + ", '.' no failure, digit = fails out of " +
         std::to_string(r.replays) + ", '?' not all evidence\n";
    for (const core::MatrixTest &test : r.tests) {
        t += "\n" + test.triage.line() + "\n";
        t += "  " + test.test + "\n";
        t += "  base " + strip(test.base.fails, test.base.errors) + "\n";
        t += "  head " + strip(test.head.fails, test.head.errors) + "\n";
        if (!test.head.detail.empty())
            t += "  head's first failure: " + test.head.detail + "\n";
        if (!test.head.problem.empty())
            t += "  head's first harness error: " + test.head.problem + "\n";
        if (!test.base.problem.empty())
            t += "  base's first harness error: " + test.base.problem + "\n";
        const std::optional<long long> shown =
            test.triage.witnessSeed ? test.triage.witnessSeed : test.triage.flakySeed;
        if (shown) {
            for (size_t s = 0; s < r.seeds.size(); ++s)
                if (r.seeds[s] == uint32_t(*shown) && s < test.head.commands.size())
                    t += "  replay seed " + std::to_string(*shown) +
                         " at head: " + test.head.commands[s] + "\n";
            const std::string portable = r.portableCell(test.test, uint32_t(*shown));
            if (!portable.empty())
                t += "  from any checkout: " + portable + "\n";
        }
        if (!test.base.ledger.empty())
            t += "  ledgers: patchwitness-cli triage " + relativeTo(repoRoot, test.base.ledger) +
                 " " + relativeTo(repoRoot, test.head.ledger) + "\n";
    }
    for (const std::string &restart : r.restarts)
        t += "note: a fork server restarted in a fresh copy: " + restart + "\n";
    if (!r.recordPath.empty())
        t += std::string(r.shard ? "\nshard ledger: " : "\nrecord: ") +
             relativeTo(repoRoot, r.recordPath) + "\n";
    if (r.interrupted)
        t += "\ninterrupted: no triage, nothing recorded\n";
    return t;
}

std::string matrixJson(const std::string &repoRoot, const core::MatrixResult &r,
                       const std::string &recorded)
{
    ordered_json doc = ordered_json::parse(core::SeedMatrix::formatRecord(r, recorded));
    for (auto &test : doc["tests"])
        for (const char *arm : {"base", "head"})
            if (test["ledgers"][arm].is_string())
                test["ledgers"][arm] = relativeTo(repoRoot, test["ledgers"][arm]);
    doc["record"] =
        r.recordPath.empty() ? ordered_json() : ordered_json(relativeTo(repoRoot, r.recordPath));
    doc["shard"] = r.shard ? ordered_json(r.shard->name()) : ordered_json();
    return doc.dump(2) + "\n";
}

int matrixCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Seed matrix and triage (SPEC 5.2) of TEST… on the base and the head tree: seeds\n"
        "0..N-1 (--seeds, default config `seeds`) and K isolated replays each (--replays,\n"
        "default config `replays`) through the fork server — each test file collected once\n"
        "per tree, a forked child per replay — the two trees' runs interleaved. Per test,\n"
        "first match wins, over the seeds observed on both trees:\n"
        "  NO_SIGNAL           every patched cell 0 (green on the patch is not evidence);\n"
        "  PATCH_BUG           a seed fails K/K patched and 0 on the baseline (witness);\n"
        "  FLAKY_ORACLE        a seed fails 0 < f < K patched (not freezable yet);\n"
        "  PRE_EXISTING        a seed fails patched and on the baseline (witness);\n"
        "  NEEDS_MANUAL_REVIEW else, and where harness errors leave seeds unobserved.\n"
        "Each test's two ledgers ({\"impl\", \"prop\", \"replays\", \"seeds\"}, what `triage`\n"
        "reads) and the record (patchwitness.matrix/1, every cell's replay command) go to\n"
        "<ledger dir>/runs/ unless --no-record.\n"
        "Exit 0 PRE_EXISTING or NO_SIGNAL, 1 a PATCH_BUG, 2 FLAKY_ORACLE or\n"
        "NEEDS_MANUAL_REVIEW, 3 usage or input error, 4 a test without triage (not collected\n"
        "on a tree, no evidence) or interrupted."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("TEST"),
                            QStringLiteral("pytest node ids: path/to/test_x.py::test_name …"));
    const RunOptions common;
    common.addTo(p);
    const QCommandLineOption seeds =
        option("seeds", "N: seeds 0..N-1 (default config `seeds`).", "n");
    const QCommandLineOption seed =
        option("seed", "Only this seed (repeat for more): one cell's replay.", "s");
    const QCommandLineOption replays =
        option("replays", "K: isolated replays per seed and tree (default config `replays`).", "k");
    const QCommandLineOption noRecord =
        option("no-record", "Do not write the ledgers and the record.");
    p.addOptions({seeds, seed, replays, noRecord});
    const ShardOptions sharding; // --shard i/n, --out
    sharding.addTo(p);

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> runRequest =
        common.parse(p, QStringLiteral("matrix"), arguments, out, err, &exitCode);
    if (!runRequest)
        return exitCode;
    core::MatrixRequest request;
    for (const QString &test : p.positionalArguments())
        request.tests.push_back(test.toStdString());
    if (request.tests.empty())
        return usageError(err, "matrix: at least one test node id is required (matrix "
                               "path/to/test_x.py::test_name …)");
    auto number = [&](const QString &text, const QCommandLineOption &o, int minimum) {
        return integerValue(text, o, "matrix", err, &exitCode, minimum);
    };
    if (p.isSet(seeds) && p.isSet(seed))
        return usageError(err, "matrix: --seeds N and --seed S exclude each other");
    if (p.isSet(seeds)) {
        request.seeds = number(p.value(seeds), seeds, 1);
        if (!request.seeds)
            return exitCode;
    }
    if (p.isSet(seed)) {
        std::vector<uint32_t> list;
        for (const QString &value : p.values(seed)) {
            const std::optional<int> s = number(value, seed, 0);
            if (!s)
                return exitCode;
            list.push_back(uint32_t(*s));
        }
        request.seedList = list;
    }
    if (p.isSet(replays)) {
        request.replays = number(p.value(replays), replays, 1);
        if (!request.replays)
            return exitCode;
    }
    request.record = !p.isSet(noRecord);
    if (!sharding.apply(p, "matrix", err, &request.shard, &request.shardOut, &exitCode))
        return exitCode;

    const InterruptGuard guard;
    const core::RunContext context = core::RunContext::open(guard.stopping(*runRequest));
    core::RunPool pool(context.workers());
    core::MatrixResult result;
    const bool stopped = runInterruptible(guard, pool, [&] {
        result = core::SeedMatrix::run(
            context, request, pool,
            [&context](const core::MatrixProgress &tick) { context.say(tick.line); });
    });
    printText(out, common.json(p)
                       ? matrixJson(context.repoRoot(), result, core::recordDate(context))
                       : matrixText(context.repoRoot(), result));
    // A signal after the last run cancelled nothing: the matrix stands, the exit code still
    // says the command was interrupted.
    if (stopped || result.interrupted) {
        printText(err, "patchwitness-cli: matrix: interrupted\n");
        return ExitInternal;
    }
    if (result.shard) // one job's part of the matrix: its ledger, no triage
        return failureExit("matrix", false, result.recordError, err);
    if (!result.recordError.empty())
        printText(err, "patchwitness-cli: matrix: " + result.recordError + "\n");
    const int code = matrixExit(result);
    return code == ExitPass && !result.recordError.empty() ? ExitInternal : code;
}

int triageCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Triage two seed-matrix ledgers (SPEC 5.2): BASE.json from the baseline tree,\n"
        "PATCHED.json from the patched one, each {\"replays\": K, \"seeds\": {\"<seed>\":\n"
        "<fails out of K>}} as `matrix` writes them (and as the seeds' seed_matrix.py does).\n"
        "Over the seeds both share, first match wins: NO_SIGNAL, PATCH_BUG, FLAKY_ORACLE,\n"
        "PRE_EXISTING, NEEDS_MANUAL_REVIEW.\n"
        "Exit 0 PRE_EXISTING or NO_SIGNAL (NO_SIGNAL: green on the patch is not evidence),\n"
        "1 PATCH_BUG, 2 FLAKY_ORACLE or NEEDS_MANUAL_REVIEW, 3 usage or input error (a\n"
        "ledger that does not parse), 4 no triage (no seed in common)."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("BASE.json"), QStringLiteral("the baseline's ledger"));
    p.addPositionalArgument(QStringLiteral("PATCHED.json"), QStringLiteral("the patch's ledger"));
    const QCommandLineOption format = option("format", "text or json.", "format", "text");
    p.addOption(format);
    if (const std::optional<int> done =
            parseCommandLine(p, QStringLiteral("triage"), arguments, out, err))
        return *done;
    if (const std::optional<int> bad = requireTextOrJson(p, format, QStringLiteral("triage"), err))
        return *bad;
    const QStringList files = p.positionalArguments();
    if (files.size() != 2)
        return usageError(err, "triage: two ledgers are required: triage BASE.json PATCHED.json");
    const core::SeedLedger base = core::SeedLedger::read(files[0].toStdString());
    const core::SeedLedger patched = core::SeedLedger::read(files[1].toStdString());
    const core::TriageResult t = core::triage(base, patched);
    if (p.value(format) == QLatin1String("json")) {
        ordered_json doc = {
            {"schema", "patchwitness.triage/1"},
            {"triage", t.triage ? ordered_json(core::triageName(*t.triage)) : ordered_json()},
            {"witness_seed", t.witnessSeed ? ordered_json(*t.witnessSeed) : ordered_json()},
            {"flaky_seed", t.flakySeed ? ordered_json(*t.flakySeed) : ordered_json()},
            {"message", t.message},
            {"seeds_compared", t.seedsCompared},
            {"base", {{"file", base.file}, {"impl", base.impl}, {"replays", base.replays}}},
            {"patched",
             {{"file", patched.file}, {"impl", patched.impl}, {"replays", patched.replays}}}};
        printText(out, doc.dump(2) + "\n");
    } else {
        printText(out, t.line() + "\n");
    }
    if (!base.prop.empty() && !patched.prop.empty() && base.prop != patched.prop)
        printText(err, "warning: the ledgers are of different tests (" + base.prop + ", " +
                           patched.prop + ")\n");
    return triageExit(t);
}

int testCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Runs the project's suite (head; default: the checkout) once in the pinned environment\n"
        "with the ledger's freezes applied (the seeds' FREEZE_GATE): nothing is skipped; an\n"
        "active freeze's failure is `frozen` (shown, counted, not failing the run), a frozen\n"
        "test that passes is a `thaw-candidate`, an expired freeze fails the run naming it and\n"
        "its expiry. What CI runs on the default branch. Pytest arguments follow `--`:\n"
        "  patchwitness-cli test -- tests/unit -k parse\n"
        "Exit 0 pass (frozen failures included), 1 a failure that is not frozen or an expired\n"
        "freeze, 3 usage or input error (a quarantine.toml that does not parse), 4 the run is\n"
        "no evidence (harness error) or interrupted."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("PYTEST_ARGS"),
                            QStringLiteral("after --: paths, node ids, pytest options"));
    const RunOptions common;
    common.addTo(p);
    const QCommandLineOption junit =
        option("junit", "Also write JUnit XML (frozen failures keep their message).", "file");
    p.addOption(junit);

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> runRequest =
        common.parse(p, QStringLiteral("test"), arguments, out, err, &exitCode);
    if (!runRequest)
        return exitCode;
    // Only the head tree runs: without --base, the base is HEAD (a root commit needs none).
    core::RunRequest testRequest = *runRequest;
    if (testRequest.target.base.empty())
        testRequest.target.base = "HEAD";
    std::vector<std::string> pytestArgs;
    for (const QString &arg : p.positionalArguments())
        pytestArgs.push_back(arg.toStdString());

    const InterruptGuard guard;
    const core::RunContext context = core::RunContext::open(guard.stopping(testRequest));
    const std::string ledgerPath = context.ledgerDir() + "/" + core::QuarantineLedger::kFileName;
    core::QuarantineLedger ledger;
    if (const std::optional<std::string> text = core::readWholeFile(ledgerPath))
        ledger = core::QuarantineLedger::parse(*text, relativeTo(context.repoRoot(), ledgerPath));
    const QDate today = core::parseLedgerDate(core::recordDate(context)).value_or(QDate());
    core::RunPool pool(1);
    core::FrozenRunResult result;
    const bool stopped = runInterruptible(guard, pool, [&] {
        result = core::FrozenRun::run(context, pytestArgs, ledger, today, pool);
    });
    if (p.isSet(junit)) {
        std::string error;
        if (!core::writeFileAtomically(p.value(junit).toStdString(), core::FrozenRun::junit(result),
                                       true, &error))
            throw core::Error::input(p.value(junit).toStdString() +
                                     ": cannot write the JUnit file: " + error);
    }
    if (common.json(p)) {
        ordered_json doc = {{"schema", "patchwitness.test-run/1"},
                            {"verdict", result.verdict},
                            {"ledger", result.ledgerFile.empty() ? ordered_json()
                                                                 : ordered_json(result.ledgerFile)},
                            {"env_digest", result.run.envDigest},
                            {"command", result.run.replay},
                            {"expired", result.expired},
                            {"notes", result.notes},
                            {"harness_reason", result.run.harnessReason.empty()
                                                   ? ordered_json()
                                                   : ordered_json(result.run.harnessReason)}};
        ordered_json outcomes = ordered_json::array();
        for (const core::FrozenOutcome &o : result.outcomes)
            outcomes.push_back(
                {{"test", o.test},
                 {"outcome", o.outcome},
                 {"freeze", o.freeze.empty() ? ordered_json() : ordered_json(o.freeze)},
                 {"message", o.message.empty() ? ordered_json() : ordered_json(o.message)},
                 {"seconds", o.seconds}});
        doc["outcomes"] = outcomes;
        doc["counts"] = {{"pass", result.count("pass")},
                         {"fail", result.count("fail")},
                         {"frozen", result.count("frozen")},
                         {"thaw-candidate", result.count("thaw-candidate")},
                         {"skipped", result.count("skipped")},
                         {"harness_error", result.count("harness_error")}};
        printText(out, doc.dump(2) + "\n");
    } else {
        std::string t;
        for (const core::FrozenOutcome &o : result.outcomes) {
            if (o.outcome == "pass" || o.outcome == "skipped")
                continue;
            t += pad(o.outcome, 15) + " " + o.test + "\n";
            if (!o.freeze.empty())
                t += "                " + o.freeze + "\n";
            if (!o.message.empty() && o.outcome != "thaw-candidate")
                t += "                " + o.message.substr(0, o.message.find('\n')) + "\n";
        }
        for (const std::string &line : result.expired)
            t += "expired freeze  " + line + "\n";
        for (const std::string &line : result.notes)
            t += "note: " + line + "\n";
        if (!result.run.harnessReason.empty())
            t += "harness error: " + result.run.harnessReason + "\n";
        t += std::to_string(result.count("pass")) + " passed, " +
             std::to_string(result.count("fail")) + " failed, " +
             std::to_string(result.count("frozen")) + " frozen, " +
             std::to_string(result.count("thaw-candidate")) + " thaw candidate(s), " +
             std::to_string(result.count("skipped")) + " skipped; " +
             std::to_string(result.expired.size()) + " expired freeze(s) — " + result.verdict +
             " (env digest " + result.run.envDigest + ")\n";
        printText(out, t);
    }
    if (stopped || result.run.status == core::RunStatus::Cancelled) {
        printText(err, "patchwitness-cli: test: interrupted\n");
        return ExitInternal;
    }
    return result.verdict == "pass"   ? ExitPass
           : result.verdict == "fail" ? ExitBlock
                                      : ExitInternal;
}

} // namespace pw::cli
