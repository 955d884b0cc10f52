// Attribution records (`<ledger dir>/runs/*.json`): every field read with its type, errors
// as "origin: field: message" or "origin:line:column: message", parse(format()) round trip
// (unknown fields kept), the newest record for a test picked from runs/ (broken and
// foreign files skipped), a freeze filled only where it lacks a value, and runs/ listed file
// by file for the Ledgers panel (readRunRecords: what each holds, what keeps it from being read).
#include "ledger/EvidenceFiles.h"
#include "ledger/QuarantineLedger.h"
#include "ledger/RunEvidence.h"
#include "ledger/RunRecords.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDate>
#include <QTemporaryDir>
#include <QtTest>

using namespace pw::core;

namespace {

const char *kFull = R"({
  "schema": "patchwitness.attribution/1",
  "test": "tests/t.py::test_a",
  "verdict": "PRE_EXISTING",
  "mode": "matched",
  "base_fail": 3,
  "head_fail": 3,
  "runs": 5,
  "seeds": [
    0,
    1,
    2,
    3,
    4
  ],
  "witness_seed": 2,
  "env_digest": "0123456789abcdef",
  "baseline_sha": "0123456789abcdef0123456789abcdef01234567",
  "base": "main",
  "head": "WORKTREE",
  "attribution": "solo",
  "replay": "python -m pytest -p pw_plugin --seed 2 tests/t.py::test_a",
  "replay_exact": "cd /cache/trees/0123 && env -i PYTHONHASHSEED=2 python3 -m pytest",
  "recorded": "2026-11-30",
  "runner": {
    "host": "ci-7",
    "cores": 2
  }
}
)";

std::string record(const std::string &test, const std::string &recorded,
                   const std::string &extra = {})
{
    return R"({"schema": "patchwitness.attribution/1", "test": ")" + test +
           R"(", "verdict": "PRE_EXISTING", "recorded": ")" + recorded + "\"" + extra + "}\n";
}

std::optional<std::string> inputErrorOf(const std::string &text)
{
    try {
        AttributionRecord::parse(text, "runs/r.json");
    } catch (const Error &e) {
        if (e.kind() == Error::Kind::Input)
            return std::string(e.what());
        return "not an input error: " + std::string(e.what());
    }
    return std::nullopt;
}

} // namespace

class TstRunEvidence : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readsEveryField();
    void formatRoundTrip_data();
    void formatRoundTrip();
    void errors_data();
    void errors();
    void nullMeansNotRecorded();
    void latestFor();
    void latestForWithoutDirectory();
    void latestForPicksByFileName();
    void fileNamePart_data();
    void fileNamePart();
    void fillFreezeKeepsGivenValues();
    void fillFreezeWithoutEvidenceFields();
    void freezeRule_data();
    void freezeRule();
    void freezeRuleOnTypedValues();
    void freezeRuleWantsWhatTheRecordMeasured();
    void cellsEvidence();
    void readRunRecordsListsEveryFile();
    void readRunRecordsWithoutDirectory();
};

void TstRunEvidence::readsEveryField()
{
    const AttributionRecord r = AttributionRecord::parse(kFull, "runs/a.json");
    QCOMPARE(r.file, std::string("runs/a.json"));
    QCOMPARE(r.test, std::string("tests/t.py::test_a"));
    QCOMPARE(r.verdict.value_or(""), std::string("PRE_EXISTING"));
    QCOMPARE(r.mode.value_or(""), std::string("matched"));
    QCOMPARE(r.baseFail.value_or(-1), 3LL);
    QCOMPARE(r.headFail.value_or(-1), 3LL);
    QCOMPARE(r.runs.value_or(-1), 5LL);
    QCOMPARE(r.seeds.value_or(std::vector<long long>()), (std::vector<long long>{0, 1, 2, 3, 4}));
    QCOMPARE(r.witnessSeed.value_or(-1), 2LL);
    QCOMPARE(r.envDigest.value_or(""), std::string("0123456789abcdef"));
    QCOMPARE(r.baselineSha.value_or(""), std::string("0123456789abcdef0123456789abcdef01234567"));
    QCOMPARE(r.base.value_or(""), std::string("main"));
    QCOMPARE(r.head.value_or(""), std::string("WORKTREE"));
    QCOMPARE(r.attribution.value_or(""), std::string("solo"));
    QVERIFY(r.replay && r.replay->find("--seed 2") != std::string::npos);
    QCOMPARE(r.replayExact.value_or(""),
             std::string("cd /cache/trees/0123 && env -i PYTHONHASHSEED=2 python3 -m pytest"));
    QCOMPARE(r.recorded.value_or(""), std::string("2026-11-30"));
    QCOMPARE(r.unknownFields.size(), size_t(1));
    QCOMPARE(r.unknownFields[0].first, std::string("runner"));
}

