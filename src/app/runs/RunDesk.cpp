#include "RunDesk.h"

#include "RunController.h"
#include "RunsPanel.h"
#include "execution/Sandbox.h"
#include "panels/EvidencePanel.h"
#include "runs/AttributionModel.h"
#include "runs/CensusModel.h"
#include "runs/SeedMatrixPanel.h"
#include "runs/ShadowModel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>
#include <QWidget>

namespace pw::gui {

namespace {

QString consentKey(const QString &repo)
{
    // QSettings keys treat '/' as groups: keep the path readable but flat.
    QString key = repo;
    key.replace(QLatin1Char('/'), QLatin1Char('|'));
    return QStringLiteral("runs/unsandboxed/") + key;
}

QString capitalised(QString text)
{
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

} // namespace

RunDesk::RunDesk(QWidget *window)
    : QObject(window), m_window(window), m_controller(new RunController(this)),
      m_runsPanel(new RunsPanel(m_controller, window)), m_census(new CensusModel(this)),
      m_censusPanel(new EvidencePanel(window)), m_attribution(new AttributionModel(this)),
      m_attributionTable(new EvidencePanel(window)), m_attributionPanel(new QWidget(window)),
      m_grantFreeze(new QPushButton(tr("&Grant freeze…"), m_attributionPanel)),
      m_replay(new QLabel(m_attributionPanel)), m_cells(new CellsModel(this)),
      m_cellsPanel(new EvidencePanel(window)), m_shadow(new ShadowModel(this)),
      m_shadowPanel(new EvidencePanel(window)), m_matrixPanel(new SeedMatrixPanel(window))
{
    m_attributionTable->setObjectName(QStringLiteral("attributionTable"));
    m_attributionTable->setModel(m_attribution);
    m_attributionTable->setPrimaryColumn(AttributionModel::WhyColumn);
    m_attributionTable->setSummary(m_attribution->summary());
    m_grantFreeze->setObjectName(QStringLiteral("grantFreeze"));
    m_grantFreeze->setEnabled(false);
    m_grantFreeze->setToolTip(tr("A freeze is allowed only for a PRE_EXISTING failure"));
    m_copyReplay = new QPushButton(tr("Copy &replay command"), m_attributionPanel);
    m_copyReplay->setObjectName(QStringLiteral("copyReplay"));
    m_copyReplay->setEnabled(false); // nothing to copy before an attribution
    m_replay->setObjectName(QStringLiteral("replayCommand"));
    m_replay->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_replay->setWordWrap(true);
    m_coverage = new QLabel(m_attributionPanel);
    m_coverage->setObjectName(QStringLiteral("diffCoverage"));
    m_coverage->setWordWrap(true);
    m_coverage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_coverage->hide();
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_grantFreeze);
    buttons->addWidget(m_copyReplay);
    buttons->addWidget(m_replay, 1);
    auto *column = new QVBoxLayout(m_attributionPanel);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_attributionTable, 1);
    column->addWidget(m_coverage);
    column->addLayout(buttons);
    connect(m_grantFreeze, &QPushButton::clicked, this, [this] {
        if (m_attribution->hasResult() && m_attribution->result().freezeAllowed())
            Q_EMIT grantFreezeRequested(QString::fromStdString(m_attribution->result().test));
    });
    connect(m_copyReplay, &QPushButton::clicked, this, [this] {
        if (m_attribution->hasResult())
            QApplication::clipboard()->setText(
                QString::fromStdString(m_attribution->result().replay));
    });
    m_cellsPanel->setModel(m_cells);
    m_cellsPanel->setPrimaryColumn(CellsModel::WhatColumn);
    m_cellsPanel->setSummary(m_cells->summary());
    m_shadowPanel->setObjectName(QStringLiteral("shadowPanel"));
    m_shadowPanel->setModel(m_shadow);
    m_shadowPanel->setPrimaryColumn(ShadowModel::WhyColumn);
    m_shadowPanel->setSummary(m_shadow->summary());
    m_censusPanel->setModel(m_census);
    m_censusPanel->setSummary(m_census->summary());
    m_censusPanel->setSummarySeverity(m_census->summarySeverity());
    m_consent = [this](const QString &repo, const QString &reason) {
        return QMessageBox::question(
                   m_window, tr("Run this repository's tests without a sandbox?"),
                   tr("<p>%1</p><p>The tests of <b>%2</b> would run with your user's rights: "
                      "they can read and write your files and use the network.</p>"
                      "<p>Run them anyway? The answer is remembered for this repository.</p>")
                       .arg(reason.toHtmlEscaped(), repo.toHtmlEscaped()),
                   QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
    };

    auto *census = new QAction(tr("Run &census"), this);
    census->setObjectName(QStringLiteral("actionRunCensus"));
    census->setShortcut(QKeySequence(tr("Ctrl+Alt+C")));
    census->setToolTip(tr("Collect both trees (the base twice), run both suites and classify "
                          "removed, narrowed and newly skipped nodes"));
    connect(census, &QAction::triggered, this, [this] { startCensus(true); });
    auto *collect = new QAction(tr("Run census, collect &only"), this);
    collect->setObjectName(QStringLiteral("actionRunCensusCollectOnly"));
    collect->setShortcut(QKeySequence(tr("Ctrl+Alt+Shift+C")));
    connect(collect, &QAction::triggered, this, [this] { startCensus(false); });
    auto *attribute = new QAction(tr("&Attribute test…"), this);
    attribute->setObjectName(QStringLiteral("actionAttribute"));
    attribute->setShortcut(QKeySequence(tr("Ctrl+Alt+A")));
    attribute->setToolTip(tr("Run one test on base and head (repeats of seed 0) and say whether "
                             "the patch caused, masks or inherited its failure"));
    connect(attribute, &QAction::triggered, this, [this] {
        const QString test = askTest(tr("Attribute test (matched seeds)"));
        if (!test.isEmpty())
            startAttribution(test, false);
    });
    auto *swept = new QAction(tr("Attribute test, &swept seeds…"), this);
    swept->setObjectName(QStringLiteral("actionAttributeSwept"));
    swept->setShortcut(QKeySequence(tr("Ctrl+Alt+Shift+A")));
    connect(swept, &QAction::triggered, this, [this] {
        const QString test = askTest(tr("Attribute test (swept seeds)"));
        if (!test.isEmpty())
            startAttribution(test, true);
    });
    auto *cells = new QAction(tr("Reproduction &cells…"), this);
    cells->setObjectName(QStringLiteral("actionCells"));
    cells->setShortcut(QKeySequence(tr("Ctrl+Alt+M")));
    cells->setToolTip(tr("solo / order / isolate / clock: how a failure reproduces"));
    connect(cells, &QAction::triggered, this, [this] {
        const QString test = askTest(tr("Reproduction cells"));
        if (!test.isEmpty())
            startCells(test);
    });
    auto *shadow = new QAction(tr("Run shado&w sample"), this);
    shadow->setObjectName(QStringLiteral("actionShadow"));
    shadow->setShortcut(QKeySequence(tr("Ctrl+Alt+S")));
    shadow->setToolTip(tr("Run the head tests the patch can reach, by the base's skip witnesses, "
                          "plus a sample of the skipped ones keyed by the patch"));
    connect(shadow, &QAction::triggered, this, [this] { startShadow(false); });
    auto *merge = new QAction(tr("Merge &shard ledgers…"), this);
    merge->setObjectName(QStringLiteral("actionMergeShards"));
    merge->setShortcut(QKeySequence(tr("Ctrl+Alt+G")));
    merge->setToolTip(tr("Merge the shard ledgers of a sweep split across CI jobs (--shard i/n) "
                         "into the Attribution or Reproduction cells panel"));
    connect(merge, &QAction::triggered, this, [this] {
        if (m_hasOutcome)
            mergeShards(m_chooseShards(m_outcome.ledgerDir));
    });
    m_chooseShards = [this](const QString &ledgerDir) {
        return QFileDialog::getOpenFileNames(
            m_window, tr("Merge shard ledgers"),
            QDir::isRelativePath(ledgerDir) // a bare repository's: not a directory here
                ? QDir::homePath()
                : QDir(ledgerDir).filePath(QString::fromLatin1(core::AttributionRecord::kRunsDir)),
            tr("Shard ledgers (*.json)"));
    };
    auto *matrix = new QAction(tr("Seed &matrix…"), this);
    matrix->setObjectName(QStringLiteral("actionSeedMatrix"));
    matrix->setShortcut(QKeySequence(tr("Ctrl+Alt+X")));
    matrix->setToolTip(tr("Seeds × replays of the chosen tests on both trees, triaged "
                          "(PATCH_BUG, FLAKY_ORACLE, PRE_EXISTING, NO_SIGNAL), as a heatmap"));
    connect(matrix, &QAction::triggered, this, [this] {
        const QStringList tests = askTests();
        if (!tests.isEmpty())
            startMatrix(tests);
    });
    connect(m_matrixPanel, &SeedMatrixPanel::grantFreezeRequested, this,
            &RunDesk::matrixFreezeRequested);
    connect(m_controller, &RunController::matrixStarted, this,
            [this](const QStringList &tests, const std::vector<uint32_t> &seeds, int replays) {
                if (m_controller->jobTag() != m_targetKey)
                    return;
                m_matrixPanel->heat()->begin(tests, seeds, replays);
                Q_EMIT matrixShown();
            });
    connect(m_controller, &RunController::matrixReported, this,
            [this](core::Arm arm, const std::vector<core::Trial> &reported) {
                if (m_controller->jobTag() == m_targetKey)
                    m_matrixPanel->heat()->addReported(arm, reported);
            });
    connect(m_controller, &RunController::matrixReady, this,
            [this](const core::MatrixResult &result) {
                if (!droppedForAnotherTarget())
                    showMatrix(result);
            });
    auto *cancel = new QAction(tr("Cancel &runs"), this);
    cancel->setObjectName(QStringLiteral("actionCancelRuns"));
    cancel->setShortcut(QKeySequence(tr("Ctrl+Alt+K")));
    cancel->setEnabled(false);
    connect(cancel, &QAction::triggered, m_controller, &RunController::cancel);
    m_actions = {census, collect, attribute, swept, cells, matrix, shadow, merge, cancel};

    // While a job runs the other actions stay enabled: what they start waits in the queue.
    connect(m_controller, &RunController::started, this, [this, cancel](const QString &job) {
        cancel->setEnabled(true);
        Q_EMIT message(0, tr("%1 started").arg(job));
        EvidencePanel *panel = panelFor(job);
        if (!panel)
            return; // the seed matrix: its heatmap begins with matrixStarted
        panel->setSummary(
            job.startsWith(tr("attribute"))
                ? tr("Attributing %1…").arg(job.mid(tr("attribute ").size()))
            : job.startsWith(tr("cells"))
                ? tr("Reproducing %1 in four cells…").arg(job.mid(tr("cells ").size()))
                : tr("%1 running…").arg(capitalised(job)));
        panel->setSummarySeverity(std::nullopt);
        if (panel == m_attributionTable)
            m_grantFreeze->setEnabled(false);
    });
    connect(m_controller, &RunController::queueChanged, this,
            [this, cancel] { cancel->setEnabled(m_controller->isBusy()); });
    connect(m_controller, &RunController::finished, this, [this, cancel](const QString &job) {
        cancel->setEnabled(m_controller->isBusy()); // the next job starts right after
        Q_EMIT message(0, tr("%1 finished: %2").arg(job, m_controller->progressText()));
    });
    connect(m_controller, &RunController::attributionReady, this,
            [this](const core::AttributionResult &result) {
                if (!droppedForAnotherTarget())
                    showAttribution(result);
            });
    connect(m_controller, &RunController::cellsReady, this,
            [this](const core::ReproCellsResult &result) {
                if (!droppedForAnotherTarget())
                    showCells(result);
            });
    connect(m_controller, &RunController::shadowReady, this,
            [this](const core::ShadowReport &report) {
                if (!droppedForAnotherTarget())
                    showShadow(report);
            });
    connect(m_controller, &RunController::censusReady, this,
            [this](const core::CensusReport &report) {
                if (droppedForAnotherTarget())
                    return;
                m_census->setReport(report);
                showCensusFindings(report);
                m_censusPanel->setSummary(m_census->summary());
                m_censusPanel->setSummarySeverity(m_census->summarySeverity());
                for (const std::string &w : report.warnings)
                    Q_EMIT message(1, QString::fromStdString(w));
                if (!report.harnessError.empty())
                    Q_EMIT message(
                        2, tr("No census: %1").arg(QString::fromStdString(report.harnessError)));
                Q_EMIT censusShown();
            });
    connect(m_controller, &RunController::failed, this,
            [this](const QString &job, const QString &error) {
                Q_EMIT message(2, tr("%1 failed: %2").arg(job, error));
                // A job for the repository and revisions shown before says so in the status
                // line only: the panels show the current target's evidence.
                if (m_controller->jobTag() != m_targetKey)
                    return;
                EvidencePanel *panel = panelFor(job);
                if (!panel) {
                    m_matrixPanel->heat()->clear();
                    m_matrixPanel->setFailure(tr("%1 failed: %2").arg(job, error));
                    return;
                }
                panel->setSummary(tr("%1 failed: %2").arg(job, error));
                panel->setSummarySeverity(core::Severity::Block);
            });
}

void RunDesk::forgetConsent(const QString &repo)
{
    QSettings settings;
    if (repo.isEmpty())
        settings.remove(QStringLiteral("runs/unsandboxed"));
    else
        settings.remove(consentKey(repo));
}

bool RunDesk::allowRun(bool *sandbox)
{
    const QString repo = QString::fromStdString(m_outcome.report.repo);
    const core::SandboxStatus &status = m_outcome.sandbox; // probed with the audit
    if (m_outcome.config.sandbox && status.available) {
        *sandbox = true;
        return true;
    }
    *sandbox = false;
    QSettings settings;
    if (settings.value(consentKey(repo)).toBool())
        return true;
    const QString reason =
        m_outcome.config.sandbox
            ? tr("No sandbox is available: %1").arg(QString::fromStdString(status.reason))
            : tr("config.toml turns the sandbox off (sandbox = false).");
    if (!m_consent || !m_consent(repo, reason)) {
        Q_EMIT message(1, tr("Runs not started: the project's code would run without a "
                             "sandbox (%1)")
                              .arg(reason));
        return false;
    }
    if (m_rememberConsent)
        settings.setValue(consentKey(repo), true);
    return true;
}

std::optional<core::RunRequest> RunDesk::runRequest()
{
    if (!m_hasOutcome) {
        Q_EMIT message(1, tr("Open a repository first: runs compare the audit's base and "
                             "head."));
        return std::nullopt;
    }
    bool sandbox = false;
    if (!allowRun(&sandbox))
        return std::nullopt;
    core::RunRequest request;
    request.target = m_outcome.request.audit;
    request.target.progress = {};
    // The revisions the window shows, as the audit resolved them: a branch that moved since
    // does not change what the runs compare.
    request.review = m_outcome.target;
    request.sandbox = sandbox;
    return request;
}

void RunDesk::noteQueued(const QString &job)
{
    if (!m_controller->isBusy())
        return;
    const int ahead = int(m_controller->queued().size());
    Q_EMIT message(0, ahead == 0
                          ? tr("%1 queued: it starts when %2 ends").arg(job, m_controller->job())
                          : tr("%1 queued behind %2 and %n more job(s)", nullptr, ahead)
                                .arg(job, m_controller->job()));
}

QString RunDesk::askTest(const QString &title)
{
    bool ok = false;
    const QString test = QInputDialog::getText(m_window, title, tr("pytest node id (path::name):"),
                                               QLineEdit::Normal, m_currentTest, &ok)
                             .trimmed();
    return ok ? test : QString();
}

bool RunDesk::startCensus(bool execute)
{
    const std::optional<core::RunRequest> request = runRequest();
    if (!request)
        return false;
    noteQueued(RunController::censusTitle(execute));
    return m_controller->startCensus(*request, execute, m_targetKey);
}

bool RunDesk::startAttribution(const QString &test, bool swept)
{
    const std::optional<core::RunRequest> request = runRequest();
    if (!request)
        return false;
    core::AttributionRequest attribution;
    attribution.test = test.toStdString();
    attribution.mode =
        swept ? core::AttributionRequest::Mode::Swept : core::AttributionRequest::Mode::Matched;
    noteQueued(tr("attribute %1").arg(test));
    return m_controller->startAttribution(*request, attribution, m_targetKey);
}

bool RunDesk::startShadow(bool dryRun)
{
    const std::optional<core::RunRequest> request = runRequest();
    if (!request)
        return false;
    core::ShadowOptions options;
    options.dryRun = dryRun;
    noteQueued(tr("shadow sample"));
    return m_controller->startShadow(*request, options, m_targetKey);
}

QStringList RunDesk::patchTests() const
{
    QStringList tests;
    if (!m_hasOutcome)
        return tests;
    for (const core::ChangedFile &f : m_outcome.report.changedFiles) {
        // A deleted file has no test at head, an added one none at base: neither can be
        // triaged (the manifest diff reports both).
        if (!f.testFile || f.status == "D" || f.status == "A")
            continue;
        const auto at = m_outcome.headTests.find(f.path);
        if (at == m_outcome.headTests.end())
            continue;
        for (const std::string &id : at->second.ids)
            tests << QString::fromStdString(id);
    }
    tests.removeDuplicates();
    return tests;
}

QStringList RunDesk::askTests()
{
    QStringList offered;
    if (!m_currentTest.isEmpty())
        offered << m_currentTest;
    else
        offered = patchTests();
    bool ok = false;
    const QString text = QInputDialog::getMultiLineText(
        m_window, tr("Seed matrix"),
        tr("pytest node ids, one per line (the selected test, else the tests the patch "
           "touches):"),
        offered.join(QLatin1Char('\n')), &ok);
    if (!ok)
        return {};
    QStringList tests;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty())
            tests << line.trimmed();
    }
    tests.removeDuplicates();
    return tests;
}

bool RunDesk::startMatrix(const QStringList &tests)
{
    const QStringList chosen = tests.isEmpty() ? patchTests() : tests;
    if (chosen.isEmpty()) {
        Q_EMIT message(1, tr("Seed matrix: no test chosen, and the patch touches no test file "
                             "with tests at head"));
        return false;
    }
    const std::optional<core::RunRequest> request = runRequest();
    if (!request)
        return false;
    core::MatrixRequest matrix;
    for (const QString &t : chosen)
        matrix.tests.push_back(t.toStdString());
    noteQueued(RunController::matrixTitle(matrix.tests));
    return m_controller->startMatrix(*request, matrix, m_targetKey);
}

bool RunDesk::startCells(const QString &test)
{
    const std::optional<core::RunRequest> request = runRequest();
    if (!request)
        return false;
    core::CellsRequest cells;
    cells.test = test.toStdString();
    noteQueued(tr("cells %1").arg(test));
    return m_controller->startCells(*request, cells, m_targetKey);
}

} // namespace pw::gui
