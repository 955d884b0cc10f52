// The ledger panels: entries with validity badges (LedgersModel), the
// timeline of ledger events (LedgerEventsModel) and the History panel that reads a real
// repository's ledger history off the GUI thread and shows each event's version as a diff.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "diff/DiffView.h"
#include "ledger/LedgerSet.h"
#include "ledger/LedgerValidator.h"
#include "ledger/RunRecords.h"
#include "ledgers/LedgerEventsModel.h"
#include "ledgers/LedgerHistoryPanel.h"
#include "ledgers/LedgersModel.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "panels/EvidenceRoles.h"
#include "panels/SeverityStyle.h"

#include <QBrush>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTreeView>
#include <QtTest>
#include <map>

using namespace pw::gui;
using pw::core::LedgerEvent;
using pw::core::LedgerProblem;
using pw::core::LedgerSet;
using pw::core::LedgerValidator;
using pw::core::ValidationContext;
using pw::test::RepoBuilder;

namespace {

const QString kQuarantine = QStringLiteral(".patchwitness/quarantine.toml");

// A freeze with every required field; `extra` lines are appended to the entry.
std::string freeze(const std::string &test, const std::string &opened, const std::string &expires,
                   const std::string &extra = {})
{
    return "[[quarantine]]\ntest = \"" + test + "\"\nowner = \"alice\"\nopened = " + opened +
           "\nexpires = " + expires +
           "\nverdict = \"PRE_EXISTING\"\nattribution = \"order\"\nwitness_seed = 7\n"
           "baseline_sha = \"0123456789abcdef0123456789abcdef01234567\"\n"
           "evidence = { base_fail = 3, head_fail = 3, mode = \"matched\", seeds = [3, 7], "
           "env_digest = \"abcd1234abcd1234\" }\n"
           "obligation = \"adding two numbers returns their sum\"\n"
           "substitute = \"tests/test_calc.py::test_sub\"\nguards = [\"src/calc.py\"]\n"
           "replay = \"pytest -p pw_plugin --seed 7 " +
           test + "\"\n" + extra + "\n";
}

const char *kWaiver = R"([[waiver]]
node = "tests/test_calc.py::test_old"
reason = "obsolete-behavior"
witness = "tests/test_calc.py::test_mul"
approved_by = "bob"
approved_on = 2024-05-02
)";

const char *kJournal =
    R"({"id": "j-1", "seed": 7, "env": "abcd", "status": "open", "opened": "2024-05-01"}
{"id": "j-2", "seed": 9, "env": "abcd", "status": "closed", "opened": "2024-05-01", "closed_by": "carol", "closed_on": "2024-05-03"}
)";

const char *kFixtures = R"({
  "tests/conftest.py": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  "tests/fixtures/data.json": "not-a-digest"
}
)";

const char *kBudget = "max_examples = 100\ndeadline_ms = 200\nmax_workers = 4\n";

LedgerSet loadSet(const std::map<std::string, std::string> &files)
{
    return LedgerSet::load(
        [&](const std::string &name) -> std::optional<std::string> {
            const auto it = files.find(name);
            if (it == files.end())
                return std::nullopt;
            return it->second;
        },
        ".patchwitness/");
}

std::vector<LedgerProblem> validate(const LedgerSet &set, const QDate &today)
{
    ValidationContext context;
    context.today = today;
    return LedgerValidator(context).check(set);
}

QString cell(const QAbstractItemModel &model, int row, int column, int role = Qt::DisplayRole)
{
    return model.index(row, column).data(role).toString();
}

int rowOfEntry(const LedgersModel &model, const QString &entry)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.rowAt(row)->entry == entry)
            return row;
    }
    return -1;
}

// Invalid when the cell keeps the palette's background.
QColor backgroundOf(const QModelIndex &index)
{
    const QVariant v = index.data(Qt::BackgroundRole);
    return v.isValid() ? v.value<QBrush>().color() : QColor();
}

LedgerEvent ledgerEvent(LedgerEvent::Kind kind, const char *file, const char *entry,
                        const char *commit, const char *author, const QDateTime &when,
                        const char *detail = "")
{
    LedgerEvent e;
    e.kind = kind;
    e.file = file;
    e.entry = entry;
    e.commit = commit;
    e.author = author;
    e.time = when.toSecsSinceEpoch();
    e.detail = detail;
    return e;
}

QDateTime utc(int y, int m, int d, int h = 0, int min = 0)
{
    return QDateTime(QDate(y, m, d), QTime(h, min), Qt::UTC);
}

// "kind entry" of every model row, top to bottom.
QStringList describe(const LedgerEventsModel &model)
{
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row)
        out << cell(model, row, LedgerEventsModel::EventColumn) + QLatin1Char(' ') +
                   cell(model, row, LedgerEventsModel::EntryColumn);
    return out;
}

int rowOfEvent(const LedgerEventsModel &model, const QString &kindAndEntry)
{
    return int(describe(model).indexOf(kindAndEntry));
}

// The history fixture: a freeze added in ledgers/, the file moved to .patchwitness/, the
// freeze renewed, two more added (one long expired), the first removed, then the file deleted.
struct HistoryRepo
{
    RepoBuilder repo;
    std::string added, moved, renewed, more, removed, deleted;

    HistoryRepo()
    {
        const std::string a = freeze("tests/t.py::test_a", "2023-11-01", "2030-01-01");
        const std::string aRenewed = freeze("tests/t.py::test_a", "2023-11-01", "2030-01-10",
                                            "renewed = 2023-11-14\nlast_reproduced = 2023-11-14");
        const std::string b = freeze("tests/t.py::test_b", "2023-11-01", "2030-01-02");
        const std::string c = freeze("tests/t.py::test_c", "2023-10-25", "2023-11-01");
        repo.write("ledgers/quarantine.toml", a);
        added = repo.commit("grant a freeze"); // the root commit: no parent to diff against
        repo.rename("ledgers/quarantine.toml", ".patchwitness/quarantine.toml");
        moved = repo.commit("move the ledgers");
        repo.write(".patchwitness/quarantine.toml", aRenewed);
        renewed = repo.commit("renew a");
        repo.write(".patchwitness/quarantine.toml", aRenewed + b + c);
        more = repo.commit("freeze b and c");
        repo.write(".patchwitness/quarantine.toml", b + c);
        removed = repo.commit("restore a");
        repo.remove(".patchwitness/quarantine.toml");
        deleted = repo.commit("drop the ledger");
    }
};

