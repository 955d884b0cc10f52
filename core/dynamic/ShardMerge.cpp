#include "dynamic/ShardMerge.h"

#include "dynamic/CellsRecord.h"
#include "util/Error.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace pw::core {

namespace {

std::string modeText(const std::string &file, const std::string &mode)
{
    if (mode != "matched" && mode != "swept")
        throw Error::input(file + ": parameters.mode: \"" + mode + "\" is not matched or swept");
    return mode;
}

void requireKind(const ShardSet &set, const std::string &kind)
{
    if (set.first().kind != kind)
        throw Error::input(set.first().file + ": kind: \"" + set.first().kind + "\" is not " +
                           kind);
}

[[noreturn]] void badRun(const ShardLedger &l, size_t i, const std::string &field,
                         const std::string &message)
{
    throw Error::input(l.file + ": runs[" + std::to_string(i) + "]." + field + ": " + message);
}

// Each unit this shard ran has exactly one base and one head run, of the unit's seed
// (swept: the unit; matched: the sweep's seed): a ledger that dropped or repeated runs would
// otherwise merge as complete and judge on the wrong evidence.
void checkAttributionRuns(const ShardLedger &l, bool swept, uint32_t matchedSeed)
{
    std::map<std::pair<int, std::string>, size_t> seen; // (unit, label) → runs index
    for (size_t i = 0; i < l.runs.size(); ++i) {
        const ShardRun &sr = l.runs[i];
        const uint32_t want = swept ? uint32_t(sr.unit) : matchedSeed;
        if (sr.run.seed != want)
            badRun(l, i, "seed",
                   std::to_string(sr.run.seed) + " is not the seed " + std::to_string(want) +
                       " of unit " + std::to_string(sr.unit));
        const auto [it, fresh] = seen.emplace(std::make_pair(sr.unit, sr.run.label), i);
        if (!fresh)
            badRun(l, i, "unit",
                   "a second " + sr.run.label + " run of unit " + std::to_string(sr.unit) +
                       " (runs[" + std::to_string(it->second) + "])");
    }
    for (const int unit : l.ran) {
        for (const char *label : {"base", "head"}) {
            if (!seen.count({unit, label}))
                throw Error::input(l.file + ": runs: unit " + std::to_string(unit) + " has no " +
                                   label + " run");
        }
    }
}

// Each unit of a cells shard has its cell's runs exactly: one solo, one order run of seed
// index + 1, one clock, and the isolate trials of the distinct seeds 1..R.
void checkCellsRuns(const ShardLedger &l, int orderSeeds)
{
    std::map<int, std::vector<size_t>> byUnit;
    for (size_t i = 0; i < l.runs.size(); ++i) {
        const ShardRun &sr = l.runs[i];
        if (sr.run.label == "order" && sr.run.seed != uint32_t(sr.run.index + 1))
            badRun(l, i, "seed",
                   std::to_string(sr.run.seed) + " is not order seed " +
                       std::to_string(sr.run.index + 1));
        if (sr.run.label == "isolate" && (sr.run.seed < 1 || sr.run.seed > uint32_t(orderSeeds)))
            badRun(l, i, "seed",
                   std::to_string(sr.run.seed) + " is not an order seed 1.." +
                       std::to_string(orderSeeds));
        std::vector<size_t> &mine = byUnit[sr.unit];
        for (const size_t j : mine) {
            if (l.runs[j].run.label == "isolate" ? l.runs[j].run.seed == sr.run.seed : true)
                badRun(l, i, "unit",
                       "a second " + sr.run.label + " run of unit " + std::to_string(sr.unit) +
                           " (runs[" + std::to_string(j) + "])");
        }
        mine.push_back(i);
    }
    for (const int unit : l.ran) {
        const size_t want = unit == orderSeeds + 1 ? size_t(orderSeeds) : 1;
        const size_t have = byUnit.count(unit) ? byUnit[unit].size() : 0;
        if (have != want)
            throw Error::input(l.file + ": runs: unit " + std::to_string(unit) + " has " +
                               std::to_string(have) + " run(s), not " + std::to_string(want));
    }
}

ShardLedger ledgerOf(const RunContext &ctx, const Shard &shard, const std::string &kind, int units)
{
    ShardLedger l;
    l.kind = kind;
    l.baseSpec = ctx.base().spec;
    l.baseCommit = ctx.base().commit;
    l.headSpec = ctx.head().spec;
    l.headCommit = ctx.head().commit;
    l.shard = shard;
    l.units = units;
    for (int unit = 0; unit < units; ++unit) {
        if (shard.owns(size_t(unit)))
            l.ran.push_back(unit);
    }
    l.recorded = recordDate(ctx);
    return l;
}

} // namespace

void checkShardable(const RunContext &ctx, const std::string &sweep)
{
    for (const Revision *rev : {&ctx.base(), &ctx.head()}) {
        if (rev->isWorktree() || rev->isPatch())
            throw Error::input(sweep + ": --shard needs commits, not " +
                               (rev->isPatch() ? std::string("PATCH:") : rev->spec) +
                               ": a shard ledger names its trees by commit; commit the patch "
                               "first and shard that commit");
    }
}

