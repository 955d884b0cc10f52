#pragma once

// Private to core/repo: the state behind Repository and the libgit2 helpers its
// source files (Repository.cpp, RepositoryFiles.cpp, RepositoryDiff.cpp,
// RepositoryMaterialize.cpp; PATCH revisions: PatchApply.cpp, PatchFile.cpp, MemoryOdb.cpp)
// share.

#include "repo/GitHandles.h"
#include "repo/PatchLimits.h"
#include "repo/Repository.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace pw::core {

namespace repo_detail {

// What a Repository holds; a namespace-level type so the helpers below can take it
// (Repository::Impl itself is private to the class).
struct RepoState
{
    git::RepositoryPtr repo;
    bool trustFileMode = true; // core.filemode: the executable bit on disk is meaningful
    // Set once a PATCH revision was applied: from then on the repository's object database
    // writes into memory and reads the real one through (see installMemoryOdb).
    mutable bool memoryOdb = false;
    // The cap the last PATCH revision was read with; applying it again (revisionTree of
    // a PATCH revision this instance no longer holds) reads the file with the same.
    mutable long long patchMaxBytes = kDefaultPatchMaxBytes;
    // WORKTREE snapshots this instance took (WorktreeSnapshot.cpp), by tree id: the bytes
    // on disk of each file whose blob went through git's filters (eol, ident) and so holds
    // other bytes; readFile and materialize give these, as the disk did.
    mutable std::map<std::string, std::map<std::string, std::string>> worktreeRaw;

    git_repository *get() const { return repo.get(); }
};

constexpr uint32_t kModeBlob = 0100644;
constexpr uint32_t kModeExecutable = 0100755;
constexpr uint32_t kModeLink = 0120000;

// Git's binary heuristic for diffs: a NUL byte within the first 8000 bytes.
bool containsNul(const char *data, size_t size);

git_oid parseOid(const std::string &hex, const std::string &what);
git::CommitPtr lookupCommit(git_repository *repo, const git_oid &id);
// `what` names the revision in the error.
git::TreePtr lookupTree(git_repository *repo, const git_oid &id, const std::string &what);
// The revision's tree; nullptr for an unborn WORKTREE (no commit: the empty tree). A
// PATCH revision this instance did not resolve is applied again from its file.
git::TreePtr revisionTree(const RepoState &state, const Revision &rev);
// HEAD's tree; nullptr when HEAD is unborn.
git::TreePtr headTree(git_repository *repo);

// Rejects absolute paths and "..": user paths stay inside the repository.
void checkRelativePath(const std::string &path);
std::string absoluteWorkdirPath(git_repository *repo, const std::string &relPath);

// A working-tree file as git would store it (blob id after filters, mode). nullopt when
// `relPath` is not a regular file or symlink on disk. `trackedMode` is the mode git
// already records for the path, used when core.filemode is false.
std::optional<FileEntry> hashWorkdirFile(const RepoState &impl, const std::string &relPath,
                                         uint32_t trackedMode);

// The target of the symlink `absPath` (git stores a symlink as it); nullopt when it
// cannot be read. `sizeHint`: st_size + 1 from its lstat.
std::optional<std::string> readLinkTarget(const std::string &absPath, size_t sizeHint);
// A regular working-tree file's mode as git records it: the executable bit on disk, or
// with core.filemode false the mode git already has for the path (`trackedMode`; 0: none).
uint32_t workdirFileMode(const RepoState &impl, const struct stat &st, uint32_t trackedMode);

// Every blob and symlink of `tree` (submodule commits skipped), in tree order.
std::vector<FileEntry> listTree(const git_tree *tree);

// WORKTREE revisions (WorktreeSnapshot.cpp) -------------------------------------

// The status of the working tree against HEAD and the index, untracked files included
// (ignored ones and submodules not): what isDirty and the snapshot read.
git::StatusListPtr workdirStatus(git_repository *repo);
// Paths that status mentions: anything that may differ from HEAD.
std::set<std::string> changedWorkdirPaths(git_repository *repo);
// Reads the working tree once into the in-memory object store: HEAD's files with every
// changed path as it is on disk (through git's filters), untracked files included,
// ignored ones not; sets `rev.snapshot` to that tree. The listing equals what the work tree
// gave file by file before (ids after filters, modes by core.filemode).
void snapshotWorktree(const RepoState &state, Revision &rev);
// A snapshot's tree; one this instance did not take is taken again here and must be the
// same (Error::input when the work tree changed since).
git::TreePtr worktreeTree(const RepoState &state, const Revision &rev);
// The bytes on disk of a snapshot's file when they are not its blob's, else null.
const std::string *worktreeRawBytes(const RepoState &state, const Revision &rev,
                                    const std::string &path);

// PATCH revisions ------------------------------------------------------------

bool isPatchSpec(const std::string &spec);

// One mail of a `git format-patch` series, or a whole diff file.
struct PatchMail
{
    std::string subject;                 // `Subject:` without "[PATCH n/m]"; empty when none
    std::vector<std::string_view> lines; // into the file's text, each with its '\n'
    size_t firstLine = 1;                // line of the file where the mail starts (1-based)
};

// The mails of a format-patch series that carry a diff, in order (a cover letter has
// none); a file that is not a mailbox is one mail. Empty when nothing looks like a diff.
std::vector<PatchMail> splitPatchMails(std::string_view content);
// One mail as a libgit2 diff. A plain unified diff (`diff -u`) gets the "diff --git"
// headers libgit2 needs; `isFile` says which name of a plain diff that names two files
// exists where it will apply; `stripCarriageReturns` turns CRLF line ends into LF. Throws
// Error::input "<where>: not a patch git can read: …" with libgit2's message, its line
// numbers turned into the file's, and "<where>: corrupt binary patch at line N: …" for a
// `GIT binary patch` block that fails findBinaryHunkProblem (`maxBytes` inflated at most),
// which libgit2 never sees.
git::DiffPtr parsePatchMail(const PatchMail &mail,
                            const std::function<bool(const std::string &)> &isFile,
                            const std::string &where, bool stripCarriageReturns,
                            long long maxBytes);
// Every line of the mail ends with CRLF: the file may have been converted as a whole.
bool hasCrlfLineEndings(const PatchMail &mail);
// Why libgit2 finds no patch in `content`.
std::string patchParseError(const std::string &content);

// From now on objects written through the repository (blobs and trees of applied
// patches) go to an in-memory backend; reads fall through to the real object database.
// The real database is only read: it never sees a write or a freshen (libgit2 touches
// the mtime of an object it is asked to write again), so `.git` stays as it was.
void installMemoryOdb(const RepoState &state);

// The patch file's bytes. Error::input naming the file when it is missing, not a regular
// file (a FIFO would block, a device never end) or larger than `maxBytes`.
std::string readPatchFile(const std::string &file, long long maxBytes);

// Applies the file that `spec` ("PATCH:<file>") names onto `base` (a commit) in memory;
// `maxBytes` caps the file and every binary hunk's inflated size.
Revision applyPatchFile(const RepoState &state, const std::string &spec, const Revision &base,
                        long long maxBytes);

} // namespace repo_detail

struct Repository::Impl : repo_detail::RepoState
{
};

} // namespace pw::core
