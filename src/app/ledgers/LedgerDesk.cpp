#include "ledgers/LedgerDesk.h"

#include "dynamic/SeedMatrix.h"
#include "ledger/RunEvidence.h"
#include "ledgers/JournalCloseForm.h"
#include "ledgers/LedgerFormDialog.h"
#include "ledgers/LedgerHistoryPanel.h"
#include "ledgers/LedgersModel.h"
#include "ledgers/RenewForm.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "panels/EvidenceRoles.h"
#include "python/TestsAtRevision.h"
#include "repo/Codeowners.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QMenu>
#include <QPointer>
#include <QRegularExpression>
#include <QTreeView>
#include <algorithm>
#include <set>

namespace pw::gui {
namespace {

QStringList toList(const std::vector<std::string> &items)
{
    QStringList out;
    for (const std::string &s : items)
        out << QString::fromStdString(s);
    return out;
}

bool isRemoval(const QString &code)
{
    return code == QLatin1String("T-DEL") || code == QLatin1String("T-GONE") ||
           code == QLatin1String("BLOCKER:deleted") || code == QLatin1String("C-REMOVED");
}

bool isSkip(const QString &code)
{
    return code == QLatin1String("T-SKIP") || code == QLatin1String("BLOCKER:marker") ||
           code == QLatin1String("LATITUDE") || code == QLatin1String("C-SKIP");
}

// `text` quoted for a POSIX shell when it needs it.
QString shellQuoted(const QString &text)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:=+@%-]+$"));
    if (plain.match(text).hasMatch())
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

} // namespace

LedgerDesk::LedgerDesk(QWidget *window)
    : QObject(window), m_window(window), m_ledgers(new LedgersModel(this)),
      m_ledgersPanel(new EvidencePanel(window)), m_history(new LedgerHistoryPanel(window))
{
    m_ledgersPanel->setObjectName(QStringLiteral("ledgersPanel"));
    m_ledgersPanel->setModel(m_ledgers);
    m_ledgersPanel->setPrimaryColumn(LedgersModel::EntryColumn);
    m_history->setObjectName(QStringLiteral("historyPanel"));

    const auto make = [this](const QString &text, const char *name, const QString &shortcut,
                             const QString &tip) {
        auto *a = new QAction(text, this);
        a->setObjectName(QString::fromLatin1(name));
        if (!shortcut.isEmpty())
            a->setShortcut(QKeySequence(shortcut));
        a->setStatusTip(tip);
        return a;
    };
    m_waive = make(tr("Approve &Waiver…"), "actionApproveWaiver", tr("Ctrl+Alt+W"),
                   tr("Accept the removal of the selected test node (census_waiver.toml)"));
    m_freeze = make(tr("Grant &Freeze…"), "actionGrantFreeze", tr("Ctrl+Alt+F"),
                    tr("Freeze the selected pre-existing failure (quarantine.toml)"));
    m_renew = make(tr("&Renew Freeze…"), "actionRenewFreeze", tr("Ctrl+Alt+R"),
                   tr("Renew the freeze selected in the Ledgers panel"));
    m_close = make(tr("&Close Journal Row…"), "actionCloseJournalRow", tr("Ctrl+Alt+J"),
                   tr("Close the seed journal row selected in the Ledgers panel"));
    m_note = make(tr("Edit Fixture &Note…"), "actionEditFixtureNote", tr("Ctrl+Alt+N"),
                  tr("Record why the selected fixture changed (fixture_digest.json)"));
    // A selected row pre-fills only the forms it is about (a waiver row says nothing
    // about which test to freeze).
    connect(m_waive, &QAction::triggered, this, [this] {
        const Target t = currentTarget();
        approveWaiver(!t.ledgerRow && isRemoval(t.code) ? (!t.test.isEmpty() ? t.test : t.path)
                                                        : QString());
    });
    connect(m_freeze, &QAction::triggered, this, [this] {
        const Target t = currentTarget();
        // A finding's test; a runs/ row's test, pre-filled from that very record; another
        // ledger row (or a run file that names no test) is about no test to freeze.
        if (!t.ledgerRow)
            grantFreeze(t.test);
        else if (t.ledgerRow->kind == LedgerRow::Kind::Run && t.ledgerRow->present)
            // an attribution record that reads is the evidence; for a shard ledger or a
            // broken record, the test's newest attribution record is
            grantFreeze(t.ledgerRow->entry,
                        t.ledgerRow->recordKind == QLatin1String("attribution") &&
                                t.ledgerRow->problems.empty()
                            ? recordPath(*t.ledgerRow)
                            : QString());
        else
            grantFreeze(QString());
    });
    connect(m_renew, &QAction::triggered, this, [this] { renewFreeze(currentTarget().test); });
    connect(m_close, &QAction::triggered, this, [this] {
        const Target t = currentTarget();
        closeJournalRow(t.ledgerRow ? t.ledgerRow->entry : QString());
    });
    connect(m_note, &QAction::triggered, this, [this] {
        const Target t = currentTarget();
        editFixtureNote(t.code == QLatin1String("F-DRIFT") ||
                                (t.ledgerRow && t.ledgerRow->kind == LedgerRow::Kind::Fixture)
                            ? t.path
                            : QString());
    });
    watchPanel(m_ledgersPanel);
    updateActions();
}

