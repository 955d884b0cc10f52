#pragma once

#include <string>

namespace pw::core {

// One ledger file as it was loaded, written back atomically only when nobody changed it in
// between (SPEC §6): the bytes read are remembered, and write() refuses — throwing
// Error::input, writing nothing — when the file on disk no longer holds them. Edits are
// computed from loaded() by the ledger types (which validate first), so a refused or
// invalid edit leaves the file byte-identical.
class LedgerStore
{
public:
    // Reads `path` now; a file that does not exist loads as empty (and must still not exist
    // when writing). Throws Error::input when it exists but cannot be read.
    static LedgerStore open(const std::string &path);

    const std::string &path() const { return m_path; }
    const std::string &loaded() const { return m_loaded; }
    bool existed() const { return m_existed; }

    // Writes `bytes` (temporary file in the same directory, fsync, rename; the directory is
    // created when missing). Throws Error::input naming the file when it changed on disk
    // since it was loaded, or when writing fails; afterwards loaded() is `bytes`.
    void write(const std::string &bytes);

private:
    std::string m_path;
    std::string m_loaded;
    bool m_existed = false;
};

} // namespace pw::core
