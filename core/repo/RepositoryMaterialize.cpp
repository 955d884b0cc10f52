// Repository::materialize: the files of a revision written into a directory of their own,
// so pytest can run on base and head without touching the reviewer's checkout.

#include "repo/GitError.h"
#include "repo/Repository.h"
#include "repo/RepositoryImpl.h"
#include "util/ThreadRule.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace pw::core {

using namespace repo_detail;

namespace {

namespace fs = std::filesystem;

std::string errnoText(int error)
{
    return std::strerror(error);
}

// One file written with its mode; the bytes are what git stores (no checkout filters).
void writeEntry(const std::string &target, const std::string &bytes, uint32_t mode)
{
    if (mode == kModeLink) {
        if (::symlink(bytes.c_str(), target.c_str()) != 0)
            throw Error::input(target + ": cannot create symlink: " + errnoText(errno));
        return;
    }
    const mode_t perms = mode == kModeExecutable ? 0755 : 0644;
    // O_EXCL|O_NOFOLLOW: never write through something that was there before.
    const int fd =
        ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, perms);
    if (fd < 0)
        throw Error::input(target + ": cannot create file: " + errnoText(errno));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int error = errno;
            ::close(fd);
            throw Error::input(target + ": cannot write: " + errnoText(error));
        }
        done += static_cast<size_t>(n);
    }
    ::fchmod(fd, perms); // the umask must not drop the executable bit git records
    if (::close(fd) != 0)
        throw Error::input(target + ": cannot write: " + errnoText(errno));
}

std::string blobBytes(git_repository *repo, const FileEntry &file)
{
    const git_oid id = parseOid(file.blob, "blob");
    git_blob *raw = nullptr;
    gitCheck(git_blob_lookup(&raw, repo, &id), "reading '" + file.path + "'");
    git::BlobPtr blob(raw);
    return std::string(static_cast<const char *>(git_blob_rawcontent(blob.get())),
                       static_cast<size_t>(git_blob_rawsize(blob.get())));
}

} // namespace

std::vector<FileEntry> Repository::materialize(const Revision &rev, const std::string &dir,
                                               std::stop_token stop) const
{
    checkBlockingWorkAllowed("Repository::materialize");
    std::vector<FileEntry> files = listFiles(rev);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw Error::input(dir + ": cannot create directory: " + ec.message());
    const std::string root = dir.empty() || dir.back() == '/' ? dir : dir + "/";
    for (const FileEntry &file : files) {
        if (stop.stop_requested())
            throw Error::interrupted("materialising " + rev.spec + " into " + dir + " stopped");
        checkRelativePath(file.path);
        const std::string target = root + file.path;
        const fs::path parent = fs::path(target).parent_path();
        fs::create_directories(parent, ec);
        if (ec)
            throw Error::input(parent.string() + ": cannot create directory: " + ec.message());
        // WORKTREE files as the disk held them when the revision was read (readFile: a
        // filtered file's bytes on disk, a symlink as its target, the way git stores it);
        // every other revision's from the object database.
        const std::string bytes =
            rev.isWorktree() ? readFile(rev, file.path) : blobBytes(d->get(), file);
        writeEntry(target, bytes, file.mode);
    }
    return files;
}

} // namespace pw::core
