#include "execution/TreeImports.h"

#include "execution/PytestRun.h"
#include "execution/QuickProcess.h"
#include "execution/RunEnvironment.h"
#include "execution/Sandbox.h"
#include "util/Error.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace pw::core {
namespace {

using nlohmann::json;

constexpr int kPreflightTimeoutMs = 60 * 1000;
// Who answers (printed before anything of the tree or of pytest is imported, so a shim that
// starts another Python is seen even when that one has no pytest), then the layout check.
constexpr const char *kPreflightScript =
    "import json, platform, sys\n"
    "print(json.dumps({'identity': {'executable': sys.executable,\n"
    "                               'version': platform.python_version()}}), flush=True)\n"
    "import pw_plugin.layout as l\n"
    "l.main()\n";

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

std::string field(const json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string lastLines(const QByteArray &bytes, int max = 400)
{
    return bytes.trimmed().right(max).toStdString();
}

// The installed distribution (not the tree's) whose files hold `path`: the one whose
// editable checkout (direct_url.json's file:// URL) holds it, else the one installed in the
// same site directory. Null when none.
const json *ownerOf(const std::string &path, const json &distributions)
{
    for (const json &dist : distributions) {
        const std::string url = field(dist, "editable");
        const std::string checkout = url.starts_with("file://") ? url.substr(7) : std::string();
        if (!dist.value("in_tree", false) && !checkout.empty() && path.starts_with(checkout + "/"))
            return &dist;
    }
    for (const json &dist : distributions) {
        if (dist.value("in_tree", false) || dist.contains("editable"))
            continue;
        const std::string site = QFileInfo(qs(field(dist, "path"))).absolutePath().toStdString();
        if (!site.empty() && path.starts_with(site + "/"))
            return &dist;
    }
    return nullptr;
}

void add(std::vector<std::string> &list, const std::string &sentence)
{
    if (std::find(list.begin(), list.end(), sentence) == list.end())
        list.push_back(sentence);
}

// What the preflight printed: the interpreter's identity first (before anything of the
// tree or of pytest is imported), then pw_plugin.layout's describe(), or why there is none.
struct Preflight
{
    json identity;
    json answer;
    std::string failure; // set when the answer is missing: the tree's doing (stderr's end)
};

Preflight runPreflight(const std::string &treeDir, const std::string &label,
                       const RunEnvironment &base, const InterpreterProbe &probe, bool sandbox,
                       std::stop_token stop)
{
    QTemporaryDir scratch(QDir::tempPath() + QStringLiteral("/patchwitness-preflight-XXXXXX"));
    if (!scratch.isValid())
        throw Error::input(QDir::tempPath().toStdString() +
                           ": cannot create a directory: " + scratch.errorString().toStdString());
    RunEnvironment env = base;
    env.witness = PluginOptions();
    env.witness.enabled = true; // its directory on PYTHONPATH; nothing of pytest runs
    env.homeDir = scratch.filePath(QStringLiteral("home")).toStdString();
    env.tmpDir = scratch.filePath(QStringLiteral("tmp")).toStdString();
    QDir().mkpath(qs(env.homeDir));
    QDir().mkpath(qs(env.tmpDir));
    // The tree is the pristine one the runs copy (TreeCopy): the preflight only looks at
    // it, and writes no bytecode into it (the next acquire would find it not intact).
    env.extraVariables["PYTHONDONTWRITEBYTECODE"] = "1";
    QString program = qs(env.python);
    QStringList arguments = {QStringLiteral("-c"), QLatin1String(kPreflightScript)};
    if (sandbox) {
        const SandboxStatus status = Sandbox::status();
        if (!status.available)
            throw Error::input(label +
                               ": the sandbox was asked for but is unavailable: " + status.reason);
        SandboxPolicy policy = runSandboxPolicy(treeDir, scratch.path().toStdString(), env);
        policy.treeReadOnly = true;
        const SandboxCommand wrapped = Sandbox::wrap(status.program, program, arguments, policy);
        program = wrapped.program;
        arguments = wrapped.arguments;
    }
    const QuickRun run =
        runQuick(program, arguments, env.environment(), qs(treeDir), kPreflightTimeoutMs, stop);
    if (run.cancelled) // `scratch` goes with the stack
        throw Error::interrupted(label + ": the import preflight stopped");
    if (!run.started)
        throw Error::input(label + ": cannot start the interpreter '" + env.python +
                           "': " + run.startError);
    if (run.timedOut)
        throw Error::harness(label + ": the interpreter '" + env.python +
                             "' did not answer the import preflight within " +
                             std::to_string(kPreflightTimeoutMs / 1000) + " s");
    Preflight out;
    for (const QByteArray &line : run.out.split('\n')) {
        const json parsed =
            json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (parsed.is_object() && parsed.contains("identity"))
            out.identity = parsed["identity"];
        else if (parsed.is_object() && parsed.contains("packages"))
            out.answer = parsed;
    }
    if (!out.identity.is_object()) {
        // It never ran a line of Python: the interpreter itself does not start here.
        const std::string why = lastLines(run.err);
        if (sandbox)
            throw Error::input(
                label + ": the interpreter '" + env.python + "' (" + probe.executable +
                ") does not run inside the sandbox with the tree: " + why +
                " — it needs something the sandbox does not show it (the sandbox's /tmp is "
                "private; patchwitness binds the interpreter's own directories, its prefix and "
                "sys.path, but not what a wrapper script reaches on its own). Put the "
                "interpreter outside /tmp, name the real one with --python " +
                probe.executable + ", or set sandbox = false in config.toml");
        throw Error::input(label + ": the interpreter '" + env.python +
                           "' does not start in the tree: " + why);
    }
    if (!run.succeeded() || !out.answer.is_object())
        out.failure = lastLines(run.err);
    return out;
}

} // namespace

std::string TreeImports::summary() const
{
    std::string packages;
    for (const std::string &name : layout.packages)
        packages += (packages.empty() ? "" : ", ") + name;
    std::string roots;
    for (const std::string &root : layout.importRoots)
        roots += (roots.empty() ? "" : ", ") + root + "/";
    std::string line = packages.empty()
                           ? "no packages of its own"
                           : packages + " from " + (roots.empty() ? "the tree's top" : roots);
    if (!layout.layoutFrom.empty())
        line += " (" + layout.layoutFrom + ")";
    if (!layout.distribution.empty())
        line += "; " + layout.distribution + " " + layout.version + " (" + layout.versionFrom + ")";
    return line;
}

TreeImports prepareTreeImports(const std::string &treeDir, const std::string &label,
                               const RunEnvironment &env, const InterpreterProbe &probe,
                               const TagDistance *vcs, bool dirty, const std::string &cacheRoot,
                               bool sandbox, std::stop_token stop)
{
    TreeImports out;
    out.layout = readTreeLayout(treeDir, vcs, dirty);
    if (!out.layout.pytest9Config.empty() && probe.pytestMajor() > 0 && probe.pytestMajor() < 9)
        throw Error::input(
            label + ": " + out.layout.pytest9Config +
            " is pytest 9's own configuration, which pytest " + probe.pytestVersion + " (" +
            probe.python +
            ") does not read: it would collect with no configuration at all (other directories, "
            "other options) and report that as evidence. Run with pytest 9 or newer (config "
            "`python` or --python)");
    for (const std::string &root : out.layout.importRoots)
        out.importPath.push_back(treeDir + "/" + root);
    const std::string dist = stageDistributionMetadata(cacheRoot, out.layout);
    if (!dist.empty())
        out.importPath.push_back(dist);
    for (const auto &generated : out.layout.generatedModules)
        out.generatedModules.emplace_back(generated.first,
                                          generatedModuleFile(dist, generated.first));

    RunEnvironment preflight = env;
    preflight.treeDir = treeDir;
    preflight.importPath = out.importPath;
    preflight.treePackages = out.layout.packages;
    preflight.generatedModules = out.generatedModules;
    preflight.cacheRoot = cacheRoot;
    preflight.extraVariables["PATCHWITNESS_DISTRIBUTION"] = out.layout.distribution;
    const Preflight result = runPreflight(treeDir, label, preflight, probe, sandbox, stop);
    const std::string executable = field(result.identity, "executable");
    const std::string version = field(result.identity, "version");
    if ((!probe.executable.empty() && executable != probe.executable) ||
        (!probe.version.empty() && version != probe.version))
        throw Error::input(label + ": '" + env.python +
                           "' is another interpreter when started in " + "the tree (" + executable +
                           ", Python " + version + ", not " + probe.executable + ", Python " +
                           probe.version +
                           "): a version manager's shim reading the tree's .python-version? "
                           "Name the interpreter itself: --python " +
                           probe.executable);
    if (!result.failure.empty()) {
        // The tree itself breaks the start (a head that breaks a package pytest imports):
        // its runs will say so as harness errors; this is no reason to refuse the other tree.
        out.layout.notes.push_back("the import preflight fails in this tree, so its runs will "
                                   "too: " +
                                   result.failure);
        return out;
    }
    const json &answer = result.answer;
    const json distributions = answer.value("distributions", json::array());
    for (const json &o : answer.value("overrides", json::array())) {
        const std::string kind = field(o, "kind"), package = field(o, "package"),
                          path = field(o, "path");
        if (kind == "runner")
            throw Error::input(
                label + ": the tree provides " + package + ", which the running pytest imported " +
                "from " + path +
                " before the tree could be put first (a .pth file's insertion?): " +
                "the tests would import that copy, and a test runner's own packages cannot be "
                "replaced under it; use an interpreter without that insertion");
        if (kind == "path")
            add(out.overridden,
                package + ": " + path +
                    " stood ahead of the tree on sys.path (a .pth file's "
                    "insertion, e.g. an old-style editable install); moved behind it");
        else if (kind == "finder")
            add(out.overridden, package + ": the import finder " + field(o, "finder") +
                                    " answered from " + path +
                                    " ahead of the tree (an editable install); moved behind it");
        else if (kind == "imported")
            add(out.overridden, package + ": already imported from " + path +
                                    " before the tests (by pytest or a plugin); forgotten, so "
                                    "the tests import the tree's");
    }
    for (const json &r : answer.value("runner_from_tree", json::array()))
        out.layout.notes.push_back("the running pytest itself imports the tree's own " +
                                   field(r, "package") + " (" + field(r, "path") +
                                   "): the patch's code runs in the test runner too");
    const json packages = answer.value("packages", json::object());
    std::vector<std::string> editables; // named with the package they provide already
    for (const std::string &name : out.layout.packages) {
        const auto it = packages.find(name);
        if (it == packages.end() || !it->is_object())
            continue;
        const std::string path = field(*it, "path");
        if (!path.empty() && !it->value("in_tree", false))
            throw Error::input(label + ": " + name + " still comes from " + path +
                               ", not from the tree, with the tree's import roots first; the "
                               "interpreter's site customisation imports it before the tests");
        if (!path.empty())
            out.origins.emplace_back(name, path);
        for (const json &other : it->value("elsewhere", json::array())) {
            const std::string where = field(other, "path");
            if (field(other, "kind") == "finder") {
                add(out.overridden, name + ": an editable install's import finder (" +
                                        field(other, "finder") + ") for " + where);
            } else if (const json *owner = ownerOf(where, distributions);
                       owner && owner->contains("editable")) {
                add(out.overridden, name + ": the editable install of " +
                                        field(*owner, "editable") + " (" + field(*owner, "name") +
                                        " " + field(*owner, "version") + ") at " + where +
                                        ", not the tree under test");
                editables.push_back(field(*owner, "editable"));
            } else {
                add(out.overridden,
                    name + ": an installed copy at " + where +
                        (owner ? " (" + field(*owner, "name") + " " + field(*owner, "version") + ")"
                               : std::string()));
            }
        }
    }
    bool first = true;
    for (const json &d : distributions) {
        const bool inTree = d.value("in_tree", false);
        if (first && !dist.empty() && !inTree)
            throw Error::input(label + ": importlib.metadata still finds " + field(d, "name") +
                               " " + field(d, "version") + " at " + field(d, "path") +
                               " ahead of the tree's own metadata");
        first = false;
        if (!inTree && d.contains("editable") &&
            std::find(editables.begin(), editables.end(), field(d, "editable")) == editables.end())
            add(out.overridden, field(d, "name") + ": an editable install of " +
                                    field(d, "editable") + " (" + field(d, "version") +
                                    "), not the tree under test");
        else if (!inTree && !d.contains("editable"))
            add(out.overridden, field(d, "name") + ": installed metadata " + field(d, "version") +
                                    " at " + field(d, "path") +
                                    " (importlib.metadata reads "
                                    "the tree's " +
                                    out.layout.version + ")");
    }
    return out;
}

} // namespace pw::core
