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
    // atomically (creating evidence/), then calls `writeLedger`: no entry ever points to a
    // file that is not there. When a copy cannot be written (Error::input naming the file
    // and why) or `writeLedger` throws, the copies it created are removed again and the
    // exception goes on: nothing points to them.
    static void writeBefore(const std::string &ledgerDir, const std::vector<EvidenceCopy> &copies,
                            const std::function<void()> &writeLedger);
    // Whether `path` names a file inside the ledger directory's evidence/: relative,
    // "evidence/<…>", no component "..", no backslash. Only such paths are ever read.
    static bool isEvidencePath(const std::string &path);
    // ValidationContext::readLedgerFile over `ledgerDir` on disk, with `pending` (copies a
    // freeze is about to write) served first.
    static std::function<std::optional<std::string>(const std::string &)>
    reader(const std::string &ledgerDir, std::vector<EvidenceCopy> pending = {});
    // ValidationContext::readLedgerFile over the evidence files `ledger`'s freezes pin, read
    // now through `read` (a path relative to the ledger directory; nullopt: none) so that
    // the validator holds no repository. Only evidence paths are read; one whose read
    // throws Error is as good as gone.
    static std::function<std::optional<std::string>(const std::string &)>
    pinnedReader(const QuarantineLedger *ledger,
                 const std::function<std::optional<std::string>(const std::string &)> &read);
};

} // namespace pw::core
