#include "dynamic/SeedMatrix.h"

#include "dynamic/Attribution.h"
#include "dynamic/CellsRecord.h"
#include "dynamic/RunsDir.h"
#include "dynamic/ShardMerge.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/JsonText.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <climits>
#include <set>

namespace pw::core {

namespace {

using Json = nlohmann::ordered_json;

std::string fraction(int fails, int replays)
{
    return std::to_string(fails) + "/" + std::to_string(replays);
}

std::vector<long long> keysOf(const std::map<long long, int> &seeds)
{
    std::vector<long long> keys;
    for (const auto &[seed, fails] : seeds)
        keys.push_back(seed);
    return keys;
}

} // namespace

std::string seedsText(const std::vector<long long> &seeds)
{
    if (seeds.empty())
        return "none";
    bool run = seeds.size() > 2;
    for (size_t i = 1; i < seeds.size() && run; ++i)
        run = seeds[i] == seeds[i - 1] + 1;
    if (run)
        return std::to_string(seeds.front()) + ".." + std::to_string(seeds.back());
    std::string out;
    for (long long s : seeds)
        out += (out.empty() ? "" : ", ") + std::to_string(s);
    return out;
}

// ---- the compatible ledger -------------------------------------------------------------

SeedLedger SeedLedger::parse(const std::string &text, const std::string &origin)
{
    const Json root = jsontext::parse(text, origin, 1, true);
    if (!root.is_object())
        throw Error::input(origin + ":1:1: a seed-matrix ledger must be a JSON object, got " +
                           jsontext::typeName(root));
    auto fail = [&origin](const std::string &field, const std::string &message) {
        throw Error::input(origin + ": " + field + ": " + message);
    };
    SeedLedger ledger;
    ledger.file = origin;
    for (const char *key : {"impl", "prop"}) {
        const auto it = root.find(key);
        if (it == root.end() || it->is_null())
            continue;
        if (!it->is_string())
            fail(key, std::string("must be a string, got ") + jsontext::typeName(*it));
        (std::string(key) == "impl" ? ledger.impl : ledger.prop) = it->get<std::string>();
    }
    const auto replays = root.find("replays");
    if (replays == root.end())
        fail("replays", "missing (the replays per seed, K)");
    if (!replays->is_number_integer() || replays->get<long long>() < 1 ||
        replays->get<long long>() > INT_MAX)
        fail("replays", "must be an integer of at least 1, got " + replays->dump());
    ledger.replays = int(replays->get<long long>());
    const auto seeds = root.find("seeds");
    if (seeds == root.end())
        fail("seeds", "missing (seed → fails out of replays)");
    if (!seeds->is_object())
        fail("seeds", std::string("must be an object, got ") + jsontext::typeName(*seeds));
    for (auto it = seeds->begin(); it != seeds->end(); ++it) {
        const std::string &key = it.key();
        const bool digits =
            !key.empty() && key.size() <= 18 &&
            std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits)
            fail("seeds." + key, "a seed must be a non-negative integer");
        const long long seed = std::stoll(key);
        if (!it->is_number_integer() || it->get<long long>() < 0 ||
            it->get<long long>() > ledger.replays)
            fail("seeds." + key, "must be the fails out of " + std::to_string(ledger.replays) +
                                     " replays (0.." + std::to_string(ledger.replays) + "), got " +
                                     it->dump());
        if (!ledger.seeds.emplace(seed, int(it->get<long long>())).second)
            fail("seeds." + key, "seed " + std::to_string(seed) + " is given twice");
    }
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string &key = it.key();
        if (key != "impl" && key != "prop" && key != "replays" && key != "seeds")
            ledger.unknownFields.emplace_back(key, it.value().dump());
    }
    return ledger;
}

SeedLedger SeedLedger::read(const std::string &path)
{
    const std::optional<std::string> text = readWholeFile(path);
    if (!text)
        throw Error::input(path + ": cannot read the seed-matrix ledger");
    return parse(*text, path);
}

