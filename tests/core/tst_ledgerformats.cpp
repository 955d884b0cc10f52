// Ledger readers and writers: every field read with its type, unknown fields and
// comments kept byte for byte through edits, parse errors as "file:line:column: message"
// (malformed, truncated, invalid UTF-8, duplicate keys), wrong types naming entry and
// field, a 10 MB ledger, and the written text equal to reviewed golden files.
#include "TestSupport.h"
#include "ledger/FixtureDigestLedger.h"
#include "ledger/LedgerSet.h"
#include "ledger/PropertyBudget.h"
#include "ledger/QuarantineLedger.h"
#include "ledger/SeedJournal.h"
#include "ledger/WaiverLedger.h"
#include "util/Error.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QtTest>

using namespace pw::core;

namespace {

const char *kQuarantine = R"(# Freezes granted by reviewers. Keep one entry per test.

[[quarantine]]
test = "tests/test_calc.py::test_add"
owner = "alice"   # owns the fix
opened = 2024-05-01
expires = 2024-05-14
verdict = "PRE_EXISTING"
attribution = "order"
witness_seed = 7
baseline_sha = "0123456789abcdef0123456789abcdef01234567"
evidence = { base_fail = 3, head_fail = 3, mode = "matched", seeds = [3, 7], env_digest = "abcd1234abcd1234", runner = "ci-7" }
obligation = "adding two numbers returns their sum"
substitute = "tests/test_calc.py::test_sub"
guards = [
    "src/calc.py",
    "src/util.py",
]
replay = "pytest -p pw_plugin --seed 7 tests/test_calc.py::test_add"
ticket = "CALC-12"

# The second one was renewed once.
[[quarantine]]
test = "tests/test_io.py::test_read"
owner = "bob"
opened = 2024-04-28
expires = 2024-05-12
renewed = 2024-04-30
last_reproduced = 2024-04-29
)";

const char *kJournal =
    "{\"id\": \"j1\", \"seed\": 4, \"env\": \"e1\", \"status\": \"open\", \"opened\": "
    "\"2024-05-01\", \"replays\": [{\"outcome\": \"pass\", \"env\": \"e1\"}, {\"outcome\": "
    "\"pass\", \"env\": \"e1\"}], \"runner\":\"ci\"}\n"
    "\n"
    "{\"id\":2,\"seed\":null,\"env\":\"e1\",\"status\":\"open\",\"opened\":\"2024-05-02\"}\n";

template <typename F> bool throwsInputError(F f)
{
    try {
        f();
    } catch (const Error &e) {
        return e.kind() == Error::Kind::Input;
    }
    return false;
}

QByteArray bytes(const std::string &s)
{
    return QByteArray::fromStdString(s);
}

void checkGolden(const char *name, const std::string &text)
{
    QString diff;
    QVERIFY2(pw::test::compareGolden(QStringLiteral("ledger/") + QLatin1String(name), bytes(text),
                                     &diff),
             qPrintable(diff));
}

QuarantineEntry newFreeze()
{
    QuarantineEntry e;
    e.test = "tests/test_calc.py::test_mul";
    e.owner = "carol";
    e.opened = QDate(2024, 5, 10);
    e.expires = QDate(2024, 5, 24);
    e.verdict = "PRE_EXISTING";
    e.attribution = "isolate";
    e.witnessSeed = 11;
    e.baselineSha = "89abcdef";
    e.evidence = FreezeEvidence{2, 2, std::string("swept"), std::vector<long long>{0, 1, 2},
                                std::string("ffff0000ffff0000")};
    e.obligation = "multiplying by \"zero\" gives zero";
    e.substitute = "tests/test_calc.py::test_mul_zero";
    e.guards = std::vector<std::string>{"src/calc.py"};
    e.replay = "pytest tests/test_calc.py::test_mul -p pw_plugin --seed 11";
    e.grantedBy = "dave";
    return e;
}

} // namespace

class TstLedgerFormats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void quarantineFields();
    void waiverJournalDigestBudgetFields();
    void wrongTypesNameEntryAndField();
    void malformed_data();
    void malformed();
    void loadSetReportsEachBrokenFileAndKeepsTheOthers();
    void appendKeepsTheFileAsPrefix();
    void renewChangesOnlyItsValues();
    void journalCloseChangesOneLine();
    void digestAndBudgetEdits();
    void crlfFilesStayCrlf();
    void golden();
    void tenMegabyteLedgers();
};

