#include "ledgers/LedgerForm.h"

#include "panels/SeverityStyle.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDateEdit>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QPlainTextEdit>

namespace pw::gui {

LedgerForm::LedgerForm(QWidget *parent) : QWidget(parent) {}

LedgerForm::~LedgerForm() = default;

void LedgerForm::addField(QFormLayout *layout, QWidget *widget, const QStringList &fields)
{
    auto *label = qobject_cast<QLabel *>(layout->labelForField(widget));
    m_fields.push_back({widget, label, fields, widget->toolTip(), QString()});

    const auto emitChanged = [this] { Q_EMIT changed(); };
    if (auto *edit = qobject_cast<QLineEdit *>(widget))
        connect(edit, &QLineEdit::textChanged, this, emitChanged);
    else if (auto *combo = qobject_cast<QComboBox *>(widget))
        connect(combo, &QComboBox::currentTextChanged, this, emitChanged);
    else if (auto *date = qobject_cast<QDateEdit *>(widget))
        connect(date, &QDateEdit::dateChanged, this, emitChanged);
    else if (auto *text = qobject_cast<QPlainTextEdit *>(widget))
        connect(text, &QPlainTextEdit::textChanged, this, emitChanged);
    // Composite fields (a group of edits) connect their parts themselves.
}

const LedgerForm::Field *LedgerForm::fieldFor(const QString &name) const
{
    for (const Field &f : m_fields) {
        if (f.names.contains(name))
            return &f;
    }
    for (const Field &f : m_fields) { // "evidence" answers for "evidence.mode"
        for (const QString &n : f.names) {
            if (name.startsWith(n + QLatin1Char('.')))
                return &f;
        }
    }
    return nullptr;
}

QWidget *LedgerForm::fieldWidget(const QString &field) const
{
    const Field *f = fieldFor(field);
    return f ? f->widget : nullptr;
}

QString LedgerForm::reason(const QString &field) const
{
    const Field *f = fieldFor(field);
    return f ? f->reason : QString();
}

std::vector<LedgerForm::FieldProblem> LedgerForm::fieldProblems() const
{
    std::vector<FieldProblem> out;
    for (const Field &f : m_fields) {
        if (f.reason.isEmpty())
            continue;
        QString label = f.label ? f.label->text() : f.names.value(0);
        label.remove(QLatin1Char('&'));
        out.push_back({label, f.reason, f.widget});
    }
    return out;
}

std::vector<core::LedgerProblem>
LedgerForm::showProblems(const std::vector<core::LedgerProblem> &problems)
{
    std::vector<QStringList> reasons(m_fields.size());
    std::vector<core::LedgerProblem> rest;
    for (const core::LedgerProblem &p : problems) {
        const Field *f = fieldFor(QString::fromStdString(p.field));
        if (!f) {
            rest.push_back(p);
            continue;
        }
        QString text = QString::fromStdString(p.message);
        // "missing required field `x`" says nothing new next to the field itself.
        const bool plainMissing =
            p.rule == "missing-field" && (p.message.starts_with("missing required field") ||
                                          p.message.starts_with("required field"));
        if (plainMissing && f->names.size() == 1 &&
            f->names.constFirst() == QString::fromStdString(p.field))
            text = tr("Required.");
        else if (plainMissing)
            text = tr("Required: %1.").arg(QString::fromStdString(p.field));
        reasons[size_t(f - m_fields.data())] << text;
    }
    for (size_t i = 0; i < m_fields.size(); ++i) {
        Field &f = m_fields[i];
        reasons[i].removeDuplicates();
        f.reason = reasons[i].join(QLatin1Char('\n'));
        if (f.label) {
            // The palette's own red for links that were visited is too faint; the text colour
            // of a negative value, from the palette, reads in light and dark themes.
            QPalette palette = f.label->parentWidget()->palette();
            if (!f.reason.isEmpty())
                palette.setColor(QPalette::WindowText, severity_style::problemText(palette));
            f.label->setPalette(palette);
        }
        // The field's own tip (where its value comes from) stays under the reasons.
        QStringList tip = reasons[i];
        if (!f.hint.isEmpty())
            tip << f.hint;
        f.widget->setToolTip(tip.join(QLatin1Char('\n')));
    }
    return rest;
}

std::optional<std::string> LedgerForm::optionalText(const QString &text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return std::nullopt;
    return t.toStdString();
}

void LedgerForm::offerItems(QComboBox *combo, const QStringList &candidates)
{
    QStringList fresh;
    for (const QString &c : candidates) {
        if (combo->findText(c) < 0 && !fresh.contains(c))
            fresh << c;
    }
    if (fresh.isEmpty())
        return;
    const QString typed = combo->currentText();
    combo->addItems(fresh);
    // addItems makes an empty combo select its first item; what was typed stays.
    combo->setCurrentText(typed.trimmed().isEmpty() ? fresh.constFirst() : typed);
}

} // namespace pw::gui
