#pragma once

#include "AuditRunner.h"
#include "dynamic/Census.h"
#include "dynamic/ReproCells.h"
#include "dynamic/SeedMatrix.h"
#include "dynamic/Shadow.h"
#include "execution/RunContext.h"
#include "util/ThreadRule.h"

#include <QList>
#include <QObject>
#include <QStringList>
#include <functional>
#include <map>
#include <optional>
#include <vector>

class QAction;
class QLabel;
class QPushButton;
class QWidget;

namespace pw::gui {

class AttributionModel;
class CellsModel;
class CensusModel;
class EvidencePanel;
class RunController;
class RunsPanel;
class SeedMatrixPanel;
class ShadowModel;

// The dynamic gates in the window: the Runs panel, the Census panel, the
// Runs menu actions, and the sandbox question. Runs use the last audit's request (repo,
// base, head, ledger dir, interpreter) and config; results stream into the panels.
//
// Sandbox: runs use bubblewrap when config `sandbox` is on and bwrap works.
// Otherwise the project's code would run with the reviewer's rights and network, so the
// desk asks once per repository (remembered in QSettings) before the first run.
class RunDesk : public QObject
{
    Q_OBJECT
public:
    explicit RunDesk(QWidget *window);

    RunController *controller() const { return m_controller; }
    RunsPanel *runsPanel() const { return m_runsPanel; }
    EvidencePanel *censusPanel() const { return m_censusPanel; }
    CensusModel *censusModel() const { return m_census; }
    // The Attribution panel: the runs table plus "Grant freeze…" (enabled only for
    // PRE_EXISTING) and the replay command.
    QWidget *attributionPanel() const { return m_attributionPanel; }
    EvidencePanel *attributionTable() const { return m_attributionTable; }
    AttributionModel *attributionModel() const { return m_attribution; }
    EvidencePanel *cellsPanel() const { return m_cellsPanel; }
    CellsModel *cellsModel() const { return m_cells; }
    // The Shadow sample panel: per head test run or skipped by its witness.
    EvidencePanel *shadowPanel() const { return m_shadowPanel; }
    ShadowModel *shadowModel() const { return m_shadow; }
    QPushButton *grantFreezeButton() const { return m_grantFreeze; }
    // The Seed matrix panel: the heatmap, its triage and the cells' logs.
    SeedMatrixPanel *matrixPanel() const { return m_matrixPanel; }
    QList<QAction *> actions() const { return m_actions; } // for the Runs menu

    void setOutcome(const AuditOutcome &outcome);
    // What the dynamic gates found for the shown comparison, as findings of the window's
    // gate report (one report for every gate): the last census's, every attribution's (one per
    // test, the latest) and the last shadow sample's. Cleared with the panels.
    std::vector<core::Finding> dynamicFindings() const;
    // Which runs dynamicFindings() comes from: "census 14:02, attribute tests/t.py::x 14:05".
    QString dynamicSources() const;
    // The start functions queue the job behind the running one (RunController); false
    // when nothing is open or the reviewer declined to run the project's code without a
    // sandbox.
    // The census of the current audit's trees.
    bool startCensus(bool execute = true);
    // Base/head attribution of `test`: matched (repeats of seed 0) or swept.
    bool startAttribution(const QString &test, bool swept = false);
    // The four-cell reproduction matrix of `test` at head.
    bool startCells(const QString &test);
    // The seed matrix of `tests` (empty: the tests the patch touches, patchTests()) on both
    // trees, config `seeds` × `replays`; the heatmap fills in as replays report.
    bool startMatrix(const QStringList &tests = {});
    // The head tests of the test files the patch changes (an added file has no baseline to
    // triage against, a deleted one no head).
    QStringList patchTests() const;
    // Skip witnesses and the shadow sample at head; `dryRun`: decisions and
    // sample only, head is not run.
    bool startShadow(bool dryRun = false);
    // The shard ledgers of one sweep run across CI jobs (`--shard i/n`), merged
    // as `patchwitness-cli merge --record` does — the evidence record is written — and
    // shown in the Attribution or Reproduction cells panel. Refused (a message, false)
    // when a shard is missing, the ledgers do not belong together, or they are about
    // other commits than the open comparison.
    bool mergeShards(const QStringList &files);
    // Picks the files for "Merge shard ledgers…" (argument: the ledger directory). The
    // default is a file dialog; tests replace it.
    void setShardChooser(std::function<QStringList(const QString &)> chooser)
    {
        m_chooseShards = std::move(chooser);
    }
    // The test the Attribute / Cells actions offer (the last row a reviewer picked).
    void setCurrentTest(const QString &test) { m_currentTest = test; }
    QString currentTest() const { return m_currentTest; }