const QDate kHistoryToday(2024, 1, 1);

bool waitForLoaded(LedgerHistoryPanel &panel)
{
    QSignalSpy spy(&panel, &LedgerHistoryPanel::loaded);
    panel.refresh();
    return spy.wait(20000) && !panel.isLoading();
}

bool showEvent(LedgerHistoryPanel &panel, int row)
{
    QSignalSpy spy(&panel, &LedgerHistoryPanel::revisionShown);
    return panel.selectEvent(row) && spy.wait(20000);
}

// The diff's added lines (new side) and deleted lines (old side).
QStringList diffLines(const DiffView &view, pw::core::DiffLine::Origin origin)
{
    QStringList out;
    for (const pw::core::DiffHunk &hunk : view.file().hunks) {
        for (const pw::core::DiffLine &line : hunk.lines) {
            if (line.origin == origin)
                out << QString::fromStdString(line.text);
        }
    }
    return out;
}

bool anyRowTextContains(const DiffView &view, const QString &text, DiffSide side)
{
    for (int row = 0; row < view.rowCount(); ++row) {
        if (view.rowText(row, side).contains(text))
            return true;
    }
    return false;
}

} // namespace

class TstLedgerPanels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void freezeBadges_data();
    void freezeBadges();
    void firstProblemNamesTheField_data();
    void firstProblemNamesTheField();
    void everyLedgerHasRows();
    void unparsableFileIsARowWithItsError();
    void tooltipListsEveryProblem();
    void duplicateEntriesEachGetTheirProblem();
    void deletedOpenJournalRowIsARow();
    void filterByTestNarrowsRows();
    void runRecordsFollowTheLedgers();
    void eventsNewestFirstWithColumns();
    void eventKindColours_data();
    void eventKindColours();
    void historyPanelShowsEveryEvent();
    void renewedEventShowsItsDiff();
    void rootAndDeletingCommitsShowTheWholeFile();
    void entryFilterNarrowsHistory();
    void newerRefreshSupersedesOlder();
    void historyExplainsWhatItCannotShow_data();
    void historyExplainsWhatItCannotShow();
    void rendersPanels();
};

void TstLedgerPanels::freezeBadges_data()
{
    QTest::addColumn<QDate>("today");
    QTest::addColumn<QString>("extra"); // appended to the freeze (opened 05-01, expires 05-14)
    QTest::addColumn<QString>("badge");
    QTest::addColumn<int>("severity");
    QTest::addColumn<QString>("expires");
    QTest::addColumn<int>("tone");

    const int neutral = int(severity_style::Tone::Neutral);
    const int review = int(severity_style::Tone::Review);
    const int block = int(severity_style::Tone::Block);
    QTest::newRow("valid") << QDate(2024, 5, 5) << QString() << "valid" << 0 << "2024-05-14"
                           << neutral;
    QTest::newRow("expiring in 3 days (the limit)")
        << QDate(2024, 5, 11) << QString() << "expiring" << 1 << "in 3 days" << review;
    QTest::newRow("expiring tomorrow")
        << QDate(2024, 5, 13) << QString() << "expiring" << 1 << "tomorrow" << review;
    QTest::newRow("expired on its expiry day")
        << QDate(2024, 5, 14) << QString() << "expired" << 2 << "2024-05-14" << block;
    QTest::newRow("one problem") << QDate(2024, 5, 5) << "note = 3"
                                 << "problem" << 2 << "2024-05-14" << block;
    QTest::newRow("expired with another problem")
        << QDate(2024, 6, 1) << "note = 3"
        << "expired · 2 problems" << 2 << "2024-05-14" << block;
}

void TstLedgerPanels::freezeBadges()
{
    QFETCH(QDate, today);
    QFETCH(QString, extra);
    QFETCH(QString, badge);
    QFETCH(int, severity);
    QFETCH(QString, expires);
    QFETCH(int, tone);

    const LedgerSet set = loadSet({{"quarantine.toml", freeze("tests/t.py::test_a", "2024-05-01",
                                                              "2024-05-14", extra.toStdString())}});
    LedgersModel model;
    model.setLedgers(set, validate(set, today), today);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(cell(model, 0, LedgersModel::StatusColumn), badge);
    QCOMPARE(model.index(0, 0).data(SeverityRole).toInt(), severity);
    QCOMPARE(int(model.severity()), severity);
    QCOMPARE(cell(model, 0, LedgersModel::ExpiresColumn), expires);
    QCOMPARE(cell(model, 0, LedgersModel::KindColumn), QStringLiteral("freeze"));
    QCOMPARE(cell(model, 0, LedgersModel::EntryColumn), QStringLiteral("tests/t.py::test_a"));
    QCOMPARE(cell(model, 0, LedgersModel::OwnerColumn), QStringLiteral("alice"));
    QCOMPARE(backgroundOf(model.index(0, LedgersModel::StatusColumn)),
             severity_style::background(severity_style::Tone(tone)));
    QVERIFY(!model.index(0, LedgersModel::StatusColumn)
                 .data(Qt::DecorationRole)
                 .value<QIcon>()
                 .isNull());
}

