#include "audit/LedgerGate.h"

#include "ledger/EvidenceFiles.h"
#include "ledger/LedgerDate.h"
#include "ledger/LedgerSet.h"
#include "ledger/LedgerSnapshot.h"
#include "ledger/LedgerValidator.h"
#include "python/FactExtractor.h"
#include "python/TestsAtRevision.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <algorithm>
#include <map>
#include <set>

namespace pw::core {
namespace {

const char *kFixEvidence = "a corrected ledger entry (a human action with --by)";

struct LedgerFileChange
{
    const FileDiff *diff = nullptr;
    std::string name; // file name inside the ledger directory ("runs/x.json" for nested)
};

bool under(const std::string &path, const std::string &prefix)
{
    return !prefix.empty() && !path.empty() && path.starts_with(prefix);
}

Finding ledgerFinding(const std::string &code, Severity severity, const std::string &path, int line,
                      const std::string &message, const std::string &evidence)
{
    Finding f;
    f.gate = "ledger";
    f.code = code;
    f.severity = severity;
    f.path = path;
    f.line = line;
    f.message = message;
    f.evidence = evidence;
    return f;
}

QDate todayOf(const std::string &text)
{
    if (text.empty())
        return QDate::currentDate();
    const std::optional<QDate> d = parseLedgerDate(text);
    if (!d || text.size() != 10)
        throw Error::input("today: \"" + text + "\" is not a date (YYYY-MM-DD)");
    return *d;
}

// A copy of `base` keeping only the entries whose id the head still has: entries the patch
// removed no longer count, entries it added never did.
LedgerSet countingOf(const LedgerSet &base, const LedgerSet &head,
                     const std::set<std::string> &unreadableAtHead)
{
    LedgerSet out = base;
    if (out.quarantine && !unreadableAtHead.count(QuarantineLedger::kFileName)) {
        std::vector<QuarantineEntry> kept;
        for (const QuarantineEntry &e : out.quarantine->entries) {
            if (head.quarantine && e.test && head.quarantine->find(*e.test))
                kept.push_back(e);
        }
        out.quarantine->entries = std::move(kept);
    }
    if (out.waivers && !unreadableAtHead.count(WaiverLedger::kFileName)) {
        std::vector<WaiverEntry> kept;
        for (const WaiverEntry &e : out.waivers->entries) {
            if (head.waivers && e.node && head.waivers->find(*e.node))
                kept.push_back(e);
        }
        out.waivers->entries = std::move(kept);
    }
    if (out.journal && !unreadableAtHead.count(SeedJournal::kFileName)) {
        std::vector<JournalRow> kept;
        for (const JournalRow &r : out.journal->rows) {
            if (head.journal && r.id && head.journal->find(*r.id))
                kept.push_back(r);
        }
        out.journal->rows = std::move(kept);
    }
    if (out.fixtureDigest && !unreadableAtHead.count(FixtureDigestLedger::kFileName)) {
        std::vector<FixtureDigestEntry> kept;
        for (const FixtureDigestEntry &e : out.fixtureDigest->entries) {
            if (head.fixtureDigest && head.fixtureDigest->find(e.path))
                kept.push_back(e);
        }
        out.fixtureDigest->entries = std::move(kept);
    }
    return out;
}

// The patch's changes of files in the ledger directory (`prefix`), by name inside it.
std::vector<LedgerFileChange> ledgerChanges(const PatchDiff &diff, const std::string &prefix,
                                            std::set<std::string> *changedNames)
{
    std::vector<LedgerFileChange> changes;
    for (const FileDiff &f : diff.files) {
        const bool oldIn = under(f.oldPath, prefix);
        const bool newIn = under(f.newPath, prefix);
        if (!oldIn && !newIn)
            continue;
        const std::string &path = newIn ? f.newPath : f.oldPath;
        changes.push_back({&f, path.substr(prefix.size())});
        if (oldIn)
            changedNames->insert(f.oldPath.substr(prefix.size()));
        if (newIn)
            changedNames->insert(f.newPath.substr(prefix.size()));
    }
    return changes;
}

std::optional<std::string> readLedgerAt(const Repository &repo, const Revision &rev,
                                        const std::string &path)
{
    if (rev.commit.empty() && !rev.isWorktree())
        return std::nullopt;
    if (!repo.entry(rev, path))
        return std::nullopt;
    return repo.readFile(rev, path);
}

// A human note explaining that `path` now has digest `sha256`.
const FixtureDigestEntry *noteFor(const std::optional<FixtureDigestLedger> &ledger,
                                  const std::string &path, const std::string &sha256)
{
    if (!ledger)
        return nullptr;
    const FixtureDigestEntry *e = ledger->find(path);
    const bool noted = e && e->note && e->note->find_first_not_of(" \t\r\n") != std::string::npos;
    return noted && e->sha256 == sha256 ? e : nullptr;
}

class Gate
{
public:
    Gate(const LedgerGateInput &in, GateReport &report) : m_in(in), m_report(report) {}

