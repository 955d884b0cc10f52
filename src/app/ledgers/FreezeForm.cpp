#include "ledgers/FreezeForm.h"

#include "ledger/LedgerDate.h"
#include "ui_FreezeForm.h"
#include "util/Error.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QRegularExpressionValidator>

namespace pw::gui {
namespace {

QString joined(const std::vector<long long> &values)
{
    QStringList out;
    for (long long v : values)
        out << QString::number(v);
    return out.join(QStringLiteral(", "));
}

QString joined(const std::vector<std::string> &values)
{
    QStringList out;
    for (const std::string &v : values)
        out << QString::fromStdString(v);
    return out.join(QStringLiteral(", "));
}

QString text(const std::optional<std::string> &value)
{
    return value ? QString::fromStdString(*value) : QString();
}

QString number(const std::optional<long long> &value)
{
    return value ? QString::number(*value) : QString();
}

core::LedgerProblem badValue(const std::string &field, const std::string &message)
{
    core::LedgerProblem p;
    p.field = field;
    p.rule = "bad-value";
    p.message = message;
    return p;
}

// An integer field: absent when empty, a problem when it is not an integer.
std::optional<long long> integer(const QString &text, const std::string &field,
                                 std::vector<core::LedgerProblem> *problems)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return std::nullopt;
    bool ok = false;
    const long long v = t.toLongLong(&ok);
    if (!ok && problems)
        problems->push_back(badValue(field, "\"" + t.toStdString() + "\" is not an integer"));
    return ok ? std::optional<long long>(v) : std::nullopt;
}

QStringList items(const QString &text)
{
    QStringList out;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (!part.trimmed().isEmpty())
            out << part.trimmed();
    }
    return out;
}

} // namespace

