// WORKTREE revisions: the work tree read once, when the revision is resolved, into the
// in-memory object store (MemoryOdb.cpp). Everything done with the revision afterwards —
// the audit, the diff shown beside it, the ledger checks, the files a run materialises —
// reads that one snapshot, never the disk again, so none of them can see a file in another
// state than the others did.

#include "repo/GitError.h"
#include "repo/RepositoryImpl.h"
#include "util/Error.h"
#include "util/Files.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace pw::core::repo_detail {

namespace {

// `raw` through the filters git applies on the way into the object database (eol,
// ident), as `git hash-object --path` and git_repository_hashfile do.
std::string toOdb(git_repository *repo, const std::string &relPath, const std::string &raw)
{
    git_filter_list *rawFilters = nullptr;
    gitCheck(git_filter_list_load(&rawFilters, repo, nullptr, relPath.c_str(), GIT_FILTER_TO_ODB,
                                  GIT_FILTER_ALLOW_UNSAFE),
             "loading the filters of " + relPath);
    if (!rawFilters)
        return raw;
    git_buf out = GIT_BUF_INIT;
    const int rc = git_filter_list_apply_to_buffer(&out, rawFilters, raw.data(), raw.size());
    git_filter_list_free(rawFilters);
    if (rc < 0) {
        git_buf_dispose(&out);
        gitCheck(rc, "filtering " + relPath);
    }
    std::string filtered(out.ptr ? out.ptr : "", out.size);
    git_buf_dispose(&out);
    return filtered;
}

// The id git gives `bytes` as a blob (no filters).
std::string gitBlobHex(const std::string &bytes)
{
    git_oid id;
    gitCheck(git_odb_hash(&id, bytes.data(), bytes.size(), GIT_OBJECT_BLOB), "hashing");
    return git::oidToHex(&id);
}

git_oid writeBlob(git_repository *repo, const std::string &bytes, const std::string &relPath)
{
    git_oid id;
    gitCheck(git_blob_create_from_buffer(&id, repo, bytes.data(), bytes.size()),
             "keeping " + relPath);
    return id;
}

} // namespace

git::StatusListPtr workdirStatus(git_repository *repo)
{
    git_status_options opts;
    gitCheck(git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION), "status options");
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
                 GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    git_status_list *raw = nullptr;
    gitCheck(git_status_list_new(&raw, repo, &opts), "reading status");
    return git::StatusListPtr(raw);
}

std::set<std::string> changedWorkdirPaths(git_repository *repo)
{
    const git::StatusListPtr status = workdirStatus(repo);
    std::set<std::string> paths;
    auto add = [&paths](const git_diff_delta *delta) {
        if (!delta)
            return;
        for (const char *p : {delta->old_file.path, delta->new_file.path}) {
            if (p && *p && std::string_view(p).back() != '/') // '/' = a nested repository
                paths.insert(p);
        }
    };
    const size_t count = git_status_list_entrycount(status.get());
    for (size_t i = 0; i < count; ++i) {
        const git_status_entry *entry = git_status_byindex(status.get(), i);
        add(entry->head_to_index);
        add(entry->index_to_workdir);
    }
    return paths;
}

