#pragma once

#include "ledger/LedgerValidator.h"
#include "ledger/RunEvidence.h"

#include <string>
#include <vector>

namespace pw::core {

// The human actions on the ledgers — approve a waiver, grant a freeze, renew a freeze, close a
// journal row — as pure text transformations: each takes the ledger file's text as loaded,
// returns the text to write, and refuses (Error::input listing every problem, one per line)
// when the entry it writes would not validate. Nothing here touches the disk: callers
// write the result through LedgerStore, so a refusal leaves the file byte-identical.
// Other entries' problems never block an action (fixing them is a separate decision).
class LedgerActions
{
public:
    explicit LedgerActions(LedgerValidator validator);

    const LedgerValidator &validator() const { return m_validator; }

    // `approved_on` defaults to today. A second waiver for the same node is refused.
    std::string waive(const std::string &text, const std::string &origin, WaiverEntry entry) const;
    // `opened` defaults to today, `verdict` to PRE_EXISTING. A second freeze for the same
    // test is refused (renew it instead). With `evidence` (FreezeCase::gather of the ledger
    // directory's runs/), what the freeze rule holds against the entry is refused too — a
    // verdict or cells record that forbids it, an attribution of solo, a placeholder left
    // in — whatever the entry's own fields say.
    std::string freeze(const std::string &text, const std::string &origin, QuarantineEntry entry,
                       const FreezeCase *evidence = nullptr) const;
    // Points the existing freeze of `test` — one granted before evidence/, without
    // evidence.record — to the records `evidence` rests on; `pins` are the copies' paths and
    // sha256 (EvidenceFiles::planFor), set in place. Refused when there is no such freeze,
    // when it has evidence files already, when no record backs it or the rule refuses it,
    // when the entry contradicts the records, and when the pinned files do not validate
    // (the validator's readLedgerFile must serve them).
    std::string attachEvidence(const std::string &text, const std::string &origin,
                               const std::string &test, const FreezeCase &evidence,
                               const FreezeEvidence &pins) const;
    // Sets renewed = today, renewed_by, last_reproduced and expires in place.
    std::string renew(const std::string &text, const std::string &origin, const std::string &test,
                      const QDate &lastReproduced, const QDate &expires,
                      const std::string &by) const;
    // Sets status = closed, closed_by, closed_on = today on that row's line only.
    std::string closeJournalRow(const std::string &text, const std::string &origin,
                                const std::string &id, const std::string &by) const;

    // What the new entry's problems would be (live validation in a form): the same checks
    // the actions refuse on, without writing anything.
    std::vector<LedgerProblem> problemsOf(const std::string &text, const std::string &origin,
                                          const WaiverEntry &entry) const;
    std::vector<LedgerProblem> problemsOf(const std::string &text, const std::string &origin,
                                          const QuarantineEntry &entry,
                                          const FreezeCase *evidence = nullptr) const;
    // The renewed entry's problems (throws Error::input when there is no freeze for `test`).
    std::vector<LedgerProblem> problemsOfRenewal(const std::string &text, const std::string &origin,
                                                 const std::string &test,
                                                 const QDate &lastReproduced, const QDate &expires,
                                                 const std::string &by) const;
    // The closed row's problems (throws Error::input when there is no open row `id`).
    std::vector<LedgerProblem> problemsOfClosing(const std::string &text, const std::string &origin,
                                                 const std::string &id,
                                                 const std::string &by) const;

    // A fixture note: `path` recorded with its new digest and why it changed,
    // which answers F-DRIFT for that digest once a human merged it. Refused without a path,
    // a 64-hex digest and a note.
    std::string noteFixture(const std::string &text, const std::string &origin,
                            const std::string &path, const std::string &sha256,
                            const std::string &note) const;
    std::vector<LedgerProblem> problemsOfNote(const std::string &origin, const std::string &path,
                                              const std::string &sha256,
                                              const std::string &note) const;

private:
    LedgerValidator m_validator;
};

} // namespace pw::core
