// RunDesk's results: the panels the runs' evidence goes to, the census, attribution,
// cells and shadow results, merged shard ledgers, and the dynamic findings that join the
// report (the desk itself, consent and starting runs are RunDesk.cpp).
#include "RunController.h"
#include "RunDesk.h"
#include "RunsPanel.h"
#include "dynamic/ShardMerge.h"
#include "ledger/LedgerDate.h"
#include "panels/EvidencePanel.h"
#include "panels/SeverityStyle.h"
#include "runs/AttributionModel.h"
#include "runs/CensusModel.h"
#include "runs/SeedMatrixPanel.h"
#include "runs/ShadowModel.h"
#include "util/Error.h"
#include "util/Format.h"

#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QTime>
#include <exception>

namespace pw::gui {

namespace {

// The diff-coverage line under the attribution table: "did not touch the change" stands out
// (bold, amber), touched and unknown are plain.
void showCoverage(QLabel *label, const QString &text, std::optional<core::Severity> severity)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
    QString style = QStringLiteral("QLabel#diffCoverage { padding: 4px 8px;");
    if (severity && *severity != core::Severity::Info) {
        const auto tone = severity_style::toneForSeverity(severity);
        style += QStringLiteral(" font-weight: bold; color: %1; background: %2; border-left: "
                                "4px solid %1;")
                     .arg(severity_style::foreground(tone).name(),
                          severity_style::background(tone).name());
    }
    label->setStyleSheet(style + QStringLiteral(" }"));
}

} // namespace

EvidencePanel *RunDesk::panelFor(const QString &job) const
{
    if (job.startsWith(tr("matrix")))
        return nullptr; // the Seed matrix panel is no table
    return job.startsWith(tr("census"))      ? m_censusPanel
           : job.startsWith(tr("attribute")) ? m_attributionTable
           : job.startsWith(tr("shadow"))    ? m_shadowPanel
                                             : m_cellsPanel;
}

bool RunDesk::droppedForAnotherTarget()
{
    if (m_controller->jobTag() == m_targetKey)
        return false;
    Q_EMIT message(1, tr("Results of a run for another repository or other revisions were "
                         "dropped"));
    return true;
}

void RunDesk::showAttribution(const core::AttributionResult &result)
{
    m_attribution->setResult(result);
    const QString test = QString::fromStdString(result.test);
    if (const std::optional<core::Finding> finding = result.finding())
        setDynamic(tr("attribute %1").arg(test), tr("attribute %1").arg(test), {*finding});
    m_attributionTable->setSummary(m_attribution->summary());
    m_attributionTable->setSummarySeverity(m_attribution->summarySeverity());
    m_grantFreeze->setEnabled(result.freezeAllowed());
    m_grantFreeze->setToolTip(result.freezeAllowed()
                                  ? tr("Open Grant freeze pre-filled from %1")
                                        .arg(QString::fromStdString(result.recordPath))
                                  : tr("A freeze is allowed only for a PRE_EXISTING failure"));
    m_replay->setText(QString::fromStdString(result.replay));
    m_copyReplay->setEnabled(!result.replay.empty());
    showCoverage(m_coverage, m_attribution->coverageLine(), m_attribution->coverageSeverity());
    noteRecord(result.recordPath, result.recordError);
    Q_EMIT attributionShown();
}

void RunDesk::noteRecord(const std::string &path, const std::string &error)
{
    if (!path.empty()) {
        Q_EMIT message(0, tr("Wrote %1").arg(QString::fromStdString(path)));
        Q_EMIT recordWritten(QString::fromStdString(path));
    }
    if (!error.empty())
        Q_EMIT message(2, QString::fromStdString(error));
}

void RunDesk::showCells(const core::ReproCellsResult &result)
{
    m_cells->setResult(result);
    m_cellsPanel->setSummary(m_cells->summary());
    m_cellsPanel->setSummarySeverity(m_cells->summarySeverity());
    noteRecord(result.recordPath, result.recordError);
    Q_EMIT cellsShown();
}

void RunDesk::showShadow(const core::ShadowReport &report)
{
    m_shadow->setReport(report);
    // A dry run decides and finds nothing; an interrupted one leaves the last result be.
    if (!report.dryRun && !report.interrupted) {
        if (report.harnessError.empty())
            setDynamic(tr("shadow"), tr("shadow sample"), report.findings());
        else
            setDynamic(tr("shadow"), tr("shadow sample"),
                       {noResultFinding("S-NONE", report.harnessError,
                                        tr("a shadow sample that runs (see the Runs panel)"))});
    }
    m_shadowPanel->setSummary(m_shadow->summary());
    m_shadowPanel->setSummarySeverity(m_shadow->summarySeverity());
    for (const std::string &w : report.warnings)
        Q_EMIT message(1, QString::fromStdString(w));
    for (const core::WitnessBug &bug : report.bugs)
        Q_EMIT message(
            2, tr("Witness bug: %1 was skipped by its witness and failed in the "
                  "shadow sample (%2)")
                   .arg(QString::fromStdString(bug.nodeId), QString::fromStdString(bug.message)));
    if (!report.harnessError.empty())
        Q_EMIT message(2,
                       tr("No shadow result: %1").arg(QString::fromStdString(report.harnessError)));
    Q_EMIT shadowShown();
}

