#include "execution/Sandbox.h"

#include "execution/QuickProcess.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>
#include <mutex>
#include <optional>

namespace pw::core {

namespace {

constexpr int kProbeTimeoutMs = 10000;

std::mutex s_mutex;
std::string s_programOverride;         // Sandbox::setProgram
std::optional<SandboxStatus> s_status; // the probe's answer, once per program

QString absolute(const std::string &path)
{
    return QDir::cleanPath(QFileInfo(QString::fromStdString(path)).absoluteFilePath());
}

bool underTmp(const QString &path)
{
    return path.startsWith(QLatin1String("/tmp/"));
}

SandboxStatus probe(const std::string &override)
{
    SandboxStatus status;
    if (override.empty()) {
        status.program = QStandardPaths::findExecutable(QStringLiteral("bwrap")).toStdString();
        if (status.program.empty()) {
            status.reason = "bubblewrap (bwrap) is not installed or not on PATH";
            return status;
        }
    } else {
        status.program = override;
        const QFileInfo file(QString::fromStdString(override));
        if (!file.isFile() || !file.isExecutable()) {
            status.reason = "bubblewrap '" + override + "' does not exist or is not executable";
            return status;
        }
    }
    QString truePath = QStandardPaths::findExecutable(QStringLiteral("true"));
    if (truePath.isEmpty())
        truePath = QStringLiteral("/bin/true");
    const SandboxCommand command = Sandbox::wrap(status.program, truePath, {}, {});
    const QuickRun run = runQuick(command.program, command.arguments,
                                  QProcessEnvironment::systemEnvironment(), {}, kProbeTimeoutMs);
    if (!run.started) {
        status.reason = "cannot start bubblewrap '" + status.program + "': " + run.startError;
        return status;
    }
    if (run.timedOut) {
        status.reason = "bubblewrap '" + status.program + "' did not run `true` within " +
                        std::to_string(kProbeTimeoutMs / 1000) + " s";
        return status;
    }
    if (!run.succeeded()) {
        const QByteArray err = run.err.trimmed().right(400);
        status.reason = "bubblewrap '" + status.program +
                        "' cannot create the sandbox here (exit " + std::to_string(run.exitCode) +
                        ")" + (err.isEmpty() ? std::string() : ": " + err.toStdString());
        return status;
    }
    status.available = true;
    return status;
}

bool containsAny(const std::string &text, std::initializer_list<const char *> needles)
{
    return std::any_of(needles.begin(), needles.end(), [&text](const char *needle) {
        return text.find(needle) != std::string::npos;
    });
}

} // namespace

SandboxStatus Sandbox::status()
{
    // Held while probing: concurrent first callers wait for the one probe.
    std::lock_guard<std::mutex> lock(s_mutex);
    if (!s_status)
        s_status = probe(s_programOverride);
    return *s_status;
}

void Sandbox::setProgram(const std::string &path)
{
    std::lock_guard<std::mutex> lock(s_mutex);
    s_programOverride = path;
    s_status.reset();
}

SandboxCommand Sandbox::wrap(const std::string &bwrap, const QString &program,
                             const QStringList &args, const SandboxPolicy &policy)
{
    SandboxCommand command;
    command.program = QString::fromStdString(bwrap);
    QStringList &a = command.arguments;
    a << QStringLiteral("--ro-bind") << QStringLiteral("/") << QStringLiteral("/")
      << QStringLiteral("--dev") << QStringLiteral("/dev") << QStringLiteral("--proc")
      << QStringLiteral("/proc") << QStringLiteral("--tmpfs") << QStringLiteral("/tmp");
    // After the tmpfs, or it would hide them. Read-only first, so a writable directory
    // inside a read-only one stays writable.
    QStringList bound;
    for (const std::string &dir : policy.readOnlyDirs) {
        const QString path = absolute(dir);
        if (underTmp(path) && !bound.contains(path)) {
            a << QStringLiteral("--ro-bind") << path << path;
            bound << path;
        }
    }
    QStringList writable;
    const bool ownTree =
        !policy.treeDir.empty() && policy.treeSource.empty() && !policy.treeReadOnly;
    if (ownTree)
        writable << absolute(policy.treeDir);
    for (const std::string &dir : policy.writableDirs) {
        const QString path = absolute(dir);
        if (!writable.contains(path))
            writable << path;
    }
    for (const QString &path : writable)
        a << QStringLiteral("--bind") << path << path;
    // Last, so nothing bound above (an import root inside the tree) shadows the copy.
    if (!policy.treeDir.empty() && !policy.treeSource.empty())
        a << QStringLiteral("--bind") << absolute(policy.treeSource) << absolute(policy.treeDir);
    else if (!policy.treeDir.empty() && policy.treeReadOnly)
        a << QStringLiteral("--ro-bind") << absolute(policy.treeDir) << absolute(policy.treeDir);
    // --unshare-pid: nothing a test starts outlives the namespace's init, bwrap's child,
    // which --die-with-parent ties to the bwrap the group kill reaches.
    a << QStringLiteral("--unshare-net") << QStringLiteral("--unshare-ipc")
      << QStringLiteral("--unshare-pid") << QStringLiteral("--die-with-parent");
    if (!policy.treeDir.empty())
        a << QStringLiteral("--chdir") << absolute(policy.treeDir);
    a << QStringLiteral("--") << program << args;
    return command;
}

NetworkBlock Sandbox::classifyFailure(const std::string &message)
{
    // Errno and text both: a library may print either ("<urlopen error [Errno -3] …>",
    // urllib3's "Failed to establish a new connection: [Errno 101] …").
    if (containsAny(message, {"[Errno 101]", "Network is unreachable", "ENETUNREACH", "[Errno -3]",
                              "Temporary failure in name resolution", "EAI_AGAIN"}))
        return NetworkBlock::Certain;
    if (containsAny(message, {"[Errno 111]", "Connection refused", "ECONNREFUSED", "[Errno 99]",
                              "Cannot assign requested address", "EADDRNOTAVAIL", "[Errno -2]",
                              "Name or service not known", "EAI_NONAME", "[Errno -5]",
                              "No address associated with hostname", "EAI_NODATA"}))
        return NetworkBlock::Possible;
    return NetworkBlock::None;
}

void Sandbox::annotate(std::vector<NodeOutcome> &rows)
{
    for (NodeOutcome &row : rows) {
        if (row.outcome != Outcome::Fail && row.outcome != Outcome::Error)
            continue;
        switch (classifyFailure(row.message)) {
        case NetworkBlock::Certain:
            row.sandboxBlocked = true;
            row.message += kBlockedNote;
            break;
        case NetworkBlock::Possible:
            row.message += kPossibleNote;
            break;
        case NetworkBlock::None:
            break;
        }
    }
}

void SandboxTally::add(const std::string &failureReason)
{
    if (failureReason.find(Sandbox::kBlockedNote) != std::string::npos)
        ++blocked;
    else if (failureReason.find(Sandbox::kPossibleNote) != std::string::npos)
        ++possible;
}

std::string SandboxTally::clause() const
{
    if (blocked > 0)
        return "; the sandbox blocked network access in " + std::to_string(blocked) +
               " failing run(s): the test needs the network, which runs here never have — the "
               "failure is the sandbox's, not the patch's (config sandbox = false, after the "
               "consent, runs it with the network)";
    if (possible > 0)
        return "; network access failed in " + std::to_string(possible) +
               " failing run(s): the sandbox, which has no network, may be why";
    return {};
}

} // namespace pw::core
