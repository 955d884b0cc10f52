// Repository: the files of a revision (git objects, or the disk for WORKTREE).

#include "repo/GitError.h"
#include "repo/Repository.h"
#include "repo/RepositoryImpl.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/ThreadRule.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace pw::core {

using namespace repo_detail;

namespace {

std::vector<FileEntry> listWorktree(const RepoState &impl)
{
    git_repository *repo = impl.get();
    absoluteWorkdirPath(repo, {}); // throws for a bare repository
    std::map<std::string, FileEntry> files;
    for (FileEntry &file : listTree(headTree(repo).get()))
        files.emplace(file.path, std::move(file));
    for (const std::string &path : changedWorkdirPaths(repo)) {
        const auto tracked = files.find(path);
        const uint32_t trackedMode = tracked == files.end() ? 0 : tracked->second.mode;
        if (auto onDisk = hashWorkdirFile(impl, path, trackedMode))
            files[path] = std::move(*onDisk);
        else if (tracked != files.end())
            files.erase(tracked);
    }
    std::vector<FileEntry> result;
    result.reserve(files.size());
    for (auto &[path, file] : files)
        result.push_back(std::move(file));
    return result;
}

std::optional<FileEntry> treeEntry(const RepoState &state, const Revision &rev,
                                   const std::string &path)
{
    git::TreePtr tree = revisionTree(state, rev);
    if (!tree)
        return std::nullopt;
    git_tree_entry *raw = nullptr;
    const int rc = git_tree_entry_bypath(&raw, tree.get(), path.c_str());
    if (rc == GIT_ENOTFOUND)
        return std::nullopt;
    gitCheck(rc, "looking up '" + path + "' at '" + rev.spec + "'");
    git::TreeEntryPtr entry(raw);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
        return std::nullopt;
    return FileEntry{path, git::oidToHex(git_tree_entry_id(entry.get())),
                     static_cast<uint32_t>(git_tree_entry_filemode(entry.get()))};
}

std::optional<FileEntry> worktreeEntry(const RepoState &impl, const std::string &path)
{
    git_repository *repo = impl.get();
    struct stat st;
    if (!lstatIfPresent(absoluteWorkdirPath(repo, path), path, &st) ||
        !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
        return std::nullopt;
    unsigned int flags = 0;
    gitCheck(git_status_file(&flags, repo, path.c_str()), "reading status of '" + path + "'");
    if (flags & GIT_STATUS_IGNORED)
        return std::nullopt;
    Revision head;
    head.spec = "HEAD";
    if (git_repository_head_unborn(repo) != 1) {
        git_oid id;
        gitCheck(git_reference_name_to_id(&id, repo, "HEAD"), "reading HEAD");
        head.commit = git::oidToHex(&id);
    }
    const auto tracked = treeEntry(impl, head, path);
    if (flags == GIT_STATUS_CURRENT && tracked)
        return tracked; // unchanged: git already knows its id
    return hashWorkdirFile(impl, path, tracked ? tracked->mode : 0);
}

std::string readDiskFile(git_repository *repo, const std::string &path)
{
    const std::string abs = absoluteWorkdirPath(repo, path);
    struct stat st;
    if (!lstatIfPresent(abs, path, &st))
        throw Error::input("'" + path + "' does not exist in the working tree");
    if (S_ISLNK(st.st_mode)) { // git stores a symlink as its target
        std::string target(static_cast<size_t>(st.st_size) + 256, '\0');
        const ssize_t n = ::readlink(abs.c_str(), target.data(), target.size());
        if (n < 0)
            throw Error::input("'" + path + "': cannot read symlink");
        target.resize(static_cast<size_t>(n));
        return target;
    }
    if (!S_ISREG(st.st_mode))
        throw Error::input("'" + path + "' is not a file in the working tree");
    FileRead read = readFileIfPresent(abs);
    if (read.status != FileRead::Status::Read)
        throw Error::input(cannotBeRead(path, read.status == FileRead::Status::Absent
                                                  ? std::string("it went away while read")
                                                  : read.reason));
    return std::move(read.bytes);
}

std::string blobContent(const git_blob *blob)
{
    return std::string(static_cast<const char *>(git_blob_rawcontent(blob)),
                       static_cast<size_t>(git_blob_rawsize(blob)));
}

} // namespace

std::vector<FileEntry> Repository::listFiles(const Revision &rev) const
{
    checkBlockingWorkAllowed("Repository::listFiles");
    std::vector<FileEntry> files =
        rev.readsDisk() ? listWorktree(*d) : listTree(revisionTree(*d, rev).get());
    std::sort(files.begin(), files.end(),
              [](const FileEntry &a, const FileEntry &b) { return a.path < b.path; });
    return files;
}

std::set<std::string> Repository::pathsAt(const Revision &rev) const
{
    checkBlockingWorkAllowed("Repository::pathsAt");
    std::set<std::string> paths;
    for (const FileEntry &f : listFiles(rev)) {
        for (size_t slash = f.path.find('/'); slash != std::string::npos;
             slash = f.path.find('/', slash + 1))
            paths.insert(f.path.substr(0, slash + 1)); // "src/": a directory, as guards say
        paths.insert(f.path);
    }
    return paths;
}

std::optional<FileEntry> Repository::entry(const Revision &rev, const std::string &path) const
{
    checkBlockingWorkAllowed("Repository::entry");
    checkRelativePath(path);
    return rev.readsDisk() ? worktreeEntry(*d, path) : treeEntry(*d, rev, path);
}

std::string Repository::readFile(const Revision &rev, const std::string &path) const
{
    checkBlockingWorkAllowed("Repository::readFile");
    checkRelativePath(path);
    if (rev.readsDisk())
        return readDiskFile(d->get(), path);
    const auto file = treeEntry(*d, rev, path);
    // A snapshot's file as the disk held it (its blob went through git's filters).
    if (const std::string *raw = rev.isSnapshot() ? worktreeRawBytes(*d, rev, path) : nullptr;
        raw && file)
        return *raw;
    if (!file)
        throw Error::input("'" + path + "' does not exist at '" + rev.spec + "'");
    return readBlob(file->blob);
}

std::string Repository::readBlob(const std::string &blobId) const
{
    checkBlockingWorkAllowed("Repository::readBlob");
    git_oid id;
    if (blobId.size() < 4 || blobId.size() > GIT_OID_HEXSZ ||
        git_oid_fromstrn(&id, blobId.c_str(), blobId.size()) < 0)
        throw Error::input("invalid blob id '" + blobId + "'");
    git_blob *raw = nullptr;
    gitCheck(git_blob_lookup_prefix(&raw, d->get(), &id, blobId.size()), "reading blob " + blobId);
    git::BlobPtr blob(raw);
    return blobContent(blob.get());
}

} // namespace pw::core
