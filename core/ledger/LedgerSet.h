#pragma once

#include "ledger/FixtureDigestLedger.h"
#include "ledger/LedgerProblem.h"
#include "ledger/PropertyBudget.h"
#include "ledger/QuarantineLedger.h"
#include "ledger/SeedJournal.h"
#include "ledger/WaiverLedger.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// The entry ledgers of one ledger directory, as one revision (or the disk) holds them. A
// file that is absent is nullopt; a file that does not parse is nullopt too and its error
// is in `loadProblems` (rule "parse", with file, line and column): one broken ledger
// never hides the others.
struct LedgerSet
{
    std::optional<QuarantineLedger> quarantine;
    std::optional<WaiverLedger> waivers;
    std::optional<SeedJournal> journal;
    std::optional<FixtureDigestLedger> fixtureDigest;
    std::optional<PropertyBudget> propertyBudget;
    std::vector<LedgerProblem> loadProblems;

    // The ledger file names, in the order they are read and reported.
    static const std::vector<std::string> &fileNames();

    // `read(name)` gives a file's bytes (nullopt: absent); `prefix` is put before each
    // name in problems and origins (".patchwitness/" for a repository's ledgers).
    static LedgerSet
    load(const std::function<std::optional<std::string>(const std::string &)> &read,
         const std::string &prefix);
    // The ledgers of a directory on disk; problems name the files by their paths. Throws
    // Error::input ("<file>: cannot be read: Permission denied") when a ledger file is there
    // but cannot be read, or the directory cannot be searched.
    static LedgerSet loadDirectory(const std::string &dir);

    // Parses one file into its slot by name (a name it does not know is ignored).
    void add(const std::string &name, const std::string &text, const std::string &origin);

    // Every test id the entries name as a substitute or a witness (for a head lookup).
    std::vector<std::string> referencedTests() const;
};

// The problem for a file that does not parse, from its Error::input text
// "origin:line:column: message".
LedgerProblem parseProblem(const std::string &file, const std::string &errorText);

} // namespace pw::core
