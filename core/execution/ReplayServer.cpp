#include "execution/ReplayServer.h"

#include "execution/RunPool.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace pw::core {

namespace {

using nlohmann::json;

const char kBudgetDetail[] = "not run: trial budget exhausted";

// Where the runs' directories go: the request's runDir, or a temporary one that lives
// as long as the returned holder.
std::string runRoot(const ReplayRequest &request, std::unique_ptr<QTemporaryDir> &holder)
{
    if (!request.base.runDir.empty())
        return request.base.runDir;
    holder = std::make_unique<QTemporaryDir>(QDir::tempPath() +
                                             QStringLiteral("/patchwitness-replays-XXXXXX"));
    if (!holder->isValid())
        throw Error::input(QDir::tempPath().toStdString() + ": cannot create a run directory: " +
                           holder->errorString().toStdString());
    return holder->path().toStdString();
}

ReplayMatrix emptyMatrix(const ReplayRequest &request)
{
    if (request.nodeIds.empty() || request.seeds.empty() || request.replays < 1)
        throw Error::input("a replay matrix needs node ids, seeds and at least one replay");
    if (std::set<std::string>(request.nodeIds.begin(), request.nodeIds.end()).size() !=
            request.nodeIds.size() ||
        std::set<uint32_t>(request.seeds.begin(), request.seeds.end()).size() !=
            request.seeds.size())
        throw Error::input("a replay matrix needs distinct node ids and distinct seeds");
    ReplayMatrix m;
    m.nodeIds = request.nodeIds;
    m.seeds = request.seeds;
    m.replays = request.replays;
    m.cells.resize(m.nodeIds.size() * m.seeds.size() * size_t(m.replays));
    for (ReplayCell &cell : m.cells)
        cell.detail = "no rows recorded for this replay";
    return m;
}

// Node indices grouped by test file, files in order of first appearance: the trial
// order a budget counts in, and one fork-server run per group.
std::vector<std::vector<size_t>> byFile(const std::vector<std::string> &nodeIds)
{
    std::vector<std::vector<size_t>> groups;
    std::map<std::string, size_t> groupOf;
    for (size_t i = 0; i < nodeIds.size(); ++i) {
        const std::string file = nodeIds[i].substr(0, nodeIds[i].find("::"));
        auto [it, added] = groupOf.emplace(file, groups.size());
        if (added)
            groups.emplace_back();
        groups[it->second].push_back(i);
    }
    return groups;
}

// The witness options every replay run shares; seed, files and plan are per run.
RunSpec replaySpec(const ReplayRequest &request, const std::string &runDir)
{
    RunSpec spec = request.base;
    spec.runDir = runDir;
    spec.extraArgs.clear();
    spec.selection.clear();
    PluginOptions &w = spec.env.witness;
    w.enabled = true;
    w.outFile = runDir + "/outcomes.jsonl";
    w.orderFile.clear();
    w.collectFile.clear();
    w.replayPlan.clear();
    w.replayTimeoutMs = 0;
    w.budget = 0;
    w.probe = request.probe;
    w.arm = request.base.arm;
    w.runId = runDir.substr(runDir.rfind('/') + 1);
    if (!QDir().mkpath(QString::fromStdString(runDir)))
        throw Error::input(runDir + ": cannot create the run directory");
    QFile::remove(QString::fromStdString(w.outFile)); // a reused directory's old rows
    return spec;
}

void fill(ReplayCell &cell, const Trial &trial)
{
    cell.outcome = trial.outcome;
    cell.seconds = trial.seconds;
    cell.leaks = trial.leaks;
    cell.detail = trial.outcome == Outcome::Fail ? trial.failedPhase + " failed" : trial.detail;
}

bool endedByItself(const RunResult &result)
{
    return result.status == RunStatus::Completed && (result.exitCode == 0 || result.exitCode == 1);
}

std::string runProblem(const RunResult &result, const OutcomeRowsFile &rows)
{
    if (!result.harnessReason.empty())
        return result.harnessReason;
    if (!endedByItself(result))
        return std::string("run ") + runStatusName(result.status);
    return rows.error;
}

} // namespace

int ReplayMatrix::fails(size_t node, size_t seed) const
{
    int n = 0;
    for (int r = 0; r < replays; ++r)
        n += at(node, seed, r).outcome == Outcome::Fail ? 1 : 0;
    return n;
}

