#pragma once

#include "execution/JUnitReader.h"
#include "execution/JsonLines.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One test's skip witness, as the bundled plugin writes it (--pw-witness,
// one JSON line per test): what the test depends on, so a patch that touches none of it
// may skip the test.
struct WitnessRow
{
    std::string nodeId;
    // Project files (relative to the tree root) it touched: test file, conftest files on
    // its path, files whose code ran, modules its test module imports. Empty and
    // !hasFiles for a collect-only row.
    std::vector<std::string> files;
    bool hasFiles = false;
    std::vector<std::string> fixtures;             // the fixture closure
    std::map<std::string, std::string> fixtureFps; // fixture → fingerprint of its source
    std::string fixtureFp;                         // over all of them
    std::string ambientFp;              // TZ, LANG, LC_ALL, PYTHONHASHSEED, SOURCE_DATE_EPOCH
    bool complete = true;               // no subprocess/socket/http use
    std::vector<std::string> escapes;   // why not complete ("subprocess", "socket", …)
    std::optional<Outcome> baseOutcome; // the witness run's outcome (stored ledgers only)
    int line = 0;                       // 1-based line in the JSONL file
};

using WitnessRowsFile = JsonLinesFile<WitnessRow>;

// Reads the JSONL back like readOutcomeRows (parseJsonLines): the last line of a killed
// run may be torn and is ignored; any other line that is not an object with a string
// "nodeid" and the fingerprints is an error naming file:line, and then no rows are returned.
WitnessRowsFile parseWitnessRows(const std::string &text, const std::string &name);
WitnessRowsFile readWitnessRows(const std::string &path);

// The witness of a base tree (schema patchwitness.witness/1), kept in patchwitness' own
// cache (`<cache root>/witness/witness-<base commit>-<env digest>-<plugin hash>.json`,
// RunContext::witnessDir()), never in the reviewed worktree, where a patch could plant
// one: taken once per base commit, environment and plugin version, reused by every later
// patch on that base.
struct WitnessLedger
{
    static constexpr const char *kSchema = "patchwitness.witness/1";

    std::string baseCommit; // 40 hex
    std::string envDigest;
    std::string recorded; // ISO 8601 UTC
    std::string command;  // the witness run's shell line
    std::vector<WitnessRow> rows;

    static std::string fileName(const std::string &baseCommit, const std::string &envDigest,
                                const std::string &pluginHash);
    std::string format() const;
    // Throws Error::input "origin:line:column: …" for text that is not JSON, "origin: …"
    // for anything else but a ledger of this schema.
    static WitnessLedger parse(const std::string &text, const std::string &origin);
    // Atomic (a reader never sees half a ledger); throws Error::input when it cannot.
    void write(const std::string &path) const;

    const WitnessRow *find(const std::string &nodeId) const;
};

} // namespace pw::core