void TstRunEvidence::formatRoundTrip_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("every field and an unknown one") << QString::fromUtf8(kFull);
    QTest::newRow("only the required fields")
        << QStringLiteral("{\n  \"schema\": \"patchwitness.attribution/1\",\n  \"test\": "
                          "\"tests/t.py::test_b\"\n}\n");
    QTest::newRow("a timestamp and non-ASCII text")
        << QStringLiteral("{\n  \"schema\": \"patchwitness.attribution/1\",\n  \"test\": "
                          "\"tests/t.py::test_ü[π]\",\n  \"verdict\": \"NO_REPRO\",\n  "
                          "\"recorded\": \"2026-11-30T08:15:00Z\"\n}\n");
}

void TstRunEvidence::formatRoundTrip()
{
    QFETCH(QString, text);
    const AttributionRecord r = AttributionRecord::parse(text.toStdString(), "runs/a.json");
    // The canonical layout is written back byte for byte...
    QCOMPARE(QString::fromStdString(r.format()), text);
    // ...and any record survives format → parse.
    const AttributionRecord again = AttributionRecord::parse(r.format(), "again");
    QCOMPARE(again.format(), r.format());
    QCOMPARE(again.seeds, r.seeds);
    QCOMPARE(again.unknownFields, r.unknownFields);
}

void TstRunEvidence::errors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message"); // the whole error starts with this

    const QString head = QStringLiteral("{\"schema\": \"patchwitness.attribution/1\", ");
    QTest::newRow("truncated") << head + QStringLiteral("\"test\": \n") << "runs/r.json:2:1: ";
    QTest::newRow("syntax error on line 3")
        << QStringLiteral("{\n  \"schema\": \"patchwitness.attribution/1\",\n  \"test\" \"x\"\n}")
        << "runs/r.json:3:12: ";
    QTest::newRow("duplicate key") << QStringLiteral("{\"test\": \"a\", \"test\": \"b\"}")
                                   << "runs/r.json:1:15: duplicate key \"test\"";
    QTest::newRow("not an object") << QStringLiteral("[1, 2]")
                                   << "runs/r.json:1:1: an attribution record must be a JSON "
                                      "object, got an array";
    QTest::newRow("missing schema")
        << QStringLiteral("{\"test\": \"t\"}") << "runs/r.json: schema: missing";
    QTest::newRow("another schema")
        << QStringLiteral("{\"schema\": \"patchwitness.matrix/1\", \"test\": \"t\"}")
        << "runs/r.json: schema: \"patchwitness.matrix/1\" is not patchwitness.attribution/1";
    QTest::newRow("schema of the wrong type") << QStringLiteral("{\"schema\": 1, \"test\": \"t\"}")
                                              << "runs/r.json: schema: must be a string, got an "
                                                 "integer";
    QTest::newRow("missing test") << head + QStringLiteral("\"verdict\": \"NO_REPRO\"}")
                                  << "runs/r.json: test: missing";
    QTest::newRow("test of the wrong type") << head + QStringLiteral("\"test\": [\"t\"]}")
                                            << "runs/r.json: test: must be a string, got an array";
    QTest::newRow("count as a string")
        << head + QStringLiteral("\"test\": \"t\", \"base_fail\": \"3\"}")
        << "runs/r.json: base_fail: must be a non-negative integer, got a string";
    QTest::newRow("negative count") << head + QStringLiteral("\"test\": \"t\", \"head_fail\": -1}")
                                    << "runs/r.json: head_fail: must not be negative, got -1";
    QTest::newRow("fractional runs")
        << head + QStringLiteral("\"test\": \"t\", \"runs\": 2.5}")
        << "runs/r.json: runs: must be a non-negative integer, got a number";
    QTest::newRow("seeds not an array")
        << head + QStringLiteral("\"test\": \"t\", \"seeds\": 3}")
        << "runs/r.json: seeds: must be an array of integers, got an integer";
    QTest::newRow("seeds with a string")
        << head + QStringLiteral("\"test\": \"t\", \"seeds\": [1, \"2\"]}")
        << "runs/r.json: seeds: must be an array of integers, has a string";
    QTest::newRow("witness seed as a boolean")
        << head + QStringLiteral("\"test\": \"t\", \"witness_seed\": true}")
        << "runs/r.json: witness_seed: must be an integer, got a boolean";
    QTest::newRow("verdict of the wrong type")
        << head + QStringLiteral("\"test\": \"t\", \"verdict\": {}}")
        << "runs/r.json: verdict: must be a string, got an object";
    QTest::newRow("recorded is not a date")
        << head + QStringLiteral("\"test\": \"t\", \"recorded\": \"yesterday\"}")
        << "runs/r.json: recorded: \"yesterday\" is not a date (YYYY-MM-DD)";
}

void TstRunEvidence::errors()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const std::optional<std::string> error = inputErrorOf(text.toStdString());
    QVERIFY2(error, "must be refused");
    QVERIFY2(QString::fromStdString(*error).startsWith(message), error->c_str());
}

void TstRunEvidence::nullMeansNotRecorded()
{
    const AttributionRecord r = AttributionRecord::parse(
        record("t", "2026-01-01", ", \"witness_seed\": null, \"seeds\": null"), "r");
    QVERIFY(!r.witnessSeed);
    QVERIFY(!r.seeds);
}

