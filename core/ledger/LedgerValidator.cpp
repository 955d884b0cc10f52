#include "ledger/LedgerValidator.h"

#include "ledger/EvidenceFiles.h"
#include "ledger/LedgerDate.h"
#include "ledger/RunEvidence.h"
#include "util/Files.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace pw::core {

ValidationContext validationContext(const Config &config, const QDate &today)
{
    ValidationContext context;
    context.today = today;
    context.freezeMaxDays = config.freezeMaxDays;
    context.renewalRecencyDays = config.renewalRecencyDays;
    return context;
}
std::function<bool(const std::string &)>
pathLookup(std::shared_ptr<const std::set<std::string>> paths)
{
    return [paths = std::move(paths)](const std::string &path) {
        return !path.empty() && paths->count(path) > 0;
    };
}

namespace {

bool isLowerHex(const std::string &s)
{
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool isHex(const std::string &s)
{
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

// Collects the problems of one entry, each named by file, line, entry and field.
class Problems
{
public:
    Problems(const std::string &file, const std::string &entry, const LedgerEntryInfo &info)
        : m_file(file), m_entry(entry), m_info(info)
    {
        m_out = info.problems; // wrong types found while reading
    }

    void add(const std::string &field, const std::string &rule, const std::string &message)
    {
        LedgerProblem p;
        p.file = m_file;
        p.line = field.empty() ? m_info.line : m_info.lineOf(field);
        p.entry = m_entry;
        p.field = field;
        p.rule = rule;
        p.message = message;
        m_out.push_back(std::move(p));
    }

    // A required value: absent (and not already reported as the wrong type) or empty.
    template <typename T> bool require(const std::optional<T> &value, const std::string &field)
    {
        if (value)
            return true;
        if (!m_info.hasProblem(field))
            add(field, "missing-field", "missing required field `" + field + "`");
        return false;
    }
    bool require(const std::optional<std::string> &value, const std::string &field)
    {
        if (value && !value->empty())
            return true;
        if (value)
            add(field, "missing-field", "required field `" + field + "` is empty");
        else if (!m_info.hasProblem(field))
            add(field, "missing-field", "missing required field `" + field + "`");
        return false;
    }

    std::vector<LedgerProblem> take() { return std::move(m_out); }

private:
    const std::string &m_file;
    std::string m_entry;
    const LedgerEntryInfo &m_info;
    std::vector<LedgerProblem> m_out;
};

std::string days(qint64 n)
{
    return std::to_string(n) + (n == 1 ? " day" : " days");
}

template <typename Entry, typename Key>
void duplicates(const std::vector<Entry> &entries, const std::string &file, Key key,
                const std::string &what, std::vector<LedgerProblem> &out)
{
    std::map<std::string, int> first; // id → line of its first entry
    for (const Entry &e : entries) {
        const std::optional<std::string> id = key(e);
        if (!id || id->empty())
            continue;
        const auto [it, inserted] = first.emplace(*id, e.info.line);
        if (inserted)
            continue;
        LedgerProblem p;
        p.file = file;
        p.line = e.info.line;
        p.entry = *id;
        p.rule = "duplicate";
        p.message = "duplicate " + what + " for " + *id + " (the first is at line " +
                    std::to_string(it->second) + ")";
        out.push_back(std::move(p));
    }
}

void append(std::vector<LedgerProblem> &out, std::vector<LedgerProblem> more)
{
    out.insert(out.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
}

// `field` names a test that must be collected at head. Not there, and "cannot tell" (its
// file does not parse, the facts cannot be extracted), are different problems.
void checkAtHead(Problems &p, const ValidationContext &context, const std::string &field,
                 const std::string &id)
{
    if (!context.testExistsAtHead)
        return;
    try {
        if (!context.testExistsAtHead(id))
            p.add(field, field,
                  field + " " + id +
                      " is not collected at head (no such test in head's test files)");
    } catch (const std::exception &e) {
        p.add(field, field,
              "cannot confirm that " + field + " " + id + " is collected at head: " + e.what());
    }
}

// A freeze's evidence files (FreezeEvidence::record, ::cells): where they are, that their
// bytes are the ones the entry pins, and that they back the entry (FreezeCase on them, the
// rule `freeze` applied when it copied them).
void checkEvidenceFiles(Problems &p, const ValidationContext &context, const QuarantineEntry &e,
                        const std::string &file)
{
    const FreezeEvidence &ev = *e.evidence;
    struct Pinned
    {
        const std::optional<std::string> &path;
        const std::optional<std::string> &sha;
        const char *field;
        const char *shaField;
    };
    std::optional<AttributionRecord> record;
    std::optional<CellsEvidence> cells;
    bool readable = true;
    for (const Pinned &f :
         {Pinned{ev.record, ev.recordSha256, "evidence.record", "evidence.record_sha256"},
          Pinned{ev.cells, ev.cellsSha256, "evidence.cells", "evidence.cells_sha256"}}) {
        if (!f.path) {
            if (f.sha)
                p.add(f.shaField, "missing-field",
                      std::string(f.shaField) + " pins no file: `" + f.field + "` is missing");
            continue;
        }
        const std::string &path = *f.path;
        const std::string prefix = std::string(FreezeEvidence::kDir) + "/";
        const bool inside = EvidenceFiles::isEvidencePath(path);
        if (!inside) {
            p.add(f.field, "bad-value",
                  "\"" + path + "\" is not a file of the ledger directory's " + prefix +
                      " (the freeze copies its records there)");
            readable = false;
            continue;
        }
        if (!p.require(f.sha, f.shaField)) {
            readable = false;
            continue;
        }
        if (f.sha->size() != 64 || !isLowerHex(*f.sha)) {
            p.add(f.shaField, "bad-value",
                  "\"" + *f.sha + "\" is not a sha256 (64 lowercase hex digits)");
            readable = false;
            continue;
        }
        if (!context.readLedgerFile)
            continue;
        const std::optional<std::string> bytes = context.readLedgerFile(path);
        if (!bytes) {
            p.add(f.field, "evidence-file",
                  path + " is missing: the freeze's evidence is gone (restore it from the commit "
                         "that granted the freeze, or grant the freeze again on a new record)");
            readable = false;
            continue;
        }
        const std::string actual = sha256Hex(*bytes);
        if (actual != *f.sha) {
            p.add(f.field, "evidence-file",
                  path + " was altered after the freeze: its sha256 is " + actual.substr(0, 12) +
                      "…, the entry pins " + f.sha->substr(0, 12) +
                      "… (the evidence is what the run wrote, never edited)");
            readable = false;
            continue;
        }
        try {
            if (f.field == std::string("evidence.record"))
                record = AttributionRecord::evidenceFor(*bytes, path, e.test.value_or(""));
            else
                cells = CellsEvidence::parse(*bytes, path);
        } catch (const std::exception &ex) {
            p.add(f.field, "evidence", std::string("no freeze: ") + ex.what());
            readable = false;
        }
    }
    if (ev.cells && !ev.record) {
        p.add("evidence.record", "missing-field",
              "evidence.cells pins a cells record, but no record pins the attribution or matrix "
              "record the freeze rests on");
        return;
    }
    if (!context.readLedgerFile || !readable || !record)
        return;
    if (cells && e.test && cells->test != *e.test) {
        p.add("evidence.cells", "evidence",
              "no freeze: " + *ev.cells + " is about " + cells->test + ", not " + *e.test);
        return;
    }
    const FreezeCase rule = FreezeCase::judge(e.test.value_or(""), record, cells);
    for (LedgerProblem &problem : rule.problemsOf(e, file)) {
        if (problem.rule == "evidence" || problem.rule == "contradicts")
            p.add(problem.field, problem.rule, problem.message);
    }
}

} // namespace

LedgerValidator::LedgerValidator(ValidationContext context) : m_context(std::move(context)) {}

std::vector<std::string> LedgerValidator::editedGuards(const std::vector<std::string> &guards,
                                                       const std::set<std::string> &patchedFiles)
{
    std::vector<std::string> edited;
    for (const std::string &guard : guards) {
        bool touched = patchedFiles.count(guard) > 0;
        if (!touched && !guard.empty() && guard.back() == '/') {
            const auto it = patchedFiles.lower_bound(guard);
            touched = it != patchedFiles.end() && it->starts_with(guard);
        }
        if (touched)
            edited.push_back(guard);
    }
    return edited;
}

bool LedgerValidator::isActive(const QuarantineEntry &e) const
{
    return isActiveOn(e, m_context.today);
}

bool LedgerValidator::isActiveOn(const QuarantineEntry &e, const QDate &today)
{
    return e.opened && e.expires && *e.opened <= today && today < *e.expires;
}

std::vector<LedgerProblem> LedgerValidator::check(const QuarantineEntry &e,
                                                  const std::string &file) const
{
    Problems p(file, e.id(), e.info);
    p.require(e.test, "test");
    p.require(e.owner, "owner");
    const bool hasOpened = p.require(e.opened, "opened");
    const bool hasExpires = p.require(e.expires, "expires");
    if (p.require(e.verdict, "verdict") && *e.verdict != "PRE_EXISTING")
        p.add("verdict", "verdict",
              "verdict is " + *e.verdict +
                  "; a freeze is allowed only for PRE_EXISTING (the failure exists at base too)");
    p.require(e.attribution, "attribution");
    const bool hasWitness = p.require(e.witnessSeed, "witness_seed");
    if (p.require(e.baselineSha, "baseline_sha") &&
        (e.baselineSha->size() < 7 || e.baselineSha->size() > 64 || !isHex(*e.baselineSha)))
        p.add("baseline_sha", "bad-value",
              "\"" + *e.baselineSha + "\" is not a commit sha (7 to 40 hex digits)");
    if (p.require(e.evidence, "evidence")) {
        const FreezeEvidence &ev = *e.evidence;
        // What a run measured, as a run writes it: a PRE_EXISTING failure failed on both
        // trees, the witness is one of the seeds that ran, the digest is the run's (the
        // first 16 hex digits of a sha256).
        for (const auto &[count, field, tree] :
             {std::tuple(&ev.baseFail, "evidence.base_fail", "base"),
              std::tuple(&ev.headFail, "evidence.head_fail", "head")}) {
            if (p.require(*count, field) && **count < 1)
                p.add(field, "bad-value",
                      std::string(field) + " is " + std::to_string(**count) +
                          ": a PRE_EXISTING failure fails on the " + tree +
                          " tree too (no run saw it fail there)");
        }
        p.require(ev.mode, "evidence.mode");
        if (p.require(ev.seeds, "evidence.seeds") && hasWitness &&
            std::find(ev.seeds->begin(), ev.seeds->end(), *e.witnessSeed) == ev.seeds->end())
            p.add("witness_seed", "bad-value",
                  "witness seed " + std::to_string(*e.witnessSeed) +
                      " is not one of evidence.seeds: the witness is a seed that ran");
        if (p.require(ev.envDigest, "evidence.env_digest") &&
            (ev.envDigest->size() != 16 || !isLowerHex(*ev.envDigest)))
            p.add("evidence.env_digest", "bad-value",
                  "\"" + *ev.envDigest +
                      "\" is not a run's env digest (16 lowercase hex digits, as runs/ records "
                      "and `attribute` print it)");
        checkEvidenceFiles(p, m_context, e, file);
    }
    p.require(e.obligation, "obligation");
    if (p.require(e.substitute, "substitute")) {
        if (e.test && *e.substitute == *e.test)
            p.add("substitute", "substitute",
                  "the substitute must be another test than the frozen one");
        else
            checkAtHead(p, m_context, "substitute", *e.substitute);
    }
    if (p.require(e.guards, "guards") && e.guards->empty())
        p.add("guards", "missing-field", "`guards` must name at least one file");
    if (e.guards && m_context.pathExistsAtHead) {
        for (const std::string &guard : *e.guards) {
            // A guard the patch itself edits or deletes is guard-edited's to report.
            if (!editedGuards({guard}, m_context.patchedFiles).empty())
                continue;
            try {
                if (m_context.pathExistsAtHead(guard))
                    continue;
                const bool directory = !guard.empty() && guard.back() != '/' &&
                                       m_context.pathExistsAtHead(guard + "/");
                p.add("guards", "guard-missing",
                      directory ? "guard " + guard + " is a directory: write " + guard +
                                      "/ (a directory guard ends in /, or it guards nothing)"
                                : "guard " + guard +
                                      " names no file or directory at head (as written: no "
                                      "globs, no ./): a guard is a path the patch must leave "
                                      "alone");
            } catch (const std::exception &ex) {
                p.add("guards", "guard-missing",
                      "cannot confirm that guard " + guard + " exists at head: " + ex.what());
            }
        }
    }
    p.require(e.replay, "replay");

    if (hasOpened && hasExpires) {
        const QDate start = *e.periodStart();
        const char *since = e.renewed ? "the renewal on " : "opened ";
        const qint64 span = start.daysTo(*e.expires);
        if (span < 0)
            p.add("expires", "expiry-too-far",
                  "expires " + ledgerDateText(*e.expires) + " is before " + since +
                      ledgerDateText(start));
        else if (span > m_context.freezeMaxDays)
            p.add("expires", "expiry-too-far",
                  "expires " + ledgerDateText(*e.expires) + " is " + days(span) + " after " +
                      since + ledgerDateText(start) + " (at most " +
                      std::to_string(m_context.freezeMaxDays) + ", config freeze_max_days)");
        if (m_context.today >= *e.expires)
            p.add("expires", "expired", "expired on " + ledgerDateText(*e.expires));
    }
    if (e.renewed) {
        const std::string on = ledgerDateText(*e.renewed);
        if (!e.lastReproduced) {
            p.add("last_reproduced", "renewal-recency",
                  "renewed on " + on +
                      " without `last_reproduced` (a renewal needs a "
                      "reproduction within " +
                      days(m_context.renewalRecencyDays) + ")");
        } else if (*e.lastReproduced > *e.renewed) {
            p.add("last_reproduced", "renewal-recency",
                  "last_reproduced " + ledgerDateText(*e.lastReproduced) +
                      " is after the renewal on " + on);
        } else if (e.lastReproduced->daysTo(*e.renewed) > m_context.renewalRecencyDays) {
            p.add("last_reproduced", "renewal-recency",
                  "last_reproduced " + ledgerDateText(*e.lastReproduced) + " is " +
                      days(e.lastReproduced->daysTo(*e.renewed)) + " before the renewal on " + on +
                      " (at most " + std::to_string(m_context.renewalRecencyDays) +
                      ", config renewal_recency_days)");
        }
    }
    if (e.guards && isActive(e)) {
        for (const std::string &guard : editedGuards(*e.guards, m_context.patchedFiles)) {
            p.add("guards", "guard-edited",
                  "the patch edits guarded file " + guard +
                      " while the freeze is active: restore the test or extend the "
                      "substitute");
        }
    }
    return p.take();
}

std::vector<LedgerProblem> LedgerValidator::check(const WaiverEntry &e,
                                                  const std::string &file) const
{
    static const std::vector<std::string> kReasons = {"obsolete-behavior", "duplicate-coverage",
                                                      "environment"};
    Problems p(file, e.id(), e.info);
    p.require(e.node, "node");
    bool needsWitness = true;
    if (p.require(e.reason, "reason")) {
        if (std::find(kReasons.begin(), kReasons.end(), *e.reason) == kReasons.end())
            p.add("reason", "reason",
                  "unknown reason \"" + *e.reason +
                      "\" (obsolete-behavior, duplicate-coverage or environment)");
        needsWitness = *e.reason != "environment";
    }
    if (e.witness && !e.witness->empty()) {
        if (e.node && *e.witness == *e.node)
            p.add("witness", "witness", "the witness must be another test than the waived node");
        else
            checkAtHead(p, m_context, "witness", *e.witness);
    } else if (needsWitness && !e.info.hasProblem("witness")) {
        p.add("witness", "witness",
              std::string(e.witness ? "required field `witness` is empty"
                                    : "missing required field `witness`") +
                  " (a waiver for " + e.reason.value_or("this reason") +
                  " names the test that covers the behaviour now)");
    }
    p.require(e.approvedBy, "approved_by");
    p.require(e.approvedOn, "approved_on");
    return p.take();
}

std::vector<LedgerProblem> LedgerValidator::check(const JournalRow &row,
                                                  const std::string &file) const
{
    Problems p(file, row.key(), row.info);
    p.require(row.id, "id");
    if (!row.hasSeed)
        p.add("seed", "missing-field", "missing required field `seed` (an integer or null)");
    const bool hasEnv = p.require(row.env, "env");
    p.require(row.opened, "opened");
    if (!p.require(row.status, "status"))
        return p.take();
    if (*row.status != "open" && *row.status != "closed") {
        p.add("status", "journal-status",
              "status \"" + *row.status + "\" is neither \"open\" nor \"closed\"");
        return p.take();
    }
    if (*row.status != "closed")
        return p.take();
    p.require(row.closedBy, "closed_by");
    p.require(row.closedOn, "closed_on");
    bool proven = false;
    if (row.replays && hasEnv) {
        const std::vector<JournalReplay> &r = *row.replays;
        for (size_t i = 1; i < r.size() && !proven; ++i) {
            proven = r[i - 1].outcome == "pass" && r[i].outcome == "pass" &&
                     r[i - 1].env == row.env && r[i].env == row.env;
        }
    }
    if (!proven && !row.info.hasProblem("replays"))
        p.add("replays", "journal-replays",
              "closed without two consecutive passing replays on the same env digest (" +
                  row.env.value_or("no env") + ")");
    return p.take();
}

std::vector<LedgerProblem> LedgerValidator::check(const QuarantineLedger &ledger) const
{
    std::vector<LedgerProblem> out;
    for (const QuarantineEntry &e : ledger.entries)
        append(out, check(e, ledger.file));
    duplicates(
        ledger.entries, ledger.file, [](const QuarantineEntry &e) { return e.test; }, "freeze",
        out);
    return out;
}

std::vector<LedgerProblem> LedgerValidator::check(const WaiverLedger &ledger) const
{
    std::vector<LedgerProblem> out;
    for (const WaiverEntry &e : ledger.entries)
        append(out, check(e, ledger.file));
    duplicates(
        ledger.entries, ledger.file, [](const WaiverEntry &e) { return e.node; }, "waiver", out);
    return out;
}

std::vector<LedgerProblem> LedgerValidator::check(const SeedJournal &journal) const
{
    std::vector<LedgerProblem> out;
    for (const JournalRow &row : journal.rows)
        append(out, check(row, journal.file));
    duplicates(
        journal.rows, journal.file, [](const JournalRow &r) { return r.id; }, "journal row", out);
    if (m_context.journalBefore) {
        for (const JournalRow &before : m_context.journalBefore->rows) {
            if (!before.isOpen() || !before.id || journal.find(*before.id))
                continue;
            LedgerProblem p;
            p.file = m_context.journalBefore->file;
            p.line = before.info.line;
            p.entry = *before.id;
            p.rule = "open-row-deleted";
            p.message = "open journal row " + *before.id +
                        " was deleted (a row is closed by a human with `journal close`, "
                        "never deleted)";
            out.push_back(std::move(p));
        }
    }
    return out;
}

std::vector<LedgerProblem> LedgerValidator::check(const FixtureDigestLedger &ledger) const
{
    std::vector<LedgerProblem> out;
    for (const FixtureDigestEntry &e : ledger.entries) {
        Problems p(ledger.file, e.path, e.info);
        if (p.require(e.sha256, "sha256") && (e.sha256->size() != 64 || !isHex(*e.sha256)))
            p.add("sha256", "digest", "\"" + *e.sha256 + "\" is not a sha256 (64 hex digits)");
        append(out, p.take());
    }
    return out;
}

std::vector<LedgerProblem> LedgerValidator::check(const PropertyBudget &b) const
{
    Problems p(b.file, "property_budget", b.info);
    const std::pair<const std::optional<long long> *, const char *> fields[] = {
        {&b.maxExamples, "max_examples"},
        {&b.deadlineMs, "deadline_ms"},
        {&b.maxWorkers, "max_workers"}};
    for (const auto &[value, name] : fields) {
        if (p.require(*value, name) && **value <= 0)
            p.add(name, "budget",
                  "`" + std::string(name) + "` must be positive, got " + std::to_string(**value));
    }
    return p.take();
}

std::vector<LedgerProblem> LedgerValidator::check(const LedgerSet &set) const
{
    std::vector<LedgerProblem> out = set.loadProblems;
    if (set.quarantine)
        append(out, check(*set.quarantine));
    if (set.waivers)
        append(out, check(*set.waivers));
    if (set.journal) {
        append(out, check(*set.journal));
    } else if (m_context.journalBefore &&
               std::none_of(set.loadProblems.begin(), set.loadProblems.end(),
                            [](const LedgerProblem &p) {
                                return p.file.ends_with(SeedJournal::kFileName);
                            })) {
        SeedJournal none; // the file is gone: every open row of before was deleted
        none.file = m_context.journalBefore->file;
        append(out, check(none));
    }
    if (set.fixtureDigest)
        append(out, check(*set.fixtureDigest));
    if (set.propertyBudget)
        append(out, check(*set.propertyBudget));
    return out;
}

} // namespace pw::core
