#pragma once

#include <string>

namespace pw::core {

// Where a review's ledgers live, resolved once from the `ledgerDir` the user gave
// (`--ledger-dir`; relative to the repository's work tree, or absolute; empty:
// ".patchwitness") — the one answer the audit, the ledger commands, the run engine and the
// workbench share.
struct LedgerLocation
{
    std::string dir;    // clean, no final '/'; absolute unless the repository is bare
    std::string prefix; // repository-relative "<dir>/"; empty when it lies outside the tree

    // Throws Error::input when the directory is the work tree's top.
    static LedgerLocation resolve(const std::string &workdir, const std::string &ledgerDir);

    bool insideRepository() const { return !prefix.empty(); }
    // False for a bare repository's relative directory: it names the trees' own, and there
    // is no work tree on disk to read it from or write it to (the cwd is not one).
    bool onDisk() const;
    // How messages name the directory's files: ".patchwitness/" or "/abs/ledgers/".
    std::string display() const { return prefix.empty() ? dir + "/" : prefix; }
    std::string path(const std::string &name) const { return dir + "/" + name; }
};

} // namespace pw::core