bool RunDesk::mergeShards(const QStringList &files)
{
    if (!m_hasOutcome || files.isEmpty())
        return false;
    const auto refuse = [this](const QString &why) {
        Q_EMIT message(2, tr("Merge shard ledgers: %1").arg(why));
        return false;
    };
    core::MergedSweep merged;
    try {
        std::vector<core::ShardLedger> ledgers;
        for (const QString &file : files)
            ledgers.push_back(core::ShardLedger::read(file.toStdString()));
        const core::ShardSet set = core::ShardSet::gather(std::move(ledgers));
        // A partial merge is not evidence (the CLI's --partial shows one); the panels show
        // evidence about the open comparison only.
        if (!set.complete())
            return refuse(QString::fromStdString(set.missingText()));
        const core::GateReport &r = m_outcome.report;
        const core::ShardLedger &first = set.first();
        if (first.baseCommit != r.base.commit.value_or("") ||
            first.headCommit != r.head.commit.value_or(""))
            return refuse(tr("the shards compare %1 with %2, not the open base and head")
                              .arg(QString::fromStdString(core::shortId(first.baseCommit)),
                                   QString::fromStdString(core::shortId(first.headCommit))));
        // A bare repository's ledger directory is not on disk: merged, not recorded (the
        // current directory is not its work tree).
        const bool onDisk = !QDir::isRelativePath(m_outcome.ledgerDir);
        const QString runsDir =
            onDisk ? QDir(m_outcome.ledgerDir)
                         .filePath(QString::fromLatin1(core::AttributionRecord::kRunsDir))
                   : QString();
        const QDate today =
            m_outcome.request.audit.today.empty() ? QDate::currentDate() : m_outcome.today;
        merged = core::mergeSweep(set, runsDir.toStdString(), core::ledgerDateText(today));
        Q_EMIT message(0, tr("Merged %1 shard ledgers of %2 %3%4")
                              .arg(set.shards.size())
                              .arg(QString::fromStdString(first.kind),
                                   QString::fromStdString(first.parametersText()),
                                   onDisk ? QString()
                                          : tr(" (not recorded: a bare repository has no work "
                                               "tree to keep runs/ in)")));
    } catch (const core::Error &e) {
        return refuse(QString::fromUtf8(e.what()));
    } catch (const std::exception &e) { // bad_alloc, a JSON error: reported, never fatal
        return refuse(QString::fromUtf8(e.what()));
    }
    if (merged.attribution)
        showAttribution(*merged.attribution);
    else if (merged.matrix)
        showMatrix(*merged.matrix);
    else
        showCells(*merged.cells);
    return true;
}

namespace {

// What run results answer for: the repository and both commits. A head without a commit
// (WORKTREE, PATCH:) adds the changed files' content ids, so an edit the watcher re-audits
// is another target; ledger files are left out, so approving a waiver or granting a freeze
// from a run's evidence does not discard that evidence.
QString targetKey(const AuditOutcome &outcome)
{
    const core::GateReport &r = outcome.report;
    QString key =
        QString::fromStdString(r.repo + '\n' + r.base.rev + '\n' + r.base.commit.value_or("") +
                               '\n' + r.head.rev + '\n' + r.head.commit.value_or(""));
    if (r.head.commit)
        return key;
    const QString ledgers =
        QDir(QString::fromStdString(r.repo)).relativeFilePath(outcome.ledgerDir) + QLatin1Char('/');
    // The audit's own diff, not the displayed one: hiding whitespace-only changes in the
    // diff view changes nothing the runs see.
    for (const core::ChangedFile &f : r.changedFiles) {
        const QString path = QString::fromStdString(f.path);
        if (!ledgers.startsWith(QLatin1String("..")) && path.startsWith(ledgers))
            continue;
        // A rename and an added file of the same content differ by the status and old path.
        key += QLatin1Char('\n') + QString::fromStdString(f.status) + QLatin1Char(' ') +
               QString::fromStdString(f.oldPath) + QLatin1Char(' ') + path + QLatin1Char(' ') +
               QString::fromStdString(f.newBlob) + QLatin1Char(' ') + QString::number(f.newMode, 8);
    }
    return key;
}

} // namespace

