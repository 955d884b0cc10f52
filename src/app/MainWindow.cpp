#include "MainWindow.h"

#include "ChangedFilesModel.h"
#include "FindingsModel.h"
#include "diff/DiffView.h"
#include "ledgers/LedgerDesk.h"
#include "ledgers/LedgerFormDialog.h"
#include "ledgers/LedgerHistoryPanel.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "panels/LatitudeModel.h"
#include "panels/LogModel.h"
#include "panels/ManifestModel.h"
#include "panels/StrengthModel.h"
#include "repo/DemoRepository.h"
#include "runs/RunController.h"
#include "runs/RunDesk.h"
#include "runs/RunsPanel.h"
#include "runs/SeedMatrixPanel.h"
#include "ui_MainWindow.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "workspace/RecentRepositories.h"
#include "workspace/RepositoryWatcher.h"
#include "workspace/RevisionLoader.h"
#include "workspace/RevisionPicker.h"
#include "workspace/VerdictChip.h"
#include "workspace/VerdictHeader.h"
#include "workspace/ViewedDelegate.h"
#include "workspace/ViewedMarks.h"

#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileInfo>
#include <QFrame>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollBar>
#include <QSettings>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <algorithm>
#include <utility>

namespace pw::gui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_ui(std::make_unique<Ui::MainWindow>()),
      m_runner(std::make_unique<AuditRunner>()), m_recent(std::make_unique<RecentRepositories>()),
      m_viewed(std::make_unique<ViewedMarks>()), m_demo(this, [this](DemoLoad demo) {
          if (demo.error.isEmpty()) {
              openRepository(demo.path);
              return;
          }
          log(LogError, demo.error);
          QMessageBox::warning(this, tr("Demo repository"), demo.error);
      })
{
    m_ui->setupUi(this);
    setDockNestingEnabled(true);

    // The repository's name stands apart from the Base box: bold, then a separator.
    QFont repoFont = m_ui->repoLabel->font();
    repoFont.setBold(true);
    m_ui->repoLabel->setFont(repoFont);
    auto *repoSeparator = new QFrame(this);
    repoSeparator->setObjectName(QStringLiteral("repoSeparator"));
    repoSeparator->setFrameShape(QFrame::VLine);
    repoSeparator->setFrameShadow(QFrame::Sunken);
    m_ui->revisionBar->insertWidget(m_ui->revisionBar->indexOf(m_ui->repoLabel) + 1, repoSeparator);
    m_ui->revisionBar->insertSpacing(m_ui->revisionBar->indexOf(repoSeparator), 6);
    m_ui->revisionBar->insertSpacing(m_ui->revisionBar->indexOf(repoSeparator) + 1, 6);

    m_files = new ChangedFilesModel(this);
    m_ui->filesView->setModel(m_files);
    m_ui->filesView->setTextElideMode(Qt::ElideMiddle); // "test_…_helpers.py", never "…"
    m_ui->filesView->setItemDelegateForColumn(ChangedFilesModel::ViewedColumn,
                                              new ViewedDelegate(m_ui->filesView));
    QHeaderView *header = m_ui->filesView->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(ChangedFilesModel::NameColumn, QHeaderView::Stretch);
    for (int c : {ChangedFilesModel::StatusColumn, ChangedFilesModel::BadgeColumn,
                  ChangedFilesModel::ViewedColumn})
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_files->setViewedLookup([this](const QString &path, const QString &blob) {
        return !m_repoRoot.isEmpty() && m_viewed->isViewed(m_repoRoot, path, blob);
    });
    connect(m_files, &ChangedFilesModel::viewedToggled, this,
            [this](const QString &path, const QString &blob, bool viewed) {
                m_viewed->setViewed(m_repoRoot, path, blob, viewed);
                updateViewedStatus();
            });
    m_ui->diffSplitter->setSizes({380, 1060});
    m_ui->diffSplitter->setStretchFactor(1, 1);

    m_verdictChip = new VerdictChip(this);
    // The verdict and why, first thing under the revisions: each clause goes to its findings.
    m_verdictHeader = new VerdictHeader(this);
    m_ui->centralLayout->insertWidget(m_ui->centralLayout->indexOf(m_ui->revisionBar) + 1,
                                      m_verdictHeader);
    // Its lines and no more: the room left goes to the files and the diff.
    m_ui->centralLayout->setStretchFactor(m_ui->diffSplitter, 1);
    connect(m_verdictHeader, &VerdictHeader::clauseActivated, this,
            [this](int, const QStringList &keys) { goToFindingOf(keys); });
    connect(m_verdictChip, &VerdictChip::clicked, this, [this] {
        if (!m_verdictHeader->clauses().empty())
            goToFindingOf(m_verdictHeader->clauses().front().keys);
    });
    m_viewedLabel = new QLabel(this);
    m_viewedLabel->setObjectName(QStringLiteral("viewedLabel"));
    statusBar()->addPermanentWidget(m_viewedLabel);
    m_stopAuditButton = new QToolButton(this);
    m_stopAuditButton->setObjectName(QStringLiteral("stopAuditButton"));
    m_stopAuditButton->setDefaultAction(m_ui->actionStopAudit);
    m_stopAuditButton->setAutoRaise(true);
    m_stopAuditButton->setVisible(false);
    statusBar()->addPermanentWidget(m_stopAuditButton);
    statusBar()->addPermanentWidget(m_verdictChip);

    m_watcher = new RepositoryWatcher(this);
    connect(m_watcher, &RepositoryWatcher::changed, this, [this] {
        log(LogInfo, tr("The repository changed on disk: auditing again"));
        startAudit();
    });
    m_revisions = new RevisionLoader(this);
    connect(m_revisions, &RevisionLoader::loaded, this,
            [this](const QString &repo, const std::vector<core::RevisionChoice> &choices) {
                if (repo != m_repo)
                    return;
                m_ui->basePicker->setChoices(choices);
                m_ui->headPicker->setChoices(choices);
                m_ui->basePicker->setDefaultSpec(m_revisions->defaultBaseSpec());
                m_ui->headPicker->setDefaultSpec(m_revisions->defaultHeadSpec());
            });
    connect(m_revisions, &RevisionLoader::failed, this,
            [this](const QString &message) { log(LogWarning, message); });

    setupPanels();
    setupActions();
    m_ui->diffView->clear(tr("Open a repository to review its patch: File ▸ Open Repository… "
                             "(Ctrl+O), or File ▸ Open Demo Repository."));

    connect(m_runner.get(), &AuditRunner::started, this, [this] {
        statusBar()->showMessage(tr("Auditing %1 …").arg(m_repo));
        if (!m_ui->diffView->hasFile()) { // a file on screen stays until the new outcome
            m_ui->diffView->clear(tr("Auditing %1 …").arg(QDir::toNativeSeparators(m_repo)));
            if (!m_runner->outcome().ok)
                m_verdictHeader->showState(
                    tr("Auditing %1 …").arg(QDir::toNativeSeparators(m_repo)));
        }
        m_verdictChip->showState(tr("auditing…"));
        m_ui->actionStopAudit->setEnabled(true);
        m_stopAuditButton->setVisible(true);
    });
    connect(m_runner.get(), &AuditRunner::progress, this, [this](const QString &line) {
        statusBar()->showMessage(tr("Auditing %1 … %2").arg(m_repo, line));
    });
    connect(m_runner.get(), &AuditRunner::finished, this, [this] {
        auditEnded();
        showOutcome();
    });
    connect(m_runner.get(), &AuditRunner::cancelled, this, [this] {
        auditEnded();
        // What was on screen stays: the last finished audit, or nothing yet.
        if (m_runner->outcome().ok)
            showVerdict();
        else
            m_verdictChip->showState(tr("stopped"));
        statusBar()->showMessage(tr("Audit stopped"), 5000);
        log(LogInfo, tr("The audit of %1 was stopped").arg(m_repo));
    });
    connect(m_ui->filesView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { onFileSelected(current); });
    connect(m_ui->diffView, &DiffView::currentLineChanged, this, &MainWindow::onDiffLineChanged);

    // The layout before any saved one: what View ▸ Reset Layout and a scripted window show.
    m_defaultLayout = saveState();
    m_ui->menuView->addSeparator();
    QAction *showAll = m_ui->menuView->addAction(tr("Show &All Panels"));
    showAll->setObjectName(QStringLiteral("actionShowAllPanels"));
    connect(showAll, &QAction::triggered, this, &MainWindow::showAllPanels);
    QAction *reset = m_ui->menuView->addAction(tr("&Reset Layout"));
    reset->setObjectName(QStringLiteral("actionResetLayout"));
    connect(reset, &QAction::triggered, this, &MainWindow::resetLayout);

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

MainWindow::~MainWindow() = default;

DiffView *MainWindow::diffView() const
{
    return m_ui->diffView;
}

EvidencePanel *MainWindow::panel(const QString &objectName) const
{
    return findChild<EvidencePanel *>(objectName);
}

QDockWidget *MainWindow::addPanelDock(const QString &title, const QString &objectName,
                                      QWidget *panel, Qt::DockWidgetArea area,
                                      const QKeySequence &shortcut)
{
    panel->setObjectName(objectName + QStringLiteral("Panel"));
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(objectName + QStringLiteral("Dock"));
    dock->setWidget(panel);
    addDockWidget(area, dock);
    if (auto *evidence = qobject_cast<EvidencePanel *>(panel)) {
        connect(evidence, &EvidencePanel::rowActivated, this,
                [this, evidence](const QString &path, int line, const QString &) {
                    // A finding clicked is a finding gone to, as F8 goes to it.
                    if (evidence == m_findingsPanel && evidence->currentSourceRow() >= 0)
                        goToFinding(evidence->currentSourceRow());
                    else
                        onPanelRowActivated(path, line);
                });
    }
    // The View menu's check box shows and hides the dock; the shortcut only ever shows it
    // (and puts the focus in it): asking for a panel never closes it.
    m_ui->menuView->addAction(dock->toggleViewAction());
    if (!m_goToPanel)
        m_goToPanel = m_ui->menuView->addMenu(tr("&Go to Panel"));
    auto *goTo = new QAction(title, this);
    goTo->setObjectName(objectName + QStringLiteral("GoTo"));
    goTo->setShortcut(shortcut);
    goTo->setStatusTip(tr("Show the %1 panel and move the focus into it").arg(title));
    connect(goTo, &QAction::triggered, this, [dock, panel] {
        dock->show();
        dock->raise();
        panel->setFocus();
    });
    addAction(goTo); // the shortcut works while the menu is closed
    m_goToPanel->addAction(goTo);
    return dock;
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultLayout); // shows every dock it saved shown, the first tabs in front
}