std::string SeedLedger::format() const
{
    Json out = Json::object();
    out["impl"] = impl;
    out["prop"] = prop;
    out["replays"] = replays;
    Json cells = Json::object();
    for (const auto &[seed, fails] : seeds)
        cells[std::to_string(seed)] = fails;
    out["seeds"] = cells;
    for (const auto &[key, text] : unknownFields)
        out[key] = Json::parse(text);
    return out.dump(2) + "\n";
}

// ---- triage -----------------------------------------------------------------------------

const char *triageName(Triage triage)
{
    switch (triage) {
    case Triage::NoSignal:
        return "NO_SIGNAL";
    case Triage::PatchBug:
        return "PATCH_BUG";
    case Triage::FlakyOracle:
        return "FLAKY_ORACLE";
    case Triage::PreExisting:
        return "PRE_EXISTING";
    case Triage::NeedsManualReview:
        return "NEEDS_MANUAL_REVIEW";
    }
    return "NEEDS_MANUAL_REVIEW";
}

std::string TriageResult::line() const
{
    if (!triage)
        return "no triage: " + message;
    // triage.py's spacing: the verdict, then the sentence.
    return std::string(triageName(*triage)) + "   " + message;
}

TriageResult triageCells(const std::vector<TriageCell> &cells, int baseReplays, int headReplays,
                         const std::vector<long long> &unobserved, const std::string &unobservedWhy)
{
    TriageResult r;
    for (const TriageCell &c : cells)
        r.seedsCompared.push_back(c.seed);
    const std::string gaps = unobserved.empty()
                                 ? std::string()
                                 : "seed" + std::string(unobserved.size() == 1 ? " " : "s ") +
                                       seedsText(unobserved) + " not observed on both trees" +
                                       (unobservedWhy.empty() ? "" : " (" + unobservedWhy + ")");
    if (cells.empty()) {
        r.message =
            unobserved.empty() ? "no seed to compare" : "no seed observed on both trees: " + gaps;
        return r;
    }
    const int k = headReplays;
    auto each = [&cells](auto &&pred) -> const TriageCell * {
        for (const TriageCell &c : cells)
            if (pred(c))
                return &c;
        return nullptr;
    };
    const bool silent = !each([](const TriageCell &c) { return c.headFails != 0; });
    if (silent) {
        if (!unobserved.empty()) {
            r.triage = Triage::NeedsManualReview;
            r.message = "green on every seed observed, but " + gaps +
                        ": green on the patch is not evidence, and these seeds are not even that";
            return r;
        }
        r.triage = Triage::NoSignal;
        r.message = "green on the patch is not evidence";
        return r;
    }
    if (const TriageCell *c =
            each([k](const TriageCell &c) { return c.headFails == k && c.baseFails == 0; })) {
        r.triage = Triage::PatchBug;
        r.witnessSeed = c->seed;
        r.message = "witness seed=" + std::to_string(c->seed) + " (" + fraction(c->headFails, k) +
                    " patched, " + fraction(c->baseFails, baseReplays) + " baseline)";
        return r;
    }
    if (const TriageCell *c =
            each([k](const TriageCell &c) { return c.headFails > 0 && c.headFails < k; })) {
        r.triage = Triage::FlakyOracle;
        r.flakySeed = c->seed;
        r.message = "seed=" + std::to_string(c->seed) + " " + fraction(c->headFails, k) +
                    " on patch — not freezable yet";
        return r;
    }
    if (const TriageCell *c = each([](const TriageCell &c) { return c.headFails > 0; })) {
        if (!unobserved.empty()) {
            r.triage = Triage::NeedsManualReview;
            r.message = "seed=" + std::to_string(c->seed) + " " + fraction(c->headFails, k) +
                        " patched and " + fraction(c->baseFails, baseReplays) + " baseline, but " +
                        gaps +
                        ": PRE_EXISTING speaks for every seed, and a patch bug may hide there";
            return r;
        }
        r.triage = Triage::PreExisting;
        r.witnessSeed = c->seed;
        r.message = "seed=" + std::to_string(c->seed) + " " + fraction(c->headFails, k) +
                    " patched and " + fraction(c->baseFails, baseReplays) + " baseline";
        return r;
    }
    r.triage = Triage::NeedsManualReview;
    r.message = "no rule of the table matches";
    return r;
}

