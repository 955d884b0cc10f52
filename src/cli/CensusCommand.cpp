#include "CensusCommand.h"

#include "Cli.h"
#include "CliSupport.h"
#include "RunOptions.h"
#include "dynamic/Census.h"
#include "execution/RunPool.h"

namespace pw::cli {

int censusCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Dynamic census (SPEC 5.9): collects the tests of the base (twice) and head trees,\n"
        "runs both suites for executed vs skipped, and classifies every removed, narrowed,\n"
        "renamed or newly skipped node against the ledgers. Exit 0 PASS, 1 BLOCK, 2 REVIEW,\n"
        "3 usage or input error, 4 no census (harness error or interrupted)."));
    p.addHelpOption();
    const RunOptions common;
    common.addTo(p);
    const QCommandLineOption collectOnly = option(
        "collect-only", "Only collect; do not run the suites (witnesses of waivers still run).");
    const QCommandLineOption reviewOk =
        option("review-ok", "Exit 0 instead of 2 on REVIEW (not for an unstable census).");
    p.addOptions({collectOnly, reviewOk});

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> request =
        common.parse(p, QStringLiteral("census"), arguments, out, err, &exitCode);
    if (!request)
        return exitCode;
    if (std::optional<int> done = refusePositionals(p, QStringLiteral("census"), err))
        return *done;

    const InterruptGuard guard;
    const core::RunContext context = core::RunContext::open(guard.stopping(*request));
    core::CensusOptions options;
    options.execute = !p.isSet(collectOnly);
    core::RunPool pool(context.workers());
    core::CensusReport report;
    if (runInterruptible(guard, pool, [&] { report = core::Census::run(context, options, pool); }))
        report.interrupted = true;
    printWarnings(err, report.warnings);
    printText(out,
              common.json(p) ? core::formatCensusJson(report) : core::formatCensusText(report));
    if (const int failed = failureExit("census", report.interrupted, report.harnessError, err))
        return failed;
    // An unstable census is not trusted: --review-ok does not make it a pass.
    return verdictExit(report.verdict(), p.isSet(reviewOk) && !report.unstable);
}

} // namespace pw::cli
