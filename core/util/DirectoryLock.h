#pragma once

#include <chrono>
#include <string>

namespace pw::core {

// An exclusive advisory lock (flock(2)) on a directory, held while the object lives. Ledger
// writers take it on the ledger directory from the moment they re-read a file until its
// rename has landed, so two writers can never both pass the "unchanged on disk" check and
// then overwrite each other. The lock is on the directory itself: nothing is created beside
// the ledgers, and the kernel drops it when a writer dies (kill -9 leaves no stale lock).
class DirectoryLock
{
public:
    // How long a writer waits for another one before giving up.
    static constexpr std::chrono::milliseconds kDefaultWait{60000};

    // Creates `dir` when missing, then waits up to `wait` for the lock. Throws Error::input
    // when the directory cannot be created or opened ("cannot be read: Permission denied")
    // or another writer holds the lock for longer than `wait`.
    explicit DirectoryLock(const std::string &dir, std::chrono::milliseconds wait = kDefaultWait);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock &) = delete;
    DirectoryLock &operator=(const DirectoryLock &) = delete;

    const std::string &directory() const { return m_dir; }

private:
    std::string m_dir;
    int m_fd = -1;
};

} // namespace pw::core