TriageResult triage(const SeedLedger &base, const SeedLedger &patched)
{
    std::vector<TriageCell> cells;
    for (const auto &[seed, headFails] : patched.seeds) {
        const auto at = base.seeds.find(seed);
        if (at != base.seeds.end())
            cells.push_back({seed, at->second, headFails});
    }
    if (cells.empty()) {
        TriageResult r;
        r.message = "no seed in common: " + (base.file.empty() ? "base" : base.file) + " has " +
                    seedsText(keysOf(base.seeds)) + ", " +
                    (patched.file.empty() ? "patched" : patched.file) + " has " +
                    seedsText(keysOf(patched.seeds));
        return r;
    }
    return triageCells(cells, base.replays, patched.replays);
}

// ---- the matrix run ---------------------------------------------------------------------

const MatrixTest *MatrixResult::find(const std::string &test) const
{
    for (const MatrixTest &t : tests)
        if (t.test == test)
            return &t;
    return nullptr;
}

Severity triageSeverity(Triage triage)
{
    switch (triage) {
    case Triage::PatchBug:
        return Severity::Block;
    case Triage::FlakyOracle:
    case Triage::NeedsManualReview:
        return Severity::Review;
    case Triage::PreExisting:
    case Triage::NoSignal:
        break;
    }
    return Severity::Info;
}

std::vector<Finding> MatrixResult::findings() const
{
    std::vector<Finding> out;
    if (interrupted)
        return out;
    for (const MatrixTest &t : tests) {
        Finding f;
        f.gate = "run";
        f.test = t.test;
        f.path = t.test.substr(0, t.test.find("::"));
        f.code = std::string("M-") + (t.triage.triage ? triageName(*t.triage.triage) : "NONE");
        f.message = "seed matrix of " + t.test + ": " + t.triage.line();
        const std::optional<long long> seed =
            t.triage.witnessSeed ? t.triage.witnessSeed : t.triage.flakySeed;
        const std::string cell = seed ? portableCell(t.test, uint32_t(*seed)) : std::string();
        const Triage verdict = t.triage.triage.value_or(Triage::NeedsManualReview);
        f.severity = triageSeverity(verdict);
        // A test the patch adds has no baseline: nothing to triage, and nothing wrong with
        // the patch for it (the manifest diff reports the addition).
        if (!t.triage.triage && !t.base.collected && t.head.collected && digestConflict.empty())
            f.severity = Severity::Info;
        switch (verdict) {
        case Triage::PatchBug:
            f.evidence = "a fix of the patch: the witness seed fails every replay at head and "
                         "none on the base" +
                         (cell.empty() ? std::string() : " (" + cell + ")");
            break;
        case Triage::FlakyOracle:
            f.evidence = "a deterministic oracle: the test fails some replays of one seed at "
                         "head, so no seed reproduces it and it cannot be frozen";
            break;
        case Triage::NeedsManualReview:
            f.evidence = t.triage.triage ? "a person's reading of the cells (see the message)"
                                         : "a matrix that can triage the test (see the message)";
            break;
        case Triage::PreExisting:
            f.evidence = "a freeze backed by this matrix, if the failure is to stay";
            break;
        case Triage::NoSignal:
            f.evidence = "green on the patch is not evidence: a test that fails without the "
                         "fix";
            break;
        }
        out.push_back(std::move(f));
    }
    return out;
}