void MainWindow::showAllPanels()
{
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        dock->show();
}

bool MainWindow::showPanel(const QString &name)
{
    auto *dock = findChild<QDockWidget *>(name + QStringLiteral("Dock"));
    if (!dock)
        return false;
    dock->show();
    dock->raise();
    if (name == QLatin1String("history")) {
        LedgerHistoryPanel *history = m_desk->historyPanel();
        QEventLoop loop;
        QTimer::singleShot(60000, &loop, &QEventLoop::quit); // never hang a screenshot
        connect(history, &LedgerHistoryPanel::loaded, &loop, &QEventLoop::quit);
        if (history->isLoading())
            loop.exec();
        if (history->selectEvent(0) && history->isReadingRevision()) {
            connect(history, &LedgerHistoryPanel::revisionShown, &loop, &QEventLoop::quit);
            loop.exec();
        }
    }
    return true;
}

QDialog *MainWindow::openLedgerForm(const QString &kind, const QString &id)
{
    return m_desk->openForm(kind, id);
}

void MainWindow::setupPanels()
{
    m_findings = new FindingsModel(this);
    m_manifest = new ManifestModel(this);
    m_latitude = new LatitudeModel(this);
    m_strength = new StrengthModel(this);
    m_log = new LogModel(this);

    m_findingsPanel = new EvidencePanel(this);
    m_findingsPanel->setModel(m_findings);
    m_manifestPanel = new EvidencePanel(this);
    m_manifestPanel->setModel(m_manifest);
    m_latitudePanel = new EvidencePanel(this);
    m_latitudePanel->setModel(m_latitude);
    m_strengthPanel = new EvidencePanel(this);
    m_strengthPanel->setModel(m_strength);
    m_logPanel = new EvidencePanel(this);
    m_logPanel->setModel(m_log);

    QDockWidget *findings =
        addPanelDock(tr("Findings"), QStringLiteral("findings"), m_findingsPanel,
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+3")));
    QDockWidget *manifest =
        addPanelDock(tr("Manifest diff"), QStringLiteral("manifest"), m_manifestPanel,
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+4")));
    QDockWidget *latitude =
        addPanelDock(tr("Oracle latitude"), QStringLiteral("latitude"), m_latitudePanel,
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+5")));
    QDockWidget *strength =
        addPanelDock(tr("Oracle strength"), QStringLiteral("strength"), m_strengthPanel,
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+6")));
    QDockWidget *logDock = addPanelDock(tr("Log"), QStringLiteral("log"), m_logPanel,
                                        Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+7")));
    tabifyDockWidget(findings, manifest);
    tabifyDockWidget(manifest, latitude);
    m_desk = new LedgerDesk(this);
    QDockWidget *ledgers =
        addPanelDock(tr("Ledgers"), QStringLiteral("ledgers"), m_desk->ledgersPanel(),
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+8")));
    QDockWidget *history =
        addPanelDock(tr("Ledger history"), QStringLiteral("history"), m_desk->historyPanel(),
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+9")));
    for (EvidencePanel *p : {m_findingsPanel, m_manifestPanel, m_latitudePanel, m_strengthPanel}) {
        m_desk->watchPanel(p);
        // One current file everywhere: a chip's ✕ (or "only current file") in one panel is
        // the reviewer's choice for all of them.
        connect(p, &EvidencePanel::followsFileChanged, this, [this](bool follow) {
            for (EvidencePanel *other :
                 {m_findingsPanel, m_manifestPanel, m_latitudePanel, m_strengthPanel})
                other->setFollowsFile(follow);
        });
    }
    m_runDesk = new RunDesk(this);
    QDockWidget *census =
        addPanelDock(tr("Census"), QStringLiteral("census"), m_runDesk->censusPanel(),
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+Shift+C")));
    QDockWidget *runs = addPanelDock(tr("Runs"), QStringLiteral("runs"), m_runDesk->runsPanel(),
                                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+0")));
    QDockWidget *attribution = addPanelDock(tr("Attribution"), QStringLiteral("attribution"),
                                            m_runDesk->attributionPanel(), Qt::BottomDockWidgetArea,
                                            QKeySequence(tr("Alt+Shift+A")));
    QDockWidget *cells =
        addPanelDock(tr("Reproduction cells"), QStringLiteral("cells"), m_runDesk->cellsPanel(),
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+Shift+M")));
    QDockWidget *shadow =
        addPanelDock(tr("Shadow sample"), QStringLiteral("shadow"), m_runDesk->shadowPanel(),
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+Shift+W")));
    QDockWidget *heatmap =
        addPanelDock(tr("Seed matrix"), QStringLiteral("heatmap"), m_runDesk->matrixPanel(),
                     Qt::BottomDockWidgetArea, QKeySequence(tr("Alt+Shift+X")));
    connect(m_runDesk, &RunDesk::matrixShown, this, [heatmap] {
        heatmap->show();
        heatmap->raise();
    });
    connect(
        m_runDesk, &RunDesk::matrixFreezeRequested, this,
        [this](const QString &test, const QString &record) { m_desk->grantFreeze(test, record); });
    connect(m_runDesk, &RunDesk::shadowShown, this, [shadow] {
        shadow->show();
        shadow->raise();
    });
    connect(m_runDesk->attributionTable(), &EvidencePanel::rowActivated, this,
            [this](const QString &path, int line, const QString &) {
                onPanelRowActivated(path, line);
            });
    connect(m_runDesk, &RunDesk::attributionShown, this, [attribution] {
        attribution->show();
        attribution->raise();
    });
    connect(m_runDesk, &RunDesk::cellsShown, this, [cells] {
        cells->show();
        cells->raise();
    });
    connect(m_runDesk, &RunDesk::grantFreezeRequested, this,
            [this](const QString &test) { m_desk->openForm(QStringLiteral("freeze"), test); });
    connect(m_runDesk, &RunDesk::recordWritten, m_desk, &LedgerDesk::refreshRunRecords);
    // The Attribute / Cells actions offer the test of the row a reviewer picked last.
    for (EvidencePanel *p : findChildren<EvidencePanel *>()) {
        connect(p, &EvidencePanel::rowActivated, m_runDesk,
                [this](const QString &, int, const QString &test) {
                    if (!test.isEmpty())
                        m_runDesk->setCurrentTest(test);
                });
    }
    m_desk->watchPanel(m_runDesk->censusPanel());
    connect(m_runDesk, &RunDesk::dynamicFindingsChanged, this, &MainWindow::showVerdict);
    connect(m_runDesk, &RunDesk::message, this,
            [this](int level, const QString &text) { log(level, text); });
    connect(m_runDesk, &RunDesk::censusShown, this, [census] {
        census->show();
        census->raise();
    });
    // A job that waited in the queue starts in the background: the panel of the result
    // just shown stays in front.
    connect(m_runDesk->controller(), &RunController::started, this, [this, runs] {
        if (m_runDesk->controller()->startedFromQueue())
            return;
        runs->show();
        runs->raise();
    });
    tabifyDockWidget(latitude, strength);
    tabifyDockWidget(strength, census);
    tabifyDockWidget(census, attribution);
    tabifyDockWidget(attribution, cells);
    tabifyDockWidget(cells, heatmap);
    tabifyDockWidget(heatmap, shadow);
    tabifyDockWidget(shadow, runs);
    tabifyDockWidget(runs, ledgers);
    tabifyDockWidget(ledgers, history);
    tabifyDockWidget(history, logDock);
    findings->raise();
    resizeDocks({findings}, {300}, Qt::Vertical);
}

void MainWindow::setupActions()
{
    connect(m_ui->actionOpen, &QAction::triggered, this, &MainWindow::chooseRepository);
    connect(m_ui->actionOpenPatch, &QAction::triggered, this, &MainWindow::choosePatch);
    connect(m_ui->actionOpenDemo, &QAction::triggered, this, &MainWindow::openDemo);
    connect(m_ui->actionExportReport, &QAction::triggered, this, &MainWindow::exportReport);
    connect(m_ui->actionCopyMarkdown, &QAction::triggered, this, &MainWindow::copyMarkdown);
    connect(m_ui->actionSettings, &QAction::triggered, this, &MainWindow::openSettings);
    connect(m_ui->actionQuit, &QAction::triggered, this, &QWidget::close);
    connect(m_ui->actionRefresh, &QAction::triggered, this, &MainWindow::startAudit);
    connect(m_ui->actionStopAudit, &QAction::triggered, this, [this] {
        statusBar()->showMessage(tr("Stopping the audit …"));
        m_runner->cancel();
    });
    connect(m_ui->actionShortcuts, &QAction::triggered, this, &MainWindow::showShortcuts);
    connect(m_ui->actionAbout, &QAction::triggered, this, &MainWindow::about);
    connect(m_ui->auditButton, &QPushButton::clicked, this, &MainWindow::startAudit);
    connect(m_ui->basePicker, &RevisionPicker::specChosen, this, &MainWindow::startAudit);
    connect(m_ui->headPicker, &RevisionPicker::specChosen, this, &MainWindow::startAudit);

    // Side-by-side / unified: the action and the button are one state.
    auto setSideBySide = [this](bool on) {
        QSignalBlocker a(m_ui->actionSideBySide), b(m_ui->sideBySideButton);
        m_ui->actionSideBySide->setChecked(on);
        m_ui->sideBySideButton->setChecked(on);
        m_ui->diffView->setMode(on ? DiffMode::SideBySide : DiffMode::Unified);
    };
    connect(m_ui->actionSideBySide, &QAction::toggled, this, setSideBySide);
    connect(m_ui->sideBySideButton, &QToolButton::toggled, this, setSideBySide);
    // Whitespace and context change the diff itself: audit again (facts are cached).
    connect(m_ui->actionIgnoreWhitespace, &QAction::toggled, this, [this](bool on) {
        QSignalBlocker b(m_ui->whitespaceCheck);
        m_ui->whitespaceCheck->setChecked(on);
        startAudit();
    });
    connect(m_ui->whitespaceCheck, &QCheckBox::toggled, m_ui->actionIgnoreWhitespace,
            &QAction::setChecked);
    connect(m_ui->contextSpin, qOverload<int>(&QSpinBox::valueChanged), this,
            [this] { startAudit(); });

    connect(m_ui->actionNextFinding, &QAction::triggered, this, [this] { stepFinding(true); });
    connect(m_ui->actionPreviousFinding, &QAction::triggered, this, [this] { stepFinding(false); });
    // At either end the status bar says so, and where the next file is.
    connect(m_ui->actionNextHunk, &QAction::triggered, m_ui->diffView, [this] {
        if (!m_ui->diffView->nextHunk() && !m_currentPath.isEmpty())
            statusBar()->showMessage(
                tr("The last hunk of %1: Ctrl+PgDown goes to the next file").arg(m_currentPath),
                6000);
    });
    connect(m_ui->actionPreviousHunk, &QAction::triggered, m_ui->diffView, [this] {
        if (!m_ui->diffView->previousHunk() && !m_currentPath.isEmpty())
            statusBar()->showMessage(
                tr("The first hunk of %1: Ctrl+PgUp goes to the previous file").arg(m_currentPath),
                6000);
    });
    connect(m_ui->actionNextFile, &QAction::triggered, this, [this] { stepFile(+1); });
    connect(m_ui->actionPreviousFile, &QAction::triggered, this, [this] { stepFile(-1); });
    connect(m_ui->actionToggleViewed, &QAction::triggered, this, &MainWindow::toggleViewed);
    m_ui->menuLedger->addActions(m_desk->formActions());
    QMenu *runsMenu = new QMenu(tr("&Runs"), this);
    runsMenu->setObjectName(QStringLiteral("menuRuns"));
    runsMenu->addActions(m_runDesk->actions());
    menuBar()->insertMenu(m_ui->menuLedger->menuAction(), runsMenu);
    connect(m_desk, &LedgerDesk::ledgerWritten, this, [this](const QString &path) {
        // The file is the reviewer's decision, not the agent's patch: the comparison on
        // screen stays (a default head would turn to WORKTREE now that the tree changed).
        keepComparison();
        const QString message =
            tr("Wrote %1. %2").arg(QDir::toNativeSeparators(path), m_desk->whenEntriesCount());
        log(LogInfo, message);
        m_noticeAfterAudit = message;
        startAudit(); // the Ledgers panel and the badges follow the file
    });
    connect(m_ui->actionFocusFiles, &QAction::triggered, m_ui->filesView,
            [this] { m_ui->filesView->setFocus(); });
    connect(m_ui->actionFocusDiff, &QAction::triggered, m_ui->diffView,
            [this] { m_ui->diffView->setFocus(); });
    refreshRecentMenu();
}

void MainWindow::fitFilesPane()
{
    // As wide as the tree's columns want (the deepest file name whole, its badge, the
    // mark), within a quarter of the window at least and half of it at most: names are
    // elided only when the window is too small for them.
    QTreeView *tree = m_ui->filesView;
    int wanted = 2 * tree->frameWidth() + tree->verticalScrollBar()->sizeHint().width() + 8;
    for (int c = 0; c < m_files->columnCount(); ++c)
        wanted += std::max(static_cast<QAbstractItemView *>(tree)->sizeHintForColumn(c),
                           tree->header()->sectionSizeHint(c));
    const int total = m_ui->diffSplitter->width();
    if (total <= 0)
        return;
    const int left = std::clamp(wanted, total / 4, total / 2);
    m_ui->diffSplitter->setSizes({left, total - left});
}

void MainWindow::keepComparison()
{
    const AuditOutcome &out = m_runner->outcome();
    if (!out.ok)
        return;
    if (m_ui->basePicker->spec().trimmed().isEmpty())
        m_ui->basePicker->setSpec(QString::fromStdString(out.target.base.spec));
    if (m_ui->headPicker->spec().trimmed().isEmpty())
        m_ui->headPicker->setSpec(QString::fromStdString(out.target.head.spec));
    m_revisions->load(m_repo); // the defaults the empty boxes name may have changed
}

void MainWindow::refreshRecentMenu()
{
    m_recent->populateMenu(m_ui->menuRecent, [this](const QString &path) { openRepository(path); });
}

void MainWindow::openRepository(const QString &path, const QString &base, const QString &head)
{
    m_repo = path;
    m_repoRoot.clear();
    m_noticeAfterAudit.clear();
    m_workTree.clear();
    m_currentPath.clear();
    m_ui->basePicker->setSpec(base);
    m_ui->headPicker->setSpec(head);
    m_ui->repoLabel->setText(QFileInfo(path).fileName());
    m_ui->repoLabel->setToolTip(path);
    setWindowTitle(tr("%1 — patchwitness").arg(path));
    m_revisions->load(path);
    startAudit();
}

void MainWindow::openDemo()
{
    // The first time, ensure() writes a repository: git work, off the GUI thread.
    m_demo.start([](std::stop_token) {
        DemoLoad demo;
        try {
            demo.path = QString::fromStdString(core::DemoRepository::ensure());
        } catch (const core::Error &e) {
            demo.error = QString::fromStdString(e.what());
        }
        return demo;
    });
}

WorkbenchRequest MainWindow::currentRequest() const
{
    WorkbenchRequest request;
    request.audit.repoPath = m_repo.toStdString();
    request.audit.base = m_ui->basePicker->spec().trimmed().toStdString();
    request.audit.head = m_ui->headPicker->spec().trimmed().toStdString();
    if (!m_python.isEmpty())
        request.audit.python = m_python.toStdString();
    if (!m_ledgerDir.isEmpty())
        request.audit.ledgerDir = m_ledgerDir.toStdString();
    request.diff.ignoreWhitespace = m_ui->actionIgnoreWhitespace->isChecked();
    request.diff.contextLines = m_ui->contextSpin->value();
    return request;
}

void MainWindow::auditEnded()
{
    m_ui->actionStopAudit->setEnabled(false);
    m_stopAuditButton->setVisible(false);
}

void MainWindow::startAudit()
{
    if (m_repo.isEmpty())
        return;
    if (!m_currentPath.isEmpty())
        m_restoreLine = m_ui->diffView->currentLine();
    m_runner->start(currentRequest());
}

QString MainWindow::verdictText() const
{
    return m_verdictChip->text();
}

void MainWindow::showOutcome()
{
    const AuditOutcome &out = m_runner->outcome();
    m_desk->setOutcome(out);
    m_runDesk->setOutcome(out);
    if (!out.ok) {
        m_files->setReport({}, {});
        m_findings->setFindings({});
        m_manifest->setReport({});
        m_latitude->setReport({});
        m_strength->setReport({});
        m_verdictChip->showState(tr("error"));
        m_verdictHeader->showState(tr("The audit could not run: %1").arg(out.error));
        m_noticeAfterAudit.clear(); // what was written is in the Log; this audit said nothing
        statusBar()->showMessage(out.error);
        forgetCurrentFile(tr("The audit could not run: %1").arg(out.error));
        log(LogError, out.error);
        return;
    }
    const core::GateReport &r = out.report;
    // The first outcome after openRepository (which clears the root) is a new repository.
    const bool sameRepo = !m_repoRoot.isEmpty() && m_repoRoot == QString::fromStdString(r.repo);
    m_repoRoot = QString::fromStdString(r.repo);
    m_workTree = QString::fromStdString(out.target.repoRoot);
    const QString keepPath = sameRepo ? m_currentPath : QString();
    const int keepLine = m_restoreLine;

    m_files->setReport(r, out.diff);
    m_ui->filesView->expandAll();
    if (!sameRepo)
        fitFilesPane();
    m_manifest->setReport(r);
    m_latitude->setReport(r);
    m_latitudePanel->setSummary(m_latitude->summary());
    m_latitudePanel->setSummarySeverity(m_latitude->summarySeverity());
    m_manifestPanel->setSummary(m_manifest->summary());
    m_manifestPanel->setSummarySeverity(m_manifest->summarySeverity());
    m_strength->setReport(r); // before its summary, which counts its rows
    m_strengthPanel->setSummary(m_strength->summary());
    m_strengthPanel->setSummarySeverity(m_strength->summarySeverity());
    // The tree's order (file, then line): the order F8 walks, and the diff's own.
    if (!sameRepo)
        m_findingsPanel->sortBy(FindingsModel::LocationColumn, Qt::AscendingOrder);
    m_ui->diffView->setSizeCap(out.config.diffMaxBytes);
    for (const std::string &w : r.warnings)
        log(LogWarning, QString::fromStdString(w));
    for (const core::Finding &f : r.findings) {
        if (f.code == "PARSE_ERROR" || f.code == "TOO-LARGE")
            log(LogWarning, QString::fromStdString(f.message));
    }

    showVerdict();
    const QString verdict = QString::fromLatin1(core::verdictName(r.verdict));
    const QString baseText = QString::fromStdString(r.base.rev) +
                             (r.base.commit ? QStringLiteral(" (%1)").arg(QString::fromStdString(
                                                  core::shortId(*r.base.commit, 10)))
                                            : QString());
    statusBar()->showMessage(tr("%1 → %2 · %3 file(s) changed · latitude %4 (threshold %5)")
                                 .arg(baseText, QString::fromStdString(r.head.rev))
                                 .arg(r.changedFiles.size())
                                 .arg(r.latitude.total)
                                 .arg(r.latitude.threshold));
    log(LogInfo,
        tr("Audited %1 → %2: %3").arg(baseText, QString::fromStdString(r.head.rev), verdict));
    if (!m_noticeAfterAudit.isEmpty()) // what the reviewer just wrote, and when it counts
        statusBar()->showMessage(std::exchange(m_noticeAfterAudit, QString()), 30000);
    updateViewedStatus();

    QStringList watched;
    for (const core::ChangedFile &f : r.changedFiles)
        watched << QFileInfo(QString::fromStdString(f.path)).path();
    // The git directories as the audit resolved them: no git read on this thread.
    const RepositoryWatcher::GitDirs git{QString::fromStdString(out.target.gitDir),
                                         QString::fromStdString(out.target.commonDir)};
    if (r.head.rev == "WORKTREE")
        m_watcher->watch(m_repoRoot, watched, git);
    else
        m_watcher->watch(m_repoRoot, {}, git); // refs, HEAD and index only

    QModelIndex target = keepPath.isEmpty() ? QModelIndex() : m_files->indexOfPath(keepPath);
    if (!target.isValid())
        target = m_files->mostSevereFile();
    if (target.isValid()) {
        showFile(target.data(ChangedFilesModel::PathRole).toString()); // the new outcome's diff
        if (keepLine > 0 && target.data(ChangedFilesModel::PathRole).toString() == keepPath)
            m_ui->diffView->scrollToLine(keepLine);
    } else {
        forgetCurrentFile(tr("The patch changes no file")); // nothing of the last one stays
    }
}

void MainWindow::forgetCurrentFile(const QString &label)
{
    m_currentPath.clear();
    m_ui->diffView->clear(label);
    m_ui->fileLabel->setText(label);
    selectInTree({});
    followInPanels({});
}

void MainWindow::onFileSelected(const QModelIndex &index)
{
    const QString path = index.data(ChangedFilesModel::PathRole).toString();
    if (!path.isEmpty() && path != m_currentPath)
        showFile(path);
}

core::GateReport MainWindow::report() const
{
    core::GateReport r = m_runner->outcome().report;
    for (core::Finding &f : m_runDesk->dynamicFindings())
        r.findings.push_back(std::move(f));
    r.computeVerdict();
    return r;
}

void MainWindow::showVerdict()
{
    if (!m_runner->outcome().ok)
        return;
    const core::GateReport r = report();
    // The Findings panel's Location column sorts in the tree's order; a renamed file's old
    // path (the base's census rows) ranks as the file.
    QHash<QString, int> rank;
    const QStringList order = m_files->pathsInTreeOrder();
    for (int i = 0; i < order.size(); ++i)
        rank.insert(order.at(i), i);
    for (const core::ChangedFile &f : r.changedFiles) {
        if (f.status == "R" && !f.oldPath.empty())
            rank.insert(QString::fromStdString(f.oldPath),
                        rank.value(QString::fromStdString(f.path)));
    }
    m_findings->setFindings(r.findings, rank);
    m_findingCursor = -1;
    m_files->setFindings(r.findings);
    m_verdictChip->showReport(r, m_runDesk->dynamicSources());
    m_verdictHeader->showReport(r);
    m_verdictChip->setToolTip(
        m_verdictHeader->plainText() + QStringLiteral("\n\n") + m_verdictChip->toolTip() +
        (m_verdictHeader->clauses().empty()
             ? QString()
             : QStringLiteral("\n") + tr("Click: go to the first finding that decided it")));
    // A panel filtered to a renamed file keeps the rows of its old path (the base's census).
    QHash<QString, QString> renames;
    for (const core::ChangedFile &f : r.changedFiles) {
        if (f.status == "R" && !f.oldPath.empty())
            renames.insert(QString::fromStdString(f.path), QString::fromStdString(f.oldPath));
    }
    for (EvidencePanel *p : {m_findingsPanel, m_manifestPanel, m_latitudePanel, m_strengthPanel})
        p->proxy()->setRenames(renames);
    // A run's finding on the file on screen joins its gutter (the current line stays).
    if (!m_currentPath.isEmpty() && m_ui->diffView->hasFile())
        m_ui->diffView->setFindings(findingsOfFile(m_ui->diffView->file()));
}

void MainWindow::log(int level, const QString &message)
{
    m_log->append(level == LogError     ? LogModel::Level::Error
                  : level == LogWarning ? LogModel::Level::Warning
                                        : LogModel::Level::Info,
                  message);
}

} // namespace pw::gui