LedgerDesk::~LedgerDesk() = default;

QList<QAction *> LedgerDesk::formActions() const
{
    return {m_waive, m_freeze, m_renew, m_close, m_note};
}

QAction *LedgerDesk::action(const QString &objectName) const
{
    for (QAction *a : formActions()) {
        if (a->objectName() == objectName)
            return a;
    }
    return nullptr;
}

void LedgerDesk::clear()
{
    m_hasOutcome = false;
    m_ledgers->clear();
    m_ledgersPanel->setSummary(QString());
    m_headTests.reset();
    m_baseTests.reset();
    m_headPaths.reset();
    m_reviewer.clear();
    m_owners = {};
    updateActions();
}

QString LedgerDesk::recordPath(const LedgerRow &row) const
{
    return QDir(m_ledgerDir)
        .filePath(QLatin1String(core::AttributionRecord::kRunsDir) + QLatin1Char('/') +
                  QFileInfo(row.file).fileName());
}

void LedgerDesk::refreshRunRecords()
{
    if (!ready()) // a bare repository keeps no runs/ on disk
        return;
    m_ledgers->setRunRecords(readRunRecords(m_ledgerDir, m_ledgerPrefix));
    m_ledgersPanel->setSummary(m_ledgers->summary());
    m_ledgersPanel->setSummarySeverity(m_ledgers->severity());
}

void LedgerDesk::setOutcome(const AuditOutcome &outcome)
{
    if (!outcome.ok) {
        clear();
        return;
    }
    m_hasOutcome = true;
    m_report = outcome.report;
    m_report.manifest.reset();
    m_config = outcome.config;
    m_ledgerSet = outcome.ledgers;
    m_ledgerDir = outcome.ledgerDir;
    m_ledgerPrefix = outcome.ledgerPrefix;
    m_python = QString::fromStdString(outcome.request.audit.python.value_or(outcome.config.python));
    m_today = outcome.today;
    m_fixedToday = !outcome.request.audit.today.empty();
    // A form that stays open across a re-audit keeps the lookups it was opened with.
    m_headTests = std::make_shared<HeadTests>(outcome.target, outcome.headTests);
    core::ReviewTarget atBase = outcome.target; // the base's tests, looked up as the head's
    atBase.head = outcome.target.base;
    m_baseTests = std::make_shared<HeadTests>(std::move(atBase), HeadTests::Files{}, "base");
    m_headPaths = outcome.headPaths;
    m_reviewer = outcome.reviewer;
    m_owners = outcome.owners;
    m_ledgers->setLedgers(outcome.ledgers, outcome.ledgerProblems, outcome.today);
    m_ledgers->setNotOnBase(outcome.entriesNotOnBase, outcome.countedLedgers);
    m_countedLedgers = outcome.countedLedgers;
    m_headIsWorktree = outcome.target.head.isWorktree();
    m_ledgers->setRunRecords(outcome.runRecords);
    m_ledgersPanel->setSummary(m_ledgers->summary());
    m_ledgersPanel->setSummarySeverity(m_ledgers->severity());
    const QString relDir =
        m_ledgerPrefix.isEmpty() ? m_ledgerDir : m_ledgerPrefix.chopped(1); // no final '/'
    m_history->setRepository(QString::fromStdString(m_report.repo), relDir, m_today);
    m_history->refresh(); // a re-audit may follow a commit that changed the ledgers
    updateActions();
}

