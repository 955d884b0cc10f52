#include "MainWindow.h"

#include "ChangedFilesModel.h"
#include "DiffDocument.h"
#include "FindingsModel.h"
#include "audit/ReportFormat.h"
#include "ui_MainWindow.h"
#include "util/Files.h"

#include <QFileDialog>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QTextBlock>

namespace pw::gui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_ui(std::make_unique<Ui::MainWindow>()),
      m_runner(std::make_unique<AuditRunner>())
{
    m_ui->setupUi(this);
    m_diff = std::make_unique<DiffDocument>(m_ui->diffView);
    m_ui->diffView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    m_findings = new FindingsModel(this);
    m_findingsProxy = new QSortFilterProxyModel(this);
    m_findingsProxy->setSourceModel(m_findings);
    m_findingsProxy->setSortRole(FindingsModel::SeverityRankRole);
    m_ui->findingsView->setModel(m_findingsProxy);
    m_ui->findingsView->horizontalHeader()->setStretchLastSection(true);
    m_ui->findingsView->verticalHeader()->hide();

    m_files = new ChangedFilesModel(this);
    m_filesProxy = new QSortFilterProxyModel(this);
    m_filesProxy->setSourceModel(m_files);
    m_ui->filesView->setModel(m_filesProxy);
    QHeaderView *filesHeader = m_ui->filesView->header();
    filesHeader->setStretchLastSection(false);
    filesHeader->setSectionResizeMode(ChangedFilesModel::StatusColumn,
                                      QHeaderView::ResizeToContents);
    filesHeader->setSectionResizeMode(ChangedFilesModel::PathColumn, QHeaderView::Stretch);
    filesHeader->setSectionResizeMode(ChangedFilesModel::BadgeColumn,
                                      QHeaderView::ResizeToContents);

    m_ui->diffSplitter->setSizes({430, 850});
    m_ui->filesView->setTextElideMode(Qt::ElideMiddle);
    m_ui->mainSplitter->setSizes({520, 240});

    m_verdictChip = new QLabel(tr("no repository"), this);
    m_verdictChip->setObjectName(QStringLiteral("verdictChip"));
    m_verdictChip->setMargin(3);
    statusBar()->addPermanentWidget(m_verdictChip);

    connect(m_ui->actionOpen, &QAction::triggered, this, &MainWindow::chooseRepository);
    connect(m_ui->actionExportReport, &QAction::triggered, this, &MainWindow::exportReport);
    connect(m_ui->actionQuit, &QAction::triggered, this, &QWidget::close);
    connect(m_ui->actionAbout, &QAction::triggered, this, &MainWindow::about);
    connect(m_ui->auditButton, &QPushButton::clicked, this, &MainWindow::startAudit);
    connect(m_ui->baseEdit, &QLineEdit::returnPressed, this, &MainWindow::startAudit);
    connect(m_ui->headEdit, &QLineEdit::returnPressed, this, &MainWindow::startAudit);
    connect(m_runner.get(), &AuditRunner::started, this, [this] {
        statusBar()->showMessage(tr("Auditing %1 …").arg(m_repo));
        m_verdictChip->setText(tr("auditing…"));
    });
    connect(m_runner.get(), &AuditRunner::finished, this, &MainWindow::showOutcome);
    connect(m_ui->filesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showFile(current.data(ChangedFilesModel::PathRole).toString());
            });
    connect(m_ui->findingsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { selectFinding(current); });
}

MainWindow::~MainWindow() = default;

void MainWindow::openRepository(const QString &path, const QString &base, const QString &head)
{
    m_repo = path;
    m_ui->baseEdit->setText(base);
    m_ui->headEdit->setText(head);
    setWindowTitle(tr("%1 — patchwitness").arg(path));
    startAudit();
}

void MainWindow::startAudit()
{
    if (m_repo.isEmpty())
        return;
    core::AuditRequest request;
    request.repoPath = m_repo.toStdString();
    request.base = m_ui->baseEdit->text().trimmed().toStdString();
    request.head = m_ui->headEdit->text().trimmed().toStdString();
    if (!m_python.isEmpty())
        request.python = m_python.toStdString();
    m_runner->start(request);
}

QString MainWindow::verdictText() const
{
    return m_verdictChip->text();
}