    void run()
    {
        m_ledgers = CountingLedgers::compute(m_in.ledgers);
        std::set<std::string> changedNames;
        m_changes = ledgerChanges(m_in.ledgers.diff, m_in.ledgers.ledgerPrefix, &changedNames);
        for (const LedgerProblem &p : m_ledgers.base().loadProblems)
            m_report.findings.push_back(ledgerFinding(
                "LEDGER:parse", Severity::Block, p.file, p.line,
                p.toString() + " (the base revision's ledger does not parse: none of its entries "
                               "count)",
                "a ledger file that parses"));
        for (const LedgerProblem &p : m_ledgers.head().loadProblems)
            m_report.findings.push_back(
                ledgerFinding("LEDGER:parse", Severity::Block, p.file, p.line,
                              p.toString() + " (the patch leaves this ledger unparseable)",
                              "a ledger file that parses"));

        for (const LedgerProblem &p : m_ledgers.problems()) {
            Finding f = ledgerFinding("LEDGER:" + p.rule, Severity::Block, p.file, p.line,
                                      (p.entry.empty() ? "" : p.entry + ": ") +
                                          (p.field.empty() ? "" : p.field + ": ") + p.message +
                                          " (this entry satisfies nothing until it is fixed)",
                                      kFixEvidence);
            if (p.file.find(QuarantineLedger::kFileName) != std::string::npos ||
                p.file.find(WaiverLedger::kFileName) != std::string::npos)
                f.test = p.entry;
            m_report.findings.push_back(std::move(f));
        }
        satisfy();
        selfEdits();
    }

private:
    std::optional<std::string> readAt(const Revision &rev, const std::string &path) const
    {
        return readLedgerAt(m_in.ledgers.repo, rev, path);
    }

    bool validWaiver(const std::string &node) const { return m_ledgers.validWaiver(node); }
    bool validFreeze(const std::string &test) const { return m_ledgers.validFreeze(test); }
    bool headOnlyWaiver(const std::string &node) const { return m_ledgers.headOnlyWaiver(node); }
    bool headOnlyFreeze(const std::string &test) const { return m_ledgers.headOnlyFreeze(test); }

    static std::string selfApproval(const std::string &file, const std::string &what)
    {
        return " — " + file + " at head has " + what +
               ", but the patch added it itself: a patch cannot approve itself (it counts once "
               "a human has merged it)";
    }

    void satisfy()
    {
        for (Finding &f : m_report.findings) {
            if (f.satisfiedBy || f.severity == Severity::Info)
                continue;
            const bool deletion = f.code == "T-DEL" || f.code == "BLOCKER:deleted";
            const bool skip = f.code == "T-SKIP" || f.code == "BLOCKER:marker";
            if (deletion && !f.test.empty()) {
                // A waiver for a whole removed file covers each of its tests.
                const std::string file = TestsAtRevision::fileOf(f.test);
                if (validWaiver(f.test))
                    f.satisfiedBy = std::string(WaiverLedger::kFileName) + ": " + f.test;
                else if (validWaiver(file))
                    f.satisfiedBy = std::string(WaiverLedger::kFileName) + ": " + file;
                else if (headOnlyWaiver(f.test) || headOnlyWaiver(file))
                    f.message += selfApproval(WaiverLedger::kFileName, "a waiver for it");
            } else if (f.code == "LATITUDE" && onlySkipAdded(f.test)) {
                // The skip is the whole widening: the freeze that sanctions it answers it.
                if (validFreeze(f.test))
                    f.satisfiedBy = std::string(QuarantineLedger::kFileName) + ": " + f.test;
            } else if (f.code == "T-GONE") {
                satisfyGone(f);
            } else if (f.code == "F-DRIFT") {
                satisfyDrift(f);
            } else if (skip) {
                const std::string id = f.test.empty() ? f.path : f.test;
                if (validFreeze(id))
                    f.satisfiedBy = std::string(QuarantineLedger::kFileName) + ": " + id;
                else if (headOnlyFreeze(id))
                    f.message += selfApproval(QuarantineLedger::kFileName, "a freeze for it");
            }
        }
    }