    // Asked before running code unsandboxed: (repository root, why there is no sandbox)
    // → run anyway. The default shows a question box; tests replace it.
    using ConsentHandler = std::function<bool(const QString &repo, const QString &reason)>;
    void setConsentHandler(ConsentHandler handler) { m_consent = std::move(handler); }
    // Whether a yes is remembered for the repository (default). A one-off consent (the
    // --run command line) is not.
    void setRememberConsent(bool remember) { m_rememberConsent = remember; }
    // Forgets the answers given for `repo` (all repositories when empty).
    static void forgetConsent(const QString &repo = {});

Q_SIGNALS:
    void message(int level, const QString &text); // 0 info, 1 warning, 2 error
    void censusShown();
    void attributionShown();
    void cellsShown();
    void dynamicFindingsChanged();
    void shadowShown();
    void matrixShown(); // a matrix began (its heatmap fills in) or ended
    // Grant freeze on a PRE_EXISTING heatmap row: the ledger desk opens the form pre-filled
    // from the matrix record.
    void matrixFreezeRequested(const QString &test, const QString &record);
    // "Grant freeze…" on a PRE_EXISTING attribution: the ledger desk opens the form (its
    // pre-fill reads the record the attribution just wrote to runs/).
    void grantFreezeRequested(const QString &test);
    // An evidence record was written to runs/ (attribution, cells, a merged sweep).
    void recordWritten(const QString &path);

private:
    // Whether runs of this repository may start, and with the sandbox or not.
    bool allowRun(bool *sandbox);
    // The request for the current audit's trees, after allowRun(); nullopt: do not run.
    std::optional<core::RunRequest> runRequest();
    QString askTest(const QString &title);
    QStringList askTests(); // the seed matrix's tests, one per line
    // A result of a job started for another target: dropped, with a message.
    bool droppedForAnotherTarget();
    // The panel a job's results (or failure) go to, by its title.
    EvidencePanel *panelFor(const QString &job) const;
    // Says that `job` waits in the queue, when it does.
    void noteQueued(const QString &job);
    // The evidence record a result wrote (or could not write), in the log and to listeners.
    void noteRecord(const std::string &path, const std::string &error);
    void showAttribution(const core::AttributionResult &result);
    void showCells(const core::ReproCellsResult &result);
    void showShadow(const core::ShadowReport &report);
    void showMatrix(const core::MatrixResult &result);

    // The GUI thread never waits on git or a process, checked while the desk lives.
    const core::NoBlockingWorkHere m_guiThread{"GUI"};
    QWidget *m_window;
    RunController *m_controller;
    RunsPanel *m_runsPanel;
    CensusModel *m_census;
    EvidencePanel *m_censusPanel;
    AttributionModel *m_attribution;
    EvidencePanel *m_attributionTable;
    QWidget *m_attributionPanel;
    QPushButton *m_grantFreeze;
    QLabel *m_replay;
    QPushButton *m_copyReplay;    // enabled while there is a replay command
    QLabel *m_coverage = nullptr; // Diff coverage of the failing test
    CellsModel *m_cells;
    EvidencePanel *m_cellsPanel;
    ShadowModel *m_shadow;
    EvidencePanel *m_shadowPanel;
    SeedMatrixPanel *m_matrixPanel;
    QString m_currentTest;
    QList<QAction *> m_actions;
    AuditOutcome m_outcome;
    bool m_hasOutcome = false;
    ConsentHandler m_consent;
    std::function<QStringList(const QString &)> m_chooseShards;
    bool m_rememberConsent = true;
    struct DynamicPart
    {
        QString source; // "census 14:02"
        std::vector<core::Finding> findings;
    };
    // Keyed "census", "attribute <test>", "shadow", "matrix <test>": the latest of each.
    std::map<QString, DynamicPart> m_dynamic;
    void setDynamic(const QString &key, const QString &source, std::vector<core::Finding> found);
    void showCensusFindings(const core::CensusReport &report);
    // A review finding for a run that gave no result (`code`: C-NONE, S-NONE).
    static core::Finding noResultFinding(const char *code, const std::string &why,
                                         const QString &evidence);
    // Repository + base + head of the outcome the panels show; every job carries the one it
    // was asked for (RunController::jobTag), and its results are dropped when they differ.
    QString m_targetKey;
    void clearResults();
};

} // namespace pw::gui
