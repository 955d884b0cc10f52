#pragma once

#include "repo/PatchDiff.h"
#include "repo/PatchLimits.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

namespace pw::core {

// A revision the user named, resolved: anything git accepts, `WORKTREE`
// (the working directory with uncommitted and untracked files) and `merge-base(A,B)`;
// `PATCH:<file>`, a patch file applied onto a base commit in memory.
//
// A PATCH revision's tree exists only in the memory of the Repository instance that
// resolved it (nothing is written into the repository). Another instance handed such a
// Revision re-applies `patchFile` onto `commit` and throws Error::input when the file
// no longer gives the same tree.
struct Revision
{
    enum class Kind
    {
        Commit,
        Worktree,
        Patch
    };
    // As given: "main", "HEAD~2", "WORKTREE", "merge-base(main,HEAD)"; for PATCH always
    // "PATCH:" + the absolute path of the file.
    std::string spec;
    Kind kind = Kind::Commit;
    // 40-hex; for WORKTREE the HEAD commit it sits on (empty when unborn); for PATCH the
    // base commit the patch applies onto.
    std::string commit;
    std::string tree; // 40-hex tree id (PATCH: the in-memory result); empty for WORKTREE and unborn
    // WORKTREE: the in-memory tree the work tree was read into (Repository::snapshot; its
    // id, then ":" and a digest of filtered files' disk bytes when there are any), which every
    // later read of the revision gives (another Repository reads the work tree again and
    // refuses a change); empty: the disk is read live.
    std::string snapshot;
    // First line of the commit message (empty for WORKTREE); for PATCH the mail's
    // `Subject:` without "[PATCH n/m]", else the file name.
    std::string subject;
    std::string patchFile; // PATCH only: absolute path of the patch file

    bool isWorktree() const { return kind == Kind::Worktree; }
    bool isPatch() const { return kind == Kind::Patch; }
    // WORKTREE not read into a snapshot: every read of it goes to the disk.
    bool readsDisk() const { return isWorktree() && snapshot.empty(); }
    // WORKTREE read once (Repository::snapshot).
    bool isSnapshot() const { return isWorktree() && !snapshot.empty(); }
};

struct FileEntry
{
    std::string path; // '/'-separated, relative to the repository root
    std::string blob; // 40-hex blob id (for WORKTREE files: the id git would give them)
    uint32_t mode = 0;
};

struct RefInfo
{
    enum class Kind
    {
        Branch,
        RemoteBranch,
        Tag
    };
    Kind kind = Kind::Branch;
    std::string name; // short name: "main", "origin/main", "v1.0"
    std::string commit;
};

// `git describe --tags --long --match '*[0-9]*'` of a commit: how builds that take their
// version from git (setuptools_scm, hatch-vcs) see it.
struct TagDistance
{
    std::string tag;     // nearest tag (annotated or not) whose name holds a digit; "": none
    int distance = 0;    // commits from the tag to the commit; without a tag, all its commits
    std::string shortId; // the commit's first 7 hex digits
};

struct CommitInfo
{
    std::string commit;
    std::string subject;
    std::string author;
    int64_t time = 0; // seconds since the epoch
};

// One opened git repository (libgit2). Not thread-safe: use one instance per thread.
// Every failure is thrown as pw::core::Error (GitError carries libgit2's message); a
// user mistake (not a repository, unknown revision) is Error::Kind::Input.
class Repository
{
public:
    // Opens the repository containing `path` (the path may be a subdirectory).
    static Repository open(const std::string &path);

    Repository(Repository &&) noexcept;
    Repository &operator=(Repository &&) noexcept;
    ~Repository();

    std::string workdir() const; // absolute, without trailing '/'; empty for a bare repository
    std::string gitDir() const;  // HEAD and index: `.git`, or `.git/worktrees/<name>`
    // Refs and objects: the main work tree's `.git` (gitDir() but for a linked worktree).
    std::string commonDir() const;
    // git config `user.name` as git would read it for this repository (repository, then
    // global and system config); empty when unset.
    std::string userName() const;
    bool isUnborn() const; // no commit yet
    bool isDirty() const;  // uncommitted or untracked (not ignored) changes
    // No work tree: core.bare, or a git directory without a work tree of its own (git's
    // rule; libgit2 alone would take the directory above it for one).
    bool isBare() const;
    // A clone never checked out (`git clone --no-checkout`): HEAD has files, the index and
    // the work tree none. Dirty, but not the reviewer's uncommitted work.
    bool isNothingCheckedOut() const;

