#include "ledger/LedgerActions.h"

#include "util/Error.h"

#include <algorithm>
#include <cctype>

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

LedgerProblem missing(const std::string &file, const QuarantineEntry &entry, const char *field)
{
    LedgerProblem p;
    p.file = file;
    p.line = entry.info.line;
    p.entry = entry.id();
    p.field = field;
    p.rule = "missing-field";
    p.message = std::string("missing required field `") + field + "`";
    return p;
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
    // A waiver accepts the removal of a node the base had: one it never had waives nothing.
    const ValidationContext &context = m_validator.context();
    if (added.node && !added.node->empty() && context.testExistedAtBase) {
        LedgerProblem p;
        p.file = origin;
        p.line = added.info.line;
        p.entry = added.id();
        p.field = "node";
        p.rule = "node";
        try {
            if (!context.testExistedAtBase(*added.node)) {
                p.message = "node " + *added.node +
                            " is not collected at base: a waiver accepts the removal of a "
                            "test the base had";
                out.insert(out.begin(), p);
            }
        } catch (const std::exception &e) {
            p.message =
                "cannot confirm that node " + *added.node + " is collected at base: " + e.what();
            out.insert(out.begin(), p);
        }
    }
    duplicateOf(ledger.entries, added, added.id(), origin, "waiver", out);
    return out;
}

std::vector<LedgerProblem> LedgerActions::problemsOf(const std::string &text,
                                                     const std::string &origin,
                                                     const QuarantineEntry &entry,
                                                     const FreezeCase *evidence) const
{
    const QuarantineLedger ledger =
        QuarantineLedger::parse(QuarantineLedger::append(text, entry), origin);
    const QuarantineEntry &added = ledger.entries.back();
    std::vector<LedgerProblem> out;
    if (evidence) // the rule's word first: it is why the rest does not matter
        out = evidence->problemsOf(added, origin);
    std::vector<LedgerProblem> checked = m_validator.check(added, origin);
    if (evidence)
        evidence->explain(checked);
    out.insert(out.end(), checked.begin(), checked.end());
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
                                  QuarantineEntry entry, const FreezeCase *evidence) const
{
    if (!entry.opened)
        entry.opened = m_validator.context().today;
    if (!entry.verdict)
        entry.verdict = "PRE_EXISTING";
    const std::vector<LedgerProblem> problems = problemsOf(text, origin, entry, evidence);
    if (!problems.empty())
        refuse("the freeze of " + entry.id(), problems);
    return QuarantineLedger::append(text, entry);
}

std::string LedgerActions::attachEvidence(const std::string &text, const std::string &origin,
                                          const std::string &test, const FreezeCase &evidence,
                                          const FreezeEvidence &pins) const
{
    const QuarantineLedger before = QuarantineLedger::parse(text, origin);
    const QuarantineEntry *entry = before.find(test);
    if (!entry)
        throw Error::input(origin + ": no freeze for " + test +
                           " to back with evidence (grant one with `patchwitness-cli freeze`)");
    if (entry->evidence && entry->evidence->record)
        throw Error::input(origin + ":" + std::to_string(entry->info.lineOf("evidence")) + ": " +
                           test + ": the freeze is backed by " + *entry->evidence->record +
                           " already");
    if (!pins.record)
        throw Error::input("the freeze of " + test + ": " + evidence.reason());
    const std::string result = QuarantineLedger::pinEvidence(text, origin, test, pins);
    const QuarantineLedger after = QuarantineLedger::parse(result, origin);
    const QuarantineEntry *written = after.find(test);
    // An evidence table written as dotted keys (evidence.base_fail = 3) is neither inline
    // nor a section of its own: the pins would not land in it.
    if (!written || !written->evidence || written->evidence->record != pins.record ||
        written->evidence->recordSha256 != pins.recordSha256)
        throw Error::input(origin + ":" + std::to_string(entry->info.lineOf("evidence")) + ": " +
                           test +
                           ": the freeze's evidence is written in a form --attach cannot edit; "
                           "add record = \"" +
                           pins.record.value_or("") + "\" and record_sha256 = \"" +
                           pins.recordSha256.value_or("") + "\" to it by hand");
    const QuarantineEntry &pinned = *written;
    // The rule's word on the entry as it stands, and the files' own checks; the entry's
    // other problems (an expiry, a guard) are not this action's to judge.
    std::vector<LedgerProblem> problems;
    for (LedgerProblem &p : evidence.problemsOf(pinned, origin)) {
        if (p.rule == "evidence" || p.rule == "contradicts")
            problems.push_back(std::move(p));
    }
    for (LedgerProblem &p : m_validator.check(pinned, origin)) {
        const bool aboutEvidence = p.rule == "evidence-file" || p.rule == "evidence" ||
                                   p.rule == "contradicts" ||
                                   (p.field.starts_with("evidence.") && p.rule == "bad-value");
        if (aboutEvidence)
            problems.push_back(std::move(p));
    }
    if (!problems.empty())
        refuse("the evidence of the freeze of " + test, problems);
    return result;
}

