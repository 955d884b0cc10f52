#pragma once

#include "execution/Interpreter.h"

#include <QProcessEnvironment>
#include <QStringList>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pw::core {

struct Config;

// Options of the bundled plugin (the package resources/python/pw_plugin/). When enabled,
// the run loads it (PYTEST_PLUGINS=pw_plugin) from RunEnvironment::pluginDir(), which is
// then first on PYTHONPATH. Empty paths/ids are not passed. The seed is a run parameter, not part
// of the environment: runs with different seeds share an env digest.
struct PluginOptions
{
    bool enabled = false;
    uint32_t seed = 0;       // --pw-seed: 0 = pytest's order; random.seed(seed) per test
    std::string outFile;     // --pw-out: JSONL rows (run, arm, nodeid, when, outcome, …)
    std::string orderFile;   // --pw-order: node ids in the order they started
    std::string collectFile; // --pw-collect: census dump (use with --collect-only)
    std::string arm;         // --pw-arm: base / head
    std::string runId;       // --pw-run
    // --pw-freeze-time: an ISO 8601 instant every test sees as "now" (freezegun or
    // time_machine, whichever the project can import; neither: the run is a usage error).
    // The `clock` cell of the reproduction matrix sets it with a far-off TZ.
    std::string freezeTime;
    // The state probe (--pw-probe): `leak` rows when env, temp dir, sys.modules or
    // a watched module (--pw-watch a,b) differ after a test.
    bool probe = false;
    std::vector<std::string> watch;
    // --pw-budget: the trial budget; at most this many tests (or replays) run, the
    // rest are deselected and a `budget` row says so. 0 = no cap (not passed).
    int budget = 0;
    // --pw-replays: a JSON plan {"nodeids", "seeds", "replays"} that turns the run into a
    // fork server (ReplayServer); --pw-replay-timeout: seconds per replay (0: none).
    std::string replayPlan;
    int replayTimeoutMs = 0;
    // --pw-test-timeout: config `timeouts.per_test`; a test past it (setup to teardown) is
    // stopped and read as a harness error, the rest of the run goes on (0: none).
    int testTimeoutMs = 0;
    // --pw-witness: skip-witness rows (SkipWitness); --pw-cover: the coverage
    // report of a diff-coverage run (DiffCoverage).
    std::string witnessFile;
    std::string coverFile;
};

// The pinned environment every pytest run gets, as a value: the same value
// gives the same process environment and the same arguments, so a run can be repeated
// from its command line and two runs are comparable when their env digests are equal.
// Nothing of the parent's environment reaches the run except PATH, USER and LOGNAME.
struct RunEnvironment
{
    std::string python = "python3"; // interpreter (name on PATH or path), config `python`
    uint32_t hashSeed = 0;          // PYTHONHASHSEED, always explicit
    // Plugins loaded with `-p <module>`: with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 nothing
    // else loads, so these are module names (config `plugins`), not entry-point names.
    std::vector<std::string> plugins;
    std::string homeDir; // HOME: a private directory (PytestRun gives each run one)
    std::string tmpDir;  // TMPDIR: likewise; pytest's tmp_path lives below it
    // The tree's own code ahead of everything installed (TreeLayout): `importPath` (the
    // tree's import roots, e.g. <tree>/src, and its distribution metadata) follows the
    // plugin directory on PYTHONPATH; with the plugin, `treeDir` and `treePackages` (the
    // top-level packages the tree provides) tell it what must come from the tree, and it
    // keeps them first against .pth files, editable-install finders and early imports
    // (pw_plugin/layout.py, through PATCHWITNESS_TREE, _IMPORT_PATH and _PACKAGES).
    std::string treeDir;
    std::vector<std::string> importPath;
    std::vector<std::string> treePackages;
    // Modules a tree taken from git lacks because its build writes them (a version file):
    // module name and the generated file the plugin serves for it (PATCHWITNESS_GENERATED).
    std::vector<std::pair<std::string, std::string>> generatedModules;
    // Where pluginDir() stages the plugin (RunRequest::cacheRoot, --cache-dir); empty: the
    // user cache (TreeCache::defaultRoot()).
    std::string cacheRoot;
    // How patchwitness starts this interpreter for itself (its version probe): inside the
    // sandbox when it lies inside the repository and the runs are sandboxed
    // (probeInterpreter's `sandboxed`). And whether it may precompile the plugin's bytecode
    // with it outside a run: not with an interpreter inside the repository, whose .pth files
    // would run unsandboxed and could write into the plugin directory every project shares.
    bool probeSandboxed = false;
    bool trustedInterpreter = true;