std::string MatrixResult::portableCell(const std::string &test, uint32_t seed) const
{
    if (baseCommit.empty() || headCommit.empty())
        return {};
    return "patchwitness-cli matrix " + shellQuote(test) + " --base " + baseCommit + " --head " +
           headCommit + " --seed " + std::to_string(seed) + " --replays " +
           std::to_string(replays) + " --no-record";
}

namespace {

// "tests/t.py seeds 0..9" of a server run.
std::string serverText(const ReplayServerRun &run)
{
    std::set<std::string> files;
    for (const std::string &node : run.nodeIds)
        files.insert(node.substr(0, node.find("::")));
    std::string what;
    for (const std::string &file : files)
        what += (what.empty() ? "" : ", ") + file;
    std::vector<long long> seeds(run.seeds.begin(), run.seeds.end());
    return what + " seed" + (seeds.size() == 1 ? " " : "s ") + seedsText(seeds);
}

} // namespace

std::vector<uint32_t> MatrixRequest::seedsFor(const Config &config) const
{
    if (seedList) {
        if (seedList->empty() ||
            std::set<uint32_t>(seedList->begin(), seedList->end()).size() != seedList->size())
            throw Error::input("matrix: --seed needs distinct seeds");
        return *seedList;
    }
    const int n = seeds.value_or(config.seeds);
    if (n < 1)
        throw Error::input("matrix: --seeds must be at least 1");
    std::vector<uint32_t> out;
    for (int s = 0; s < n; ++s)
        out.push_back(uint32_t(s));
    return out;
}

