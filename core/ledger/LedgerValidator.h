#pragma once

#include "ledger/Config.h"
#include "ledger/LedgerSet.h"

#include <QDate>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pw::core {

// What validation knows beyond the ledger itself. "Today" is always given (tests use
// fixed dates); the head lookup and the patch are optional and their rules are skipped
// when absent.
struct ValidationContext
{
    QDate today;
    int freezeMaxDays = 14;      // config `freeze_max_days`
    int renewalRecencyDays = 14; // config `renewal_recency_days`
    // Whether a test id (`path::name`, `path::Class::name`, parameters ignored) exists at
    // head; empty: substitutes and witnesses are not looked up. It may throw to say it
    // cannot tell (the file does not parse, no interpreter): the problem then says why.
    std::function<bool(const std::string &)> testExistsAtHead;
    // Whether a repository-relative path is a file or a directory at head (a freeze's
    // guards); empty: not looked up. May throw to say it cannot tell.
    std::function<bool(const std::string &)> pathExistsAtHead;
    // Whether a test id was collected at the review's base: a new waiver's node must be one
    // (LedgerActions; the general check does not ask, old waivers name older bases). Empty:
    // not looked up. May throw to say it cannot tell.
    std::function<bool(const std::string &)> testExistedAtBase;
    // Files the patch changes (repository-relative); empty when there is no patch.
    std::set<std::string> patchedFiles;
    // The journal before the patch: an open row of it that is gone is a problem.
    const SeedJournal *journalBefore = nullptr;
    // The bytes of a file of the ledger directory (a freeze's `evidence/` record, by its
    // path relative to the directory), nullopt when there is none: the disk for `ledger
    // check` and the forms, the reviewed tree for the audit. Empty: evidence files are not
    // read (their fields are still checked for shape).
    std::function<std::optional<std::string>(const std::string &relativePath)> readLedgerFile;
};

// Every rule the ledgers obey. Each problem is a value naming the file, line, entry and field,
// with a stable `rule`:
//   parse            the file does not parse (from LedgerSet::loadProblems)
//   wrong-type       a field holds the wrong type (from the readers)
//   missing-field    a required field is absent or empty
//   duplicate        a second entry for the same test / node / id / path
//   verdict          freeze verdict is not PRE_EXISTING
//   expired          the freeze expired ("expired on D"; a freeze is active on the days
//                    opened <= today < expires)
//   expiry-too-far   `expires` more than freeze_max_days after opened / renewed, or before it
//   renewal-recency  renewed without `last_reproduced` within renewal_recency_days
//   substitute       substitute unknown at head, or the frozen test itself
//   guard-edited     the patch edits a guarded file while the freeze is active
//   guard-missing    a guard names no path at head (with pathExistsAtHead)
//   bad-value        a value that cannot be what a run measured: base_fail or head_fail
//                    below 1, a witness seed outside evidence.seeds, an env digest that is
//                    not 16 lowercase hex digits, a baseline sha that is not hex; an
//                    evidence file outside evidence/, a sha256 that is not 64 hex digits
//   evidence-file    evidence.record or evidence.cells is missing, cannot be read, or its
//                    bytes are not the sha256 the entry pins (altered after the freeze)
//   evidence         the evidence file does not back the freeze: not PRE_EXISTING for its
//                    test, no failure on a tree, a witness that did not fail at head, cells
//                    that say broken test (solo) — FreezeCase on the files
//   contradicts      a value of the entry the evidence file says otherwise
//   node             a new waiver's node was not collected at base (LedgerActions)
//   journal-status   status not open / closed
//   journal-replays  closed without two consecutive passing replays on the row's env digest
//   open-row-deleted an open journal row of the journal before the patch is gone
//   reason           waiver reason unknown
//   witness          waiver witness missing, the waived node itself, or unknown at head
//   digest           a fixture digest that is not 64 hex digits
//   budget           a property budget value missing or not positive
// The context every ledger check starts from — `today` and the config's freeze limits — so
// the CLI, the audit's ledger gate and the workbench judge entries alike. The caller adds
// the test lookup, the files the patch changes (patchedFiles) and the journal before.
ValidationContext validationContext(const Config &config, const QDate &today);
// A pathExistsAtHead over `paths` (Repository::pathsAt): exactly as the guard is written, the
// way guard-edited matches it ("src/" is the directory, "src" a file of that name).
std::function<bool(const std::string &)>
pathLookup(std::shared_ptr<const std::set<std::string>> paths);

class LedgerValidator
{
public:
    explicit LedgerValidator(ValidationContext context);

    const ValidationContext &context() const { return m_context; }

    std::vector<LedgerProblem> check(const QuarantineEntry &entry, const std::string &file) const;
    std::vector<LedgerProblem> check(const WaiverEntry &entry, const std::string &file) const;
    std::vector<LedgerProblem> check(const JournalRow &row, const std::string &file) const;

    std::vector<LedgerProblem> check(const QuarantineLedger &ledger) const;
    std::vector<LedgerProblem> check(const WaiverLedger &ledger) const;
    std::vector<LedgerProblem> check(const SeedJournal &journal) const;
    std::vector<LedgerProblem> check(const FixtureDigestLedger &ledger) const;
    std::vector<LedgerProblem> check(const PropertyBudget &budget) const;
    // Load problems first, then every ledger in LedgerSet::fileNames() order. A journal
    // that is absent while `journalBefore` has open rows reports them all as deleted.
    std::vector<LedgerProblem> check(const LedgerSet &set) const;

    // Active on opened <= today < expires (an entry without both dates is not active).
    bool isActive(const QuarantineEntry &entry) const;
    // The same on a given day: Shadow and the census ask it with their own `today`.
    static bool isActiveOn(const QuarantineEntry &entry, const QDate &today);

    // The guards of `guards` that `patchedFiles` touches: a guard is a file, or a directory
    // when it ends with '/' (a package: `mypkg/` covers every file under it).
    static std::vector<std::string> editedGuards(const std::vector<std::string> &guards,
                                                 const std::set<std::string> &patchedFiles);

private:
    ValidationContext m_context;
};

} // namespace pw::core
