#include "dynamic/ReproCells.h"

#include "dynamic/CellsRecord.h"
#include "dynamic/ShardMerge.h"
#include "execution/OutcomeRows.h"
#include "execution/Sandbox.h"
#include "ledger/Config.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

namespace pw::core {

namespace {

using nlohmann::json;

const char *const kCells[] = {"solo", "order", "isolate", "clock"};

const char *const kNotRunSoloDecided =
    "not run: solo already decided (broken test: it fails alone)";

// The row the plugin writes when --pw-freeze-time finds no clock to freeze.
std::optional<std::string> clockUnsupported(const RunSpec &spec)
{
    for (const OutcomeRow &row : readOutcomeRows(spec.env.witness.outFile).rows) {
        if (row.when == "clock" && row.outcome == "unsupported")
            return row.detail.empty() ? std::string("no clock seam") : row.detail;
    }
    return std::nullopt;
}

// Fork-server trials (--pw-replays) of `nodeId`, one per seed of `seeds`.
std::vector<NodeRun> replayTrials(const RunResult &result, const RunSpec &spec,
                                  const std::string &nodeId, const std::vector<uint32_t> &seeds)
{
    const OutcomeRowsFile file = readOutcomeRows(spec.env.witness.outFile);
    std::map<uint32_t, Trial> trials;
    bool notCollected = false;
    for (const Trial &t : foldTrials(file.rows)) {
        if (t.nodeId != nodeId)
            continue;
        if (t.outcome == Outcome::NotCollected)
            notCollected = true;
        else if (t.replay >= 0)
            trials[t.seed] = t;
    }
    std::vector<NodeRun> out;
    for (size_t i = 0; i < seeds.size(); ++i) {
        NodeRun run;
        run.label = "isolate";
        run.seed = seeds[i];
        run.index = int(i);
        run.envDigest = result.envDigest;
        run.seedlessDigest = result.seedlessDigest;
        const auto found = trials.find(seeds[i]);
        run.seconds = found != trials.end() ? found->second.seconds
                                            : double(result.durationMs) / 1000.0 / seeds.size();
        if (result.harnessError) {
            // The whole run is no evidence (collection errors, timeout, crash): whatever
            // rows it left are not trusted either.
            const NodeRun whole = nodeRun(result, nodeId);
            run.outcome = whole.outcome == Outcome::NotCollected ? Outcome::NotCollected
                                                                 : Outcome::HarnessError;
            run.reason = whole.reason;
        } else if (notCollected) {
            run.outcome = Outcome::NotCollected;
            run.reason = "the scoped suite does not collect this node";
        } else if (!file.ok() && found == trials.end()) {
            run.outcome = Outcome::HarnessError;
            run.reason = "outcome rows: " + file.error;
        } else if (found == trials.end()) {
            run.outcome = Outcome::HarnessError;
            run.reason = "no outcome rows for this replay";
        } else {
            run.outcome = found->second.outcome;
            run.reason = found->second.outcome == Outcome::HarnessError
                             ? "forked replay: " + found->second.detail
                         : found->second.failedPhase.empty()
                             ? std::string()
                             : found->second.failedPhase + " failed";
        }
        out.push_back(std::move(run));
    }
    return out;
}

void tally(ReproCell &cell)
{
    cell.evidence = cell.fails = cell.harnessErrors = 0;
    cell.failingSeeds.clear();
    cell.passingSeeds.clear();
    int passes = 0, skipped = 0, notCollected = 0;
    for (const NodeRun &t : cell.trials) {
        if (t.outcome == Outcome::HarnessError)
            ++cell.harnessErrors;
        else if (t.outcome == Outcome::NotCollected)
            ++notCollected;
        if (!t.evidence())
            continue;
        ++cell.evidence;
        if (t.failed()) {
            ++cell.fails;
            cell.failingSeeds.insert(t.seed);
        } else if (t.outcome == Outcome::Skipped) {
            ++skipped;
        } else {
            ++passes;
            cell.passingSeeds.insert(t.seed);
        }
    }
    if (!cell.unknownReason.empty()) {
        cell.status = CellStatus::Unknown;
    } else if (cell.fails > 0) {
        cell.status = CellStatus::Fail;
    } else if (passes > 0) {
        cell.status = CellStatus::Pass;
    } else {
        cell.status = CellStatus::Unknown;
        if (notCollected > 0 && cell.harnessErrors == 0)
            cell.unknownReason = "the node was not collected";
        else if (skipped > 0)
            cell.unknownReason = "skipped on every run";
        else if (cell.trials.empty())
            cell.unknownReason = "not run";
        else
            cell.unknownReason = "no evidence: " + std::to_string(cell.harnessErrors) + " of " +
                                 std::to_string(cell.runs()) + " runs were harness errors (" +
                                 cell.trials.front().reason + ")";
    }
}

} // namespace

const char *cellStatusName(CellStatus status)
{
    switch (status) {
    case CellStatus::Pass:
        return "pass";
    case CellStatus::Fail:
        return "fail";
    case CellStatus::Unknown:
        return "unknown";
    }
    return "?";
}

const ReproCell &ReproCellsResult::cell(const std::string &name) const
{
    for (const ReproCell &c : cells) {
        if (c.name == name)
            return c;
    }
    throw Error::input("no reproduction cell named '" + name + "'");
}

bool ReproCellsResult::reproduced() const
{
    for (const ReproCell &c : cells) {
        if (c.status == CellStatus::Fail)
            return true;
    }
    return false;
}

bool ReproCellsResult::noEvidence() const
{
    for (const char *name : {"solo", "order", "isolate"}) {
        if (cell(name).status != CellStatus::Unknown)
            return false;
    }
    return true;
}

void ReproCells::describe(ReproCellsResult &r)
{
    if (r.cells.empty()) {
        for (const char *name : kCells) {
            ReproCell cell;
            cell.name = name;
            r.cells.push_back(cell);
        }
    }
    const std::string seeds = "seeds 1.." + std::to_string(r.orderSeeds);
    for (ReproCell &c : r.cells) {
        if (c.name == "solo")
            c.description = "the node alone, seed 0 (pytest's order), fresh interpreter";
        else if (c.name == "order")
            c.description = "the scoped suite " + r.scope + "/ shuffled with " + seeds +
                            ", one process per seed";
        else if (c.name == "isolate")
            c.description = "the scoped suite " + r.scope +
                            "/ collected once, the node forked alone before any other test ran (" +
                            seeds + ")";
        else if (c.name == "clock")
            c.description = "the node alone with TZ=" + r.clockZone + " and the clock frozen at " +
                            r.freezeTime;
    }
}

void ReproCells::pickReplays(ReproCellsResult &r)
{
    for (ReproCell &cell : r.cells) {
        cell.replay.clear();
        for (const NodeRun &t : cell.trials) {
            if (t.failed()) {
                cell.replay = t.command;
                break;
            }
        }
        if (cell.replay.empty() && !cell.trials.empty())
            cell.replay = cell.trials.front().command;
    }
}

int ReproCells::unitOf(const std::string &cell, int index, int orderSeeds)
{
    if (cell == "order")
        return 1 + index;
    if (cell == "isolate")
        return orderSeeds + 1;
    if (cell == "clock")
        return orderSeeds + 2;
    return 0;
}

std::string ReproCells::scopeOf(const std::string &nodeId)
{
    const std::string file = nodeId.substr(0, nodeId.find("::"));
    const size_t slash = file.rfind('/');
    return slash == std::string::npos || slash == 0 ? std::string(".") : file.substr(0, slash);
}

void ReproCells::attribute(ReproCellsResult &r)
{
    for (ReproCell &c : r.cells)
        tally(c);
    r.findings.clear();
    r.notCollected = false;
    if (r.interrupted) {
        r.findings.push_back({"unknown", "interrupted: " + std::to_string(r.cancelledRuns) +
                                             " run(s) did not finish; no attribution"});
        return;
    }
    const ReproCell &solo = r.cell("solo");
    const ReproCell &order = r.cell("order");
    const ReproCell &isolate = r.cell("isolate");
    const ReproCell &clock = r.cell("clock");
    if (solo.evidence == 0 && solo.harnessErrors == 0 && !solo.trials.empty() &&
        solo.trials.front().outcome == Outcome::NotCollected) {
        r.notCollected = true;
        r.findings.push_back(
            {"unknown", "not collected at " + r.revision + ": no such test; check the node id"});
        return;
    }

    const bool soloFails = solo.status == CellStatus::Fail;
    const bool orderAll = order.evidence > 0 && order.fails == order.evidence;
    const bool orderSome = order.fails > 0 && order.fails < order.evidence;
    const bool isolateFails = isolate.status == CellStatus::Fail;
    const std::string orderCount =
        std::to_string(order.fails) + "/" + std::to_string(order.evidence);
    if (soloFails) {
        bool notRun = false;
        for (const ReproCell &c : r.cells)
            notRun = notRun || c.notRun;
        r.findings.push_back({"solo", std::string("broken test: it fails alone in pytest's order "
                                                  "— fix or delete it, never freeze it") +
                                          (notRun ? " (order, isolate and clock not run: solo "
                                                    "decides)"
                                                  : "")});
        if (!order.passingSeeds.empty())
            r.findings.push_back(
                {"order", "ordering/shared state as well: in the scoped suite it passes on "
                          "order seeds " +
                              seedList(order.passingSeeds) +
                              " — it relies on state another test leaves behind"});
    } else {
        if (isolateFails && orderAll)
            r.findings.push_back(
                {"leakage", "leakage from earlier tests: it fails on every order seed (" +
                                orderCount +
                                ") and in a fresh process after the scoped suite's collection, "
                                "yet passes alone — the suite leaves state in the process before "
                                "it runs (import-time side effects, module caches)"});
        else if (isolateFails)
            r.findings.push_back(
                {"isolate", "process state: it passes alone but fails in a fresh process after "
                            "the scoped suite's collection — something the suite's modules do "
                            "when imported breaks it"});
        if (orderSome)
            r.findings.push_back(
                {"order", "ordering/shared state: it fails on order seeds " +
                              seedList(order.failingSeeds) + " only (" + orderCount +
                              ") — an earlier test's leftovers break it; the guilty "
                              "predecessor is what to fix (a freeze of this test only buys "
                              "time)"});
        else if (orderAll && !isolateFails)
            r.findings.push_back(
                {"order", "ordering/shared state: it fails on every order seed (" + orderCount +
                              ") yet passes alone and in a fresh process — tests of the scoped "
                              "suite leave state it cannot survive"});
        if (clock.status == CellStatus::Fail)
            r.findings.push_back(
                {"clock", "time dependence: it fails with TZ=" + r.clockZone +
                              " and the clock frozen at " + r.freezeTime +
                              " — pin the clock in the test or fix the code's time handling"});
    }
    SandboxTally tally;
    for (const ReproCell &c : r.cells) {
        for (const NodeRun &t : c.trials) {
            if (t.failed())
                tally.add(t.reason);
        }
    }
    if (!r.findings.empty())
        r.findings.front().sentence += tally.clause();
    if (!r.findings.empty())
        return;
    if (r.noEvidence()) {
        r.findings.push_back({"unknown", "no evidence: solo, order and isolate produced no "
                                         "trustworthy run; see the harness errors"});
        return;
    }
    std::string unknown;
    for (const ReproCell &c : r.cells) {
        if (c.status == CellStatus::Unknown)
            unknown += (unknown.empty() ? "" : ", ") + c.name;
    }
    r.findings.push_back(
        {"none", "not reproduced: no cell fails (" + std::to_string(r.orderSeeds) +
                     " order seeds) — raise R (--order-seeds) before calling it flaky" +
                     (unknown.empty() ? std::string() : "; not tested: " + unknown)});
}

ReproCellsResult ReproCells::run(const RunContext &ctx, const CellsRequest &request, RunPool &pool,
                                 const NodeRunCallback &progress)
{
    checkNodeId(ctx, request.test);
    const int seeds = request.orderSeeds.value_or(ctx.config().orderSeeds);
    if (seeds < 1)
        throw Error::input("cells: order seeds must be at least 1, not " + std::to_string(seeds));
    // solo, R order runs, R isolated replays, clock.
    // Units: solo, each order seed, isolate (R forked replays), clock; a shard counts only
    // its own units.
    std::vector<long long> unitTrials(size_t(seeds) + 3, 1);
    unitTrials[size_t(seeds) + 1] = seeds;
    checkTrialBudget(ctx, "cells", "2 + 2 × " + std::to_string(seeds) + " trials", unitTrials,
                     request.shard);
    if (request.shard)
        checkShardable(ctx, "cells");

    ReproCellsResult result;
    result.test = request.test;
    result.arm = request.arm;
    result.revision = ctx.revision(request.arm).spec;
    result.commit = ctx.revision(request.arm).commit;
    result.provenance = ctx.provenance();
    result.scope = scopeOf(request.test);
    result.orderSeeds = seeds;
    result.freezeTime = request.freezeTime;
    result.clockZone = request.clockZone;
    std::vector<uint32_t> orderSeeds;
    for (int s = 1; s <= seeds; ++s)
        orderSeeds.push_back(uint32_t(s));

    std::vector<RunSpec> specs;
    std::vector<std::string> cellOf; // per spec
    std::vector<int> unitOfSpec;     // per spec: its unit of the sweep
    int unit = -1;
    auto add = [&](const std::string &cell, RunSpec spec) {
        ++unit;
        if (request.shard && !request.shard->owns(size_t(unit)))
            return; // another shard's unit
        unitOfSpec.push_back(unit);
        spec.sandbox = ctx.sandbox();
        if (request.adjust)
            request.adjust(cell, spec);
        specs.push_back(std::move(spec));
        cellOf.push_back(cell);
    };
    add("solo", ctx.spec(request.arm, {request.test}, 0));
    for (const uint32_t s : orderSeeds)
        add("order", ctx.spec(request.arm, {result.scope}, s));
    {
        RunSpec spec = ctx.spec(request.arm, {result.scope}, 0);
        json plan = {
            {"nodeids", json::array({request.test})}, {"seeds", orderSeeds}, {"replays", 1}};
        const std::string planFile = spec.runDir + "/replays.json";
        if (!writeFileReplacing(planFile, plan.dump()))
            throw Error::harness(planFile + ": cannot write the replay plan");
        spec.env.witness.replayPlan = planFile;
        // The per-replay timeout kills the child; the per-test timer would race it.
        spec.env.witness.replayTimeoutMs = Config::milliseconds(ctx.config().timeoutPerTest);
        spec.env.witness.testTimeoutMs = 0;
        add("isolate", std::move(spec));
    }
    {
        RunSpec spec = ctx.spec(request.arm, {request.test}, 0);
        spec.env.extraVariables["TZ"] = request.clockZone;
        spec.env.witness.freezeTime = request.freezeTime;
        add("clock", std::move(spec));
    }

    ctx.say("reproduction cells of " + request.test + " at " + result.revision + ": solo, " +
            std::to_string(seeds) + " order seed(s) and isolate over " + result.scope +
            ", clock (" + std::to_string(specs.size()) + " runs)");

    auto specIndex = [&](const RunResult &finished) -> size_t {
        for (size_t i = 0; i < specs.size(); ++i) {
            if (finished.command.find(specs[i].runDir + "/junit.xml") != std::string::npos)
                return i;
        }
        return specs.size();
    };
    auto onRun = [&](int done, int total, const RunResult &finished) {
        if (!progress)
            return;
        NodeRunProgress tick;
        tick.done = done;
        tick.total = total;
        const size_t i = specIndex(finished);
        const std::string cell = i < specs.size() ? cellOf[i] : std::string("run");
        if (cell == "isolate") {
            const std::vector<NodeRun> trials =
                replayTrials(finished, specs[i], request.test, orderSeeds);
            int fails = 0;
            for (const NodeRun &t : trials)
                fails += t.failed() ? 1 : 0;
            tick.run = trials.front();
            tick.run.outcome = fails > 0 ? Outcome::Fail : trials.front().outcome;
            tick.seeds = "1.." + std::to_string(seeds);
            tick.detail = std::to_string(fails) + "/" + std::to_string(trials.size()) +
                          " forked replays failed";
        } else {
            tick.run = nodeRun(finished, request.test);
            if (cell == "clock" && clockUnsupported(specs[i]))
                tick.detail = "no clock seam";
        }
        tick.run.label = cell;
        tick.run.seconds = double(finished.durationMs) / 1000.0;
        progress(tick);
    };
    // The solo run goes first, alone: a node the tree does not collect (a typo, a test that
    // never existed) is refused before the scoped suite runs 2 × R times for nothing.
    const size_t first = !cellOf.empty() && cellOf.front() == "solo" ? 1 : 0;
    const int total = int(specs.size());
    std::vector<RunResult> results =
        pool.run(std::vector<RunSpec>(specs.begin(), specs.begin() + long(first)),
                 [&](int done, int, const RunResult &finished) { onRun(done, total, finished); });
    const NodeRun solo = first == 1 ? nodeRun(results.front(), request.test) : NodeRun();
    if (first == 1 && solo.outcome == Outcome::NotCollected)
        throw Error::input("'" + request.test + "': not collected at " + armName(request.arm) +
                           " (" + result.revision +
                           "): no such test, nothing else was run; check the node id (pytest's "
                           "spelling: path/to/test_file.py::Class::test_name[param])");
    // Solo fails → broken test, whatever the other cells would say (attribute()'s
    // table puts it first): the verdict is decided, the scoped suite is not run 2 × R times
    // for nothing. A shard runs its units for the merge, which judges them all.
    const bool soloDecided = first == 1 && !request.shard &&
                             results.front().status == RunStatus::Completed && solo.failed();
    if (soloDecided)
        ctx.say("solo fails: a broken test, whatever the other cells say; order, isolate and "
                "clock not run");
    if (specs.size() > first && !soloDecided) {
        // A cancel during the solo run is spent when that run() returns: renew it, so the
        // rest comes back cancelled (never started) instead of running.
        if (!results.empty() && results.front().status == RunStatus::Cancelled)
            pool.cancelAll();
        std::vector<RunResult> rest =
            pool.run(std::vector<RunSpec>(specs.begin() + long(first), specs.end()),
                     [&](int done, int, const RunResult &finished) {
                         onRun(int(first) + done, total, finished);
                     });
        std::move(rest.begin(), rest.end(), std::back_inserter(results));
    }

    describe(result);
    auto cellNamed = [&](const std::string &name) -> ReproCell & {
        for (ReproCell &c : result.cells) {
            if (c.name == name)
                return c;
        }
        return result.cells.front();
    };

    for (size_t i = 0; i < results.size(); ++i) {
        const RunResult &res = results[i];
        if (res.status == RunStatus::Cancelled)
            ++result.cancelledRuns;
        ReproCell &cell = cellNamed(cellOf[i]);
        const std::string replay = replayCommand(specs[i]);
        if (cellOf[i] == "isolate") {
            for (NodeRun t : replayTrials(res, specs[i], request.test, orderSeeds)) {
                t.command = replay;
                cell.trials.push_back(std::move(t));
            }
        } else {
            NodeRun t = nodeRun(res, request.test);
            t.label = cellOf[i];
            t.index = cellOf[i] == "order" ? unitOfSpec[i] - 1 : 0; // order: seed - 1
            t.command = replay;
            if (cellOf[i] == "clock") {
                if (const auto why = clockUnsupported(specs[i]))
                    cell.unknownReason = *why;
            }
            cell.trials.push_back(std::move(t));
        }
    }
    if (soloDecided) {
        for (ReproCell &c : result.cells) {
            if (c.name != "solo") {
                c.notRun = true;
                c.unknownReason = kNotRunSoloDecided;
            }
        }
    }
    pickReplays(result);
    result.interrupted = result.cancelledRuns > 0;
    if (request.shard) { // No attribution until the shards are merged
        finishShard(ctx, *request.shard, request.shardOut, result);
        return result;
    }
    attribute(result);
    if (request.record && !result.interrupted && !result.notCollected) {
        try {
            result.recordPath = writeCellsRecord(ctx.runsDir(), result, recordDate(ctx));
        } catch (const Error &e) {
            result.recordError = e.what();
        }
    }
    if (!result.interrupted && !result.notCollected) {
        // What this matrix means for a freeze, next to the test's attribution records.
        CellsEvidence cells =
            CellsEvidence::parse(formatCellsRecord(result, recordDate(ctx)), result.recordPath);
        result.freeze = FreezeCase::gather(ctx.runsDir(), result.test, std::nullopt, cells);
    }
    return result;
}

} // namespace pw::core