    bool onlySkipAdded(const std::string &test) const
    {
        for (const LatitudeTestScore &t : m_report.latitude.tests) {
            if (t.test == test)
                return !t.signals.empty() &&
                       std::all_of(t.signals.begin(), t.signals.end(),
                                   [](const std::string &s) { return s == "skip/xfail added"; });
        }
        return false;
    }

    void satisfyGone(Finding &f)
    {
        if (validWaiver(f.path)) {
            f.satisfiedBy = std::string(WaiverLedger::kFileName) + ": " + f.path;
            return;
        }
        std::vector<std::string> ids;
        for (const TestFileChange &c : m_in.changes) {
            if (c.path == f.path && !c.head && c.base && !c.base->error) {
                for (const std::string &name : c.base->defs)
                    ids.push_back(c.path + "::" + name);
            }
        }
        bool all = !ids.empty(), anyHeadOnly = headOnlyWaiver(f.path);
        std::string nodes;
        for (const std::string &id : ids) {
            all = all && validWaiver(id);
            anyHeadOnly = anyHeadOnly || headOnlyWaiver(id);
            nodes += (nodes.empty() ? "" : ", ") + id;
        }
        if (all)
            f.satisfiedBy = std::string(WaiverLedger::kFileName) + ": " + nodes;
        else if (anyHeadOnly)
            f.message += selfApproval(WaiverLedger::kFileName, "waivers for it");
    }

    // A changed fixture is answered by a note for its head digest; a removed one is not
    // (there is no digest to vouch for: restore it or remove it in a separate change).
    void satisfyDrift(Finding &f)
    {
        const auto change = std::find_if(m_report.fixtures.begin(), m_report.fixtures.end(),
                                         [&f](const FixtureChange &c) { return c.path == f.path; });
        if (change == m_report.fixtures.end() || !change->head)
            return;
        const LedgerSet &counting = m_ledgers.counting();
        const FixtureDigestEntry *note = noteFor(counting.fixtureDigest, f.path, *change->head);
        if (note && m_ledgers.validEntry(counting.fixtureDigest->file, f.path))
            f.satisfiedBy = std::string(FixtureDigestLedger::kFileName) + ": " + f.path;
        else if (!note && noteFor(m_ledgers.head().fixtureDigest, f.path, *change->head))
            f.message += selfApproval(FixtureDigestLedger::kFileName, "a note for this digest");
    }

    void selfEdits()
    {
        const std::set<std::string> &patched = m_ledgers.validator().context().patchedFiles;
        const LedgerSet &base = m_ledgers.base();
        const LedgerSet &head = m_ledgers.head();
        for (const LedgerFileChange &c : m_changes) {
            const FileDiff &f = *c.diff;
            const std::string path = f.path();
            std::set<std::string> handled; // entry ids with a blocking finding
            if (c.name == QuarantineLedger::kFileName && head.quarantine) {
                for (const QuarantineEntry &e : head.quarantine->entries) {
                    if (!e.test || (base.quarantine && base.quarantine->find(*e.test)))
                        continue;
                    std::string edited;
                    for (const std::string &g : LedgerValidator::editedGuards(
                             e.guards.value_or(std::vector<std::string>()), patched))
                        edited += (edited.empty() ? "" : ", ") + g;
                    if (edited.empty())
                        continue;
                    handled.insert(*e.test);
                    Finding fd = ledgerFinding(
                        "LEDGER:side-effect", Severity::Block, path, e.info.line,
                        "quarantine as a side effect: the patch adds a freeze for " + *e.test +
                            " and edits its guarded file(s) " + edited,
                        "a freeze granted by a human in a separate change, or the fix");
                    fd.test = *e.test;
                    m_report.findings.push_back(std::move(fd));
                }
            }
            if (c.name == SeedJournal::kFileName && base.journal &&
                !m_ledgers.unreadableAtHead(c.name)) {
                for (const JournalRow &row : base.journal->rows) {
                    if (!row.isOpen() || !row.id || (head.journal && head.journal->find(*row.id)))
                        continue;
                    handled.insert(*row.id);
                    m_report.findings.push_back(ledgerFinding(
                        "LEDGER:open-row-deleted", Severity::Block, path, row.info.line,
                        "the patch deletes open seed journal row " + *row.id +
                            " (a row is closed by a human with `journal close`, never deleted)",
                        "the row restored, or closed by a human with two passing replays"));
                }
            }
            editFinding(c, handled);
        }
    }

