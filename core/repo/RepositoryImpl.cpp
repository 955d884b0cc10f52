#include "repo/RepositoryImpl.h"

#include "repo/GitError.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <iterator>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace pw::core::repo_detail {

bool containsNul(const char *data, size_t size)
{
    constexpr size_t kBytesToCheck = 8000; // GIT_FILTER_BYTES_TO_CHECK_NUL
    return data && std::memchr(data, '\0', std::min(size, kBytesToCheck)) != nullptr;
}

git_oid parseOid(const std::string &hex, const std::string &what)
{
    git_oid oid;
    if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, hex.c_str()) < 0)
        throw Error::input("invalid " + what + " id '" + hex + "'");
    return oid;
}

git::CommitPtr lookupCommit(git_repository *repo, const git_oid &id)
{
    git_commit *commit = nullptr;
    gitCheck(git_commit_lookup(&commit, repo, &id), "looking up commit " + git::oidToHex(&id));
    return git::CommitPtr(commit);
}

namespace {

git::TreePtr lookupTree(git_repository *repo, const git_oid &id, const std::string &what)
{
    git_tree *tree = nullptr;
    gitCheck(git_tree_lookup(&tree, repo, &id), "looking up tree of '" + what + "'");
    return git::TreePtr(tree);
}

// A PATCH revision's tree lives in the memory of the instance that applied it; any other
// instance applies the file again and insists on the same result.
git::TreePtr patchTree(const RepoState &state, const Revision &rev)
{
    const git_oid id = parseOid(rev.tree, "tree");
    git_tree *tree = nullptr;
    if (git_tree_lookup(&tree, state.get(), &id) == 0)
        return git::TreePtr(tree);
    git_error_clear();
    Revision base;
    base.spec = rev.commit;
    base.commit = rev.commit;
    const Revision again = applyPatchFile(state, rev.spec, base, state.patchMaxBytes);
    if (again.tree != rev.tree)
        throw Error::input(rev.patchFile + ": the patch file changed since '" + rev.spec +
                           "' was resolved; resolve it again");
    return lookupTree(state.get(), id, rev.spec);
}

} // namespace

git::TreePtr revisionTree(const RepoState &state, const Revision &rev)
{
    git_repository *repo = state.get();
    if (rev.isPatch())
        return patchTree(state, rev);
    if (!rev.isWorktree() && !rev.tree.empty())
        return lookupTree(repo, parseOid(rev.tree, "tree"), rev.spec);
    if (rev.commit.empty())
        return nullptr;
    git::CommitPtr commit = lookupCommit(repo, parseOid(rev.commit, "commit"));
    git_tree *tree = nullptr;
    gitCheck(git_commit_tree(&tree, commit.get()), "reading tree of '" + rev.spec + "'");
    return git::TreePtr(tree);
}

git::TreePtr headTree(git_repository *repo)
{
    if (git_repository_head_unborn(repo) == 1)
        return nullptr;
    git_object *object = nullptr;
    gitCheck(git_revparse_single(&object, repo, "HEAD^{tree}"), "reading HEAD's tree");
    return git::TreePtr(reinterpret_cast<git_tree *>(object));
}

void checkRelativePath(const std::string &path)
{
    if (path.empty() || path.front() == '/')
        throw Error::input("'" + path + "': expected a path relative to the repository root");
    for (const auto &part : std::filesystem::path(path)) {
        if (part == "..")
            throw Error::input("'" + path + "': path leaves the repository");
    }
}

std::string absoluteWorkdirPath(git_repository *repo, const std::string &relPath)
{
    const char *workdir = git_repository_workdir(repo);
    if (!workdir)
        throw Error::input(std::string(git_repository_path(repo)) +
                           ": bare repository has no working tree");
    return std::string(workdir) + relPath; // workdir ends with '/'
}

