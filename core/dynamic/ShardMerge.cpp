#include "dynamic/ShardMerge.h"

#include "dynamic/CellsRecord.h"
#include "util/Error.h"
#include "util/Format.h"

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

std::string matrixRunLabel(Arm arm, const std::string &test)
{
    return std::string(armName(arm)) + " " + test;
}

void finishShard(const RunContext &ctx, const Shard &shard, const std::string &out, MatrixResult &r,
                 const std::vector<uint32_t> &allSeeds, std::vector<ShardRun> runs)
{
    r.shard = shard;
    const std::string why =
        "shard " + shard.name() + ": no triage until merged (patchwitness-cli merge)";
    for (MatrixTest &t : r.tests) {
        t.triage = TriageResult();
        t.reason =
            r.interrupted ? "shard " + shard.name() + " interrupted: no shard ledger written" : why;
        t.triage.message = t.reason;
    }
    if (r.interrupted)
        return;
    ShardLedger l = ledgerOf(ctx, shard, "matrix", int(allSeeds.size()));
    std::string tests, seeds;
    for (const MatrixTest &t : r.tests)
        tests += (tests.empty() ? "" : "\n") + t.test;
    for (uint32_t seed : allSeeds)
        seeds += (seeds.empty() ? "" : ",") + std::to_string(seed);
    l.setParameter("tests", tests);
    l.setParameter("seeds", seeds);
    l.setParameter("replays", r.replays);
    std::stable_sort(runs.begin(), runs.end(),
                     [](const ShardRun &a, const ShardRun &b) { return a.unit < b.unit; });
    l.runs = std::move(runs);
    try {
        r.recordPath = l.write(ctx.runsDir(), SeedMatrix::fileName(r), "matrix", out);
    } catch (const Error &e) {
        r.recordError = e.what();
    }
}

