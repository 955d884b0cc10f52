#include "ShadowCommand.h"

#include "Cli.h"
#include "RunOptions.h"
#include "run/RunPool.h"
#include "run/Shadow.h"

namespace pw::cli {

int shadowCommand(const QStringList &arguments, FILE *out, FILE *err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Skip witnesses and the shadow sample (SPEC 5.10): the base tree's per-test witness\n"
        "(stored in <ledger dir>/runs/, else taken with a full base run) decides which head\n"
        "tests the patch can reach; those run at head together with a sample of the skipped\n"
        "ones keyed by the patch. A failing sampled test is a witness bug. Exit 0 OK, 1 a\n"
        "selected test failed or a witness bug, 3 usage or input error, 4 no result (harness\n"
        "error or interrupted)."));
    p.addHelpOption();
    const RunOptions common;
    common.addTo(p);
    const QCommandLineOption pct(
        QStringLiteral("pct"),
        QStringLiteral("Shadow sample percentage 0..100 (default: config shadow_pct, 10)."),
        QStringLiteral("N"));
    const QCommandLineOption rewitness(
        QStringLiteral("rewitness"),
        QStringLiteral("Take a new base witness even when a stored one is intact."));
    const QCommandLineOption dryRun(
        QStringLiteral("dry-run"),
        QStringLiteral("Decisions and the sample only; do not run the head tests."));
    p.addOptions({pct, rewitness, dryRun});

    int exitCode = ExitPass;
    const std::optional<core::RunRequest> request =
        common.parse(p, QStringLiteral("shadow"), arguments, out, err, &exitCode);
    if (!request)
        return exitCode;
    if (!p.positionalArguments().isEmpty()) {
        printText(err, "patchwitness-cli: shadow: unexpected argument '" +
                           p.positionalArguments().constFirst().toStdString() + "'\n");
        return ExitUsage;
    }
    core::ShadowOptions options;
    if (p.isSet(pct)) {
        bool ok = false;
        const int value = p.value(pct).toInt(&ok);
        if (!ok || value < 0 || value > 100) {
            printText(err, "patchwitness-cli: shadow: --pct: expected 0..100, not '" +
                               p.value(pct).toStdString() + "'\n");
            return ExitUsage;
        }
        options.pct = value;
    }
    options.rewitness = p.isSet(rewitness);
    options.dryRun = p.isSet(dryRun);

    const core::RunContext context = core::RunContext::open(*request);
    core::RunPool pool(context.workers());
    core::ShadowReport report;
    {
        const InterruptGuard guard(pool);
        report = core::Shadow::run(context, options, &pool);
        report.interrupted = report.interrupted || guard.interrupted();
    }
    for (const std::string &w : report.warnings)
        printText(err, "warning: " + w + "\n");
    printText(out,
              common.json(p) ? core::formatShadowJson(report) : core::formatShadowText(report));
    if (!report.harnessError.empty() || report.interrupted) {
        printText(err, "patchwitness-cli: shadow: " +
                           (report.interrupted ? std::string("interrupted") : report.harnessError) +
                           "\n");
        return ExitInternal;
    }
    return report.bugs.empty() && report.failures().empty() ? ExitPass : ExitBlock;
}

} // namespace pw::cli
