#pragma once

#include "ledger/EvidenceFiles.h"
#include "ledger/QuarantineLedger.h"
#include "ledger/RunEvidence.h"
#include "ledgers/LedgerForm.h"

#include <memory>

namespace Ui {
class FreezeForm;
}

namespace pw::gui {

// What the evidence at hand says about a failing test: the entry as far as evidence fills
// it (attribution verdict, seeds, env digest, baseline sha, guards from the test's imports,
// replay command), owners from CODEOWNERS, and substitutes that exist at head.
struct FreezeSeed
{
    core::QuarantineEntry entry;
    QStringList ownerCandidates;
    QStringList substituteCandidates;
    QString evidenceSource; // "runs/attribution-….json", or empty when no run backs it
    QString evidenceNote;   // why a record was not used, if one was skipped
    // The freeze rule on the records of runs/ (core::FreezeCase): the form refuses what it
    // refuses, whatever is typed. Absent: no records were consulted (only the entry's own
    // fields are judged).
    std::optional<core::FreezeCase> evidence;
    // The records the freeze rests on, on their way into evidence/ (EvidenceFiles::planFor):
    // the entry written points to them, and Write copies them first.
    std::vector<core::EvidenceCopy> evidenceFiles;
    // Why the records cannot be copied (a run that was not recorded, a record that cannot be
    // read): the freeze has no evidence to point to, and the form refuses it.
    QString evidenceBlocker;
};

// Grant freeze (quarantine.toml): a test failing before the patch too (PRE_EXISTING) is
// frozen for at most freeze_max_days, with an owner, an obligation, a substitute and the
// files the patch must not touch meanwhile.
class FreezeForm : public LedgerForm
{
    Q_OBJECT
public:
    FreezeForm(const FreezeSeed &seed, const LedgerFormContext &context, QWidget *parent = nullptr);
    ~FreezeForm() override;

    QString title() const override;
    QString fileName() const override;
    QString intro() const override;
    std::vector<core::EvidenceCopy> companionFiles() const override { return m_evidenceFiles; }
    std::vector<core::LedgerProblem> problems(const std::string &loaded, const std::string &origin,
                                              const core::LedgerActions &actions) const override;
    std::string draft(const std::string &loaded, const std::string &origin,
                      const core::LedgerActions &actions) const override;
    std::string apply(const std::string &loaded, const std::string &origin,
                      const core::LedgerActions &actions) const override;

    // The entry as typed; `problems` gets what cannot be read (a seed that is no integer).
    core::QuarantineEntry entry(std::vector<core::LedgerProblem> *problems = nullptr) const;
    // What a lookup of head's tests answered after the form opened: new substitute
    // candidates are offered (an empty field takes the first), and an empty guards field
    // takes the test's guards.
    void offerHeadTests(const QStringList &substitutes, const std::vector<std::string> &guards);

private:
    std::unique_ptr<Ui::FreezeForm> m_ui;
    core::FreezeCase m_evidence; // the seed's, else one that judges the typed values only
    std::vector<core::EvidenceCopy> m_evidenceFiles; // the seed's
    QString m_evidenceBlocker;                       // the seed's
    std::optional<core::FreezeEvidence> m_pins;      // their paths and sha256
    bool m_guardsOffered = false; // guards were filled in (from the seed or one lookup)
};

} // namespace pw::gui
