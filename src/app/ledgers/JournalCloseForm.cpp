#include "ledgers/JournalCloseForm.h"

#include "ui_JournalCloseForm.h"

namespace pw::gui {

JournalCloseForm::JournalCloseForm(const core::JournalRow &row, const LedgerFormContext &context,
                                   QWidget *parent)
    : LedgerForm(parent), m_ui(std::make_unique<Ui::JournalCloseForm>())
{
    m_ui->setupUi(this);
    QStringList replays;
    if (row.replays) {
        for (const core::JournalReplay &r : *row.replays)
            replays << QStringLiteral("%1 (env %2)")
                           .arg(QString::fromStdString(r.outcome.value_or("?")),
                                QString::fromStdString(r.env.value_or("?")));
    }
    m_ui->rowLabel->setText(
        tr("Seed %1 · env %2 · replays, oldest first: %3")
            .arg(row.seed ? QString::number(*row.seed) : QStringLiteral("null"),
                 QString::fromStdString(row.env.value_or("—")),
                 replays.isEmpty() ? tr("none") : replays.join(QStringLiteral(", "))));
    m_ui->idEdit->setText(QString::fromStdString(row.key()));
    m_ui->byEdit->setText(context.reviewer);
    addField(m_ui->fields, m_ui->idEdit,
             {QStringLiteral("id"), QStringLiteral("replays"), QStringLiteral("status"),
              QStringLiteral("env")});
    addField(m_ui->fields, m_ui->byEdit, {QStringLiteral("closed_by")});
}

JournalCloseForm::~JournalCloseForm() = default;

QString JournalCloseForm::title() const
{
    return tr("Close Journal Row");
}

QString JournalCloseForm::fileName() const
{
    return QString::fromLatin1(core::SeedJournal::kFileName);
}

QString JournalCloseForm::intro() const
{
    return tr("A journal row closes once its seed passed twice in a row on the same "
              "environment. Closing records who decided it.");
}

std::string JournalCloseForm::id() const
{
    return m_ui->idEdit->text().toStdString();
}

std::string JournalCloseForm::by() const
{
    return m_ui->byEdit->text().trimmed().toStdString();
}

std::vector<core::LedgerProblem>
JournalCloseForm::problems(const std::string &loaded, const std::string &origin,
                           const core::LedgerActions &actions) const
{
    return actions.problemsOfClosing(loaded, origin, id(), by());
}

std::string JournalCloseForm::draft(const std::string &loaded, const std::string &origin,
                                    const core::LedgerActions &actions) const
{
    return core::SeedJournal::closeRow(loaded, origin, id(), by(),
                                       actions.validator().context().today);
}

std::string JournalCloseForm::apply(const std::string &loaded, const std::string &origin,
                                    const core::LedgerActions &actions) const
{
    return actions.closeJournalRow(loaded, origin, id(), by());
}

} // namespace pw::gui
