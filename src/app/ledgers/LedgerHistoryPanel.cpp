#include "LedgerHistoryPanel.h"

#include "LedgerEventsModel.h"
#include "diff/DiffView.h"
#include "ledger/LedgerDate.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "panels/PanelText.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Format.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTreeView>
#include <QVBoxLayout>

namespace pw::gui {

namespace {

// Enough context that the whole revision of a ledger file shows, its changes marked.
constexpr int kWholeFileContext = 100000;

bool sameEvent(const core::LedgerEvent &a, const core::LedgerEvent &b)
{
    return a.kind == b.kind && a.commit == b.commit && a.file == b.file && a.entry == b.entry &&
           a.time == b.time;
}

// The canonical form of an existing path, else its cleaned absolute form.
QString comparablePath(const QString &path)
{
    const QString canonical = QFileInfo(path).canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(QFileInfo(path).absoluteFilePath()) : canonical;
}

// `ledgerDir` relative to `root` ("" for the root itself), or nullopt when it is outside.
std::optional<QString> relativeLedgerDir(const QString &root, const QString &ledgerDir)
{
    QString dir = QDir::fromNativeSeparators(ledgerDir.trimmed());
    QString relative;
    if (QDir::isAbsolutePath(dir))
        relative = QDir(comparablePath(root)).relativeFilePath(comparablePath(dir));
    else
        relative = QDir::cleanPath(dir.isEmpty() ? QStringLiteral(".") : dir);
    if (relative == QLatin1String("."))
        return QString();
    if (relative == QLatin1String("..") || relative.startsWith(QLatin1String("../")) ||
        QDir::isAbsolutePath(relative))
        return std::nullopt;
    return relative;
}

} // namespace

LedgerHistoryPanel::LedgerHistoryPanel(QWidget *parent)
    : QWidget(parent), m_model(new LedgerEventsModel(this)), m_panel(new EvidencePanel(this)),
      m_diff(new DiffView(this)), m_header(new QLabel(this)), m_explanationLabel(new QLabel(this)),
      m_splitter(new QSplitter(Qt::Vertical, this)), m_stack(new QStackedWidget(this)),
      m_historyTask(
          this, [this](History history) { historyFinished(std::move(history)); },
          [this] {
              m_panel->setSummary(tr("Reading the ledger history…"));
              m_panel->setSummarySeverity(core::Severity::Info);
          }),
      m_revisionTask(this, [this](VersionDiff version) { revisionFinished(std::move(version)); })
{
    m_panel->setObjectName(QStringLiteral("events"));
    m_panel->setModel(m_model);
    m_panel->setPrimaryColumn(LedgerEventsModel::EntryColumn);
    m_panel->view()->setSelectionMode(QAbstractItemView::SingleSelection);

    m_diff->setObjectName(QStringLiteral("ledgerDiff"));
    m_header->setObjectName(QStringLiteral("revisionHeader"));
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setMinimumWidth(1); // a long header never widens the dock
    m_header->setStyleSheet(
        QStringLiteral("QLabel#revisionHeader { padding: 4px 8px; background: "
                       "palette(alternate-base); border-bottom: 1px solid palette(mid); }"));

    auto *revision = new QWidget(this);
    auto *revisionLayout = new QVBoxLayout(revision);
    revisionLayout->setContentsMargins(2, 0, 2, 2);
    revisionLayout->setSpacing(0);
    revisionLayout->addWidget(m_header);
    revisionLayout->addWidget(m_diff, 1);

    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(m_panel);
    m_splitter->addWidget(revision);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);

    m_explanationLabel->setObjectName(QStringLiteral("explanation"));
    m_explanationLabel->setWordWrap(true);
    m_explanationLabel->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_explanationLabel->setContentsMargins(10, 10, 10, 10);
    m_explanationLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_stack->addWidget(m_splitter);
    m_stack->addWidget(m_explanationLabel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);

    connect(m_panel->view()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { currentRowChanged(current); });

    showExplanation(tr("No repository is open."));
}

LedgerHistoryPanel::~LedgerHistoryPanel() = default; // the tasks wait for their reads

void LedgerHistoryPanel::setRepository(const QString &repoPath, const QString &ledgerDir,
                                       const QDate &today)
{
    m_request = {repoPath, ledgerDir, today};
}