const HeadTests::File *LedgerDesk::headTestsOf(const std::string &file)
{
    return m_headTests ? m_headTests->find(file) : nullptr;
}

QString LedgerDesk::whenEntriesCount() const
{
    if (m_countedLedgers.isEmpty())
        return tr("The ledger directory lies outside the repository and is what the audit "
                  "reads: the entry counts from the next audit.");
    const QString counts = tr("The audit counts the ledgers of %1: the entry counts once it is "
                              "committed there.")
                               .arg(m_countedLedgers);
    return m_headIsWorktree
               ? counts + QLatin1Char(' ') +
                     tr("Head is the working tree, so until then the file is also part of the "
                        "patch under review (a ledger edit).")
               : counts + QLatin1Char(' ') + tr("The comparison stays as it is.");
}

LedgerFormContext LedgerDesk::formContext()
{
    LedgerFormContext c;
    c.countsWhen = whenEntriesCount();
    c.ledgerDir = m_ledgerDir;
    c.displayDir = m_ledgerPrefix.isEmpty() ? m_ledgerDir : m_ledgerPrefix.chopped(1);
    // The day the entry is decided on: the audit's fixed day (--today), else today — a
    // window left open overnight must not backdate an entry.
    c.validation = core::validationContext(m_config, m_fixedToday ? m_today : QDate::currentDate());
    c.validation.patchedFiles = core::patchedFiles(m_report.changedFiles);
    c.validation.readLedgerFile = core::EvidenceFiles::reader(m_ledgerDir.toStdString());
    if (m_headTests) {
        // Shared: a form that stays open across a re-audit keeps its lookups alive.
        std::shared_ptr<HeadTests> tests = m_headTests;
        c.validation.testExistsAtHead = [tests](const std::string &id) {
            return tests->contains(id);
        };
    }
    if (m_baseTests) {
        std::shared_ptr<HeadTests> base = m_baseTests;
        // What the audit or a census found removed was there: pytest collected it, even
        // where the file does not write it (a test inherited from another module's class).
        auto removed = std::make_shared<std::set<std::string>>();
        for (const core::Finding &f : m_report.findings) {
            if (f.gate != "manifest" && f.gate != "census")
                continue;
            if (!f.test.empty())
                removed->insert(f.test);
            else if (!f.path.empty())
                removed->insert(f.path);
        }
        c.validation.testExistedAtBase = [base, removed](const std::string &id) {
            if (removed->count(id))
                return true;
            if (id.find("::") != std::string::npos)
                return base->contains(id);
            // A file node (the whole file removed): one the base had tests in.
            const HeadTests::File *tests = base->find(id);
            if (!tests)
                throw core::Error::harness("the tests of " + id + " at base are being looked up");
            if (tests->ids.empty() && !tests->problem.empty())
                throw core::Error::harness(tests->problem);
            return !tests->ids.empty();
        };
    }
    if (m_headPaths)
        c.validation.pathExistsAtHead = core::pathLookup(m_headPaths);
    c.reviewer = m_reviewer;
    if (c.reviewer.isEmpty())
        c.reviewer = qEnvironmentVariable("USER");
    return c;
}