void TstLedgerFormats::quarantineFields()
{
    const QuarantineLedger l = QuarantineLedger::parse(kQuarantine, "quarantine.toml");
    QCOMPARE(int(l.entries.size()), 2);
    const QuarantineEntry &a = l.entries[0];
    QCOMPARE(*a.test, std::string("tests/test_calc.py::test_add"));
    QCOMPARE(*a.opened, QDate(2024, 5, 1));
    QCOMPARE(*a.expires, QDate(2024, 5, 14));
    QCOMPARE(*a.witnessSeed, 7LL);
    QCOMPARE(*a.evidence->baseFail, 3LL);
    QCOMPARE(*a.evidence->mode, std::string("matched"));
    QCOMPARE(a.evidence->seeds->size(), size_t(2));
    QCOMPARE(*a.evidence->envDigest, std::string("abcd1234abcd1234"));
    QCOMPARE(a.guards->size(), size_t(2));
    QCOMPARE(a.info.line, 3);
    QCOMPARE(a.info.lineOf("expires"), 7);
    QCOMPARE(a.info.unknownFields,
             (std::vector<std::string>{"evidence.runner", "ticket"})); // kept, not lost
    QVERIFY(a.info.problems.empty());
    const QuarantineEntry &b = l.entries[1];
    QCOMPARE(*b.renewed, QDate(2024, 4, 30));
    QCOMPARE(*b.periodStart(), QDate(2024, 4, 30));
    QVERIFY(!b.evidence);
    QCOMPARE(b.info.index, 1);
    QVERIFY(l.find("tests/test_io.py::test_read") == &l.entries[1]);
}

void TstLedgerFormats::waiverJournalDigestBudgetFields()
{
    const WaiverLedger w =
        WaiverLedger::parse("[[waiver]]\nnode = \"tests/t.py::test_a\"\nreason = \"environment\"\n"
                            "approved_by = \"x\"\napproved_on = 2024-01-02\nextra = 1\n",
                            "census_waiver.toml");
    QCOMPARE(int(w.entries.size()), 1);
    QCOMPARE(*w.entries[0].approvedOn, QDate(2024, 1, 2));
    QVERIFY(!w.entries[0].witness);
    QCOMPARE(w.entries[0].info.unknownFields, std::vector<std::string>{"extra"});

    const SeedJournal j = SeedJournal::parse(kJournal, "seed_journal.jsonl");
    QCOMPARE(int(j.rows.size()), 2);
    QCOMPARE(*j.rows[0].id, std::string("j1"));
    QCOMPARE(*j.rows[0].seed, 4LL);
    QCOMPARE(j.rows[0].replays->size(), size_t(2));
    QCOMPARE(j.rows[0].info.unknownFields, std::vector<std::string>{"runner"});
    QCOMPARE(*j.rows[1].id, std::string("2")); // integer ids read as text
    QVERIFY(j.rows[1].hasSeed && !j.rows[1].seed);
    QCOMPARE(j.rows[1].info.line, 3);

    const FixtureDigestLedger d = FixtureDigestLedger::parse(
        "{\n  \"a.json\": \"" + std::string(64, '1') + "\",\n  \"b.json\": {\"sha256\": \"" +
            std::string(64, '2') + "\", \"note\": \"regenerated\", \"by\": \"x\"}\n}\n",
        "fixture_digest.json");
    QCOMPARE(int(d.entries.size()), 2);
    QCOMPARE(d.entries[1].info.line, 3);
    QCOMPARE(*d.entries[1].note, std::string("regenerated"));
    QCOMPARE(d.entries[1].info.unknownFields, std::vector<std::string>{"by"});

    const PropertyBudget b = PropertyBudget::parse(
        "max_examples = 100\ndeadline_ms = 200\nmax_workers = 2\n", "property_budget.toml");
    QCOMPARE(*b.maxExamples, 100LL);
    QCOMPARE(*b.deadlineMs, 200LL);
    QCOMPARE(*b.maxWorkers, 2LL);
}

