#include "execution/RunContext.h"

#include "execution/Sandbox.h"
#include "ledger/RunEvidence.h"
#include "util/Error.h"

#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QThread>
#include <atomic>
#include <cmath>

namespace pw::core {

struct RunContext::Scratch
{
    QTemporaryDir dir{QDir::tempPath() + QStringLiteral("/patchwitness-runs-XXXXXX")};
    std::atomic<int> next{0};
};

const char *armName(Arm arm)
{
    return arm == Arm::Base ? "base" : "head";
}

namespace {

// Between the steps of open(): a stop requested meanwhile ends it here. What was made so
// far (the run directories, a tree's lease) goes with the half-built context.
void stopPoint(const RunRequest &request, const std::string &step)
{
    if (request.stop.stop_requested())
        throw Error::interrupted("stopped before " + step);
}

} // namespace

RunContext RunContext::open(const RunRequest &request)
{
    RunContext ctx;
    ctx.m_target = request.target;
    ctx.m_progress = request.progress;
    const PreparedReview review = request.review ? PreparedReview::reopen(*request.review)
                                                 : PreparedReview::prepare(request.target);
    const Repository &repo = review.repo();
    ctx.m_repoRoot = review.target().repoRoot;
    if (ctx.m_repoRoot.empty())
        throw Error::input(request.target.repoPath +
                           ": a bare repository has no work tree to run tests from");
    ctx.m_base = review.base();
    ctx.m_head = review.head();
    ctx.m_config = review.config();
    ctx.m_ledgerDir = review.target().ledgers.dir;
    stopPoint(request, "the interpreter was probed");
    // On by default when bubblewrap works. Asked for explicitly (--sandbox, the
    // workbench after its question) it is kept, and a machine that cannot have it is told so
    // before anything starts; from config alone, a machine without bwrap runs unsandboxed
    // and says so. Decided first: the interpreter is probed inside it too.
    if (request.sandbox) {
        ctx.m_sandbox = *request.sandbox;
        if (ctx.m_sandbox && !Sandbox::available())
            throw Error::input("the sandbox was asked for but is unavailable: " +
                               Sandbox::status().reason + "; nothing was run");
    } else if (ctx.m_config.sandbox) {
        const SandboxStatus status = Sandbox::status();
        ctx.m_sandbox = status.available;
        if (!status.available)
            ctx.say("warning: running without a sandbox: " + status.reason);
    }
    ctx.m_interpreter =
        chooseInterpreter(ctx.m_repoRoot, request.target.python, ctx.m_config,
                          {.needsPytest = true,
                           .sandboxed = ctx.m_sandbox,
                           .probeTimeoutMs = Config::milliseconds(ctx.m_config.timeoutProbe),
                           .stop = request.stop});
    ctx.m_config.python = ctx.m_interpreter.python;
    try {
        ctx.m_probe =
            probeInterpreter(ctx.m_config.python, ctx.m_sandbox && ctx.m_interpreter.inRepository,
                             Config::milliseconds(ctx.m_config.timeoutProbe), request.stop);
    } catch (const Error &e) {
        // The interpreter the config names: a missing one is named with its file now, not
        // by the first run (the probe is cached for the runs).
        if (e.kind() != Error::Kind::Input || request.target.python || !ctx.m_config.pythonSet)
            throw;
        throw Error::input(ctx.m_config.source + ": python = \"" + ctx.m_config.python +
                           "\": " + e.what());
    }
    ctx.say(ctx.interpreterLine());
    for (const std::string &passed : ctx.m_interpreter.passedOver) {
        if (!passed.ends_with(": does not exist")) // the error lists those; here they are noise
            ctx.say("  passed over " + passed);
    }

    const int workers = request.workers.value_or(ctx.m_config.workers);
    ctx.m_workers = workers > 0 ? workers : std::max(1, QThread::idealThreadCount());
    const double seconds = request.timeoutSeconds.value_or(ctx.m_config.timeoutPerRun);
    const std::string problem = Config::secondsProblem(seconds);
    if (!problem.empty())
        throw Error::input("timeout: " + problem);
    ctx.m_timeoutMs = Config::milliseconds(seconds);
    ctx.m_scratch = std::make_shared<Scratch>();
    if (!ctx.m_scratch->dir.isValid())
        throw Error::input(QDir::tempPath().toStdString() + ": cannot create run directories: " +
                           ctx.m_scratch->dir.errorString().toStdString());

    ctx.m_cacheRoot = request.cacheRoot.empty() ? TreeCache::defaultRoot() : request.cacheRoot;
    const TreeCache cache(ctx.m_cacheRoot);
    stopPoint(request, "the trees were materialised");
    ctx.say("materialising base " + ctx.m_base.spec);
    ctx.m_baseTree = cache.acquire(repo, ctx.m_base, request.stop);
    ctx.say("materialising head " + ctx.m_head.spec);
    ctx.m_headTree = cache.acquire(repo, ctx.m_head, request.stop);
    // `python -m pytest` puts the tree first on sys.path: a project module of the same name
    // would be loaded as `pw_plugin` instead of ours, and its "evidence" trusted.
    for (const Arm arm : {Arm::Base, Arm::Head}) {
        for (const char *name : {"pw_plugin.py", "pw_plugin"}) {
            if (QFileInfo::exists(QString::fromStdString(ctx.treeDir(arm) + "/" + name)))
                throw Error::input(ctx.revision(arm).spec + ":" + name +
                                   ": the project's own pw_plugin would shadow patchwitness' "
                                   "bundled pytest plugin; rename it to run the dynamic gates");
        }
    }
    const QString theirPath =
        QProcessEnvironment::systemEnvironment().value(QStringLiteral("PYTHONPATH"));
    if (!theirPath.isEmpty())
        ctx.say("note: PYTHONPATH of this environment (" + theirPath.toStdString() +
                ") is not passed to runs; each tree's own import roots are");
    for (const Arm arm : {Arm::Base, Arm::Head}) {
        const Revision &rev = ctx.revision(arm);
        std::optional<TagDistance> vcs;
        if (!rev.commit.empty()) {
            try {
                vcs = repo.describe(rev.commit);
            } catch (const Error &) {
                vcs.reset(); // a version from git is then unknown, and the layout says so
            }
        }
        const std::string label = std::string(armName(arm)) + " " + rev.spec;
        stopPoint(request, "the import preflight of " + label);
        RunEnvironment env = ctx.environment();
        TreeImports imports = prepareTreeImports(
            ctx.treeDir(arm), label, env, ctx.m_probe, vcs ? &*vcs : nullptr,
            rev.kind != Revision::Kind::Commit, ctx.m_cacheRoot, ctx.m_sandbox, request.stop);
        ctx.say(std::string(armName(arm)) + " tree imports " + imports.summary());
        for (const std::string &note : imports.layout.notes)
            ctx.say("  note: " + note);
        for (const std::string &line : imports.overridden)
            ctx.say("  overridden: " + line);
        (arm == Arm::Base ? ctx.m_baseImports : ctx.m_headImports) = std::move(imports);
    }
    stopPoint(request, "the first run");
    return ctx;
}

RunEnvironment RunContext::environment() const
{
    RunEnvironment env = RunEnvironment::fromConfig(m_config);
    env.cacheRoot = m_cacheRoot;
    env.probeSandboxed = m_sandbox && m_interpreter.inRepository;
    env.trustedInterpreter = !m_interpreter.inRepository;
    return env;
}

RunProvenance RunContext::provenance() const
{
    RunProvenance p;
    p.interpreter = m_interpreter.python;
    p.executable = m_probe.executable;
    p.python = m_probe.version;
    p.pytest = m_probe.pytestVersion;
    p.chosenBy = m_interpreter.origin;
    for (const Arm arm : {Arm::Base, Arm::Head}) {
        RunProvenance::Tree &tree = arm == Arm::Base ? p.base : p.head;
        tree.imports = imports(arm).summary();
        tree.importPath = imports(arm).importPath;
        tree.overridden = imports(arm).overridden;
        tree.notes = imports(arm).layout.notes;
    }
    return p;
}

std::string RunContext::runsDir() const
{
    return m_ledgerDir + "/" + AttributionRecord::kRunsDir;
}

std::string RunContext::witnessDir() const
{
    return m_cacheRoot + "/witness";
}

std::string RunContext::newRunDir(const std::string &label) const
{
    const int n = ++m_scratch->next;
    const std::string dir =
        m_scratch->dir.path().toStdString() + "/" + std::to_string(n) + "-" + label;
    if (!QDir().mkpath(QString::fromStdString(dir)))
        throw Error::input(dir + ": cannot create the run directory");
    return dir;
}

RunSpec RunContext::spec(Arm arm, const std::vector<std::string> &selection, uint32_t seed) const
{
    RunSpec spec;
    spec.treeDir = treeDir(arm);
    spec.bytecodeDir = (arm == Arm::Base ? m_baseTree : m_headTree).bytecodeDir();
    spec.env = environment();
    spec.env.treeDir = spec.treeDir;
    spec.env.importPath = imports(arm).importPath;
    spec.env.treePackages = imports(arm).layout.packages;
    spec.env.generatedModules = imports(arm).generatedModules;
    spec.env.hashSeed = seed;
    spec.env.witness.enabled = true;
    spec.env.witness.seed = seed;
    spec.env.witness.arm = armName(arm);
    spec.env.witness.testTimeoutMs = Config::milliseconds(m_config.timeoutPerTest);
    spec.selection = selection;
    spec.timeoutMs = m_timeoutMs;
    spec.arm = armName(arm);
    spec.infraFailPct = m_config.infraFailPct;
    spec.sandbox = m_sandbox;
    spec.runDir = newRunDir(std::string(armName(arm)) + "-s" + std::to_string(seed));
    spec.env.witness.outFile = spec.runDir + "/outcomes.jsonl";
    spec.env.witness.orderFile = spec.runDir + "/order.log";
    spec.env.witness.runId = spec.runDir.substr(spec.runDir.rfind('/') + 1);
    return spec;
}

void RunContext::say(const std::string &line) const
{
    if (m_progress)
        m_progress(line);
}

void checkTrialBudget(const RunContext &ctx, const std::string &sweep, const std::string &what,
                      long long trials)
{
    const int budget = ctx.config().trialBudget;
    if (budget > 0 && trials > budget)
        throw Error::input(sweep + ": " + what + " exceed the trial budget of " +
                           std::to_string(budget) + " (config trial_budget, " +
                           ctx.config().source + "); ask for fewer or raise trial_budget");
}

void checkTrialBudget(const RunContext &ctx, const std::string &sweep, const std::string &what,
                      const std::vector<long long> &unitTrials, const std::optional<Shard> &shard)
{
    // More shards than units would leave a shard nothing to run: every CI job green, and
    // only the merge refusing it (ShardLedger). Refused here, before anything runs.
    if (shard && size_t(shard->count) > unitTrials.size())
        throw Error::input(sweep + ": --shard " + shard->name() + ": " + what + " make only " +
                           std::to_string(unitTrials.size()) + " unit(s) to share; use at most " +
                           std::to_string(unitTrials.size()) + " shards");
    long long total = 0, share = 0;
    for (size_t unit = 0; unit < unitTrials.size(); ++unit) {
        total += unitTrials[unit];
        if (shard && shard->owns(unit))
            share += unitTrials[unit];
    }
    if (!shard) {
        checkTrialBudget(ctx, sweep, what, total);
        return;
    }
    checkTrialBudget(ctx, sweep,
                     "shard " + shard->name() + "'s share of " + what + ": " +
                         std::to_string(share) + " of " + std::to_string(total) + " trials",
                     share);
}

} // namespace pw::core
