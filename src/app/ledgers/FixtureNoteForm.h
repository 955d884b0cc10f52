#pragma once

#include "ledgers/LedgerForm.h"

#include <memory>

namespace Ui {
class FixtureNoteForm;
}

namespace pw::gui {

struct FixtureNoteSeed
{
    QString path;
    QString sha256;     // the fixture's digest at head (empty: removed, or not in the patch)
    QString baseSha256; // at base, for the summary line; empty when added
    QString note;       // the note the ledger has already, if any
};

// Edit fixture note (fixture_digest.json): records a changed fixture's new digest with
// the reason it changed, which answers F-DRIFT for that digest once a human merged it.
class FixtureNoteForm : public LedgerForm
{
    Q_OBJECT
public:
    FixtureNoteForm(const FixtureNoteSeed &seed, const LedgerFormContext &context,
                    QWidget *parent = nullptr);
    ~FixtureNoteForm() override;

    QString title() const override;
    QString fileName() const override;
    QString intro() const override;
    std::vector<core::LedgerProblem> problems(const std::string &loaded, const std::string &origin,
                                              const core::LedgerActions &actions) const override;
    std::string draft(const std::string &loaded, const std::string &origin,
                      const core::LedgerActions &actions) const override;
    std::string apply(const std::string &loaded, const std::string &origin,
                      const core::LedgerActions &actions) const override;

private:
    std::string path() const;
    std::string sha() const;
    std::string note() const;

    std::unique_ptr<Ui::FixtureNoteForm> m_ui;
    std::string m_headSha; // the digest a note can answer F-DRIFT for; empty when unknown
};

} // namespace pw::gui