void RunDesk::setOutcome(const AuditOutcome &outcome)
{
    m_outcome = outcome;
    m_hasOutcome = outcome.ok;
    const QString key = outcome.ok ? targetKey(outcome) : QString();
    if (key == m_targetKey)
        return;
    // Another repository or other revisions: evidence of the old target must not answer
    // for the new one (a freeze granted from it would be wrong), and a job for the old
    // target is stopped.
    m_targetKey = key;
    if (m_controller->isRunning())
        m_controller->cancel();
    clearResults();
}

// The census's findings join the report under one key, whichever kind ran last (the Census
// panel shows that one too). A census that could not be taken replaces them with one review
// finding saying why (the CLI exits 4 for it); a cancelled one leaves the last result be.
void RunDesk::showCensusFindings(const core::CensusReport &report)
{
    if (report.interrupted)
        return;
    const QString source = RunController::censusTitle(report.executed);
    if (report.harnessError.empty())
        setDynamic(tr("census"), source, report.findings);
    else
        setDynamic(tr("census"), source,
                   {noResultFinding("C-NONE", report.harnessError,
                                    tr("a census that can be taken (see the Runs panel)"))});
}

void RunDesk::showMatrix(const core::MatrixResult &result)
{
    m_matrixPanel->heat()->setResult(result);
    if (!result.interrupted) {
        // Keyed per test, like attribute: a later matrix of other tests keeps these, one
        // of the same test replaces its finding.
        for (core::Finding &f : result.findings()) {
            const QString test = QString::fromStdString(f.test);
            setDynamic(tr("matrix %1").arg(test), tr("matrix %1").arg(test), {std::move(f)});
        }
    } else {
        Q_EMIT message(1, tr("Seed matrix interrupted: no triage, nothing recorded"));
    }
    for (const std::string &why : result.restarts)
        Q_EMIT message(0,
                       tr("matrix: a fork server restarted: %1").arg(QString::fromStdString(why)));
    noteRecord(result.recordPath, result.recordError);
    // The first test that needs a look is selected, its witness cell open.
    const std::vector<int> &shown = m_matrixPanel->heat()->shown();
    if (!shown.empty()) {
        const MatrixHeat::Row &row = m_matrixPanel->heat()->row(shown.front());
        m_matrixPanel->selectTest(row.test, row.witnessSeed ? row.witnessSeed : row.flakySeed);
    }
    Q_EMIT matrixShown();
}

core::Finding RunDesk::noResultFinding(const char *code, const std::string &why,
                                       const QString &evidence)
{
    core::Finding f;
    f.gate = code[0] == 'C' ? "census" : "run";
    f.code = code;
    f.severity = core::Severity::Review;
    f.message = tr("no result: %1").arg(QString::fromStdString(why)).toStdString();
    f.evidence = evidence.toStdString();
    return f;
}

void RunDesk::setDynamic(const QString &key, const QString &source,
                         std::vector<core::Finding> found)
{
    m_dynamic[key] = {source + QLatin1Char(' ') +
                          QTime::currentTime().toString(QStringLiteral("HH:mm")),
                      std::move(found)};
    Q_EMIT dynamicFindingsChanged();
}

std::vector<core::Finding> RunDesk::dynamicFindings() const
{
    std::vector<core::Finding> all;
    for (const auto &[key, part] : m_dynamic)
        all.insert(all.end(), part.findings.begin(), part.findings.end());
    return all;
}

QString RunDesk::dynamicSources() const
{
    QStringList sources;
    for (const auto &[key, part] : m_dynamic)
        sources << part.source;
    return sources.join(QStringLiteral(", "));
}

void RunDesk::clearResults()
{
    if (!m_dynamic.empty()) {
        m_dynamic.clear();
        Q_EMIT dynamicFindingsChanged();
    }
    m_census->clear();
    m_censusPanel->setSummary(m_census->summary());
    m_censusPanel->setSummarySeverity(std::nullopt);
    m_attribution->clear();
    m_attributionTable->setSummary(m_attribution->summary());
    m_attributionTable->setSummarySeverity(std::nullopt);
    m_grantFreeze->setEnabled(false);
    m_replay->clear();
    m_copyReplay->setEnabled(false);
    showCoverage(m_coverage, QString(), std::nullopt);
    m_cells->clear();
    m_cellsPanel->setSummary(m_cells->summary());
    m_cellsPanel->setSummarySeverity(std::nullopt);
    m_matrixPanel->heat()->clear();
    m_shadow->clear();
    m_shadowPanel->setSummary(m_shadow->summary());
    m_shadowPanel->setSummarySeverity(std::nullopt);
}

} // namespace pw::gui
