#pragma once

#include "ledger/LedgerProblem.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One path of fixture_digest.json: `"path": "sha256"`, or `"path": {"sha256":
// "…", "note": "why it changed"}` when a human explained a change (unknown keys kept).
struct FixtureDigestEntry
{
    std::string path;
    std::optional<std::string> sha256;
    std::optional<std::string> note;
    LedgerEntryInfo info;
};

struct FixtureDigestLedger
{
    static constexpr const char *kFileName = "fixture_digest.json";

    std::string file;
    std::vector<FixtureDigestEntry> entries; // file order

    // Throws Error::input "origin:line:column: message" for JSON that does not parse, a top
    // level that is not an object, or a path listed twice.
    static FixtureDigestLedger parse(const std::string &text, const std::string &origin);
    const FixtureDigestEntry *find(const std::string &path) const;

    // `text` (a ledger as loaded; empty for none) with `path` set to `sha256` (and `note`
    // when given), other paths and their unknown fields kept; written sorted by path, two
    // spaces of indent, a final newline (the layout reviewers read in diffs).
    static std::string set(const std::string &text, const std::string &origin,
                           const std::string &path, const std::string &sha256,
                           const std::optional<std::string> &note = std::nullopt);
    // A whole ledger from digests (path → sha256).
    static std::string format(const std::map<std::string, std::string> &digests);
};

} // namespace pw::core