WaiverSeed LedgerDesk::waiverSeed(const QString &node)
{
    WaiverSeed seed;
    seed.node = node;
    QStringList candidates;
    const std::string id = node.toStdString();
    candidates << otherTestsOfFile(node);
    // Tests the patch added are the usual replacements.
    for (const core::Finding &f : m_report.findings) {
        if (f.code != "T-ADD" && f.code != "NEW:test")
            continue;
        if (!f.test.empty() && f.test != id)
            candidates << QString::fromStdString(f.test);
        else if (const HeadTests::File *tests = f.test.empty() ? headTestsOf(f.path) : nullptr)
            candidates << toList(tests->ids);
    }
    // Where the deleted test's checks most likely went comes first: the form's witness.
    for (const core::Finding &f : m_report.findings) {
        if (f.successor && (f.test == id || (f.test.empty() && f.path == id)))
            candidates.prepend(QString::fromStdString(*f.successor));
    }
    candidates.removeDuplicates();
    seed.witnessCandidates = candidates;
    return seed;
}

FreezeSeed LedgerDesk::freezeSeed(const QString &test, const QString &recordFile)
{
    FreezeSeed seed;
    core::QuarantineEntry &e = seed.entry;
    if (!test.isEmpty())
        e.test = test.toStdString();
    const std::string file = core::TestsAtRevision::fileOf(test.toStdString());
    if (!test.isEmpty()) {
        const std::string runs =
            QDir(m_ledgerDir)
                .filePath(QString::fromLatin1(core::AttributionRecord::kRunsDir))
                .toStdString();
        // The attribution record a Ledgers row stands for (one the panel read without
        // problems; read again here, as it is now), else the test's newest.
        std::optional<core::AttributionRecord> record;
        if (!recordFile.isEmpty()) {
            try {
                const std::string path = recordFile.toStdString();
                const std::string text = core::readWholeFile(path).value_or(std::string());
                // An attribution record, or a seed matrix's row for the test.
                record = core::AttributionRecord::evidenceFor(text, path, test.toStdString());
            } catch (const std::exception &e) {
                // core::Error for a record that does not parse or is about another test;
                // anything else a record this reader did not expect: a note on the form,
                // never a crash.
                seed.evidenceNote = QString::fromStdString(e.what());
            }
        }
        // A record the patch under review brings is its own testimony, not evidence.
        QStringList fromPatch;
        const auto brought = [&](const std::string &file) {
            const QString name = QDir(m_ledgerDir).relativeFilePath(QString::fromStdString(file));
            for (const core::ChangedFile &f : m_report.changedFiles) {
                if (!m_ledgerPrefix.isEmpty() &&
                    QString::fromStdString(f.path) == m_ledgerPrefix + name) {
                    fromPatch << name;
                    return true;
                }
            }
            return false;
        };
        if (record && brought(record->file))
            record.reset();
        // The freeze rule on the records: the same that `freeze` and `attribute` apply.
        const core::FreezeCase evidence =
            core::FreezeCase::gather(runs, test.toStdString(), record, std::nullopt, brought);
        fromPatch.removeDuplicates();
        if (!fromPatch.isEmpty())
            seed.evidenceNote =
                tr("%1 was added or changed by the patch under review; it is not used as "
                   "evidence.")
                    .arg(fromPatch.join(QStringLiteral(", ")));
        evidence.fill(e);
        if (evidence.attribution())
            seed.evidenceSource =
                QDir(m_ledgerDir)
                    .relativeFilePath(QString::fromStdString(evidence.attribution()->file));
        if (evidence.cells())
            seed.evidenceSource +=
                (seed.evidenceSource.isEmpty() ? QString() : QStringLiteral(" and ")) +
                QDir(m_ledgerDir).relativeFilePath(QString::fromStdString(evidence.cells()->file));
        seed.evidence = evidence;
        // The records go into evidence/ with the entry: planned here (named, hashed), copied
        // by Write.
        try {
            seed.evidenceFiles =
                core::EvidenceFiles::planFor(m_ledgerDir.toStdString(), evidence, e);
        } catch (const core::Error &error) {
            seed.evidenceBlocker = QString::fromStdString(error.what());
            seed.evidenceNote += (seed.evidenceNote.isEmpty() ? QString() : QStringLiteral(" ")) +
                                 seed.evidenceBlocker;
        }
    }
    if (!e.baselineSha && m_report.base.commit)
        e.baselineSha = *m_report.base.commit;
    if (!e.replay && !test.isEmpty())
        e.replay = QString((e.witnessSeed ? QStringLiteral("PYTHONHASHSEED=%1 ").arg(*e.witnessSeed)
                                          : QString()) +
                           shellQuoted(m_python) +
                           QStringLiteral(" -m pytest -p no:cacheprovider ") + shellQuoted(test))
                       .toStdString();
    if (const HeadTests::File *tests = file.empty() ? nullptr : headTestsOf(file)) {
        if (!e.guards && !tests->guards.empty())
            e.guards = tests->guards;
    }
    seed.substituteCandidates = otherTestsOfFile(test);
    if (!file.empty()) // the base's CODEOWNERS: the patch must not pick its own owner
        seed.ownerCandidates = toList(m_owners.ownersOf(file));
    return seed;
}

