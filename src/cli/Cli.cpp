#include "Cli.h"

#include "AttributeCommands.h"
#include "CensusCommand.h"
#include "CliSupport.h"
#include "LedgerCommands.h"
#include "MatrixCommands.h"
#include "ShadowCommand.h"
#include "ShardCommands.h"
#include "audit/Audit.h"
#include "audit/ReportFormat.h"
#include "repo/DemoRepository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCommandLineParser>
#include <exception>
#include <string>

namespace pw::cli {
namespace {

using pw::core::Error;

const char *kUsage =
    "usage: patchwitness-cli <command> [options]\n"
    "\n"
    "commands:\n"
    "  audit     static patch audit: test-manifest diff, oracle latitude, oracle strength,\n"
    "            collection-hook alarm, fixture digest (exit 0 PASS, 1 BLOCK, 2 REVIEW,\n"
    "            3 usage or input error, 4 internal error)\n"
    "  census    dynamic census: collect both trees (the base twice), run both suites, and\n"
    "            classify removed, narrowed, renamed and newly skipped nodes (SPEC 5.9)\n"
    "  attribute attribute TEST: run a test on the base and head trees and judge NO_REPRO,\n"
    "            PRE_EXISTING, HARNESS_ENV, PATCH_INDUCED or PATCH_MASKS (SPEC 5.3; exit 0\n"
    "            nothing blamed on the patch, 1 patch blamed, 2 review, 3 usage, 4 harness)\n"
    "  cells     cells TEST: the four-cell reproduction matrix (solo, order, isolate, clock)\n"
    "            and what a failing cell says about the test (SPEC 5.4)\n"
    "  matrix    matrix TEST…: seeds 0..N-1 × K isolated replays on both trees and the\n"
    "            triage PATCH_BUG, FLAKY_ORACLE, PRE_EXISTING, NO_SIGNAL (SPEC 5.2; exit 0,\n"
    "            1 PATCH_BUG, 2 review, 3 usage, 4 no triage)\n"
    "  triage    triage BASE.json PATCHED.json: the same table over two seed-matrix ledgers\n"
    "  test      test [-- PYTEST ARGS]: the suite with the ledger's freezes applied (frozen\n"
    "            failures do not fail it, expired freezes do; exit 0, 1, 3, 4)\n"
    "  shadow    skip witnesses: run the head tests the patch can reach plus a shadow sample\n"
    "            of the skipped ones; a failing sampled test is a witness bug (SPEC 5.10)\n"
    "  merge     merge SHARD.json…: join the shard ledgers of a sweep run across CI jobs\n"
    "            (attribute/cells --shard i/n) and print its result (SPEC 9)\n"
    "  ledger    ledger check: validate the ledgers (exit 1 on any problem);\n"
    "            ledger history [TEST]: per-entry events across commits\n"
    "  waive     approve a census waiver for a removed node (--by required)\n"
    "  freeze    grant a freeze for a pre-existing failure (--by required)\n"
    "  renew     renew a freeze after a recent reproduction (--by required)\n"
    "  journal   journal close ID: close a seed journal row (--by required)\n"
    "  demo      print the path of the demo repository (an agent's patch showing every\n"
    "            static verdict), building it first when needed:\n"
    "            patchwitness-cli audit --repo \"$(patchwitness-cli demo)\"\n"
    "\n"
    "Run 'patchwitness-cli <command> --help' for the options of a command.\n";

int audit(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Static audit of a patch: compares the base and head revisions of a repository."));
    p.addHelpOption();
    const QCommandLineOption repo =
        option("repo", "Repository (or a directory inside it).", "path", ".");
    const QCommandLineOption base = option(
        "base", "Base revision (default: merge-base of head and the upstream/main branch).", "rev");
    const QCommandLineOption head = option(
        "head", "Head revision or WORKTREE (default: WORKTREE when dirty, else HEAD).", "rev");
    const QCommandLineOption format =
        option("format", "text, json, md, junit or html.", "format", "text");
    const QCommandLineOption output = option("output",
                                             "Write the report to a file (atomically) "
                                             "instead of standard output.",
                                             "file");
    const QCommandLineOption withManifest = option(
        "with-manifest", "Include the manifest of the whole head tree (reads every test file).");
    const QCommandLineOption reviewOk = option("review-ok", "Exit 0 instead of 2 on REVIEW.");
    const QCommandLineOption config = option(
        "config", "config.toml to use (default: the base revision's <ledger-dir>/config.toml).",
        "file");
    const QCommandLineOption ledgerDir =
        option("ledger-dir", "Ledger directory (default .patchwitness).", "dir", ".patchwitness");
    const QCommandLineOption python =
        option("python", "Python interpreter (overrides config `python`).", "path");
    const QCommandLineOption cacheDir = option("cache-dir", "Fact cache directory.", "dir");
    const QCommandLineOption noCache = option("no-cache", "Do not read or write the fact cache.");
    const QCommandLineOption quiet = option("quiet", "No progress on standard error.");
    p.addOptions({repo, base, head, format, output, withManifest, reviewOk, config, ledgerDir,
                  python, cacheDir, noCache, quiet});

    if (std::optional<int> done = parseCommandLine(p, QStringLiteral("audit"), arguments, out, err))
        return *done;
    if (std::optional<int> done = refusePositionals(p, QStringLiteral("audit"), err))
        return *done;
    const std::optional<core::ReportFormat> fmt =
        core::reportFormatFromName(p.value(format).toStdString());
    if (!fmt)
        return usageError(err, QStringLiteral("audit: unknown --format '%1' (text, json, md, "
                                              "junit, html)")
                                   .arg(p.value(format)));

    core::AuditRequest request;
    request.repoPath = p.value(repo).toStdString();
    request.base = p.value(base).toStdString();
    request.head = p.value(head).toStdString();
    request.configPath = p.value(config).toStdString();
    request.ledgerDir = p.value(ledgerDir).toStdString();
    if (p.isSet(python))
        request.python = p.value(python).toStdString();
    request.cacheDir = p.value(cacheDir).toStdString();
    request.useCache = !p.isSet(noCache);
    request.withManifest = p.isSet(withManifest);
    if (!p.isSet(quiet))
        request.progress = [err](const std::string &line) {
            printText(err, "audit: " + line + "\n");
        };

    const core::GateReport report = core::Audit::run(request);
    printWarnings(err, report.warnings);
    const std::string text = core::formatReport(report, *fmt);
    if (p.isSet(output)) {
        std::string error;
        if (!core::writeFileAtomically(p.value(output).toStdString(), text, false, &error))
            throw Error::input("cannot write the report: " + error);
    } else {
        printText(out, text);
    }
    return verdictExit(report.verdict, p.isSet(reviewOk));
}

int demo(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Prints the path of the demo repository (a Python package and an agent's patch that "
        "shows every static verdict), building it first when it is missing or outdated."));
    p.addHelpOption();
    const QCommandLineOption dir(
        QStringLiteral("dir"),
        QStringLiteral("Where the demo lives (default: %1).")
            .arg(QString::fromStdString(core::DemoRepository::defaultDir())),
        QStringLiteral("dir"));
    p.addOptions({dir});