void TstRunEvidence::latestFor()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string runs = dir.filePath(QStringLiteral("runs")).toStdString();
    auto put = [&](const std::string &name, const std::string &text) {
        QVERIFY(writeFileAtomically(runs + "/" + name, text, true));
    };
    const std::string a = "tests/t.py::test_a";
    put("old.json", record(a, "2026-11-01"));
    put("newest.json", record(a, "2026-11-30", ", \"witness_seed\": 9"));
    put("z-tie-earlier.json", record(a, "2026-11-29"));
    put("other-test.json", record("tests/t.py::test_b", "2027-01-01"));
    put("broken.json", "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"" + a + "\",");
    put("matrix.json", "{\"impl\": \"head::t\", \"prop\": \"t\", \"replays\": 5}\n");
    put("future.jsonl", record(a, "2099-01-01")); // not a *.json file
    put("undated.json", "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"" + a + "\"}");

    std::optional<AttributionRecord> latest = AttributionRecord::latestFor(runs, a);
    QVERIFY(latest);
    QCOMPARE(latest->file, runs + "/newest.json");
    QCOMPARE(latest->witnessSeed.value_or(-1), 9LL);

    // Same day: the later file name wins.
    put("zz-same-day.json", record(a, "2026-11-30", ", \"witness_seed\": 10"));
    latest = AttributionRecord::latestFor(runs, a);
    QVERIFY(latest);
    QCOMPARE(latest->file, runs + "/zz-same-day.json");

    QCOMPARE(AttributionRecord::latestFor(runs, "tests/t.py::test_b")->file,
             runs + "/other-test.json");
    QVERIFY(!AttributionRecord::latestFor(runs, "tests/t.py::test_none"));
}

void TstRunEvidence::latestForWithoutDirectory()
{
    QTemporaryDir dir;
    QVERIFY(
        !AttributionRecord::latestFor(dir.filePath(QStringLiteral("missing")).toStdString(), "t"));
}

// 500 records of other tests around this test's own: the answer is still its newest (a
// broken newer record of its own does not hide it; the later name wins a day), and a file
// named for another test is never read, even when it holds a newer record of this test.
void TstRunEvidence::latestForPicksByFileName()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string runs = dir.filePath(QStringLiteral("runs")).toStdString();
    auto put = [&](const std::string &name, const std::string &text) {
        QVERIFY(writeFileAtomically(runs + "/" + name, text, true));
    };
    auto day = [](int n) { // 2026-01-01 + n days
        return QDate(2026, 1, 1).addDays(n).toString(Qt::ISODate).toStdString();
    };
    const std::string a = "tests/t.py::test_a";
    const std::string part = AttributionRecord::fileNamePart(a);
    QCOMPARE(part, std::string("tests_t.py_test_a"));
    for (int i = 0; i < 500; ++i) {
        const std::string other = "tests/t.py::test_a" + std::to_string(i); // same prefix
        put(day(i % 300) + "-" + AttributionRecord::fileNamePart(other) + "-matched.json",
            record(other, day(i % 300)));
    }
    // Misfiled under another test's name, and newer than any record of test_a: never read.
    put(day(299) + "-" + AttributionRecord::fileNamePart("tests/t.py::test_b") + "-matched.json",
        record(a, day(299), ", \"witness_seed\": 666"));
    // Another test's broken record.
    put(day(298) + "-" + AttributionRecord::fileNamePart("tests/t.py::test_c") + "-swept.json",
        "{\"schema\": ");

    put(day(10) + "-" + part + "-matched.json", record(a, day(10), ", \"witness_seed\": 1"));
    put(day(200) + "-" + part + "-matched.json", record(a, day(200), ", \"witness_seed\": 2"));
    put(day(200) + "-" + part + "-matched_02.json", record(a, day(200), ", \"witness_seed\": 3"));
    put(day(250) + "-" + part + "-swept.json", "{\"schema\": \"patchwitness.attribution/1\",");
    put("undated-" + part + "-matched.json",
        "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"" + a + "\"}");

    std::optional<AttributionRecord> latest = AttributionRecord::latestFor(runs, a);
    QVERIFY(latest);
    QCOMPARE(latest->file, runs + "/" + day(200) + "-" + part + "-matched_02.json");
    QCOMPARE(latest->witnessSeed.value_or(-1), 3LL);

    // A record of another test among the 500 is found as well.
    latest = AttributionRecord::latestFor(runs, "tests/t.py::test_a7");
    QVERIFY(latest);
    QCOMPARE(latest->test, std::string("tests/t.py::test_a7"));
    QCOMPARE(latest->recorded.value_or(""), day(7));

    // Only an undated record: it is the answer.
    QTemporaryDir undated;
    const std::string only = undated.path().toStdString();
    QVERIFY(writeFileAtomically(
        only + "/undated-" + part + "-matched.json",
        "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"" + a + "\"}", true));
    QVERIFY(writeFileAtomically(only + "/" + day(5) + "-" + part + "-swept.json", "{", true));
    latest = AttributionRecord::latestFor(only, a);
    QVERIFY(latest);
    QVERIFY(!latest->recorded);
}

