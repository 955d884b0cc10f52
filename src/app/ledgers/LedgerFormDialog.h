#pragma once

#include "ledger/LedgerStore.h"
#include "ledgers/LedgerForm.h"

#include <QDialog>
#include <memory>
#include <optional>

namespace Ui {
class LedgerFormDialog;
}

namespace pw::gui {

// Hosts one LedgerForm: reads its ledger file when it opens (LedgerStore), validates the
// fields on every edit (OK stays disabled and each field says why), previews the exact
// lines it will write, and on OK writes atomically. When the file changed on disk in the
// meantime the write is refused, the dialog stays open with every field as typed, and
// Reload reads the file again.
//
// The fields never move: what is wrong is listed in one box of fixed height under them
// (problemList; a click on a line puts the focus in its field) and the field's label turns
// red. The dialog opens no taller than the screen it is on.
//
// Object names for tests: intro, fileLabel, problemList, previewCaption, preview,
// buttonBox, reloadButton.
class LedgerFormDialog : public QDialog
{
    Q_OBJECT
public:
    // Takes `form` (reparented into the dialog).
    LedgerFormDialog(LedgerForm *form, LedgerFormContext context, QWidget *parent = nullptr);
    ~LedgerFormDialog() override;

    LedgerForm *form() const { return m_form; }
    QString filePath() const;
    bool isValid() const { return m_valid; }
    // Problems no field shows (parse errors, duplicates), one per line; empty when none.
    QString generalProblems() const;
    QString previewCaption() const;
    QString previewText() const;
    bool written() const { return m_written; }
    // The message of the last refused write or read, empty when none.
    QString lastError() const { return m_lastError; }

    void accept() override;
    // Reads the ledger file again (fields keep their values) and validates.
    void reload();
    // Validates the fields again: what they name may be known better now (the tests at
    // head a lookup has just answered).
    void validate();

Q_SIGNALS:
    void ledgerWritten(const QString &path);

private:
    void showPreview(const std::string &before, const std::string &after);
    void setError(const QString &message);
    void showProblemList(); // the fields' problems, then m_general
    std::string origin() const;

    std::unique_ptr<Ui::LedgerFormDialog> m_ui;
    LedgerForm *m_form;
    LedgerFormContext m_context;
    core::LedgerActions m_actions;
    std::optional<core::LedgerStore> m_store;
    bool m_valid = false;
    bool m_written = false;
    QString m_lastError;
    QString m_general; // problems no field shows, one per line
};

} // namespace pw::gui