    if (std::optional<int> done = parseCommandLine(p, QStringLiteral("demo"), arguments, out, err))
        return *done;
    if (std::optional<int> done = refusePositionals(p, QStringLiteral("demo"), err))
        return *done;
    printText(out, core::DemoRepository::ensure(p.value(dir).toStdString()) + "\n");
    return ExitPass;
}

} // namespace

int run(const QStringList &arguments, FILE *out, FILE *err)
{
    if (arguments.isEmpty()) {
        printText(err, kUsage);
        return ExitUsage;
    }
    const QString command = arguments.constFirst();
    const QStringList rest = arguments.mid(1);
    if (command == QLatin1String("--help") || command == QLatin1String("-h") ||
        command == QLatin1String("help")) {
        printText(out, kUsage);
        return ExitPass;
    }
    if (command == QLatin1String("--version")) {
        printText(out, std::string("patchwitness-cli ") + PATCHWITNESS_VERSION + "\n");
        return ExitPass;
    }
    try {
        if (command == QLatin1String("audit"))
            return audit(rest, out, err);
        if (command == QLatin1String("demo"))
            return demo(rest, out, err);
        if (command == QLatin1String("ledger"))
            return ledgerCommand(rest, out, err);
        if (command == QLatin1String("census"))
            return censusCommand(rest, out, err);
        if (command == QLatin1String("attribute"))
            return attributeCommand(rest, out, err);
        if (command == QLatin1String("shadow"))
            return shadowCommand(rest, out, err);
        if (command == QLatin1String("cells"))
            return cellsCommand(rest, out, err);
        if (command == QLatin1String("matrix"))
            return matrixCommand(rest, out, err);
        if (command == QLatin1String("triage"))
            return triageCommand(rest, out, err);
        if (command == QLatin1String("test"))
            return testCommand(rest, out, err);
        if (command == QLatin1String("merge"))
            return mergeCommand(rest, out, err);
        if (command == QLatin1String("waive"))
            return waiveCommand(rest, out, err);
        if (command == QLatin1String("freeze"))
            return freezeCommand(rest, out, err);
        if (command == QLatin1String("renew"))
            return renewCommand(rest, out, err);
        if (command == QLatin1String("journal"))
            return journalCommand(rest, out, err);
    } catch (const Error &e) {
        // A signal while the command prepared its runs (RunContext::open): what a signal
        // during the runs says, and what was stopped.
        if (e.kind() == Error::Kind::Interrupted) {
            printText(err, "patchwitness-cli: " + command.toStdString() +
                               ": interrupted while preparing the runs (" + e.what() + ")\n");
            return ExitInternal;
        }
        printText(err, std::string("patchwitness-cli: error: ") + e.what() + "\n");
        return e.kind() == Error::Kind::Input ? ExitUsage : ExitInternal;
    } catch (const std::exception &e) {
        printText(err, std::string("patchwitness-cli: internal error: ") + e.what() + "\n");
        return ExitInternal;
    }
    return usageError(
        err, QStringLiteral("unknown command '%1'\n%2").arg(command, QString::fromLatin1(kUsage)));
}

} // namespace pw::cli
