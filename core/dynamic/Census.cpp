#include "dynamic/Census.h"

#include "audit/LedgerGate.h"
#include "dynamic/CensusClassifier.h"
#include "execution/RunPool.h"
#include "execution/Sandbox.h"
#include "ledger/LedgerDate.h"
#include "python/FactExtractor.h"
#include "python/TestsAtRevision.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <QDate>
#include <QFileInfo>
#include <algorithm>
#include <set>

namespace pw::core {

namespace {

std::map<std::string, Outcome> outcomesOf(const RunResult &run)
{
    std::map<std::string, Outcome> out;
    if (!run.evidence())
        return out;
    for (const NodeOutcome &o : run.outcomes)
        out[o.nodeId] = o.outcome;
    return out;
}

// Pass when every collected node of `witness` passed; otherwise the first other outcome.
std::optional<Outcome> witnessOutcome(const std::map<std::string, Outcome> &outcomes,
                                      const std::string &witness)
{
    std::optional<Outcome> result;
    for (const auto &[id, o] : outcomes) {
        if (id != witness && functionIdOf(id) != witness)
            continue;
        if (o != Outcome::Pass)
            return o;
        result = Outcome::Pass;
    }
    return result;
}

// The base test functions the head collects no node of, and which of them the head's source
// no longer defines (in which removed files): the removals a waiver may answer.
CensusRemovals censusRemovals(const Repository &repo, const RunContext &ctx,
                              const CensusCollection &base, const CensusCollection &head,
                              const CensusStatic &baseStatic, FactExtractor &extractor)
{
    CensusRemovals removals;
    for (const auto &[id, facts] : baseStatic.functions)
        removals.baseTests[fileOf(id)].insert(id);
    std::set<std::string> removed;
    for (const CensusNode &n : base.dump.nodes) {
        const std::string fn = functionIdOf(n.nodeId);
        if (!collectedAt(head, fn))
            removed.insert(fn);
    }
    const TestsAtRevision atHead = TestsAtRevision::read(
        repo, ctx.head(), std::vector<std::string>(removed.begin(), removed.end()), extractor);
    for (const std::string &fn : removed) {
        if (atHead.listed(fn))
            continue;
        removals.goneAtHead.insert(fn);
        if (!repo.entry(ctx.head(), fileOf(fn)))
            removals.filesGoneAtHead.insert(fileOf(fn));
    }
    return removals;
}

std::string differenceOf(const CensusDump &a, const CensusDump &b)
{
    std::set<std::string> ia, ib;
    for (const CensusNode &n : a.nodes)
        ia.insert(n.nodeId);
    for (const CensusNode &n : b.nodes)
        ib.insert(n.nodeId);
    std::vector<std::string> only;
    std::set_symmetric_difference(ia.begin(), ia.end(), ib.begin(), ib.end(),
                                  std::back_inserter(only));
    std::string text = "count " + std::to_string(a.count()) + " vs " + std::to_string(b.count()) +
                       ", digest " + a.digest + " vs " + b.digest;
    if (!only.empty()) {
        text += "; in one collection only: " + only.front();
        if (only.size() > 1)
            text += " and " + std::to_string(only.size() - 1) + " more";
    }
    return text;
}

} // namespace

Verdict CensusReport::verdict() const
{
    Verdict v = Verdict::Pass;
    for (const Finding &f : findings) {
        if (f.satisfiedBy)
            continue;
        if (f.severity == Severity::Block)
            return Verdict::Block;
        if (f.severity == Severity::Review)
            v = Verdict::Review;
    }
    return v;
}

int CensusReport::count(const std::string &change) const
{
    return int(std::count_if(rows.begin(), rows.end(),
                             [&](const CensusRow &r) { return r.change == change; }));
}

void Census::readCollection(CensusCollection &c, const std::string &dumpPath)
{
    const RunResult &run = c.run;
    for (const NodeOutcome &o : run.outcomes) {
        if (o.outcome == Outcome::Error && o.message == "collection failure")
            c.collectErrors[fileOf(o.nodeId)] = "collection failure";
    }
    if (run.status != RunStatus::Completed) {
        c.error = run.harnessReason;
        return;
    }
    if (run.exitCode != 0 && run.exitCode != 2 && run.exitCode != 5) {
        c.error = run.harnessReason.empty() ? "pytest exit " + std::to_string(run.exitCode)
                                            : run.harnessReason;
        return;
    }
    const std::optional<std::string> text = readWholeFile(dumpPath);
    if (!text) {
        // exit 5 before any module was imported writes no dump: an empty census is valid.
        if (run.exitCode == 5) {
            c.ok = true;
            c.dump.origin = dumpPath;
            c.dump.digest = CensusDump::digestOf({});
            return;
        }
        c.error = "the collect-only run wrote no census dump (" + dumpPath + ")";
        return;
    }
    try {
        c.dump = CensusDump::parse(*text, dumpPath);
        c.ok = true;
        for (const auto &[path, message] : c.dump.errors)
            c.collectErrors[fileOf(path)] =
                message.empty() ? "collection failure" : censusErrorLine(message);
    } catch (const Error &e) {
        c.error = e.what();
    }
}

namespace {

// Whether a run's errorDetail is PytestRun's "conftest tests/conftest.py failed to load: …".
bool conftestFailedToLoad(const std::string &errorDetail)
{
    return errorDetail.starts_with("conftest ") &&
           errorDetail.find(" failed to load") != std::string::npos;
}

// The patch broke the head's collection as a whole — a conftest raises at import there
// (one the patch edits, or one importing code it edits) — while the base collects, twice,
// in the same environment: every base test file still at head fails to collect there
// (C-COLLECT, the classifier's; a file the patch deleted stays C-REMOVED). Only then: a
// plugin or option that does not load (the environment's), a failure the sandbox explains
// (no network, read-only files), a run that did not complete, stay a harness error.
void treatBrokenHeadCollection(const RunContext &ctx, CensusReport &report)
{
    const CensusCollection &base = report.collections[0];
    CensusCollection &head = report.collections[1];
    const CensusCollection &base2 = report.collections[2];
    if (head.ok || !base.ok || !base2.ok || head.run.status != RunStatus::Completed ||
        base.dump.nodes.empty())
        return;
    if (!conftestFailedToLoad(head.run.errorDetail))
        return;
    if (head.run.sandboxed &&
        (Sandbox::classifyFailure(head.run.errorDetail) != NetworkBlock::None ||
         head.run.errorDetail.find("Read-only file system") != std::string::npos))
        return;
    head.ok = true;
    head.dump = {};
    head.dump.digest = CensusDump::digestOf({});
    head.wholeTreeError = head.run.errorDetail;
    for (const CensusNode &n : base.dump.nodes) {
        const std::string file = fileOf(n.nodeId);
        if (QFileInfo::exists(QString::fromStdString(ctx.treeDir(Arm::Head) + "/" + file)))
            head.collectErrors[file] = head.run.errorDetail;
    }
    report.warnings.push_back("the head tree does not collect at all (" + head.run.errorDetail +
                              "): every base test file it still has is counted as failing to "
                              "collect at head");
}

// The head refuses its own configuration (an addopts option, a minversion) while the base
// collects, twice, in the same environment: what to do about it ("" otherwise; an ini file
// that does not parse is the patch's mistake, not the environment's). No finding:
// the option may belong to a plugin the reviewer's environment loads and the pinned one
// does not.
std::string headOnlyConfigurationHint(const CensusReport &report)
{
    const std::string &detail = report.collections[1].run.errorDetail;
    if (!report.collections[0].ok || !report.collections[2].ok)
        return {};
    const std::string base = "; the base collects in this environment, so the head's pytest "
                             "configuration asks for something it lacks";
    if (detail.starts_with("usage error: "))
        return base + " (an option of a plugin the run does not load? add the plugin to "
                      "config `plugins`)";
    if (detail.starts_with("configuration error: ") &&
        detail.find("'minversion' requires") != std::string::npos)
        return base + " (a newer pytest)";
    return {};
}

} // namespace

CensusReport Census::run(const RunContext &ctx, const CensusOptions &options, RunPool &runner,
                         const RunPool::Progress &progress)
{
    CensusReport report;
    report.repo = ctx.repoRoot();
    report.base = ctx.base().spec;
    report.baseCommit = ctx.base().commit;
    report.head = ctx.head().spec;
    report.headCommit = ctx.head().isWorktree() || ctx.head().isPatch() ? "" : ctx.head().commit;

    report.provenance = ctx.provenance();
    report.executed = options.execute;
    report.sandboxed = ctx.sandbox();

    // Collect-only: base, head, base again (interleaved so noise hits both trees).
    std::vector<RunSpec> specs;
    std::vector<std::string> dumps;
    for (const Arm arm : {Arm::Base, Arm::Head, Arm::Base}) {
        RunSpec spec = ctx.spec(arm, {}, 0);
        spec.extraArgs << QStringLiteral("--collect-only");
        spec.env.witness.collectFile = spec.runDir + "/census.json";
        spec.env.witness.outFile.clear();
        spec.env.witness.orderFile.clear();
        // A collection error is a census finding, not an infrastructure failure.
        spec.infraFailPct = 100;
        dumps.push_back(spec.env.witness.collectFile);
        specs.push_back(std::move(spec));
    }
    if (options.execute) {
        for (const Arm arm : {Arm::Base, Arm::Head})
            specs.push_back(ctx.spec(arm, {}, 0));
    }
    ctx.say("collecting base, head and base again" +
            std::string(options.execute ? ", then running both suites" : "") + " on " +
            std::to_string(ctx.workers()) + " worker(s)");
    const std::vector<RunResult> results =
        runner.run(specs, [&](int done, int total, const RunResult &r) {
            if (progress)
                progress(done, total, r);
            const bool collect = r.command.find("--collect-only") != std::string::npos;
            ctx.say(std::to_string(done) + "/" + std::to_string(total) + " " + r.arm +
                    (collect ? " collect" : " run") + ": " +
                    (r.evidence() || r.status == RunStatus::Completed
                         ? "exit " + std::to_string(r.exitCode)
                         : std::string(runStatusName(r.status))) +
                    " (" + formatSeconds(r.durationMs / 1000.0) + ")");
        });

    for (int i = 0; i < 3; ++i) {
        CensusCollection c;
        c.arm = i == 1 ? Arm::Head : Arm::Base;
        c.run = results[size_t(i)];
        readCollection(c, dumps[size_t(i)]);
        report.collections.push_back(std::move(c));
    }
    for (size_t i = 3; i < results.size(); ++i)
        report.executions.push_back(results[i]);
    report.envDigest = results.front().envDigest;
    report.interrupted = std::any_of(results.begin(), results.end(), [](const RunResult &r) {
        return r.status == RunStatus::Cancelled;
    });

    const CensusCollection &base = report.collections[0];
    const CensusCollection &head = report.collections[1];
    const CensusCollection &base2 = report.collections[2];
    treatBrokenHeadCollection(ctx, report);
    for (const CensusCollection &c : report.collections) {
        if (!c.ok) {
            report.harnessError = std::string(armName(c.arm)) + " collection: " + c.error;
            if (c.arm == Arm::Head)
                report.harnessError += headOnlyConfigurationHint(report);
            return report;
        }
    }
    if (report.interrupted) {
        report.harnessError = "interrupted: runs were cancelled, so the census is incomplete";
        return report;
    }
    for (const RunResult &r : results) {
        if (!r.envDigest.empty() && r.envDigest != report.envDigest) {
            report.harnessError = "runs of this census have different env digests (" +
                                  report.envDigest + ", " + r.envDigest + "): not comparable";
            return report;
        }
    }
    if (base.dump.digest != base2.dump.digest) {
        report.unstable = true;
        report.unstableDetail = differenceOf(base.dump, base2.dump);
        report.findings.push_back(censusFileFinding(
            "C-UNSTABLE", Severity::Review, "",
            "the baseline census is not reproducible (" + report.unstableDetail +
                "): the census is unstable and not trusted",
            "a collection that does not depend on the run (ordering, time, environment)"));
    }
    for (const auto &[file, message] : base.collectErrors)
        report.warnings.push_back(file + " fails to collect at base as well (" + message + ")");

    // Executed vs skipped.
    // Only when both suite runs are evidence: one arm's run-time skips compared with the
    // other arm's collection alone would look like skips the patch added.
    // The head run's outcomes also serve the witnesses of waivers when only that run is
    // evidence.
    std::map<std::string, Outcome> baseRun, headRun, headEvidence;
    const bool bothRuns = report.executions.size() == 2 &&
                          std::all_of(report.executions.begin(), report.executions.end(),
                                      [](const RunResult &r) { return r.evidence(); });
    for (const RunResult &r : report.executions) {
        if (!r.evidence()) {
            report.warnings.push_back(r.arm +
                                      " suite run not used as evidence: " + r.harnessReason);
            continue;
        }
        if (r.arm == "head")
            headEvidence = outcomesOf(r);
        else if (bothRuns)
            baseRun = outcomesOf(r);
    }
    if (bothRuns)
        headRun = headEvidence;
    if (!report.executions.empty() && !bothRuns)
        report.warnings.push_back("executed vs skipped compares collections only: the other "
                                  "suite run is no evidence either way");

    // Static side: facts of every test file either census names, and the ledgers.
    const Repository repo = Repository::open(ctx.repoRoot());
    std::set<std::string> baseFiles, headFiles;
    for (const CensusNode &n : base.dump.nodes)
        baseFiles.insert(fileOf(n.nodeId));
    for (const CensusNode &n : head.dump.nodes)
        headFiles.insert(fileOf(n.nodeId));
    FactExtractor extractor =
        extractorFor(ctx.config(), ctx.target().cacheDir.empty() ? FactExtractor::defaultCacheDir()
                                                                 : ctx.target().cacheDir);
    for (const auto &[file, message] : head.collectErrors)
        baseFiles.insert(file); // the base facts of a file that breaks at head
    const CensusStatic baseStatic = censusStaticFacts(repo, ctx.base(), extractor, baseFiles);
    const CensusStatic headStatic = censusStaticFacts(repo, ctx.head(), extractor, headFiles);

    // Waivers and freezes count as the static audit's ledger gate counts them, from the
    // ledgers alone (CountingLedgers): the rest of the audit is not needed here.
    std::optional<CountingLedgers> counting;
    try {
        DiffOptions diffOptions;
        diffOptions.contextLines = 0;
        diffOptions.intraline = false;
        const PatchDiff diff = repo.diff(ctx.base(), ctx.head(), diffOptions);
        counting = CountingLedgers::compute({repo, ctx.base(), ctx.head(), diff, ctx.config(),
                                             censusLedgerPrefix(ctx), ctx.ledgerDir(),
                                             ctx.target().today, extractor});
    } catch (const Error &e) {
        report.warnings.push_back(
            std::string("the ledgers could not be counted, waivers and freezes not counted: ") +
            e.what());
    }
    QDate today = QDate::currentDate();
    if (!ctx.target().today.empty()) {
        if (const std::optional<QDate> d = parseLedgerDate(ctx.target().today))
            today = *d;
    }
    // A ledger that does not parse counts no entry: said, with file:line:column, so a
    // removal it meant to waive is not silently a block (or a freeze silently missing).
    if (counting) {
        std::set<std::string> said; // head() holds base's files too: each problem once
        for (const LedgerSet *side : {&counting->base(), &counting->head()}) {
            for (const LedgerProblem &p : side->loadProblems) {
                if (said.insert(p.toString()).second)
                    report.warnings.push_back(
                        (side == &counting->base() ? "base ledgers: " : "head ledgers: ") +
                        p.toString() + " (its entries not counted)");
            }
        }
    }
    const CensusLedgers ledgers(std::move(counting),
                                censusRemovals(repo, ctx, base, head, baseStatic, extractor),
                                censusBaseLedgers(ctx, repo), today);

    // Witnesses the execution did not run (or no execution): one head run of them.
    std::map<std::string, Outcome> witnessRun = headEvidence;
    {
        std::set<std::string> renamed; // base functions matched under another id
        for (const auto &[from, rename] : censusRenames(base, head, baseStatic, headStatic))
            renamed.insert(from);
        std::vector<std::string> needed;
        for (const CensusNode &n : base.dump.nodes) {
            if (collectedAt(head, n.nodeId))
                continue;
            const std::string fn = functionIdOf(n.nodeId);
            if (const std::optional<std::string> node =
                    ledgers.waiverFor(fn, fileOf(fn), renamed)) {
                const std::optional<std::string> w = ledgers.witnessOf(*node);
                if (w && !w->empty() && collectedAt(head, *w) &&
                    !witnessOutcome(headEvidence, *w) &&
                    std::find(needed.begin(), needed.end(), *w) == needed.end())
                    needed.push_back(*w);
            }
        }
        if (!needed.empty() && !report.interrupted) {
            ctx.say("running " + std::to_string(needed.size()) + " waiver witness(es) at head");
            const int planned = int(results.size()) + 1;
            const std::vector<RunResult> w =
                runner.run({ctx.spec(Arm::Head, needed, 0)}, [&](int, int, const RunResult &r) {
                    if (progress)
                        progress(planned, planned, r);
                });
            report.executions.push_back(w.front());
            if (w.front().status == RunStatus::Cancelled)
                report.interrupted = true;
            if (!w.front().evidence())
                report.warnings.push_back("the waiver witness run is no evidence: " +
                                          w.front().harnessReason);
            for (const auto &[id, outcome] : outcomesOf(w.front()))
                witnessRun[id] = outcome;
        }
    }

    classifyCensus(report, base, head, baseRun, headRun, baseStatic, headStatic, ledgers,
                   [&](const std::string &witness) { return witnessOutcome(witnessRun, witness); });

    auto summarise = [&](const CensusCollection &c, const std::map<std::string, Outcome> &run,
                         const CensusStatic &side, bool isBase) {
        CensusArmSummary s;
        s.collected = c.dump.count();
        s.digest = c.dump.digest;
        for (const CensusRow &r : report.rows) {
            if (isBase ? !r.atBase : !r.atHead)
                continue;
            const bool skipped = isBase ? r.skippedBase : r.skippedHead;
            s.skipped += skipped ? 1 : 0;
            s.executed += !skipped && run.count(r.nodeId) ? 1 : 0;
        }
        s.assertions = side.assertions;
        s.testFunctions = side.testFunctions;
        return s;
    };
    report.baseSummary = summarise(base, baseRun, baseStatic, true);
    report.headSummary = summarise(head, headRun, headStatic, false);
    return report;
}

} // namespace pw::core
