#include "run/GroupWatchdog.h"

#include <cerrno>
#include <csignal>
#include <mutex>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pw::core::watchdog {
namespace {

constexpr int kMaxGroups = 4096; // far more runs than any pool runs at once

std::mutex s_mutex;
int s_writeEnd = -1;
bool s_tried = false;

void closeAllBut(int keep)
{
#ifdef SYS_close_range
    if (keep == 0 && ::syscall(SYS_close_range, 1U, ~0U, 0U) == 0)
        return;
#endif
    const long max = ::sysconf(_SC_OPEN_MAX);
    for (int fd = 0; fd < (max > 0 && max < 65536 ? int(max) : 65536); ++fd) {
        if (fd != keep)
            ::close(fd);
    }
}

// The forked child. Only async-signal-safe calls: the parent may have had other threads,
// whose locks (malloc's among them) this copy of memory holds forever.
[[noreturn]] void serve(int readEnd)
{
    ::setsid(); // out of the terminal's process group: Ctrl-C and hang-up do not reach it
    for (const int signal :
         {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) {
        struct sigaction ignore = {};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(signal, &ignore, nullptr);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // Holding the parent's descriptors would keep its stdout pipe open after it died (a
    // caller reading to end of file would wait for us) and its write end of our pipe.
    if (readEnd != 0) {
        ::dup2(readEnd, 0);
        ::close(readEnd);
    }
    closeAllBut(0);

    static int64_t groups[kMaxGroups];
    int count = 0;
    for (;;) {
        int64_t message = 0;
        const ssize_t n = ::recv(0, &message, sizeof message, MSG_WAITALL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != ssize_t(sizeof message))
            break; // end of file: the parent is gone (or wrote garbage, which it never does)
        if (message > 1) {
            if (count < kMaxGroups)
                groups[count++] = message;
        } else if (message < -1) {
            for (int i = 0; i < count; ++i) {
                if (groups[i] == -message) {
                    groups[i] = groups[--count];
                    break;
                }
            }
        }
    }
    for (int i = 0; i < count; ++i)
        ::kill(-pid_t(groups[i]), SIGKILL);
    ::_exit(0);
}

bool start()
{
    // A socket pair rather than a pipe: send() with MSG_NOSIGNAL cannot raise SIGPIPE in
    // this process should the watchdog have been killed.
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return false;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return false;
    }
    if (pid == 0) {
        ::close(fds[1]);
        serve(fds[0]);
    }
    ::close(fds[0]);
    s_writeEnd = fds[1];
    return true;
}

bool send(int64_t message)
{
    std::lock_guard<std::mutex> lock(s_mutex);
    if (!s_tried) {
        s_tried = true;
        start();
    }
    if (s_writeEnd < 0)
        return false;
    // 8 bytes, written whole or not at all in practice; if the watchdog was killed the
    // send fails with EPIPE (no signal) and only PDEATHSIG holds.
    ssize_t n;
    do {
        n = ::send(s_writeEnd, &message, sizeof message, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == ssize_t(sizeof message);
}

} // namespace

bool watch(int64_t group)
{
    return group > 1 && send(group);
}

void release(int64_t group)
{
    if (group > 1)
        send(-group);
}

} // namespace pw::core::watchdog
