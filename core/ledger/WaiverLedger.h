#pragma once

#include "ledger/LedgerProblem.h"

#include <QDate>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One `[[waiver]]` of census_waiver.toml: a removed test node a human accepted.
struct WaiverEntry
{
    std::optional<std::string> node;
    std::optional<std::string> reason;  // obsolete-behavior | duplicate-coverage | environment
    std::optional<std::string> witness; // a test at head that covers the behaviour instead
    std::optional<std::string> approvedBy;
    std::optional<QDate> approvedOn;
    std::optional<std::string> note;
    LedgerEntryInfo info;

    std::string id() const; // the node, or "entry N"
};

struct WaiverLedger
{
    static constexpr const char *kFileName = "census_waiver.toml";
    static constexpr const char *kTable = "waiver";

    std::string file;
    std::vector<WaiverEntry> entries;

    // Throws Error::input "origin:line:column: message" when the TOML does not parse.
    static WaiverLedger parse(const std::string &text, const std::string &origin);
    const WaiverEntry *find(const std::string &node) const;

    static std::string format(const WaiverEntry &entry); // a `[[waiver]]` block
    static std::string append(const std::string &text, const WaiverEntry &entry);
};

} // namespace pw::core