void TstLedgerPanels::firstProblemNamesTheField_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("entry");
    QTest::addColumn<QString>("mentions");
    QTest::addColumn<QString>("badge");

    const std::string full = freeze("tests/t.py::test_a", "2024-05-01", "2024-05-14");
    auto without = [&](const std::string &key) {
        QStringList lines = QString::fromStdString(full).split(QLatin1Char('\n'));
        lines.erase(std::remove_if(lines.begin(), lines.end(),
                                   [&](const QString &l) {
                                       return l.startsWith(QString::fromStdString(key + " ="));
                                   }),
                    lines.end());
        return lines.join(QLatin1Char('\n'));
    };
    QTest::newRow("freeze without owner")
        << "quarantine.toml" << without("owner") << "tests/t.py::test_a"
        << "`owner`"
        << "problem";
    QTest::newRow("freeze verdict")
        << "quarantine.toml"
        << QString::fromStdString(full).replace(QStringLiteral("\"PRE_EXISTING\""),
                                                QStringLiteral("\"FLAKY\""))
        << "tests/t.py::test_a"
        << "verdict is FLAKY"
        << "problem";
    QTest::newRow("waiver without approved_by")
        << "census_waiver.toml"
        << QString::fromUtf8(kWaiver).remove(QStringLiteral("approved_by = \"bob\"\n"))
        << "tests/test_calc.py::test_old"
        << "`approved_by`"
        << "problem";
    QTest::newRow("journal closed without replays")
        << "seed_journal.jsonl" << QString::fromUtf8(kJournal) << "j-2"
        << "two consecutive passing replays"
        << "problem";
    QTest::newRow("fixture digest")
        << "fixture_digest.json" << QString::fromUtf8(kFixtures) << "tests/fixtures/data.json"
        << "not a sha256"
        << "problem";
    QTest::newRow("budget") << "property_budget.toml"
                            << "max_examples = 0\ndeadline_ms = 200\nmax_workers = 4\n"
                            << "property_budget"
                            << "`max_examples` must be positive"
                            << "problem";
    QTest::newRow("wrong type: the field leads the message")
        << "property_budget.toml"
        << "max_examples = 100\ndeadline_ms = 200\nmax_workers = \"x\"\n"
        << "property_budget"
        << "max_workers: "
        << "problem";
    QTest::newRow("expired: the field leads the message")
        << "quarantine.toml"
        << QString::fromStdString(freeze("tests/t.py::test_a", "2024-04-01", "2024-04-10"))
        << "tests/t.py::test_a"
        << "expires: expired on 2024-04-10"
        << "expired";
}

void TstLedgerPanels::firstProblemNamesTheField()
{
    QFETCH(QString, file);
    QFETCH(QString, text);
    QFETCH(QString, entry);
    QFETCH(QString, mentions);
    QFETCH(QString, badge);

    const QDate today(2024, 5, 5);
    const LedgerSet set = loadSet({{file.toStdString(), text.toStdString()}});
    LedgersModel model;
    model.setLedgers(set, validate(set, today), today);
    const int row = rowOfEntry(model, entry);
    QVERIFY2(row >= 0, qPrintable(entry));
    QVERIFY2(cell(model, row, LedgersModel::ProblemColumn).contains(mentions),
             qPrintable(cell(model, row, LedgersModel::ProblemColumn)));
    QCOMPARE(cell(model, row, LedgersModel::StatusColumn), badge);
    QCOMPARE(model.index(row, 0).data(SeverityRole).toInt(), 2);
    QCOMPARE(model.index(row, 0).data(PathRole).toString(),
             QStringLiteral(".patchwitness/") + file);
    QCOMPARE(model.index(row, 0).data(TestRole).toString(), entry);
}

void TstLedgerPanels::everyLedgerHasRows()
{
    const QDate today(2024, 5, 12);
    const LedgerSet set =
        loadSet({{"quarantine.toml", freeze("tests/t.py::test_a", "2024-05-01", "2024-05-14") +
                                         freeze("tests/t.py::test_b", "2024-05-10", "2024-05-20")},
                 {"census_waiver.toml", kWaiver},
                 {"seed_journal.jsonl", kJournal},
                 {"fixture_digest.json", kFixtures},
                 {"property_budget.toml", kBudget}});
    LedgersModel model;
    model.setLedgers(set, validate(set, today), today);

    QStringList rows;
    for (int row = 0; row < model.rowCount(); ++row)
        rows << QStringList{cell(model, row, LedgersModel::StatusColumn),
                            cell(model, row, LedgersModel::KindColumn),
                            cell(model, row, LedgersModel::EntryColumn),
                            cell(model, row, LedgersModel::OwnerColumn)}
                    .join(QLatin1Char('|'));
    QCOMPARE(rows, (QStringList{QStringLiteral("expiring|freeze|tests/t.py::test_a|alice"),
                                QStringLiteral("valid|freeze|tests/t.py::test_b|alice"),
                                QStringLiteral("valid|waiver|tests/test_calc.py::test_old|bob"),
                                QStringLiteral("open|journal|j-1|"),
                                QStringLiteral("problem|journal|j-2|carol"),
                                QStringLiteral("valid|fixture|tests/conftest.py|"),
                                QStringLiteral("problem|fixture|tests/fixtures/data.json|"),
                                QStringLiteral("valid|budget|property_budget|")}));
    QCOMPARE(model.summary(), QStringLiteral("8 entries · 2 with problems · 1 expiring soon"));
    QCOMPARE(model.severity(), pw::core::Severity::Block);

    // rowAt tells the window what a row is (the Renew / Close-journal-row forms).
    const LedgerRow *journal = model.rowAt(3);
    QVERIFY(journal);
    QCOMPARE(journal->kind, LedgerRow::Kind::Journal);
    QCOMPARE(journal->file, QStringLiteral(".patchwitness/seed_journal.jsonl"));
    QCOMPARE(journal->entry, QStringLiteral("j-1"));
    QCOMPARE(journal->line, 1);
    QCOMPARE(journal->index, 0);
    QCOMPARE(model.rowAt(4)->line, 2);
    QCOMPARE(model.index(4, 0).data(LineRole).toInt(), 2);
    for (int role : {PathRole, LineRole, TestRole, SeverityRole, SortRole, CodeRole})
        QVERIFY2(model.index(4, 0).data(role).isValid(), qPrintable(QString::number(role)));
    QCOMPARE(cell(model, 1, LedgersModel::FileColumn),
             QStringLiteral("quarantine.toml:") + QString::number(model.rowAt(1)->line));
    QCOMPARE(model.rowAt(1)->index, 1);
    QVERIFY(model.rowAt(1)->line > model.rowAt(0)->line);
    QVERIFY(!model.rowAt(-1));
    QVERIFY(!model.rowAt(model.rowCount()));

    // Issue 20 item 7: entries the base lacks, or has otherwise, say so — by file and id as
    // AuditOutcome names them (the budget by its file) — and the summary counts them.
    model.setNotOnBase(
        {{{".patchwitness/census_waiver.toml", "tests/test_calc.py::test_old"}, true},
         {{".patchwitness/quarantine.toml", "tests/t.py::test_b"}, false},
         {{".patchwitness/property_budget.toml", "property_budget.toml"}, true}},
        QStringLiteral("the base, main (1a2b3c4)"));
    QCOMPARE(cell(model, 2, LedgersModel::StatusColumn), QStringLiteral("valid · not on base"));
    QCOMPARE(cell(model, 1, LedgersModel::StatusColumn),
             QStringLiteral("valid · changed since base"));
    QCOMPARE(cell(model, 7, LedgersModel::StatusColumn), QStringLiteral("valid · not on base"));
    QCOMPARE(cell(model, 0, LedgersModel::StatusColumn), QStringLiteral("expiring"));
    QVERIFY(model.index(2, 0)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("answers no finding until it is committed there")));
    QVERIFY(model.index(1, 0)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(
                    QLatin1String("the base, main (1a2b3c4), whose version of this entry counts")));
    QCOMPARE(model.summary(), QStringLiteral("8 entries · 2 with problems · 1 expiring soon · 2 "
                                             "not on the base yet · 1 changed since the base"));

    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.summary(), QStringLiteral("No ledger entries"));
    QCOMPARE(model.severity(), pw::core::Severity::Info);
}