void TstLedgerFormats::wrongTypesNameEntryAndField()
{
    const QuarantineLedger l = QuarantineLedger::parse(
        "[[quarantine]]\ntest = \"tests/t.py::test_a\"\nwitness_seed = \"seven\"\n"
        "guards = \"src/a.py\"\nexpires = 2024-05-01T10:00:00\n",
        "quarantine.toml");
    const std::vector<LedgerProblem> &p = l.entries.front().info.problems;
    QCOMPARE(int(p.size()), 3);
    QStringList text;
    for (const LedgerProblem &x : p)
        text << QString::fromStdString(x.toString());
    text.sort();
    QCOMPARE(text, (QStringList{
                       QStringLiteral("quarantine.toml:3:16: tests/t.py::test_a: witness_seed: "
                                      "must be an integer, got a string"),
                       QStringLiteral("quarantine.toml:4:10: tests/t.py::test_a: guards: must be "
                                      "an array of strings, got a string"),
                       QStringLiteral("quarantine.toml:5:11: tests/t.py::test_a: expires: must be "
                                      "a date (YYYY-MM-DD), got a time or date-time"),
                   }));
    QVERIFY(!l.entries.front().witnessSeed); // read as absent, not guessed

    const SeedJournal j = SeedJournal::parse(
        "{\"id\": \"j1\", \"seed\": \"4\", \"status\": 1, \"opened\": \"soon\"}\n",
        "seed_journal.jsonl");
    QCOMPARE(int(j.rows.front().info.problems.size()), 3);
    QCOMPARE(QString::fromStdString(j.rows.front().info.problems.front().toString()),
             QStringLiteral("seed_journal.jsonl:1: j1: seed: must be an integer or null, got a "
                            "string"));
}

void TstLedgerFormats::malformed_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("where"); // "file:line:column" the message starts with
    QTest::addColumn<QString>("message");

    QTest::newRow("toml: truncated string")
        << "quarantine.toml" << QByteArray("[[quarantine]]\ntest = \"tests/t.py::te")
        << "quarantine.toml:2:"
        << "";
    QTest::newRow("toml: truncated header")
        << "quarantine.toml" << QByteArray("[[quarantine]]\ntest = \"a\"\n[[quaran")
        << "quarantine.toml:3:"
        << "";
    QTest::newRow("toml: malformed header")
        << "census_waiver.toml" << QByteArray("[[waiver]\nnode = \"a\"\n")
        << "census_waiver.toml:1:"
        << "";
    QTest::newRow("toml: duplicate key")
        << "quarantine.toml" << QByteArray("[[quarantine]]\ntest = \"a\"\ntest = \"b\"\n")
        << "quarantine.toml:3:"
        << "";
    QTest::newRow("toml: invalid UTF-8")
        << "quarantine.toml" << QByteArray("[[quarantine]]\ntest = \"a\xff\xfe\"\n")
        << "quarantine.toml:2:"
        << "";
    QTest::newRow("toml: invalid UTF-8 in a comment")
        << "property_budget.toml" << QByteArray("max_examples = 1 # \xc3\x28\n")
        << "property_budget.toml:1:"
        << "";
    QTest::newRow("toml: quarantine is not an array of tables")
        << "quarantine.toml" << QByteArray("quarantine = 3\n") << "quarantine.toml:1:14"
        << "must be an array of tables ([[quarantine]]), got an integer";
    QTest::newRow("toml: an entry that is not a table")
        << "census_waiver.toml" << QByteArray("waiver = [1]\n") << "census_waiver.toml:1:"
        << "every `waiver` entry must be a table";
    QTest::newRow("jsonl: truncated row")
        << "seed_journal.jsonl"
        << QByteArray("{\"id\": \"j1\", \"seed\": 1}\n{\"id\": \"j2\", \"se")
        << "seed_journal.jsonl:2:"
        << "";
    QTest::newRow("jsonl: garbage row")
        << "seed_journal.jsonl" << QByteArray("\n\n  nonsense\n") << "seed_journal.jsonl:3:"
        << "syntax error";
    QTest::newRow("jsonl: row not an object")
        << "seed_journal.jsonl" << QByteArray("[1, 2]\n") << "seed_journal.jsonl:1:1"
        << "must be a JSON object, got an array";
    QTest::newRow("jsonl: invalid UTF-8")
        << "seed_journal.jsonl" << QByteArray("{\"id\": \"j\xff\"}\n") << "seed_journal.jsonl:1:"
        << "UTF-8";
    QTest::newRow("json: truncated object")
        << "fixture_digest.json" << QByteArray("{\n  \"a.json\": \"abc\"")
        << "fixture_digest.json:2:"
        << "";
    QTest::newRow("json: duplicate path")
        << "fixture_digest.json" << QByteArray("{\n  \"a\": \"x\",\n  \"a\": \"y\"\n}\n")
        << "fixture_digest.json:3:3"
        << "duplicate key \"a\"";
    // nlohmann throws out_of_range, not parse_error, for these (found by fuzzing).
    QTest::newRow("jsonl: number too large for a double")
        << "seed_journal.jsonl"
        << QByteArray("{\"id\": \"j1\"}\n{\"id\": \"j2\", \"seed\": 1e999}\n")
        << "seed_journal.jsonl:2:22"
        << "number overflow parsing '1e999'";
    QTest::newRow("json: number too large for a double")
        << "fixture_digest.json" << QByteArray("{\n  \"a\": -2e400\n}\n")
        << "fixture_digest.json:2:8"
        << "number overflow parsing '-2e400'";
    QTest::newRow("json: not an object")
        << "fixture_digest.json" << QByteArray("[\"a\"]") << "fixture_digest.json:1:1"
        << "must be an object";
}

