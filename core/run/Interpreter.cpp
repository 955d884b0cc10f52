#include "run/Interpreter.h"

#include "ledger/Config.h"
#include "run/RunEnvironment.h"
#include "util/Error.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

namespace pw::core {

namespace {

using nlohmann::json;

constexpr int kProbeTimeoutMs = 60 * 1000;

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

std::mutex s_probeMutex;
std::map<std::string, InterpreterProbe> s_probes; // by resolved file + size + mtime

InterpreterProbe runProbe(const std::string &python, const QString &program)
{
    RunEnvironment env;
    env.python = python;
    QProcess process;
    process.setProcessEnvironment(env.environment());
    process.setStandardInputFile(QProcess::nullDevice());
    process.start(program,
                  {QStringLiteral("-I"), QStringLiteral("-c"), QString::fromLatin1(kProbeScript)});
    if (!process.waitForStarted(kProbeTimeoutMs))
        throw Error::input("cannot run the Python interpreter '" + python + "': " +
                           process.errorString().toStdString() + " (set `python` in config.toml)");
    if (!process.waitForFinished(kProbeTimeoutMs)) {
        process.kill();
        process.waitForFinished(5000);
        throw Error::harness("the Python interpreter '" + python + "' did not answer within " +
                             std::to_string(kProbeTimeoutMs / 1000) + " s");
    }
    const QByteArray out = process.readAllStandardOutput().trimmed();
    const json answer = json::parse(out.constData(), out.constData() + out.size(), nullptr, false);
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0 ||
        !answer.is_object())
        throw Error::harness("the Python interpreter '" + python +
                             "' did not answer the version probe: " +
                             process.readAllStandardError().right(400).trimmed().toStdString());
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

InterpreterProbe inspectInterpreter(const std::string &python)
{
    const QFileInfo file = interpreterFile(python);
    if (!file.exists())
        throw Error::input("Python interpreter '" + python +
                           "' not found (set `python` in config.toml or pass --python)");
    const std::string key = file.absoluteFilePath().toStdString() + '\0' +
                            std::to_string(file.size()) + '\0' +
                            std::to_string(file.lastModified().toMSecsSinceEpoch());
    {
        std::lock_guard<std::mutex> lock(s_probeMutex);
        const auto it = s_probes.find(key);
        if (it != s_probes.end()) {
            InterpreterProbe probe = it->second;
            probe.python = python;
            return probe;
        }
    }
    // Probed outside the lock: two threads may both probe once, never wait on each other.
    InterpreterProbe probe = runProbe(python, file.absoluteFilePath());
    std::lock_guard<std::mutex> lock(s_probeMutex);
    s_probes.emplace(key, probe);
    return probe;
}

InterpreterProbe probeInterpreter(const std::string &python)
{
    InterpreterProbe probe = inspectInterpreter(python);
    if (!probe.pytestError.empty())
        throw Error::input(pytestMissing(python, probe));
    return probe;
}

std::vector<InterpreterCandidate> interpreterCandidates(const std::string &repoRoot)
{
    std::vector<InterpreterCandidate> out;
    if (!repoRoot.empty()) {
        for (const char *dir : {".venv", "venv"}) {
            const std::string bin = repoRoot + "/" + dir + "/bin/";
            // A venv made by `python3 -m venv` has both; some tools make only one.
            const std::string python =
                QFileInfo::exists(qs(bin + "python")) ? bin + "python" : bin + "python3";
            out.push_back({python, std::string("the repository's ") + dir, true});
        }
    }
    const QProcessEnvironment parent = QProcessEnvironment::systemEnvironment();
    const QString virtualEnv = parent.value(QStringLiteral("VIRTUAL_ENV"));
    if (!virtualEnv.isEmpty())
        out.push_back(
            {QDir::cleanPath(virtualEnv).toStdString() + "/bin/python", "VIRTUAL_ENV", true});
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

InterpreterChoice chooseFrom(const std::vector<InterpreterCandidate> &candidates, bool needsPytest)
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
            const InterpreterProbe probe = inspectInterpreter(candidate.path);
            if (probe.pytestError.empty()) {
                choice.python = candidate.path;
                choice.origin = candidate.origin;
                return choice;
            }
            if (!runsAtAll)
                runsAtAll = InterpreterChoice{candidate.path, candidate.origin, {}};
            choice.passedOver.push_back(candidate.path + ": cannot import pytest (" +
                                        probe.pytestError + ")");
        } catch (const Error &e) {
            choice.passedOver.push_back(candidate.path + ": " + e.what());
        }
    }
    if (!needsPytest && runsAtAll) {
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
                                    bool needsPytest)
{
    if (given)
        return {*given, "--python", {}};
    if (config.pythonSet)
        return {config.python, config.source + ": python", {}};
    return chooseFrom(interpreterCandidates(repoRoot), needsPytest);
}

} // namespace pw::core