MatrixResult SeedMatrix::run(const RunContext &ctx, const MatrixRequest &request, RunPool &pool,
                             const MatrixCallback &progress)
{
    if (request.tests.empty())
        throw Error::input("matrix: at least one test node id is required");
    std::set<std::string> distinct;
    for (const std::string &test : request.tests) {
        checkNodeId(ctx, test);
        if (!distinct.insert(test).second)
            throw Error::input("matrix: " + test + " is given twice");
    }
    MatrixResult result;
    result.replays = request.replays.value_or(ctx.config().replays);
    if (result.replays < 1)
        throw Error::input("matrix: --replays must be at least 1");
    const std::vector<uint32_t> allSeeds = request.seedsFor(ctx.config());
    // The units of a shard are positions in allSeeds: this run holds `units`.
    std::vector<int> units;
    if (request.shard)
        checkShardable(ctx, "matrix");
    for (size_t s = 0; s < allSeeds.size(); ++s) {
        if (request.shard && !request.shard->owns(s))
            continue;
        units.push_back(int(s));
        result.seeds.push_back(allSeeds[s]);
    }
    if (result.seeds.empty())
        throw Error::input("matrix --shard " + request.shard->name() +
                           ": no seed is this shard's (" + std::to_string(allSeeds.size()) +
                           " seed(s) for " + std::to_string(request.shard->count) + " shards)");
    std::vector<ShardRun> shardRuns; // with request.shard: every replay, for the ledger
    const long long trials =
        (long long)request.tests.size() * (long long)result.seeds.size() * result.replays * 2;
    checkTrialBudget(ctx, "matrix",
                     std::to_string(request.tests.size()) + " test(s) × " +
                         std::to_string(result.seeds.size()) + " seeds × " +
                         std::to_string(result.replays) +
                         " replays × 2 trees = " + std::to_string(trials) + " trials",
                     trials);
    result.baseSpec = ctx.base().spec;
    result.headSpec = ctx.head().spec;
    result.baseCommit = ctx.base().commit;
    result.headCommit = ctx.head().commit;
    result.provenance = ctx.provenance();

    // Every replay at PYTHONHASHSEED 0 (one env digest for the whole matrix), seeded by
    // the plugin as a fresh `--pw-seed <seed>` run of the node alone would be.
    const int perReplayMs = Config::milliseconds(ctx.config().timeoutPerTest);
    const long long cellsPerTree =
        (long long)request.tests.size() * (long long)result.seeds.size() * result.replays;
    // A test whose file a tree does not have is not collected there: it goes to no server
    // of that tree (pytest would end the whole file's run with "file not found").
    auto present = [&ctx](Arm arm, const std::string &test) {
        return QFileInfo::exists(
            QString::fromStdString(ctx.treeDir(arm) + "/" + test.substr(0, test.find("::"))));
    };
    std::vector<ReplayRequest> requests;
    std::vector<Arm> arms;
    for (Arm arm : {Arm::Base, Arm::Head}) {
        std::vector<std::string> nodes;
        for (const std::string &test : request.tests)
            if (present(arm, test))
                nodes.push_back(test);
        if (nodes.empty())
            continue;
        arms.push_back(arm);
        ReplayRequest r;
        r.base = ctx.spec(arm, {}, 0);
        // A server holds many replays, each with its own timer: the run's own timeout is
        // the config's plus one replay timeout per cell (a ceiling for a hung collection).
        r.base.timeoutMs =
            int(std::min<long long>(INT_MAX, ctx.timeoutMs() + cellsPerTree * perReplayMs));
        r.nodeIds = nodes;
        r.seeds = result.seeds;
        r.replays = result.replays;
        r.perReplayTimeoutMs = perReplayMs;
        requests.push_back(std::move(r));
    }
    // Each cell's reproduction: a fresh run of the test alone at its seed, as replayed.
    for (const std::string &test : request.tests) {
        MatrixTest t;
        t.test = test;
        for (Arm arm : {Arm::Base, Arm::Head}) {
            RunSpec spec = ctx.spec(arm, {test}, 0);
            for (uint32_t seed : result.seeds) {
                spec.env.witness.seed = seed;
                t.tree(arm).commands.push_back(replayCommand(spec));
            }
        }
        result.tests.push_back(std::move(t));
    }

    const std::vector<ReplayMatrix> matrices =
        forkReplays(requests, pool, [&](int done, int total, const ReplayServerRun &run) {
            if (!progress)
                return;
            MatrixProgress tick;
            tick.done = done;
            tick.total = total;
            tick.arm = arms[run.request];
            const RunResult &r = *run.result;
            std::string outcome =
                std::to_string(run.fails) + " of " + std::to_string(run.trials) + " replays failed";
            if (run.errors > 0)
                outcome += ", " + std::to_string(run.errors) + " no evidence";
            if (!r.harnessReason.empty() && r.status != RunStatus::Completed)
                outcome += " (" + r.harnessReason + ")";
            tick.reported = run.reported;
            tick.run = run.result;
            tick.line = std::to_string(done) + "/" + std::to_string(total) + " " +
                        armName(tick.arm) + " " + serverText(run) + ": " + outcome + " (" +
                        formatSeconds(double(r.durationMs) / 1000.0) + ")";
            progress(tick);
        });
    const bool cancelled = pool.lastRunCancelled();
    result.interrupted = cancelled;
    std::set<std::string> digests;
    // Tests a tree has no file for: every replay there not collected.
    for (MatrixTest &t : result.tests)
        for (Arm arm : {Arm::Base, Arm::Head}) {
            if (present(arm, t.test))
                continue;
            MatrixTree &tree = t.tree(arm);
            tree.fails.assign(result.seeds.size(), 0);
            tree.errors.assign(result.seeds.size(), result.replays);
            tree.runs.assign(result.seeds.size(), -1);
            tree.collected = false;
            if (!request.shard)
                continue;
            for (size_t s = 0; s < result.seeds.size(); ++s)
                for (int r = 0; r < result.replays; ++r) {
                    NodeRun run;
                    run.label = matrixRunLabel(arm, t.test);
                    run.seed = result.seeds[s];
                    run.index = r;
                    run.outcome = Outcome::NotCollected;
                    run.command = tree.commands[s];
                    run.reason = "the tree has no " + t.test.substr(0, t.test.find("::"));
                    shardRuns.push_back({units[s], run});
                }
        }
    for (size_t a = 0; a < matrices.size(); ++a) {
        const ReplayMatrix &m = matrices[a];
        const Arm arm = arms[a];
        const int firstRun = int(result.runs.size());
        result.runs.insert(result.runs.end(), m.runs.begin(), m.runs.end());
        result.serverRuns += int(m.runs.size());
        result.budgetExhausted = result.budgetExhausted || m.budgetExhausted;
        result.durationMs = std::max(result.durationMs, m.durationMs);
        for (const std::string &why : m.restarts)
            result.restarts.push_back(std::string(armName(arm)) + ": " + why);
        for (const RunResult &run : m.runs) {
            if (run.status == RunStatus::Cancelled)
                result.interrupted = true;
            if (!run.envDigest.empty())
                digests.insert(run.envDigest);
        }
        for (size_t node = 0; node < m.nodeIds.size(); ++node) {
            MatrixTest &t =
                *std::find_if(result.tests.begin(), result.tests.end(),
                              [&](const MatrixTest &row) { return row.test == m.nodeIds[node]; });
            MatrixTree &tree = t.tree(arm);
            bool collected = false;
            for (size_t seed = 0; seed < m.seeds.size(); ++seed) {
                int f = 0, e = 0, held = -1, failHeld = -1;
                for (int r = 0; r < m.replays; ++r) {
                    const ReplayCell &cell = m.at(node, seed, r);
                    if (cell.run >= 0) {
                        held = held < 0 ? firstRun + cell.run : held;
                        if (cell.outcome == Outcome::Fail && failHeld < 0)
                            failHeld = firstRun + cell.run;
                    }
                    if (request.shard) {
                        NodeRun run;
                        run.label = matrixRunLabel(arm, t.test);
                        run.seed = m.seeds[seed];
                        run.index = r;
                        run.outcome = cell.outcome;
                        run.command = tree.commands[seed];
                        if (cell.run >= 0)
                            run.envDigest = result.runs[size_t(firstRun + cell.run)].envDigest;
                        run.reason = cell.detail;
                        shardRuns.push_back({units[seed], run});
                    }
                    if (cell.outcome == Outcome::Fail)
                        ++f;
                    else if (cell.outcome == Outcome::HarnessError ||
                             cell.outcome == Outcome::NotCollected)
                        ++e;
                    collected = collected || cell.outcome != Outcome::NotCollected;
                    std::string &first = cell.outcome == Outcome::Fail ? tree.detail : tree.problem;
                    if ((cell.outcome == Outcome::Fail || cell.outcome == Outcome::HarnessError) &&
                        first.empty())
                        first = "seed " + std::to_string(m.seeds[seed]) + ": " +
                                (cell.detail.empty() ? std::string(outcomeName(cell.outcome))
                                                     : cell.detail);
                }
                tree.fails.push_back(f);
                tree.errors.push_back(e);
                tree.runs.push_back(failHeld >= 0 ? failHeld : held);
            }
            tree.collected = collected;
        }
    }
    result.envDigest = digests.size() == 1 ? *digests.begin() : std::string();
    if (digests.size() > 1)
        result.digestConflict = join(std::vector<std::string>(digests.begin(), digests.end()));
    if (!request.shard)
        judge(result);
    result.portableCommand = portableCommandOf(result);
    if (request.shard) {
        finishShard(ctx, *request.shard, request.shardOut, result, allSeeds, shardRuns);
        return result;
    }
    if (!request.record || result.interrupted)
        return result;
    record(result, ctx.runsDir(), recordDate(ctx));
    return result;
}