void TstLedgerFormats::malformed()
{
    QFETCH(QString, file);
    QFETCH(QByteArray, text);
    QFETCH(QString, where);
    QFETCH(QString, message);
    LedgerSet set;
    set.add(file.toStdString(), text.toStdString(), file.toStdString());
    QCOMPARE(int(set.loadProblems.size()), 1);
    const LedgerProblem &p = set.loadProblems.front();
    const QString full = QString::fromStdString(p.toString());
    QVERIFY2(full.startsWith(where), qPrintable(full));
    QVERIFY2(full.contains(QRegularExpression(QStringLiteral("^[^:]+:\\d+:\\d+: \\S"))),
             qPrintable(full));
    QVERIFY2(full.contains(message), qPrintable(full));
    QCOMPARE(QString::fromStdString(p.rule), QStringLiteral("parse"));
    QVERIFY(p.line >= 1 && p.column >= 1);
}

void TstLedgerFormats::loadSetReportsEachBrokenFileAndKeepsTheOthers()
{
    const std::map<std::string, std::string> files = {
        {"quarantine.toml", "[[quarantine]\n"},
        {"census_waiver.toml", "[[waiver]]\nnode = \"a\"\n"},
        {"seed_journal.jsonl", "{\"id\": 1,\n"}};
    const LedgerSet set = LedgerSet::load(
        [&files](const std::string &name) -> std::optional<std::string> {
            const auto it = files.find(name);
            return it == files.end() ? std::nullopt : std::optional(it->second);
        },
        ".patchwitness/");
    QCOMPARE(int(set.loadProblems.size()), 2);
    QCOMPARE(QString::fromStdString(set.loadProblems[0].file),
             QStringLiteral(".patchwitness/quarantine.toml"));
    QCOMPARE(QString::fromStdString(set.loadProblems[1].file),
             QStringLiteral(".patchwitness/seed_journal.jsonl"));
    QVERIFY(!set.quarantine && !set.journal);
    QVERIFY(set.waivers && set.waivers->entries.size() == 1);
}

void TstLedgerFormats::appendKeepsTheFileAsPrefix()
{
    const std::string before = kQuarantine;
    const std::string after = QuarantineLedger::append(before, newFreeze());
    QVERIFY(after.starts_with(before));
    const QuarantineLedger l = QuarantineLedger::parse(after, "q");
    QCOMPARE(int(l.entries.size()), 3);
    QCOMPARE(*l.entries[2].obligation, std::string("multiplying by \"zero\" gives zero"));
    QCOMPARE(*l.entries[2].evidence->seeds, (std::vector<long long>{0, 1, 2}));
    QVERIFY(l.entries[2].info.problems.empty());
    // A file without a final newline, and an empty file.
    QVERIFY(QuarantineLedger::append("# x", newFreeze()).starts_with("# x\n\n[[quarantine]]\n"));
    QVERIFY(QuarantineLedger::append("", newFreeze()).starts_with("[[quarantine]]\n"));
}

