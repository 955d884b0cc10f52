#pragma once

#include "repo/PatchDiff.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// A revision the user named, resolved. SPEC §2: anything git accepts, `WORKTREE`
// (the working directory with uncommitted and untracked files) and `merge-base(A,B)`.
struct Revision
{
    enum class Kind
    {
        Commit,
        Worktree
    };
    std::string spec; // as given: "main", "HEAD~2", "WORKTREE", "merge-base(main,HEAD)"
    Kind kind = Kind::Commit;
    std::string commit;  // 40-hex; for WORKTREE the HEAD commit it sits on (empty when unborn)
    std::string tree;    // 40-hex tree id; empty for WORKTREE and unborn
    std::string subject; // first line of the commit message (empty for WORKTREE)

    bool isWorktree() const { return kind == Kind::Worktree; }
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
    std::string gitDir() const;
    bool isUnborn() const; // no commit yet
    bool isDirty() const;  // uncommitted or untracked (not ignored) changes

    Revision resolve(const std::string &spec) const;
    // SPEC §2 defaults: head = WORKTREE when dirty else HEAD; base = merge-base of head and
    // the upstream of the current branch, else origin/main, main, master (the first that
    // exists and differs from head), else head's first parent.
    Revision defaultHead() const;
    Revision defaultBase(const Revision &head) const;

    std::vector<RefInfo> refs() const;
    std::vector<CommitInfo> recentCommits(int max) const;

    // Every file of the revision (for WORKTREE: HEAD's files with the working
    // directory's changes applied, untracked non-ignored files included).
    std::vector<FileEntry> listFiles(const Revision &rev) const;
    std::optional<FileEntry> entry(const Revision &rev, const std::string &path) const;
    // Content of `path` at `rev` (WORKTREE: from disk). Throws Error::input when absent.
    std::string readFile(const Revision &rev, const std::string &path) const;
    std::string readBlob(const std::string &blobId) const;

    // Base→head diff. Cost follows the change: identical subtrees are not walked.
    PatchDiff diff(const Revision &base, const Revision &head, const DiffOptions &options) const;

private:
    struct Impl;
    explicit Repository(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d;
};

} // namespace pw::core
