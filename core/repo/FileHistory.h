#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pw::core {

// One commit that changed a file: what the file was after it (its path then, its blob;
// an empty blob when the commit deleted it) and who made it when.
struct FileVersion
{
    std::string commit;
    std::string path; // the file's path at this commit (it may have been renamed since)
    std::string blob; // 40-hex blob id after the commit; empty: deleted by the commit
    std::string author;
    std::string email;
    int64_t time = 0; // author time, seconds since the epoch
    std::string subject;
};

// The commits that changed one file (the ledger history): a libgit2 revwalk from a revision
// with a path filter — a commit counts when the file's blob differs from every parent
// (git's history simplification: a merge that took one side's version is not a change).
// Renames are followed the way `git log --follow` does: when a commit adds the path, a
// rename-detecting diff of that commit finds where the file came from and the walk goes
// on with the old path. Deletions are versions with an empty blob.
class FileHistory
{
public:
    // Newest first. `rev` is anything git resolves (default HEAD); an unborn HEAD has no
    // history. Throws Error (GitError) when the repository or revision cannot be opened.
    static std::vector<FileVersion> walk(const std::string &repoPath, const std::string &path,
                                         const std::string &rev = "HEAD");
};

} // namespace pw::core
