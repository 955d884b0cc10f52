#pragma once

#include "ledger/EvidenceFiles.h"
#include "ledger/LedgerActions.h"
#include "ledger/LedgerValidator.h"

#include <QString>
#include <QStringList>
#include <QWidget>
#include <string>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;

namespace pw::gui {

// What every ledger form needs from the window: where the ledgers live, how entries are
// judged (today, the config's limits, which tests exist at head) and who is deciding.
struct LedgerFormContext
{
    QString ledgerDir;  // absolute directory on disk
    QString displayDir; // how messages name it (".patchwitness")
    core::ValidationContext validation;
    QString reviewer;   // pre-fills the "by" field (git config user.name, or settings)
    QString countsWhen; // LedgerDesk::whenEntriesCount(), shown under the file it writes
    // Why entries cannot be judged right now (the tests at head cannot be looked up, so
    // witnesses and substitutes cannot be checked); non-empty keeps Write disabled.
    QString unavailable;
};

// The field page of one ledger form. A subclass lays out its fields in
// its own .ui, registers each with addField() under the ledger field names it answers
// for, and turns its values into the entry it writes: problems() for live validation,
// apply() for the text to write. LedgerFormDialog hosts it.
class LedgerForm : public QWidget
{
    Q_OBJECT
public:
    explicit LedgerForm(QWidget *parent = nullptr);
    ~LedgerForm() override;

    virtual QString title() const = 0;
    virtual QString fileName() const = 0; // "quarantine.toml"
    virtual QString intro() const = 0;    // what the decision means, one or two sentences

    // The problems of the entry the form would write into `loaded` (the file as read). A
    // required field that is empty is one of them. Throws core::Error::input when `loaded`
    // itself does not parse or the entry the form edits is not there.
    virtual std::vector<core::LedgerProblem> problems(const std::string &loaded,
                                                      const std::string &origin,
                                                      const core::LedgerActions &actions) const = 0;
    // The file's new text without validation, for the preview while fields are wrong.
    virtual std::string draft(const std::string &loaded, const std::string &origin,
                              const core::LedgerActions &actions) const = 0;
    // The file's new text, validated by LedgerActions (throws core::Error::input if refused).
    virtual std::string apply(const std::string &loaded, const std::string &origin,
                              const core::LedgerActions &actions) const = 0;

    // Files the entry points to that Write copies into the ledger directory first (a
    // freeze's evidence/ records); none for most forms.
    virtual std::vector<core::EvidenceCopy> companionFiles() const { return {}; }

    // Shows each problem under the field it names and clears the others; returns the
    // problems no field of this form shows (the dialog lists them).
    std::vector<core::LedgerProblem> showProblems(const std::vector<core::LedgerProblem> &problems);
    // Why the field that answers `field` is wrong ("" when it is not); for tests.
    QString reason(const QString &field) const;
    QWidget *fieldWidget(const QString &field) const;
    // The fields that are wrong, in the form's order: their label, why, and the widget
    // (the dialog lists them in one box of its own, so no field moves when one is wrong).
    struct FieldProblem
    {
        QString label;
        QString reason;
        QWidget *widget = nullptr;
    };
    std::vector<FieldProblem> fieldProblems() const;

Q_SIGNALS:
    void changed();

protected:
    // `widget` (a row of `layout`) answers for `fields` ("evidence" also answers for
    // "evidence.mode" and the like). Its label turns red while it is wrong (nothing is
    // inserted: the layout never moves), and it emits changed() when it is edited.
    void addField(QFormLayout *layout, QWidget *widget, const QStringList &fields);
    // Empty (or blank) text as an absent value: the validator names missing fields.
    static std::optional<std::string> optionalText(const QString &text);
    // Adds the `candidates` `combo` does not list yet; an editable combo left empty takes
    // the first of them (what it would have shown had they been known when it opened).
    static void offerItems(QComboBox *combo, const QStringList &candidates);

private:
    struct Field
    {
        QWidget *widget = nullptr;
        QLabel *label = nullptr; // the form layout's label of the row, if any
        QStringList names;
        QString hint;   // the widget's tool tip when it was added
        QString reason; // why it is wrong; empty when it is not
    };
    const Field *fieldFor(const QString &name) const;

    std::vector<Field> m_fields;
};

} // namespace pw::gui