void TstLedgerPanels::unparsableFileIsARowWithItsError()
{
    const QDate today(2024, 5, 5);
    const LedgerSet set = loadSet(
        {{"quarantine.toml", "[[quarantine]\ntest = \"x\"\n"}, {"census_waiver.toml", kWaiver}});
    QCOMPARE(int(set.loadProblems.size()), 1);
    LedgersModel model;
    model.setLedgers(set, validate(set, today), today);
    QCOMPARE(model.rowCount(), 2); // the broken file never hides the waiver
    const LedgerRow *file = model.rowAt(0);
    QCOMPARE(file->kind, LedgerRow::Kind::File);
    QCOMPARE(cell(model, 0, LedgersModel::KindColumn), QStringLiteral("file"));
    QCOMPARE(cell(model, 0, LedgersModel::StatusColumn), QStringLiteral("problem"));
    QCOMPARE(cell(model, 0, LedgersModel::EntryColumn), QStringLiteral("quarantine.toml"));
    QCOMPARE(cell(model, 0, LedgersModel::ProblemColumn),
             QString::fromStdString(set.loadProblems.front().message));
    QCOMPARE(cell(model, 0, LedgersModel::FileColumn), QStringLiteral("quarantine.toml:1"));
    QCOMPARE(model.index(0, 0).data(PathRole).toString(), kQuarantine);
    QCOMPARE(model.index(0, 0).data(TestRole).toString(), QString());
    QCOMPARE(cell(model, 1, LedgersModel::StatusColumn), QStringLiteral("valid"));
    QCOMPARE(model.summary(), QStringLiteral("1 entry · 1 file does not parse"));

    // Load problems show even when the caller only passes entry problems.
    LedgersModel bare;
    bare.setLedgers(set, {}, today);
    QCOMPARE(bare.rowCount(), 2);
    QCOMPARE(bare.rowAt(0)->problems.size(), size_t(1));
}

void TstLedgerPanels::tooltipListsEveryProblem()
{
    const QDate today(2024, 6, 1);
    std::string text = freeze("tests/t.py::test_a", "2024-05-01", "2024-05-14", "note = 3");
    text.replace(text.find("owner = \"alice\"\n"), std::string("owner = \"alice\"\n").size(), "");
    const LedgerSet set = loadSet({{"quarantine.toml", text}});
    const std::vector<LedgerProblem> problems = validate(set, today);
    QVERIFY(problems.size() >= 3); // owner, note's type, expired
    LedgersModel model;
    model.setLedgers(set, problems, today);
    QCOMPARE(model.rowCount(), 1);
    QStringList expected;
    for (const LedgerProblem &p : problems)
        expected << QString::fromStdString(p.toString());
    for (int column = 0; column < LedgersModel::ColumnCount; ++column)
        QCOMPARE(model.index(0, column).data(Qt::ToolTipRole).toString().split(QLatin1Char('\n')),
                 expected);
    QVERIFY(cell(model, 0, LedgersModel::ProblemColumn)
                .endsWith(QString::fromStdString(problems.front().message)));
    QCOMPARE(cell(model, 0, LedgersModel::StatusColumn),
             QStringLiteral("expired · %1 problems").arg(problems.size()));
}

void TstLedgerPanels::duplicateEntriesEachGetTheirProblem()
{
    const QDate today(2024, 5, 5);
    const LedgerSet set = loadSet(
        {{"quarantine.toml", freeze("tests/t.py::test_a", "2024-05-01", "2024-05-14") +
                                 freeze("tests/t.py::test_a", "2024-05-01", "2024-05-14")}});
    LedgersModel model;
    model.setLedgers(set, validate(set, today), today);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(cell(model, 0, LedgersModel::StatusColumn), QStringLiteral("valid"));
    QCOMPARE(cell(model, 1, LedgersModel::StatusColumn), QStringLiteral("problem"));
    QVERIFY(cell(model, 1, LedgersModel::ProblemColumn).startsWith(QLatin1String("duplicate")));
}

void TstLedgerPanels::deletedOpenJournalRowIsARow()
{
    const QDate today(2024, 5, 5);
    const LedgerSet before = loadSet({{"seed_journal.jsonl", kJournal}});
    const LedgerSet after =
        loadSet({{"seed_journal.jsonl",
                  std::string(kJournal).substr(std::string(kJournal).find('\n') + 1)}});
    ValidationContext context;
    context.today = today;
    context.journalBefore = &*before.journal;
    LedgersModel model;
    model.setLedgers(after, LedgerValidator(context).check(after), today);
    const int row = rowOfEntry(model, QStringLiteral("j-1"));
    QVERIFY(row >= 0);
    QVERIFY(!model.rowAt(row)->present);
    QCOMPARE(model.rowAt(row)->kind, LedgerRow::Kind::Journal);
    QCOMPARE(cell(model, row, LedgersModel::StatusColumn), QStringLiteral("problem"));
    QCOMPARE(cell(model, row, LedgersModel::EntryColumn), QStringLiteral("j-1 (gone)"));
    QVERIFY(cell(model, row, LedgersModel::ProblemColumn).contains(QLatin1String("deleted")));
}

