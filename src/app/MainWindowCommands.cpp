// MainWindow: the commands of the File and Help menus — open a repository or a patch,
// export and copy the report, settings, shortcuts, about — drag and drop, and closing.
#include "MainWindow.h"
#include "audit/ReportFormat.h"
#include "ui_MainWindow.h"
#include "util/Files.h"
#include "workspace/RecentRepositories.h"
#include "workspace/SettingsDialog.h"
#include "workspace/ShortcutsDialog.h"

#include <QChildEvent>
#include <QClipboard>
#include <QCloseEvent>
#include <QDialog>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QTabBar>

namespace pw::gui {
namespace {

bool isPatchFile(const QString &path)
{
    return path.endsWith(QLatin1String(".diff")) || path.endsWith(QLatin1String(".patch"));
}

} // namespace

void MainWindow::chooseRepository()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Repository"), m_repo);
    if (dir.isEmpty())
        return;
    m_recent->add(dir);
    refreshRecentMenu();
    openRepository(dir);
}

void MainWindow::choosePatch()
{
    if (m_repo.isEmpty()) {
        QMessageBox::information(this, tr("Open Patch"),
                                 tr("Open the repository the patch applies to first."));
        return;
    }
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Open Patch File as Head"), m_repo, tr("Patches (*.diff *.patch);;All files (*)"));
    if (file.isEmpty())
        return;
    m_ui->headPicker->setSpec(QStringLiteral("PATCH:") + file);
    startAudit();
}

void MainWindow::exportReport()
{
    const AuditOutcome &out = m_runner->outcome();
    if (!out.ok)
        return;
    const QString file = QFileDialog::getSaveFileName(
        this, tr("Export Report"), QStringLiteral("patchwitness-report.md"),
        tr("Markdown (*.md);;HTML (*.html);;JSON (*.json)"));
    if (file.isEmpty())
        return;
    const core::ReportFormat format =
        file.endsWith(QLatin1String(".json"))   ? core::ReportFormat::Json
        : file.endsWith(QLatin1String(".html")) ? core::ReportFormat::Html
                                                : core::ReportFormat::Markdown;
    std::string error;
    if (!core::writeFileAtomically(file.toStdString(), core::formatReport(report(), format), false,
                                   &error)) {
        log(LogError, QString::fromStdString(error));
        QMessageBox::warning(this, tr("Export Report"), QString::fromStdString(error));
        return;
    }
    log(LogInfo, tr("Report written to %1").arg(file));
}

void MainWindow::copyMarkdown()
{
    const AuditOutcome &out = m_runner->outcome();
    if (!out.ok)
        return;
    QGuiApplication::clipboard()->setText(
        QString::fromStdString(core::formatReport(report(), core::ReportFormat::Markdown)));
    statusBar()->showMessage(tr("Report copied as Markdown"), 3000);
}

void MainWindow::openSettings()
{
    if (m_repoRoot.isEmpty())
        return;
    const QString workTree = m_workTree; // of the last audit that ran, not a failed one
    if (workTree.isEmpty()) {
        QMessageBox::information(
            this, tr("Settings"),
            tr("%1 is a bare repository: there is no work tree to write "
               ".patchwitness/config.toml into. Open a clone of it to change its settings.")
                .arg(m_repoRoot));
        return;
    }
    SettingsDialog dialog(workTree, QStringLiteral(".patchwitness"), this);
    if (dialog.exec() == QDialog::Accepted && dialog.written()) {
        // The gate reads config.toml from the base revision (a patch cannot loosen its
        // own gate): the new values count once they are committed.
        log(LogInfo, tr("Settings written to %1; they apply to audits whose base revision "
                        "contains them (commit the file)")
                         .arg(dialog.configPath()));
    }
}

void MainWindow::showShortcuts()
{
    ShortcutsDialog dialog(this);
    dialog.exec();
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About patchwitness"),
                       tr("<h3>patchwitness %1</h3><p>Review workbench for agent-written patches "
                          "against pytest repositories.</p><p>Qt %2 (built with %3)<br>Syntax "
                          "highlighting: %4</p>")
                           .arg(QStringLiteral(PATCHWITNESS_VERSION),
                                QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
                                DiffView::highlightingDescription()));
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().size() == 1 &&
        event->mimeData()->urls().constFirst().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = event->mimeData()->urls().constFirst().toLocalFile();
    if (QFileInfo(path).isDir()) {
        m_recent->add(path);
        refreshRecentMenu();
        openRepository(path);
    } else if (isPatchFile(path) && !m_repo.isEmpty()) {
        m_ui->headPicker->setSpec(QStringLiteral("PATCH:") + path);
        startAudit();
    } else {
        log(LogWarning, tr("Dropped %1: drop a repository folder, or a .diff/.patch file onto an "
                           "open repository")
                            .arg(path));
        return;
    }
    event->acceptProposedAction();
}

void MainWindow::childEvent(QChildEvent *event)
{
    if (event->polished()) {
        if (auto *bar = qobject_cast<QTabBar *>(event->child())) {
            bar->setElideMode(Qt::ElideNone);
            bar->setUsesScrollButtons(true);
            bar->setExpanding(false);
        }
    }
    QMainWindow::childEvent(event);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

} // namespace pw::gui
