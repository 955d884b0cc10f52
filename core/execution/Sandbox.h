#pragma once

#include "execution/JUnitReader.h"

#include <QStringList>
#include <string>
#include <vector>

namespace pw::core {

// What a sandboxed run may touch . Everything else of the filesystem
// is read-only, /tmp is a fresh tmpfs, and there is no network.
struct SandboxPolicy
{
    std::string treeDir; // the working directory; read-write unless treeReadOnly
    // A run's own copy of the tree (TreeCopy), bound read-write *at treeDir*: the run sees,
    // prints and records the pristine tree's paths, and cannot reach the pristine tree.
    std::string treeSource;
    bool treeReadOnly = false;             // the preflight: it has nothing to write in the tree
    std::vector<std::string> writableDirs; // read-write: the run dir (junit.xml, home, tmp),
                                           // plugin output directories
    // Read-only binds for paths the private /tmp would hide (e.g. a staged plugin under
    // /tmp); paths outside /tmp are visible anyway and are left out of the command.
    std::vector<std::string> readOnlyDirs;
};

// Whether the sandbox can be used on this machine, and why not.
struct SandboxStatus
{
    bool available = false;
    std::string program; // absolute path of bwrap
    std::string reason;  // when not available: a sentence naming what is missing
};

// A program line: what QProcess starts.
struct SandboxCommand
{
    QString program;
    QStringList arguments;
};

// Which failures a sandbox without network explains (see classifyFailure).
enum class NetworkBlock
{
    None,     // nothing network-related
    Possible, // a network failure that also happens without a sandbox
    Certain,  // a network failure only the missing network explains
};

// bubblewrap (bwrap) around a pytest run, in its own pid namespace: bwrap's child is the
// namespace's init, and when it dies (the run ends, or the group kill reaches it) the
// kernel kills everything left inside — a daemon that started its own session too.
// pytest and its children see namespace pids, not the host's.
class Sandbox
{
public:
    // bwrap found on PATH and working here: the first call runs `true` in a sandbox with
    // the namespaces runs use (a kernel without user namespaces or a container without
    // CAP_SYS_ADMIN fails there, not in the first run). Cached per process; thread-safe.
    static SandboxStatus status();
    static bool available() { return status().available; }

    // The bwrap program to use instead of the one on PATH; empty restores PATH lookup.
    // Drops the cached status. For tests (a nonexistent path makes the sandbox unavailable).
    static void setProgram(const std::string &path);

    // `program args…` inside the sandbox: `bwrap --ro-bind / / --dev /dev --proc /proc
    // --tmpfs /tmp --bind <tree> <tree> --bind <dir> <dir>… --ro-bind <dir> <dir>…
    // --unshare-net --unshare-ipc --unshare-pid --die-with-parent --chdir <tree> -- program
    // args…`.
    // Binds come after the tmpfs so directories under /tmp stay visible. No --new-session:
    // PytestRun already runs bwrap in a new session without a terminal, and the session
    // keeps the group kill working. `bwrap` is status().program; the sources must exist.
    static SandboxCommand wrap(const std::string &bwrap, const QString &program,
                               const QStringList &args, const SandboxPolicy &policy);

    // Whether a failing test's JUnit message in a sandboxed run is the sandbox refusing
    // network access. pytest's message is the exception's last line, e.g.
    // "OSError: [Errno 101] Network is unreachable". Certain: ENETUNREACH (errno 101;
    // every non-loopback destination inside the empty network namespace) and EAI_AGAIN
    // (errno -3, "Temporary failure in name resolution": no DNS server is reachable).
    // Possible: ECONNREFUSED (errno 111: the host's loopback services are not in the
    // sandbox, but a service that is not running says the same), EADDRNOTAVAIL (errno 99:
    // binding a host address; also a plain misconfiguration), EAI_NONAME / EAI_NODATA
    // (errno -2 / -5: an unknown name or service; the sandbox itself gives -3).
    static NetworkBlock classifyFailure(const std::string &message);
    // classifyFailure over the failing and erroring rows of a sandboxed run: Certain sets
    // sandboxBlocked and appends kBlockedNote to the message, Possible appends
    // kPossibleNote.
    static void annotate(std::vector<NodeOutcome> &rows);

    static constexpr const char *kBlockedNote = " (the sandbox blocked network access)";
    static constexpr const char *kPossibleNote =
        " (network access failed; the sandbox, which has no network, may be why)";
};

// Failing runs whose reason carries one of Sandbox::annotate's notes, and the clause a
// verdict sentence gains from them (attribution and the four cells share it).
struct SandboxTally
{
    int blocked = 0;  // reasons with Sandbox::kBlockedNote
    int possible = 0; // reasons with Sandbox::kPossibleNote

    void add(const std::string &failureReason);
    // "; the sandbox blocked network access in N failing run(s): …", the weaker
    // "network access failed …" when only possible ones, else empty.
    std::string clause() const;
};

} // namespace pw::core
