#include "execution/TreeCopy.h"

#include "util/Error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace pw::core {

namespace {

namespace fs = std::filesystem;

std::string errnoText(int error)
{
    return std::strerror(error);
}

// Plain read/write: where copy_file_range is refused (another filesystem on old kernels,
// a filesystem without it).
bool copyPlain(int from, int to)
{
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(from, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0)
            return true;
        for (ssize_t done = 0; done < n;) {
            const ssize_t w = ::write(to, buffer + done, size_t(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return false;
            done += w;
        }
    }
}

void copyFile(const std::string &from, const std::string &to, const struct stat &st)
{
    const mode_t mode = st.st_mode;
    const off_t size = st.st_size;
    const int in = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        throw Error::input(from + ": cannot read for the run's copy: " + errnoText(errno));
    const int out =
        ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
    if (out < 0) {
        const int error = errno;
        ::close(in);
        throw Error::input(to + ": cannot create the run's copy: " + errnoText(error));
    }
    bool ok = true;
    off_t left = size;
    while (left > 0) {
        const ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, size_t(left), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            // Refused (EXDEV, ENOSYS, EINVAL…) or the file shrank: copy what is left plainly.
            ok = copyPlain(in, out);
            break;
        }
        left -= n;
    }
    const int error = errno;    // of the copy, before fchmod and futimens
    ::fchmod(out, mode & 0777); // the umask must not drop the executable bit
    // The pristine file's times: the trusted bytecode (TreeBytecode) is checked against
    // the source's mtime, and a test sees the times the checkout gave its files.
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    ::futimens(out, times);
    ::close(in);
    const bool closed = ::close(out) == 0;
    if (!closed || !ok)
        throw Error::input(to + ": cannot write the run's copy: " + errnoText(ok ? errno : error));
}

void copyTree(const std::string &from, const std::string &to)
{
    std::error_code ec;
    fs::recursive_directory_iterator it(from, ec), end;
    if (ec)
        throw Error::input(from + ": cannot read the tree to copy: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec)
            break;
        const std::string abs = it->path().string();
        const std::string target = to + "/" + it->path().lexically_relative(from).string();
        struct stat st;
        if (::lstat(abs.c_str(), &st) != 0)
            throw Error::input(abs + ": cannot read the tree to copy: " + errnoText(errno));
        if (S_ISDIR(st.st_mode)) {
            if (it->path().filename() == "__pycache__") {
                it.disable_recursion_pending();
                continue;
            }
            if (::mkdir(target.c_str(), 0755) != 0)
                throw Error::input(target + ": cannot create the run's copy: " + errnoText(errno));
        } else if (S_ISLNK(st.st_mode)) {
            std::string link(size_t(st.st_size) + 1, '\0');
            const ssize_t n = ::readlink(abs.c_str(), link.data(), link.size());
            if (n < 0)
                throw Error::input(abs + ": cannot read the symlink to copy: " + errnoText(errno));
            link.resize(size_t(n));
            if (::symlink(link.c_str(), target.c_str()) != 0)
                throw Error::input(target + ": cannot create the run's copy: " + errnoText(errno));
        } else if (S_ISREG(st.st_mode)) {
            copyFile(abs, target, st);
        } // sockets, fifos: a pristine tree holds none (git has no such entries)
    }
    if (ec)
        throw Error::input(from + ": cannot read the tree to copy: " + ec.message());
}

void replaceAll(std::string &text, const std::string &from, const std::string &to)
{
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

} // namespace

struct TreeCopy::State
{
    std::string pristine;
    std::string path;
    ~State() { removeTreeCopy(path); }
};

TreeCopy TreeCopy::make(const std::string &pristine)
{
    std::string root = pristine;
    while (root.size() > 1 && root.back() == '/')
        root.pop_back();
    std::string pattern = root + ".run-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        throw Error::input(root + ": cannot create the run's copy next to it: " + errnoText(errno));
    ::chmod(pattern.c_str(), 0755); // mkdtemp's 0700 would differ from the pristine tree's
    TreeCopy copy;
    copy.m_state = std::make_shared<State>();
    copy.m_state->pristine = root;
    copy.m_state->path = pattern; // from here on, removed on every way out
    copyTree(root, pattern);
    return copy;
}

const std::string &TreeCopy::path() const
{
    static const std::string none;
    return m_state ? m_state->path : none;
}

const std::string &TreeCopy::pristine() const
{
    static const std::string none;
    return m_state ? m_state->pristine : none;
}

std::string TreeCopy::toCopy(const std::string &path) const
{
    if (!m_state)
        return path;
    const std::string &root = m_state->pristine;
    if (path == root)
        return m_state->path;
    if (path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/')
        return m_state->path + path.substr(root.size());
    return path;
}

std::string TreeCopy::toPristine(std::string text) const
{
    if (m_state)
        replaceAll(text, m_state->path, m_state->pristine);
    return text;
}

void removeTreeCopy(const std::string &dir)
{
    if (dir.empty())
        return;
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!ec)
        return;
    // A test made a directory of its copy read-only (or unsearchable): give them back.
    ::chmod(dir.c_str(), 0700);
    for (fs::recursive_directory_iterator
             it(dir, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
        if (it->is_directory(ec) && !it->is_symlink(ec))
            ::chmod(it->path().c_str(), 0700);
    }
    fs::remove_all(dir, ec);
}

} // namespace pw::core