QStringList LedgerDesk::otherTestsOfFile(const QString &test)
{
    QStringList out;
    const std::string id = test.toStdString();
    const std::string file = core::TestsAtRevision::fileOf(id);
    if (const HeadTests::File *tests = file.empty() ? nullptr : headTestsOf(file)) {
        for (const std::string &t : tests->ids) {
            if (t != file + "::" + core::TestsAtRevision::nameOf(id))
                out << QString::fromStdString(t);
        }
    }
    return out;
}

FixtureNoteSeed LedgerDesk::fixtureSeed(const QString &path) const
{
    FixtureNoteSeed seed;
    seed.path = path;
    for (const core::FixtureChange &c : m_report.fixtures) {
        if (QString::fromStdString(c.path) != path)
            continue;
        seed.sha256 = QString::fromStdString(c.head.value_or(""));
        seed.baseSha256 = QString::fromStdString(c.base.value_or(""));
    }
    if (m_ledgerSet.fixtureDigest) {
        const core::FixtureDigestEntry *e = m_ledgerSet.fixtureDigest->find(path.toStdString());
        // An old note explains old content: it is offered only for the digest it was
        // written for.
        if (e && !seed.sha256.isEmpty() && e->sha256 == seed.sha256.toStdString())
            seed.note = QString::fromStdString(e->note.value_or(""));
    }
    return seed;
}

LedgerFormDialog *LedgerDesk::open(LedgerForm *form, const LedgerFormContext &context)
{
    auto *dialog = new LedgerFormDialog(form, context, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &LedgerFormDialog::ledgerWritten, this, &LedgerDesk::ledgerWritten);
    // An answer about the tests at head can turn a "cannot confirm" into a yes or a no.
    for (const std::shared_ptr<HeadTests> &tests : {m_headTests, m_baseTests}) {
        if (tests)
            connect(tests.get(), &HeadTests::changed, dialog, &LedgerFormDialog::validate);
    }
    dialog->open();
    return dialog;
}

void LedgerDesk::onHeadTestsAnswer(LedgerForm *form, std::function<void()> refill)
{
    if (!m_headTests)
        return;
    // Only while the desk still answers from the lookups the form was opened with (a
    // re-audit brings others: the form keeps what it has).
    const HeadTests *opened = m_headTests.get();
    QPointer<LedgerDesk> desk(this);
    connect(m_headTests.get(), &HeadTests::changed, form,
            [desk, opened, refill = std::move(refill)] {
                if (desk && desk->m_headTests.get() == opened)
                    refill();
            });
}