void LedgerHistoryPanel::refresh()
{
    startHistory(m_request);
}

void LedgerHistoryPanel::setEntryFilter(const QString &test)
{
    m_panel->setFilterText(test);
}

bool LedgerHistoryPanel::isLoading() const
{
    return m_historyTask.isBusy();
}

bool LedgerHistoryPanel::isReadingRevision() const
{
    return m_revisionTask.isBusy();
}

LedgerHistoryPanel::History LedgerHistoryPanel::readHistory(const QString &repoPath,
                                                            const QString &ledgerDir,
                                                            const QDate &today)
{
    History out;
    if (repoPath.isEmpty()) {
        out.explanation = tr("No repository is open.");
        return out;
    }
    try {
        const core::Repository repo = core::Repository::open(repoPath.toStdString());
        const QString workdir = qs(repo.workdir());
        out.repoRoot = workdir.isEmpty() ? repoPath : workdir;
        const std::optional<QString> dir = relativeLedgerDir(out.repoRoot, ledgerDir);
        if (!dir) {
            out.explanation = tr("The ledger directory %1 is outside the repository, so git "
                                 "keeps no history of it.")
                                  .arg(QDir::toNativeSeparators(ledgerDir));
            return out;
        }
        if (repo.isUnborn()) {
            out.explanation = tr("%1 has no commits yet, so its ledgers have no history.")
                                  .arg(QDir::toNativeSeparators(out.repoRoot));
            return out;
        }
        out.events =
            core::LedgerHistory::ofDirectory(out.repoRoot.toStdString(), dir->toStdString(), today);
    } catch (const std::exception &e) {
        out.events.clear();
        out.explanation = tr("Cannot read the ledger history of %1: %2")
                              .arg(QDir::toNativeSeparators(repoPath), qs(e.what()));
    }
    return out;
}

LedgerHistoryPanel::VersionDiff LedgerHistoryPanel::readVersion(const QString &repoRoot,
                                                                const core::LedgerEvent &event)
{
    VersionDiff out;
    out.repoRoot = repoRoot;
    out.event = event;
    try {
        const core::Repository repo = core::Repository::open(repoRoot.toStdString());
        const core::Revision head = repo.resolve(event.commit);
        // A root commit has no parent: against an empty Revision (no tree) every line of
        // the file is added.
        core::Revision base;
        try {
            base = repo.resolve(event.commit + "^");
        } catch (const core::Error &e) {
            if (e.kind() != core::Error::Kind::Input)
                throw;
        }
        core::DiffOptions options;
        options.contextLines = kWholeFileContext;
        // Repository::diff has no path filter: this diffs every file the commit changed.
        // Ledger commits are small, and this runs off the GUI thread.
        core::PatchDiff diff = repo.diff(base, head, options);
        for (core::FileDiff &file : diff.files) {
            if (file.newPath == event.file) {
                out.file = std::move(file);
                break;
            }
            if (file.oldPath == event.file && !out.file)
                out.file = std::move(file); // deleted (or renamed away) by this commit
        }
    } catch (const std::exception &e) {
        out.error = qs(e.what());
    }
    return out;
}

void LedgerHistoryPanel::startHistory(const HistoryRequest &request)
{
    m_historyTask.start([request](std::stop_token) {
        return readHistory(request.repo, request.ledgerDir, request.today);
    });
}

void LedgerHistoryPanel::historyFinished(History history)
{
    m_repoRoot = history.repoRoot;
    if (!history.explanation.isEmpty()) {
        m_model->clear();
        showExplanation(history.explanation);
        Q_EMIT loaded();
        return;
    }
    m_explanation.clear();
    m_stack->setCurrentWidget(m_splitter);

    // Keep the event the reviewer was looking at selected across a refresh.
    const std::optional<core::LedgerEvent> previous = m_shownEvent;
    m_model->setEvents(std::move(history.events));
    // EvidencePanel fits its columns on modelReset before the view has laid out the new
    // rows (it measures the old ones); fit again now that the view knows them.
    m_panel->setPrimaryColumn(LedgerEventsModel::EntryColumn);
    m_panel->setSummary(m_model->summary());
    m_panel->setSummarySeverity(core::Severity::Info);
    m_shownEvent.reset();
    m_revisionTask.cancel();
    showNoEvent();
    if (previous) {
        for (int row = 0; row < m_model->rowCount(); ++row) {
            if (sameEvent(*m_model->eventAt(row), *previous)) {
                selectEvent(row);
                break;
            }
        }
    }
    Q_EMIT loaded();
}

