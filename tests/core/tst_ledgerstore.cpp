// Atomic ledger writes with optimistic concurrency: a file edited on disk between
// load and write is never overwritten (nothing lost, nothing written); an action whose entry
// would not validate leaves the file byte-identical; valid actions write exactly their entry.
#include "ledger/LedgerActions.h"
#include "ledger/LedgerStore.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>

using namespace pw::core;

namespace {

const QDate kToday(2024, 5, 10);

const char *kLedger = "# reviewed freezes\n\n[[quarantine]]\ntest = \"tests/t.py::test_a\"\n"
                      "owner = \"alice\"\nopened = 2024-05-01\nexpires = 2024-05-14\n"
                      "verdict = \"PRE_EXISTING\"\nattribution = \"solo\"\nwitness_seed = 1\n"
                      "baseline_sha = \"abcdef0\"\nevidence = { base_fail = 1, head_fail = 1, "
                      "mode = \"matched\", seeds = [1], env_digest = \"0123456789abcdef\" }\n"
                      "obligation = \"a holds\"\nsubstitute = \"tests/t.py::test_b\"\n"
                      "guards = [\"src/a.py\"]\nreplay = \"pytest tests/t.py::test_a\"\n";

const char *kJournal =
    "{\"id\": \"j1\", \"seed\": 1, \"env\": \"e1\", \"status\": \"open\", \"opened\": "
    "\"2024-05-01\", \"replays\": [{\"outcome\": \"pass\", \"env\": \"e1\"}]}\n"
    "{\"id\": \"j2\", \"seed\": 2, \"env\": \"e1\", \"status\": \"open\", \"opened\": "
    "\"2024-05-01\", \"replays\": [{\"outcome\": \"pass\", \"env\": \"e1\"}, {\"outcome\": "
    "\"pass\", \"env\": \"e1\"}]}\n";

LedgerActions actions()
{
    ValidationContext ctx;
    ctx.today = kToday;
    ctx.testExistsAtHead = [](const std::string &id) {
        return id == "tests/t.py::test_b" || id == "tests/t.py::test_c";
    };
    return LedgerActions(LedgerValidator(ctx));
}

QuarantineEntry freezeOf(const std::string &test)
{
    QuarantineEntry e;
    e.test = test;
    e.owner = "bob";
    e.expires = QDate(2024, 5, 20);
    e.attribution = "order";
    e.witnessSeed = 3;
    e.baselineSha = "0123abc";
    e.evidence = FreezeEvidence{2, 2, std::string("swept"), std::vector<long long>{3},
                                std::string("00112233aabbccdd")};
    e.obligation = "c holds";
    e.substitute = "tests/t.py::test_b";
    e.guards = std::vector<std::string>{"src/c.py"};
    e.replay = "pytest tests/t.py::test_c";
    e.grantedBy = "carol";
    return e;
}

WaiverEntry waiverOf(const std::string &node, const std::string &witness)
{
    WaiverEntry w;
    w.node = node;
    w.reason = "duplicate-coverage";
    w.witness = witness;
    w.approvedBy = "dave";
    return w;
}

std::string fileText(const QString &path)
{
    return readWholeFile(path.toStdString()).value_or("<absent>");
}

void writeText(const QString &path, const std::string &text)
{
    QVERIFY(writeFileAtomically(path.toStdString(), text, true));
}

} // namespace

using Action =
    std::function<std::string(const LedgerActions &, const std::string &, const std::string &)>;
Q_DECLARE_METATYPE(Action)

class TstLedgerStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void editedOnDiskBetweenReadAndWriteIsRefused_data();
    void editedOnDiskBetweenReadAndWriteIsRefused();
    void writeCreatesDirectoryAndLeavesNoTemporaryFile();
    void oneStoreWritesTwice();
    void refusedActionsLeaveTheFileByteIdentical_data();
    void refusedActionsLeaveTheFileByteIdentical();
    void validActionsWriteTheirEntry();
    void liveValidationOfANewEntry();
    void fixtureNoteKeepsOtherPaths();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString path(const char *name) const { return m_dir->filePath(QLatin1String(name)); }
};

void TstLedgerStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TstLedgerStore::editedOnDiskBetweenReadAndWriteIsRefused_data()
{
    QTest::addColumn<QString>("before");    // "<absent>": no file when loaded
    QTest::addColumn<QString>("meanwhile"); // "<absent>": deleted meanwhile
    QTest::newRow("edited") << QString::fromUtf8(kLedger)
                            << QString::fromUtf8(kLedger) + QStringLiteral("# a colleague\n");
    QTest::newRow("created") << "<absent>" << QString::fromUtf8(kLedger);
    QTest::newRow("deleted") << QString::fromUtf8(kLedger) << "<absent>";
    QTest::newRow("same size, other bytes")
        << QString::fromUtf8(kLedger)
        << QString::fromUtf8(kLedger).replace(QStringLiteral("alice"), QStringLiteral("alicE"));
}