std::vector<LedgerProblem>
LedgerActions::problemsOfRenewal(const std::string &text, const std::string &origin,
                                 const std::string &test, const QDate &lastReproduced,
                                 const QDate &expires, const std::string &by) const
{
    const std::string result = QuarantineLedger::renew(
        text, origin, test, {m_validator.context().today, lastReproduced, expires, by});
    const QuarantineLedger ledger = QuarantineLedger::parse(result, origin);
    std::vector<LedgerProblem> out = m_validator.check(*ledger.find(test), origin);
    if (by.empty())
        out.push_back(missing(origin, *ledger.find(test), "renewed_by"));
    return out;
}

std::string LedgerActions::renew(const std::string &text, const std::string &origin,
                                 const std::string &test, const QDate &lastReproduced,
                                 const QDate &expires, const std::string &by) const
{
    const std::vector<LedgerProblem> problems =
        problemsOfRenewal(text, origin, test, lastReproduced, expires, by);
    if (!problems.empty())
        refuse("the renewal of " + test, problems);
    return QuarantineLedger::renew(text, origin, test,
                                   {m_validator.context().today, lastReproduced, expires, by});
}

std::vector<LedgerProblem> LedgerActions::problemsOfClosing(const std::string &text,
                                                            const std::string &origin,
                                                            const std::string &id,
                                                            const std::string &by) const
{
    const std::string result =
        SeedJournal::closeRow(text, origin, id, by, m_validator.context().today);
    const SeedJournal journal = SeedJournal::parse(result, origin);
    return m_validator.check(*journal.find(id), origin);
}

std::string LedgerActions::closeJournalRow(const std::string &text, const std::string &origin,
                                           const std::string &id, const std::string &by) const
{
    const std::vector<LedgerProblem> problems = problemsOfClosing(text, origin, id, by);
    if (!problems.empty())
        refuse("closing journal row " + id, problems);
    return SeedJournal::closeRow(text, origin, id, by, m_validator.context().today);
}

std::vector<LedgerProblem> LedgerActions::problemsOfNote(const std::string &origin,
                                                         const std::string &path,
                                                         const std::string &sha256,
                                                         const std::string &note) const
{
    std::vector<LedgerProblem> out;
    auto add = [&](const char *field, const char *rule, const std::string &message) {
        LedgerProblem p;
        p.file = origin;
        p.entry = path;
        p.field = field;
        p.rule = rule;
        p.message = message;
        out.push_back(std::move(p));
    };
    if (path.empty())
        add("path", "missing-field", "the fixture path is required");
    const bool hex = sha256.size() == 64 && std::all_of(sha256.begin(), sha256.end(), [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
    if (!hex)
        add("sha256", "digest", "the sha256 must be 64 lowercase hex digits");
    if (std::all_of(note.begin(), note.end(), [](unsigned char c) { return std::isspace(c); }))
        add("note", "missing-field",
            "say why the fixture changed (the note is what answers F-DRIFT)");
    return out;
}

std::string LedgerActions::noteFixture(const std::string &text, const std::string &origin,
                                       const std::string &path, const std::string &sha256,
                                       const std::string &note) const
{
    const std::vector<LedgerProblem> problems = problemsOfNote(origin, path, sha256, note);
    if (!problems.empty())
        refuse("the fixture note for " + (path.empty() ? std::string("a fixture") : path),
               problems);
    return FixtureDigestLedger::set(text, origin, path, sha256, note);
}

} // namespace pw::core