void MainWindow::showOutcome()
{
    const AuditOutcome &out = m_runner->outcome();
    if (!out.ok) {
        m_findings->setFindings({});
        m_files->setReport({});
        m_diff->clear();
        m_verdictChip->setText(tr("error"));
        m_verdictChip->setStyleSheet(QString());
        statusBar()->showMessage(out.error);
        m_ui->diffView->setPlainText(tr("The audit could not run:\n\n%1").arg(out.error));
        return;
    }
    const core::GateReport &r = out.report;
    m_findings->setFindings(r.findings);
    m_findingsProxy->sort(FindingsModel::SeverityColumn, Qt::DescendingOrder);
    m_files->setReport(r);
    m_ui->findingsView->resizeColumnsToContents();

    const QString verdict = QString::fromLatin1(core::verdictName(r.verdict));
    m_verdictChip->setText(tr("%1 · %2 block · %3 review")
                               .arg(verdict)
                               .arg(r.count(core::Severity::Block))
                               .arg(r.count(core::Severity::Review)));
    const char *colour = r.verdict == core::Verdict::Block    ? "#c62828"
                         : r.verdict == core::Verdict::Review ? "#b26a00"
                                                              : "#2e7d32";
    m_verdictChip->setStyleSheet(
        QStringLiteral(
            "QLabel { color: white; background: %1; border-radius: 3px; font-weight: bold; }")
            .arg(QLatin1String(colour)));
    statusBar()->showMessage(
        tr("%1 → %2: %3 file(s) changed, latitude %4 of %5")
            .arg(QString::fromStdString(r.base.rev.empty() ? "base" : r.base.rev),
                 QString::fromStdString(r.head.rev))
            .arg(r.changedFiles.size())
            .arg(r.latitude.total)
            .arg(r.latitude.threshold));
    const int first = m_files->mostSevereRow();
    if (first >= 0) {
        m_ui->filesView->setCurrentIndex(
            m_filesProxy->mapFromSource(m_files->index(first, ChangedFilesModel::PathColumn)));
    }
}

void MainWindow::showFile(const QString &path)
{
    const AuditOutcome &out = m_runner->outcome();
    for (const core::FileDiff &f : out.diff.files) {
        if (QString::fromStdString(f.path()) == path) {
            m_diff->show(f);
            m_shownPath = path;
            return;
        }
    }
    m_diff->clear();
    m_shownPath.clear();
}

void MainWindow::selectFinding(const QModelIndex &proxyIndex)
{
    if (!proxyIndex.isValid())
        return;
    const QString path = proxyIndex.data(FindingsModel::PathRole).toString();
    const int line = proxyIndex.data(FindingsModel::LineRole).toInt();
    const int row = m_files->rowOf(path);
    if (row >= 0) {
        const QModelIndex fileIndex =
            m_filesProxy->mapFromSource(m_files->index(row, ChangedFilesModel::PathColumn));
        QSignalBlocker blocker(m_ui->filesView->selectionModel());
        m_ui->filesView->setCurrentIndex(fileIndex);
    }
    if (path != m_shownPath)
        showFile(path);
    const int blockNumber = m_diff->blockOfLine(line);
    if (blockNumber < 0)
        return;
    QTextCursor cursor(m_ui->diffView->document()->findBlockByNumber(blockNumber));
    cursor.select(QTextCursor::LineUnderCursor);
    m_ui->diffView->setTextCursor(cursor);
    m_ui->diffView->centerCursor();
}

void MainWindow::chooseRepository()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Repository"), m_repo);
    if (!dir.isEmpty())
        openRepository(dir);
}

void MainWindow::exportReport()
{
    const AuditOutcome &out = m_runner->outcome();
    if (!out.ok)
        return;
    QString selected;
    const QString file = QFileDialog::getSaveFileName(
        this, tr("Export Report"), QStringLiteral("patchwitness-report.md"),
        tr("Markdown (*.md);;HTML (*.html);;JSON (*.json)"), &selected);
    if (file.isEmpty())
        return;
    const core::ReportFormat format =
        file.endsWith(QLatin1String(".json"))   ? core::ReportFormat::Json
        : file.endsWith(QLatin1String(".html")) ? core::ReportFormat::Html
                                                : core::ReportFormat::Markdown;
    std::string error;
    if (!core::writeFileAtomically(file.toStdString(), core::formatReport(out.report, format),
                                   false, &error))
        QMessageBox::warning(this, tr("Export Report"), QString::fromStdString(error));
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About patchwitness"),
                       tr("<h3>patchwitness %1</h3><p>Review workbench for agent-written patches "
                          "against pytest repositories.</p><p>Qt %2 (built with %3)<br>Syntax "
                          "highlighting: %4</p>")
                           .arg(QStringLiteral(PATCHWITNESS_VERSION),
                                QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
                                DiffDocument::highlightingDescription()));
}

} // namespace pw::gui