void TstLedgerStore::editedOnDiskBetweenReadAndWriteIsRefused()
{
    QFETCH(QString, before);
    QFETCH(QString, meanwhile);
    const QString file = path("quarantine.toml");
    if (before != QLatin1String("<absent>"))
        writeText(file, before.toStdString());
    LedgerStore store = LedgerStore::open(file.toStdString());
    if (meanwhile == QLatin1String("<absent>"))
        QVERIFY(QFile::remove(file));
    else
        writeText(file, meanwhile.toStdString());
    const std::string mine =
        actions().freeze(store.loaded(), store.path(), freezeOf("tests/t.py::test_c"));
    try {
        store.write(mine);
        QFAIL("a file changed on disk must not be overwritten");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), int(Error::Kind::Input));
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("changed on disk since it was "
                                                                    "loaded; nothing was written")),
                 e.what());
    }
    QCOMPARE(QString::fromStdString(fileText(file)), meanwhile); // the colleague's version stands
}

void TstLedgerStore::writeCreatesDirectoryAndLeavesNoTemporaryFile()
{
    const QString file = m_dir->filePath(QStringLiteral("nested/.patchwitness/census_waiver.toml"));
    LedgerStore store = LedgerStore::open(file.toStdString());
    QVERIFY(!store.existed());
    QCOMPARE(store.loaded(), std::string());
    const std::string text = actions().waive(store.loaded(), store.path(),
                                             waiverOf("tests/t.py::test_x", "tests/t.py::test_c"));
    store.write(text);
    QCOMPARE(fileText(file), text);
    QCOMPARE(QDir(QFileInfo(file).absolutePath()).entryList(QDir::Files | QDir::Hidden),
             QStringList{QStringLiteral("census_waiver.toml")});
}

void TstLedgerStore::oneStoreWritesTwice()
{
    const QString file = path("census_waiver.toml");
    LedgerStore store = LedgerStore::open(file.toStdString());
    store.write(actions().waive(store.loaded(), store.path(),
                                waiverOf("tests/t.py::test_x", "tests/t.py::test_c")));
    store.write(actions().waive(store.loaded(), store.path(),
                                waiverOf("tests/t.py::test_y", "tests/t.py::test_c")));
    QCOMPARE(int(WaiverLedger::parse(fileText(file), "w").entries.size()), 2);
}

void TstLedgerStore::refusedActionsLeaveTheFileByteIdentical_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("content");
    QTest::addColumn<Action>("action");
    QTest::addColumn<QString>("reason");

    const QString q = QStringLiteral("quarantine.toml");
    QTest::newRow("freeze without owner")
        << q << QString::fromUtf8(kLedger)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               QuarantineEntry e = freezeOf("tests/t.py::test_c");
               e.owner.reset();
               return a.freeze(t, o, e);
           })
        << "missing required field `owner`";
    QTest::newRow("freeze of a FLAKY_ORACLE")
        << q << QString::fromUtf8(kLedger)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               QuarantineEntry e = freezeOf("tests/t.py::test_c");
               e.verdict = "FLAKY_ORACLE";
               return a.freeze(t, o, e);
           })
        << "allowed only for PRE_EXISTING";
    QTest::newRow("freeze expiring too late")
        << q << QString::fromUtf8(kLedger)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               QuarantineEntry e = freezeOf("tests/t.py::test_c");
               e.expires = QDate(2024, 6, 30);
               return a.freeze(t, o, e);
           })
        << "at most 14";
    QTest::newRow("second freeze for a test")
        << q << QString::fromUtf8(kLedger)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.freeze(t, o, freezeOf("tests/t.py::test_a"));
           })
        << "there already is a freeze for tests/t.py::test_a";
    QTest::newRow("renewal with a stale reproduction")
        << q << QString::fromUtf8(kLedger)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.renew(t, o, "tests/t.py::test_a", QDate(2024, 4, 1), QDate(2024, 5, 20),
                              "erin");
           })
        << "before the renewal on 2024-05-10";
    QTest::newRow("renewal too far out")
        << q << QString::fromUtf8(kLedger)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.renew(t, o, "tests/t.py::test_a", QDate(2024, 5, 9), QDate(2024, 6, 9),
                              "erin");
           })
        << "after the renewal on 2024-05-10";
    QTest::newRow("waiver with an unknown witness")
        << "census_waiver.toml" << QStringLiteral("# none yet\n")
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.waive(t, o, waiverOf("tests/t.py::test_x", "tests/t.py::test_zzz"));
           })
        << "is not collected at head";
    QTest::newRow("journal row without two passes")
        << "seed_journal.jsonl" << QString::fromUtf8(kJournal)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.closeJournalRow(t, o, "j1", "frank");
           })
        << "closed without two consecutive passing replays";
    QTest::newRow("ledger that does not parse")
        << q << QStringLiteral("[[quarantine]\n")
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.freeze(t, o, freezeOf("tests/t.py::test_c"));
           })
        << "quarantine.toml:1:";
    QTest::newRow("renewal without a name")
        << q << QString::fromUtf8(kLedger)
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.renew(t, o, "tests/t.py::test_a", kToday, kToday.addDays(7), "");
           })
        << "renewed_by";
    const QString f = QStringLiteral("fixture_digest.json");
    const QString digests = QStringLiteral("{\n  \"tests/golden/a.json\": \"%1\"\n}\n")
                                .arg(QString(64, QLatin1Char('a')));
    QTest::newRow("fixture note without a note")
        << f << digests
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.noteFixture(t, o, "tests/golden/a.json", std::string(64, 'b'), "  ");
           })
        << "say why the fixture changed";
    QTest::newRow("fixture note with a short digest")
        << f << digests
        << Action([](const LedgerActions &a, const std::string &t, const std::string &o) {
               return a.noteFixture(t, o, "tests/golden/a.json", "abc", "new totals");
           })
        << "64 lowercase hex";
}