    // LEDGER-EDIT (review) for whatever the blocking findings above did not cover.
    void editFinding(const LedgerFileChange &c, const std::set<std::string> &handled)
    {
        const FileDiff &f = *c.diff;
        std::string summary;
        bool other = handled.empty();
        try {
            const std::string name =
                c.name.substr(c.name.rfind('/') == std::string::npos ? 0 : c.name.rfind('/') + 1);
            const std::optional<std::string> before =
                f.oldPath.empty() ? std::nullopt : readAt(m_in.ledgers.base, f.oldPath);
            const std::optional<std::string> after =
                f.newPath.empty() ? std::nullopt : readAt(m_in.ledgers.head, f.newPath);
            const LedgerSnapshot a =
                before ? LedgerSnapshot::parse(name, *before, f.oldPath) : LedgerSnapshot();
            const LedgerSnapshot b =
                after ? LedgerSnapshot::parse(name, *after, f.newPath) : LedgerSnapshot();
            int shown = 0;
            other = false;
            for (const EntryChange &ch : compareSnapshots(a, b)) {
                if (handled.count(ch.id))
                    continue;
                other = true;
                if (shown++ < 5)
                    summary += (summary.empty() ? "" : "; ") +
                               std::string(entryChangeName(ch.kind)) + " " + ch.id;
            }
            if (!other && handled.empty())
                other = true; // comments or layout only: still a ledger edit
            if (shown > 5)
                summary += "; ...";
        } catch (const Error &) {
            other = true; // a side that does not parse: LEDGER:parse says which
        }
        if (!other)
            return;
        m_report.findings.push_back(ledgerFinding(
            "LEDGER-EDIT", Severity::Review, f.path(), 0,
            std::string("the patch ") + changeStatusName(f.status) + " a ledger file" +
                (summary.empty() ? "" : " (" + summary + ")") +
                ": the gate used the base revision's ledgers and config; entries the patch adds "
                "or changes count only once a human has merged them",
            "reviewer confirms the ledger change was a human decision"));
    }

