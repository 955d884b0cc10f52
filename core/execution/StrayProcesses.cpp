#include "execution/StrayProcesses.h"

#include <QRandomGenerator>
#include <QString>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <sys/syscall.h>
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

// getdents64's record (the kernel's struct linux_dirent64, which glibc does not declare).
struct DirEntry64
{
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[1];
};

// The pid a /proc entry names, or 0 when it names none (self, sys, …).
pid_t pidOf(const char *name)
{
    pid_t pid = 0;
    for (const char *c = name; *c != '\0'; ++c) {
        if (*c < '0' || *c > '9' || pid > 100000000)
            return 0;
        pid = pid * 10 + (*c - '0');
    }
    return pid;
}

// "/proc/<pid>/environ" into `out` (room for 40 characters).
void environPath(pid_t pid, char *out)
{
    char digits[16];
    int n = 0;
    do {
        digits[n++] = char('0' + pid % 10);
        pid /= 10;
    } while (pid > 0 && n < int(sizeof digits));
    char *at = out;
    for (const char *c = "/proc/"; *c != '\0'; ++c)
        *at++ = *c;
    while (n > 0)
        *at++ = digits[--n];
    for (const char *c = "/environ"; *c != '\0'; ++c)
        *at++ = *c;
    *at = '\0';
}

// Whether the entry `entry[0..length)` is kRunTokenVariable=<one of `tokens`>.
bool isTokenEntry(const char *entry, size_t length, const char *const tokens[], int tokenCount)
{
    const size_t prefix = std::strlen(kRunTokenVariable);
    if (length <= prefix + 1 || std::memcmp(entry, kRunTokenVariable, prefix) != 0 ||
        entry[prefix] != '=')
        return false;
    const char *value = entry + prefix + 1;
    const size_t valueLength = length - prefix - 1;
    for (int i = 0; i < tokenCount; ++i) {
        if (std::strlen(tokens[i]) == valueLength &&
            std::memcmp(tokens[i], value, valueLength) == 0)
            return true;
    }
    return false;
}

// Whether the environment block read from `fd` (NUL-separated entries) holds one of
// `tokens`. Entries longer than any token entry can be are skipped unread.
bool holdsToken(int fd, const char *const tokens[], int tokenCount)
{
    char buffer[4096];
    char entry[kTokenCapacity + 64];
    size_t length = 0;
    bool tooLong = false;
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; ++i) {
            if (buffer[i] == '\0') {
                if (!tooLong && isTokenEntry(entry, length, tokens, tokenCount))
                    return true;
                length = 0;
                tooLong = false;
            } else if (length < sizeof entry) {
                entry[length++] = buffer[i];
            } else {
                tooLong = true;
            }
        }
    }
    return !tooLong && isTokenEntry(entry, length, tokens, tokenCount);
}
#endif

} // namespace

int killPass(const char *const tokens[], int tokenCount, long long group, pid_t killed[],
             int capacity, int *count)
{
#ifdef __linux__
    const pid_t self = ::getpid();
    const int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc < 0)
        return 0;
    int found = 0;
    alignas(8) char records[8192];
    for (;;) {
        const long bytes = ::syscall(SYS_getdents64, proc, records, sizeof records);
        if (bytes <= 0)
            break;
        for (long at = 0; at < bytes;) {
            const auto *record = reinterpret_cast<const DirEntry64 *>(records + at);
            at += record->reclen;
            const pid_t pid = pidOf(record->name);
            if (pid <= 0 || pid == self || (group > 1 && ::getpgid(pid) == pid_t(group)))
                continue;
            const int pidfd = openPidfd(pid);
            if (pidfd < 0 && errno == ESRCH)
                continue; // gone already
            char path[40];
            environPath(pid, path);
            // Unreadable for another user's processes: those never held our token.
            const int env = ::open(path, O_RDONLY | O_CLOEXEC);
            const bool holds = env >= 0 && holdsToken(env, tokens, tokenCount);
            if (env >= 0)
                ::close(env);
            if (holds && sendKill(pidfd, pid)) {
                bool known = false;
                for (int i = 0; i < *count && !known; ++i)
                    known = killed[i] == pid;
                // one still exiting from an earlier pass is no new find
                if (!known) {
                    ++found;
                    if (*count < capacity)
                        killed[(*count)++] = pid;
                }
            }
            if (pidfd >= 0)
                ::close(pidfd);
        }
    }
    ::close(proc);
    return found;
#else
    (void)tokens;
    (void)tokenCount;
    (void)group;
    (void)killed;
    (void)capacity;
    (void)count;
    return 0;
#endif
}

int killHolders(const std::string &token, long long group)
{
    const char *const tokens[] = {token.c_str()};
    pid_t killed[1024];
    int count = 0;
    int total = 0;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        const int found = killPass(tokens, 1, group, killed, int(std::size(killed)), &count);
        total += found;
        if (found == 0)
            break;
    }
    return total;
}

} // namespace pw::core::stray