void TstLedgerFormats::renewChangesOnlyItsValues()
{
    const std::string before = kQuarantine;
    const std::string after = QuarantineLedger::renew(
        before, "quarantine.toml", "tests/test_calc.py::test_add",
        {QDate(2024, 5, 13), QDate(2024, 5, 12), QDate(2024, 5, 27), "erin"});
    // Only `expires` changed in place; the new keys follow the entry's last key; the
    // comments, the unknown `ticket`, the multi-line array and the other entry are untouched.
    std::string expected = before;
    expected.replace(expected.find("expires = 2024-05-14"), 20, "expires = 2024-05-27");
    const std::string anchor = "ticket = \"CALC-12\"\n";
    expected.insert(expected.find(anchor) + anchor.size(),
                    "last_reproduced = 2024-05-12\nrenewed = 2024-05-13\nrenewed_by = \"erin\"\n");
    QCOMPARE(after, expected);
    // Renewing the renewed entry replaces its values where they are.
    const std::string again = QuarantineLedger::renew(
        after, "quarantine.toml", "tests/test_io.py::test_read",
        {QDate(2024, 5, 11), QDate(2024, 5, 10), QDate(2024, 5, 20), "erin"});
    QVERIFY(again.find("renewed = 2024-05-11\nlast_reproduced = 2024-05-10\n") !=
            std::string::npos);
    QVERIFY(again.starts_with(after.substr(0, after.find("# The second"))));
    try {
        QuarantineLedger::renew(before, "quarantine.toml", "tests/none.py::test_x", {});
        QFAIL("renewing a freeze that does not exist must fail");
    } catch (const Error &e) {
        QVERIFY(QString::fromUtf8(e.what()).contains(QLatin1String("no freeze for")));
    }
}

void TstLedgerFormats::journalCloseChangesOneLine()
{
    const std::string before = kJournal;
    const std::string after =
        SeedJournal::closeRow(before, "seed_journal.jsonl", "j1", "frank", QDate(2024, 5, 9));
    const QList<QByteArray> a = bytes(before).split('\n');
    const QList<QByteArray> b = bytes(after).split('\n');
    QCOMPARE(a.size(), b.size());
    QVERIFY(a[0] != b[0]);
    for (int i = 1; i < a.size(); ++i)
        QCOMPARE(b[i], a[i]); // other rows keep their own (compact) layout
    QCOMPARE(b[0],
             QByteArray("{\"id\": \"j1\", \"seed\": 4, \"env\": \"e1\", \"status\": \"closed\", "
                        "\"opened\": \"2024-05-01\", \"replays\": [{\"outcome\": \"pass\", "
                        "\"env\": \"e1\"}, {\"outcome\": \"pass\", \"env\": \"e1\"}], "
                        "\"runner\": \"ci\", \"closed_by\": \"frank\", \"closed_on\": "
                        "\"2024-05-09\"}"));
    // An integer id is found by its text; a closed row cannot be closed again.
    const std::string second =
        SeedJournal::closeRow(after, "seed_journal.jsonl", "2", "frank", QDate(2024, 5, 9));
    QVERIFY(second.find("\"closed_by\": \"frank\"", after.size() - 80) != std::string::npos);
    QVERIFY(
        throwsInputError([&] { SeedJournal::closeRow(after, "s", "j1", "x", QDate(2024, 5, 9)); }));
    QVERIFY(throwsInputError(
        [&] { SeedJournal::closeRow(after, "s", "nope", "x", QDate(2024, 5, 9)); }));
}

void TstLedgerFormats::digestAndBudgetEdits()
{
    const std::string canonical =
        FixtureDigestLedger::format({{"tests/fixtures/b.json", std::string(64, 'b')},
                                     {"tests/fixtures/a.json", std::string(64, 'a')}});
    // Setting a path to the digest it has is a no-op, byte for byte.
    QCOMPARE(
        FixtureDigestLedger::set(canonical, "d", "tests/fixtures/a.json", std::string(64, 'a')),
        canonical);
    const std::string noted = FixtureDigestLedger::set(
        canonical, "d", "tests/fixtures/b.json", std::string(64, 'c'), std::string("new data"));
    const FixtureDigestLedger d = FixtureDigestLedger::parse(noted, "d");
    QCOMPARE(*d.find("tests/fixtures/b.json")->note, std::string("new data"));
    QCOMPARE(*d.find("tests/fixtures/a.json")->sha256, std::string(64, 'a'));

    const std::string budget =
        "# property limits\nmax_examples = 100 # per test\ndeadline_ms = 200\n";
    const std::string edited =
        PropertyBudget::setValues(budget, "b", {{"max_examples", 500}, {"max_workers", 3}});
    QCOMPARE(edited, std::string("# property limits\nmax_examples = 500 # per test\n"
                                 "deadline_ms = 200\nmax_workers = 3\n"));
}

