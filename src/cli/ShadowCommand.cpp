#include "ShadowCommand.h"

#include "Cli.h"
#include "CliSupport.h"
#include "RunOptions.h"
#include "dynamic/Shadow.h"
#include "execution/RunPool.h"

namespace pw::cli {

int shadowCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Skip witnesses and the shadow sample (SPEC 5.10): the base tree's per-test witness\n"
        "(stored in the cache, <cache dir>/witness/, else taken with a full base run; never\n"
        "read from the ledger directory) decides which head\n"
        "tests the patch can reach; those run at head together with a sample of the skipped\n"
        "ones keyed by the patch. A failing sampled test is a witness bug. Exit 0 OK, 1 a\n"
        "selected test failed or a witness bug, 3 usage or input error, 4 no result (harness\n"
        "error or interrupted)."));
    p.addHelpOption();
    const RunOptions common;
    common.addTo(p);
    const QCommandLineOption pct =
        option("pct", "Shadow sample percentage 0..100 (default: config shadow_pct, 10).", "N");
    const QCommandLineOption rewitness =
        option("rewitness", "Take a new base witness even when a stored one is intact.");
    const QCommandLineOption dryRun =
        option("dry-run", "Decisions and the sample only; do not run the head tests.");
    p.addOptions({pct, rewitness, dryRun});

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> request =
        common.parse(p, QStringLiteral("shadow"), arguments, out, err, &exitCode);
    if (!request)
        return exitCode;
    if (std::optional<int> done = refusePositionals(p, QStringLiteral("shadow"), err))
        return *done;
    core::ShadowOptions options;
    if (p.isSet(pct)) {
        bool ok = false;
        const int value = p.value(pct).toInt(&ok);
        if (!ok || value < 0 || value > 100)
            return usageError(err, "shadow: --pct: expected 0..100, not '" +
                                       p.value(pct).toStdString() + "'");
        options.pct = value;
    }
    options.rewitness = p.isSet(rewitness);
    options.dryRun = p.isSet(dryRun);

    const InterruptGuard guard;
    const core::RunContext context = core::RunContext::open(guard.stopping(*request));
    core::RunPool pool(context.workers());
    core::ShadowReport report;
    if (runInterruptible(guard, pool, [&] { report = core::Shadow::run(context, options, pool); }))
        report.interrupted = true;
    printWarnings(err, report.warnings);
    printText(out,
              common.json(p) ? core::formatShadowJson(report) : core::formatShadowText(report));
    if (const int failed = failureExit("shadow", report.interrupted, report.harnessError, err))
        return failed;
    if (!report.bugs.empty() || !report.failures().empty())
        return ExitBlock;
    // Selected tests without evidence (timed out, not collected): no result; the verdict
    // line names them.
    return report.noEvidence().empty() ? ExitPass : ExitInternal;
}

} // namespace pw::cli
