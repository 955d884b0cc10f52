#pragma once

#include "AuditRunner.h"
#include "ledgers/FixtureNoteForm.h"
#include "ledgers/FreezeForm.h"
#include "ledgers/HeadTests.h"
#include "ledgers/LedgerForm.h"
#include "ledgers/WaiverForm.h"
#include "util/ThreadRule.h"

#include <QDir>
#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>

class QAction;
class QMenu;
class QModelIndex;

namespace pw::gui {

class EvidencePanel;
class LedgerFormDialog;
class LedgerHistoryPanel;
class LedgersModel;
struct LedgerRow;

// The window's ledger desk: the Ledgers panel (entries of the ledger
// directory with validity badges), the History panel, and the five forms, opened from the
// Ledger menu or from a row's context menu in the evidence panels and pre-filled from the
// evidence at hand: the node or test of the selected finding, witness and substitute
// candidates that exist at head, the base commit, guards from the test's imports, the
// owners CODEOWNERS names, the newest attribution record in `runs/`.
class LedgerDesk : public QObject
{
    Q_OBJECT
public:
    explicit LedgerDesk(QWidget *window);
    ~LedgerDesk() override;

    EvidencePanel *ledgersPanel() const { return m_ledgersPanel; }
    LedgersModel *ledgersModel() const { return m_ledgers; }
    LedgerHistoryPanel *historyPanel() const { return m_history; }
    // Approve waiver, grant freeze, renew freeze, close journal row, edit fixture note.
    QList<QAction *> formActions() const;
    QAction *action(const QString &objectName) const;

    void setOutcome(const AuditOutcome &outcome);
    void clear();
    // Reads the ledger directory's runs/ again (a run just wrote a record there).
    void refreshRunRecords();
    // Its rows offer the forms their evidence supports (context menu), and the Ledger
    // menu acts on the row selected last in any watched panel.
    void watchPanel(EvidencePanel *panel);

    // Each opens its form window-modal (deleted when closed) and returns it; null when
    // there is no audited repository (or no such freeze / open journal row).
    LedgerFormDialog *approveWaiver(const QString &node);
    // `record`: the runs/ record to pre-fill from (a Ledgers row's own); empty: the newest
    // record for the test.
    LedgerFormDialog *grantFreeze(const QString &test, const QString &record = {});
    LedgerFormDialog *renewFreeze(const QString &test);
    LedgerFormDialog *closeJournalRow(const QString &id);
    LedgerFormDialog *editFixtureNote(const QString &path);

    // Opens the form named `kind` — waiver, freeze, renew, close, note — for `id`, or, when
    // `id` is empty, for the first finding (or ledger entry) it applies to. For --form.
    LedgerFormDialog *openForm(const QString &kind, const QString &id = {});

    // What the forms are pre-filled with (for tests).
    LedgerFormContext formContext();
    WaiverSeed waiverSeed(const QString &node);
    FreezeSeed freezeSeed(const QString &test, const QString &record = {});
    // Tests at head in `test`'s file other than itself (as far as they are known yet): a
    // waiver's witnesses, a freeze's substitutes.
    QStringList otherTestsOfFile(const QString &test);
    // `refill` runs on `form`'s behalf each time a lookup of head's tests answers.
    void onHeadTestsAnswer(LedgerForm *form, std::function<void()> refill);
    FixtureNoteSeed fixtureSeed(const QString &path) const;
    // When an entry written now counts, one or two sentences: once committed on the base
    // (the gate reads the base's ledgers), or at the next audit (a directory outside the
    // repository); that a working-tree head shows the file as a ledger edit of the patch.
    QString whenEntriesCount() const;

Q_SIGNALS:
    void ledgerWritten(const QString &path);

private:
    // The file on disk of a Ledgers row of runs/.
    QString recordPath(const LedgerRow &row) const;
    // What the selected row is about.
    struct Target
    {
        QString test;
        QString path;
        QString code;
        const LedgerRow *ledgerRow = nullptr;
    };
    Target targetOf(EvidencePanel *panel, const QModelIndex &proxyIndex) const;
    Target currentTarget() const;
    QList<QAction *> actionsFor(const Target &target);
    void updateActions();
    void showContextMenu(EvidencePanel *panel, const QPoint &pos);
    LedgerFormDialog *open(LedgerForm *form, const LedgerFormContext &context);
    // The tests of a file at head when known; else null, and they are looked up off the GUI
    // thread (open forms validate again when they arrive).
    const HeadTests::File *headTestsOf(const std::string &file);
    // An audit answered and its ledger directory is on disk (a bare repository's is not:
    // there is no work tree to write an entry into).
    bool ready() const { return m_hasOutcome && !QDir::isRelativePath(m_ledgerDir); }

    // The GUI thread never waits on git or a process, checked while the desk lives.
    const core::NoBlockingWorkHere m_guiThread{"GUI"};
    QWidget *m_window;
    LedgersModel *m_ledgers;
    EvidencePanel *m_ledgersPanel;
    LedgerHistoryPanel *m_history;
    QAction *m_waive;
    QAction *m_freeze;
    QAction *m_renew;
    QAction *m_close;
    QAction *m_note;
    QList<QPointer<EvidencePanel>> m_panels;
    QPointer<EvidencePanel> m_lastPanel;

    bool m_hasOutcome = false;
    core::GateReport m_report;
    core::Config m_config;
    core::LedgerSet m_ledgerSet;
    QString m_ledgerDir;
    QString m_ledgerPrefix;
    QString m_python;
    QDate m_today;
    bool m_fixedToday = false;
    std::shared_ptr<HeadTests> m_headTests;
    std::shared_ptr<HeadTests> m_baseTests; // the same lookups at the base: a waiver's node
    std::shared_ptr<const std::set<std::string>> m_headPaths;
    QString m_countedLedgers; // AuditOutcome::countedLedgers
    bool m_headIsWorktree = false;
    QString m_reviewer; // git's user.name, read with the audit
    core::Codeowners m_owners;
};

} // namespace pw::gui