namespace {

std::optional<FileEntry> hashSymlink(const std::string &absPath, const std::string &relPath,
                                     size_t sizeHint)
{
    std::string target(sizeHint > 0 ? sizeHint : 256, '\0');
    for (;;) {
        const ssize_t n = ::readlink(absPath.c_str(), target.data(), target.size());
        if (n < 0)
            return std::nullopt;
        if (static_cast<size_t>(n) < target.size()) {
            target.resize(static_cast<size_t>(n));
            break;
        }
        target.resize(target.size() * 2);
    }
    git_oid oid;
    gitCheck(git_odb_hash(&oid, target.data(), target.size(), GIT_OBJECT_BLOB),
             "hashing symlink " + relPath);
    return FileEntry{relPath, git::oidToHex(&oid), kModeLink};
}

} // namespace

std::optional<FileEntry> hashWorkdirFile(const RepoState &impl, const std::string &relPath,
                                         uint32_t trackedMode)
{
    const std::string absPath = absoluteWorkdirPath(impl.get(), relPath);
    struct stat st;
    if (!lstatIfPresent(absPath, relPath, &st))
        return std::nullopt;
    if (S_ISLNK(st.st_mode))
        return hashSymlink(absPath, relPath, static_cast<size_t>(st.st_size) + 1);
    if (!S_ISREG(st.st_mode))
        return std::nullopt;
    // libgit2 would say "failed open - '…' is locked: Permission denied" (a harness error):
    // the file is the user's, so it is an input error with the plain sentence.
    if (::access(absPath.c_str(), R_OK) != 0)
        throw Error::input(cannotBeRead(relPath, std::strerror(errno)));
    git_oid oid;
    // as_path = relPath: the same filters (eol, ident…) `git hash-object --path` applies.
    gitCheck(git_repository_hashfile(&oid, impl.get(), absPath.c_str(), GIT_OBJECT_BLOB,
                                     relPath.c_str()),
             "hashing " + relPath);
    uint32_t mode = (st.st_mode & S_IXUSR) ? kModeExecutable : kModeBlob;
    if (!impl.trustFileMode && (trackedMode == kModeBlob || trackedMode == kModeExecutable))
        mode = trackedMode;
    else if (!impl.trustFileMode)
        mode = kModeBlob;
    return FileEntry{relPath, git::oidToHex(&oid), mode};
}

namespace {

int collectBlob(const char *root, const git_tree_entry *entry, void *payload)
{
    auto *files = static_cast<std::vector<FileEntry> *>(payload);
    if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB) {
        files->push_back(FileEntry{std::string(root) + git_tree_entry_name(entry),
                                   git::oidToHex(git_tree_entry_id(entry)),
                                   static_cast<uint32_t>(git_tree_entry_filemode(entry))});
    }
    return 0; // descend into trees; submodule commits are simply not collected
}

} // namespace

std::vector<FileEntry> listTree(const git_tree *tree)
{
    std::vector<FileEntry> files;
    if (tree)
        gitCheck(git_tree_walk(tree, GIT_TREEWALK_PRE, collectBlob, &files), "walking tree");
    return files;
}

} // namespace pw::core::repo_detail

// =======================================================================================
// PATCH revisions: a patch file applied onto a base commit in memory.

namespace pw::core::repo_detail {

std::string takeGitError()
{
    const git_error *last = git_error_last();
    std::string message = last && last->message ? last->message : "";
    git_error_clear();
    return message;
}

namespace {

const char kPatchPrefix[] = "PATCH:";
// New objects live in memory; the read-through backend below serves everything else.
constexpr int kMemoryPriority = 2;
constexpr int kReadThroughPriority = 1;

// ---------------------------------------------------------------------------------------
// The object database overlay

// Reads the repository's real object database and does nothing else: without write and
// freshen callbacks libgit2 can neither write into nor touch a file under .git/objects.
struct ReadThroughBackend
{
    git_odb_backend parent; // first member: libgit2 hands this pointer to the callbacks
    git_odb *source = nullptr;