    // How long probe() waits (config `timeouts.probe`); not part of the digest.
    int probeTimeoutMs = kDefaultProbeTimeoutMs;
    // probeInterpreter(python, probeSandboxed, probeTimeoutMs).
    InterpreterProbe probe() const;
    // Set last, over the pinned values (the `clock` cell sets TZ, a test map may add keys).
    std::map<std::string, std::string> extraVariables;
    PluginOptions witness; // the bundled plugin (off unless enabled)

    // python and plugins from config.toml.
    static RunEnvironment fromConfig(const Config &config);

    // The whole environment of a run, built from nothing (no PYTHON* or PYTEST_ADDOPTS
    // from the parent). PYTHONPATH = [pluginDir(cacheRoot)] + importPath (+ a PYTHONPATH
    // of extraVariables, after them); with the bundled plugin PYTEST_PLUGINS=pw_plugin,
    // which imports it by its module name alone (`-p` would first search every installed
    // distribution's entry points for the name).
    QProcessEnvironment environment() const;
    // Interpreter arguments: `-m pytest -p no:cacheprovider -p <plugin>… [--pw-seed N
    // --pw-out F …] -o junit_family=xunit1 --junitxml=<junitXml> -q`, then `extraArgs`,
    // then the selection (node ids or paths; empty = the whole suite). xunit1 keeps the
    // `file` attribute JUnitReader maps node ids from (xunit2 drops it).
    QStringList pytestArguments(const std::string &junitXml,
                                const std::vector<std::string> &selection = {},
                                const QStringList &extraArgs = {}) const;
    // `cd <dir> && env -i K=V… <python> <args…>`, quoted for a POSIX shell: the exact
    // command, copyable into a terminal.
    std::string shellCommand(const std::string &dir, const QStringList &arguments) const;
    // The same with another program in place of the interpreter (bwrap, whose arguments
    // then name the interpreter): `cd <dir> && env -i K=V… <program> <args…>`.
    std::string shellCommand(const std::string &dir, const std::string &program,
                             const QStringList &arguments) const;

    // The bundled plugin's files (compiled in): paths relative to the plugin directory
    // ("pw_plugin/__init__.py", …) with their text, in a fixed order; and the sha256 (first
    // 16 hex) of them all, paths included.
    static const std::vector<std::pair<std::string, std::string>> &pluginFiles();
    static const std::string &pluginHash();
    // A private directory holding only the pw_plugin package: <cacheRoot>/plugin/
    // <pluginHash()> (cacheRoot empty: TreeCache::defaultRoot()), each file staged
    // atomically and re-staged whenever it is missing or differs. Throws Error::harness
    // when it cannot be written. Thread-safe.
    static std::string pluginDir(const std::string &cacheRoot = {});
};

// Sha256 (first 16 hex) over python version, pytest version, hash seed,
// autoload flag, sorted plugin list and platform, and the interpreter itself:
// its sys.executable, the real file behind it, and the tree-independent sys.path (the
// probe's, so a venv, its site-packages and an editable install's checkout are part of
// the identity; the tree's own import roots are not, so base and head compare). An
// enabled bundled plugin is in the list as `pw_plugin@<pluginHash()>`: its content is
// part of the environment.
std::string envDigest(const InterpreterProbe &probe, const RunEnvironment &env);
// env.probe(), then the digest.
std::string envDigest(const RunEnvironment &env);

// pytest rewrites the plugin modules it is told to load and caches their bytecode beside them
// (pw_plugin/__pycache__/<module>.<tag>-pytest-<version>.pyc, one per module of the
// package). A sandboxed run sees the staged plugin read-only and cannot write those files,
// so without them every sandboxed run compiled the plugin again: ≈ 50 ms of CPU, about
// 15 % of a small suite's run. When one is missing or older than its source this writes
// them, once per interpreter, plugin directory and process, by collecting an empty
// directory outside the sandbox (pytest and the plugin only: no project code runs).
void cachePluginBytecode(const std::string &python, const std::string &cacheRoot = {});

// `text` quoted for a POSIX shell ('…' when it holds anything but [A-Za-z0-9_@%+=:,./-]).
std::string shellQuote(const std::string &text);

} // namespace pw::core
