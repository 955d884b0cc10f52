#include "CensusCommand.h"

#include "Cli.h"
#include "RunOptions.h"
#include "run/Census.h"
#include "run/RunPool.h"

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
    const QCommandLineOption collectOnly(
        QStringLiteral("collect-only"),
        QStringLiteral("Only collect; do not run the suites (witnesses of waivers still run)."));
    const QCommandLineOption reviewOk(
        QStringLiteral("review-ok"),
        QStringLiteral("Exit 0 instead of 2 on REVIEW (not for an unstable census)."));
    p.addOptions({collectOnly, reviewOk});

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> request =
        common.parse(p, QStringLiteral("census"), arguments, out, err, &exitCode);
    if (!request)
        return exitCode;
    if (!p.positionalArguments().isEmpty()) {
        printText(err, "patchwitness-cli: census: unexpected argument '" +
                           p.positionalArguments().constFirst().toStdString() + "'\n");
        return ExitUsage;
    }

    const core::RunContext context = core::RunContext::open(*request);
    core::CensusOptions options;
    options.execute = !p.isSet(collectOnly);
    core::RunPool pool(context.workers());
    core::CensusReport report;
    {
        const InterruptGuard guard(pool);
        report = core::Census::run(context, options, &pool);
        report.interrupted = report.interrupted || guard.interrupted();
    }
    for (const std::string &w : report.warnings)
        printText(err, "warning: " + w + "\n");
    printText(out,
              common.json(p) ? core::formatCensusJson(report) : core::formatCensusText(report));
    if (!report.harnessError.empty() || report.interrupted) {
        printText(err, "patchwitness-cli: census: " +
                           (report.interrupted ? std::string("interrupted") : report.harnessError) +
                           "\n");
        return ExitInternal;
    }
    switch (report.verdict()) {
    case core::Verdict::Pass:
        return ExitPass;
    case core::Verdict::Block:
        return ExitBlock;
    case core::Verdict::Review:
        // An unstable census is not trusted: --review-ok does not make it a pass.
        return p.isSet(reviewOk) && !report.unstable ? ExitPass : ExitReview;
    }
    return ExitInternal;
}

} // namespace pw::cli
