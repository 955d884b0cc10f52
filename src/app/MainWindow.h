#pragma once

#include "AuditRunner.h"

#include <QMainWindow>
#include <memory>

class QLabel;
class QSortFilterProxyModel;

namespace Ui {
class MainWindow;
}

namespace pw::gui {

class ChangedFilesModel;
class DiffDocument;
class FindingsModel;

// The workbench window: changed files, the patch diff and the findings of the static
// audit, with the gate verdict in the status bar. Views never touch libgit2 or
// processes: the audit runs in AuditRunner.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    void openRepository(const QString &path, const QString &base = {}, const QString &head = {});
    AuditRunner &runner() { return *m_runner; }
    void setPython(const QString &python) { m_python = python; }
    QString verdictText() const;

private:
    void startAudit();
    void showOutcome();
    void showFile(const QString &path);
    void selectFinding(const QModelIndex &proxyIndex);
    void chooseRepository();
    void exportReport();
    void about();

    std::unique_ptr<Ui::MainWindow> m_ui;
    std::unique_ptr<AuditRunner> m_runner;
    std::unique_ptr<DiffDocument> m_diff;
    FindingsModel *m_findings;
    QSortFilterProxyModel *m_findingsProxy;
    ChangedFilesModel *m_files;
    QSortFilterProxyModel *m_filesProxy;
    QLabel *m_verdictChip;
    QString m_repo;
    QString m_python;
    QString m_shownPath;
};

} // namespace pw::gui
