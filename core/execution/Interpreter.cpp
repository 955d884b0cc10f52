#include "execution/Interpreter.h"

#include "execution/QuickProcess.h"
#include "execution/RunEnvironment.h"
#include "execution/Sandbox.h"
#include "ledger/Config.h"
#include "util/Error.h"
#include "util/Format.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

namespace pw::core {

namespace {

using nlohmann::json;

// Printed as one JSON line; pytest's absence is an answer, not a crash. -I keeps the
// working directory (a stray pytest.py), PYTHONPATH and the user site out of the answer,
// so sys.path is the interpreter's own. Python 3.8+.
const char kProbeScript[] =
    "import json, os, platform, sys\n"
    "out = {'python': sys.version, 'version': platform.python_version(),\n"
    "       'platform': platform.platform(), 'tag': sys.implementation.cache_tag or '',\n"
    "       'executable': sys.executable, 'real': os.path.realpath(sys.executable),\n"
    "       'prefix': sys.prefix, 'base_prefix': getattr(sys, 'base_prefix', sys.prefix),\n"
    "       'path': [p for p in sys.path if p]}\n"
    "try:\n"
    "    import pytest\n"
    "    out['pytest'] = pytest.__version__\n"
    "except Exception as e:\n"
    "    out['error'] = '%s: %s' % (type(e).__name__, e)\n"
    "print(json.dumps(out))\n";

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

// The interpreter file behind `python` (a name on PATH or a path); empty when none.
QFileInfo interpreterFile(const std::string &python)
{
    const QString name = qs(python);
    if (name.isEmpty())
        return {};
    if (!name.contains(QLatin1Char('/'))) {
        const QString found = QStandardPaths::findExecutable(name);
        return found.isEmpty() ? QFileInfo() : QFileInfo(found);
    }
    const QFileInfo info(name);
    return info.exists() ? info : QFileInfo();
}

// Where an interpreter's installed packages live changes when a package is installed,
// upgraded or removed: a probe is reused only while every sys.path directory it reported
// keeps the modification time it had (so `pip install pytest` after a failed probe counts).
using Stamps = std::vector<std::pair<std::string, qint64>>;

Stamps stampsOf(const std::vector<std::string> &dirs)
{
    Stamps stamps;
    for (const std::string &dir : dirs) {
        const QFileInfo info(qs(dir));
        stamps.emplace_back(dir, info.exists() ? info.lastModified().toMSecsSinceEpoch() : -1);
    }
    return stamps;
}

struct CachedProbe
{
    InterpreterProbe probe;
    Stamps stamps;
};

std::mutex s_probeMutex;
std::map<std::string, CachedProbe> s_probes; // by file, size, mtime and sandboxing

// The directories an interpreter file needs inside the sandbox before anything of it is
// known: its own directory and the one above (a venv's or an installation's root), and
// the same for the file behind a symlink. Only those under /tmp reach bwrap's command.
std::vector<std::string> startDirs(const QFileInfo &file)
{
    std::vector<std::string> dirs;
    for (const QString &path : {file.absoluteFilePath(), file.canonicalFilePath()}) {
        if (path.isEmpty())
            continue;
        const QDir dir = QFileInfo(path).absoluteDir();
        dirs.push_back(dir.absolutePath().toStdString());
        dirs.push_back(QFileInfo(dir.absolutePath()).absolutePath().toStdString());
    }
    return dirs;
}

InterpreterProbe runProbe(const std::string &python, const QFileInfo &file, bool sandboxed,
                          int timeoutMs, std::stop_token stop)
{
    RunEnvironment env;
    env.python = python;
    QString program = file.absoluteFilePath();
    QStringList arguments = {QStringLiteral("-I"), QStringLiteral("-c"),
                             QString::fromLatin1(kProbeScript)};
    if (sandboxed) {
        const SandboxStatus status = Sandbox::status();
        if (!status.available)
            throw Error::input("the sandbox is unavailable (" + status.reason +
                               "), so the interpreter '" + python + "' cannot be probed in it");
        SandboxPolicy policy;
        policy.readOnlyDirs = startDirs(file);
        const SandboxCommand wrapped = Sandbox::wrap(status.program, program, arguments, policy);
        program = wrapped.program;
        arguments = wrapped.arguments;
    }
    const QuickRun run = runQuick(program, arguments, env.environment(), {}, timeoutMs, stop);
    if (run.cancelled)
        throw Error::interrupted("the probe of the Python interpreter '" + python + "' stopped");
    if (!run.started)
        throw Error::input("cannot run the Python interpreter '" + python + "': " + run.startError +
                           " (set `python` in config.toml)");
    if (run.timedOut)
        throw Error::harness("the Python interpreter '" + python +
                             "' did not answer its start-up probe within " +
                             formatSeconds(timeoutMs / 1000.0) +
                             " (config timeouts.probe): it hangs before running any code "
                             "(a .pth file or sitecustomize that waits?), or is that slow to "
                             "start; raise timeouts.probe if it is only slow");
    const QByteArray out = run.out.trimmed();
    const json answer = json::parse(out.constData(), out.constData() + out.size(), nullptr, false);
    if (!run.succeeded() || !answer.is_object()) {
        const std::string said = run.err.trimmed().right(400).toStdString();
        if (sandboxed)
            throw Error::input(
                "the interpreter '" + python + "' does not run inside the sandbox" +
                (said.empty() ? std::string() : ": " + said) +
                " — it needs something the sandbox does not show it (the sandbox's /tmp is "
                "private: patchwitness binds the interpreter's own directories, its prefix "
                "and sys.path, but not what a wrapper script reaches on its own). Put the "
                "interpreter outside /tmp, name the real one with --python, or set sandbox = "
                "false in config.toml");
        throw Error::harness("the Python interpreter '" + python +
                             "' did not answer the version probe: " + said);
    }
    InterpreterProbe probe;
    probe.python = python;
    probe.pythonVersion = answer.value("python", std::string());
    probe.version = answer.value("version", std::string());
    probe.pytestVersion = answer.value("pytest", std::string());
    probe.pytestError = answer.value("error", std::string());
    if (probe.pytestVersion.empty() && probe.pytestError.empty())
        probe.pytestError = "no pytest version";
    probe.platform = answer.value("platform", std::string());
    probe.cacheTag = answer.value("tag", std::string());
    probe.executable = answer.value("executable", std::string());
    probe.realExecutable = answer.value("real", std::string());
    probe.prefix = answer.value("prefix", std::string());
    probe.basePrefix = answer.value("base_prefix", std::string());
    if (answer.contains("path") && answer["path"].is_array()) {
        for (const json &entry : answer["path"]) {
            if (entry.is_string())
                probe.sysPath.push_back(entry.get<std::string>());
        }
    }
    return probe;
}

std::string pytestMissing(const std::string &python, const InterpreterProbe &probe)
{
    return "the Python interpreter '" + python + "' cannot import pytest (" + probe.pytestError +
           "); install pytest for it or set `python` in config.toml";
}

} // namespace

std::string interpreterPath(const std::string &python)
{
    const QFileInfo file = interpreterFile(python);
    return file.exists() ? file.absoluteFilePath().toStdString() : std::string();
}

int InterpreterProbe::pytestMajor() const
{
    int major = 0;
    for (char c : pytestVersion) {
        if (c < '0' || c > '9')
            break;
        major = major * 10 + (c - '0');
    }
    return major;
}

InterpreterProbe inspectInterpreter(const std::string &python, bool sandboxed, int timeoutMs,
                                    std::stop_token stop)
{
    const QFileInfo file = interpreterFile(python);
    if (!file.exists())
        throw Error::input("Python interpreter '" + python +
                           "' not found (set `python` in config.toml or pass --python)");
    const std::string key = file.absoluteFilePath().toStdString() + '\0' +
                            std::to_string(file.size()) + '\0' +
                            std::to_string(file.lastModified().toMSecsSinceEpoch()) +
                            (sandboxed ? "|sandboxed" : "|as is");
    {
        std::lock_guard<std::mutex> lock(s_probeMutex);
        const auto it = s_probes.find(key);
        if (it != s_probes.end() && stampsOf(it->second.probe.sysPath) == it->second.stamps) {
            InterpreterProbe probe = it->second.probe;
            probe.python = python;
            return probe;
        }
    }
    // Probed outside the lock: two threads may both probe once, never wait on each other.
    InterpreterProbe probe = runProbe(python, file, sandboxed, timeoutMs, stop);
    std::lock_guard<std::mutex> lock(s_probeMutex);
    s_probes[key] = CachedProbe{probe, stampsOf(probe.sysPath)};
    return probe;
}

InterpreterProbe probeInterpreter(const std::string &python, bool sandboxed, int timeoutMs,
                                  std::stop_token stop)
{
    InterpreterProbe probe = inspectInterpreter(python, sandboxed, timeoutMs, stop);
    if (!probe.pytestError.empty())
        throw Error::input(pytestMissing(python, probe));
    return probe;
}

bool insideDirectory(const std::string &path, const std::string &dir)
{
    if (path.empty() || dir.empty())
        return false;
    const QString clean = QDir::cleanPath(QFileInfo(qs(path)).absoluteFilePath());
    const QString root = QDir::cleanPath(QFileInfo(qs(dir)).absoluteFilePath());
    return clean.startsWith(root + QLatin1Char('/'));
}

std::vector<InterpreterCandidate> interpreterCandidates(const std::string &repoRoot,
                                                        bool inRepository)
{
    std::vector<InterpreterCandidate> out;
    if (!repoRoot.empty() && inRepository) {
        for (const char *dir : {".venv", "venv"}) {
            const std::string bin = repoRoot + "/" + dir + "/bin/";
            // A venv made by `python3 -m venv` has both; some tools make only one.
            const std::string python =
                QFileInfo::exists(qs(bin + "python")) ? bin + "python" : bin + "python3";
            out.push_back({python, std::string("the repository's ") + dir, true, true});
        }
    }
    const QProcessEnvironment parent = QProcessEnvironment::systemEnvironment();
    const QString virtualEnv = parent.value(QStringLiteral("VIRTUAL_ENV"));
    if (!virtualEnv.isEmpty() &&
        (inRepository || !insideDirectory(virtualEnv.toStdString(), repoRoot)))
        out.push_back({QDir::cleanPath(virtualEnv).toStdString() + "/bin/python", "VIRTUAL_ENV",
                       true, insideDirectory(virtualEnv.toStdString(), repoRoot)});
    for (const QString &dir : parent.value(QStringLiteral("PATH")).split(QLatin1Char(':'))) {
        if (dir.isEmpty())
            continue;
        const QFileInfo file(QDir(dir).filePath(QStringLiteral("python3")));
        if (file.isFile() && file.isExecutable())
            out.push_back({file.absoluteFilePath().toStdString(),
                           "the first python3 on PATH that imports pytest", false});
    }
    out.push_back({"/usr/bin/python3", "/usr/bin/python3", true});
    return out;
}

InterpreterChoice chooseFrom(const std::vector<InterpreterCandidate> &candidates,
                             const InterpreterSearch &search)
{
    InterpreterChoice choice;
    std::optional<InterpreterChoice> runsAtAll; // the first that answered, pytest or not
    std::vector<std::string> seen;              // candidates already probed
    for (const InterpreterCandidate &candidate : candidates) {
        const QFileInfo file(qs(candidate.path));
        if (!file.exists()) {
            if (candidate.listIfMissing)
                choice.passedOver.push_back(candidate.path + ": does not exist");
            continue;
        }
        // /bin/python3 and /usr/bin/python3 are one file where /bin links to /usr/bin; a
        // venv's bin/python is its own interpreter although it links to the base one.
        const std::string id = QDir(file.absolutePath()).canonicalPath().toStdString() + "/" +
                               file.fileName().toStdString();
        if (std::find(seen.begin(), seen.end(), id) != seen.end())
            continue;
        seen.push_back(id);
        try {
            const InterpreterProbe probe =
                inspectInterpreter(candidate.path, search.sandboxed && candidate.inRepository,
                                   search.probeTimeoutMs, search.stop);
            if (probe.pytestError.empty()) {
                choice.python = candidate.path;
                choice.origin = candidate.origin;
                choice.inRepository = candidate.inRepository;
                return choice;
            }
            if (!runsAtAll)
                runsAtAll =
                    InterpreterChoice{candidate.path,
                                      "the first interpreter that runs (none imports pytest)",
                                      {},
                                      candidate.inRepository};
            choice.passedOver.push_back(candidate.path + ": cannot import pytest (" +
                                        probe.pytestError + ")");
        } catch (const Error &e) {
            if (e.kind() == Error::Kind::Interrupted)
                throw;
            choice.passedOver.push_back(candidate.path + ": " + e.what());
        }
    }
    if (!search.needsPytest && runsAtAll) {
        runsAtAll->passedOver = choice.passedOver;
        return *runsAtAll;
    }
    std::string tried;
    for (const std::string &line : choice.passedOver)
        tried += "\n  " + line;
    throw Error::input("no Python interpreter that imports pytest was found (set `python` in "
                       "config.toml or pass --python); tried:" +
                       (tried.empty() ? std::string(" nothing") : tried));
}

InterpreterChoice chooseInterpreter(const std::string &repoRoot,
                                    const std::optional<std::string> &given, const Config &config,
                                    const InterpreterSearch &search)
{
    const auto inRepository = [&repoRoot](const std::string &python) {
        const std::string path = interpreterPath(python);
        return insideDirectory(path.empty() ? python : path, repoRoot);
    };
    if (given)
        return {*given, "--python", {}, inRepository(*given)};
    if (config.pythonSet)
        return {config.python, config.source + ": python", {}, inRepository(config.python)};
    return chooseFrom(interpreterCandidates(repoRoot, search.inRepository), search);
}

} // namespace pw::core
