#pragma once

#include <map>
#include <string>
#include <vector>

namespace pw::core {

// Any ledger file as keyed entries of field → value text, for comparing two versions of it
// (the patch's ledger edits, the history across commits). Unknown fields take part like
// known ones: an edit is an edit whatever it touches.
struct SnapshotEntry
{
    std::string id; // test / node / journal id / fixture path; the file name for one-entry files
    int line = 0;
    std::map<std::string, std::string> fields; // key → value as written by toml++ / JSON
};

struct LedgerSnapshot
{
    std::string file;
    std::vector<SnapshotEntry> entries; // file order; a repeated id keeps its first entry

    const SnapshotEntry *find(const std::string &id) const;

    // By the file's name: quarantine.toml ([[quarantine]] by test), census_waiver.toml
    // ([[waiver]] by node), seed_journal.jsonl (rows by id), fixture_digest.json (by path);
    // any other TOML file (config.toml, property_budget.toml) is one entry of its top-level
    // keys, any other file one entry of its bytes. Throws Error::input when it does not parse.
    static LedgerSnapshot parse(const std::string &fileName, const std::string &text,
                                const std::string &origin);
};

struct EntryChange
{
    enum class Kind
    {
        Added,
        Removed,
        Edited,
        Renewed // a freeze whose expiry moved later (or that records a new renewal)
    };
    Kind kind = Kind::Edited;
    std::string id;
    int line = 0;                    // in the newer version (the older one for Removed)
    std::vector<std::string> fields; // changed fields (Edited, Renewed)
    std::string detail;              // "expires 2024-05-14 -> 2024-05-28; owner a -> b"
};

const char *entryChangeName(EntryChange::Kind kind); // "added", "removed", "edited", "renewed"

// What changed from `before` to `after`, in the order of `after` then removals.
std::vector<EntryChange> compareSnapshots(const LedgerSnapshot &before,
                                          const LedgerSnapshot &after);

} // namespace pw::core
