#pragma once

#include "audit/GateReport.h"
#include "audit/ManifestDiff.h"
#include "ledger/Config.h"
#include "ledger/LedgerProblem.h"
#include "ledger/LedgerSet.h"
#include "ledger/LedgerValidator.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pw::core {

class FactExtractor;
class Repository;
struct Revision;
struct PatchDiff;

// What decides which ledger entries count for a patch (the part of LedgerGateInput the
// census needs as well).
struct CountingLedgersInput
{
    const Repository &repo;
    const Revision &base;
    const Revision &head;
    const PatchDiff &diff;
    const Config &config;     // the base revision's
    std::string ledgerPrefix; // "<ledger dir>/" inside the repository; empty when outside
    std::string ledgerDir;    // absolute (LedgerLocation; read from disk when outside the tree)
    std::string today;        // YYYY-MM-DD; empty: the current date
    FactExtractor &extractor;
};

// The ledgers as the gate counts them (see LedgerGate): the base revision's (or the copy on
// disk), restricted to the entries the head still has, each checked by LedgerValidator. The
// static audit's ledger gate and the census (which entries answer a removal or a skip) both
// use it, so they cannot count differently.
class CountingLedgers
{
public:
    // Reads both sides' ledgers and validates the counting entries (today, the base config's
    // limits, head's tests, the patch's changed files). Throws Error::input for a bad
    // `today`; a ledger that does not parse is a load problem of base() or head().
    static CountingLedgers compute(const CountingLedgersInput &input);

    const LedgerSet &base() const { return m_base; }
    const LedgerSet &head() const { return m_head; }         // base with the patch's ledger files
    const LedgerSet &counting() const { return m_counting; } // base ∩ head, by entry id
    // Problems of counting entries (load problems excluded: base().loadProblems, head()'s).
    const std::vector<LedgerProblem> &problems() const { return m_problems; }
    const LedgerValidator &validator() const { return *m_validator; }
    bool unreadableAtHead(const std::string &fileName) const
    {
        return m_unreadableAtHead.count(fileName) > 0;
    }

    // A counting entry without problems; a freeze also active today.
    bool validWaiver(const std::string &node) const;
    bool validFreeze(const std::string &test) const;
    bool validEntry(const std::string &file, const std::string &id) const;
    // The head has an entry the counting ledgers do not: added or rewritten by the patch.
    bool headOnlyWaiver(const std::string &node) const;
    bool headOnlyFreeze(const std::string &test) const;

private:
    LedgerSet m_base;
    LedgerSet m_head;
    LedgerSet m_counting;
    std::set<std::string> m_unreadableAtHead; // file names
    std::vector<LedgerProblem> m_problems;
    std::set<std::pair<std::string, std::string>> m_invalid; // (file, entry id)
    std::shared_ptr<const LedgerValidator> m_validator;
};

struct LedgerGateInput
{
    CountingLedgersInput ledgers;
    const std::vector<TestFileChange> &changes; // test files the patch changed, with facts
};

// The ledger part of the gate report (the findings a ledger entry satisfies, and the ledgers' own
// problems).
//
// Which ledgers count: the BASE revision's (or, when the ledger directory lies outside the
// repository, the reviewers' copy on disk), restricted to the entries the head still has.
// A patch must not approve itself: an entry the patch adds (or the new text of one it
// edits) satisfies nothing in the same patch — the finding says so — and counts once a
// human merged it. Entries the patch removes no longer count.
//
// It adds:
//  - LEDGER:parse (block) for a ledger that does not parse (file:line:column), at base
//    (none of its entries count) or left so by the patch; the rest of the report stands;
//  - LEDGER:<rule> (block) for every problem of a counting entry (LedgerValidator, with
//    today, the base config's limits, head's tests, the patch's changed files);
//  - LEDGER:side-effect (block): the patch adds a freeze for a test whose guarded file
//    it edits ("quarantine as a side effect");
//  - LEDGER:open-row-deleted (block): the patch deletes an open seed journal row;
//  - LEDGER-EDIT (review): any other change of a file in the ledger directory;
// and sets `satisfiedBy` on findings a valid entry answers: a waiver on T-DEL, T-GONE
// and BLOCKER:deleted for its node, or for the removed file a test was in
// ("census_waiver.toml: <node>"); an active freeze on T-SKIP, BLOCKER:marker and on a
// LATITUDE finding whose only signal is "skip/xfail added", for its test
// ("quarantine.toml: <test>"); a fixture note on F-DRIFT for a changed fixture — an entry of
// fixture_digest.json for its path whose sha256 is the head's digest and whose `note` is
// not empty ("fixture_digest.json: <path>"; a removed fixture has no digest to note).
// Findings stay in the report, marked, never hidden.
class LedgerGate
{
public:
    static void apply(const LedgerGateInput &input, GateReport &report);
};

} // namespace pw::core