std::string SeedMatrix::fileName(const MatrixResult &result)
{
    if (result.tests.empty())
        return "matrix";
    return result.tests.size() == 1
               ? result.tests.front().test
               : result.tests.front().test + "-and-" + std::to_string(result.tests.size() - 1);
}

std::string SeedMatrix::portableCommandOf(const MatrixResult &result)
{
    if (result.baseCommit.empty() || result.headCommit.empty())
        return {};
    std::string command = "patchwitness-cli matrix";
    for (const MatrixTest &t : result.tests)
        command += " " + shellQuote(t.test);
    command += " --base " + result.baseCommit + " --head " + result.headCommit;
    bool range = true;
    for (size_t s = 0; s < result.seeds.size(); ++s)
        range = range && result.seeds[s] == uint32_t(s);
    if (range) {
        command += " --seeds " + std::to_string(result.seeds.size());
    } else {
        for (uint32_t seed : result.seeds)
            command += " --seed " + std::to_string(seed);
    }
    return command + " --replays " + std::to_string(result.replays);
}

void SeedMatrix::record(MatrixResult &result, const std::string &runsDir, const std::string &date)
{
    try {
        for (MatrixTest &t : result.tests) {
            for (Arm arm : {Arm::Base, Arm::Head})
                t.tree(arm).ledger = RunsDir::writeNew(
                    runsDir,
                    RunsDir::recordStem(date, t.test, std::string("seeds-") + armName(arm)),
                    ledgerOf(result, t, arm).format());
        }
        result.recordPath =
            RunsDir::writeNew(runsDir, RunsDir::recordStem(date, fileName(result), "matrix"),
                              formatRecord(result, date));
    } catch (const Error &e) {
        result.recordError = e.what();
    }
}

