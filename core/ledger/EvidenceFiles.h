#pragma once

#include "ledger/QuarantineLedger.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

class FreezeCase;

// A record a freeze rests on, on its way from runs/ (scratch) into the ledger directory's
// tracked evidence/ (FreezeEvidence): the entry pins its path and sha256, so that the file
// a reviewer reads later is the one the run wrote.
struct EvidenceCopy
{
    std::string source; // the record as read (runs/…)
    std::string path;   // "evidence/<name>", relative to the ledger directory
    std::string sha256; // of `bytes`
    std::string bytes;
    bool present = false; // evidence/ holds these very bytes under `path` already
};

// The copies a freeze makes, and the reader validation uses to see them.
class EvidenceFiles
{
public:
    // Reads `source` and picks its place in `ledgerDir`/evidence/: its own file name, or
    // "<stem>-<12 hex of its sha256>.json" when a file of that name holds other bytes.
    // Throws Error::input when `source` cannot be read.
    static EvidenceCopy plan(const std::string &ledgerDir, const std::string &source);
    // The copies of the records `evidence` rests on (its attribution or matrix record, its
    // cells record), pinned in `entry` (evidence.record / .cells with their sha256). Throws
    // Error::input when the attribution record was never written (a run not recorded: its
    // record is the freeze's evidence) or cannot be read.
    static std::vector<EvidenceCopy> planFor(const std::string &ledgerDir,
                                             const FreezeCase &evidence, QuarantineEntry &entry);
    // Writes the copies the directory does not hold yet (looked at again now), each
    // atomically (creating evidence/); returns the files it created, for remove() when the
    // ledger write that follows is refused. Throws Error::input naming the file and why
    // when one cannot be written (what it had created is removed again).
    static std::vector<std::string> write(const std::string &ledgerDir,
                                          const std::vector<EvidenceCopy> &copies);
    // Removes files write() created (their freeze was not written after all).
    static void remove(const std::vector<std::string> &created);
    // Whether `path` names a file inside the ledger directory's evidence/: relative,
    // "evidence/<…>", no component "..", no backslash. Only such paths are ever read.
    static bool isEvidencePath(const std::string &path);
    // ValidationContext::readLedgerFile over `ledgerDir` on disk, with `pending` (copies a
    // freeze is about to write) served first.
    static std::function<std::optional<std::string>(const std::string &)>
    reader(const std::string &ledgerDir, std::vector<EvidenceCopy> pending = {});
};

} // namespace pw::core
