#include "dynamic/Attribution.h"

#include "dynamic/RunsDir.h"
#include "dynamic/ShardMerge.h"
#include "execution/RunEnvironment.h"
#include "execution/Sandbox.h"
#include "ledger/LedgerDate.h"
#include "util/Error.h"
#include "util/Format.h"

#include <QDate>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>

namespace pw::core {

namespace {

// pytest's own words for a node or file that is not there (exit 4).
bool saysNotFound(const RunResult &result)
{
    for (const std::string *text : {&result.stderrTail, &result.stdoutTail}) {
        if (text->find("ERROR: not found:") != std::string::npos ||
            text->find("ERROR: file or directory not found:") != std::string::npos)
            return true;
    }
    return false;
}

const NodeOutcome *findRow(const RunResult &result, const std::string &nodeId)
{
    const NodeOutcome *exact = nullptr;
    for (const NodeOutcome &row : result.outcomes) {
        if (row.nodeId == nodeId) {
            exact = &row;
            break;
        }
    }
    // A selected node PytestRun did not find in the JUnit file gets a NotCollected row; when
    // the run reported exactly one other node, that is the node under another spelling.
    if (exact && exact->outcome == Outcome::NotCollected && result.outcomes.size() == 2) {
        for (const NodeOutcome &row : result.outcomes) {
            if (&row != exact)
                return &row;
        }
    }
    return exact;
}

std::string today(const RunContext &ctx)
{
    if (!ctx.target().today.empty())
        return ctx.target().today;
    return ledgerDateText(QDate::currentDate());
}

// Throws Error::input when the first base/head pair (`pair`) finished and collected the node
// on neither tree: no such test, whatever the other runs would say. A sweep's first pair is
// its first seed (a shard's first own one); a node only some seeds collect (a parametrize
// drawn from a set) is named by the hint, which a typo costs nothing.
void refuseIfCollectedNowhere(const RunContext &ctx, const std::string &nodeId, bool swept,
                              const std::vector<RunResult> &pair)
{
    if (pair.size() != 2)
        return;
    for (const RunResult &result : pair) {
        if (nodeRun(result, nodeId).outcome != Outcome::NotCollected)
            return;
    }
    throw Error::input(
        "'" + nodeId + "': not collected at base nor at head (base " + ctx.base().spec + ", head " +
        ctx.head().spec + ")" +
        (swept ? " at seed " + std::to_string(pair.front().seed) + " (the first the sweep ran)"
               : std::string()) +
        ": no such test on either tree, nothing else was run; check the node id (pytest's "
        "spelling: path/to/test_file.py::Class::test_name[param])" +
        (swept ? "; a node that only some seeds collect: --mode matched --seed S" : ""));
}

// The tree that did not collect the node in the first base/head pair while the other did
// (ran it, or failed to run it): nullopt when both or neither collected it.
std::optional<Arm> absentArm(const std::string &nodeId, const std::vector<RunResult> &pair)
{
    if (pair.size() != 2)
        return std::nullopt;
    const bool baseMissing = nodeRun(pair[0], nodeId).outcome == Outcome::NotCollected;
    const bool headMissing = nodeRun(pair[1], nodeId).outcome == Outcome::NotCollected;
    if (baseMissing == headMissing)
        return std::nullopt;
    return baseMissing ? Arm::Base : Arm::Head;
}

} // namespace

std::string NodeRunProgress::line() const
{
    std::string text = std::to_string(done) + "/" + std::to_string(total) + " " + run.label +
                       (seeds.empty() ? " seed " + std::to_string(run.seed) : " seeds " + seeds) +
                       ": " + outcomeName(run.outcome);
    if (!detail.empty())
        text += ", " + detail;
    text += " (" + formatSeconds(run.seconds) + ")";
    if (run.outcome == Outcome::HarnessError && !run.reason.empty())
        text += ": " + run.reason;
    return text;
}

NodeRun nodeRun(const RunResult &result, const std::string &nodeId)
{
    NodeRun run;
    run.label = result.arm;
    run.seed = result.seed;
    run.seconds = double(result.durationMs) / 1000.0;
    run.command = result.replay.empty() ? result.command : result.replay;
    run.envDigest = result.envDigest;
    run.seedlessDigest = result.seedlessDigest;
    const NodeOutcome *row = findRow(result, nodeId);
    if (result.harnessError) {
        const bool completed = result.status == RunStatus::Completed;
        // "not found" because the node's module does not import is no missing test: the
        // run is a harness error that names the file and the exception.
        const bool brokenModule = result.errorDetail.starts_with("collection error in ");
        if (completed && !brokenModule &&
            ((result.exitCode == 4 && saysNotFound(result)) || result.exitCode == 5)) {
            run.outcome = Outcome::NotCollected;
            run.reason = result.exitCode == 5 ? "pytest collected nothing (exit 5)"
                                              : "pytest: not found (exit 4)";
        } else {
            run.outcome = Outcome::HarnessError;
            run.reason = result.harnessReason;
        }
        return run;
    }
    if (!row) {
        run.outcome = Outcome::NotCollected;
        run.reason = "not reported by the run";
        return run;
    }
    run.outcome = row->outcome;
    run.reason = row->message;
    return run;
}

void checkNodeId(const RunContext &ctx, const std::string &nodeId)
{
    const size_t sep = nodeId.find("::");
    const std::string file = nodeId.substr(0, sep);
    auto refuse = [&](const std::string &why) { throw Error::input("'" + nodeId + "': " + why); };
    if (nodeId.empty())
        refuse("empty test id");
    if (sep == std::string::npos || sep == 0 || sep + 2 >= nodeId.size())
        refuse("not a pytest node id (path/to/test_file.py::test_name)");
    if (nodeId.front() == '-')
        refuse("a node id, not an option");
    if (file.front() == '/')
        refuse("the file must be relative to the repository root");
    if (("/" + file + "/").find("/../") != std::string::npos)
        refuse("the file must stay inside the repository");
    bool exists = false;
    for (const Arm arm : {Arm::Base, Arm::Head})
        exists =
            exists || QFileInfo(QString::fromStdString(ctx.treeDir(arm) + "/" + file)).isFile();
    if (!exists)
        refuse(file + " exists neither at base (" + ctx.base().spec + ") nor at head (" +
               ctx.head().spec + ")");
}

const char *modeName(AttributionRequest::Mode mode)
{
    return mode == AttributionRequest::Mode::Swept ? "swept" : "matched";
}

void Attribution::addCoverage(const RunContext &ctx, const AttributionRequest &request,
                              RunPool &pool, AttributionResult &result,
                              const NodeRunCallback &progress)
{
    const bool headFailed = result.verdict == AttributionVerdict::PatchInduced ||
                            result.verdict == AttributionVerdict::PreExisting ||
                            result.verdict == AttributionVerdict::HarnessEnv;
    if (!request.coverage || !headFailed || result.interrupted || !result.witnessSeed)
        return;
    ctx.say("diff coverage: rerunning " + request.test + " at head seed " +
            std::to_string(*result.witnessSeed) + " with --pw-cover");
    const int before = int(result.base.runs.size() + result.head.runs.size());
    RunPool::Progress tick;
    if (progress)
        tick = [&](int, int, const RunResult &finished) {
            NodeRunProgress p;
            p.done = p.total = before + 1;
            p.run = nodeRun(finished, request.test);
            p.detail = "diff coverage";
            progress(p);
        };
    result.coverage =
        DiffCoverage::measure(ctx, request.test, *result.witnessSeed, pool, request.adjust, tick);
    if (result.coverage->verdict == CoverageVerdict::Untouched) {
        // Failing on every run of both trees (three or more each) is no flake: the test is
        // broken, whatever the patch does (a "flake" is the intermittent case).
        const auto always = [](const ArmEvidence &arm) {
            return arm.evidence >= 3 && arm.fails == arm.evidence;
        };
        const bool broken = always(result.base) && always(result.head);
        result.sentence += broken ? "; the failing test did not touch the change, and it failed "
                                    "on every run of both trees: a broken test rather than a "
                                    "patch bug (not a flake)"
                                  : "; the failing test did not touch the change: strong "
                                    "evidence of a flake rather than a patch bug";
    }
    const std::string leftOut = result.coverage->leftOutText();
    result.notes.push_back("diff coverage (head seed " + std::to_string(*result.witnessSeed) +
                           "): " + result.coverage->summary() +
                           (leftOut.empty() ? std::string() : "; " + leftOut));
}

AttributionRecord AttributionResult::record(const std::string &today) const
{
    AttributionRecord rec;
    rec.test = test;
    if (verdict)
        rec.verdict = attributionVerdictName(*verdict);
    rec.mode = modeName(mode);
    rec.baseFail = base.fails;
    rec.headFail = head.fails;
    rec.runs = runsPerArm;
    std::vector<long long> s(seeds.begin(), seeds.end());
    rec.seeds = s;
    rec.headFailingSeeds =
        std::vector<long long>(head.failingSeeds.begin(), head.failingSeeds.end());
    if (witnessSeed)
        rec.witnessSeed = *witnessSeed;
    if (!envDigest.empty())
        rec.envDigest = envDigest;
    if (!provenance.empty()) {
        rec.interpreter = provenance.interpreter;
        rec.pythonVersion = provenance.python;
        rec.pytestVersion = provenance.pytest;
    }
    if (!baseCommit.empty())
        rec.baselineSha = baseCommit;
    rec.base = baseSpec;
    rec.head = headSpec;
    // The portable replay when the trees are commits; else this machine's line is all there is.
    if (!portableReplay.empty())
        rec.replay = portableReplay;
    else if (!replay.empty())
        rec.replay = replay;
    if (!replay.empty())
        rec.replayExact = replay;
    rec.recorded = today;
    if (coverage) {
        rec.diffCoverage = coverageVerdictName(coverage->verdict);
        const std::string leftOut = coverage->leftOutText();
        rec.diffCoverageDetail =
            coverage->summary() + (leftOut.empty() ? std::string() : "; " + leftOut);
    }
    return rec;
}

std::string Attribution::writeRecord(const std::string &runsDir, const AttributionRecord &record)
{
    const std::string date = record.recorded.value_or("undated").substr(0, 10);
    return RunsDir::writeNew(runsDir,
                             RunsDir::recordStem(date, record.test, record.mode.value_or("run")),
                             record.format());
}

AttributionResult Attribution::run(const RunContext &ctx, const AttributionRequest &request,
                                   RunPool &pool, const NodeRunCallback &progress)
{
    checkNodeId(ctx, request.test);
    const bool swept = request.mode == AttributionRequest::Mode::Swept;
    const int runs = request.runs.value_or(swept ? ctx.config().seeds : ctx.config().replays);
    if (runs < 1)
        throw Error::input("attribute: runs must be at least 1, not " + std::to_string(runs));
    // A unit is one base/head pair; a shard counts only its own pairs.
    checkTrialBudget(ctx, "attribute", "2 × " + std::to_string(runs) + " runs",
                     std::vector<long long>(size_t(runs), 2), request.shard);
    if (request.shard)
        checkShardable(ctx, "attribute");

    AttributionResult result;
    result.test = request.test;
    result.mode = request.mode;
    result.runsPerArm = runs;
    result.baseSpec = ctx.base().spec;
    result.headSpec = ctx.head().spec;
    result.baseCommit = ctx.base().commit;
    result.headCommit = ctx.head().commit;
    result.provenance = ctx.provenance();
    if (swept) {
        for (int i = 0; i < runs; ++i)
            result.seeds.push_back(uint32_t(i));
    } else {
        result.seeds.push_back(request.seed);
    }

    // base, head, base, head, …: both arms meet the same machine noise.
    std::vector<RunSpec> specs;
    std::vector<std::pair<Arm, int>> slots;
    for (int i = 0; i < runs; ++i) {
        if (request.shard && !request.shard->owns(size_t(i)))
            continue; // Another shard's pair
        const uint32_t seed = swept ? uint32_t(i) : request.seed;
        for (const Arm arm : {Arm::Base, Arm::Head}) {
            RunSpec spec = ctx.spec(arm, {request.test}, seed);
            spec.sandbox = ctx.sandbox();
            if (request.adjust)
                request.adjust(arm, spec);
            specs.push_back(std::move(spec));
            slots.emplace_back(arm, i);
        }
    }
    ctx.say(std::string("attributing ") + request.test + " (" + modeName(request.mode) + ", " +
            std::to_string(runs) + " run(s) per tree, " + std::to_string(pool.workers()) +
            " worker(s)" +
            (request.shard ? ", shard " + request.shard->name() + ": " +
                                 std::to_string(specs.size() / 2) + " pair(s)"
                           : std::string()) +
            ")");

    // The first pair runs alone: a node neither tree collects (a typo, a test that never
    // existed) is refused before the other 2 × N - 2 runs are spent on it.
    auto ticks = [&](int offset) {
        return [&, offset](int done, int, const RunResult &finished) {
            if (!progress)
                return;
            NodeRunProgress tick;
            tick.done = offset + done;
            tick.total = int(specs.size());
            tick.run = nodeRun(finished, request.test);
            progress(tick);
        };
    };
    const size_t first = std::min<size_t>(2, specs.size());
    std::vector<RunResult> results =
        pool.run(std::vector<RunSpec>(specs.begin(), specs.begin() + long(first)), ticks(0));
    refuseIfCollectedNowhere(ctx, request.test, swept, results);
    const bool cancelled = std::any_of(results.begin(), results.end(), [](const RunResult &r) {
        return r.status == RunStatus::Cancelled;
    });
    // Matched mode only: every run of a tree has the same seed, so a node its first run did
    // not collect is not there. A swept run's next seed may collect it (a parametrize over a
    // set), and a shard's pairs must all be in its ledger.
    const std::optional<Arm> absent = swept || request.shard || cancelled || specs.size() <= first
                                          ? std::nullopt
                                          : absentArm(request.test, results);
    if (absent) {
        // A tree without the node gives no attribution, whatever its other runs
        // say; the other tree's runs still tell whether the test fails there (a removed test
        // that fails at base, an added one that is flaky at head).
        std::vector<RunSpec> keptSpecs(specs.begin(), specs.begin() + long(first));
        std::vector<std::pair<Arm, int>> keptSlots(slots.begin(), slots.begin() + long(first));
        for (size_t i = first; i < specs.size(); ++i) {
            if (slots[i].first != *absent) {
                keptSpecs.push_back(std::move(specs[i]));
                keptSlots.push_back(slots[i]);
            }
        }
        ctx.say(std::string("not collected at ") + armName(*absent) + ": its other " +
                std::to_string(runs - 1) + " run(s) skipped");
        specs = std::move(keptSpecs);
        slots = std::move(keptSlots);
    }
    if (specs.size() > first) {
        // A cancel during the first pair is spent when that run() returns: renew it, so the
        // rest comes back cancelled (never started) instead of running.
        if (cancelled)
            pool.cancelAll();
        std::vector<RunResult> rest = pool.run(
            std::vector<RunSpec>(specs.begin() + long(first), specs.end()), ticks(int(first)));
        std::move(rest.begin(), rest.end(), std::back_inserter(results));
    }
    for (size_t i = 0; i < results.size(); ++i) {
        NodeRun run = nodeRun(results[i], request.test);
        run.label = armName(slots[i].first);
        run.index = slots[i].second;
        run.command = replayCommand(specs[i]);
        if (results[i].status == RunStatus::Cancelled)
            ++result.cancelledRuns;
        (slots[i].first == Arm::Base ? result.base : result.head).runs.push_back(std::move(run));
    }
    result.interrupted = result.cancelledRuns > 0;
    judge(result);
    if (absent && !result.interrupted)
        result.notes.push_back(std::string("not collected at ") + armName(*absent) +
                               " on the first run: the other " + std::to_string(runs - 1) +
                               " run(s) there were not spent");
    if (request.shard) { // No verdict until the shards are merged
        finishShard(ctx, *request.shard, request.shardOut, result);
        return result;
    }
    addCoverage(ctx, request, pool, result, progress);

    if (request.record && result.verdict && !result.interrupted) {
        try {
            result.recordPath = writeRecord(ctx.runsDir(), result.record(today(ctx)));
        } catch (const Error &e) {
            result.recordError = e.what();
        }
    }
    if (result.verdict && !result.interrupted) {
        // What this verdict means for a freeze, next to every record runs/ holds for the test.
        AttributionRecord rec = result.record(today(ctx));
        rec.file = result.recordPath;
        result.freeze = FreezeCase::gather(ctx.runsDir(), result.test, rec);
    }
    return result;
}

} // namespace pw::core