void SeedMatrix::judge(MatrixResult &result)
{
    const size_t n = result.seeds.size();
    for (MatrixTest &t : result.tests) {
        t.triage = TriageResult();
        t.reason.clear();
        if (result.interrupted) {
            t.reason = "interrupted: no triage, nothing recorded";
        } else if (!result.digestConflict.empty()) {
            t.reason = "the replays' env digests differ (" + result.digestConflict +
                       "): runs with different digests are never compared";
        } else if (!t.base.collected && !t.head.collected) {
            t.reason = "collected on neither tree: check the node id";
        } else if (!t.head.collected) {
            t.reason = "not collected at head: the patch removed or renamed it (no triage; the "
                       "manifest diff says which)";
        } else if (!t.base.collected) {
            t.reason = "not collected at base: a test the patch adds has no baseline to triage "
                       "against (run it against the base code to get one)";
        }
        if (!t.reason.empty()) {
            t.triage.message = t.reason;
            continue;
        }
        std::vector<TriageCell> cells;
        std::vector<long long> unobserved;
        std::string why;
        for (size_t s = 0; s < n && s < t.base.fails.size() && s < t.head.fails.size(); ++s) {
            if (t.base.errors[s] == 0 && t.head.errors[s] == 0) {
                cells.push_back({result.seeds[s], t.base.fails[s], t.head.fails[s]});
                continue;
            }
            unobserved.push_back(result.seeds[s]);
        }
        if (!unobserved.empty())
            why = !t.head.problem.empty()   ? "head " + t.head.problem
                  : !t.base.problem.empty() ? "base " + t.base.problem
                                            : "replays that were no evidence";
        t.triage = triageCells(cells, result.replays, result.replays, unobserved, why);
        if (!t.triage.triage)
            t.reason = t.triage.message;
    }
}

SeedLedger SeedMatrix::ledgerOf(const MatrixResult &result, const MatrixTest &test, Arm arm)
{
    SeedLedger ledger;
    const std::string &commit = arm == Arm::Base ? result.baseCommit : result.headCommit;
    const std::string &spec = arm == Arm::Base ? result.baseSpec : result.headSpec;
    ledger.impl = (commit.empty() ? spec : commit) + "::" + test.test;
    ledger.prop = test.test;
    ledger.replays = result.replays;
    const std::vector<int> &fails = test.tree(arm).fails;
    const std::vector<int> &errors = test.tree(arm).errors;
    // Only the seeds whose every replay was evidence: a harness error is no count.
    for (size_t s = 0; s < result.seeds.size() && s < fails.size(); ++s)
        if (errors[s] == 0)
            ledger.seeds.emplace(result.seeds[s], fails[s]);
    return ledger;
}

