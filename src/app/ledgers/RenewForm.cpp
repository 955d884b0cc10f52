#include "ledgers/RenewForm.h"

#include "ledger/LedgerDate.h"
#include "ui_RenewForm.h"

namespace pw::gui {
namespace {

const QDate kUnset(2000, 1, 1); // the date edit's minimum, shown as "not set"

QString day(const std::optional<QDate> &d)
{
    return d ? QString::fromStdString(core::ledgerDateText(*d)) : QStringLiteral("—");
}

} // namespace

RenewForm::RenewForm(const core::QuarantineEntry &current, const LedgerFormContext &context,
                     QWidget *parent)
    : LedgerForm(parent), m_ui(std::make_unique<Ui::RenewForm>())
{
    m_ui->setupUi(this);
    const QDate today = context.validation.today;
    m_ui->currentLabel->setText(
        tr("Owner %1 · opened %2 · expires %3 · last reproduced %4")
            .arg(current.owner ? QString::fromStdString(*current.owner) : QStringLiteral("—"),
                 day(current.opened), day(current.expires), day(current.lastReproduced)));
    m_ui->testEdit->setText(current.test ? QString::fromStdString(*current.test) : QString());
    // Nobody reproduced anything by opening a form: the day starts unset (the minimum,
    // shown as a prompt) unless the ledger already records one.
    m_ui->lastReproducedEdit->setMinimumDate(kUnset);
    m_ui->lastReproducedEdit->setMaximumDate(today);
    m_ui->lastReproducedEdit->setSpecialValueText(tr("when did you reproduce the failure?"));
    m_ui->lastReproducedEdit->setDate(current.lastReproduced && *current.lastReproduced > kUnset
                                          ? *current.lastReproduced
                                          : kUnset);
    m_ui->expiresEdit->setDate(today.addDays(context.validation.freezeMaxDays));
    m_ui->byEdit->setText(context.reviewer);
    addField(m_ui->fields, m_ui->testEdit, {QStringLiteral("test")});
    addField(m_ui->fields, m_ui->lastReproducedEdit, {QStringLiteral("last_reproduced")});
    addField(m_ui->fields, m_ui->expiresEdit, {QStringLiteral("expires")});
    addField(m_ui->fields, m_ui->byEdit, {QStringLiteral("renewed_by")});
}

RenewForm::~RenewForm() = default;

QString RenewForm::title() const
{
    return tr("Renew Freeze");
}

QString RenewForm::fileName() const
{
    return QString::fromLatin1(core::QuarantineLedger::kFileName);
}

QString RenewForm::intro() const
{
    return tr("Renewing keeps the freeze for another period. It rests on a recent "
              "reproduction of the failure: say when you reproduced it.");
}

std::string RenewForm::test() const
{
    return m_ui->testEdit->text().toStdString();
}

std::vector<core::LedgerProblem> RenewForm::problems(const std::string &loaded,
                                                     const std::string &origin,
                                                     const core::LedgerActions &actions) const
{
    if (m_ui->lastReproducedEdit->date() == kUnset) {
        std::vector<core::LedgerProblem> out;
        for (core::LedgerProblem &p : actions.problemsOfRenewal(
                 loaded, origin, test(), actions.validator().context().today,
                 m_ui->expiresEdit->date(), m_ui->byEdit->text().trimmed().toStdString())) {
            if (p.field != "last_reproduced")
                out.push_back(std::move(p));
        }
        core::LedgerProblem p;
        p.file = origin;
        p.entry = test();
        p.field = "last_reproduced";
        p.rule = "renewal-recency";
        p.message = "say when you last reproduced the failure: a renewal rests on it";
        out.push_back(std::move(p));
        return out;
    }
    return actions.problemsOfRenewal(loaded, origin, test(), m_ui->lastReproducedEdit->date(),
                                     m_ui->expiresEdit->date(),
                                     m_ui->byEdit->text().trimmed().toStdString());
}

std::string RenewForm::draft(const std::string &loaded, const std::string &origin,
                             const core::LedgerActions &actions) const
{
    return core::QuarantineLedger::renew(
        loaded, origin, test(),
        {actions.validator().context().today, m_ui->lastReproducedEdit->date(),
         m_ui->expiresEdit->date(), m_ui->byEdit->text().trimmed().toStdString()});
}

std::string RenewForm::apply(const std::string &loaded, const std::string &origin,
                             const core::LedgerActions &actions) const
{
    return actions.renew(loaded, origin, test(), m_ui->lastReproducedEdit->date(),
                         m_ui->expiresEdit->date(), m_ui->byEdit->text().trimmed().toStdString());
}

} // namespace pw::gui