void TstLedgerPanels::filterByTestNarrowsRows()
{
    const QDate today(2024, 5, 5);
    const LedgerSet set =
        loadSet({{"quarantine.toml", freeze("tests/t.py::test_a", "2024-05-01", "2024-05-14") +
                                         freeze("tests/t.py::test_b", "2024-05-01", "2024-05-14")},
                 {"census_waiver.toml", kWaiver}});
    LedgersModel model;
    model.setLedgers(set, validate(set, today), today);
    EvidencePanel panel;
    panel.setModel(&model);
    panel.setSummary(model.summary());
    panel.setSummarySeverity(model.severity());
    QCOMPARE(panel.proxy()->rowCount(), 3);
    panel.setFilterText(QStringLiteral("test_b"));
    QCOMPARE(panel.proxy()->rowCount(), 1);
    QCOMPARE(panel.proxy()->index(0, 0).data(TestRole).toString(),
             QStringLiteral("tests/t.py::test_b"));
    panel.setFilterText(QStringLiteral("test_old"));
    QCOMPARE(panel.proxy()->rowCount(), 1);
    QCOMPARE(panel.proxy()->index(0, LedgersModel::KindColumn).data().toString(),
             QStringLiteral("waiver"));
    panel.setFilterText(QString());
    QCOMPARE(panel.proxy()->rowCount(), 3);
    QCOMPARE(panel.summary(), QStringLiteral("3 entries"));
}

// The evidence files of runs/ come after the ledger entries, one row each: the record's
// kind, its test with what it concluded, a problem badge for a file `freeze` could not
// read; replacing them keeps the ledger rows, and the test filter finds them.
void TstLedgerPanels::runRecordsFollowTheLedgers()
{
    const QDate today(2024, 5, 5);
    const LedgerSet set =
        loadSet({{"quarantine.toml", freeze("tests/t.py::test_a", "2024-05-01", "2024-05-14")}});
    LedgersModel model;
    model.setLedgers(set, validate(set, today), today);
    pw::core::RunRecordFile record;
    record.file = ".patchwitness/runs/2024-05-05-tests_t.py_test_a-matched.json";
    record.kind = "attribution";
    record.test = "tests/t.py::test_a";
    record.result = "PRE_EXISTING · matched · base 3/5, head 3/5";
    pw::core::RunRecordFile broken;
    broken.file = ".patchwitness/runs/broken.json";
    broken.kind = "other";
    LedgerProblem p;
    p.file = broken.file;
    p.line = 2;
    p.column = 11;
    p.rule = "parse";
    p.message = "syntax error while parsing value";
    broken.problems.push_back(p);
    model.setRunRecords({record, broken});

    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.rowAt(0)->kind, LedgerRow::Kind::Freeze);
    QCOMPARE(cell(model, 1, LedgersModel::KindColumn), QStringLiteral("attribution run"));
    QCOMPARE(cell(model, 1, LedgersModel::EntryColumn),
             QStringLiteral("tests/t.py::test_a — PRE_EXISTING · matched · base 3/5, head 3/5"));
    QCOMPARE(cell(model, 1, LedgersModel::StatusColumn), QStringLiteral("valid"));
    QCOMPARE(cell(model, 1, LedgersModel::FileColumn),
             QStringLiteral("2024-05-05-tests_t.py_test_a-matched.json"));
    QCOMPARE(model.index(1, 0).data(TestRole).toString(), QStringLiteral("tests/t.py::test_a"));
    QVERIFY(cell(model, 1, 0, Qt::ToolTipRole).contains(QLatin1String("Grant freeze")));
    QCOMPARE(cell(model, 2, LedgersModel::KindColumn), QStringLiteral("run file"));
    QCOMPARE(cell(model, 2, LedgersModel::EntryColumn), QStringLiteral("broken.json"));
    QCOMPARE(cell(model, 2, LedgersModel::StatusColumn), QStringLiteral("problem"));
    QCOMPARE(cell(model, 2, LedgersModel::FileColumn), QStringLiteral("broken.json:2"));
    QCOMPARE(cell(model, 2, LedgersModel::ProblemColumn),
             QStringLiteral("syntax error while parsing value"));
    QCOMPARE(model.index(2, 0).data(TestRole).toString(), QString());
    QCOMPARE(model.severity(), pw::core::Severity::Block);
    QCOMPARE(model.summary(), QStringLiteral("1 entry · 2 run records · 1 with problems"));

    // Re-reading runs/ keeps the ledger rows; new ledgers keep the run rows.
    model.setRunRecords({record});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.severity(), pw::core::Severity::Info);
    model.setLedgers(set, validate(set, today), today);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.rowAt(1)->kind, LedgerRow::Kind::Run);
    LedgersModel runsOnly; // no ledger yet: no "0 entries"
    runsOnly.setRunRecords({record});
    QCOMPARE(runsOnly.summary(), QStringLiteral("1 run record"));

    EvidencePanel panel;
    panel.setModel(&model);
    panel.setFilterText(QStringLiteral("test_a"));
    QCOMPARE(panel.proxy()->rowCount(), 2);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TstLedgerPanels::eventsNewestFirstWithColumns()
{
    const char *sha = "0123456789abcdef0123456789abcdef01234567";
    std::vector<LedgerEvent> events = {
        ledgerEvent(LedgerEvent::Kind::Added, ".patchwitness/quarantine.toml", "tests/t.py::test_a",
                    sha, "Alice", utc(2026, 11, 1, 9, 5)),
        ledgerEvent(LedgerEvent::Kind::Renewed, ".patchwitness/quarantine.toml",
                    "tests/t.py::test_a", sha, "Alice", utc(2026, 11, 14, 17, 30),
                    "expires 2026-11-14 -> 2026-11-28"),
        ledgerEvent(LedgerEvent::Kind::Removed, ".patchwitness/census_waiver.toml",
                    "tests/t.py::test_old", sha, "Bob", utc(2026, 11, 14, 17, 30)),
        ledgerEvent(LedgerEvent::Kind::Expired, ".patchwitness/quarantine.toml",
                    "tests/t.py::test_a", sha, "Alice", utc(2026, 11, 28), "expired on 2026-11-28"),
    };
    LedgerEventsModel model;
    model.setEvents(events);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(LedgerEventsModel::ColumnCount));
    QCOMPARE(describe(model), (QStringList{QStringLiteral("expired tests/t.py::test_a"),
                                           QStringLiteral("removed tests/t.py::test_old"),
                                           QStringLiteral("renewed tests/t.py::test_a"),
                                           QStringLiteral("added tests/t.py::test_a")}));
    QCOMPARE(cell(model, 0, LedgerEventsModel::DateColumn), QStringLiteral("2026-11-28"));
    QCOMPARE(cell(model, 2, LedgerEventsModel::DateColumn), QStringLiteral("2026-11-14 17:30"));
    QCOMPARE(cell(model, 3, LedgerEventsModel::DateColumn), QStringLiteral("2026-11-01 09:05"));
    QCOMPARE(cell(model, 2, LedgerEventsModel::CommitColumn), QStringLiteral("0123456789"));
    QCOMPARE(cell(model, 2, LedgerEventsModel::CommitColumn, Qt::ToolTipRole),
             QString::fromLatin1(sha));
    QCOMPARE(cell(model, 2, LedgerEventsModel::AuthorColumn), QStringLiteral("Alice"));
    QCOMPARE(cell(model, 2, LedgerEventsModel::DetailColumn),
             QStringLiteral("expires 2026-11-14 -> 2026-11-28"));
    QCOMPARE(cell(model, 1, LedgerEventsModel::FileColumn),
             QStringLiteral(".patchwitness/census_waiver.toml"));
    QCOMPARE(model.index(1, 0).data(PathRole).toString(),
             QStringLiteral(".patchwitness/census_waiver.toml"));
    QCOMPARE(model.index(1, 0).data(TestRole).toString(), QStringLiteral("tests/t.py::test_old"));
    QCOMPARE(model.eventAt(1)->kind, LedgerEvent::Kind::Removed);
    for (int role : {PathRole, LineRole, TestRole, SeverityRole, SortRole, CodeRole})
        QVERIFY2(model.index(1, 0).data(role).isValid(), qPrintable(QString::number(role)));
    QVERIFY(!model.eventAt(4));
    QCOMPARE(model.summary(), QStringLiteral("4 events in 2 ledger files"));

    // Sorting by date is by time, ties in history order.
    EvidencePanel panel;
    panel.setModel(&model);
    panel.sortBy(LedgerEventsModel::DateColumn, Qt::AscendingOrder);
    QCOMPARE(panel.proxy()->index(0, LedgerEventsModel::EventColumn).data().toString(),
             QStringLiteral("added"));
    QCOMPARE(panel.proxy()->index(1, LedgerEventsModel::EventColumn).data().toString(),
             QStringLiteral("renewed"));
    QCOMPARE(panel.proxy()->index(2, LedgerEventsModel::EventColumn).data().toString(),
             QStringLiteral("removed"));
}

