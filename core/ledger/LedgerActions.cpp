#include "ledger/LedgerActions.h"

#include "util/Error.h"

namespace pw::core {
namespace {

[[noreturn]] void refuse(const std::string &what, const std::vector<LedgerProblem> &problems)
{
    std::string message = what + " would not validate; nothing was written:";
    for (const LedgerProblem &p : problems)
        message += "\n  " + p.toString();
    throw Error::input(message);
}

template <typename Entry>
void duplicateOf(const std::vector<Entry> &entries, const Entry &entry, const std::string &id,
                 const std::string &file, const std::string &what, std::vector<LedgerProblem> &out)
{
    for (const Entry &other : entries) {
        if (&other == &entry || other.info.index >= entry.info.index || other.id() != id)
            continue;
        LedgerProblem p;
        p.file = file;
        p.line = entry.info.line;
        p.entry = id;
        p.rule = "duplicate";
        p.message = "there already is a " + what + " for " + id + " (line " +
                    std::to_string(other.info.line) + ")";
        out.push_back(std::move(p));
        return;
    }
}

} // namespace

LedgerActions::LedgerActions(LedgerValidator validator) : m_validator(std::move(validator)) {}

std::vector<LedgerProblem> LedgerActions::problemsOf(const std::string &text,
                                                     const std::string &origin,
                                                     const WaiverEntry &entry) const
{
    const WaiverLedger ledger = WaiverLedger::parse(WaiverLedger::append(text, entry), origin);
    const WaiverEntry &added = ledger.entries.back();
    std::vector<LedgerProblem> out = m_validator.check(added, origin);
    duplicateOf(ledger.entries, added, added.id(), origin, "waiver", out);
    return out;
}

std::vector<LedgerProblem> LedgerActions::problemsOf(const std::string &text,
                                                     const std::string &origin,
                                                     const QuarantineEntry &entry) const
{
    const QuarantineLedger ledger =
        QuarantineLedger::parse(QuarantineLedger::append(text, entry), origin);
    const QuarantineEntry &added = ledger.entries.back();
    std::vector<LedgerProblem> out = m_validator.check(added, origin);
    duplicateOf(ledger.entries, added, added.id(), origin, "freeze", out);
    return out;
}

std::string LedgerActions::waive(const std::string &text, const std::string &origin,
                                 WaiverEntry entry) const
{
    if (!entry.approvedOn)
        entry.approvedOn = m_validator.context().today;
    const std::vector<LedgerProblem> problems = problemsOf(text, origin, entry);
    if (!problems.empty())
        refuse("the waiver for " + entry.id(), problems);
    return WaiverLedger::append(text, entry);
}

std::string LedgerActions::freeze(const std::string &text, const std::string &origin,
                                  QuarantineEntry entry) const
{
    if (!entry.opened)
        entry.opened = m_validator.context().today;
    if (!entry.verdict)
        entry.verdict = "PRE_EXISTING";
    const std::vector<LedgerProblem> problems = problemsOf(text, origin, entry);
    if (!problems.empty())
        refuse("the freeze of " + entry.id(), problems);
    return QuarantineLedger::append(text, entry);
}

std::string LedgerActions::renew(const std::string &text, const std::string &origin,
                                 const std::string &test, const QDate &lastReproduced,
                                 const QDate &expires, const std::string &by) const
{
    const std::string result = QuarantineLedger::renew(
        text, origin, test, {m_validator.context().today, lastReproduced, expires, by});
    const QuarantineLedger ledger = QuarantineLedger::parse(result, origin);
    const QuarantineEntry *entry = ledger.find(test);
    std::vector<LedgerProblem> problems = m_validator.check(*entry, origin);
    if (!problems.empty())
        refuse("the renewal of " + test, problems);
    return result;
}

std::string LedgerActions::closeJournalRow(const std::string &text, const std::string &origin,
                                           const std::string &id, const std::string &by) const
{
    const std::string result =
        SeedJournal::closeRow(text, origin, id, by, m_validator.context().today);
    const SeedJournal journal = SeedJournal::parse(result, origin);
    const std::vector<LedgerProblem> problems = m_validator.check(*journal.find(id), origin);
    if (!problems.empty())
        refuse("closing journal row " + id, problems);
    return result;
}

} // namespace pw::core