MatrixResult mergeMatrix(const ShardSet &set)
{
    requireKind(set, "matrix");
    const ShardLedger &first = set.first();
    MatrixResult r;
    std::vector<std::string> tests;
    {
        const std::string text = first.stringParameter("tests");
        size_t at = 0;
        while (at <= text.size()) {
            const size_t end = std::min(text.find('\n', at), text.size());
            if (end > at)
                tests.push_back(text.substr(at, end - at));
            at = end + 1;
        }
    }
    const std::string seedsText = first.stringParameter("seeds");
    for (size_t at = 0; at < seedsText.size();) {
        const size_t end = std::min(seedsText.find(',', at), seedsText.size());
        const std::string item = seedsText.substr(at, end - at);
        if (item.empty() || item.size() > 9 ||
            !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw Error::input(first.file + ": parameters.seeds: \"" + item +
                               "\" is not a seed (the seeds, comma-separated)");
        r.seeds.push_back(uint32_t(std::stoul(item)));
        at = end + 1;
    }
    r.replays = int(first.integerParameter("replays"));
    if (tests.empty() || r.seeds.empty() || r.replays < 1)
        throw Error::input(first.file + ": parameters: a matrix needs tests, seeds and replays (" +
                           first.parametersText() + ")");
    // What no matrix run writes: a ledger edited or made by hand is refused, not trusted.
    constexpr long long kMostReplays = 10000;
    if (first.integerParameter("replays") > kMostReplays)
        throw Error::input(first.file + ": parameters.replays: " +
                           std::to_string(first.integerParameter("replays")) + " is more than " +
                           std::to_string(kMostReplays) + " replays per seed");
    if (std::set<std::string>(tests.begin(), tests.end()).size() != tests.size())
        throw Error::input(first.file + ": parameters.tests: a test is given twice");
    if (std::set<uint32_t>(r.seeds.begin(), r.seeds.end()).size() != r.seeds.size())
        throw Error::input(first.file + ": parameters.seeds: a seed is given twice");
    if (first.units != int(r.seeds.size()))
        throw Error::input(first.file + ": units: " + std::to_string(first.units) + " is not the " +
                           std::to_string(r.seeds.size()) + " seeds of parameters.seeds");
    r.baseSpec = first.baseSpec;
    r.headSpec = first.headSpec;
    r.baseCommit = first.baseCommit;
    r.headCommit = first.headCommit;
    const size_t n = r.seeds.size();
    std::map<std::string, size_t> row; // label → (test, arm) slot
    for (const std::string &test : tests) {
        MatrixTest t;
        t.test = test;
        for (Arm arm : {Arm::Base, Arm::Head}) {
            MatrixTree &tree = t.tree(arm);
            // A seed no shard given ran is no evidence: every replay of it unobserved.
            tree.fails.assign(n, 0);
            tree.errors.assign(n, r.replays);
            tree.runs.assign(n, -1);
            tree.commands.assign(n, std::string());
            tree.collected = false;
            row[matrixRunLabel(arm, test)] = r.tests.size() * 2 + (arm == Arm::Base ? 0 : 1);
        }
        r.tests.push_back(std::move(t));
    }
    std::set<std::string> digests;
    for (const ShardLedger &l : set.shards) {
        const std::set<int> ran(l.ran.begin(), l.ran.end());
        // (slot, unit) → the replays seen, each once.
        std::map<std::pair<size_t, int>, std::vector<bool>> seen;
        for (size_t i = 0; i < l.runs.size(); ++i) {
            const ShardRun &sr = l.runs[i];
            const auto slot = row.find(sr.run.label);
            if (slot == row.end())
                badRun(l, i, "label",
                       "\"" + sr.run.label +
                           "\" is not \"base TEST\" or \"head TEST\" of this matrix");
            if (!ran.count(sr.unit))
                badRun(l, i, "unit", std::to_string(sr.unit) + " is not one of this shard's units");
            if (sr.run.seed != r.seeds[size_t(sr.unit)])
                badRun(l, i, "seed",
                       std::to_string(sr.run.seed) + " is not the seed " +
                           std::to_string(r.seeds[size_t(sr.unit)]) + " of unit " +
                           std::to_string(sr.unit));
            if (sr.run.index < 0 || sr.run.index >= r.replays)
                badRun(l, i, "index",
                       std::to_string(sr.run.index) + " is not a replay 0.." +
                           std::to_string(r.replays - 1));
            std::vector<bool> &replays = seen[{slot->second, sr.unit}];
            replays.resize(size_t(r.replays), false);
            if (replays[size_t(sr.run.index)])
                badRun(l, i, "index",
                       "a second replay " + std::to_string(sr.run.index) + " of " + sr.run.label +
                           " at unit " + std::to_string(sr.unit));
            replays[size_t(sr.run.index)] = true;
        }
        for (const int unit : l.ran)
            for (const auto &[label, slot] : row) {
                const auto it = seen.find({slot, unit});
                const size_t have =
                    it == seen.end()
                        ? 0
                        : size_t(std::count(it->second.begin(), it->second.end(), true));
                if (have != size_t(r.replays))
                    throw Error::input(l.file + ": runs: unit " + std::to_string(unit) + " has " +
                                       std::to_string(have) + " replay(s) of " + label + ", not " +
                                       std::to_string(r.replays));
            }
        // Counted once the ledger holds together.
        std::set<std::pair<size_t, int>> reset;
        for (const ShardRun &sr : l.runs) {
            const size_t slot = row[sr.run.label];
            MatrixTree &tree = r.tests[slot / 2].tree(slot % 2 == 0 ? Arm::Base : Arm::Head);
            const size_t s = size_t(sr.unit);
            if (reset.insert({slot, sr.unit}).second)
                tree.errors[s] = 0;
            const NodeRun &run = sr.run;
            if (run.outcome == Outcome::Fail) {
                ++tree.fails[s];
                if (tree.detail.empty())
                    tree.detail = "seed " + std::to_string(run.seed) + ": " +
                                  (run.reason.empty() ? std::string("call failed") : run.reason);
            } else if (!run.evidence()) {
                ++tree.errors[s];
                if (run.outcome == Outcome::HarnessError && tree.problem.empty())
                    tree.problem = "seed " + std::to_string(run.seed) + ": " +
                                   (run.reason.empty() ? std::string("harness error") : run.reason);
            }
            tree.collected = tree.collected || run.outcome != Outcome::NotCollected;
            if (tree.commands[s].empty())
                tree.commands[s] = run.command;
            if (!run.envDigest.empty())
                digests.insert(run.envDigest);
        }
    }
    r.envDigest = digests.size() == 1 ? *digests.begin() : std::string();
    if (digests.size() > 1)
        r.digestConflict = join(std::vector<std::string>(digests.begin(), digests.end()));
    r.mergedShards = int(set.shards.size());
    SeedMatrix::judge(r);
    r.portableCommand = SeedMatrix::portableCommandOf(r);
    return r;
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
    } else if (set.first().kind == "matrix") {
        MatrixResult r = mergeMatrix(set);
        if (record)
            SeedMatrix::record(r, runsDir, recorded);
        merged.matrix = std::move(r);
    } else {
        throw Error::input(set.first().file + ": kind: \"" + set.first().kind +
                           "\" is not a sweep merge knows (attribution, cells, matrix)");
    }
    return merged;
}

} // namespace pw::core