LedgerFormDialog *LedgerDesk::approveWaiver(const QString &node)
{
    if (!ready())
        return nullptr;
    const LedgerFormContext c = formContext();
    auto *form = new WaiverForm(waiverSeed(node), c);
    LedgerFormDialog *dialog = open(form, c);
    // Candidates in a file the audit did not read arrive with its lookup.
    onHeadTestsAnswer(
        form, [this, form, node] { form->offerWitnesses(waiverSeed(node).witnessCandidates); });
    return dialog;
}

LedgerFormDialog *LedgerDesk::grantFreeze(const QString &test, const QString &record)
{
    if (!ready())
        return nullptr;
    const FreezeSeed seed = freezeSeed(test, record);
    LedgerFormContext c = formContext();
    // Validation reads the records as Write will copy them.
    c.validation.readLedgerFile =
        core::EvidenceFiles::reader(m_ledgerDir.toStdString(), seed.evidenceFiles);
    auto *form = new FreezeForm(seed, c);
    LedgerFormDialog *dialog = open(form, c);
    onHeadTestsAnswer(form, [this, form, test] {
        const HeadTests::File *tests =
            headTestsOf(core::TestsAtRevision::fileOf(test.toStdString()));
        form->offerHeadTests(otherTestsOfFile(test),
                             tests ? tests->guards : std::vector<std::string>());
    });
    return dialog;
}

LedgerFormDialog *LedgerDesk::renewFreeze(const QString &test)
{
    if (!ready() || !m_ledgerSet.quarantine)
        return nullptr;
    const core::QuarantineEntry *entry = m_ledgerSet.quarantine->find(test.toStdString());
    if (!entry)
        return nullptr;
    const LedgerFormContext c = formContext();
    return open(new RenewForm(*entry, c), c);
}

LedgerFormDialog *LedgerDesk::closeJournalRow(const QString &id)
{
    if (!ready() || !m_ledgerSet.journal)
        return nullptr;
    const core::JournalRow *row = m_ledgerSet.journal->find(id.toStdString());
    if (!row)
        return nullptr;
    const LedgerFormContext c = formContext();
    return open(new JournalCloseForm(*row, c), c);
}

LedgerFormDialog *LedgerDesk::editFixtureNote(const QString &path)
{
    if (!ready())
        return nullptr;
    const LedgerFormContext c = formContext();
    return open(new FixtureNoteForm(fixtureSeed(path), c), c);
}

LedgerFormDialog *LedgerDesk::openForm(const QString &kind, const QString &id)
{
    if (!ready())
        return nullptr;
    const auto firstFinding = [this](bool (*wanted)(const QString &), bool byPath) {
        for (const core::Finding &f : m_report.findings) {
            if (!f.satisfiedBy && wanted(QString::fromStdString(f.code)))
                return QString::fromStdString(byPath || f.test.empty() ? f.path : f.test);
        }
        return QString();
    };
    const auto firstEntry = [this](LedgerRow::Kind k) {
        for (int r = 0; r < m_ledgers->rowCount(); ++r) {
            const LedgerRow *row = m_ledgers->rowAt(r);
            if (row && row->kind == k && row->present &&
                (k != LedgerRow::Kind::Journal || row->status != LedgerRow::Status::Valid))
                return row->entry;
        }
        return QString();
    };
    if (kind == QLatin1String("waiver"))
        return approveWaiver(!id.isEmpty() ? id : firstFinding(isRemoval, false));
    if (kind == QLatin1String("freeze"))
        return grantFreeze(!id.isEmpty() ? id : firstFinding(isSkip, false));
    if (kind == QLatin1String("renew"))
        return renewFreeze(!id.isEmpty() ? id : firstEntry(LedgerRow::Kind::Freeze));
    if (kind == QLatin1String("close"))
        return closeJournalRow(!id.isEmpty() ? id : firstEntry(LedgerRow::Kind::Journal));
    if (kind == QLatin1String("note"))
        return editFixtureNote(
            !id.isEmpty() ? id
                          : firstFinding([](const QString &c) { return c == "F-DRIFT"; }, true));
    return nullptr;
}