void finishShard(const RunContext &ctx, const Shard &shard, const std::string &out,
                 AttributionResult &r)
{
    r.shard = shard;
    r.verdict.reset();
    r.witnessSeed.reset();
    if (r.interrupted) {
        r.sentence = "shard " + shard.name() + " " + r.sentence + "; no shard ledger written";
        return;
    }
    r.sentence = "shard " + shard.name() + ": no verdict until merged (patchwitness-cli merge)";

    ShardLedger l = ledgerOf(ctx, shard, "attribution", r.runsPerArm);
    l.setParameter("test", r.test);
    l.setParameter("mode", modeName(r.mode));
    l.setParameter("runs", r.runsPerArm);
    if (r.mode == AttributionRequest::Mode::Matched)
        l.setParameter("seed", r.seeds.empty() ? 0 : r.seeds.front());
    for (const ArmEvidence *arm : {&r.base, &r.head}) {
        for (const NodeRun &run : arm->runs)
            l.runs.push_back({run.index, run});
    }
    std::stable_sort(l.runs.begin(), l.runs.end(),
                     [](const ShardRun &a, const ShardRun &b) { return a.unit < b.unit; });
    try {
        r.recordPath = l.write(ctx.runsDir(), r.test, modeName(r.mode), out);
    } catch (const Error &e) {
        r.recordError = e.what();
    }
}

void finishShard(const RunContext &ctx, const Shard &shard, const std::string &out,
                 ReproCellsResult &r)
{
    r.shard = shard;
    ShardLedger l = ledgerOf(ctx, shard, "cells", r.orderSeeds + 3);
    l.setParameter("test", r.test);
    l.setParameter("arm", armName(r.arm));
    l.setParameter("order_seeds", r.orderSeeds);
    l.setParameter("freeze_time", r.freezeTime);
    l.setParameter("clock_zone", r.clockZone);
    for (const ReproCell &c : r.cells) {
        // Before attribute(): only what the runs said (the clock without a seam) is here.
        if (!c.unknownReason.empty())
            l.notes[c.name] = c.unknownReason;
        for (const NodeRun &t : c.trials)
            l.runs.push_back({ReproCells::unitOf(c.name, t.index, r.orderSeeds), t});
    }
    ReproCells::attribute(r); // the shard's tallies; its findings say nothing yet
    r.findings.clear();
    if (r.interrupted) {
        r.findings.push_back({"unknown", "shard " + shard.name() +
                                             " interrupted: " + std::to_string(r.cancelledRuns) +
                                             " run(s) did not finish; no shard ledger written"});
        return;
    }
    r.findings.push_back({"unknown", "shard " + shard.name() +
                                         ": no attribution until merged (patchwitness-cli "
                                         "merge)"});
    try {
        r.recordPath = l.write(ctx.runsDir(), r.test, "cells", out);
    } catch (const Error &e) {
        r.recordError = e.what();
    }
}

AttributionResult mergeAttribution(const ShardSet &set)
{
    requireKind(set, "attribution");
    const ShardLedger &first = set.first();
    AttributionResult r;
    r.test = first.stringParameter("test");
    r.mode = modeText(first.file, first.stringParameter("mode")) == "swept"
                 ? AttributionRequest::Mode::Swept
                 : AttributionRequest::Mode::Matched;
    r.runsPerArm = int(first.integerParameter("runs"));
    if (r.runsPerArm != first.units)
        throw Error::input(first.file + ": units: " + std::to_string(first.units) +
                           " is not parameters.runs " + std::to_string(r.runsPerArm));
    if (r.mode == AttributionRequest::Mode::Swept) {
        for (int i = 0; i < r.runsPerArm; ++i)
            r.seeds.push_back(uint32_t(i));
    } else {
        r.seeds.push_back(uint32_t(first.integerParameter("seed")));
    }
    r.baseSpec = first.baseSpec;
    r.headSpec = first.headSpec;
    r.baseCommit = first.baseCommit;
    r.headCommit = first.headCommit;
    for (const ShardLedger &l : set.shards) {
        for (size_t i = 0; i < l.runs.size(); ++i) {
            const NodeRun &run = l.runs[i].run;
            if (run.label != "base" && run.label != "head")
                badRun(l, i, "label", "\"" + run.label + "\" is not base or head");
            if (run.index != l.runs[i].unit)
                badRun(l, i, "index",
                       std::to_string(run.index) + " is not its unit " +
                           std::to_string(l.runs[i].unit));
        }
        checkAttributionRuns(l, r.mode == AttributionRequest::Mode::Swept, r.seeds.front());
    }
    for (const ShardRun &sr : set.runs())
        (sr.run.label == "base" ? r.base : r.head).runs.push_back(sr.run);
    Attribution::judge(r);
    return r;
}