    static git_odb *sourceOf(git_odb_backend *backend)
    {
        return reinterpret_cast<ReadThroughBackend *>(backend)->source;
    }
};

// libgit2 frees what a backend returns, so it is copied into a buffer libgit2 allocated
// (NUL-terminated like the loose and pack backends do).
int handOver(git_odb_backend *backend, git_odb_object *object, void **data, size_t *len,
             git_object_t *type)
{
    const size_t size = git_odb_object_size(object);
    auto *buffer = static_cast<char *>(git_odb_backend_data_alloc(backend, size + 1));
    if (buffer) {
        std::memcpy(buffer, git_odb_object_data(object), size);
        buffer[size] = '\0';
        *data = buffer;
        *len = size;
        *type = git_odb_object_type(object);
    }
    git_odb_object_free(object);
    return buffer ? 0 : -1;
}

int readThroughRead(void **data, size_t *len, git_object_t *type, git_odb_backend *backend,
                    const git_oid *id)
{
    git_odb_object *object = nullptr;
    const int rc = git_odb_read(&object, ReadThroughBackend::sourceOf(backend), id);
    return rc < 0 ? rc : handOver(backend, object, data, len, type);
}

int readThroughReadPrefix(git_oid *out, void **data, size_t *len, git_object_t *type,
                          git_odb_backend *backend, const git_oid *shortId, size_t length)
{
    git_odb_object *object = nullptr;
    const int rc =
        git_odb_read_prefix(&object, ReadThroughBackend::sourceOf(backend), shortId, length);
    if (rc < 0)
        return rc;
    git_oid_cpy(out, git_odb_object_id(object));
    return handOver(backend, object, data, len, type);
}

int readThroughReadHeader(size_t *len, git_object_t *type, git_odb_backend *backend,
                          const git_oid *id)
{
    return git_odb_read_header(len, type, ReadThroughBackend::sourceOf(backend), id);
}

int readThroughExists(git_odb_backend *backend, const git_oid *id)
{
    return git_odb_exists(ReadThroughBackend::sourceOf(backend), id);
}

int readThroughExistsPrefix(git_oid *out, git_odb_backend *backend, const git_oid *shortId,
                            size_t length)
{
    return git_odb_exists_prefix(out, ReadThroughBackend::sourceOf(backend), shortId, length);
}

int readThroughRefresh(git_odb_backend *backend)
{
    return git_odb_refresh(ReadThroughBackend::sourceOf(backend));
}

int readThroughForeach(git_odb_backend *backend, git_odb_foreach_cb cb, void *payload)
{
    return git_odb_foreach(ReadThroughBackend::sourceOf(backend), cb, payload);
}

void readThroughFree(git_odb_backend *backend)
{
    auto *self = reinterpret_cast<ReadThroughBackend *>(backend);
    git_odb_free(self->source);
    delete self;
}

// ---------------------------------------------------------------------------------------
// Applying

std::string patchFilePath(const std::string &spec)
{
    const std::string path = spec.substr(sizeof kPatchPrefix - 1);
    if (path.empty())
        throw Error::input("'" + spec + "' names no file: expected PATCH:<path of a patch file>");
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec)
        throw Error::input(path + ": " + ec.message());
    return absolute.lexically_normal().string();
}

// The mode of the file (blob or symlink) at `path`; nullopt when there is none.
std::optional<uint32_t> fileMode(const git_tree *tree, const std::string &path)
{
    git_tree_entry *raw = nullptr;
    if (path.empty() || git_tree_entry_bypath(&raw, tree, path.c_str()) < 0) {
        git_error_clear();
        return std::nullopt;
    }
    git::TreeEntryPtr entry(raw);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
        return std::nullopt;
    return static_cast<uint32_t>(git_tree_entry_filemode(entry.get()));
}

std::string oldPathOf(const git_diff_delta *delta)
{
    return delta->old_file.path ? delta->old_file.path : "";
}

std::string newPathOf(const git_diff_delta *delta)
{
    return delta->new_file.path ? delta->new_file.path : "";
}

// Where an error happened: the file, and for a series the mail.
struct PartContext
{
    std::string where;                          // "/x/fix.mbox: patch 2/3 ('subject')"
    std::string onto;                           // "'HEAD' (0123456789ab)" or "patch 1/3"
    long long maxBytes = kDefaultPatchMaxBytes; // `patch_max_bytes`
};

int noteBinaryWithoutData(const git_diff_delta *delta, const git_diff_binary *binary, void *payload)
{
    if (binary->contains_data)
        return 0;
    *static_cast<std::string *>(payload) =
        delta->status == GIT_DELTA_DELETED ? oldPathOf(delta) : newPathOf(delta);
    return 1; // stop: one is enough to refuse
}

// What libgit2 would get wrong or explain badly: a file added where one exists (the new
// lines would land on top of it), a file changed that is not there, and a binary change
// the patch carries no data for ("Binary files a/x and b/x differ").
void checkPart(git_diff *diff, const git_tree *tree, const PartContext &ctx)
{
    std::string binary;
    git_diff_foreach(diff, nullptr, noteBinaryWithoutData, nullptr, nullptr, &binary);
    git_error_clear();
    if (!binary.empty())
        throw Error::input(ctx.where + ": the binary change of '" + binary +
                           "' has no data in the patch (\"Binary files … differ\"); "
                           "make the patch with `git diff --binary` or `git format-patch`");

    const size_t count = git_diff_num_deltas(diff);
    std::set<std::string> removed, created;
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        if (delta->status == GIT_DELTA_DELETED || delta->status == GIT_DELTA_RENAMED)
            removed.insert(oldPathOf(delta));
    }
    const std::string prefix = ctx.where + ": does not apply to " + ctx.onto + ": '";
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        const std::string oldPath = oldPathOf(delta), newPath = newPathOf(delta);
        if (delta->status != GIT_DELTA_ADDED && !fileMode(tree, oldPath) && !created.count(oldPath))
            throw Error::input(prefix + oldPath + "' does not exist there");
        const bool creates = delta->status == GIT_DELTA_ADDED ||
                             delta->status == GIT_DELTA_COPIED ||
                             (delta->status == GIT_DELTA_RENAMED && newPath != oldPath);
        if (!creates)
            continue;
        if (created.count(newPath) || (fileMode(tree, newPath) && !removed.count(newPath)))
            throw Error::input(prefix + newPath + "' already exists there");
        created.insert(newPath);
    }
}