int ReplayMatrix::count(Outcome outcome) const
{
    int n = 0;
    for (const ReplayCell &cell : cells)
        n += cell.outcome == outcome ? 1 : 0;
    return n;
}

ReplayMatrix forkReplays(const ReplayRequest &request, RunPool &pool)
{
    return std::move(forkReplays(std::vector<ReplayRequest>{request}, pool).front());
}

std::vector<ReplayMatrix> forkReplays(const std::vector<ReplayRequest> &requests, RunPool &pool,
                                      const ReplayProgress &progress)
{
    QElapsedTimer clock;
    clock.start();
    struct Plan
    {
        ReplayMatrix m;
        std::unique_ptr<QTemporaryDir> holder;
        std::string root;
        int serversStarted = 0;
    };
    std::vector<Plan> plans(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
        plans[i].m = emptyMatrix(requests[i]);
        plans[i].root = runRoot(requests[i], plans[i].holder);
    }

    struct Server
    {
        size_t plan = 0; // index into requests
        RunSpec spec;
        std::vector<size_t> nodes;
        std::vector<size_t> seeds; // indices into m.seeds
        size_t skip = 0;           // cells of its plan a server before it ran
        int budget = 0;            // its trials (0: no cap)
    };
    // A server's run: its plan (its nodes x seeds x replays, from `skip` on) and spec.
    auto prepare = [&](Server &server) {
        const ReplayRequest &request = requests[server.plan];
        Plan &plan = plans[server.plan];
        const ReplayMatrix &m = plan.m;
        server.spec =
            replaySpec(request, plan.root + "/replays-" + std::to_string(++plan.serversStarted));
        RunSpec &spec = server.spec;
        json text = {{"nodeids", json::array()},
                     {"seeds", json::array()},
                     {"replays", m.replays},
                     {"skip", server.skip}};
        for (size_t node : server.nodes) {
            text["nodeids"].push_back(m.nodeIds[node]);
            spec.selection.push_back(m.nodeIds[node]);
        }
        for (size_t seed : server.seeds)
            text["seeds"].push_back(m.seeds[seed]);
        PluginOptions &w = spec.env.witness;
        w.replayPlan = spec.runDir + "/replays.json";
        if (!writeFileReplacing(w.replayPlan, text.dump() + "\n"))
            throw Error::input(w.replayPlan + ": cannot write the replay plan");
        w.replayTimeoutMs = request.perReplayTimeoutMs;
        w.budget = server.budget;
        if (request.inProcess)
            spec.extraArgs << QStringLiteral("--pw-replay-nofork");
    };

    // Each request's first servers, then dealt round-robin (b, h, b, h, …): the runs of
    // several trees meet the same machine noise.
    std::vector<std::vector<Server>> firsts(requests.size());
    for (size_t p = 0; p < requests.size(); ++p) {
        const ReplayRequest &request = requests[p];
        ReplayMatrix &m = plans[p].m;
        const size_t perNode = m.seeds.size() * size_t(m.replays);
        const size_t total = m.nodeIds.size() * perNode;
        const bool capped = request.budget > 0 && size_t(request.budget) < total;
        int64_t left = capped ? request.budget : INT64_MAX;
        for (const std::vector<size_t> &group : byFile(m.nodeIds)) {
            const int64_t trials = int64_t(group.size() * perNode);
            if (left <= 0) {
                m.budgetExhausted = true;
                for (size_t node : group)
                    for (size_t i = 0; i < perNode; ++i)
                        m.cells[node * perNode + i].detail = kBudgetDetail;
                continue;
            }
            // Shards of the seeds run side by side on the pool's workers, as fresh runs
            // would; each costs one collection, so a shard gets at least kTrialsPerShard
            // trials. A budget counts in one order: then there is one server.
            size_t shards = capped ? 1 : std::min(size_t(pool.workers()), m.seeds.size());
            shards = std::max<size_t>(1, std::min(shards, size_t(trials) / kTrialsPerShard));
            for (size_t shard = 0; shard < shards; ++shard) {
                Server server;
                server.plan = p;
                server.nodes = group;
                for (size_t i = shard * m.seeds.size() / shards;
                     i < (shard + 1) * m.seeds.size() / shards; ++i)
                    server.seeds.push_back(i);
                if (capped && trials > left)
                    server.budget = int(left);
                prepare(server);
                firsts[p].push_back(std::move(server));
            }
            left -= trials;
        }
    }
    std::vector<Server> servers;
    for (size_t i = 0;; ++i) {
        bool any = false;
        for (std::vector<Server> &first : firsts)
            if (i < first.size()) {
                servers.push_back(std::move(first[i]));
                any = true;
            }
        if (!any)
            break;
    }

    // A replay that writes into its tree (or HOME) stops its server, which would otherwise
    // hand what it wrote to the replays after it; the rest of that plan runs in a new
    // server, in a fresh copy. Each round runs at least one replay of every plan it
    // continues, so the rounds end.
    int done = 0, total = int(servers.size());
    while (!servers.empty()) {
        std::vector<RunSpec> specs;
        for (const Server &server : servers)
            specs.push_back(server.spec);
        const int doneBefore = done;
        std::vector<RunResult> results =
            pool.runIndexed(specs, [&](int finished, int, size_t index, const RunResult &result) {
                done = doneBefore + finished;
                if (!progress)
                    return;
                const Server &server = servers[index];
                const ReplayMatrix &m = plans[server.plan].m;
                ReplayServerRun run;
                run.request = server.plan;
                for (size_t node : server.nodes)
                    run.nodeIds.push_back(m.nodeIds[node]);
                for (size_t seed : server.seeds)
                    run.seeds.push_back(m.seeds[seed]);
                for (const Trial &trial :
                     foldTrials(readOutcomeRows(server.spec.env.witness.outFile).rows)) {
                    if (trial.replay < 0)
                        continue;
                    ++run.trials;
                    run.fails += trial.outcome == Outcome::Fail ? 1 : 0;
                    run.errors += trial.outcome == Outcome::HarnessError ? 1 : 0;
                    run.reported.push_back(trial);
                }
                run.result = &result;
                progress(done, total, run);
            });
        const bool cancelled = pool.lastRunCancelled();
        std::vector<Server> continued;
        for (size_t s = 0; s < servers.size(); ++s) {
            const Server &server = servers[s];
            ReplayMatrix &m = plans[server.plan].m;
            const RunResult &result = results[s];
            const OutcomeRowsFile rows = readOutcomeRows(server.spec.env.witness.outFile);
            // The server's cells in its plan's order, from its skip on.
            std::vector<std::tuple<size_t, size_t, int>> order;
            for (size_t node : server.nodes)
                for (size_t seed : server.seeds)
                    for (int r = 0; r < m.replays; ++r)
                        order.emplace_back(node, seed, r);
            std::map<std::tuple<std::string, uint32_t, int>, size_t> position;
            for (size_t i = server.skip; i < order.size(); ++i) {
                const auto [node, seed, r] = order[i];
                position.emplace(std::make_tuple(m.nodeIds[node], m.seeds[seed], r), i);
            }
            std::vector<bool> filled(order.size(), false);
            for (const Trial &trial : foldTrials(rows.rows)) {
                if (trial.outcome == Outcome::NotCollected) {
                    for (size_t i = server.skip; i < order.size(); ++i) {
                        const auto [node, seed, r] = order[i];
                        if (m.nodeIds[node] != trial.nodeId)
                            continue;
                        ReplayCell &cell = m.at(node, seed, r);
                        cell.outcome = Outcome::NotCollected;
                        cell.detail = "not collected by the replay run";
                        filled[i] = true;
                    }
                    continue;
                }
                const auto at = position.find({trial.nodeId, trial.seed, trial.replay});
                if (at == position.end())
                    continue;
                const auto [node, seed, r] = order[at->second];
                fill(m.at(node, seed, r), trial);
                filled[at->second] = true;
            }
            const OutcomeRow *changed = nullptr;
            for (const OutcomeRow &row : rows.rows)
                if (row.when == "server" && row.outcome == "tree_changed" && !changed)
                    changed = &row;
            // Where this server's cells end: at the cell a continuation starts from.
            size_t end = order.size();
            if (changed && !cancelled) {
                const auto from =
                    position.find({changed->nodeId, changed->seed, changed->replay.value_or(-1)});
                if (from != position.end() && from->second > server.skip) {
                    end = from->second;
                    m.restarts.push_back(changed->detail);
                    Server next;
                    next.plan = server.plan;
                    next.nodes = server.nodes;
                    next.seeds = server.seeds;
                    next.skip = end;
                    if (server.budget > 0) {
                        // Trials the server ran (a node it did not collect costs none).
                        int ran = 0;
                        for (size_t i = server.skip; i < end; ++i) {
                            const auto [node, seed, r] = order[i];
                            ran += filled[i] && m.at(node, seed, r).outcome != Outcome::NotCollected
                                       ? 1
                                       : 0;
                        }
                        next.budget = std::max(1, server.budget - ran);
                    }
                    prepare(next);
                    continued.push_back(std::move(next));
                }
            }
            for (size_t i = server.skip; i < end; ++i) {
                const auto [node, seed, r] = order[i];
                m.at(node, seed, r).run = int(m.runs.size());
            }
            m.runs.push_back(result);
            const bool budgetHit = budgetRow(rows.rows) != nullptr;
            m.budgetExhausted = m.budgetExhausted || budgetHit;
            // Cells without a trial: past the budget, or the run never got to them.
            const std::string problem = runProblem(result, rows);
            for (size_t i = server.skip; i < end; ++i) {
                if (filled[i])
                    continue;
                const auto [node, seed, r] = order[i];
                ReplayCell &cell = m.at(node, seed, r);
                cell.outcome = Outcome::HarnessError;
                if (!problem.empty())
                    cell.detail = problem;
                else if (budgetHit)
                    cell.detail = kBudgetDetail;
                else if (changed && cancelled)
                    cell.detail = "cancelled before a fresh copy ran it";
            }
        }
        total += int(continued.size());
        servers = std::move(continued);
    }
    std::vector<ReplayMatrix> matrices;
    for (Plan &plan : plans) {
        plan.m.durationMs = clock.elapsed();
        matrices.push_back(std::move(plan.m));
    }
    return matrices;
}

