#pragma once

// The census's classification (SPEC §5.9), apart from the runs that feed it: static facts
// of the test functions, the ledgers as the static audit counted them, and the table.

#include "audit/GateReport.h"
#include "ledger/LedgerSet.h"
#include "run/Census.h"

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
    int assertions = 0;
    int testFunctions = 0;
};

// Facts of the `.py` files among `files` that exist at `rev` (through the fact cache).
CensusStatic censusStaticFacts(const Repository &repo, const Revision &rev,
                               FactExtractor &extractor, const std::set<std::string> &files);

// Waivers and freezes as the static audit counted them, plus the base ledgers for the
// waiver witnesses and for skips only a run sees.
class CensusLedgers
{
public:
    CensusLedgers(const GateReport *audit, LedgerSet ledgers, QDate today);

    // The waiver node that satisfies the removal of `functionId` (in `file`), if any.
    std::optional<std::string> waiverFor(const std::string &functionId,
                                         const std::string &file) const;
    std::optional<std::string> witnessOf(const std::string &node) const;
    // "quarantine.toml: <test>" when a counting freeze answers a skip of `functionId`.
    std::optional<std::string> freezeFor(const std::string &functionId) const;

private:
    const GateReport *m_audit;
    LedgerSet m_ledgers;
    QDate m_today;
};

// The base revision's ledgers (or the directory on disk when it lies outside the repository).
LedgerSet censusBaseLedgers(const RunContext &ctx, const Repository &repo);

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