void TstRunEvidence::fileNamePart_data()
{
    QTest::addColumn<QString>("test");
    QTest::addColumn<QString>("part");
    QTest::newRow("plain") << "tests/t.py::test_a"
                           << "tests_t.py_test_a";
    QTest::newRow("class and parameters") << "tests/t.py::TestX::test_y[1-a b]"
                                          << "tests_t.py_TestX_test_y_1-a_b";
    QTest::newRow("ends trimmed") << "_x.py::t[]"
                                  << "x.py_t";
}

void TstRunEvidence::fileNamePart()
{
    QFETCH(QString, test);
    QFETCH(QString, part);
    QCOMPARE(QString::fromStdString(AttributionRecord::fileNamePart(test.toStdString())), part);
    const std::string longId = "tests/" + std::string(100, 'x') + ".py::t";
    const std::string cut = AttributionRecord::fileNamePart(longId);
    QCOMPARE(cut.size(), size_t(80 + 1 + 8));
    QCOMPARE(cut.substr(81), sha256Hex(longId, 8));
}

void TstRunEvidence::fillFreezeKeepsGivenValues()
{
    const AttributionRecord r = AttributionRecord::parse(kFull, "runs/a.json");
    QuarantineEntry e;
    e.test = "tests/t.py::test_a";
    e.witnessSeed = 7;
    e.evidence.emplace();
    e.evidence->mode = "swept";
    r.fillFreeze(e);
    QCOMPARE(e.verdict.value_or(""), std::string("PRE_EXISTING"));
    QCOMPARE(e.attribution.value_or(""), std::string("solo"));
    QCOMPARE(e.witnessSeed.value_or(-1), 7LL); // given: kept
    QCOMPARE(e.baselineSha.value_or(""), *r.baselineSha);
    QCOMPARE(e.replay.value_or(""), *r.replay);
    QVERIFY(e.evidence);
    QCOMPARE(e.evidence->baseFail.value_or(-1), 3LL);
    QCOMPARE(e.evidence->headFail.value_or(-1), 3LL);
    QCOMPARE(e.evidence->mode.value_or(""), std::string("swept")); // given: kept
    QCOMPARE(e.evidence->seeds.value_or(std::vector<long long>()).size(), size_t(5));
    QCOMPARE(e.evidence->envDigest.value_or(""), std::string("0123456789abcdef"));
    QVERIFY(!e.owner && !e.obligation && !e.substitute && !e.guards && !e.expires);
}

void TstRunEvidence::fillFreezeWithoutEvidenceFields()
{
    const AttributionRecord r = AttributionRecord::parse(record("t", "2026-01-01"), "r");
    QuarantineEntry e;
    r.fillFreeze(e);
    QCOMPARE(e.verdict.value_or(""), std::string("PRE_EXISTING"));
    QVERIFY(!e.evidence); // nothing to put in it: not created empty
}

// The freeze rule's table (FreezeCase::judge), record by record: a refusal wins over
// everything, then what is missing says what to run first; only a PRE_EXISTING attribution
// with a cells verdict that names a cell (other than solo) allows a freeze.
void TstRunEvidence::freezeRule_data()
{
    QTest::addColumn<QString>("verdict");     // of the attribution record; "-": none
    QTest::addColumn<QString>("ownField");    // the attribution record's `attribution`
    QTest::addColumn<QString>("cells");       // the cells record's attribution; "-": none
    QTest::addColumn<QString>("newer");       // a newer attribution record's verdict; "-"
    QTest::addColumn<int>("stance");          // FreezeCase::Stance
    QTest::addColumn<QString>("reason");      // part of reason()
    QTest::addColumn<QString>("attribution"); // cellAttribution()
    using S = FreezeCase::Stance;
    const QString none = QStringLiteral("-");
    QTest::newRow("nothing recorded")
        << none << QString() << none << none << int(S::NeedsAttribution)
        << "no record backs a freeze of tests/t.py::test_a yet" << QString();
    QTest::newRow("PRE_EXISTING, no cells")
        << "PRE_EXISTING" << QString() << none << none << int(S::NeedsCells)
        << "no cells record of tests/t.py::test_a yet" << QString();
    QTest::newRow("PRE_EXISTING, cells order")
        << "PRE_EXISTING" << QString() << "order" << none << int(S::Allowed)
        << "PRE_EXISTING (runs/a.json), attribution order (runs/c.json)"
        << "order";
    for (const char *cell : {"isolate", "leakage", "clock"})
        QTest::newRow(qPrintable(QStringLiteral("PRE_EXISTING, cells ") + QLatin1String(cell)))
            << "PRE_EXISTING" << QString() << cell << none << int(S::Allowed) << "PRE_EXISTING"
            << cell;
    QTest::newRow("PRE_EXISTING, cells solo")
        << "PRE_EXISTING" << QString() << "solo" << none << int(S::Refused)
        << "the four cells say it is a broken test (runs/c.json: the sentence)" << QString("solo");
    QTest::newRow("no attribution record, cells solo")
        << none << QString() << "solo" << none << int(S::Refused) << "broken test"
        << "solo";
    QTest::newRow("PATCH_INDUCED, cells order")
        << "PATCH_INDUCED" << QString() << "order" << none << int(S::Refused)
        << "runs/a.json says PATCH_INDUCED: a freeze is allowed only for PRE_EXISTING"
        << "order";
    QTest::newRow("no verdict") << "" << QString() << "order" << none << int(S::Refused)
                                << "runs/a.json says no verdict"
                                << "order";
    QTest::newRow("a newer HARNESS_ENV record")
        << "PRE_EXISTING" << QString() << "order"
        << "HARNESS_ENV" << int(S::Refused)
        << "a newer attribution record of tests/t.py::test_a (runs/n.json, recorded 2026-12-02) "
           "says HARNESS_ENV"
        << "order";
    QTest::newRow("a newer PRE_EXISTING record")
        << "PRE_EXISTING" << QString() << "order"
        << "PRE_EXISTING" << int(S::Allowed) << "PRE_EXISTING"
        << "order";
    QTest::newRow("cells did not reproduce it")
        << "PRE_EXISTING" << QString() << "none" << none << int(S::NeedsCells)
        << "runs/c.json did not reproduce the failure" << QString();
    QTest::newRow("cells without evidence")
        << "PRE_EXISTING" << QString() << "unknown" << none << int(S::NeedsCells)
        << "runs/c.json names no attribution" << QString();
    // A hand-written record's own attribution stands in for the cells, unless a cells
    // record says otherwise.
    QTest::newRow("the record's own attribution, no cells")
        << "PRE_EXISTING"
        << "clock" << none << none << int(S::Allowed) << "attribution clock"
        << "clock";
    QTest::newRow("the record's own solo, no cells")
        << "PRE_EXISTING"
        << "solo" << none << none << int(S::Refused)
        << "names attribution solo: a test that fails alone is broken"
        << "solo";
    QTest::newRow("the cells over the record's own attribution")
        << "PRE_EXISTING"
        << "clock"
        << "isolate" << none << int(S::Allowed) << "attribution isolate"
        << "isolate";
    QTest::newRow("cells none over the record's own attribution")
        << "PRE_EXISTING"
        << "clock"
        << "none" << none << int(S::NeedsCells) << "did not reproduce" << QString();
}