void snapshotWorktree(const RepoState &state, Revision &rev)
{
    git_repository *repo = state.get();
    absoluteWorkdirPath(repo, {}); // throws for a bare repository
    // HEAD's files, with every path the status names as it is on disk now: the listing
    // listFiles gave for WORKTREE before, but each changed file read exactly once.
    std::map<std::string, FileEntry> files;
    for (FileEntry &file : listTree(headTree(repo).get()))
        files.emplace(file.path, std::move(file));
    const std::set<std::string> changed = changedWorkdirPaths(repo);
    installMemoryOdb(state);
    std::map<std::string, std::string> raw; // path -> the bytes on disk, where not the blob's
    for (const std::string &path : changed) {
        const auto tracked = files.find(path);
        const uint32_t trackedMode = tracked == files.end() ? 0 : tracked->second.mode;
        const std::string abs = absoluteWorkdirPath(repo, path);
        struct stat st;
        if (!lstatIfPresent(abs, path, &st) || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
            if (tracked != files.end())
                files.erase(tracked);
            continue;
        }
        FileEntry entry{path, {}, kModeBlob};
        if (S_ISLNK(st.st_mode)) {
            entry.mode = kModeLink;
            const std::optional<std::string> target = readLinkTarget(abs, size_t(st.st_size) + 1);
            if (!target)
                throw Error::input(cannotBeRead(path, std::strerror(errno)));
            const git_oid id = writeBlob(repo, *target, path);
            entry.blob = git::oidToHex(&id);
        } else {
            FileRead read = readFileIfPresent(abs);
            if (read.status == FileRead::Status::Absent) { // gone since the status
                if (tracked != files.end())
                    files.erase(tracked);
                continue;
            }
            if (read.status != FileRead::Status::Read)
                throw Error::input(cannotBeRead(path, read.reason));
            std::string stored = toOdb(repo, path, read.bytes);
            const git_oid id = writeBlob(repo, stored, path);
            entry.blob = git::oidToHex(&id);
            if (stored != read.bytes)
                raw.emplace(path, std::move(read.bytes));
            entry.mode = workdirFileMode(state, st, trackedMode);
        }
        files[path] = std::move(entry);
    }

    // An unchanged file that git's filters turn into other bytes on checkout (eol=crlf,
    // ident) is on disk as those bytes, which is what runs and reads of WORKTREE always
    // got: kept too. Only such files are read (the attributes say which).
    for (const auto &[path, file] : files) {
        if (changed.count(path) || file.mode == kModeLink)
            continue;
        git_filter_list *smudge = nullptr;
        gitCheck(git_filter_list_load(&smudge, repo, nullptr, path.c_str(), GIT_FILTER_TO_WORKTREE,
                                      GIT_FILTER_ALLOW_UNSAFE),
                 "loading the filters of " + path);
        if (!smudge)
            continue;
        git_filter_list_free(smudge);
        FileRead read = readFileIfPresent(absoluteWorkdirPath(repo, path));
        if (read.status == FileRead::Status::Unreadable)
            throw Error::input(cannotBeRead(path, read.reason));
        if (read.status == FileRead::Status::Read && gitBlobHex(read.bytes) != file.blob)
            raw.emplace(path, std::move(read.bytes));
    }

    git_index *rawIndex = nullptr;
    gitCheck(git_index_new(&rawIndex), "reading the working tree");
    git::IndexPtr index(rawIndex);
    for (const auto &[path, file] : files) {
        git_index_entry entry;
        std::memset(&entry, 0, sizeof entry);
        entry.mode = file.mode;
        entry.path = path.c_str();
        entry.id = parseOid(file.blob, "blob");
        gitCheck(git_index_add(index.get(), &entry), "keeping " + path);
    }
    git_oid tree;
    gitCheck(git_index_write_tree_to(&tree, index.get(), repo), "reading the working tree");
    // The tree, and the disk bytes beside it: a filtered file saved with other line ends
    // keeps its blob, and must still make another snapshot.
    rev.snapshot = git::oidToHex(&tree);
    if (!raw.empty()) {
        std::string kept;
        for (const auto &[path, bytes] : raw)
            kept += path + '\0' + sha256Hex(bytes) + '\n';
        rev.snapshot += ':' + sha256Hex(kept, 16);
    }
    state.worktreeRaw[rev.snapshot] = std::move(raw);
}

git::TreePtr worktreeTree(const RepoState &state, const Revision &rev)
{
    const git_oid id = parseOid(rev.snapshot.substr(0, rev.snapshot.find(':')), "tree");
    if (state.worktreeRaw.count(rev.snapshot))
        return lookupTree(state.get(), id, rev.spec);
    // Resolved by another Repository instance (another thread): read the work tree here,
    // which must still be what that one read.
    Revision again = rev;
    snapshotWorktree(state, again);
    if (again.snapshot != rev.snapshot)
        throw Error::input(
            "WORKTREE: the working tree changed since it was read for this review; review it "
            "again");
    return lookupTree(state.get(), id, rev.spec);
}

const std::string *worktreeRawBytes(const RepoState &state, const Revision &rev,
                                    const std::string &path)
{
    const auto snapshot = state.worktreeRaw.find(rev.snapshot);
    if (snapshot == state.worktreeRaw.end())
        return nullptr;
    const auto file = snapshot->second.find(path);
    return file == snapshot->second.end() ? nullptr : &file->second;
}

} // namespace pw::core::repo_detail