void TstLedgerPanels::eventKindColours_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("severity");
    QTest::addColumn<int>("tone");
    using K = LedgerEvent::Kind;
    using T = severity_style::Tone;
    QTest::newRow("added") << int(K::Added) << 0 << int(T::Good);
    QTest::newRow("renewed") << int(K::Renewed) << 0 << int(T::Good);
    QTest::newRow("edited") << int(K::Edited) << 0 << int(T::Neutral);
    QTest::newRow("expired") << int(K::Expired) << 1 << int(T::Review);
    QTest::newRow("removed") << int(K::Removed) << 1 << int(T::Review);
    QTest::newRow("unreadable") << int(K::Unreadable) << 1 << int(T::Review);
}

void TstLedgerPanels::eventKindColours()
{
    QFETCH(int, kind);
    QFETCH(int, severity);
    QFETCH(int, tone);
    LedgerEventsModel model;
    model.setEvents(
        {ledgerEvent(LedgerEvent::Kind(kind), "q.toml", "t", "abc", "A", utc(2026, 1, 1))});
    const QModelIndex index = model.index(0, LedgerEventsModel::EventColumn);
    QCOMPARE(index.data(SeverityRole).toInt(), severity);
    QCOMPARE(backgroundOf(index), severity_style::background(severity_style::Tone(tone)));
}

void TstLedgerPanels::historyPanelShowsEveryEvent()
{
    HistoryRepo fixture;
    LedgerHistoryPanel panel;
    panel.setRepository(QString::fromStdString(fixture.repo.root()),
                        QStringLiteral(".patchwitness"), kHistoryToday);
    QVERIFY(waitForLoaded(panel));
    QCOMPARE(panel.explanation(), QString());
    const LedgerEventsModel &model = *panel.model();
    QCOMPARE(describe(model), (QStringList{QStringLiteral("removed tests/t.py::test_c"),
                                           QStringLiteral("removed tests/t.py::test_b"),
                                           QStringLiteral("removed tests/t.py::test_a"),
                                           QStringLiteral("added tests/t.py::test_c"),
                                           QStringLiteral("added tests/t.py::test_b"),
                                           QStringLiteral("renewed tests/t.py::test_a"),
                                           QStringLiteral("added tests/t.py::test_a"),
                                           QStringLiteral("expired tests/t.py::test_c")}));
    QCOMPARE(panel.events()->proxy()->rowCount(), 8);
    // The first version lived under ledgers/: the history followed the rename.
    QCOMPARE(cell(model, 6, LedgerEventsModel::FileColumn),
             QStringLiteral("ledgers/quarantine.toml"));
    QCOMPARE(model.eventAt(6)->commit, fixture.added);
    QCOMPARE(model.eventAt(7)->commit, fixture.more); // the version that set the expiry
    QCOMPARE(panel.events()->summary(), QStringLiteral("8 events in 2 ledger files"));
    QVERIFY(panel.headerText().contains(QLatin1String("Select an event")));
    // Issue 20 item 9: its empty diff says what to do here, not "Select a changed file".
    auto *diff = panel.findChild<DiffView *>();
    QVERIFY(diff);
    QVERIFY2(diff->message().startsWith(QLatin1String("Select an event above")),
             qPrintable(diff->message()));
}

