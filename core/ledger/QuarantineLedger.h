#pragma once

#include "ledger/LedgerProblem.h"

#include <QDate>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// The attribution evidence behind a freeze: fail counts per tree, the mode
// (matched / swept / matrix), the seeds and the env digest the runs shared; and the
// records themselves, copied into the ledger directory's tracked `evidence/` when the
// freeze was granted, each with its sha256 ("the JSON is the evidence, the entry is the
// pointer"): the attribution or matrix record, and the cells record if one named the
// attribution.
struct FreezeEvidence
{
    static constexpr const char *kDir = "evidence"; // inside the ledger directory

    std::optional<long long> baseFail;
    std::optional<long long> headFail;
    std::optional<std::string> mode;
    std::optional<std::vector<long long>> seeds;
    std::optional<std::string> envDigest;    // key `env_digest`
    std::optional<std::string> record;       // "evidence/<file>.json", relative to the ledger dir
    std::optional<std::string> recordSha256; // key `record_sha256`
    std::optional<std::string> cells;        // "evidence/<file>.json": the cells record
    std::optional<std::string> cellsSha256;  // key `cells_sha256`
};

// One `[[quarantine]]` entry of quarantine.toml: a freeze. Every field is
// optional here because the file may lack it; LedgerValidator says which must be there.
struct QuarantineEntry
{
    std::optional<std::string> test;
    std::optional<std::string> owner;
    std::optional<QDate> opened;
    std::optional<QDate> expires;
    std::optional<std::string> verdict;     // must be PRE_EXISTING
    std::optional<std::string> attribution; // solo / order / isolate / clock / ...
    std::optional<long long> witnessSeed;
    std::optional<std::string> baselineSha;
    std::optional<FreezeEvidence> evidence;
    std::optional<std::string> obligation;
    std::optional<std::string> substitute;
    std::optional<std::vector<std::string>> guards;
    std::optional<std::string> replay;
    std::optional<QDate> lastReproduced;
    std::optional<std::string> note;
    // Written by the human actions (`--by`): who granted it, and the last renewal.
    std::optional<std::string> grantedBy;
    std::optional<QDate> renewed;
    std::optional<std::string> renewedBy;
    LedgerEntryInfo info;

    // The test id, or "entry N" when the entry names none.
    std::string id() const;
    // The day the current freeze period started: the last renewal, else `opened`.
    std::optional<QDate> periodStart() const { return renewed ? renewed : opened; }
};

// quarantine.toml. Reading keeps every entry (also those with problems) in file order;
// editing splices text into the file as loaded, so comments, unknown fields and other
// entries stay byte for byte.
struct QuarantineLedger
{
    static constexpr const char *kFileName = "quarantine.toml";
    static constexpr const char *kTable = "quarantine";

    std::string file; // origin, as named in problems
    std::vector<QuarantineEntry> entries;

    // Throws Error::input "origin:line:column: message" for TOML that does not parse (also
    // invalid UTF-8 and truncation) or a `quarantine` key that is not [[quarantine]].
    static QuarantineLedger parse(const std::string &text, const std::string &origin);

    const QuarantineEntry *find(const std::string &test) const;

    // The `[[quarantine]]` block for a new entry (fields in their documented order, evidence
    // inline).
    static std::string format(const QuarantineEntry &entry);
    // An inline table of `evidence`'s fields ("{ base_fail = 3, … }"; "{}" when none).
    static std::string evidenceText(const FreezeEvidence &evidence);
    // `text` with `entry` appended as a new block.
    static std::string append(const std::string &text, const QuarantineEntry &entry);

    struct Renewal
    {
        QDate renewed;
        QDate lastReproduced;
        QDate expires;
        std::string by;
    };
    // `text` with the first entry for `test` renewed in place (`renewed`, `renewed_by`,
    // `last_reproduced`, `expires` set; everything else untouched). Throws Error::input
    // when there is no such entry.
    static std::string renew(const std::string &text, const std::string &origin,
                             const std::string &test, const Renewal &renewal);
    // `text` with the freeze of `test` pointing to its evidence files: `pins`' record,
    // record_sha256, cells and cells_sha256 set in its `evidence` (the other fields and the
    // rest of the file untouched). Throws Error::input when there is no such freeze.
    static std::string pinEvidence(const std::string &text, const std::string &origin,
                                   const std::string &test, const FreezeEvidence &pins);
};

} // namespace pw::core