    const LedgerGateInput &m_in;
    GateReport &m_report;
    std::vector<LedgerFileChange> m_changes;
    CountingLedgers m_ledgers;
};

} // namespace

CountingLedgers CountingLedgers::compute(const CountingLedgersInput &in)
{
    CountingLedgers out;
    const QDate today = todayOf(in.today);
    std::set<std::string> changedNames;
    ledgerChanges(in.diff, in.ledgerPrefix, &changedNames);

    // The base: the reviewers' copy when the directory lies outside the repository (the
    // patch cannot change it), else the base revision's files (none when it is unborn).
    if (in.ledgerPrefix.empty()) {
        out.m_base = LedgerSet::loadDirectory(in.ledgerDir);
        out.m_head = out.m_base;
        out.m_head.loadProblems.clear();
    } else {
        if (!in.base.commit.empty())
            out.m_base = LedgerSet::load(
                [&in](const std::string &name) {
                    return readLedgerAt(in.repo, in.base, in.ledgerPrefix + name);
                },
                in.ledgerPrefix);
        // The head: the base with each ledger file the patch changed read again.
        LedgerSet head = out.m_base;
        head.loadProblems.clear();
        for (const std::string &name : LedgerSet::fileNames()) {
            if (!changedNames.count(name))
                continue;
            const std::string path = in.ledgerPrefix + name;
            // Clear the slot, then parse the head's text into it (absent: deleted).
            if (name == QuarantineLedger::kFileName)
                head.quarantine.reset();
            else if (name == WaiverLedger::kFileName)
                head.waivers.reset();
            else if (name == SeedJournal::kFileName)
                head.journal.reset();
            else if (name == FixtureDigestLedger::kFileName)
                head.fixtureDigest.reset();
            else if (name == PropertyBudget::kFileName)
                head.propertyBudget.reset();
            if (const std::optional<std::string> text = readLedgerAt(in.repo, in.head, path)) {
                const size_t before = head.loadProblems.size();
                head.add(name, *text, path);
                if (head.loadProblems.size() > before)
                    out.m_unreadableAtHead.insert(name);
            }
        }
        out.m_head = std::move(head);
    }

    out.m_counting = countingOf(out.m_base, out.m_head, out.m_unreadableAtHead);
    const TestsAtRevision index =
        TestsAtRevision::read(in.repo, in.head, out.m_counting.referencedTests(), in.extractor);
    ValidationContext context = validationContext(in.config, today);
    context.testExistsAtHead = [index](const std::string &id) { return index.listed(id); };
    const bool guarded = out.m_counting.quarantine &&
                         std::any_of(out.m_counting.quarantine->entries.begin(),
                                     out.m_counting.quarantine->entries.end(),
                                     [](const QuarantineEntry &e) { return e.guards.has_value(); });
    if (guarded) // the listing only when a freeze names paths
        context.pathExistsAtHead =
            pathLookup(std::make_shared<const std::set<std::string>>(in.repo.pathsAt(in.head)));
    for (const FileDiff &f : in.diff.files) {
        if (!f.oldPath.empty())
            context.patchedFiles.insert(f.oldPath);
        if (!f.newPath.empty())
            context.patchedFiles.insert(f.newPath);
    }
    // The freezes' evidence files as the reviewed head has them (a patch that edits one
    // is caught by its sha256).
    context.readLedgerFile = EvidenceFiles::pinnedReader(
        out.m_counting.quarantine ? &*out.m_counting.quarantine : nullptr,
        [&in](const std::string &file) {
            return in.ledgerPrefix.empty() ? readWholeFile(in.ledgerDir + "/" + file)
                                           : readLedgerAt(in.repo, in.head, in.ledgerPrefix + file);
        });
    out.m_validator = std::make_shared<const LedgerValidator>(std::move(context));

    LedgerSet entriesOnly = out.m_counting;
    entriesOnly.loadProblems.clear(); // the load problems are base()'s and head()'s
    out.m_problems = out.m_validator->check(entriesOnly);
    for (const LedgerProblem &p : out.m_problems)
        out.m_invalid.insert({p.file, p.entry});
    return out;
}

bool CountingLedgers::validEntry(const std::string &file, const std::string &id) const
{
    return !m_invalid.count({file, id});
}

bool CountingLedgers::validWaiver(const std::string &node) const
{
    if (!m_counting.waivers)
        return false;
    const WaiverEntry *w = m_counting.waivers->find(node);
    return w && validEntry(m_counting.waivers->file, node);
}

bool CountingLedgers::validFreeze(const std::string &test) const
{
    if (!m_counting.quarantine)
        return false;
    const QuarantineEntry *q = m_counting.quarantine->find(test);
    return q && validEntry(m_counting.quarantine->file, test) && m_validator->isActive(*q);
}

bool CountingLedgers::headOnlyWaiver(const std::string &node) const
{
    return m_head.waivers && m_head.waivers->find(node) &&
           !(m_counting.waivers && m_counting.waivers->find(node));
}

bool CountingLedgers::headOnlyFreeze(const std::string &test) const
{
    return m_head.quarantine && m_head.quarantine->find(test) &&
           !(m_counting.quarantine && m_counting.quarantine->find(test));
}

void LedgerGate::apply(const LedgerGateInput &input, GateReport &report)
{
    Gate(input, report).run();
}

} // namespace pw::core
