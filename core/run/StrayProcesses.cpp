#include "run/StrayProcesses.h"

#include <QDir>
#include <QRandomGenerator>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <iterator>
#include <set>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace pw::core::stray {

std::string newToken()
{
    return std::to_string(::getpid()) + "-" +
           QString::number(QRandomGenerator::global()->generate64(), 16).toStdString();
}

namespace {

#ifdef __linux__
// pidfd_open / pidfd_send_signal (Linux 5.3+) through syscall(2): glibc 2.36 has wrappers,
// older ones do not. -1 where the kernel lacks them (then kill(2) is used).
int openPidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return int(::syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

bool sendKill(int pidfd, pid_t pid)
{
#ifdef SYS_pidfd_send_signal
    if (pidfd >= 0)
        return ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0;
#endif
    return pidfd < 0 && ::kill(pid, SIGKILL) == 0;
}
#endif

} // namespace

int killHolders(const std::string &token, long long group)
{
#ifdef __linux__
    const std::string needle = std::string(kRunTokenVariable) + "=" + token;
    const pid_t self = ::getpid();
    std::set<pid_t> killed;
    for (int pass = 0; pass < 20; ++pass) {
        bool found = false;
        for (const QString &name :
             QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            bool numeric = false;
            const pid_t pid = pid_t(name.toLong(&numeric));
            if (!numeric || pid == self || (group > 1 && ::getpgid(pid) == pid_t(group)))
                continue;
            const int pidfd = openPidfd(pid);
            if (pidfd < 0 && errno == ESRCH)
                continue; // gone already
            // Unreadable for another user's processes: those never held our token.
            std::ifstream in("/proc/" + name.toStdString() + "/environ", std::ios::binary);
            if (!in) {
                if (pidfd >= 0)
                    ::close(pidfd);
                continue;
            }
            const std::string environ((std::istreambuf_iterator<char>(in)),
                                      std::istreambuf_iterator<char>());
            size_t at = 0;
            bool holds = false;
            while (at < environ.size()) {
                const size_t end = environ.find('\0', at);
                const size_t stop = end == std::string::npos ? environ.size() : end;
                if (environ.compare(at, stop - at, needle) == 0) {
                    holds = true;
                    break;
                }
                at = stop + 1;
            }
            // one still exiting from an earlier pass is no new find
            if (holds && sendKill(pidfd, pid) && killed.insert(pid).second)
                found = true;
            if (pidfd >= 0)
                ::close(pidfd);
        }
        if (!found)
            break;
    }
    return int(killed.size());
#else
    (void)token;
    (void)group;
    return 0;
#endif
}

} // namespace pw::core::stray