LedgerDesk::Target LedgerDesk::targetOf(EvidencePanel *panel, const QModelIndex &proxyIndex) const
{
    Target t;
    if (!panel || !proxyIndex.isValid())
        return t;
    t.test = proxyIndex.data(TestRole).toString();
    t.path = proxyIndex.data(PathRole).toString();
    t.code = proxyIndex.data(CodeRole).toString();
    if (panel == m_ledgersPanel) {
        const QModelIndex source = panel->proxy()->mapToSource(proxyIndex);
        t.ledgerRow = m_ledgers->rowAt(source.row());
        if (t.ledgerRow) {
            t.test = t.ledgerRow->entry;
            t.path = t.ledgerRow->entry;
        }
    }
    return t;
}

LedgerDesk::Target LedgerDesk::currentTarget() const
{
    if (!m_lastPanel)
        return {};
    return targetOf(m_lastPanel, m_lastPanel->view()->currentIndex());
}

QList<QAction *> LedgerDesk::actionsFor(const Target &t)
{
    QList<QAction *> out;
    if (t.ledgerRow) {
        if (t.ledgerRow->kind == LedgerRow::Kind::Freeze && t.ledgerRow->present)
            out << m_renew;
        if (t.ledgerRow->kind == LedgerRow::Kind::Journal && t.ledgerRow->present &&
            t.ledgerRow->status != LedgerRow::Status::Valid)
            out << m_close;
        if (t.ledgerRow->kind == LedgerRow::Kind::Fixture)
            out << m_note;
        if (t.ledgerRow->kind == LedgerRow::Kind::Run && t.ledgerRow->problems.empty() &&
            t.ledgerRow->result.startsWith(QLatin1String("PRE_EXISTING")))
            out << m_freeze;
        return out;
    }
    if (isRemoval(t.code))
        out << m_waive;
    if (isSkip(t.code) && !t.test.isEmpty())
        out << m_freeze;
    if (t.code == QLatin1String("F-DRIFT"))
        out << m_note;
    return out;
}

void LedgerDesk::updateActions()
{
    const Target t = currentTarget();
    const bool renewable =
        t.ledgerRow && t.ledgerRow->kind == LedgerRow::Kind::Freeze && t.ledgerRow->present;
    const bool closable = t.ledgerRow && t.ledgerRow->kind == LedgerRow::Kind::Journal &&
                          t.ledgerRow->present && t.ledgerRow->status != LedgerRow::Status::Valid;
    m_waive->setEnabled(ready());
    m_freeze->setEnabled(ready());
    m_note->setEnabled(ready());
    m_renew->setEnabled(ready() && renewable);
    m_close->setEnabled(ready() && closable);
    // Why they are off, where a reviewer hovers.
    const QString why = m_hasOutcome && !ready()
                            ? tr("A bare repository has no work tree to write ledger entries "
                                 "into: open a clone of it")
                            : QString();
    for (QAction *a : formActions())
        a->setToolTip(why.isEmpty() ? a->text().remove(QLatin1Char('&')) : why);
}

void LedgerDesk::watchPanel(EvidencePanel *panel)
{
    m_panels << panel;
    QTreeView *view = panel->view();
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QWidget::customContextMenuRequested, this,
            [this, panel](const QPoint &pos) { showContextMenu(panel, pos); });
    connect(view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this, panel](const QModelIndex &current) {
                if (current.isValid())
                    m_lastPanel = panel;
                updateActions();
            });
}

void LedgerDesk::showContextMenu(EvidencePanel *panel, const QPoint &pos)
{
    const QModelIndex index = panel->view()->indexAt(pos);
    if (!index.isValid() || !ready())
        return;
    panel->view()->setCurrentIndex(index);
    const QList<QAction *> actions = actionsFor(targetOf(panel, index));
    if (actions.isEmpty())
        return;
    QMenu menu(panel);
    menu.addActions(actions);
    menu.exec(panel->view()->viewport()->mapToGlobal(pos));
}

} // namespace pw::gui