    // Any revision but PATCH:<file>, which needs a base (Error::input says so). WORKTREE
    // is the disk, read live by every call that takes it.
    Revision resolve(const std::string &spec) const;
    // `worktree` (WORKTREE) read once into memory: HEAD's files with every changed one as
    // it is on disk now, untracked included, ignored not (the listing the disk gives).
    // Every later read of the returned revision through this instance gives those bytes,
    // whatever happens on disk; another instance reads the work tree again on first use
    // and refuses (Error::input) a work tree that changed. The changed files' bytes stay in
    // memory as long as this instance. What a review takes (PreparedReview::prepare).
    Revision snapshot(const Revision &worktree) const;
    // `PATCH:<file>` (absolute, or relative to the current directory): a unified diff,
    // `git diff` or `git format-patch` output applied onto `base` (a commit) in memory;
    // the repository is not modified. A format-patch series (several mails) is applied
    // mail by mail, in order, like `git am`. Every problem with the file (missing, not a
    // patch, does not apply, binary patch without data) is Error::input naming the file.
    // The file must be a regular file of at most `maxBytes` (config `patch_max_bytes`),
    // which also caps what one binary hunk may inflate to; binary hunks are checked
    // (base85, deflate, sizes) before libgit2 applies them.
    Revision resolvePatch(const std::string &spec, const Revision &base,
                          long long maxBytes = kDefaultPatchMaxBytes) const;
    // resolvePatch for a PATCH spec, else resolve: how a head is named next to its base.
    Revision resolveHead(const std::string &spec, const Revision &base,
                         long long maxBytes = kDefaultPatchMaxBytes) const;
    static bool isPatchSpec(const std::string &spec); // starts with "PATCH:"
    // The defaults: head = WORKTREE when dirty else HEAD (always HEAD in a bare repository
    // and in a clone with nothing checked out); base = merge-base of head and
    // the upstream of the current branch, else origin/main, main, master (the first that
    // exists and differs from head), else head's first parent. A PATCH head's base is the
    // commit it was applied onto.
    Revision defaultHead() const;
    Revision defaultBase(const Revision &head) const;

    std::vector<RefInfo> refs() const;
    std::vector<CommitInfo> recentCommits(int max) const;
    // `commit` (40-hex) described by its nearest tag; Error::input for an unknown commit.
    TagDistance describe(const std::string &commit) const;

    // Every file of the revision (for WORKTREE: HEAD's files with the working
    // directory's changes applied, untracked non-ignored files included).
    std::vector<FileEntry> listFiles(const Revision &rev) const;
    std::optional<FileEntry> entry(const Revision &rev, const std::string &path) const;
    // Every path of the revision: its files and the directories that hold them, these with
    // a final '/' ("src/", "src/pkg/", "src/pkg/mod.py"), as a freeze's guards name them.
    std::set<std::string> pathsAt(const Revision &rev) const;
    // Content of `path` at `rev` (WORKTREE: from disk). Throws Error::input when absent.
    std::string readFile(const Revision &rev, const std::string &path) const;
    // `blobId` may be abbreviated, except for blobs that only a PATCH revision made.
    std::string readBlob(const std::string &blobId) const;
    // Writes every file of `rev` (as listFiles) into `dir`, created when missing and
    // expected empty: blobs from the object database (PATCH: from memory), WORKTREE files
    // from the disk; symlinks as symlinks, the executable bit as git records it; bytes as
    // git stores them (no checkout filters); no `.git`. The repository and its working
    // tree are only read. Returns the files written; an unwritable `dir` is Error::input.
    // When `stop` is requested it ends before the next file with Error::interrupted,
    // leaving what it wrote (the caller removes the directory).
    std::vector<FileEntry> materialize(const Revision &rev, const std::string &dir,
                                       std::stop_token stop = {}) const;

    // Base→head diff. Cost follows the change: identical subtrees are not walked.
    PatchDiff diff(const Revision &base, const Revision &head, const DiffOptions &options) const;

private:
    struct Impl;
    explicit Repository(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d;
};

} // namespace pw::core
