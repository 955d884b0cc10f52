#include "execution/PytestRun.h"

#include "execution/ChildProcess.h"
#include "execution/GroupWatchdog.h"
#include "execution/OutcomeRows.h"
#include "execution/Sandbox.h"
#include "execution/StrayProcesses.h"
#include "execution/TreeBytecode.h"
#include "execution/TreeCache.h"
#include "execution/TreeCopy.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sys/types.h>
#include <unistd.h>

namespace pw::core {

namespace {

constexpr int kSliceMs = 50; // how often the run loop looks at cancel and timeout
constexpr int kStartTimeoutMs = 30000;
constexpr int kReapTimeoutMs = 10000; // after SIGKILL
// Compiling a tree's bytecode once (TreeBytecode): ~3 ms a module; past this the runs
// compile their own, as without it.
constexpr int kBytecodeTimeoutMs = 120 * 1000;

void appendTail(std::string &buffer, const QByteArray &chunk, size_t max, int64_t &dropped)
{
    buffer.append(chunk.constData(), size_t(chunk.size()));
    if (buffer.size() > max) {
        dropped += int64_t(buffer.size() - max);
        buffer.erase(0, buffer.size() - max);
    }
}

std::string exitCodeReason(int code)
{
    switch (code) {
    case 2:
        return "pytest exit 2: interrupted (collection errors or a KeyboardInterrupt)";
    case 3:
        return "pytest exit 3: internal error";
    case 4:
        return "pytest exit 4: usage error (bad option, or a selected node does not exist)";
    case 5:
        return "pytest exit 5: no tests collected";
    default:
        return "pytest exit " + std::to_string(code) + ": not an exit code pytest gives";
    }
}

// bwrap's own complaint ("bwrap: Can't find source path …"): it exits 1 before pytest
// starts, so without this line the run would only say that no JUnit file appeared.
std::string bwrapError(const std::string &stderrText)
{
    const size_t at = stderrText.rfind("bwrap: ");
    if (at == std::string::npos || (at > 0 && stderrText[at - 1] != '\n'))
        return {};
    const size_t end = stderrText.find('\n', at);
    return stderrText.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The last "E   …" line (pytest's exception line) of the report section starting at
// `from`, up to the next section rule ("____" or "====").
std::string exceptionLine(const std::string &text, size_t from)
{
    std::string last;
    size_t at = text.find('\n', from);
    while (at != std::string::npos && at + 1 < text.size()) {
        const size_t begin = at + 1;
        const size_t end = text.find('\n', begin);
        const std::string line =
            text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        if (line.starts_with("____") || line.starts_with("===="))
            break;
        if (line.starts_with("E   ")) {
            const size_t first = line.find_first_not_of(' ', 1);
            last = first == std::string::npos ? std::string() : line.substr(first);
        }
        at = end;
    }
    return last;
}

// `text` from `begin` to the end of its line.
std::string restOfLine(const std::string &text, size_t begin)
{
    const size_t end = text.find('\n', begin);
    return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// A path pytest printed absolute, as the repository names it (relative to the tree).
std::string inTree(std::string path, const std::string &treeDir)
{
    const std::string prefix = treeDir + "/";
    if (!treeDir.empty() && path.starts_with(prefix))
        path.erase(0, prefix.size());
    return path;
}

// What pytest said broke before any test ran (the report names the file): a test
// module that failed to import, a conftest.py that raised, an option or configuration pytest
// refuses, a plugin that is not there. Empty when its output says none of these.
std::string pytestErrorDetail(const std::string &out, const std::string &err,
                              const std::string &treeDir)
{
    for (const std::string *text : {&out, &err}) {
        if (const size_t at = text->find("ERROR collecting "); at != std::string::npos) {
            const size_t begin = at + std::strlen("ERROR collecting ");
            const size_t end = text->find_first_of(" \n", begin);
            const std::string file = text->substr(begin, end - begin);
            const std::string e = exceptionLine(*text, at);
            return "collection error in " + file + (e.empty() ? "" : ": " + e);
        }
        if (const size_t at = text->find("while loading conftest '"); at != std::string::npos) {
            const size_t begin = at + std::strlen("while loading conftest '");
            const size_t end = text->find('\'', begin);
            const std::string file = inTree(text->substr(begin, end - begin), treeDir);
            const std::string e = exceptionLine(*text, at);
            return "conftest " + file + " failed to load" + (e.empty() ? "" : ": " + e);
        }
        // argparse's words for an option pytest does not take (exit 4), often one an ini
        // file's addopts passes: "__main__.py: error: unrecognized arguments: --bogus", then
        // "  inifile: <path>". Both read after "ERROR: usage:", not from a conftest's own
        // earlier output.
        const size_t usage = text->find("ERROR: usage:");
        if (const size_t at = usage == std::string::npos ? usage : text->find(": error: ", usage);
            at != std::string::npos) {
            std::string detail = "usage error: " + restOfLine(*text, at + std::strlen(": error: "));
            if (const size_t ini = text->find("  inifile: ", at); ini != std::string::npos) {
                const std::string file =
                    inTree(restOfLine(*text, ini + std::strlen("  inifile: ")), treeDir);
                if (!file.empty() && file != "None")
                    detail += " (inifile " + file + ")";
            }
            return detail;
        }
        // A configuration pytest refuses: "ERROR: <tree>/pytest.ini: 'minversion' requires …".
        if (const size_t at = text->find("ERROR: " + treeDir + "/");
            !treeDir.empty() && at != std::string::npos && (at == 0 || (*text)[at - 1] == '\n'))
            return "configuration error: " +
                   restOfLine(*text, at + std::strlen("ERROR: ") + treeDir.size() + 1);
        // The plugin's own refusals (another shuffler beside the seeded one, …).
        if (const size_t at = text->find("ERROR: patchwitness: ");
            at != std::string::npos && (at == 0 || (*text)[at - 1] == '\n'))
            return restOfLine(*text, at + std::strlen("ERROR: "));
        if (const size_t at = text->find("Error importing plugin"); at != std::string::npos) {
            const size_t begin = text->rfind('\n', at);
            return restOfLine(*text, begin == std::string::npos ? 0 : begin + 1);
        }
    }
    return {};
}

// What to do about "ModuleNotFoundError: No module named 'x'" in `detail`: the tree's own
// package (its layout was not understood) or a test dependency the interpreter lacks.
std::string missingModuleHint(const std::string &detail, const RunEnvironment &env)
{
    static const std::string marker = "No module named '";
    const size_t at = detail.find(marker);
    if (at == std::string::npos)
        return {};
    const size_t begin = at + marker.size();
    const std::string module = detail.substr(begin, detail.find('\'', begin) - begin);
    const std::string top = module.substr(0, module.find('.'));
    if (std::find(env.treePackages.begin(), env.treePackages.end(), top) !=
        env.treePackages.end()) {
        // Where the runs import it from: the tree's import roots (not its metadata directory).
        std::string roots;
        for (const std::string &dir : env.importPath) {
            if (!env.treeDir.empty() && dir.starts_with(env.treeDir + "/"))
                roots += (roots.empty() ? "" : ", ") + dir;
        }
        return "; " + top + " is the tree's own package, which its runs import from " +
               (roots.empty() ? std::string("the tree's top directory") : roots) +
               ": a module of it is missing from the tree";
    }
    if (!env.treeDir.empty() && env.treePackages.empty())
        return "; patchwitness found no package of the tree's own (no build settings name one, "
               "and neither src/ nor the tree's top holds one): if " +
               top + " is the project's package, say where it lives in pyproject.toml";
    return "; the interpreter " + env.python + " does not have " + top +
           ": install the project's test dependencies into it, or name another interpreter "
           "(config `python`, --python)";
}

// A selected node id (not a path) the run reported under it, e.g. "f" as "f[1]".
bool reported(const std::vector<NodeOutcome> &rows, const std::string &selected)
{
    for (const NodeOutcome &row : rows) {
        const std::string &id = row.nodeId;
        if (id == selected || (id.size() > selected.size() && id.starts_with(selected) &&
                               (id[selected.size()] == '[' || id[selected.size()] == ':')))
            return true;
    }
    return false;
}

// What the plugin's per-test timeout puts in the failure message (pw_plugin.cells.TIMEOUT_MARK).
constexpr const char *kTestTimeoutMark = "patchwitness: per-test timeout";

// Why a run that ended by itself (exit 0 or 1, no signal) left no JUnit XML: pytest writes
// it at the end of the session, so the interpreter stopped before that — a test or fixture
// called os._exit(), or something killed the process quietly. The run-order log names the
// last test that started, and the outcome rows, when the run keeps them, whether its
// teardown had been reported.
std::string endedEarlyReason(const PluginOptions &witness, int exitCode)
{
    const std::string exit = "pytest exit " + std::to_string(exitCode) + " without its JUnit XML";
    const std::optional<std::string> order = witness.enabled && !witness.orderFile.empty()
                                                 ? readWholeFile(witness.orderFile)
                                                 : std::nullopt;
    std::string last;
    if (order) {
        size_t end = order->find_last_not_of('\n');
        if (end != std::string::npos) {
            const size_t start = order->rfind('\n', end);
            last = order->substr(start == std::string::npos ? 0 : start + 1,
                                 end - (start == std::string::npos ? 0 : start + 1) + 1);
        }
    }
    if (last.empty())
        return "the interpreter exited before pytest finished its session (" + exit +
               "): os._exit() in a test, fixture or conftest, or the process was stopped from "
               "outside" +
               (order ? "; no test had started" : std::string());
    bool finished = false;
    if (!witness.outFile.empty()) {
        for (const OutcomeRow &row : readOutcomeRows(witness.outFile).rows)
            finished = finished || (row.nodeId == last && row.when == "teardown");
    }
    if (finished)
        return "the interpreter exited after " + last + " finished, before pytest ended its " +
               "session (" + exit + "): os._exit() in a fixture or hook, or the process was " +
               "stopped from outside";
    return "the interpreter exited during " + last + " (" + exit +
           "): os._exit() in the test or its fixtures, or the process was stopped from outside";
}

} // namespace

SandboxPolicy runSandboxPolicy(const std::string &treeDir, const std::string &runDir,
                               const RunEnvironment &env)
{
    SandboxPolicy policy;
    policy.treeDir = treeDir;
    policy.writableDirs = {runDir, env.homeDir, env.tmpDir};
    if (env.witness.enabled) {
        for (const std::string *file :
             {&env.witness.outFile, &env.witness.orderFile, &env.witness.collectFile,
              &env.witness.witnessFile, &env.witness.coverFile}) {
            if (file->empty())
                continue;
            const QString dir = QFileInfo(QString::fromStdString(*file)).absolutePath();
            QDir().mkpath(dir);
            policy.writableDirs.push_back(dir.toStdString());
        }
        policy.readOnlyDirs.push_back(RunEnvironment::pluginDir(env.cacheRoot));
    }
    // What the interpreter needs to start and import (only those under /tmp, which the
    // sandbox's private /tmp would hide, reach the command): a wrapper's directory, the
    // interpreter behind it, a venv, its base installation and every sys.path entry.
    std::vector<std::string> needed = env.importPath;
    const std::string program = interpreterPath(env.python);
    if (!program.empty()) {
        needed.push_back(QFileInfo(QString::fromStdString(program)).absolutePath().toStdString());
        const InterpreterProbe probe =
            inspectInterpreter(env.python, env.probeSandboxed, env.probeTimeoutMs);
        for (const std::string &file : {probe.executable, probe.realExecutable}) {
            if (!file.empty())
                needed.push_back(
                    QFileInfo(QString::fromStdString(file)).absolutePath().toStdString());
        }
        needed.insert(needed.end(), {probe.prefix, probe.basePrefix});
        needed.insert(needed.end(), probe.sysPath.begin(), probe.sysPath.end());
    }
    for (const std::string &path : needed) {
        if (!path.empty() && QFileInfo::exists(QString::fromStdString(path)))
            policy.readOnlyDirs.push_back(path);
    }
    return policy;
}

std::string replayCommand(const RunSpec &spec)
{
    RunEnvironment env = spec.env;
    PluginOptions &w = env.witness;
    for (std::string *scratch :
         {&w.outFile, &w.orderFile, &w.collectFile, &w.runId, &w.witnessFile, &w.coverFile})
        scratch->clear();
    // The plan file lives in the run's scratch directory: the plugin takes it inline.
    if (!w.replayPlan.empty()) {
        const std::optional<std::string> plan = readWholeFile(w.replayPlan);
        const nlohmann::json parsed =
            plan ? nlohmann::json::parse(*plan, nullptr, false) : nlohmann::json();
        if (parsed.is_object())
            w.replayPlan = parsed.dump();
    }
    env.homeDir.clear();
    env.tmpDir.clear();
    // By hand it runs in the pristine cached tree itself (runs have their own copies): no
    // bytecode of it there, or the next acquire finds the tree not intact and rebuilds it
    // (or, under a patchwitness still running, refuses it).
    env.extraVariables["PYTHONDONTWRITEBYTECODE"] = "1";
    return env.shellCommand(spec.treeDir,
                            env.pytestArguments("/dev/null", spec.selection, spec.extraArgs));
}

const char *runStatusName(RunStatus status)
{
    switch (status) {
    case RunStatus::Completed:
        return "completed";
    case RunStatus::TimedOut:
        return "timed_out";
    case RunStatus::Crashed:
        return "crashed";
    case RunStatus::Cancelled:
        return "cancelled";
    case RunStatus::FailedToStart:
        return "failed_to_start";
    }
    return "failed_to_start";
}

int RunResult::count(Outcome outcome) const
{
    int n = 0;
    for (const NodeOutcome &row : outcomes)
        n += row.outcome == outcome ? 1 : 0;
    return n;
}

void PytestRun::killProcessGroup(int64_t pgid)
{
    if (pgid > 1)
        ::kill(-pid_t(pgid), SIGKILL); // ESRCH when the group is already gone
}

RunResult PytestRun::run()
{
    if (m_spec.runDir.empty()) {
        QTemporaryDir tmp(QDir::tempPath() + QStringLiteral("/patchwitness-run-XXXXXX"));
        if (!tmp.isValid())
            throw Error::input(
                QDir::tempPath().toStdString() +
                ": cannot create a run directory: " + tmp.errorString().toStdString());
        return execute(tmp.path().toStdString());
    }
    if (!QDir().mkpath(QString::fromStdString(m_spec.runDir)))
        throw Error::input(m_spec.runDir + ": cannot create the run directory");
    return execute(m_spec.runDir);
}

RunResult PytestRun::execute(const std::string &runDir)
{
    RunEnvironment env = m_spec.env;
    if (env.homeDir.empty())
        env.homeDir = runDir + "/home";
    if (env.tmpDir.empty())
        env.tmpDir = runDir + "/tmp";
    QDir().mkpath(QString::fromStdString(env.homeDir));
    QDir().mkpath(QString::fromStdString(env.tmpDir));
    const std::string junit = runDir + "/junit.xml";
    QFile::remove(QString::fromStdString(junit)); // a reused run dir must not leak the last run

    RunResult result;
    result.arm = m_spec.arm;
    result.seed = env.hashSeed;
    result.envDigest = envDigest(env);          // Error::input for a missing interpreter
    const InterpreterProbe probe = env.probe(); // cached by envDigest
    result.interpreter =
        env.python + " (Python " + probe.version + ", pytest " + probe.pytestVersion + ")";
    {
        RunEnvironment seedless = env;
        seedless.hashSeed = 0;
        result.seedlessDigest = envDigest(seedless);
    }
    result.replay = replayCommand(m_spec);
    const QStringList args = env.pytestArguments(junit, m_spec.selection, m_spec.extraArgs);
    QString program = QString::fromStdString(env.python);
    QStringList arguments = args;
    // The run's own writable copy of the tree: the pristine one stays what the next run (and
    // the one beside it) gets. Removed when this returns, whatever way it ends.
    TreeCopy copy;
    if (!m_spec.treeDir.empty() && !m_cancel.load()) {
        try {
            copy = TreeCopy::make(m_spec.treeDir);
        } catch (const Error &e) {
            result.status = RunStatus::FailedToStart;
            result.harnessReason = std::string("the run's copy of the tree: ") + e.what();
            return result;
        }
        // The copy is what the run's evidence starts from: checked by content, as the
        // acquire checked the tree (which something could have written since).
        if (const std::optional<std::string> differs =
                copyDiffersFromTree(m_spec.treeDir, copy.path())) {
            result.status = RunStatus::FailedToStart;
            result.harnessReason =
                "the run's copy of the tree is not the revision: " + copy.toPristine(*differs) +
                " (something wrote into the cached tree); the run was not "
                "started, and the next acquire rebuilds the tree";
            return result;
        }
        // Bytecode patchwitness compiled from the pristine tree, never a run's: an
        // interpreter inside the repository is not used for it (its .pth files would run
        // outside the sandbox). pytest's rewritten pycs where the copy is seen at the
        // pristine path they were compiled at (the sandbox), or where the plugin gives
        // their code the copy's path as it loads them.
        if (!m_spec.bytecodeDir.empty() && env.trustedInterpreter) {
            const TreeBytecode bytecode = ensureTreeBytecode(
                env.python, probe, m_spec.treeDir, m_spec.bytecodeDir, kBytecodeTimeoutMs);
            result.bytecodeSeeded =
                seedTreeBytecode(bytecode, copy.path(), m_spec.sandbox || env.witness.enabled);
        }
    }
    // Without the sandbox the run works at the copy's own path, so its environment names
    // the copy; what it prints is mapped back to the pristine path below (reports, records
    // and the env digest name only the pristine tree). The sandbox binds the copy at the
    // pristine path: nothing to map.
    RunEnvironment processEnvironment = env;
    std::string workDir = m_spec.treeDir;
    if (!m_spec.sandbox && !copy.isNull()) {
        workDir = copy.path();
        processEnvironment.treeDir = copy.toCopy(env.treeDir);
        for (std::string &dir : processEnvironment.importPath)
            dir = copy.toCopy(dir);
    }
    if (m_spec.sandbox) {
        const SandboxStatus sandbox = Sandbox::status();
        if (!sandbox.available) {
            result.status = RunStatus::FailedToStart;
            result.harnessReason =
                "the sandbox was requested but is unavailable: " + sandbox.reason +
                "; the run was not started";
            return result;
        }
        if (env.witness.enabled && env.trustedInterpreter)
            cachePluginBytecode(env.python, env.cacheRoot);
        SandboxPolicy policy = runSandboxPolicy(m_spec.treeDir, runDir, env);
        policy.treeSource = copy.path();
        const SandboxCommand wrapped = Sandbox::wrap(sandbox.program, program, args, policy);
        program = wrapped.program;
        arguments = wrapped.arguments;
        result.sandboxed = true;
        // The copy is gone after the run: the line names the tree it copied, so it can be
        // run again by hand (a write it makes there is found by the next acquire).
        result.command =
            copy.toPristine(env.shellCommand(m_spec.treeDir, sandbox.program, arguments));
    } else {
        result.command = env.shellCommand(m_spec.treeDir, args);
    }

    const size_t maxOutput = size_t(std::max(1024, m_spec.maxOutputBytes));
    ChildProcess process(/*ownSession=*/true);
    // Without the sandbox's pid namespace, what escapes the group kill is found by this.
    const std::string token = stray::newToken();
    QProcessEnvironment processEnv = processEnvironment.environment();
    processEnv.insert(QLatin1String(stray::kRunTokenVariable), QString::fromStdString(token));
    process.setProcessEnvironment(processEnv);
    process.setWorkingDirectory(QString::fromStdString(workDir));
    process.setStandardInputFile(QProcess::nullDevice());
    QElapsedTimer clock;
    clock.start();
    if (m_cancel.load()) {
        result.status = RunStatus::Cancelled;
        result.harnessReason = "cancelled before it started";
        return result;
    }
    process.start(program, arguments);
    if (!process.waitForStarted(kStartTimeoutMs)) {
        result.status = RunStatus::FailedToStart;
        result.harnessReason =
            "cannot start '" + program.toStdString() + "': " + process.errorString().toStdString();
        result.durationMs = clock.elapsed();
        return result;
    }
    const int64_t pid = process.processId();
    result.pid = pid;
    // Should this process die before the run ends (SIGKILL included), the run's whole
    // process group dies too, not only pytest (which PR_SET_PDEATHSIG covers), and so does
    // whatever left the group with the token (the sandbox's pid namespace takes those).
    watchdog::watch(pid, result.sandboxed ? std::string() : token);

    bool timedOut = false;
    bool cancelled = false;
    while (process.state() != QProcess::NotRunning && !process.waitForFinished(kSliceMs)) {
        appendTail(result.stdoutTail, process.readAllStandardOutput(), maxOutput,
                   result.outputDropped);
        appendTail(result.stderrTail, process.readAllStandardError(), maxOutput,
                   result.outputDropped);
        cancelled = m_cancel.load();
        timedOut = !cancelled && clock.elapsed() > m_spec.timeoutMs;
        if (cancelled || timedOut) {
            killProcessGroup(pid);
            process.waitForFinished(kReapTimeoutMs);
            break;
        }
    }
    // Whatever of the group outlived pytest (a child a test forgot) dies with the run, and
    // so does a daemon that left the group (the sandbox's pid namespace already took it).
    killProcessGroup(pid);
    if (!result.sandboxed)
        result.strayProcesses = stray::killHolders(token, pid);
    watchdog::release(pid);
    result.durationMs = clock.elapsed();
    appendTail(result.stdoutTail, process.readAllStandardOutput(), maxOutput, result.outputDropped);
    appendTail(result.stderrTail, process.readAllStandardError(), maxOutput, result.outputDropped);
    if (workDir != m_spec.treeDir) {
        result.stdoutTail = copy.toPristine(std::move(result.stdoutTail));
        result.stderrTail = copy.toPristine(std::move(result.stderrTail));
        // The plugin's records (tracebacks in outcome rows, census paths) as well.
        const PluginOptions &w = env.witness;
        for (const std::string *file :
             {&junit, &w.outFile, &w.orderFile, &w.collectFile, &w.witnessFile, &w.coverFile}) {
            if (file->empty())
                continue;
            const std::optional<std::string> text = readWholeFile(*file);
            if (text && text->find(copy.path()) != std::string::npos)
                writeFileReplacing(*file, copy.toPristine(*text));
        }
    }

    if (cancelled) {
        result.status = RunStatus::Cancelled;
        result.harnessReason = "cancelled; process group killed";
    } else if (timedOut) {
        result.status = RunStatus::TimedOut;
        result.harnessReason = "timed out after " + formatSeconds(m_spec.timeoutMs / 1000.0) +
                               "; process group killed";
    } else if (process.exitStatus() == QProcess::CrashExit) {
        result.status = RunStatus::Crashed;
        result.harnessReason = "pytest died from a signal (the interpreter crashed or was killed)";
    } else if (result.sandboxed && process.exitCode() > 128 && process.exitCode() <= 128 + 64) {
        // bwrap outlives its child and reports the child's death by signal N as 128 + N.
        result.status = RunStatus::Crashed;
        result.harnessReason = "pytest died from signal " +
                               std::to_string(process.exitCode() - 128) +
                               " in the sandbox (the interpreter crashed or was killed)";
    } else {
        result.status = RunStatus::Completed;
        result.exitCode = process.exitCode();
    }

    const JUnitReport report = JUnitReader(m_spec.treeDir).readFile(junit); // mapped back above
    if (report.ok())
        result.outcomes = report.nodes;
    // The plugin's per-test timeout (--pw-test-timeout) stops a test with a failure that
    // names it; a timeout is never a failure.
    for (NodeOutcome &o : result.outcomes) {
        if ((o.outcome == Outcome::Fail || o.outcome == Outcome::Error) &&
            o.message.find(kTestTimeoutMark) != std::string::npos)
            o.outcome = Outcome::HarnessError;
    }
    const bool ranToEnd = result.status == RunStatus::Completed;
    if (!ranToEnd) {
        // harnessReason already says why
    } else if (result.exitCode != 0 && result.exitCode != 1) {
        result.errorDetail =
            pytestErrorDetail(result.stdoutTail, result.stderrTail, m_spec.treeDir);
        result.harnessReason = result.errorDetail.empty()
                                   ? exitCodeReason(result.exitCode)
                                   : "pytest exit " + std::to_string(result.exitCode) + ": " +
                                         result.errorDetail +
                                         missingModuleHint(result.errorDetail, env);
    } else if (!report.ok()) {
        const std::string bwrap = result.sandboxed ? bwrapError(result.stderrTail) : std::string();
        result.errorDetail =
            pytestErrorDetail(result.stdoutTail, result.stderrTail, m_spec.treeDir);
        result.harnessReason = !bwrap.empty() ? "the sandbox could not be set up: " + bwrap
                               : !result.errorDetail.empty()
                                   ? "pytest could not start: " + result.errorDetail +
                                         missingModuleHint(result.errorDetail, env)
                               : !QFileInfo::exists(QString::fromStdString(junit))
                                   ? endedEarlyReason(env.witness, result.exitCode)
                                   : report.error;
    } else {
        const int failing = result.count(Outcome::Fail) + result.count(Outcome::Error);
        const int total = int(result.outcomes.size());
        if (total >= m_spec.infraMinTests && failing * 100 > m_spec.infraFailPct * total)
            result.harnessReason = std::to_string(failing) + " of " + std::to_string(total) +
                                   " tests failed (more than infra_fail_pct " +
                                   std::to_string(m_spec.infraFailPct) +
                                   "%): treated as an infrastructure failure";
    }
    result.harnessError = !result.harnessReason.empty();
    if (result.sandboxed)
        Sandbox::annotate(result.outcomes);

    for (const std::string &selected : m_spec.selection) {
        if (selected.find("::") == std::string::npos || reported(result.outcomes, selected))
            continue;
        NodeOutcome row;
        row.nodeId = selected;
        row.outcome = report.ok() && ranToEnd ? Outcome::NotCollected : Outcome::HarnessError;
        row.message = report.ok() && ranToEnd ? "not reported by the run" : result.harnessReason;
        result.outcomes.push_back(std::move(row));
    }
    return result;
}

} // namespace pw::core
