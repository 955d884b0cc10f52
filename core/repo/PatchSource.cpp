// Reading a PATCH: file as untrusted input: only a regular file, and only up to
// the configured size, so that a FIFO cannot block the audit and a device that never ends
// (/dev/zero) cannot exhaust memory.

#include "repo/RepositoryImpl.h"
#include "util/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pw::core::repo_detail {

namespace {

std::string kindOf(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

void checkRegular(const std::string &file, const struct stat &st)
{
    if (S_ISDIR(st.st_mode))
        throw Error::input(file + ": is a directory, not a patch file");
    if (!S_ISREG(st.st_mode))
        throw Error::input(file + ": is " + kindOf(st.st_mode) +
                           ", not a regular file; save the patch to a file first "
                           "(`git diff --binary > fix.patch`)");
}

// `size` is the file's size, or what was read of it so far when it grew while read.
[[noreturn]] void tooLarge(const std::string &file, long long size, long long maxBytes)
{
    throw Error::input(file + ": the patch file is larger than `patch_max_bytes` (" +
                       std::to_string(maxBytes) + " bytes): " + std::to_string(size) +
                       " bytes or more; raise `patch_max_bytes` in config.toml if a patch "
                       "this large is meant");
}

struct Fd
{
    int fd;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

std::string readPatchFile(const std::string &file, long long maxBytes)
{
    // stat first: opening a device or FIFO can have effects (or block) of its own.
    struct stat st;
    if (::stat(file.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            throw Error::input(file + ": no such patch file");
        throw Error::input(file + ": cannot read the patch file: " + std::strerror(errno));
    }
    checkRegular(file, st);
    // O_NONBLOCK: should the path have become a FIFO since, open() must not wait for a
    // writer; fstat below then refuses it.
    const Fd in{::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (in.fd < 0 || ::fstat(in.fd, &st) != 0)
        throw Error::input(file + ": cannot read the patch file: " + std::strerror(errno));
    checkRegular(file, st);
    if (st.st_size > maxBytes)
        tooLarge(file, st.st_size, maxBytes);

    // Read to the cap, not to the size stat saw: the file may grow while it is read.
    std::string content;
    content.reserve(size_t(st.st_size));
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw Error::input(file + ": cannot read the patch file: " + std::strerror(errno));
        if (n == 0)
            return content;
        if (static_cast<long long>(content.size()) + n > maxBytes)
            tooLarge(file, static_cast<long long>(content.size()) + n, maxBytes);
        content.append(buffer, size_t(n));
    }
}

} // namespace pw::core::repo_detail
