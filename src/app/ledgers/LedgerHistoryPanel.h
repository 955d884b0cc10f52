#pragma once

#include "LatestTask.h"
#include "ledger/LedgerHistory.h"
#include "repo/PatchDiff.h"

#include <QDate>
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

class QLabel;
class QModelIndex;
class QSplitter;
class QStackedWidget;

namespace pw::gui {

class DiffView;
class EvidencePanel;
class LedgerEventsModel;

// The "History" panel: the timeline of a ledger directory's events (an
// EvidencePanel whose filter box filters by test) above the selected event's version of
// the ledger file, diffed against the version before it. History and diffs are read off
// the GUI thread; a refresh asked for while one runs supersedes it (its result is dropped).
//
// Object names: events (panel), ledgerDiff (DiffView), revisionHeader, explanation.
class LedgerHistoryPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LedgerHistoryPanel(QWidget *parent = nullptr);
    ~LedgerHistoryPanel() override; // waits for running reads

    // `ledgerDir` is repository-relative (".patchwitness"); an absolute path inside the
    // repository is accepted too. `today` decides which freezes count as expired. Does
    // not load: call refresh().
    void setRepository(const QString &repoPath, const QString &ledgerDir, const QDate &today);
    void refresh();
    void setEntryFilter(const QString &test); // the filter box's text
    bool isLoading() const;                   // from refresh() until loaded()
    bool isReadingRevision() const; // from a selection until revisionShown() (or a newer one)

    // Selects the event at `row` of the model (newest first) and shows its version; false
    // when there is no such row or the filter hides it.
    bool selectEvent(int row);
    const core::LedgerEvent *selectedEvent() const;

    EvidencePanel *events() const { return m_panel; }
    LedgerEventsModel *model() const { return m_model; }
    DiffView *diffView() const { return m_diff; }
    QString headerText() const;
    // Why there is no history to show (ledger dir outside the repository, no commits,
    // unreadable repository); empty when the events are shown.
    QString explanation() const { return m_explanation; }

    // What the reads compute, exposed so they can be tested without a widget.
    struct History
    {
        std::vector<core::LedgerEvent> events;
        QString explanation;
        QString repoRoot; // the work tree the events belong to
    };
    struct VersionDiff
    {
        QString repoRoot;
        core::LedgerEvent event;
        std::optional<core::FileDiff> file; // nullopt: the commit does not change the file
        QString error;
    };
    static History readHistory(const QString &repoPath, const QString &ledgerDir,
                               const QDate &today);
    static VersionDiff readVersion(const QString &repoRoot, const core::LedgerEvent &event);

Q_SIGNALS:
    void loaded();        // events (or an explanation) arrived
    void revisionShown(); // the selected event's diff is on the diff view

private:
    struct HistoryRequest
    {
        QString repo;
        QString ledgerDir;
        QDate today;
    };
    void startHistory(const HistoryRequest &request);
    void historyFinished(History history);
    void currentRowChanged(const QModelIndex &current);
    void startRevision(const core::LedgerEvent &event);
    void revisionFinished(VersionDiff version);
    void showExplanation(const QString &text);
    void showNoEvent(); // the hint instead of a diff
    QString describe(const core::LedgerEvent &event) const;

    LedgerEventsModel *m_model;
    EvidencePanel *m_panel;
    DiffView *m_diff;
    QLabel *m_header;
    QLabel *m_explanationLabel;
    QSplitter *m_splitter;
    QStackedWidget *m_stack;

    HistoryRequest m_request;
    QString m_repoRoot;
    QString m_explanation;
    std::optional<core::LedgerEvent> m_shownEvent; // whose diff is asked for / shown
    // The reads, newest request first (a refresh or a selection made while one reads waits
    // for it and makes its answer stale).
    LatestTask<History> m_historyTask;
    LatestTask<VersionDiff> m_revisionTask;
};

} // namespace pw::gui