// The delta libgit2 is applying (apply_one calls delta_cb once per delta, in order).
struct CurrentDelta
{
    std::string path;
    size_t index = 0;
    size_t seen = 0;
};

int noteDelta(const git_diff_delta *delta, void *payload)
{
    auto *current = static_cast<CurrentDelta *>(payload);
    current->path = delta->status == GIT_DELTA_ADDED ? newPathOf(delta) : oldPathOf(delta);
    current->index = current->seen++;
    return 0;
}

// The file's line of each `GIT binary patch` block of the mail; the k-th binary delta of
// its diff is the k-th block.
std::vector<size_t> binaryBlockLines(const PatchMail &mail)
{
    std::vector<size_t> lines;
    for (size_t i = 0; i < mail.lines.size(); ++i) {
        std::string_view line = mail.lines[i];
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.remove_suffix(1);
        if (line == "GIT binary patch")
            lines.push_back(mail.firstLine + i);
    }
    return lines;
}

// The line of delta `index`'s binary block; 0 when it is not binary.
size_t binaryBlockLine(git_diff *diff, size_t index, const std::vector<size_t> &blockLines)
{
    size_t block = 0;
    for (size_t i = 0; i < index; ++i)
        block += (git_diff_get_delta(diff, i)->flags & GIT_DIFF_FLAG_BINARY) ? 1 : 0;
    const bool binary = index < git_diff_num_deltas(diff) &&
                        (git_diff_get_delta(diff, index)->flags & GIT_DIFF_FLAG_BINARY);
    return binary && block < blockLines.size() ? blockLines[block] : 0;
}

// A patch that does not state a mode (a 100% rename, a plain diff) leaves it as it was;
// libgit2 would make the file 100644.
void keepModes(git_index *index, git_diff *diff, const git_tree *tree)
{
    const size_t count = git_diff_num_deltas(diff);
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        if (delta->status == GIT_DELTA_DELETED || delta->status == GIT_DELTA_ADDED ||
            delta->new_file.mode != 0)
            continue;
        const auto mode = fileMode(tree, oldPathOf(delta));
        const std::string path = newPathOf(delta);
        const git_index_entry *current = git_index_get_bypath(index, path.c_str(), 0);
        if (!mode || !current || current->mode == *mode)
            continue;
        git_index_entry entry = *current;
        entry.path = path.c_str();
        entry.mode = *mode;
        gitCheck(git_index_add(index, &entry), "keeping the mode of '" + path + "'");
    }
}

