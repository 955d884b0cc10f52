#pragma once

#include "util/ThreadRule.h"

#include <QProcess>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace pw::core {

// A QProcess whose child dies with this process: PR_SET_PDEATHSIG(SIGKILL), set between
// fork and exec, so a probe or a pytest run never outlives the command that started it,
// however the command ends (SIGKILL too). With `ownSession` the child also leads a new
// session and process group (setsid), the unit a run's timeout and cancel kill.
//
// The death signal fires when the *thread* that forked the child ends, not the process:
// every user starts the child and waits for it on the same thread (PytestRun::execute,
// runQuick), so that thread outlives the child. Qt 6 sets this up with
// setChildProcessModifier, Qt 5.15 (which has none) through setupChildProcess().
class ChildProcess : public QProcess
{
public:
    explicit ChildProcess(bool ownSession) : m_ownSession(ownSession), m_parent(::getpid())
    {
        checkBlockingWorkAllowed("ChildProcess");
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
        setChildProcessModifier([this] { prepareChild(); });
#endif
    }

protected:
#if QT_VERSION < QT_VERSION_CHECK(6, 0, 0)
    void setupChildProcess() override
    {
        prepareChild();
    }
#endif

private:
    // In the child, before exec: async-signal-safe calls only.
    void prepareChild() const
    {
        if (m_ownSession)
            ::setsid();
        // patchwitness-cli ignores SIGPIPE (a closed terminal must not kill it before it
        // cleans up); an ignored signal would survive exec into the child.
        ::signal(SIGPIPE, SIG_DFL);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        // The parent died between fork and prctl: the signal will never come.
        if (::getppid() != m_parent)
            ::_exit(127);
    }

    bool m_ownSession;
    pid_t m_parent;
};

} // namespace pw::core