void TstLedgerFormats::crlfFilesStayCrlf()
{
    std::string crlf = kQuarantine;
    for (size_t i = crlf.find('\n'); i != std::string::npos; i = crlf.find('\n', i + 2))
        crlf.replace(i, 1, "\r\n");
    const std::string renewed = QuarantineLedger::renew(
        crlf, "q", "tests/test_calc.py::test_add",
        {QDate(2024, 5, 13), QDate(2024, 5, 12), QDate(2024, 5, 27), "erin"});
    const std::string appended = QuarantineLedger::append(renewed, newFreeze());
    for (const std::string &text : {renewed, appended}) {
        for (size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\n')
                QVERIFY2(i > 0 && text[i - 1] == '\r', "a bare LF in a CRLF file");
        }
    }
    QCOMPARE(int(QuarantineLedger::parse(appended, "q").entries.size()), 3);
}

void TstLedgerFormats::golden()
{
    checkGolden("quarantine_append.toml", QuarantineLedger::append(kQuarantine, newFreeze()));
    checkGolden("quarantine_renew.toml",
                QuarantineLedger::renew(
                    kQuarantine, "quarantine.toml", "tests/test_calc.py::test_add",
                    {QDate(2024, 5, 13), QDate(2024, 5, 12), QDate(2024, 5, 27), "erin"}));
    WaiverEntry w;
    w.node = "tests/test_calc.py::test_old";
    w.reason = "duplicate-coverage";
    w.witness = "tests/test_calc.py::test_mul";
    w.approvedBy = "bob";
    w.approvedOn = QDate(2024, 5, 2);
    w.note = "covered by the table-driven test";
    WaiverEntry env;
    env.node = "tests/test_net.py::test_proxy";
    env.reason = "environment";
    env.approvedBy = "carol";
    env.approvedOn = QDate(2024, 5, 3);
    checkGolden("census_waiver_append.toml",
                WaiverLedger::append("# Waivers\n\n" + WaiverLedger::format(w), env));
    checkGolden(
        "seed_journal_close.jsonl",
        SeedJournal::closeRow(kJournal, "seed_journal.jsonl", "j1", "frank", QDate(2024, 5, 9)));
    checkGolden("fixture_digest.json",
                FixtureDigestLedger::set(
                    FixtureDigestLedger::format({{"tests/fixtures/b.json", std::string(64, 'b')}}),
                    "d", "tests/fixtures/a.json", std::string(64, 'a'),
                    std::string("regenerated after the schema change")));
}

void TstLedgerFormats::tenMegabyteLedgers()
{
    // A quarantine ledger and a journal of at least 10 MB each load completely.
    constexpr size_t kTenMegabytes = 10u * 1024 * 1024;
    std::string toml, jsonl;
    int entries = 0;
    while (toml.size() < kTenMegabytes) {
        QuarantineEntry e = newFreeze();
        e.test = "tests/test_big_" + std::to_string(entries / 50) + ".py::test_" +
                 std::to_string(entries);
        toml += QuarantineLedger::format(e) + "\n";
        JournalRow r;
        r.id = "j" + std::to_string(entries);
        r.seed = entries;
        r.env = "ffff0000ffff0000";
        r.status = "open";
        r.opened = QDate(2024, 5, 1);
        r.replays = std::vector<JournalReplay>(
            20, JournalReplay{std::string("pass"), std::string("ffff0000ffff0000"), 0});
        if (jsonl.size() < kTenMegabytes)
            jsonl += SeedJournal::formatRow(r) + "\n";
        ++entries;
    }
    QElapsedTimer timer;
    timer.start();
    const QuarantineLedger q = QuarantineLedger::parse(toml, "quarantine.toml");
    const qint64 tomlMs = timer.restart();
    const SeedJournal j = SeedJournal::parse(jsonl, "seed_journal.jsonl");
    const qint64 jsonMs = timer.elapsed();
    QCOMPARE(int(q.entries.size()), entries);
    QVERIFY2(jsonl.size() >= kTenMegabytes && j.rows.size() > 5000,
             qPrintable(QStringLiteral("%1 bytes, %2 rows").arg(jsonl.size()).arg(j.rows.size())));
    QVERIFY(q.entries.back().info.problems.empty());
    qInfo("10 MB: %d freezes parsed in %lld ms, %zu journal rows in %lld ms", entries, tomlMs,
          j.rows.size(), jsonMs);
}

QTEST_GUILESS_MAIN(TstLedgerFormats)
#include "tst_ledgerformats.moc"