FreezeForm::FreezeForm(const FreezeSeed &seed, const LedgerFormContext &context, QWidget *parent)
    : LedgerForm(parent), m_ui(std::make_unique<Ui::FreezeForm>()),
      m_evidence(seed.evidence.value_or(core::FreezeCase())), m_evidenceFiles(seed.evidenceFiles),
      m_evidenceBlocker(seed.evidenceBlocker)
{
    if (seed.entry.evidence && seed.entry.evidence->record)
        m_pins = seed.entry.evidence;
    m_ui->setupUi(this);
    m_ui->columns->setStretch(0, 1); // two equal columns: ids are long on both sides
    m_ui->columns->setStretch(1, 1);
    const core::QuarantineEntry &e = seed.entry;
    const QDate today = context.validation.today;
    m_ui->evidenceLabel->setText(
        seed.evidenceSource.isEmpty()
            ? tr("No attribution run backs this freeze yet: the evidence fields must come "
                 "from one (patchwitness-cli attribute).")
            : tr("Evidence from %1.").arg(seed.evidenceSource));
    if (!seed.evidenceNote.isEmpty())
        m_ui->evidenceLabel->setText(m_ui->evidenceLabel->text() + QLatin1Char(' ') +
                                     seed.evidenceNote);
    // What the freeze rule says of the records (not allowed, or what to run first).
    if (seed.evidence && !seed.evidence->allowed())
        m_ui->evidenceLabel->setText(
            m_ui->evidenceLabel->text() + QLatin1Char(' ') +
            (seed.evidence->refused() ? tr("No freeze: %1.") : tr("Not yet: %1."))
                .arg(QString::fromStdString(seed.evidence->reason())));
    m_ui->testEdit->setText(text(e.test));
    // The evidence belongs to this test: another test needs its own form.
    m_ui->testEdit->setReadOnly(e.test.has_value());
    m_ui->ownerCombo->addItems(seed.ownerCandidates);
    m_ui->ownerCombo->setCurrentText(e.owner ? text(e.owner) : seed.ownerCandidates.value(0));
    m_ui->ownerCombo->lineEdit()->setPlaceholderText(tr("who fixes the test"));
    m_ui->openedEdit->setDate(e.opened.value_or(today));
    m_ui->expiresEdit->setDate(
        e.expires.value_or(m_ui->openedEdit->date().addDays(context.validation.freezeMaxDays)));
    // The one verdict a freeze can have; an entry that says otherwise shows what it says
    // (and the validator why it cannot be written).
    if (e.verdict && *e.verdict != "PRE_EXISTING")
        m_ui->verdictCombo->addItem(text(e.verdict));
    m_ui->verdictCombo->setCurrentText(e.verdict ? text(e.verdict)
                                                 : QStringLiteral("PRE_EXISTING"));
    m_ui->verdictCombo->setEnabled(false);
    m_ui->verdictCombo->setToolTip(
        tr("A freeze is only for a failure that is PRE_EXISTING: it failed before the patch"));
    m_ui->attributionCombo->setCurrentText(text(e.attribution));
    m_ui->witnessSeedEdit->setText(number(e.witnessSeed));
    m_ui->baselineShaEdit->setText(text(e.baselineSha));
    if (e.evidence) {
        m_ui->baseFailEdit->setText(number(e.evidence->baseFail));
        m_ui->headFailEdit->setText(number(e.evidence->headFail));
        m_ui->modeCombo->setCurrentText(text(e.evidence->mode));
        if (e.evidence->seeds)
            m_ui->seedsEdit->setText(joined(*e.evidence->seeds));
        m_ui->envDigestEdit->setText(text(e.evidence->envDigest));
    } else {
        m_ui->modeCombo->setCurrentText(QString());
    }
    m_ui->obligationEdit->setText(text(e.obligation));
    m_ui->substituteCombo->addItems(seed.substituteCandidates);
    m_ui->substituteCombo->setCurrentText(e.substitute ? text(e.substitute)
                                                       : seed.substituteCandidates.value(0));
    m_ui->substituteCombo->lineEdit()->setPlaceholderText(
        tr("a test at head that keeps covering the behaviour"));
    if (e.guards)
        m_ui->guardsEdit->setText(joined(*e.guards));
    m_guardsOffered = e.guards.has_value(); // the seed had them: a lookup offers none later
    m_ui->replayEdit->setText(text(e.replay));
    if (e.lastReproduced)
        m_ui->lastReproducedEdit->setText(
            QString::fromStdString(core::ledgerDateText(*e.lastReproduced)));
    m_ui->noteEdit->setText(text(e.note));
    m_ui->byEdit->setText(e.grantedBy ? text(e.grantedBy) : context.reviewer);

    // What a run measured is the run's to say: filled from the record backing the freeze,
    // never typed (the form cannot check an invented fail count or digest against anything).
    const QString fromRecord =
        seed.evidenceSource.isEmpty()
            ? tr("Filled from the run that backs the freeze; none does yet: run "
                 "patchwitness-cli attribute %1")
                  .arg(text(e.test))
            : tr("From %1").arg(seed.evidenceSource);
    for (QLineEdit *edit :
         {m_ui->witnessSeedEdit, m_ui->baselineShaEdit, m_ui->baseFailEdit, m_ui->headFailEdit,
          m_ui->seedsEdit, m_ui->envDigestEdit, m_ui->replayEdit}) {
        edit->setReadOnly(true);
        edit->setToolTip(fromRecord);
        edit->setPlaceholderText(tr("from the run's record")); // never a prompt to type
    }
    for (QComboBox *combo : {m_ui->attributionCombo, m_ui->modeCombo}) {
        const QString value = combo->currentText(); // the record's, or nothing
        combo->setEditable(false);
        if (!value.isEmpty() && combo->findText(value) < 0)
            combo->addItem(value);
        combo->setCurrentIndex(combo->findText(value));
        combo->setEnabled(false);
        combo->setToolTip(fromRecord);
    }

    const auto digits = [this](QLineEdit *edit, const QString &pattern) {
        edit->setValidator(new QRegularExpressionValidator(QRegularExpression(pattern), edit));
    };
    digits(m_ui->witnessSeedEdit, QStringLiteral("-?[0-9]*"));
    digits(m_ui->baseFailEdit, QStringLiteral("[0-9]*"));
    digits(m_ui->headFailEdit, QStringLiteral("[0-9]*"));
    digits(m_ui->seedsEdit, QStringLiteral("[-0-9, ]*"));

    const auto field = [this](QWidget *w, const char *name) {
        int row = -1;
        QFormLayout::ItemRole role;
        m_ui->fields->getWidgetPosition(w, &row, &role);
        addField(row >= 0 ? m_ui->fields : m_ui->fields2, w, {QString::fromLatin1(name)});
    };
    field(m_ui->testEdit, "test");
    field(m_ui->ownerCombo, "owner");
    field(m_ui->openedEdit, "opened");
    field(m_ui->expiresEdit, "expires");
    field(m_ui->verdictCombo, "verdict");
    field(m_ui->attributionCombo, "attribution");
    field(m_ui->witnessSeedEdit, "witness_seed");
    field(m_ui->baselineShaEdit, "baseline_sha");
    field(m_ui->baseFailEdit, "evidence.base_fail");
    field(m_ui->headFailEdit, "evidence.head_fail");
    field(m_ui->modeCombo, "evidence.mode");
    field(m_ui->seedsEdit, "evidence.seeds");
    field(m_ui->envDigestEdit, "evidence.env_digest");
    field(m_ui->obligationEdit, "obligation");
    field(m_ui->substituteCombo, "substitute");
    field(m_ui->guardsEdit, "guards");
    field(m_ui->replayEdit, "replay");
    field(m_ui->lastReproducedEdit, "last_reproduced");
    field(m_ui->noteEdit, "note");
    field(m_ui->byEdit, "granted_by");
}

FreezeForm::~FreezeForm() = default;

void FreezeForm::offerHeadTests(const QStringList &substitutes,
                                const std::vector<std::string> &guards)
{
    offerItems(m_ui->substituteCombo, substitutes);
    // Once, into a field nobody filled: guards the reviewer cleared stay cleared.
    if (!m_guardsOffered && !guards.empty()) {
        m_guardsOffered = true;
        if (m_ui->guardsEdit->text().trimmed().isEmpty())
            m_ui->guardsEdit->setText(joined(guards));
    }
}

QString FreezeForm::title() const
{
    return tr("Grant Freeze");
}

