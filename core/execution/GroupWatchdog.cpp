#include "execution/GroupWatchdog.h"

#include "execution/StrayProcesses.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pw::core::watchdog {
namespace {

constexpr int kMaxGroups = 4096; // far more runs than any pool runs at once
constexpr int kMaxKilled = 4096; // holders told apart from one found again

// One record on the socket: group > 1 registers it with its token (NUL-terminated, empty
// for none); group < -1 releases -group.
struct Message
{
    int64_t group;
    char token[stray::kTokenCapacity];
};

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

    static Message runs[kMaxGroups];
    int count = 0;
    for (;;) {
        Message message{};
        const ssize_t n = ::recv(0, &message, sizeof message, MSG_WAITALL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != ssize_t(sizeof message))
            break; // end of file: the parent is gone (or wrote garbage, which it never does)
        message.token[sizeof message.token - 1] = '\0';
        if (message.group > 1) {
            if (count < kMaxGroups)
                runs[count++] = message;
        } else if (message.group < -1) {
            for (int i = 0; i < count; ++i) {
                if (runs[i].group == -message.group) {
                    runs[i] = runs[--count];
                    break;
                }
            }
        }
    }
    // The groups first: what is left to find is what left them.
    static const char *tokens[kMaxGroups];
    int tokenCount = 0;
    for (int i = 0; i < count; ++i) {
        ::kill(-pid_t(runs[i].group), SIGKILL);
        if (runs[i].token[0] != '\0')
            tokens[tokenCount++] = runs[i].token;
    }
    static pid_t killed[kMaxKilled];
    int killedCount = 0;
    for (int pass = 0; tokenCount > 0 && pass < stray::kMaxPasses; ++pass) {
        if (stray::killPass(tokens, tokenCount, 0, killed, kMaxKilled, &killedCount) == 0)
            break;
    }
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

bool send(const Message &message)
{
    std::lock_guard<std::mutex> lock(s_mutex);
    if (!s_tried) {
        s_tried = true;
        start();
    }
    if (s_writeEnd < 0)
        return false;
    // Whole records, under the lock, so the watchdog never reads half of one; if it was
    // killed the send fails with EPIPE (no signal) and only PDEATHSIG holds.
    const char *at = reinterpret_cast<const char *>(&message);
    size_t left = sizeof message;
    while (left > 0) {
        const ssize_t n = ::send(s_writeEnd, at, left, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        at += n;
        left -= size_t(n);
    }
    return true;
}

} // namespace

bool watch(int64_t group, const std::string &token)
{
    if (group <= 1 || token.size() >= sizeof Message::token)
        return false; // no token newToken() makes is that long
    Message message{};
    message.group = group;
    std::memcpy(message.token, token.data(), token.size());
    return send(message);
}

void release(int64_t group)
{
    if (group <= 1)
        return;
    Message message{};
    message.group = -group;
    send(message);
}

} // namespace pw::core::watchdog