void TstLedgerStore::refusedActionsLeaveTheFileByteIdentical()
{
    QFETCH(QString, file);
    QFETCH(QString, content);
    QFETCH(Action, action);
    QFETCH(QString, reason);
    const QString p = path(qPrintable(file));
    writeText(p, content.toStdString());
    const std::string before = fileText(p);
    const QFileInfo info(p);
    const QDateTime modified = info.lastModified();
    LedgerStore store = LedgerStore::open(p.toStdString());
    try {
        store.write(action(actions(), store.loaded(), store.path()));
        QFAIL("the action must be refused");
    } catch (const Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(reason), e.what());
    }
    QCOMPARE(fileText(p), before);
    QCOMPARE(QFileInfo(p).lastModified(), modified);
}

void TstLedgerStore::validActionsWriteTheirEntry()
{
    const QString q = path("quarantine.toml");
    writeText(q, kLedger);
    LedgerStore store = LedgerStore::open(q.toStdString());
    store.write(actions().freeze(store.loaded(), store.path(), freezeOf("tests/t.py::test_c")));
    store.write(actions().renew(store.loaded(), store.path(), "tests/t.py::test_a",
                                QDate(2024, 5, 9), QDate(2024, 5, 24), "erin"));
    const std::string text = fileText(q);
    QVERIFY(text.starts_with("# reviewed freezes\n\n[[quarantine]]\n"));
    ValidationContext ctx;
    ctx.today = kToday;
    const QuarantineLedger ledger = QuarantineLedger::parse(text, "q");
    QVERIFY(LedgerValidator(ctx).check(ledger).empty());
    QCOMPARE(*ledger.find("tests/t.py::test_c")->opened, kToday); // defaults to today
    QCOMPARE(*ledger.find("tests/t.py::test_c")->verdict, std::string("PRE_EXISTING"));
    QCOMPARE(*ledger.find("tests/t.py::test_a")->renewed, kToday);
    QCOMPARE(*ledger.find("tests/t.py::test_a")->renewedBy, std::string("erin"));

    const QString j = path("seed_journal.jsonl");
    writeText(j, kJournal);
    LedgerStore journal = LedgerStore::open(j.toStdString());
    journal.write(actions().closeJournalRow(journal.loaded(), journal.path(), "j2", "frank"));
    const SeedJournal rows = SeedJournal::parse(fileText(j), "j");
    QCOMPARE(*rows.find("j2")->status, std::string("closed"));
    QCOMPARE(*rows.find("j2")->closedOn, kToday);
    QCOMPARE(*rows.find("j1")->status, std::string("open"));
}

void TstLedgerStore::liveValidationOfANewEntry()
{
    QuarantineEntry e = freezeOf("tests/t.py::test_c");
    e.owner.reset();
    e.substitute = "tests/t.py::test_nope";
    const std::vector<LedgerProblem> problems = actions().problemsOf(kLedger, "quarantine.toml", e);
    QStringList fields;
    for (const LedgerProblem &p : problems)
        fields << QString::fromStdString(p.field);
    fields.sort();
    QCOMPARE(fields, (QStringList{QStringLiteral("opened"), QStringLiteral("owner"),
                                  QStringLiteral("substitute"), QStringLiteral("verdict")}));
}

void TstLedgerStore::fixtureNoteKeepsOtherPaths()
{
    const std::string before = "{\n  \"b.json\": {\"sha256\": \"" + std::string(64, 'b') +
                               "\", \"reviewer\": \"kept\"},\n  \"a.json\": \"" +
                               std::string(64, 'a') + "\"\n}\n";
    const std::string after = actions().noteFixture(before, "fixture_digest.json", "a.json",
                                                    std::string(64, 'c'), "totals now round up");
    QVERIFY(after.find("\"note\": \"totals now round up\"") != std::string::npos);
    QVERIFY(after.find(std::string(64, 'c')) != std::string::npos);
    QVERIFY(after.find("\"reviewer\": \"kept\"") != std::string::npos); // unknown key kept
    QVERIFY(after.find(std::string(64, 'a')) == std::string::npos);
    QCOMPARE(actions().problemsOfNote("f", "a.json", std::string(64, 'c'), "why").size(),
             size_t(0));
}

QTEST_GUILESS_MAIN(TstLedgerStore)
#include "tst_ledgerstore.moc"
