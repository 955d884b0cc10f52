#pragma once

#include "ledgers/LedgerForm.h"

#include <memory>

namespace Ui {
class WaiverForm;
}

namespace pw::gui {

// What the evidence at hand says about a removed node.
struct WaiverSeed
{
    QString node;
    QStringList witnessCandidates; // tests that exist at head, most likely first
    QString reason;                // empty: the reviewer picks
    QString witness;               // empty: the first candidate
};

// Approve waiver (census_waiver.toml): a removed test node a human accepts, with the
// reason and the test at head that covers the behaviour now.
class WaiverForm : public LedgerForm
{
    Q_OBJECT
public:
    WaiverForm(const WaiverSeed &seed, const LedgerFormContext &context, QWidget *parent = nullptr);
    ~WaiverForm() override;

    QString title() const override;
    QString fileName() const override;
    QString intro() const override;
    std::vector<core::LedgerProblem> problems(const std::string &loaded, const std::string &origin,
                                              const core::LedgerActions &actions) const override;
    std::string draft(const std::string &loaded, const std::string &origin,
                      const core::LedgerActions &actions) const override;
    std::string apply(const std::string &loaded, const std::string &origin,
                      const core::LedgerActions &actions) const override;

    core::WaiverEntry entry() const;
    // Witness candidates learnt after the form opened (a lookup of head's tests answered):
    // the new ones are offered; an empty witness field takes the first.
    void offerWitnesses(const QStringList &candidates);

private:
    std::unique_ptr<Ui::WaiverForm> m_ui;
};

} // namespace pw::gui
