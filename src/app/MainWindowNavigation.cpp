// MainWindow: moving through the review — the file shown, the panels' rows, the next file
// or finding, the viewed marks.
#include "ChangedFilesModel.h"
#include "FindingsModel.h"
#include "MainWindow.h"
#include "diff/DiffView.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "ui_MainWindow.h"
#include "workspace/VerdictHeader.h"

#include <QItemSelectionModel>
#include <QLabel>
#include <QSet>
#include <QStatusBar>
#include <QTreeView>
#include <algorithm>

namespace pw::gui {

void MainWindow::showFile(const QString &path)
{
    const AuditOutcome &out = m_runner->outcome();
    m_currentPath = path;
    const auto file = std::find_if(
        out.diff.files.begin(), out.diff.files.end(),
        [&path](const core::FileDiff &f) { return QString::fromStdString(f.path()) == path; });
    if (file != out.diff.files.end()) {
        const core::FileDiff &f = *file;
        m_ui->diffView->setFile(f);
        m_ui->diffView->setFindings(findingsOfFile(f));
        QString label = path;
        if (f.status == core::ChangeStatus::Renamed)
            label +=
                tr("  ← %1 (%2% similar)").arg(QString::fromStdString(f.oldPath)).arg(f.similarity);
        if (!f.binary)
            label += tr("  +%1 −%2").arg(f.additions).arg(f.deletions);
        m_ui->fileLabel->setText(label);
    } else {
        // The file changed without a textual diff being kept (e.g. ignore-whitespace hid it).
        const QString why = tr("%1: no textual change with the current options").arg(path);
        m_ui->diffView->clear(why);
        m_ui->fileLabel->setText(why);
    }
    selectInTree(path);
    followInPanels(path);
}

std::vector<core::Finding> MainWindow::findingsOfFile(const core::FileDiff &f) const
{
    std::vector<core::Finding> findings;
    for (const core::Finding &finding : m_findings->findings()) { // report()'s
        // A renamed file's census rows of the base name its old path and base lines.
        if (finding.path == f.path() || (f.status == core::ChangeStatus::Renamed &&
                                         !f.oldPath.empty() && finding.path == f.oldPath))
            findings.push_back(finding);
    }
    return findings;
}

void MainWindow::selectInTree(const QString &path)
{
    // Not behind a signal blocker: the view must hear of the change to repaint the row it
    // leaves (else two rows look selected). onFileSelected sees the path is current already.
    QItemSelectionModel *selection = m_ui->filesView->selectionModel();
    const QModelIndex index = path.isEmpty() ? QModelIndex() : m_files->indexOfPath(path);
    if (!index.isValid()) {
        selection->clearSelection();
        selection->clearCurrentIndex();
        return;
    }
    if (selection->currentIndex().siblingAtColumn(0) != index ||
        !selection->isRowSelected(index.row(), index.parent()))
        selection->setCurrentIndex(index,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_ui->filesView->scrollTo(index);
}

void MainWindow::followInPanels(const QString &path)
{
    for (EvidencePanel *p : {m_findingsPanel, m_manifestPanel, m_latitudePanel, m_strengthPanel})
        p->setCurrentFile(path);
}

void MainWindow::selectInPanels(int line, bool oldSide)
{
    if (m_currentPath.isEmpty())
        return;
    // A base-side line of a renamed file is a line of its old path (the base's census rows
    // name that one).
    const QString renamedFrom = m_findingsPanel->proxy()->renamedFrom(m_currentPath);
    const QString rowPath = oldSide && !renamedFrom.isEmpty() ? renamedFrom : m_currentPath;
    for (EvidencePanel *p : {m_findingsPanel, m_manifestPanel, m_latitudePanel, m_strengthPanel}) {
        if (!p->selectRow(rowPath, line) && rowPath != m_currentPath)
            p->selectRow(m_currentPath, line);
    }
}

QString MainWindow::changedPathOf(const core::Finding &f, bool *oldPath) const
{
    for (const core::ChangedFile &c : m_runner->outcome().report.changedFiles) {
        const bool renamedFrom = c.status == "R" && !c.oldPath.empty() && c.oldPath == f.path;
        if (c.path == f.path || renamedFrom) {
            if (oldPath)
                *oldPath = renamedFrom;
            return QString::fromStdString(c.path);
        }
    }
    return {};
}

void MainWindow::onPanelRowActivated(const QString &path, int line)
{
    if (path.isEmpty())
        return;
    // A finding on a renamed file's old path (a census row of the base) opens the file under
    // its new name, at its line on the base side. A run's finding
    // on a file the patch does not change has no place in the diff: the status bar says so.
    core::Finding probe;
    probe.path = path.toStdString();
    bool oldSide = false;
    const QString target = changedPathOf(probe, &oldSide);
    if (target.isEmpty()) {
        statusBar()->showMessage(
            tr("%1 is not changed by the patch: the finding is about its tests, not a line of "
               "the diff")
                .arg(path),
            6000);
        return;
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
    selectInPanels(line, oldSide); // the reviewer is reading this line: the panels follow it
}

void MainWindow::stepFile(int delta)
{
    // Walk the files in tree order (directories expanded).
    const QStringList files = m_files->pathsInTreeOrder();
    if (files.isEmpty())
        return;
    const int at = int(files.indexOf(m_currentPath));
    const int next = at < 0 ? (delta > 0 ? 0 : int(files.size()) - 1)
                            : (at + delta + int(files.size())) % int(files.size());
    showFile(files.at(next));
}

bool MainWindow::isAtFinding(int row) const
{
    if (row < 0 || row >= m_findings->rowCount())
        return false;
    if (row == m_findingCursor)
        return m_currentPath == m_cursorPath && m_ui->diffView->currentLine() == m_cursorLine;
    const core::Finding &f = m_findings->finding(row);
    return !m_currentPath.isEmpty() && changedPathOf(f) == m_currentPath && f.line > 0 &&
           m_ui->diffView->currentLine() == f.line;
}

void MainWindow::stepFinding(bool forward)
{
    const std::vector<int> &order = m_findingsPanel->proxy()->sourceRowsInOrder();
    if (order.empty()) {
        statusBar()->showMessage(tr("No findings"), 4000);
        return;
    }
    const int n = int(order.size());
    // From the finding the reviewer is on (the last one F8 or a click went to, else the
    // Findings panel's current row), or else from the place the diff shows.
    int cursor = isAtFinding(m_findingCursor) ? m_findingCursor : -1;
    if (cursor < 0 && isAtFinding(m_findingsPanel->currentSourceRow()))
        cursor = m_findingsPanel->currentSourceRow();
    int next = -1;
    if (cursor >= 0) {
        const int at = m_findingsPanel->proxy()->positionInOrder(cursor);
        next = forward ? at + 1 : at - 1;
    } else if (m_findings->rankOf(m_currentPath) < 0 || m_currentPath.isEmpty()) {
        next = forward ? 0 : n - 1; // no file shown: from the start (or the end)
    } else {
        // A file just shown has no current line: its file-level findings (line 0) come
        // first, so forward from there includes them.
        const int line = m_ui->diffView->currentLine();
        const qint64 here = FindingsModel::place(m_findings->rankOf(m_currentPath), line);
        next = forward ? n : -1;
        for (int i = 0; i < n; ++i) {
            const int k = forward ? i : n - 1 - i;
            const qint64 place = m_findings->place(order[size_t(k)]);
            if (forward ? (line <= 0 ? place >= here : place > here) : place < here) {
                next = k;
                break;
            }
        }
    }
    QString note;
    if (next >= n) {
        next = 0;
        note = tr("past the last finding: back to the first");
    } else if (next < 0) {
        next = n - 1;
        note = tr("before the first finding: on to the last");
    }
    goToFinding(order[size_t(next)], note);
}

void MainWindow::goToFindingOf(const QStringList &keys)
{
    const std::vector<int> &order = m_findingsPanel->proxy()->sourceRowsInOrder();
    const QSet<QString> wanted(keys.begin(), keys.end());
    std::vector<int> matching;
    for (int row : order) {
        if (wanted.contains(VerdictHeader::keyOf(m_findings->finding(row))))
            matching.push_back(row);
    }
    if (matching.empty()) {
        statusBar()->showMessage(tr("Its findings are no longer in the report"), 4000);
        return;
    }
    // After the one the reviewer is on, when it is one of them: a second click goes on.
    const auto at = std::find(matching.begin(), matching.end(), m_findingCursor);
    const bool onOne = at != matching.end() && isAtFinding(m_findingCursor);
    const size_t index = onOne ? size_t(at - matching.begin() + 1) % matching.size() : 0;
    showPanel(QStringLiteral("findings"));
    goToFinding(matching[index],
                tr("%1 of %2 for this clause").arg(index + 1).arg(matching.size()));
}

void MainWindow::goToFinding(int row, const QString &note)
{
    if (row < 0 || row >= m_findings->rowCount())
        return;
    const core::Finding f = m_findings->finding(row); // a copy: showFile may refill the model
    bool oldPath = false;
    const QString target = changedPathOf(f, &oldPath);
    const QString where = QString::fromStdString(f.path);
    m_syncing = true;
    if (!target.isEmpty()) {
        if (target != m_currentPath)
            showFile(target);
        if (!m_ui->diffView->showFinding(f) && f.line > 0)
            m_ui->diffView->scrollToLine(f.line, oldPath);
    } else {
        // No line of the diff to show: the finding is named where the file's name goes.
        forgetCurrentFile(
            where.isEmpty()
                ? tr("%1 %2 is not about one file: %3")
                      .arg(QString::fromLatin1(core::severityName(f.severity)).toUpper(),
                           QString::fromStdString(f.code), QString::fromStdString(f.message))
                : tr("%1 is not changed by the patch; %2 %3 at line %4: %5")
                      .arg(where, QString::fromLatin1(core::severityName(f.severity)).toUpper(),
                           QString::fromStdString(f.code))
                      .arg(f.line)
                      .arg(QString::fromStdString(f.message)));
    }
    m_syncing = false;
    m_findingCursor = row;
    m_cursorPath = m_currentPath;
    m_cursorLine = m_ui->diffView->currentLine();
    selectInPanels(m_cursorLine, m_ui->diffView->currentLineIsOldSide());
    m_findingsPanel->selectSourceRow(row);

    QString message = tr("Finding %1 of %2 · %3 %4 %5")
                          .arg(m_findingsPanel->proxy()->positionInOrder(row) + 1)
                          .arg(m_findings->rowCount())
                          .arg(QString::fromLatin1(core::severityName(f.severity)).toUpper(),
                               QString::fromStdString(f.code),
                               f.line > 0 ? QStringLiteral("%1:%2").arg(where).arg(f.line) : where);
    if (!note.isEmpty())
        message += QStringLiteral(" — ") + note;
    statusBar()->showMessage(message, 8000);
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
