#pragma once

#include "ledger/SeedJournal.h"
#include "ledgers/LedgerForm.h"

#include <memory>

namespace Ui {
class JournalCloseForm;
}

namespace pw::gui {

// Close journal row (seed_journal.jsonl): allowed only when the row records two
// consecutive passing replays on its env digest. Edits that row's line only.
class JournalCloseForm : public LedgerForm
{
    Q_OBJECT
public:
    JournalCloseForm(const core::JournalRow &row, const LedgerFormContext &context,
                     QWidget *parent = nullptr);
    ~JournalCloseForm() override;

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
    std::string id() const;
    std::string by() const;

    std::unique_ptr<Ui::JournalCloseForm> m_ui;
};

} // namespace pw::gui
