#include "ledgers/WaiverForm.h"

#include "ledger/WaiverLedger.h"
#include "ui_WaiverForm.h"

namespace pw::gui {

WaiverForm::WaiverForm(const WaiverSeed &seed, const LedgerFormContext &context, QWidget *parent)
    : LedgerForm(parent), m_ui(std::make_unique<Ui::WaiverForm>())
{
    m_ui->setupUi(this);
    m_ui->nodeEdit->setText(seed.node);
    m_ui->nodeEdit->setReadOnly(!seed.node.isEmpty()); // the form is about this node
    m_ui->reasonCombo->setCurrentIndex(m_ui->reasonCombo->findText(seed.reason));
    m_ui->witnessCombo->addItems(seed.witnessCandidates);
    m_ui->witnessCombo->setCurrentText(!seed.witness.isEmpty() ? seed.witness
                                                               : seed.witnessCandidates.value(0));
    m_ui->witnessCombo->lineEdit()->setPlaceholderText(
        tr("a test at head that covers the behaviour now"));
    m_ui->byEdit->setText(context.reviewer);
    addField(m_ui->fields, m_ui->nodeEdit, {QStringLiteral("node")});
    addField(m_ui->fields, m_ui->reasonCombo, {QStringLiteral("reason")});
    addField(m_ui->fields, m_ui->witnessCombo, {QStringLiteral("witness")});
    addField(m_ui->fields, m_ui->noteEdit, {QStringLiteral("note")});
    addField(m_ui->fields, m_ui->byEdit, {QStringLiteral("approved_by")});
}

WaiverForm::~WaiverForm() = default;

void WaiverForm::offerWitnesses(const QStringList &candidates)
{
    offerItems(m_ui->witnessCombo, candidates);
}

QString WaiverForm::title() const
{
    return tr("Approve Waiver");
}

QString WaiverForm::fileName() const
{
    return QString::fromLatin1(core::WaiverLedger::kFileName);
}

QString WaiverForm::intro() const
{
    return tr("The patch removes this test node. Approving a waiver accepts the removal: name "
              "why it may go and which test at head covers the behaviour now.");
}

core::WaiverEntry WaiverForm::entry() const
{
    core::WaiverEntry e;
    e.node = optionalText(m_ui->nodeEdit->text());
    e.reason = optionalText(m_ui->reasonCombo->currentText());
    e.witness = optionalText(m_ui->witnessCombo->currentText());
    e.note = optionalText(m_ui->noteEdit->text());
    e.approvedBy = optionalText(m_ui->byEdit->text());
    return e;
}

std::vector<core::LedgerProblem> WaiverForm::problems(const std::string &loaded,
                                                      const std::string &origin,
                                                      const core::LedgerActions &actions) const
{
    core::WaiverEntry e = entry();
    e.approvedOn = actions.validator().context().today;
    return actions.problemsOf(loaded, origin, e);
}

std::string WaiverForm::draft(const std::string &loaded, const std::string &,
                              const core::LedgerActions &actions) const
{
    core::WaiverEntry e = entry();
    e.approvedOn = actions.validator().context().today;
    return core::WaiverLedger::append(loaded, e);
}

std::string WaiverForm::apply(const std::string &loaded, const std::string &origin,
                              const core::LedgerActions &actions) const
{
    return actions.waive(loaded, origin, entry());
}

} // namespace pw::gui
