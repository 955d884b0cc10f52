#pragma once

#include "AuditRunner.h"
#include "LatestTask.h"
#include "util/ThreadRule.h"

#include <QMainWindow>
#include <memory>

class QDialog;
class QDockWidget;
class QLabel;
class QMenu;
class QToolButton;

namespace Ui {
class MainWindow;
}

namespace pw::gui {

class ChangedFilesModel;
class DiffView;
class EvidencePanel;
class FindingsModel;
class LatitudeModel;
class LedgerDesk;
class LogModel;
class ManifestModel;
class RecentRepositories;
class RepositoryWatcher;
class RevisionLoader;
class RunDesk;
class StrengthModel;
class VerdictChip;
class VerdictHeader;
class ViewedMarks;

// The workbench window: changed files, the patch diff and the evidence panels
// of the static audit, the verdict in the status bar. It only wires components: views
// never touch libgit2 or processes, the audit runs in AuditRunner off the GUI thread. A
// checked rule: while the window lives its thread is marked (core::NoBlockingWorkHere),
// and a git or process call on it aborts the GUI tests.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    void openRepository(const QString &path, const QString &base = {}, const QString &head = {});
    void openDemo();
    void setPython(const QString &python) { m_python = python; }
    // The ledger directory (--ledger-dir): relative to the repository or absolute; empty:
    // .patchwitness. Applies from the next audit.
    void setLedgerDir(const QString &dir) { m_ledgerDir = dir; }

    AuditRunner &runner() { return *m_runner; }
    QString verdictText() const;
    // The gate report the window shows, exports and copies (one report for every gate): the
    // audit's static findings plus what the dynamic gates found since (RunDesk), with the
    // verdict over both.
    core::GateReport report() const;
    QString currentPath() const { return m_currentPath; }
    DiffView *diffView() const;
    LedgerDesk *ledgerDesk() const { return m_desk; }
    RunDesk *runDesk() const { return m_runDesk; }
    // Raises the dock of a panel ("findings", "ledgers", ...); false when there is none.
    // The history panel is shown once its events are read, newest selected.
    bool showPanel(const QString &name);
    // Every panel shown, docked where it starts, the first tab of each group in front (View ▸
    // Reset Layout); what a scripted window (--screenshot, --panel, --form, --run) shows,
    // whatever layout was saved.
    void resetLayout();
    void showAllPanels(); // View ▸ Show All Panels: every dock visible, where it is
    // LedgerDesk::openForm: the dialog, or null.
    QDialog *openLedgerForm(const QString &kind, const QString &id = {});
    EvidencePanel *panel(const QString &objectName) const;

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    // The tab bars of tabbed docks (made by Qt as docks are tabified, restored or dragged)
    // keep every title whole and scroll instead of eliding them to "Fi…".
    void childEvent(QChildEvent *event) override;

private:
    // log() levels, as the Log panel shows them.
    enum LogLevel
    {
        LogInfo,
        LogWarning,
        LogError
    };

    void setupPanels();
    void setupActions();
    QDockWidget *addPanelDock(const QString &title, const QString &objectName, QWidget *panel,
                              Qt::DockWidgetArea area, const QKeySequence &shortcut);
    QMenu *m_goToPanel = nullptr; // View ▸ Go to Panel: the panels' shortcuts
    QByteArray m_defaultLayout;   // saveState() before a saved layout was restored
    WorkbenchRequest currentRequest() const;
    void startAudit();
    void auditEnded(); // finished or stopped: the stop action goes away
    void showOutcome();
    void showVerdict(); // the verdict chip and Findings panel from report()
    // The one current file: the diff shows it, the tree selects it, the panels follow it.
    void showFile(const QString &path);
    void selectInTree(const QString &path); // empty: nothing selected
    // No file current: the diff empty under `label`, nothing selected, panels unfiltered.
    void forgetCurrentFile(const QString &label);
    std::vector<core::Finding> findingsOfFile(const core::FileDiff &file) const; // its gutter's
    void followInPanels(const QString &path);
    void selectInPanels(int line, bool oldSide); // the rows of the current file at `line`
    void onPanelRowActivated(const QString &path, int line);
    void onDiffLineChanged(int line, bool oldSide);
    void onFileSelected(const QModelIndex &index);
    void stepFile(int delta);
    // F8 / Shift+F8: every finding, in the Findings panel's order (by default the tree's:
    // file, then line), whatever its filters hide; wraps with a note.
    void stepFinding(bool forward);
    // Shows finding `row` of the Findings model: its line in the diff, or, for a file the
    // patch leaves alone (a ledger, a run's finding), the finding named above an empty diff.
    void goToFinding(int row, const QString &note = {});
    // A verdict clause's link: the next of its findings (`keys`, VerdictHeader::keyOf) in
    // F8's order, after the one the reviewer is on, wrapping; the Findings panel comes forward.
    void goToFindingOf(const QStringList &keys);
    QString changedPathOf(const core::Finding &f, bool *oldPath = nullptr) const;
    bool isAtFinding(int row) const; // the diff shows that finding's place now
    void toggleViewed();
    void updateViewedStatus();
    void chooseRepository();
    void choosePatch();
    void exportReport();
    void copyMarkdown();
    void openSettings();
    void showShortcuts();
    void about();
    void log(int level, const QString &message);
    void refreshRecentMenu();
    // Pins an empty (default) base or head box to what the last audit resolved it to.
    void keepComparison();
    // Gives the changed-files tree the width its columns ask for (a new repository's tree).
    void fitFilesPane();

    // The demo repository as DemoRepository::ensure() built it (off the GUI thread).
    struct DemoLoad
    {
        QString path;
        QString error;
    };

    const core::NoBlockingWorkHere m_guiThread{"GUI"}; // first: marks the whole lifetime
    std::unique_ptr<Ui::MainWindow> m_ui;
    std::unique_ptr<AuditRunner> m_runner;
    ChangedFilesModel *m_files;
    FindingsModel *m_findings;
    ManifestModel *m_manifest;
    LatitudeModel *m_latitude;
    StrengthModel *m_strength;
    LogModel *m_log;
    EvidencePanel *m_findingsPanel = nullptr;
    EvidencePanel *m_manifestPanel = nullptr;
    EvidencePanel *m_latitudePanel = nullptr;
    EvidencePanel *m_strengthPanel = nullptr;
    EvidencePanel *m_logPanel = nullptr;
    LedgerDesk *m_desk = nullptr;
    RunDesk *m_runDesk = nullptr;
    VerdictChip *m_verdictChip;
    QLabel *m_viewedLabel;
    QToolButton *m_stopAuditButton; // the status bar's face of actionStopAudit
    std::unique_ptr<RecentRepositories> m_recent;
    std::unique_ptr<ViewedMarks> m_viewed;
    RepositoryWatcher *m_watcher;
    RevisionLoader *m_revisions;
    LatestTask<DemoLoad> m_demo; // delivers only while the event loop runs

    QString m_repo; // as opened
    QString m_ledgerDir;
    VerdictHeader *m_verdictHeader = nullptr;
    QString m_noticeAfterAudit; // shown in the status bar when the next audit ends
    QString m_repoRoot;         // work tree root from the last audit (a bare one's git dir)
    QString m_workTree;         // the work tree of the last audit that ran: empty when bare
    QString m_python;
    QString m_currentPath;
    int m_restoreLine = 0;
    bool m_syncing = false;   // a selection change made by the window itself
    int m_findingCursor = -1; // the Findings model row F8 or a click last went to
    QString m_cursorPath;     // and the place it left the diff at
    int m_cursorLine = -1;
};

} // namespace pw::gui
