#pragma once

#include "audit/Audit.h"
#include "audit/ReviewTarget.h"
#include "execution/Interpreter.h"
#include "execution/PytestRun.h"
#include "execution/RunProvenance.h"
#include "execution/Shard.h"
#include "execution/TreeCache.h"
#include "execution/TreeImports.h"
#include "ledger/Config.h"
#include "repo/Repository.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace pw::core {

// What a dynamic gate is asked to compare: the audit's target (repository, base, head,
// config, ledger directory, interpreter) plus how to run.
struct RunRequest
{
    AuditRequest target;
    // What an audit already resolved (the workbench's): the runs are of exactly those
    // revisions, with that config and ledger directory, and `target`'s own names are not
    // resolved again (only its interpreter, which the runs choose for themselves).
    std::optional<ReviewTarget> review;
    std::string cacheRoot;                // TreeCache root; empty: TreeCache::defaultRoot()
    std::optional<int> workers;           // overrides config `workers` (0: one per core)
    std::optional<double> timeoutSeconds; // per run; overrides config `timeouts.per_run`
    std::optional<bool> sandbox;          // overrides config `sandbox`
    std::function<void(const std::string &)> progress; // one line per step, may be empty
    // Requested while RunContext::open prepares: it stops at the next safe point (between
    // steps, at the next file of a tree it writes or checks, a probe or preflight killed)
    // and throws Error::interrupted, leaving no half-written tree and no run directory.
    // The runs themselves are stopped with RunPool::cancelAll.
    std::stop_token stop;
};

enum class Arm
{
    Base,
    Head
};
const char *armName(Arm arm); // "base", "head"

// Everything the dynamic gates share, resolved once: both revisions, the base revision's
// config (the patch cannot loosen its own gate), the ledger directory on disk, and both
// trees materialised (TreeCache) and held for the life of the context (a copy shares the
// hold). Plain data plus the leases: cheap to copy into worker threads.
class RunContext
{
public:
    // Opens the repository, resolves base and head, loads the config, chooses and probes
    // the interpreter, acquires both trees and prepares how each imports its own code
    // (prepareTreeImports, which says on `progress` what it overrode). Throws Error::input
    // for a bad repository, revision, config, interpreter, or a tree that cannot be tested
    // as asked; Error::interrupted when `request.stop` is requested meanwhile.
    static RunContext open(const RunRequest &request);

    const std::string &repoRoot() const { return m_repoRoot; }
    const Revision &base() const { return m_base; }
    const Revision &head() const { return m_head; }
    const Revision &revision(Arm arm) const { return arm == Arm::Base ? m_base : m_head; }
    const Config &config() const { return m_config; }
    const AuditRequest &target() const { return m_target; }
    // Absolute: `<repo>/<ledger dir>` or the directory outside the repository.
    const std::string &ledgerDir() const { return m_ledgerDir; }
    std::string runsDir() const; // ledgerDir()/runs
    // The TreeCache root (RunRequest::cacheRoot or TreeCache::defaultRoot()): patchwitness'
    // own directory, outside every reviewed tree.
    const std::string &cacheRoot() const { return m_cacheRoot; }
    // cacheRoot()/witness: stored base witnesses. Not the ledger directory: a
    // WORKTREE head's author can write untracked files there.
    std::string witnessDir() const;
    const std::string &treeDir(Arm arm) const
    {
        return arm == Arm::Base ? m_baseTree.path() : m_headTree.path();
    }
    // The interpreter every run uses, why that one (chooseInterpreter) and what it said
    // of itself; interpreterLine() names it, its version and pytest's for reports.
    const InterpreterChoice &interpreter() const { return m_interpreter; }
    const InterpreterProbe &interpreterProbe() const { return m_probe; }
    std::string interpreterLine() const { return provenance().interpreterLine(); }
    // The interpreter and both trees' imports, as reports and records name them.
    RunProvenance provenance() const;
    // How each tree's runs import the tree's own code, checked by a preflight at open().
    const TreeImports &imports(Arm arm) const
    {
        return arm == Arm::Base ? m_baseImports : m_headImports;
    }
    int workers() const { return m_workers; }
    int timeoutMs() const { return m_timeoutMs; }
    bool sandbox() const { return m_sandbox; }

    // The pinned environment of the config with this context's interpreter, cache root and
    // sandbox (how the interpreter is probed, whether it may precompile the plugin).
    RunEnvironment environment() const;
    // A run of `selection` (empty: the whole suite) on one arm: the pinned environment of
    // the config with PYTHONHASHSEED = `seed`, the bundled plugin on with --pw-seed `seed`,
    // the config's timeout and infra_fail_pct, and a fresh run directory of this context
    // (kept until the last copy of the context is gone).
    RunSpec spec(Arm arm, const std::vector<std::string> &selection, uint32_t seed) const;
    // A new, empty directory for one run: <scratch>/<n>-<label>.
    std::string newRunDir(const std::string &label) const;

    void say(const std::string &line) const;

private:
    std::string m_repoRoot;
    Revision m_base;
    Revision m_head;
    Config m_config;
    AuditRequest m_target;
    std::string m_ledgerDir;
    std::string m_cacheRoot;
    MaterializedTree m_baseTree;
    MaterializedTree m_headTree;
    InterpreterChoice m_interpreter;
    InterpreterProbe m_probe;
    TreeImports m_baseImports;
    TreeImports m_headImports;
    int m_workers = 1;
    int m_timeoutMs = 900 * 1000;
    bool m_sandbox = false;
    std::function<void(const std::string &)> m_progress;
    struct Scratch;
    std::shared_ptr<Scratch> m_scratch; // the run directories; removed with the last copy
};

// The config's `trial_budget` caps every sweep. Throws Error::input naming the
// sweep, what it would run and the budget when `trials` exceeds it, before anything runs
// (a sweep cut short silently would be weaker evidence than it says).
void checkTrialBudget(const RunContext &ctx, const std::string &sweep, const std::string &what,
                      long long trials);
// The same for a sweep of units (`unitTrials[u]`: the trials of unit u). With a
// shard, only its own units (Shard::owns) count: each CI job is its own run, and the
// message names the shard's share ("attribute: shard 2/3's share of 2 × 1200 runs: 800
// of 2400 trials exceed …"). A shard count above the number of units is refused too.
void checkTrialBudget(const RunContext &ctx, const std::string &sweep, const std::string &what,
                      const std::vector<long long> &unitTrials, const std::optional<Shard> &shard);

} // namespace pw::core