// git apply checks a binary patch's result against the id its index line names: a
// literal damaged so that it still inflates to its size (or a delta relabelled a literal)
// would otherwise pass as the new content. The k-th binary delta is the mail's k-th
// `GIT binary patch` block.
void checkBinaryResults(git_diff *diff, git_index *index, const std::vector<size_t> &blockLines,
                        const PartContext &ctx)
{
    const size_t count = git_diff_num_deltas(diff);
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        if (!(delta->flags & GIT_DIFF_FLAG_BINARY))
            continue;
        const size_t line = binaryBlockLine(diff, i, blockLines);
        const size_t abbrev = delta->new_file.id_abbrev;
        if (delta->status == GIT_DELTA_DELETED || abbrev == 0)
            continue;
        const std::string path = newPathOf(delta);
        const git_index_entry *entry = git_index_get_bypath(index, path.c_str(), 0);
        if (!entry)
            continue;
        const std::string made = git::oidToHex(&entry->id).substr(0, abbrev);
        const std::string named = git::oidToHex(&delta->new_file.id).substr(0, abbrev);
        if (made != named)
            throw Error::input(ctx.where + ": corrupt binary patch" +
                               (line ? " at line " + std::to_string(line) : std::string()) +
                               ": applied, it makes '" + path + "' with id " + made + ", not the " +
                               named + " its index line names");
    }
}

git::TreePtr applyMailAsWritten(const RepoState &state, const PatchMail &mail, const git_tree *tree,
                                const PartContext &ctx, bool stripCr)
{
    git::DiffPtr diff = parsePatchMail(
        mail, [tree](const std::string &path) { return fileMode(tree, path).has_value(); },
        ctx.where, stripCr, ctx.maxBytes);
    checkPart(diff.get(), tree, ctx);

    git_apply_options opts;
    gitCheck(git_apply_options_init(&opts, GIT_APPLY_OPTIONS_VERSION), "apply options");
    const std::vector<size_t> blockLines = binaryBlockLines(mail);
    CurrentDelta current;
    opts.delta_cb = noteDelta;
    opts.payload = &current;
    git_error_clear();
    git_index *rawIndex = nullptr;
    // git_apply_to_tree wants a mutable tree but only reads it.
    if (git_apply_to_tree(&rawIndex, state.get(), const_cast<git_tree *>(tree), diff.get(), &opts) <
        0) {
        const std::string message = takeGitError();
        // A binary delta says nothing of where it is in the file; its block does.
        const size_t line =
            current.seen ? binaryBlockLine(diff.get(), current.index, blockLines) : 0;
        throw Error::input(ctx.where + ": does not apply to " + ctx.onto +
                           (current.path.empty() ? "" : ": '" + current.path + "'") +
                           (line ? " (binary patch at line " + std::to_string(line) + ")" : "") +
                           (message.empty() ? "" : ": " + message));
    }
    git::IndexPtr index(rawIndex);
    checkBinaryResults(diff.get(), index.get(), blockLines, ctx);
    keepModes(index.get(), diff.get(), tree);
    git_oid treeId;
    gitCheck(git_index_write_tree_to(&treeId, index.get(), state.get()),
             ctx.where + ": writing the patched tree");
    return lookupTree(state.get(), treeId, ctx.where);
}

git::TreePtr applyMail(const RepoState &state, const PatchMail &mail, const git_tree *tree,
                       const PartContext &ctx)
{
    try {
        return applyMailAsWritten(state, mail, tree, ctx, false);
    } catch (const Error &) {
        // A patch file with CRLF line ends throughout was converted as a whole (an editor,
        // a Windows checkout): undone, it may apply. Content that really has CRLF lines
        // applied above; when neither applies, the first error is the one to show.
        if (!hasCrlfLineEndings(mail))
            throw;
        const std::exception_ptr asWritten = std::current_exception();
        try {
            return applyMailAsWritten(state, mail, tree, ctx, true);
        } catch (const Error &) {
            std::rethrow_exception(asWritten);
        }
    }
}

} // namespace

