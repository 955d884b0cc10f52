#pragma once

#include "ledger/ConfigEditor.h"

#include <QDialog>
#include <map>
#include <memory>
#include <optional>
#include <string>

class QLabel;
class QPlainTextEdit;

namespace Ui {
class SettingsDialog;
}

namespace pw::gui {

// Edits the config.toml values the static audit depends on: `python`,
// `test_globs`, `fixture_globs`, `latitude_max`. Each field is checked as it is typed and
// says why it is wrong; OK stays disabled until all are right. OK writes only the values
// that changed, spliced into the file as it was (ConfigEditor: comments, order and
// unknown keys survive), atomically, and refuses when the file changed on disk meanwhile.
class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    // `ledgerDir` relative to `repoRoot` (or absolute): the file is `<ledgerDir>/config.toml`.
    explicit SettingsDialog(const QString &repoRoot,
                            const QString &ledgerDir = QStringLiteral(".patchwitness"),
                            QWidget *parent = nullptr);
    ~SettingsDialog() override;

    static QString configPathFor(const QString &repoRoot, const QString &ledgerDir);
    // Why `python` would not run, or empty; `resolved` gets the interpreter found. Paths
    // with a '/' are relative to `repoRoot`; bare names are looked up on PATH.
    static QString pythonProblem(const QString &python, const QString &repoRoot,
                                 QString *resolved = nullptr);

    QString configPath() const { return m_path; }
    bool isValid() const;
    // The values OK would write: those that differ from the file (or from the defaults
    // for keys the file does not set).
    std::map<std::string, core::ConfigValue> changes() const;
    bool written() const { return m_written; }
    QString lastError() const { return m_lastError; }

    void accept() override;

private:
    void load();
    void validate();
    void browse();
    void showError(const QString &message);
    QStringList globs(const QPlainTextEdit *edit) const;
    QString globsProblem(const QStringList &globs, bool required) const;

    std::unique_ptr<Ui::SettingsDialog> m_ui;
    QString m_repoRoot;
    QString m_path;
    std::string m_original; // the bytes loaded; empty when the file did not exist
    std::map<std::string, std::optional<core::ConfigValue>> m_fileValues;
    bool m_loadFailed = false;
    bool m_written = false;
    QString m_lastError;
};

} // namespace pw::gui
