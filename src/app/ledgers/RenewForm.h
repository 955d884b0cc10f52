#pragma once

#include "ledger/QuarantineLedger.h"
#include "ledgers/LedgerForm.h"

#include <memory>

namespace Ui {
class RenewForm;
}

namespace pw::gui {

// Renew freeze (quarantine.toml): a new expiry within freeze_max_days of today, resting on
// a reproduction within renewal_recency_days. Edits the entry in place.
class RenewForm : public LedgerForm
{
    Q_OBJECT
public:
    // `current` is the freeze as the ledger holds it (for the summary line and its test).
    RenewForm(const core::QuarantineEntry &current, const LedgerFormContext &context,
              QWidget *parent = nullptr);
    ~RenewForm() override;

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
    std::string test() const;

    std::unique_ptr<Ui::RenewForm> m_ui;
};

} // namespace pw::gui