void TstLedgerPanels::renewedEventShowsItsDiff()
{
    HistoryRepo fixture;
    LedgerHistoryPanel panel;
    panel.setRepository(QString::fromStdString(fixture.repo.root()),
                        QStringLiteral(".patchwitness"), kHistoryToday);
    QVERIFY(waitForLoaded(panel));
    const int row = rowOfEvent(*panel.model(), QStringLiteral("renewed tests/t.py::test_a"));
    QVERIFY(row >= 0);
    QVERIFY(showEvent(panel, row));
    QCOMPARE(panel.selectedEvent()->kind, LedgerEvent::Kind::Renewed);

    const DiffView &diff = *panel.diffView();
    QVERIFY(diff.hasFile());
    QCOMPARE(QString::fromStdString(diff.file().path()), kQuarantine);
    QVERIFY(diff.rowCount() > 0);
    const QStringList added = diffLines(diff, pw::core::DiffLine::Origin::Added);
    QVERIFY2(added.contains(QStringLiteral("expires = 2030-01-10")), qPrintable(added.join('\n')));
    QVERIFY(diffLines(diff, pw::core::DiffLine::Origin::Deleted)
                .contains(QStringLiteral("expires = 2030-01-01")));
    QVERIFY(anyRowTextContains(diff, QStringLiteral("expires = 2030-01-10"), DiffSide::New));
    // The whole version shows, unchanged lines included.
    QVERIFY(anyRowTextContains(diff, QStringLiteral("owner = \"alice\""), DiffSide::New));

    const QString header = panel.headerText();
    QVERIFY2(header.contains(QString::fromStdString(fixture.renewed.substr(0, 10))),
             qPrintable(header));
    QVERIFY2(header.contains(QLatin1String("renewed by Test")), qPrintable(header));
    QVERIFY2(header.startsWith(kQuarantine), qPrintable(header));
}

void TstLedgerPanels::rootAndDeletingCommitsShowTheWholeFile()
{
    HistoryRepo fixture;
    LedgerHistoryPanel panel;
    panel.setRepository(QString::fromStdString(fixture.repo.root()),
                        QStringLiteral(".patchwitness"), kHistoryToday);
    QVERIFY(waitForLoaded(panel));
    const LedgerEventsModel &model = *panel.model();

    // The root commit has no parent: every line is added, under the path of that time.
    QVERIFY(showEvent(panel, rowOfEvent(model, QStringLiteral("added tests/t.py::test_a"))));
    QCOMPARE(panel.diffView()->file().status, pw::core::ChangeStatus::Added);
    QCOMPARE(panel.diffView()->file().newPath, std::string("ledgers/quarantine.toml"));
    QVERIFY(diffLines(*panel.diffView(), pw::core::DiffLine::Origin::Deleted).isEmpty());
    QVERIFY(diffLines(*panel.diffView(), pw::core::DiffLine::Origin::Added)
                .contains(QStringLiteral("test = \"tests/t.py::test_a\"")));
    QVERIFY(panel.headerText().contains(QString::fromStdString(fixture.added.substr(0, 10))));

    // The commit that deleted the file: the deletion diff.
    QVERIFY(showEvent(panel, rowOfEvent(model, QStringLiteral("removed tests/t.py::test_b"))));
    QCOMPARE(panel.diffView()->file().status, pw::core::ChangeStatus::Deleted);
    QVERIFY(diffLines(*panel.diffView(), pw::core::DiffLine::Origin::Added).isEmpty());
    QVERIFY(panel.headerText().contains(QString::fromStdString(fixture.deleted.substr(0, 10))));

    // An expiry shows the version that set it.
    QVERIFY(showEvent(panel, rowOfEvent(model, QStringLiteral("expired tests/t.py::test_c"))));
    QVERIFY(diffLines(*panel.diffView(), pw::core::DiffLine::Origin::Added)
                .contains(QStringLiteral("expires = 2023-11-01")));
    QVERIFY2(panel.headerText().contains(QLatin1String("expired on 2023-11-01")),
             qPrintable(panel.headerText()));
    QVERIFY(panel.headerText().contains(QString::fromStdString(fixture.more.substr(0, 10))));
}

void TstLedgerPanels::entryFilterNarrowsHistory()
{
    HistoryRepo fixture;
    LedgerHistoryPanel panel;
    panel.setRepository(QString::fromStdString(fixture.repo.root()),
                        QStringLiteral(".patchwitness"), kHistoryToday);
    QVERIFY(waitForLoaded(panel));
    panel.setEntryFilter(QStringLiteral("tests/t.py::test_b"));
    QCOMPARE(panel.events()->proxy()->rowCount(), 2);
    QVERIFY(panel.events()->findChild<QLineEdit *>(QStringLiteral("filter"))->text() ==
            QStringLiteral("tests/t.py::test_b"));
    // A filtered-out event cannot be selected.
    QVERIFY(
        !panel.selectEvent(rowOfEvent(*panel.model(), QStringLiteral("added tests/t.py::test_a"))));
    QVERIFY(!panel.selectEvent(-1));
    QVERIFY(
        showEvent(panel, rowOfEvent(*panel.model(), QStringLiteral("added tests/t.py::test_b"))));
    panel.setEntryFilter(QString());
    QCOMPARE(panel.events()->proxy()->rowCount(), 8);
}

