#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace pw::core {

// Writes history into a repository the way a person at a terminal would: init, stage the
// whole work tree, commit, branch, tag, switch. It builds the demo repository and the test
// fixtures; the audit itself only ever reads (Repository). Failures are thrown as GitError
// with libgit2's message. Not thread-safe: one instance per thread.
class RepoWriter
{
public:
    // `git init` at `path` (created with its parents when missing) with HEAD on the
    // unborn branch `initialBranch`.
    static RepoWriter init(const std::string &path, const std::string &initialBranch = "main");

    RepoWriter(RepoWriter &&) noexcept;
    RepoWriter &operator=(RepoWriter &&) noexcept;
    ~RepoWriter();

    std::string workdir() const; // absolute, without trailing '/'

    // Writes user.name/user.email into the repository's own config, so a `git commit` run
    // by hand in it later needs no global identity.
    void setIdentity(const std::string &name, const std::string &email);

    // Stages the whole work tree (additions, modifications, deletions; honours .gitignore)
    // and commits it on the current branch (a root commit when the branch is unborn), with
    // author = committer = `authorName <authorEmail>` at `time` (seconds since the epoch,
    // UTC). Returns the commit id (40 hex).
    std::string commitAll(const std::string &message, const std::string &authorName,
                          const std::string &authorEmail, int64_t time);

    // A branch at `commit` (any revision; empty: HEAD) without switching to it.
    void createBranch(const std::string &name, const std::string &commit = {});
    // Switches HEAD to an existing branch and force-checks-out its tree (untracked files
    // are kept).
    void checkout(const std::string &branch);
    // Points HEAD at a new, unborn branch (`git checkout --orphan`): the next commit is a
    // root commit; work tree and index are kept.
    void orphan(const std::string &branch);

    void tag(const std::string &name, const std::string &commit = {}); // lightweight
    void annotatedTag(const std::string &name, const std::string &message,
                      const std::string &taggerName, const std::string &taggerEmail, int64_t time,
                      const std::string &commit = {});

    std::string head() const; // current HEAD commit id

private:
    struct Impl;
    explicit RepoWriter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d;
};

} // namespace pw::core