QString FreezeForm::fileName() const
{
    return QString::fromLatin1(core::QuarantineLedger::kFileName);
}

QString FreezeForm::intro() const
{
    return tr("A freeze lets a test that already failed before the patch (PRE_EXISTING) stay "
              "red for a bounded time. It needs an owner, an expiry, the attribution evidence, "
              "a substitute test and the files the patch must leave alone meanwhile.");
}

core::QuarantineEntry FreezeForm::entry(std::vector<core::LedgerProblem> *problems) const
{
    core::QuarantineEntry e;
    e.test = optionalText(m_ui->testEdit->text());
    e.owner = optionalText(m_ui->ownerCombo->currentText());
    e.opened = m_ui->openedEdit->date();
    e.expires = m_ui->expiresEdit->date();
    e.verdict = optionalText(m_ui->verdictCombo->currentText());
    e.attribution = optionalText(m_ui->attributionCombo->currentText());
    e.witnessSeed = integer(m_ui->witnessSeedEdit->text(), "witness_seed", problems);
    e.baselineSha = optionalText(m_ui->baselineShaEdit->text());
    core::FreezeEvidence ev; // always present: the validator names each missing part
    ev.baseFail = integer(m_ui->baseFailEdit->text(), "evidence.base_fail", problems);
    ev.headFail = integer(m_ui->headFailEdit->text(), "evidence.head_fail", problems);
    ev.mode = optionalText(m_ui->modeCombo->currentText());
    const QStringList seeds = items(m_ui->seedsEdit->text());
    if (!seeds.isEmpty()) {
        std::vector<long long> list;
        for (const QString &s : seeds) {
            if (const std::optional<long long> v = integer(s, "evidence.seeds", problems))
                list.push_back(*v);
        }
        ev.seeds = std::move(list);
    }
    ev.envDigest = optionalText(m_ui->envDigestEdit->text());
    if (m_pins) { // the records' copies in evidence/: no field of the form, never typed
        ev.record = m_pins->record;
        ev.recordSha256 = m_pins->recordSha256;
        ev.cells = m_pins->cells;
        ev.cellsSha256 = m_pins->cellsSha256;
    }
    e.evidence = std::move(ev);
    e.obligation = optionalText(m_ui->obligationEdit->text());
    e.substitute = optionalText(m_ui->substituteCombo->currentText());
    const QStringList guards = items(m_ui->guardsEdit->text());
    if (!guards.isEmpty()) {
        std::vector<std::string> list;
        for (const QString &g : guards)
            list.push_back(g.toStdString());
        e.guards = std::move(list);
    }
    e.replay = optionalText(m_ui->replayEdit->text());
    if (const QString day = m_ui->lastReproducedEdit->text().trimmed(); !day.isEmpty()) {
        e.lastReproduced = core::parseLedgerDate(day.toStdString());
        if ((!e.lastReproduced || day.size() != 10) && problems) {
            e.lastReproduced.reset();
            problems->push_back(badValue("last_reproduced", "\"" + day.toStdString() +
                                                                "\" is not a date (YYYY-MM-DD)"));
        }
    }
    e.note = optionalText(m_ui->noteEdit->text());
    e.grantedBy = optionalText(m_ui->byEdit->text());
    if (!e.grantedBy && problems) {
        core::LedgerProblem p;
        p.field = "granted_by";
        p.rule = "missing-field";
        p.message = "who grants the freeze (a human decision, recorded with its author)";
        problems->push_back(std::move(p));
    }
    return e;
}

std::vector<core::LedgerProblem> FreezeForm::problems(const std::string &loaded,
                                                      const std::string &origin,
                                                      const core::LedgerActions &actions) const
{
    std::vector<core::LedgerProblem> out;
    const core::QuarantineEntry e = entry(&out);
    for (core::LedgerProblem &p : out) {
        p.file = origin;
        p.entry = e.id();
    }
    if (!m_evidenceBlocker.isEmpty()) {
        core::LedgerProblem p;
        p.file = origin;
        p.entry = e.id();
        p.field = "evidence";
        p.rule = "evidence";
        p.message = "no freeze: " + m_evidenceBlocker.toStdString();
        out.push_back(std::move(p));
    }
    std::vector<core::LedgerProblem> more = actions.problemsOf(loaded, origin, e, &m_evidence);
    out.insert(out.end(), more.begin(), more.end());
    return out;
}

std::string FreezeForm::draft(const std::string &loaded, const std::string &,
                              const core::LedgerActions &) const
{
    return core::QuarantineLedger::append(loaded, entry());
}

std::string FreezeForm::apply(const std::string &loaded, const std::string &origin,
                              const core::LedgerActions &actions) const
{
    if (!m_evidenceBlocker.isEmpty())
        throw core::Error::input("no freeze: " + m_evidenceBlocker.toStdString());
    std::vector<core::LedgerProblem> unreadable;
    const core::QuarantineEntry e = entry(&unreadable);
    if (!unreadable.empty())
        throw core::Error::input(unreadable.front().field + ": " + unreadable.front().message);
    return actions.freeze(loaded, origin, e, &m_evidence);
}

} // namespace pw::gui