void TstLedgerPanels::newerRefreshSupersedesOlder()
{
    HistoryRepo fixture;
    LedgerHistoryPanel panel;
    QSignalSpy spy(&panel, &LedgerHistoryPanel::loaded);
    panel.setRepository(QString::fromStdString(fixture.repo.root()), QStringLiteral("../elsewhere"),
                        kHistoryToday);
    panel.refresh();
    QVERIFY(panel.isLoading());
    panel.setRepository(QString::fromStdString(fixture.repo.root()),
                        QStringLiteral(".patchwitness"), kHistoryToday);
    panel.refresh();
    QVERIFY(spy.wait(20000));
    QCOMPARE(spy.count(), 1); // the older answer never showed
    QVERIFY(!panel.isLoading());
    QCOMPARE(panel.explanation(), QString());
    QCOMPARE(panel.model()->rowCount(), 8);

    // A refresh keeps the selected event selected.
    QVERIFY(showEvent(panel, 2));
    const LedgerEvent selected = *panel.selectedEvent();
    QVERIFY(waitForLoaded(panel));
    QVERIFY(panel.selectedEvent());
    QCOMPARE(panel.selectedEvent()->commit, selected.commit);
    QCOMPARE(panel.selectedEvent()->entry, selected.entry);
}

void TstLedgerPanels::historyExplainsWhatItCannotShow_data()
{
    QTest::addColumn<bool>("unborn");
    QTest::addColumn<QString>("ledgerDir"); // "ROOT" is the repository's root
    QTest::addColumn<QString>("explains");

    QTest::newRow("relative, outside") << false << "../ledgers"
                                       << "outside the repository";
    QTest::newRow("absolute, outside") << false << "/nonexistent/ledgers"
                                       << "outside the repository";
    QTest::newRow("absolute, inside") << false << "ROOT/.patchwitness"
                                      << "";
    QTest::newRow("no commits yet") << true << ".patchwitness"
                                    << "no commits yet";
    QTest::newRow("not a repository") << true << "NOREPO"
                                      << "Cannot read the ledger history";
}

void TstLedgerPanels::historyExplainsWhatItCannotShow()
{
    QFETCH(bool, unborn);
    QFETCH(QString, ledgerDir);
    QFETCH(QString, explains);

    std::optional<HistoryRepo> fixture;
    RepoBuilder empty;
    QTemporaryDir plain;
    QString root;
    if (unborn) {
        root = QString::fromStdString(empty.root());
    } else {
        fixture.emplace();
        root = QString::fromStdString(fixture->repo.root());
    }
    if (ledgerDir == QLatin1String("NOREPO")) {
        root = plain.path();
        ledgerDir = QStringLiteral(".patchwitness");
    }
    ledgerDir.replace(QLatin1String("ROOT"), root);

    LedgerHistoryPanel panel;
    panel.resize(1200, 400); // room for every column at its natural width
    panel.show();
    panel.setRepository(root, ledgerDir, kHistoryToday);
    QVERIFY(waitForLoaded(panel));
    auto *label = panel.findChild<QLabel *>(QStringLiteral("explanation"));
    QVERIFY(label);
    if (explains.isEmpty()) {
        QCOMPARE(panel.explanation(), QString());
        QVERIFY(!label->isVisible());
        QVERIFY(panel.events()->isVisible());
        QCOMPARE(panel.model()->rowCount(), 8);
        // Columns are fitted to the rows that arrived, not to the empty model before them.
        const QTreeView *view = panel.events()->view();
        QVERIFY(view->columnWidth(LedgerEventsModel::EntryColumn) >=
                view->fontMetrics().horizontalAdvance(QStringLiteral("tests/t.py::test_a")));
    } else {
        QVERIFY2(panel.explanation().contains(explains), qPrintable(panel.explanation()));
        QVERIFY(!panel.explanation().contains(QLatin1Char('\n')));
        QVERIFY(label->isVisible());
        QCOMPARE(label->text(), panel.explanation());
        QVERIFY(!panel.events()->isVisible());
        QCOMPARE(panel.model()->rowCount(), 0);
    }
}

void TstLedgerPanels::rendersPanels()
{
    const QDate today(2024, 5, 12);
    std::string waiverWithoutWitness = kWaiver;
    waiverWithoutWitness.replace(waiverWithoutWitness.find("witness = "),
                                 std::string("witness = \"tests/test_calc.py::test_mul\"\n").size(),
                                 "");
    const LedgerSet set = loadSet(
        {{"quarantine.toml",
          freeze("tests/test_rounding.py::test_round_half_ties_to_even", "2024-05-01",
                 "2024-05-14") +
              freeze("tests/test_cache.py::test_eviction_order", "2024-05-10", "2024-05-20",
                     "renewed = 2024-05-10\nrenewed_by = \"bob\"\nlast_reproduced = 2024-05-09") +
              freeze("tests/test_money.py::test_cents", "2024-04-20", "2024-05-02")},
         {"census_waiver.toml", waiverWithoutWitness},
         {"seed_journal.jsonl", kJournal},
         {"fixture_digest.json", kFixtures},
         {"property_budget.toml", "max_examples = 100\ndeadline_ms = 200\nmax_workers = \"x\"\n"}});
    LedgersModel ledgers;
    ledgers.setLedgers(set, validate(set, today), today);
    const QString dir = pw::test::panelShotsDir();
    {
        EvidencePanel panel;
        panel.setModel(&ledgers);
        panel.setPrimaryColumn(LedgersModel::EntryColumn);
        panel.setSummary(ledgers.summary());
        panel.setSummarySeverity(ledgers.severity());
        panel.resize(1300, 320);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCoreApplication::processEvents();
        const QString path = dir + QStringLiteral("/ledgers.png");
        QVERIFY2(panel.grab().save(path), qPrintable(path));
    }

    HistoryRepo fixture;
    LedgerHistoryPanel history;
    history.resize(1000, 600);
    history.show();
    QVERIFY(QTest::qWaitForWindowExposed(&history));
    history.setRepository(QString::fromStdString(fixture.repo.root()),
                          QStringLiteral(".patchwitness"), kHistoryToday);
    QVERIFY(waitForLoaded(history));
    QVERIFY(showEvent(history,
                      rowOfEvent(*history.model(), QStringLiteral("renewed tests/t.py::test_a"))));
    QCoreApplication::processEvents();
    const QString path = dir + QStringLiteral("/ledger-history.png");
    QVERIFY2(history.grab().save(path), qPrintable(path));
    qInfo("ledger panel screenshots in %s", qPrintable(QDir::toNativeSeparators(dir)));
}

QTEST_MAIN(TstLedgerPanels)
#include "tst_ledgerpanels.moc"
