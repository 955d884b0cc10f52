#pragma once

#include <QDate>
#include <cstdint>
#include <string>
#include <vector>

namespace pw::core {

// One event in the life of a ledger entry (the ledger history: added, renewed, expired, removed).
struct LedgerEvent
{
    enum class Kind
    {
        Added,
        Renewed,
        Edited,
        Expired,   // a freeze's expiry passed while that version was in force
        Removed,   // the entry (or the whole file) was removed
        Unreadable // this version of the file does not parse; entries compare across it
    };
    Kind kind = Kind::Edited;
    std::string file;  // path of the ledger file at that commit
    std::string entry; // test / node / id (empty for Unreadable)
    std::string commit;
    std::string author;
    int64_t time = 0;   // commit author time; for Expired the expiry day (00:00 UTC)
    std::string detail; // changed fields "expires 2024-05-14 -> 2024-05-28", or the parse error
};

const char *ledgerEventName(LedgerEvent::Kind kind); // "added", "renewed", ...

// Per-entry events of one ledger file across its history: FileHistory (revwalk with a path
// filter, renames followed, deletions included) and, for each version, the entry changes
// against the previous readable version. `Expired` events are derived: a freeze expires on
// its `expires` day when that day came before the next version changed it (or before
// `today` for the version at `rev`); they carry the commit of the version that set it.
class LedgerHistory
{
public:
    // Oldest first. `ledgerPath` is repository-relative (".patchwitness/quarantine.toml").
    static std::vector<LedgerEvent> of(const std::string &repoPath, const std::string &ledgerPath,
                                       const QDate &today, const std::string &rev = "HEAD");
    // Events of the ledger files of a ledger directory, merged by time.
    static std::vector<LedgerEvent> ofDirectory(const std::string &repoPath,
                                                const std::string &ledgerDir, const QDate &today,
                                                const std::string &rev = "HEAD");
    // Only the events of one entry (its exact id; a test id also matches "path::name[...]").
    static std::vector<LedgerEvent> forEntry(const std::vector<LedgerEvent> &events,
                                             const std::string &entry);
};

} // namespace pw::core
