// MainWindow: moving through the review — the file shown, the panels' rows, the next file
// or finding, the viewed marks.
#include "ChangedFilesModel.h"
#include "FindingsModel.h"
#include "MainWindow.h"
#include "diff/DiffView.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "ui_MainWindow.h"

#include <QLabel>

namespace pw::gui {

void MainWindow::showFile(const QString &path)
{
    const AuditOutcome &out = m_runner->outcome();
    const core::GateReport shown = report();
    for (const core::FileDiff &f : out.diff.files) {
        if (QString::fromStdString(f.path()) != path)
            continue;
        std::vector<core::Finding> findings;
        for (const core::Finding &finding : shown.findings) {
            // A renamed file's census rows of the base name its old path and base lines.
            if (finding.path == f.path() || (f.status == core::ChangeStatus::Renamed &&
                                             !f.oldPath.empty() && finding.path == f.oldPath))
                findings.push_back(finding);
        }
        m_currentPath = path;
        m_ui->diffView->setFile(f);
        m_ui->diffView->setFindings(findings);
        QString label = path;
        if (f.status == core::ChangeStatus::Renamed)
            label +=
                tr("  ← %1 (%2% similar)").arg(QString::fromStdString(f.oldPath)).arg(f.similarity);
        if (!f.binary)
            label += tr("  +%1 −%2").arg(f.additions).arg(f.deletions);
        m_ui->fileLabel->setText(label);
        const QModelIndex index = m_files->indexOfPath(path);
        if (index.isValid() && m_ui->filesView->currentIndex().siblingAtColumn(0) != index) {
            QSignalBlocker block(m_ui->filesView->selectionModel());
            m_ui->filesView->setCurrentIndex(index);
        }
        return;
    }
    // The file changed without a textual diff being kept (e.g. ignore-whitespace hid it).
    m_currentPath = path;
    m_ui->diffView->clear();
    m_ui->fileLabel->setText(tr("%1: no textual change with the current options").arg(path));
}

void MainWindow::onPanelRowActivated(const QString &path, int line)
{
    if (path.isEmpty())
        return;
    // A finding on a renamed file's old path (a census row of the base) opens the file under
    // its new name, at its line on the base side. A run's finding
    // on a file the patch does not change has no place in the diff: the status bar says so.
    QString target = path;
    bool oldSide = false;
    const core::GateReport &r = m_runner->outcome().report;
    const auto changed = std::find_if(r.changedFiles.begin(), r.changedFiles.end(),
                                      [&path](const core::ChangedFile &f) {
                                          return QString::fromStdString(f.path) == path ||
                                                 QString::fromStdString(f.oldPath) == path;
                                      });
    if (changed == r.changedFiles.end()) {
        statusBar()->showMessage(
            tr("%1 is not changed by the patch: the finding is about its tests, not a line of "
               "the diff")
                .arg(path),
            6000);
        return;
    }
    if (QString::fromStdString(changed->path) != path) {
        target = QString::fromStdString(changed->path);
        oldSide = true;
    }
    m_syncing = true;
    if (target != m_currentPath)
        showFile(target);
    if (line > 0)
        m_ui->diffView->scrollToLine(line, oldSide);
    m_syncing = false;
}

void MainWindow::onDiffLineChanged(int line, bool oldSide)
{
    if (m_syncing || m_currentPath.isEmpty())
        return;
    // The reviewer is reading this file: the panels follow it. A base-side line of a renamed
    // file is a line of its old path (the base's census rows name that one).
    const QString renamedFrom = m_findingsPanel->proxy()->renamedFrom(m_currentPath);
    const QString rowPath = oldSide && !renamedFrom.isEmpty() ? renamedFrom : m_currentPath;
    for (EvidencePanel *p : {m_findingsPanel, m_manifestPanel, m_latitudePanel, m_strengthPanel}) {
        p->setFileFilter(m_currentPath);
        if (!p->selectRow(rowPath, line) && rowPath != m_currentPath)
            p->selectRow(m_currentPath, line);
    }
}

void MainWindow::stepFile(int delta)
{
    // Walk the files in tree order (directories expanded).
    QList<QModelIndex> files;
    std::function<void(const QModelIndex &)> collect = [&](const QModelIndex &parent) {
        for (int r = 0; r < m_files->rowCount(parent); ++r) {
            const QModelIndex i = m_files->index(r, 0, parent);
            if (i.data(ChangedFilesModel::IsFileRole).toBool())
                files << i;
            else
                collect(i);
        }
    };
    collect({});
    if (files.isEmpty())
        return;
    int at = -1;
    for (int i = 0; i < files.size(); ++i) {
        if (files[i].data(ChangedFilesModel::PathRole).toString() == m_currentPath)
            at = i;
    }
    const int next = at < 0 ? 0 : (at + delta + int(files.size())) % int(files.size());
    m_ui->filesView->setCurrentIndex(files[next]);
}

void MainWindow::stepFinding(bool forward)
{
    if (forward ? m_ui->diffView->nextFinding() : m_ui->diffView->previousFinding())
        return;
    // No more findings in this file: go to the next file that has findings.
    const AuditOutcome &out = m_runner->outcome();
    const core::GateReport shown = report();
    std::vector<QString> paths; // files with anchored findings, in report order
    for (const core::ChangedFile &f : out.report.changedFiles) {
        const bool anchored =
            std::any_of(shown.findings.begin(), shown.findings.end(), [&f](const core::Finding &x) {
                return x.line > 0 && (x.path == f.path || (f.status == "R" && x.path == f.oldPath));
            });
        if (anchored)
            paths.push_back(QString::fromStdString(f.path));
    }
    if (paths.empty())
        return;
    auto it = std::find(paths.begin(), paths.end(), m_currentPath);
    size_t at = it == paths.end() ? 0 : size_t(it - paths.begin());
    at = forward ? (at + 1) % paths.size() : (at + paths.size() - 1) % paths.size();
    showFile(paths[at]);
    if (forward)
        m_ui->diffView->nextFinding();
    else
        m_ui->diffView->previousFinding();
}

void MainWindow::toggleViewed()
{
    const QModelIndex index = m_files->indexOfPath(m_currentPath, ChangedFilesModel::ViewedColumn);
    if (!index.isValid())
        return;
    const bool viewed = index.data(Qt::CheckStateRole).toInt() == Qt::Checked;
    m_files->setData(index, viewed ? Qt::Unchecked : Qt::Checked, Qt::CheckStateRole);
    if (!viewed)
        stepFile(+1);
}

void MainWindow::updateViewedStatus()
{
    m_viewedLabel->setText(
        tr("%1/%2 viewed").arg(m_files->viewedCount()).arg(m_files->fileCount()));
}

} // namespace pw::gui
