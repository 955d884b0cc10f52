#pragma once

#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace pw::core {

class Repository;
struct Revision;

// A revision materialised by TreeCache, held for as long as runs use it: while any
// MaterializedTree (or a copy) of a key lives, in this or another process, the cache
// neither rebuilds nor evicts that directory (a shared flock on `<key>.lock`).
class MaterializedTree
{
public:
    MaterializedTree() = default;

    const std::string &path() const { return m_path; } // absolute, no trailing '/'
    const std::string &key() const { return m_key; }
    bool rebuilt() const { return m_rebuilt; } // written by this acquire, not reused
    // `<key>.pyc`: its trusted bytecode (TreeBytecode), removed with the tree.
    std::string bytecodeDir() const { return m_path.empty() ? m_path : m_path + ".pyc"; }
    bool isNull() const { return m_path.empty(); }

private:
    friend class TreeCache;
    std::string m_path;
    std::string m_key;
    bool m_rebuilt = false;
    std::shared_ptr<void> m_lease; // releases the shared lock with the last copy
};

// Isolated copies of revisions for dynamic runs: `<root>/trees/<key>/`
// holds the revision's files, so pytest never runs in (or writes into) the reviewer's
// checkout. Key: the commit id; a PATCH head's tree id; for WORKTREE "wt-" + a hash of
// the listing (paths, blob ids, modes), so every state of the work tree is its own entry.
//
// Intact: `<key>.marker` is written last (a crash mid-write leaves none). On acquire the
// directory is checked by content against the revision's listing: every file's git blob
// id (hashed from the bytes on disk) must be the listing's id from the object database,
// with its type and executable bit, and nothing else may be there — no extra file, no
// extra directory, so no `__pycache__`, `.pyc` or `.pytest_cache`. Anything else (a file
// rewritten with its size and mtime kept, bytecode a run dropped, a deleted file) makes
// the tree rebuilt. Runs never get this directory writable: each works in its own copy
// (TreeCopy, `<key>.run-*` next to it), so a tree is pristine unless something outside
// patchwitness' runs wrote into it. Cost: one read and SHA-1 of every file per acquire
// (README, "The tree cache").
//
// Bounded: at most `maxTrees` entries; after each acquire the least recently used (the
// marker's mtime, touched on reuse) unheld ones are removed. Safe across threads and
// processes: rebuild and eviction take `<key>.lock` exclusively, leases share it.
class TreeCache
{
public:
    // `root` e.g. defaultRoot(); created on first use. `maxTrees` >= 1.
    explicit TreeCache(std::string root, int maxTrees = 8);

    // The user cache dir's "patchwitness" directory.
    static std::string defaultRoot();
    // The cache key of `rev` (lists the work tree for WORKTREE).
    static std::string keyFor(const Repository &repo, const Revision &rev);

    // The revision's files in an intact directory of the cache, reused when intact, else
    // (re)written. `repo` must be the calling thread's own instance (Repository is not
    // thread-safe). Throws Error::input when the cache cannot be written, Error::harness
    // when a tree this process still holds was changed (it cannot be rebuilt under a
    // run), or when another process holds the lock for longer than `lockTimeoutMs`. When
    // `stop` is requested it ends at the next file (writing, checking or waiting for the
    // lock) with Error::interrupted; a tree it was writing is removed, one it was checking
    // is left as it was.
    MaterializedTree acquire(const Repository &repo, const Revision &rev,
                             std::stop_token stop = {}) const;

    // Keys with a directory in the cache, most recently used first.
    std::vector<std::string> keys() const;

    const std::string &root() const { return m_root; }
    std::string treesDir() const { return m_root + "/trees"; }
    int maxTrees() const { return m_maxTrees; }
    void setLockTimeoutMs(int ms) { m_lockTimeoutMs = ms; }

private:
    static std::string commitKey(const Revision &rev);
    void evict(const std::string &keep) const;

    std::string m_root;
    int m_maxTrees;
    int m_lockTimeoutMs = 10 * 60 * 1000;
};

// Whether a run's copy of a cached tree (TreeCopy of `pristine`) holds exactly what the
// tree's marker lists, by content as acquire checks the tree: the copy is what the run's
// evidence starts from, and the pristine tree could have been written between the acquire
// and the copy (without the sandbox a test of another run can reach it). nullopt: it does,
// or `pristine` is no cached tree (no marker to check against); else what differs first
// ("pkg/mod.py: its content differs").
std::optional<std::string> copyDiffersFromTree(const std::string &pristine,
                                               const std::string &copy);

} // namespace pw::core