bool LedgerHistoryPanel::selectEvent(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return false;
    const QModelIndex index = m_panel->proxy()->mapFromSource(m_model->index(row, 0));
    if (!index.isValid())
        return false;
    QTreeView *view = m_panel->view();
    view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                       QItemSelectionModel::Rows);
    view->scrollTo(index);
    return true;
}

const core::LedgerEvent *LedgerHistoryPanel::selectedEvent() const
{
    return m_shownEvent ? &*m_shownEvent : nullptr;
}

QString LedgerHistoryPanel::headerText() const
{
    return m_header->text();
}

void LedgerHistoryPanel::currentRowChanged(const QModelIndex &current)
{
    const core::LedgerEvent *event =
        current.isValid() ? m_model->eventAt(m_panel->proxy()->mapToSource(current).row())
                          : nullptr;
    if (!event) {
        m_shownEvent.reset();
        m_revisionTask.cancel();
        showNoEvent();
        return;
    }
    m_shownEvent = *event;
    m_header->setText(describe(*event));
    m_header->setToolTip(qs(event->commit));
    startRevision(*event);
}

void LedgerHistoryPanel::startRevision(const core::LedgerEvent &event)
{
    m_diff->clear(tr("Reading %1 at %2 …")
                      .arg(QString::fromStdString(event.file),
                           QString::fromStdString(event.commit.substr(0, 7))));
    m_revisionTask.start(
        [root = m_repoRoot, event](std::stop_token) { return readVersion(root, event); });
}

void LedgerHistoryPanel::revisionFinished(VersionDiff version)
{
    if (!m_shownEvent || !sameEvent(version.event, *m_shownEvent) || version.repoRoot != m_repoRoot)
        return; // the selection moved on (or went away) meanwhile
    QString header = describe(version.event);
    if (version.file) {
        m_diff->setFile(std::move(*version.file));
    } else {
        const QString why = version.error.isEmpty()
                                ? tr("This commit does not change the file.")
                                : tr("This version cannot be shown: %1").arg(version.error);
        m_diff->clear(why);
        header += version.error.isEmpty() ? tr(" (this commit does not change the file)")
                                          : tr(" (cannot show it: %1)").arg(version.error);
    }
    m_header->setText(header);
    Q_EMIT revisionShown();
}

void LedgerHistoryPanel::showExplanation(const QString &text)
{
    m_explanation = text;
    m_explanationLabel->setText(text);
    m_stack->setCurrentWidget(m_explanationLabel);
    m_shownEvent.reset();
    m_revisionTask.cancel();
    showNoEvent();
}

void LedgerHistoryPanel::showNoEvent()
{
    m_diff->clear(tr("Select an event above to see that version of the ledger file."));
    m_header->setText(tr("Select an event to see that version of the ledger file and what it "
                         "changed."));
    m_header->setToolTip({});
}

QString LedgerHistoryPanel::describe(const core::LedgerEvent &e) const
{
    const QString where = tr("%1 at %2").arg(qs(e.file), qs(core::shortId(e.commit, 10)));
    const QString day = QString::fromStdString(
        core::ledgerDateText(QDateTime::fromSecsSinceEpoch(e.time, Qt::UTC).date()));
    const QString entry = e.entry.empty() ? QString() : qs(e.entry) + QLatin1Char(' ');
    switch (e.kind) {
    case core::LedgerEvent::Kind::Expired:
        return tr("%1 — %2expired on %3 (the version %4 wrote)")
            .arg(where, entry, day, qs(e.author));
    case core::LedgerEvent::Kind::Unreadable:
        return tr("%1 — does not parse (written by %2 on %3)").arg(where, qs(e.author), day);
    default:
        return tr("%1 — %2%3 by %4 on %5")
            .arg(where, entry, QString::fromLatin1(core::ledgerEventName(e.kind)), qs(e.author),
                 day);
    }
}

} // namespace pw::gui