void TstRunEvidence::freezeRule()
{
    QFETCH(QString, verdict);
    QFETCH(QString, ownField);
    QFETCH(QString, cells);
    QFETCH(QString, newer);
    QFETCH(int, stance);
    QFETCH(QString, reason);
    QFETCH(QString, attribution);
    const std::string test = "tests/t.py::test_a";
    std::optional<AttributionRecord> rec;
    if (verdict != QLatin1String("-")) {
        rec.emplace();
        rec->file = "/ledger/runs/a.json";
        rec->test = test;
        if (!verdict.isEmpty())
            rec->verdict = verdict.toStdString();
        if (!ownField.isEmpty())
            rec->attribution = ownField.toStdString();
        rec->recorded = "2026-12-01";
        // What a run measured: failures on both trees, the witness among the head's.
        rec->baseFail = 3;
        rec->headFail = 3;
        rec->seeds = std::vector<long long>{0, 1, 2, 3, 4};
        rec->headFailingSeeds = std::vector<long long>{2, 4};
        rec->witnessSeed = 2;
    }
    std::optional<CellsEvidence> c;
    if (cells != QLatin1String("-")) {
        c.emplace();
        c->file = "/ledger/runs/c.json";
        c->test = test;
        c->attribution = cells.toStdString();
        c->sentence = "the sentence";
    }
    std::optional<AttributionRecord> n;
    if (newer != QLatin1String("-")) {
        n.emplace();
        n->file = "/ledger/runs/n.json";
        n->test = test;
        n->verdict = newer.toStdString();
        n->recorded = "2026-12-02";
    }
    const FreezeCase fc = FreezeCase::judge(test, rec, c, n);
    QVERIFY2(fc.reason().find(reason.toStdString()) != std::string::npos, fc.reason().c_str());
    QCOMPARE(int(fc.stance()), stance);
    QCOMPARE(QString::fromStdString(fc.cellAttribution()), attribution);

    // What a freeze entry of it holds against it: a refusal names its field.
    QuarantineEntry e;
    e.test = test;
    fc.fill(e);
    const std::vector<LedgerProblem> problems = fc.problemsOf(e, "quarantine.toml");
    if (fc.refused()) {
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(problems.front().rule, std::string("evidence"));
        QCOMPARE(problems.front().field,
                 std::string(reason.contains(QLatin1String("broken")) ? "attribution" : "verdict"));
    } else if (fc.stance() == FreezeCase::Stance::NeedsAttribution) {
        // No record backs it: a freeze is refused whatever is typed.
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(problems.front().field, std::string("evidence"));
        QCOMPARE(problems.front().rule, std::string("evidence"));
    } else {
        QVERIFY(problems.empty());
    }
}

