#pragma once

#include "ledger/LedgerProblem.h"

#include <QDate>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One replay recorded against a journal row: its outcome ("pass", "fail", ...) and the
// env digest it ran under (runs with different digests are never compared).
struct JournalReplay
{
    std::optional<std::string> outcome;
    std::optional<std::string> env;
    int line = 0;
};

// One row of seed_journal.jsonl: a failing seed under investigation.
struct JournalRow
{
    std::optional<std::string> id; // a string or an integer in the file
    bool hasSeed = false;          // `seed` is required but may be null
    std::optional<long long> seed;
    std::optional<std::string> env;    // env digest
    std::optional<std::string> status; // open | closed
    std::optional<QDate> opened;
    std::optional<std::string> closedBy;
    std::optional<QDate> closedOn;
    std::optional<std::vector<JournalReplay>> replays; // oldest first
    LedgerEntryInfo info;                              // line = the row's line

    std::string key() const; // the id, or "row N"
    bool isOpen() const { return status == "open"; }
};

// seed_journal.jsonl: one JSON object per line; blank lines are allowed. Editing replaces
// only the line of the row that changes (unknown fields of that row kept, in order).
struct SeedJournal
{
    static constexpr const char *kFileName = "seed_journal.jsonl";

    std::string file;
    std::vector<JournalRow> rows;

    // Throws Error::input "origin:line:column: message" for a line that is not a JSON
    // object (truncated, invalid UTF-8, ...). Fields of the wrong type are row problems.
    static SeedJournal parse(const std::string &text, const std::string &origin);
    const JournalRow *find(const std::string &id) const;

    // `text` with the row `id` closed: status "closed", `closed_by`, `closed_on`. Throws
    // Error::input when there is no such row or it is not open.
    static std::string closeRow(const std::string &text, const std::string &origin,
                                const std::string &id, const std::string &by, const QDate &on);
    // One line (without newline) for a new row, and `text` with it appended.
    static std::string formatRow(const JournalRow &row);
    static std::string append(const std::string &text, const JournalRow &row);
};

} // namespace pw::core