ReplayMatrix freshReplays(const ReplayRequest &request, RunPool &pool)
{
    QElapsedTimer clock;
    clock.start();
    ReplayMatrix m = emptyMatrix(request);
    std::unique_ptr<QTemporaryDir> holder;
    const std::string root = runRoot(request, holder);

    std::vector<RunSpec> specs;
    std::vector<std::tuple<size_t, size_t, int>> cellOf; // per spec
    int64_t left = request.budget > 0 ? request.budget : INT64_MAX;
    for (const std::vector<size_t> &group : byFile(m.nodeIds)) {
        for (size_t node : group) {
            for (size_t seed = 0; seed < m.seeds.size(); ++seed) {
                for (int replay = 0; replay < m.replays; ++replay) {
                    if (left-- <= 0) {
                        m.budgetExhausted = true;
                        m.at(node, seed, replay).detail = kBudgetDetail;
                        continue;
                    }
                    RunSpec spec =
                        replaySpec(request, root + "/fresh-" + std::to_string(specs.size() + 1));
                    spec.selection = {m.nodeIds[node]};
                    spec.env.witness.seed = m.seeds[seed];
                    if (request.perReplayTimeoutMs > 0)
                        spec.timeoutMs = request.perReplayTimeoutMs + kFreshStartupMs;
                    specs.push_back(std::move(spec));
                    cellOf.emplace_back(node, seed, replay);
                }
            }
        }
    }

    m.runs = pool.run(specs);
    for (size_t s = 0; s < specs.size(); ++s) {
        const auto [node, seed, replay] = cellOf[s];
        ReplayCell &cell = m.at(node, seed, replay);
        const RunResult &result = m.runs[s];
        cell.run = int(s);
        const OutcomeRowsFile rows = readOutcomeRows(specs[s].env.witness.outFile);
        const std::string problem = runProblem(result, rows);
        if (!problem.empty()) {
            cell.outcome = Outcome::HarnessError;
            cell.detail = problem;
            continue;
        }
        for (const Trial &trial : foldTrials(rows.rows)) {
            if (trial.nodeId == m.nodeIds[node] && trial.seed == m.seeds[seed])
                fill(cell, trial);
        }
    }
    m.durationMs = clock.elapsed();
    return m;
}

} // namespace pw::core