// Values a printed freeze command leaves for a person ("<…>") are refused as they are, as
// is an attribution of solo typed by hand; the validator's missing fields say what gives
// them.
void TstRunEvidence::freezeRuleOnTypedValues()
{
    const FreezeCase fc = FreezeCase::judge("tests/t.py::test_a", std::nullopt, std::nullopt);
    QuarantineEntry e;
    e.test = "tests/t.py::test_a";
    e.owner = "<who fixes the test>";
    e.guards = std::vector<std::string>{"src/a.py", " <files> "};
    e.attribution = "solo";
    e.obligation = "a < b holds, and c > d";
    const std::vector<LedgerProblem> problems = fc.problemsOf(e, "q.toml");
    QStringList fields;
    for (const LedgerProblem &p : problems)
        fields << QString::fromStdString(p.field + "/" + p.rule);
    QCOMPARE(
        fields,
        QStringList({QStringLiteral("evidence/evidence"), QStringLiteral("attribution/evidence"),
                     QStringLiteral("owner/placeholder"), QStringLiteral("guards/placeholder")}));
    QVERIFY(FreezeCase::isPlaceholder("<your name>"));
    QVERIFY(!FreezeCase::isPlaceholder("<>x"));
    QVERIFY(!FreezeCase::isPlaceholder("a <b>"));
    QVERIFY(!FreezeCase::isPlaceholder("<"));

    LedgerProblem missing;
    missing.field = "attribution";
    missing.rule = "missing-field";
    missing.message = "missing required field `attribution`";
    std::vector<LedgerProblem> checked{missing};
    fc.explain(checked);
    QVERIFY2(checked.front().message.find("(no record backs a freeze of tests/t.py::test_a yet") !=
                 std::string::npos,
             checked.front().message.c_str());
}

// PRE_EXISTING is not enough: the record must show the failure on both trees and a
// witness that failed at head; and a value typed by hand may not contradict it.
void TstRunEvidence::freezeRuleWantsWhatTheRecordMeasured()
{
    const std::string test = "tests/t.py::test_a";
    AttributionRecord r;
    r.file = "/ledger/runs/a.json";
    r.test = test;
    r.verdict = "PRE_EXISTING";
    r.attribution = "order";
    r.baseFail = 2;
    r.headFail = 3;
    r.seeds = std::vector<long long>{0, 1, 2};
    r.headFailingSeeds = std::vector<long long>{1, 2};
    r.witnessSeed = 1;
    r.envDigest = "0123456789abcdef";
    QVERIFY2(FreezeCase::judge(test, r, std::nullopt).allowed(),
             FreezeCase::judge(test, r, std::nullopt).reason().c_str());

    AttributionRecord noBase = r;
    noBase.baseFail = 0;
    FreezeCase c = FreezeCase::judge(test, noBase, std::nullopt);
    QVERIFY(c.refused());
    QVERIFY2(c.reason().find("records 0 base and 3 head failure(s)") != std::string::npos,
             c.reason().c_str());
    AttributionRecord uncounted = r;
    uncounted.headFail.reset();
    QVERIFY(FreezeCase::judge(test, uncounted, std::nullopt).refused());
    AttributionRecord noWitness = r;
    noWitness.witnessSeed.reset();
    c = FreezeCase::judge(test, noWitness, std::nullopt);
    QVERIFY(c.refused());
    QVERIFY2(c.reason().find("names no witness seed") != std::string::npos, c.reason().c_str());
    AttributionRecord passingWitness = r;
    passingWitness.witnessSeed = 0; // ran, but passed at head
    c = FreezeCase::judge(test, passingWitness, std::nullopt);
    QVERIFY(c.refused());
    QVERIFY2(c.reason().find("witness seed 0 is not among the seeds that failed at head") !=
                 std::string::npos,
             c.reason().c_str());
    AttributionRecord notRun = r;
    notRun.headFailingSeeds.reset(); // an older record: the seeds run decide
    notRun.witnessSeed = 7;
    QVERIFY(FreezeCase::judge(test, notRun, std::nullopt).refused());
    QVERIFY2(FreezeCase::judge(test, notRun, std::nullopt)
                     .reason()
                     .find("is not one of the seeds "
                           "that ran") != std::string::npos,
             FreezeCase::judge(test, notRun, std::nullopt).reason().c_str());

    // Only files of evidence/ are evidence paths; a ".." inside a name is a name.
    QVERIFY(EvidenceFiles::isEvidencePath("evidence/2026-12-01-tests_t.py_test_a-a..b.json"));
    for (const char *outside :
         {"evidence/../quarantine.toml", "evidence/", "runs/r.json", "/etc/passwd",
          "evidence/./r.json", "evidence\\r.json", "evidence/a/../../x.json"})
        QVERIFY2(!EvidenceFiles::isEvidencePath(outside), outside);

    // Filled from the record, nothing contradicts it; typed values that differ do.
    const FreezeCase allowed = FreezeCase::judge(test, r, std::nullopt);
    QuarantineEntry e;
    e.test = test;
    e.witnessSeed = 2;    // typed: the record says 1
    e.evidence.emplace(); // typed: 0 head failures, an invented digest
    e.evidence->headFail = 0;
    e.evidence->envDigest = "ffffffffffffffff";
    e.attribution = "clock"; // the record's own attribution says order
    allowed.fill(e);
    QStringList fields;
    for (const LedgerProblem &p : allowed.problemsOf(e, "q.toml"))
        fields << QString::fromStdString(p.field + "/" + p.rule);
    QCOMPARE(fields, QStringList({QStringLiteral("witness_seed/contradicts"),
                                  QStringLiteral("evidence.head_fail/contradicts"),
                                  QStringLiteral("evidence.env_digest/contradicts"),
                                  QStringLiteral("attribution/contradicts")}));
    QuarantineEntry filled;
    filled.test = test;
    allowed.fill(filled);
    QVERIFY(allowed.problemsOf(filled, "q.toml").empty());
    QCOMPARE(filled.evidence->envDigest, r.envDigest);
}