bool isPatchSpec(const std::string &spec)
{
    return spec.starts_with(kPatchPrefix);
}

void installMemoryOdb(const RepoState &state)
{
    if (state.memoryOdb)
        return;
    const std::string context = "setting up the in-memory object database";
    git_odb *rawReal = nullptr;
    gitCheck(git_repository_odb(&rawReal, state.get()), context);
    git::OdbPtr real(rawReal);
    git_odb *rawOverlay = nullptr;
    gitCheck(git_odb_new(&rawOverlay), context);
    git::OdbPtr overlay(rawOverlay);

    git_odb_backend *memory = nullptr;
    gitCheck(git_mempack_new(&memory), context);
    int rc = git_odb_add_backend(overlay.get(), memory, kMemoryPriority);
    if (rc < 0)
        memory->free(memory);
    gitCheck(rc, context);

    auto *readThrough = new ReadThroughBackend();
    git_odb_init_backend(&readThrough->parent, GIT_ODB_BACKEND_VERSION);
    readThrough->parent.read = readThroughRead;
    readThrough->parent.read_prefix = readThroughReadPrefix;
    readThrough->parent.read_header = readThroughReadHeader;
    readThrough->parent.exists = readThroughExists;
    readThrough->parent.exists_prefix = readThroughExistsPrefix;
    readThrough->parent.refresh = readThroughRefresh;
    readThrough->parent.foreach = readThroughForeach;
    readThrough->parent.free = readThroughFree;
    readThrough->source = real.release();
    rc = git_odb_add_backend(overlay.get(), &readThrough->parent, kReadThroughPriority);
    if (rc < 0)
        readThroughFree(&readThrough->parent);
    gitCheck(rc, context);

    gitCheck(git_repository_set_odb(state.get(), overlay.get()), context);
    state.memoryOdb = true;
}

Revision applyPatchFile(const RepoState &state, const std::string &spec, const Revision &base,
                        long long maxBytes)
{
    const std::string file = patchFilePath(spec);
    if (base.isWorktree())
        throw Error::input("'" + spec + "': a patch applies onto a commit, not onto WORKTREE");
    if (base.isPatch())
        throw Error::input("'" + spec + "': the base of a patch cannot be another patch file");
    if (base.commit.empty())
        throw Error::input("'" + spec + "': the base has no commit to apply onto");

    state.patchMaxBytes = maxBytes;
    const std::string content = readPatchFile(file, maxBytes);
    if (content.find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error::input(file + ": the patch file is empty");
    const std::vector<PatchMail> mails = splitPatchMails(content);
    if (mails.empty())
        throw Error::input(file + ": not a patch (" + patchParseError(content) +
                           "); expected a unified diff, `git diff` or `git format-patch` output");

    installMemoryOdb(state);
    git::TreePtr tree = revisionTree(state, base);
    const size_t count = mails.size();
    for (size_t i = 0; i < count; ++i) {
        PartContext ctx;
        ctx.where = file;
        ctx.maxBytes = maxBytes;
        if (count > 1) {
            ctx.where += ": patch " + std::to_string(i + 1) + "/" + std::to_string(count);
            if (!mails[i].subject.empty())
                ctx.where += " ('" + mails[i].subject + "')";
        }
        ctx.onto = i > 0 ? "the result of patch " + std::to_string(i) + "/" + std::to_string(count)
                   : base.commit.starts_with(base.spec) // named by its id
                       ? "'" + shortId(base.commit) + "'"
                       : "'" + base.spec + "' (" + shortId(base.commit) + ")";
        tree = applyMail(state, mails[i], tree.get(), ctx);
    }

    Revision rev;
    rev.spec = kPatchPrefix + file;
    rev.kind = Revision::Kind::Patch;
    rev.commit = base.commit;
    rev.tree = git::oidToHex(git_tree_id(tree.get()));
    rev.patchFile = file;
    rev.subject = mails.back().subject.empty() ? std::filesystem::path(file).filename().string()
                                               : mails.back().subject;
    if (count > 1)
        rev.subject +=
            " (+" + std::to_string(count - 1) + " earlier patch" + (count > 2 ? "es" : "") + ")";
    return rev;
}

} // namespace pw::core::repo_detail
