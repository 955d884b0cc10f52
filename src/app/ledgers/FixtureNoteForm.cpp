#include "ledgers/FixtureNoteForm.h"

#include "ledger/FixtureDigestLedger.h"
#include "ui_FixtureNoteForm.h"
#include "util/Format.h"

namespace pw::gui {

FixtureNoteForm::FixtureNoteForm(const FixtureNoteSeed &seed, const LedgerFormContext &,
                                 QWidget *parent)
    : LedgerForm(parent), m_ui(std::make_unique<Ui::FixtureNoteForm>())
{
    m_ui->setupUi(this);
    m_ui->changeLabel->setText(seed.baseSha256.isEmpty()
                                   ? tr("sha256 at head %1").arg(seed.sha256.left(12))
                                   : tr("sha256 %1 at base → %2 at head")
                                         .arg(seed.baseSha256.left(12), seed.sha256.left(12)));
    m_headSha = seed.sha256.toStdString();
    m_ui->pathEdit->setText(seed.path);
    m_ui->shaEdit->setText(seed.sha256);
    m_ui->noteEdit->setText(seed.note);
    addField(m_ui->fields, m_ui->pathEdit, {QStringLiteral("path")});
    addField(m_ui->fields, m_ui->shaEdit, {QStringLiteral("sha256")});
    addField(m_ui->fields, m_ui->noteEdit, {QStringLiteral("note")});
}

FixtureNoteForm::~FixtureNoteForm() = default;

QString FixtureNoteForm::title() const
{
    return tr("Edit Fixture Note");
}

QString FixtureNoteForm::fileName() const
{
    return QString::fromLatin1(core::FixtureDigestLedger::kFileName);
}

QString FixtureNoteForm::intro() const
{
    return tr("A golden fixture changed. Record its new digest and say why the expected "
              "output changed; a patch that only edits fixtures to turn tests green has no "
              "good answer here.");
}

std::string FixtureNoteForm::path() const
{
    return m_ui->pathEdit->text().trimmed().toStdString();
}

std::string FixtureNoteForm::sha() const
{
    return m_ui->shaEdit->text().trimmed().toStdString();
}

std::string FixtureNoteForm::note() const
{
    return m_ui->noteEdit->text().trimmed().toStdString();
}

std::vector<core::LedgerProblem> FixtureNoteForm::problems(const std::string &loaded,
                                                           const std::string &origin,
                                                           const core::LedgerActions &actions) const
{
    if (!loaded.empty())
        core::FixtureDigestLedger::parse(loaded, origin); // throws with line and column
    std::vector<core::LedgerProblem> out = actions.problemsOfNote(origin, path(), sha(), note());
    if (!m_headSha.empty() && sha() != m_headSha) {
        core::LedgerProblem p;
        p.file = origin;
        p.entry = path();
        p.field = "sha256";
        p.rule = "digest";
        p.message = "not the fixture's digest at head (" + core::shortId(m_headSha) +
                    "…): a note answers F-DRIFT only for the content the patch leaves";
        out.push_back(std::move(p));
    }
    return out;
}

std::string FixtureNoteForm::draft(const std::string &loaded, const std::string &origin,
                                   const core::LedgerActions &) const
{
    return core::FixtureDigestLedger::set(loaded, origin, path(), sha(),
                                          note().empty() ? std::nullopt
                                                         : std::optional<std::string>(note()));
}

std::string FixtureNoteForm::apply(const std::string &loaded, const std::string &origin,
                                   const core::LedgerActions &actions) const
{
    return actions.noteFixture(loaded, origin, path(), sha(), note());
}

} // namespace pw::gui
