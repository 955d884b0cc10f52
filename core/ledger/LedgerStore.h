#pragma once

#include "util/DirectoryLock.h"

#include <memory>
#include <string>

namespace pw::core {

// One ledger file as it was loaded, written back atomically only when nobody changed it in
// between: the bytes read are remembered, and write() refuses — throwing
// Error::input, writing nothing — when the file on disk no longer holds them. Edits are
// computed from loaded() by the ledger types (which validate first), so a refused or
// invalid edit leaves the file byte-identical.
//
// Every write holds the ledger directory's lock (DirectoryLock) from its re-read through the
// rename, so of two writers at once one lands and the other is refused with the first's
// entry kept — never both "written". A command that reads, validates and writes at once
// opens the store with openForUpdate(): it holds the lock from the first read, so writers
// queue instead of being refused and every one of them lands.
class LedgerStore
{
public:
    // Reads `path` now; a file that does not exist loads as empty (and must still not exist
    // when writing). Throws Error::input when it exists but cannot be read, or when its
    // directory cannot be searched ("cannot be read: Permission denied").
    static LedgerStore open(const std::string &path);
    // Like open(), with the directory's lock taken before the read and kept until write()
    // has landed or the store is destroyed (the directory is created to be locked).
    static LedgerStore openForUpdate(const std::string &path,
                                     std::chrono::milliseconds wait = DirectoryLock::kDefaultWait);

    const std::string &path() const { return m_path; }
    const std::string &loaded() const { return m_loaded; }
    bool existed() const { return m_existed; }

    // Writes `bytes` (temporary file in the same directory, fsync, rename; the directory is
    // created when missing). Throws Error::input naming the file when it changed on disk
    // since it was loaded, when another writer holds the lock for too long, or when writing
    // fails; afterwards loaded() is `bytes`. `wait` bounds the wait for the lock (the
    // workbench waits briefly: its thread must not hang on another writer).
    void write(const std::string &bytes,
               std::chrono::milliseconds wait = DirectoryLock::kDefaultWait);

private:
    void load();

    std::string m_path;
    std::string m_loaded;
    bool m_existed = false;
    std::unique_ptr<DirectoryLock> m_lock;
};

} // namespace pw::core