std::string SeedMatrix::formatRecord(const MatrixResult &r, const std::string &recorded)
{
    Json doc = Json::object();
    doc["schema"] = "patchwitness.matrix/1";
    doc["seeds"] = r.seeds.size();
    doc["seed_list"] = r.seeds;
    doc["replays"] = r.replays;
    doc["env_digest"] = r.envDigest.empty() ? Json() : Json(r.envDigest);
    doc["trees"] = {{"base", {{"spec", r.baseSpec}, {"commit", r.baseCommit}}},
                    {"head", {{"spec", r.headSpec}, {"commit", r.headCommit}}}};
    doc["baseline_sha"] = r.baseCommit.empty() ? Json() : Json(r.baseCommit);
    Json tests = Json::array();
    for (const MatrixTest &t : r.tests) {
        Json row = Json::object();
        row["test"] = t.test;
        row["triage"] = t.triage.triage ? Json(triageName(*t.triage.triage)) : Json();
        row["witness_seed"] = t.triage.witnessSeed ? Json(*t.triage.witnessSeed) : Json();
        row["flaky_seed"] = t.triage.flakySeed ? Json(*t.triage.flakySeed) : Json();
        row["message"] = t.triage.message;
        row["reason"] = t.reason.empty() ? Json() : Json(t.reason);
        row["seeds_compared"] = t.triage.seedsCompared;
        for (Arm arm : {Arm::Base, Arm::Head}) {
            const MatrixTree &tree = t.tree(arm);
            const std::vector<int> &fails = tree.fails;
            const std::vector<int> &errors = tree.errors;
            Json cells = Json::object(), errs = Json::object();
            for (size_t s = 0; s < r.seeds.size() && s < fails.size(); ++s) {
                cells[std::to_string(r.seeds[s])] = fails[s];
                if (errors[s] > 0)
                    errs[std::to_string(r.seeds[s])] = errors[s];
            }
            row[armName(arm)] = cells;
            row[std::string(armName(arm)) + "_errors"] = errs;
            const auto text = [](const std::string &v) { return v.empty() ? Json() : Json(v); };
            row[std::string(armName(arm)) + "_detail"] = text(tree.detail);
            row[std::string(armName(arm)) + "_problem"] = text(tree.problem);
        }
        row["collected"] = {{"base", t.base.collected}, {"head", t.head.collected}};
        row["ledgers"] = {{"base", t.base.ledger.empty() ? Json() : Json(t.base.ledger)},
                          {"head", t.head.ledger.empty() ? Json() : Json(t.head.ledger)}};
        Json commands = Json::object();
        for (Arm arm : {Arm::Base, Arm::Head}) {
            const std::vector<std::string> &list = t.tree(arm).commands;
            Json perSeed = Json::object();
            for (size_t s = 0; s < r.seeds.size() && s < list.size(); ++s)
                perSeed[std::to_string(r.seeds[s])] = list[s];
            commands[armName(arm)] = perSeed;
        }
        row["commands"] = commands;
        const std::optional<long long> shown =
            t.triage.witnessSeed ? t.triage.witnessSeed : t.triage.flakySeed;
        const std::string portable = shown ? r.portableCell(t.test, uint32_t(*shown)) : "";
        row["portable"] = portable.empty() ? Json() : Json(portable);
        tests.push_back(row);
    }
    doc["tests"] = tests;
    doc["interpreter"] = r.provenance.interpreterJson();
    doc["restarts"] = r.restarts;
    doc["server_runs"] = r.serverRuns;
    doc["budget_exhausted"] = r.budgetExhausted;
    doc["interrupted"] = r.interrupted;
    doc["duration_ms"] = r.durationMs;
    doc["portable"] = r.portableCommand.empty() ? Json() : Json(r.portableCommand);
    doc["recorded"] = recorded;
    return doc.dump(2) + "\n";
}

} // namespace pw::core
