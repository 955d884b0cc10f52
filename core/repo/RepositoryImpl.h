#pragma once

// Private to core/repo: the state behind Repository and the libgit2 helpers its
// source files (Repository.cpp, RepositoryFiles.cpp, RepositoryDiff.cpp) share.

#include "repo/GitHandles.h"
#include "repo/Repository.h"

#include <optional>
#include <string>
#include <vector>

namespace pw::core {

namespace repo_detail {

// What a Repository holds; a namespace-level type so the helpers below can take it
// (Repository::Impl itself is private to the class).
struct RepoState
{
    git::RepositoryPtr repo;
    bool trustFileMode = true; // core.filemode: the executable bit on disk is meaningful

    git_repository *get() const { return repo.get(); }
};

constexpr uint32_t kModeBlob = 0100644;
constexpr uint32_t kModeExecutable = 0100755;
constexpr uint32_t kModeLink = 0120000;

// Git's binary heuristic for diffs: a NUL byte within the first 8000 bytes.
bool containsNul(const char *data, size_t size);

git_oid parseOid(const std::string &hex, const std::string &what);
git::CommitPtr lookupCommit(git_repository *repo, const git_oid &id);
// The revision's tree; nullptr for an unborn WORKTREE (no commit: the empty tree).
git::TreePtr revisionTree(git_repository *repo, const Revision &rev);
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

// Every blob and symlink of `tree` (submodule commits skipped), in tree order.
std::vector<FileEntry> listTree(const git_tree *tree);

} // namespace repo_detail

struct Repository::Impl : repo_detail::RepoState
{
};

} // namespace pw::core