// Cells records read as the freeze rule reads them, and the newest one for a test found
// by the same rule as attribution records.
void TstRunEvidence::cellsEvidence()
{
    QTemporaryDir dir;
    const std::string runs = dir.path().toStdString();
    const auto cells = [](const std::string &test, const std::string &attribution,
                          const std::string &recorded) {
        return R"({"schema": "patchwitness.cells/1", "test": ")" + test +
               R"(", "arm": "head", "revision": "HEAD", "commit": null, "attribution": ")" +
               attribution + R"(", "sentence": "s", "interrupted": false, "recorded": ")" +
               recorded + "\"}\n";
    };
    const std::string a = "tests/t.py::test_a";
    QVERIFY(writeFileAtomically(runs + "/2026-12-01-tests_t.py_test_a-cells.json",
                                cells(a, "solo", "2026-12-01"), true));
    QVERIFY(writeFileAtomically(runs + "/2026-12-02-tests_t.py_test_a-cells.json",
                                cells(a, "order", "2026-12-02"), true));
    QVERIFY(writeFileAtomically(
        runs + "/2026-12-03-tests_t.py_test_a-matched.json",
        record(a, "2026-12-03", R"(, "base_fail": 3, "head_fail": 2, "witness_seed": 1)"), true));
    QVERIFY(writeFileAtomically(runs + "/2026-12-04-tests_t.py_test_b-cells.json",
                                cells("tests/t.py::test_b", "clock", "2026-12-04"), true));
    const std::optional<CellsEvidence> latest = CellsEvidence::latestFor(runs, a);
    QVERIFY(latest.has_value());
    QCOMPARE(latest->attribution, std::string("order"));
    QCOMPARE(latest->arm, std::string("head"));
    QCOMPARE(latest->commit, std::string());
    QCOMPARE(latest->recorded.value_or(""), std::string("2026-12-02"));
    QVERIFY(!CellsEvidence::latestFor(runs, "tests/t.py::test_c"));

    const FreezeCase fc = FreezeCase::gather(runs, a);
    QVERIFY2(fc.allowed(), fc.reason().c_str());
    QCOMPARE(fc.cellAttribution(), std::string("order"));
    // A record the patch brings is ignored: the older cells record (solo) is not read in
    // its place either — the newest is dropped, not replaced.
    const FreezeCase ignored =
        FreezeCase::gather(runs, a, std::nullopt, std::nullopt, [](const std::string &file) {
            return file.find("2026-12-02") != std::string::npos;
        });
    QCOMPARE(int(ignored.stance()), int(FreezeCase::Stance::NeedsCells));

    for (const auto &[text, message] : std::vector<std::pair<std::string, std::string>>{
             {R"({"schema": "patchwitness.attribution/1", "test": "t"})", "schema: "},
             {R"({"schema": "patchwitness.cells/1"})", "test: missing"},
             {R"({"schema": "patchwitness.cells/1", "test": "t", "interrupted": 1})",
              "interrupted: must be true or false"},
             {R"({"schema": "patchwitness.cells/1", "test": "t", "recorded": "soon"})",
              "recorded: \"soon\" is not a date"}}) {
        try {
            CellsEvidence::parse(text, "runs/c.json");
            QFAIL(text.c_str());
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("runs/c.json: " + message) != std::string::npos,
                     e.what());
        }
    }
}