ReproCellsResult mergeCells(const ShardSet &set)
{
    requireKind(set, "cells");
    const ShardLedger &first = set.first();
    ReproCellsResult r;
    r.test = first.stringParameter("test");
    const std::string arm = first.stringParameter("arm");
    if (arm != "head" && arm != "base")
        throw Error::input(first.file + ": parameters.arm: \"" + arm + "\" is not head or base");
    r.arm = arm == "base" ? Arm::Base : Arm::Head;
    r.revision = r.arm == Arm::Base ? first.baseSpec : first.headSpec;
    r.commit = r.arm == Arm::Base ? first.baseCommit : first.headCommit;
    r.scope = ReproCells::scopeOf(r.test);
    r.orderSeeds = int(first.integerParameter("order_seeds"));
    r.freezeTime = first.stringParameter("freeze_time");
    r.clockZone = first.stringParameter("clock_zone");
    if (first.units != r.orderSeeds + 3)
        throw Error::input(first.file + ": units: " + std::to_string(first.units) +
                           " is not parameters.order_seeds + 3");
    ReproCells::describe(r);
    for (const ShardLedger &l : set.shards) {
        for (size_t i = 0; i < l.runs.size(); ++i) {
            const ShardRun &sr = l.runs[i];
            const bool known = std::any_of(r.cells.begin(), r.cells.end(), [&](const ReproCell &c) {
                return c.name == sr.run.label;
            });
            if (!known)
                badRun(l, i, "label",
                       "\"" + sr.run.label + "\" is not a cell (solo, order, isolate, clock)");
            if (ReproCells::unitOf(sr.run.label, sr.run.index, r.orderSeeds) != sr.unit)
                badRun(l, i, "unit",
                       std::to_string(sr.unit) + " is not the unit of " + sr.run.label + " run " +
                           std::to_string(sr.run.index));
        }
        checkCellsRuns(l, r.orderSeeds);
        for (const auto &[cell, note] : l.notes) {
            for (ReproCell &c : r.cells) {
                if (c.name == cell)
                    c.unknownReason = note;
            }
        }
    }
    for (const ShardRun &sr : set.runs()) {
        for (ReproCell &c : r.cells) {
            if (c.name == sr.run.label)
                c.trials.push_back(sr.run);
        }
    }
    ReproCells::pickReplays(r);
    ReproCells::attribute(r);
    // The cells compare runs with each other: shards run under different environments
    // (interpreter, packages, platform) would blame the test for the machines' difference.
    // A run's env digest includes its hash seed (each order run has its own), so runs are
    // compared by their seedless digest (the digest at seed 0), one value per environment.
    // A run of an older ledger has none: a seed-0 run (solo, isolate — its trials carry
    // their replay seed but the digest of their seed-0 run — clock) gives its env digest,
    // the same value; an order run is compared only by its env digest with its own seed.
    std::map<std::string, std::map<std::string, std::set<std::string>>> groups; // → digest → files
    for (const ShardLedger &l : set.shards) {
        for (const ShardRun &sr : l.runs) {
            const NodeRun &t = sr.run;
            const bool seeded = t.label == "order";
            if (!t.envDigest.empty())
                groups["seed " + std::to_string(seeded ? t.seed : 0)][t.envDigest].insert(l.file);
            const std::string &seedless =
                !t.seedlessDigest.empty() || seeded ? t.seedlessDigest : t.envDigest;
            if (!seedless.empty())
                groups["seedless"][seedless].insert(l.file);
        }
    }
    std::map<std::string, std::set<std::string>> clashing; // digest → the shard files
    for (const auto &[group, digests] : groups) {
        if (digests.size() < 2)
            continue;
        for (const auto &[digest, files] : digests)
            clashing[digest].insert(files.begin(), files.end());
    }
    if (!clashing.empty()) {
        std::string list;
        for (const auto &[digest, files] : clashing) {
            std::string named;
            for (const std::string &file : files)
                named += (named.empty() ? "" : ", ") + file;
            list += (list.empty() ? "" : "; ") + digest + " in " + named;
        }
        r.findings.clear();
        r.findings.push_back({"unknown", "no evidence: the shards ran under different "
                                         "environments (env digests " +
                                             list + "); rerun every shard on one environment"});
    }
    return r;
}

MergedSweep mergeSweep(const ShardSet &set, const std::string &runsDir, const std::string &recorded)
{
    const bool record = !runsDir.empty() && set.complete();
    MergedSweep merged;
    if (set.first().kind == "attribution") {
        AttributionResult r = mergeAttribution(set);
        if (record && r.verdict) {
            try {
                r.recordPath = Attribution::writeRecord(runsDir, r.record(recorded));
            } catch (const Error &e) {
                r.recordError = e.what();
            }
        }
        merged.attribution = std::move(r);
    } else if (set.first().kind == "cells") {
        ReproCellsResult r = mergeCells(set);
        if (record && !r.notCollected) {
            try {
                r.recordPath = writeCellsRecord(runsDir, r, recorded);
            } catch (const Error &e) {
                r.recordError = e.what();
            }
        }
        merged.cells = std::move(r);
    } else {
        throw Error::input(set.first().file + ": kind: \"" + set.first().kind +
                           "\" is not a sweep merge knows (attribution, cells)");
    }
    return merged;
}

} // namespace pw::core
