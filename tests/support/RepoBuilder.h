#pragma once

#include <QTemporaryDir>
#include <string>

namespace pw::test {

// Builds real git repositories (libgit2) in a temporary directory so each test case is a
// base commit and a head. Every failure fails the test through QFAIL-style exceptions
// (std::runtime_error with libgit2's message) — a broken fixture must never pass.
class RepoBuilder
{
public:
    RepoBuilder(); // `git init` with branch "main", user "Test <t@example.com>"
    explicit RepoBuilder(const QString &dir); // init in an existing empty directory
    ~RepoBuilder();

    std::string root() const; // absolute path of the work tree, no trailing '/'

    void write(const std::string &path, const std::string &content); // creates directories
    void remove(const std::string &path);
    void rename(const std::string &from, const std::string &to);
    std::string read(const std::string &path) const;

    // Stages the whole work tree (additions, modifications, deletions; honours
    // .gitignore) and commits on the current branch. Returns the commit id (40 hex).
    std::string commit(const std::string &message);
    // Creates a branch at HEAD (or at `commit`) without switching to it.
    void branch(const std::string &name, const std::string &commit = {});
    // Switches HEAD to an existing branch and force-checks-out its tree.
    void checkout(const std::string &branch);
    // Points HEAD at a new, unborn branch (`git checkout --orphan`): the next commit is a
    // root commit of an unrelated history; work tree and index are kept.
    void orphan(const std::string &branch);
    void tag(const std::string &name, const std::string &commit = {}); // lightweight
    // An annotated tag object (`git tag -a name -m message`) at HEAD or `commit`.
    void annotatedTag(const std::string &name, const std::string &message,
                      const std::string &commit = {});
    std::string head() const; // current HEAD commit id

private:
    QTemporaryDir m_tmp;
    std::string m_root;
    struct Git;
    Git *m_git = nullptr;
};

} // namespace pw::test