// Every *.json / *.jsonl file of runs/, by name: attribution records read as `freeze` reads
// them, cells records and shard ledgers by their top-level fields, JSON Lines counted; a
// file that does not parse, names no test or carries another schema is a problem of its
// own row, never a thrown error; other files are not listed.
void TstRunEvidence::readRunRecordsListsEveryFile()
{
    QTemporaryDir dir;
    const std::string runs = dir.path().toStdString();
    auto put = [&](const std::string &name, const std::string &text) {
        QVERIFY(writeFileAtomically(runs + "/" + name, text));
    };
    put("2026-11-30-tests_t.py_test_a-matched.json", kFull);
    put("2026-11-30-tests_t.py_test_a-cells.json",
        R"({"schema": "patchwitness.cells/1", "test": "tests/t.py::test_a", "arm": "head",)"
        R"( "attribution": "order", "recorded": "2026-11-30"})");
    put("shard-2.json", R"({"schema": "patchwitness.shard/1", "kind": "attribution",)"
                        R"( "parameters": {"test": "tests/t.py::test_b"},)"
                        R"( "shard": {"index": 2, "count": 3}})");
    put("broken.json", "{\"schema\": \"patchwitness.attribution/1\",\n  \"test\": }\n");
    put("no-test.json", R"({"schema": "patchwitness.attribution/1", "verdict": "NO_REPRO"})");
    put("foreign.json", R"({"hello": 1})");
    put("bad-day.json", R"({"schema": "patchwitness.cells/1", "test": "tests/t.py::test_c",)"
                        R"( "recorded": "yesterday"})");
    put("trials.jsonl", "{\"test\": \"tests/t.py::test_d\"}\n\n{\"test\": \"x\"}\nnot json\n");
    put("notes.txt", "not a record");
    put("shard-bad.json", R"({"schema": "patchwitness.shard/1", "parameters": {"test": "t.py::x"},)"
                          R"( "shard": {"index": 1e300, "count": 3}})");
    put("huge.json", std::string(9 * 1024 * 1024, ' '));

    const std::vector<RunRecordFile> files = readRunRecords(runs, ".patchwitness/runs/");
    std::vector<std::string> names;
    for (const RunRecordFile &f : files)
        names.push_back(f.name());
    QCOMPARE(names,
             (std::vector<std::string>{"2026-11-30-tests_t.py_test_a-cells.json",
                                       "2026-11-30-tests_t.py_test_a-matched.json", "bad-day.json",
                                       "broken.json", "foreign.json", "huge.json", "no-test.json",
                                       "shard-2.json", "shard-bad.json", "trials.jsonl"}));
    auto at = [&](const std::string &name) -> const RunRecordFile & {
        return *std::find_if(files.begin(), files.end(),
                             [&](const RunRecordFile &f) { return f.name() == name; });
    };

    const RunRecordFile &matched = at("2026-11-30-tests_t.py_test_a-matched.json");
    QCOMPARE(matched.file,
             std::string(".patchwitness/runs/2026-11-30-tests_t.py_test_a-matched.json"));
    QCOMPARE(matched.kind, std::string("attribution"));
    QCOMPARE(matched.test, std::string("tests/t.py::test_a"));
    QCOMPARE(matched.result, std::string("PRE_EXISTING · matched · base 3/5, head 3/5 · solo"));
    QCOMPARE(matched.recorded, std::string("2026-11-30"));
    QVERIFY(matched.problems.empty());

    const RunRecordFile &cells = at("2026-11-30-tests_t.py_test_a-cells.json");
    QCOMPARE(cells.kind, std::string("cells"));
    QCOMPARE(cells.result, std::string("order · at head"));
    QVERIFY(cells.problems.empty());

    const RunRecordFile &shard = at("shard-2.json");
    QCOMPARE(shard.kind, std::string("shard"));
    QCOMPARE(shard.test, std::string("tests/t.py::test_b"));
    QCOMPARE(shard.result, std::string("shard 2/3 of attribution"));
    QVERIFY(shard.problems.empty());

    const RunRecordFile &broken = at("broken.json");
    QCOMPARE(broken.problems.size(), size_t(1));
    QCOMPARE(broken.problems.front().rule, std::string("parse"));
    QCOMPARE(broken.problems.front().line, 2);
    QVERIFY(broken.problems.front().column > 0);
    QCOMPARE(broken.problems.front().file, std::string(".patchwitness/runs/broken.json"));

    const RunRecordFile &noTest = at("no-test.json");
    QCOMPARE(noTest.kind, std::string("attribution"));
    QCOMPARE(noTest.problems.size(), size_t(1));
    QCOMPARE(noTest.problems.front().rule, std::string("field"));
    QCOMPARE(noTest.problems.front().field, std::string("test"));

    const RunRecordFile &foreign = at("foreign.json");
    QCOMPARE(foreign.kind, std::string("other"));
    QCOMPARE(foreign.problems.size(), size_t(1));
    QCOMPARE(foreign.problems.front().field, std::string("schema"));

    const RunRecordFile &badDay = at("bad-day.json");
    QCOMPARE(badDay.problems.size(), size_t(1));
    QCOMPARE(badDay.problems.front().field, std::string("recorded"));
    QCOMPARE(badDay.problems.front().entry, std::string("tests/t.py::test_c"));

    const RunRecordFile &badShard = at("shard-bad.json");
    QCOMPARE(badShard.result, std::string("shard")); // no "1e300/3"
    QCOMPARE(badShard.problems.size(), size_t(1));
    QCOMPARE(badShard.problems.front().field, std::string("shard"));

    const RunRecordFile &huge = at("huge.json"); // named, not read
    QCOMPARE(huge.problems.size(), size_t(1));
    QVERIFY2(huge.problems.front().message.find("too large to be a run record (9 MB)") == 0,
             huge.problems.front().message.c_str());

    const RunRecordFile &rows = at("trials.jsonl");
    QCOMPARE(rows.kind, std::string("rows"));
    QCOMPARE(rows.test, std::string("tests/t.py::test_d"));
    QCOMPARE(rows.result, std::string("2 rows"));
    QCOMPARE(rows.problems.size(), size_t(1));
    QCOMPARE(rows.problems.front().line, 4);
}

void TstRunEvidence::readRunRecordsWithoutDirectory()
{
    QTemporaryDir dir;
    QVERIFY(readRunRecords(dir.filePath(QStringLiteral("runs")).toStdString(), "runs/").empty());
}

QTEST_GUILESS_MAIN(TstRunEvidence)
#include "tst_runevidence.moc"
