#pragma once

// The census's classification, apart from the runs that feed it: static facts
// of the test functions, the ledgers as the static audit counted them, and the table.

#include "audit/GateReport.h"
#include "audit/LedgerGate.h"
#include "audit/TestPairing.h"
#include "dynamic/Census.h"
#include "ledger/LedgerSet.h"

#include <QDate>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace pw::core {

class FactExtractor;
class Repository;
struct Revision;

// Static facts of the test functions of one tree, by function id.
struct CensusStatic
{
    std::map<std::string, CensusFacts> functions;
    std::map<std::string, int> lines;
    // The extractor's facts of each function (their `name` without the file), for matching
    // tests across a rename or move as the static audit does (TestPairing).
    std::map<std::string, TestFunctionFacts> tests;
    int assertions = 0;
    int testFunctions = 0;
};

// A base test function the head collects no node of, found again under another function
// id the base collects no node of (TestPairing's matching: the same body hash, or most of
// its statements under a renamed or moved class or file).
struct CensusRename
{
    std::string to; // head function id
    TestMatch match = TestMatch::Body;
    int similarity = 100;
};

// The renames between the two collections: base function id → its head function.
std::map<std::string, CensusRename> censusRenames(const CensusCollection &base,
                                                  const CensusCollection &head,
                                                  const CensusStatic &baseStatic,
                                                  const CensusStatic &headStatic);

// Adds the test functions of one file's facts to `side`.
void addCensusFacts(CensusStatic &side, const FileFacts &facts);

// Facts of the `.py` files among `files` that exist at `rev` (through the fact cache).
CensusStatic censusStaticFacts(const Repository &repo, const Revision &rev,
                               FactExtractor &extractor, const std::set<std::string> &files);

// The test functions whose removal a waiver may answer, as the static facts see them: the
// audit's T-DEL (a function its file no longer defines) and T-GONE (a removed test file).
struct CensusRemovals
{
    std::set<std::string> goneAtHead;      // function ids the head's source does not define
    std::set<std::string> filesGoneAtHead; // files of those the head does not have
    std::map<std::string, std::set<std::string>> baseTests; // file → its base function ids
};

// Waivers and freezes as the static audit's ledger gate counts them (CountingLedgers, with
// the audit's rules for which entry answers which removal or skip), plus the base ledgers
// for the waiver witnesses and for skips only a run sees.
class CensusLedgers
{
public:
    // `counting` absent: the ledgers could not be counted, no waiver counts.
    CensusLedgers(std::optional<CountingLedgers> counting, CensusRemovals removals,
                  LedgerSet ledgers, QDate today);

    // The waiver node that satisfies the removal of `functionId` (in `file`), if any: a
    // valid waiver of the function or of its file; for a removed file, of the file or of
    // every one of its base tests — unless some of its tests were renamed away (`renamed`,
    // base function ids), when, as in the static audit, each lost test is a T-DEL of its own.
    std::optional<std::string> waiverFor(const std::string &functionId, const std::string &file,
                                         const std::set<std::string> &renamed = {}) const;
    std::optional<std::string> witnessOf(const std::string &node) const;
    // "quarantine.toml: <test>" when a counting, valid, active freeze answers a skip marked
    // at collection (`marked`: a skip or xfail marker, as the audit's T-SKIP sees it);
    // otherwise "quarantine.toml: <test> (expires D)" for a base freeze active today.
    std::optional<std::string> freezeFor(const std::string &functionId, bool marked) const;

private:
    std::optional<CountingLedgers> m_counting;
    CensusRemovals m_removals;
    LedgerSet m_ledgers;
    QDate m_today;
};

// The base revision's ledgers (or the directory on disk when it lies outside the repository).
LedgerSet censusBaseLedgers(const RunContext &ctx, const Repository &repo);

// The ledger directory inside the repository ("<dir>/"), or "" when it lies outside.
std::string censusLedgerPrefix(const RunContext &ctx);

// A node of `head` is `witness` or one of its parameter cases.
bool collectedAt(const CensusCollection &head, const std::string &witness);

// A census finding about a whole file (or none): no test id.
Finding censusFileFinding(const std::string &code, Severity severity, const std::string &path,
                          const std::string &message, const std::string &evidence);
// pytest's message for a failed collector: its last line, without the "E   " prefix.
std::string censusErrorLine(const std::string &text);

// Fills report.rows and report.findings from the first base and the head collection, the
// suites' outcomes (empty without execution) and the witness outcomes.
void classifyCensus(CensusReport &report, const CensusCollection &base,
                    const CensusCollection &head, const std::map<std::string, Outcome> &baseRun,
                    const std::map<std::string, Outcome> &headRun, const CensusStatic &baseStatic,
                    const CensusStatic &headStatic, const CensusLedgers &ledgers,
                    const std::function<std::optional<Outcome>(const std::string &)> &witness);

} // namespace pw::core
