// The ledger commands of patchwitness-cli through QProcess: `ledger check` and
// `ledger history`, and the human actions `waive`, `freeze`, `renew`, `journal close` —
// --by required, entries that would not validate refused with the reason and a non-zero
// exit, the ledger file left byte-identical when refused.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "util/Files.h"

#include <QtTest>
#include <filesystem>
#include <nlohmann/json.hpp>

using pw::test::RepoBuilder;

namespace {

struct Result
{
    int exitCode = -1;
    QString out;
    QString err;
};

// What freezeArgs("tests/test_x.py::test_a") types, as a run would have recorded it.
const char *kHandRecord =
    "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"tests/test_x.py::test_a\", "
    "\"verdict\": \"PRE_EXISTING\", \"mode\": \"matched\", \"base_fail\": 3, \"head_fail\": 3, "
    "\"runs\": 2, \"seeds\": [7, 8], \"head_failing_seeds\": [7, 8], \"witness_seed\": 7, "
    "\"env_digest\": \"abcd1234abcd1234\", \"baseline_sha\": \"0123abcd\", "
    "\"attribution\": \"order\", \"recorded\": \"2024-01-01\"}\n";
const char *kTests = "def test_a():\n    assert 1 == 1\n\n\ndef test_b():\n    assert 2 == 2\n";
const QString kToday = QStringLiteral("2024-05-10");

QStringList freezeArgs(const QString &test)
{
    return {QStringLiteral("freeze"),         test,
            QStringLiteral("--owner"),        QStringLiteral("bob"),
            QStringLiteral("--expires"),      QStringLiteral("2024-05-20"),
            QStringLiteral("--attribution"),  QStringLiteral("order"),
            QStringLiteral("--witness-seed"), QStringLiteral("7"),
            QStringLiteral("--baseline-sha"), QStringLiteral("0123abcd"),
            QStringLiteral("--base-fail"),    QStringLiteral("3"),
            QStringLiteral("--head-fail"),    QStringLiteral("3"),
            QStringLiteral("--mode"),         QStringLiteral("matched"),
            QStringLiteral("--seeds"),        QStringLiteral("7,8"),
            QStringLiteral("--env-digest"),   QStringLiteral("abcd1234abcd1234"),
            QStringLiteral("--obligation"),   QStringLiteral("a stays one"),
            QStringLiteral("--substitute"),   QStringLiteral("tests/test_x.py::test_b"),
            QStringLiteral("--guards"),       QStringLiteral("src/a.py,src/b.py"),
            QStringLiteral("--replay"),       QStringLiteral("pytest tests/test_x.py::test_a"),
            QStringLiteral("--by"),           QStringLiteral("carol")};
}

QStringList without(QStringList args, const QString &option)
{
    const int at = args.indexOf(option);
    if (at >= 0)
        args.erase(args.begin() + at, args.begin() + at + 2);
    return args;
}

// freezeArgs without the fields an attribution record provides.
QStringList freezeArgsWithoutEvidence(const QString &test)
{
    QStringList args = freezeArgs(test);
    for (const char *o : {"--attribution", "--witness-seed", "--baseline-sha", "--base-fail",
                          "--head-fail", "--mode", "--seeds", "--env-digest", "--replay"})
        args = without(args, QLatin1String(o));
    return args;
}

// A runs/*.json attribution record. Its `attribution` (order) stands in for the
// four cells' verdict: no cells record is needed beside it.
std::string attributionRecord(const std::string &test, const std::string &recorded,
                              int witnessSeed = 2)
{
    return "{\n  \"schema\": \"patchwitness.attribution/1\",\n  \"test\": \"" + test +
           "\",\n  \"verdict\": \"PRE_EXISTING\",\n  \"mode\": \"matched\",\n"
           "  \"base_fail\": 4,\n  \"head_fail\": 5,\n  \"runs\": 5,\n"
           "  \"seeds\": [0, 1, 2, 3, 4],\n  \"witness_seed\": " +
           std::to_string(witnessSeed) +
           ",\n  \"env_digest\": \"0123456789abcdef\",\n"
           "  \"baseline_sha\": \"89abcdef0123456789abcdef0123456789abcdef\",\n"
           "  \"base\": \"main\",\n  \"head\": \"WORKTREE\",\n  \"attribution\": \"order\",\n"
           "  \"replay\": \"python -m pytest -p pw_plugin --seed " +
           std::to_string(witnessSeed) + " " + test + "\",\n  \"recorded\": \"" + recorded +
           "\"\n}\n";
}

// A runs/*.json cells record as the engine writes one, reduced to the fields
// the freeze rule reads.
std::string cellsRecord(const std::string &test, const std::string &attribution,
                        const std::string &sentence, const std::string &recorded)
{
    return "{\n  \"schema\": \"patchwitness.cells/1\",\n  \"test\": \"" + test +
           "\",\n  \"arm\": \"head\",\n  \"revision\": \"HEAD\",\n  \"commit\": null,\n"
           "  \"cells\": [],\n  \"attribution\": \"" +
           attribution + "\",\n  \"sentence\": \"" + sentence +
           "\",\n  \"findings\": [],\n  \"interrupted\": false,\n  \"recorded\": \"" + recorded +
           "\"\n}\n";
}

QStringList with(QStringList args, const QString &option, const QString &value)
{
    const int at = args.indexOf(option);
    if (at >= 0)
        args[at + 1] = value;
    else
        args << option << value;
    return args;
}

} // namespace

class TstLedgerCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void waiveAppendsAValidEntry();
    void freezeAndRenew();
    void freezeFromRunFillsEvidence();
    void freezeTakesTheAttributionFromTheCells();
    void freezePicksTheLatestRecord();
    void evidenceFilesAreChecked();
    void freezeFromAMatrixRecord();
    void attachBacksAnOldFreeze();
    void freezeFromRunRefusals_data();
    void freezeFromRunRefusals();
    void refusals_data();
    void refusals();
    void journalClose();
    void checkExitCodes_data();
    void checkExitCodes();
    void checkJson();
    void checkWithBaseFindsGuardEdits();
    void history();
    void configLimitsApply();
    void aBareRepositoryHasNoLedgerDirectoryOnDisk();
    void waiveWithBaseNeedsANodeTheBaseHad();

private:
    Result cli(QStringList args, bool common = true, const QString &cwd = {});
    QString ledger(const char *name) const
    {
        return QString::fromStdString(m_repo->root()) + QStringLiteral("/.patchwitness/") +
               QLatin1String(name);
    }
    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
};

void TstLedgerCli::init()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_repo->write("tests/test_x.py", kTests);
    m_repo->write("src/a.py", "a = 1\n");
    m_repo->write("src/b.py", "b = 1\n"); // freezeArgs guards both
    m_repo->commit("base");
    m_cache = std::make_unique<QTemporaryDir>();
    // The record behind freezeArgs(test_a): a freeze needs one, and what it says is what
    // freezeArgs types. Recorded long ago, so that every record a test writes is newer.
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/hand-test_a.json").toStdString(),
                                          kHandRecord, true));
}

Result TstLedgerCli::cli(QStringList args, bool common, const QString &cwd)
{
    if (common) {
        args << QStringLiteral("--repo") << QString::fromStdString(m_repo->root())
             << QStringLiteral("--python") << QString::fromStdString(pw::test::testPython())
             << QStringLiteral("--cache-dir") << m_cache->path();
        if (!args.contains(QStringLiteral("--today")))
            args << QStringLiteral("--today") << kToday;
    }
    QProcess p;
    if (!cwd.isEmpty())
        p.setWorkingDirectory(cwd);
    p.start(QStringLiteral(PW_CLI_PATH), args);
    if (!p.waitForFinished(120000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

void TstLedgerCli::waiveAppendsAValidEntry()
{
    const Result r = cli({QStringLiteral("waive"), QStringLiteral("tests/test_x.py::test_gone"),
                          QStringLiteral("--reason"), QStringLiteral("obsolete-behavior"),
                          QStringLiteral("--witness"), QStringLiteral("tests/test_x.py::test_b"),
                          QStringLiteral("--by"), QStringLiteral("alice")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::string expected =
        "[[waiver]]\nnode = \"tests/test_x.py::test_gone\"\n"
        "reason = \"obsolete-behavior\"\nwitness = \"tests/test_x.py::test_b\"\n"
        "approved_by = \"alice\"\napproved_on = 2024-05-10\n";
    QCOMPARE(pw::core::readWholeFile(ledger("census_waiver.toml").toStdString()).value_or(""),
             expected);
    QVERIFY(r.out.contains(QString::fromStdString(expected)));
    const Result check = cli({QStringLiteral("ledger"), QStringLiteral("check")});
    QCOMPARE(check.exitCode, 0);
    QVERIFY2(check.out.contains(QLatin1String("ledger check: OK (0 freeze(s), 1 waiver(s)")),
             qPrintable(check.out));
}

void TstLedgerCli::freezeAndRenew()
{
    Result r = cli(freezeArgs(QStringLiteral("tests/test_x.py::test_a")));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::string text =
        pw::core::readWholeFile(ledger("quarantine.toml").toStdString()).value_or("");
    QVERIFY(text.find("opened = 2024-05-10\nexpires = 2024-05-20\nverdict = \"PRE_EXISTING\"") !=
            std::string::npos);
    QVERIFY2(text.find("evidence = { base_fail = 3, head_fail = 3, mode = \"matched\", seeds = [7, "
                       "8], env_digest = \"abcd1234abcd1234\", record = "
                       "\"evidence/hand-test_a.json\", record_sha256 = \"" +
                       pw::core::sha256Hex(kHandRecord) + "\" }") != std::string::npos,
             text.c_str());
    // The record is copied into the tracked evidence/, byte for byte.
    QCOMPARE(pw::core::readWholeFile(ledger("evidence/hand-test_a.json").toStdString()),
             std::optional<std::string>(kHandRecord));
    QVERIFY2(r.out.contains(QLatin1String("evidence evidence/hand-test_a.json (sha256 ")),
             qPrintable(r.out));
    QVERIFY(text.find("guards = [\"src/a.py\", \"src/b.py\"]") != std::string::npos);
    QVERIFY(text.find("granted_by = \"carol\"") != std::string::npos);

    r = cli({QStringLiteral("renew"), QStringLiteral("tests/test_x.py::test_a"),
             QStringLiteral("--last-reproduced"), QStringLiteral("2024-05-15"),
             QStringLiteral("--expires"), QStringLiteral("2024-05-30"), QStringLiteral("--by"),
             QStringLiteral("dave"), QStringLiteral("--today"), QStringLiteral("2024-05-16")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(
        QLatin1String("renewed freeze for tests/test_x.py::test_a until 2024-05-30")));
    const std::string renewed =
        pw::core::readWholeFile(ledger("quarantine.toml").toStdString()).value_or("");
    QVERIFY(renewed.find("expires = 2024-05-30\n") != std::string::npos);
    QVERIFY(renewed.find(
                "last_reproduced = 2024-05-15\nrenewed = 2024-05-16\nrenewed_by = \"dave\"\n") !=
            std::string::npos);
    QCOMPARE(cli({QStringLiteral("ledger"), QStringLiteral("check"), QStringLiteral("--today"),
                  QStringLiteral("2024-05-20")})
                 .exitCode,
             0);
}

void TstLedgerCli::freezeFromRunFillsEvidence()
{
    const std::string test = "tests/test_x.py::test_a";
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/attr-1.json").toStdString(),
                                          attributionRecord(test, "2024-05-09"), true));
    const Result r = cli(freezeArgsWithoutEvidence(QString::fromStdString(test))
                         << QStringLiteral("--from-run") << QStringLiteral("runs/attr-1.json"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith(QLatin1String("evidence from runs/attr-1.json\n")),
             qPrintable(r.out));
    const std::string text =
        pw::core::readWholeFile(ledger("quarantine.toml").toStdString()).value_or("");
    for (const char *expected :
         {"verdict = \"PRE_EXISTING\"\nattribution = \"order\"\nwitness_seed = 2\n"
          "baseline_sha = \"89abcdef0123456789abcdef0123456789abcdef\"\n",
          "evidence = { base_fail = 4, head_fail = 5, mode = \"matched\", seeds = [0, 1, 2, 3, 4], "
          "env_digest = \"0123456789abcdef\", record = \"evidence/attr-1.json\", record_sha256 = ",
          "replay = \"python -m pytest -p pw_plugin --seed 2 tests/test_x.py::test_a\"\n"})
        QVERIFY2(text.find(expected) != std::string::npos, text.c_str());
    const Result check = cli({QStringLiteral("ledger"), QStringLiteral("check")});
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
}

// The freeze's attribution is the four cells' verdict: the newest cells record's, over the
// attribution record's own field; the output names both records.
void TstLedgerCli::freezeTakesTheAttributionFromTheCells()
{
    const std::string test = "tests/test_x.py::test_a";
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/attr-1.json").toStdString(),
                                          attributionRecord(test, "2024-05-09"), true));
    QVERIFY(pw::core::writeFileAtomically(
        ledger("runs/2024-05-08-tests_test_x.py_test_a-cells.json").toStdString(),
        cellsRecord(test, "clock", "time dependence", "2024-05-08"), true));
    QVERIFY(pw::core::writeFileAtomically(
        ledger("runs/2024-05-09-tests_test_x.py_test_a-cells.json").toStdString(),
        cellsRecord(test, "isolate", "process state", "2024-05-09"), true));
    const Result r = cli(freezeArgsWithoutEvidence(QString::fromStdString(test))
                         << QStringLiteral("--from-run") << QStringLiteral("runs/attr-1.json"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QLatin1String(
                 "cells from runs/2024-05-09-tests_test_x.py_test_a-cells.json (isolate)\n")),
             qPrintable(r.out));
    const std::string text =
        pw::core::readWholeFile(ledger("quarantine.toml").toStdString()).value_or("");
    QVERIFY2(text.find("attribution = \"isolate\"\n") != std::string::npos, text.c_str());
}

void TstLedgerCli::freezePicksTheLatestRecord()
{
    const std::string test = "tests/test_x.py::test_a";
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/a-newer.json").toStdString(),
                                          attributionRecord(test, "2024-05-09", 3), true));
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/b-older.json").toStdString(),
                                          attributionRecord(test, "2024-05-01", 4), true));
    QVERIFY(pw::core::writeFileAtomically(
        ledger("runs/c-other.json").toStdString(),
        attributionRecord("tests/test_x.py::test_b", "2024-05-10", 5), true));
    QVERIFY(
        pw::core::writeFileAtomically(ledger("runs/d-broken.json").toStdString(), "{\"sch", true));
    // A value typed by hand may not contradict the record ...
    const Result contradicting = cli(freezeArgsWithoutEvidence(QString::fromStdString(test))
                                     << QStringLiteral("--mode") << QStringLiteral("swept"));
    QCOMPARE(contradicting.exitCode, 3);
    QVERIFY2(contradicting.err.contains(QLatin1String(
                 "evidence.mode: \"swept\" contradicts runs/a-newer.json, which says \"matched\"")),
             qPrintable(contradicting.err));
    // ... but may say what the record does not: how to reproduce it here.
    const Result r = cli(freezeArgsWithoutEvidence(QString::fromStdString(test))
                         << QStringLiteral("--replay") << QStringLiteral("make repro"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QLatin1String("evidence from runs/a-newer.json\n")), qPrintable(r.out));
    const std::string text =
        pw::core::readWholeFile(ledger("quarantine.toml").toStdString()).value_or("");
    QVERIFY2(text.find("witness_seed = 3\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("mode = \"matched\"") != std::string::npos, text.c_str());
    QVERIFY2(text.find("replay = \"make repro\"\n") != std::string::npos, text.c_str());

    // Without a record for the test nothing is filled in (and nothing is said).
    const Result none = cli(freezeArgsWithoutEvidence(QStringLiteral("tests/test_x.py::test_q")));
    QCOMPARE(none.exitCode, 3);
    QVERIFY(!none.out.contains(QLatin1String("evidence from")));
    QVERIFY2(none.err.contains(QLatin1String("missing required field `attribution`")),
             qPrintable(none.err));
}

// `ledger check` reads the evidence a freeze points to: gone, edited after the fact, or
// not PRE_EXISTING for its test, the freeze no longer holds.
void TstLedgerCli::evidenceFilesAreChecked()
{
    QVERIFY(cli(freezeArgs(QStringLiteral("tests/test_x.py::test_a"))).exitCode == 0);
    const auto check = [this] { return cli({QStringLiteral("ledger"), QStringLiteral("check")}); };
    Result r = check();
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(!r.out.contains(QLatin1String("no evidence file")), qPrintable(r.out));
    const std::string copy = ledger("evidence/hand-test_a.json").toStdString();

    // Edited after the fact: the counts "improved" by hand.
    std::string edited = kHandRecord;
    edited.replace(edited.find("\"base_fail\": 3"), 14, "\"base_fail\": 5");
    QVERIFY(pw::core::writeFileAtomically(copy, edited));
    r = check();
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(QLatin1String("evidence.record: evidence/hand-test_a.json was altered "
                                          "after the freeze: its sha256 is ")) &&
                 r.out.contains(QLatin1String("[evidence-file]")),
             qPrintable(r.out));

    // Gone.
    std::filesystem::remove(copy);
    r = check();
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(QLatin1String("evidence/hand-test_a.json is missing")),
             qPrintable(r.out));

    // Another verdict, pinned by hand with its own sha256: still no freeze.
    std::string other = kHandRecord;
    other.replace(other.find("PRE_EXISTING"), 12, "PATCH_INDUCED");
    QVERIFY(pw::core::writeFileAtomically(copy, other));
    const std::string path = ledger("quarantine.toml").toStdString();
    std::string text = pw::core::readWholeFile(path).value_or("");
    const std::string pinned = pw::core::sha256Hex(kHandRecord);
    text.replace(text.find(pinned), pinned.size(), pw::core::sha256Hex(other));
    QVERIFY(pw::core::writeFileAtomically(path, text));
    r = check();
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(QLatin1String("no freeze: evidence/hand-test_a.json says "
                                          "PATCH_INDUCED: a freeze is allowed only for "
                                          "PRE_EXISTING")),
             qPrintable(r.out));

    // A cells record that says broken test behind the freeze: never.
    QVERIFY(pw::core::writeFileAtomically(copy, kHandRecord));
    const std::string cells =
        cellsRecord("tests/test_x.py::test_a", "solo", "broken test", "2024-05-09");
    QVERIFY(pw::core::writeFileAtomically(ledger("evidence/cells.json").toStdString(), cells));
    text.replace(text.find(pw::core::sha256Hex(other)), 64, pinned);
    text.replace(text.find(" }\nobligation"), 3,
                 ", cells = \"evidence/cells.json\", cells_sha256 = \"" +
                     pw::core::sha256Hex(cells) + "\" }\n");
    QVERIFY(pw::core::writeFileAtomically(path, text));
    r = check();
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(QLatin1String("the four cells say it is a broken test")),
             qPrintable(r.out));

    // A cells pin alone backs nothing: the record the freeze rests on is pinned too.
    const std::string record =
        "record = \"evidence/hand-test_a.json\", record_sha256 = \"" + pinned + "\", ";
    QVERIFY(text.find(record) != std::string::npos);
    text.replace(text.find(record), record.size(), "");
    QVERIFY(pw::core::writeFileAtomically(path, text));
    r = check();
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(QLatin1String("evidence.record: evidence.cells pins a cells record, "
                                          "but no record pins")),
             qPrintable(r.out));
}

// A seed matrix's record backs a freeze as an attribution record does: its PRE_EXISTING row
// gives the counts over the seeds compared, the witness and the digest.
void TstLedgerCli::freezeFromAMatrixRecord()
{
    const std::string test = "tests/test_x.py::test_b";
    const nlohmann::json row = {{"test", test},
                                {"triage", "PRE_EXISTING"},
                                {"witness_seed", 1},
                                {"seeds_compared", {0, 1, 2}},
                                {"base", {{"0", 0}, {"1", 2}, {"2", 1}}},
                                {"head", {{"0", 0}, {"1", 2}, {"2", 2}}},
                                {"commands", {{"head", {{"1", "pytest -p pw --pw-seed 1"}}}}},
                                {"portable", "patchwitness-cli matrix " + test + " --seed 1"}};
    const nlohmann::json record = {
        {"schema", "patchwitness.matrix/1"}, {"replays", 2},   {"env_digest", "abcd1234abcd1234"},
        {"baseline_sha", "0123abcd"},        {"tests", {row}}, {"recorded", "2024-05-09"}};
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/matrix.json").toStdString(),
                                          record.dump(2) + "\n", true));
    QStringList args = freezeArgsWithoutEvidence(QString::fromStdString(test))
                       << QStringLiteral("--from-run") << QStringLiteral("runs/matrix.json");
    args = with(args, QStringLiteral("--substitute"), QStringLiteral("tests/test_x.py::test_a"));
    // A matrix names no cell: the freeze's attribution is the four cells' verdict, typed.
    args = with(args, QStringLiteral("--attribution"), QStringLiteral("order"));
    const Result r = cli(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const std::string text =
        pw::core::readWholeFile(ledger("quarantine.toml").toStdString()).value_or("");
    QVERIFY2(text.find("witness_seed = 1\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("evidence = { base_fail = 3, head_fail = 4, mode = \"matrix\", seeds = "
                       "[0, 1, 2], env_digest = \"abcd1234abcd1234\", record = "
                       "\"evidence/matrix.json\"") != std::string::npos,
             text.c_str());
    QCOMPARE(cli({QStringLiteral("ledger"), QStringLiteral("check")}).exitCode, 0);

    // The matrix says NO_SIGNAL for a test: nothing to freeze.
    nlohmann::json quiet = record;
    quiet["tests"][0]["test"] = "tests/test_x.py::test_a";
    quiet["tests"][0]["triage"] = "NO_SIGNAL";
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/quiet.json").toStdString(),
                                          quiet.dump(2) + "\n", true));
    const Result refused =
        cli(freezeArgsWithoutEvidence(QStringLiteral("tests/test_x.py::test_a"))
            << QStringLiteral("--from-run") << QStringLiteral("runs/quiet.json"));
    QCOMPARE(refused.exitCode, 3);
    QVERIFY2(refused.err.contains(QLatin1String("says NO_SIGNAL: a freeze is allowed only for "
                                                "PRE_EXISTING")),
             qPrintable(refused.err));
}

// A freeze written before evidence/ existed is named by `ledger check` with the commands
// that back it; --attach pins it to its record.
void TstLedgerCli::attachBacksAnOldFreeze()
{
    const std::string path = ledger("quarantine.toml").toStdString();
    const std::string old =
        "# granted by hand\n[[quarantine]]\ntest = \"tests/test_x.py::test_a\"\nowner = \"bob\"\n"
        "opened = 2024-05-10\nexpires = 2024-05-20\nverdict = \"PRE_EXISTING\"\n"
        "attribution = \"order\"\nwitness_seed = 7\nbaseline_sha = \"0123abcd\"\n"
        "evidence = { base_fail = 3, head_fail = 3, mode = \"matched\", seeds = [7, 8], "
        "env_digest = \"abcd1234abcd1234\" }\nobligation = \"a stays one\"\n"
        "substitute = \"tests/test_x.py::test_b\"\nguards = [\"src/a.py\"]\n"
        "replay = \"pytest tests/test_x.py::test_a\"\n";
    QVERIFY(pw::core::writeFileAtomically(path, old, true));
    Result r = cli({QStringLiteral("ledger"), QStringLiteral("check")});
    QCOMPARE(r.exitCode, 0); // reported, not failed
    QVERIFY2(r.out.contains(QLatin1String(
                 "quarantine.toml:2: tests/test_x.py::test_a: note: no evidence file")) &&
                 r.out.contains(QLatin1String(
                     "patchwitness-cli attribute tests/test_x.py::test_a --base 0123abcd "
                     "--seed 7 && patchwitness-cli freeze tests/test_x.py::test_a --attach")),
             qPrintable(r.out));

    // A record that contradicts the entry does not back it; nothing is written.
    std::string wrong = kHandRecord;
    wrong.replace(wrong.find("\"witness_seed\": 7"), 17, "\"witness_seed\": 8");
    QVERIFY(pw::core::writeFileAtomically(ledger("runs/wrong.json").toStdString(), wrong));
    r = cli({QStringLiteral("freeze"), QStringLiteral("tests/test_x.py::test_a"),
             QStringLiteral("--attach"), QStringLiteral("--from-run"),
             QStringLiteral("runs/wrong.json"), QStringLiteral("--by"), QStringLiteral("carol")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QLatin1String("witness_seed: 7 contradicts")), qPrintable(r.err));
    QCOMPARE(pw::core::readWholeFile(path).value_or(""), old);
    QVERIFY(!QFileInfo::exists(ledger("evidence/wrong.json")));

    // The newest record of the test backs it: pinned in place, the rest byte for byte.
    std::filesystem::remove(ledger("runs/wrong.json").toStdString());
    r = cli({QStringLiteral("freeze"), QStringLiteral("tests/test_x.py::test_a"),
             QStringLiteral("--attach"), QStringLiteral("--by"), QStringLiteral("carol")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::string text = pw::core::readWholeFile(path).value_or("");
    std::string expected = old;
    expected.replace(expected.find(" }\nobligation"), 3,
                     ", record = \"evidence/hand-test_a.json\", record_sha256 = \"" +
                         pw::core::sha256Hex(kHandRecord) + "\" }\n");
    QCOMPARE(text, expected);
    r = cli({QStringLiteral("ledger"), QStringLiteral("check")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(!r.out.contains(QLatin1String("no evidence file")), qPrintable(r.out));
    // Once is enough.
    r = cli({QStringLiteral("freeze"), QStringLiteral("tests/test_x.py::test_a"),
             QStringLiteral("--attach"), QStringLiteral("--by"), QStringLiteral("carol")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QLatin1String("is backed by evidence/hand-test_a.json already")),
             qPrintable(r.err));
}

void TstLedgerCli::freezeFromRunRefusals_data()
{
    QTest::addColumn<QString>("record"); // runs/r.json
    QTest::addColumn<QString>("other");  // runs/s.json: another record the rule reads
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message"); // part of stderr

    const QString a = QStringLiteral("tests/test_x.py::test_a");
    const std::string test = a.toStdString();
    const QStringList fromRun = freezeArgsWithoutEvidence(a)
                                << QStringLiteral("--from-run") << QStringLiteral("runs/r.json");
    const QString preExisting = QString::fromStdString(attributionRecord(test, "2024-05-09"));
    QTest::newRow("a record for another test")
        << QString::fromStdString(attributionRecord("tests/test_x.py::test_b", "2024-05-09"))
        << QString() << fromRun
        << "runs/r.json: test: the record is evidence for tests/test_x.py::test_b, not "
           "tests/test_x.py::test_a";
    QTest::newRow("a malformed record")
        << QStringLiteral("{\n  \"schema\": \"patchwitness.attribution/1\",\n  \"test\": "
                          "\"tests/test_x.py::test_a\",,\n}\n")
        << QString() << fromRun << "runs/r.json:3:37: ";
    QTest::newRow("a record of the wrong type")
        << QStringLiteral("{\"schema\": \"patchwitness.attribution/1\", \"test\": "
                          "\"tests/test_x.py::test_a\", \"base_fail\": \"many\"}")
        << QString() << fromRun
        << "runs/r.json: base_fail: must be a non-negative integer, got a string";
    QTest::newRow("a record that does not exist")
        << QString() << QString()
        << (freezeArgsWithoutEvidence(a)
            << QStringLiteral("--from-run") << QStringLiteral("runs/none.json"))
        << "runs/none.json: cannot read the file";
    QTest::newRow("a record with a patch-induced verdict")
        << QString(preExisting)
               .replace(QLatin1String("PRE_EXISTING"), QLatin1String("PATCH_INDUCED"))
        << QString() << fromRun << "a freeze is allowed only for PRE_EXISTING";
    // The verdict typed on the command line does not overrule the record's.
    QTest::newRow("a patch-induced record, PRE_EXISTING typed")
        << QString(preExisting)
               .replace(QLatin1String("PRE_EXISTING"), QLatin1String("PATCH_INDUCED"))
        << QString()
        << (QStringList(fromRun) << QStringLiteral("--verdict") << QStringLiteral("PRE_EXISTING"))
        << "runs/r.json says PATCH_INDUCED: a freeze is allowed only for PRE_EXISTING";
    // Issue 17: `attribute` said "freeze: allowed" while `cells` said "never freeze it".
    QTest::newRow("a cells record that says broken test")
        << preExisting
        << QString::fromStdString(cellsRecord(test, "solo",
                                              "broken test: it fails alone in pytest's order — "
                                              "fix or delete it, never freeze it",
                                              "2024-05-09"))
        << fromRun << "no freeze: the four cells say it is a broken test (runs/s.json: broken test";
    QTest::newRow("a cells record that says broken test, another attribution typed")
        << preExisting
        << QString::fromStdString(cellsRecord(test, "solo", "broken test", "2024-05-09"))
        << (QStringList(fromRun) << QStringLiteral("--attribution") << QStringLiteral("order"))
        << "the four cells say it is a broken test";
    QTest::newRow("solo typed by hand")
        << preExisting << QString()
        << (QStringList(fromRun) << QStringLiteral("--attribution") << QStringLiteral("solo"))
        << "attribution: solo: a test that fails alone in pytest's order is broken";
    QTest::newRow("a newer record that is not PRE_EXISTING")
        << preExisting
        << QString::fromStdString(attributionRecord(test, "2024-05-10"))
               .replace(QLatin1String("PRE_EXISTING"), QLatin1String("HARNESS_ENV"))
        << fromRun
        << "a newer attribution record of tests/test_x.py::test_a (runs/s.json, recorded "
           "2024-05-10) says HARNESS_ENV";
    QTest::newRow("a placeholder of the printed command left in")
        << preExisting << QString()
        << with(fromRun, QStringLiteral("--obligation"),
                QStringLiteral("<the behaviour the fix must restore>"))
        << "obligation: \"<the behaviour the fix must restore>\" is a placeholder of the printed "
           "command";
    // A cells matrix that did not reproduce the failure names no attribution: the missing
    // field says what to run.
    QTest::newRow("cells that did not reproduce it")
        << QString(preExisting).replace(QLatin1String("  \"attribution\": \"order\",\n"), QString())
        << QString::fromStdString(
               cellsRecord(test, "none", "not reproduced: no cell fails", "2024-05-09"))
        << fromRun
        << "missing required field `attribution` (runs/s.json did not reproduce the failure";
}

void TstLedgerCli::freezeFromRunRefusals()
{
    QFETCH(QString, record);
    QFETCH(QString, other);
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    if (!record.isEmpty())
        QVERIFY(pw::core::writeFileAtomically(ledger("runs/r.json").toStdString(),
                                              record.toStdString(), true));
    if (!other.isEmpty())
        QVERIFY(pw::core::writeFileAtomically(ledger("runs/s.json").toStdString(),
                                              other.toStdString(), true));
    const std::string path = ledger("quarantine.toml").toStdString();
    const std::string existing = "# freezes\n";
    QVERIFY(pw::core::writeFileAtomically(path, existing, true));
    const Result r = cli(args);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(pw::core::readWholeFile(path).value_or(""), existing); // byte-identical
}

void TstLedgerCli::refusals_data()
{
    QTest::addColumn<QString>("file"); // ledger file prepared before (empty: none)
    QTest::addColumn<QString>("content");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message"); // part of stderr

    const QString a = QStringLiteral("tests/test_x.py::test_a");
    const QStringList waive = {
        QStringLiteral("waive"),     QStringLiteral("tests/test_x.py::test_gone"),
        QStringLiteral("--reason"),  QStringLiteral("duplicate-coverage"),
        QStringLiteral("--witness"), QStringLiteral("tests/test_x.py::test_b"),
        QStringLiteral("--by"),      QStringLiteral("alice")};
    const QString existing =
        QStringLiteral("# keep me\n[[waiver]]\nnode = \"n\"\nreason = \"environment\"\n"
                       "approved_by = \"x\"\napproved_on = 2024-01-01\n");
    const QString w = QStringLiteral("census_waiver.toml");
    const QString q = QStringLiteral("quarantine.toml");
    QTest::newRow("waive without --by")
        << w << existing << without(waive, QStringLiteral("--by")) << "--by NAME is required";
    QTest::newRow("waive with an unknown reason")
        << w << existing << with(waive, QStringLiteral("--reason"), QStringLiteral("flaky"))
        << "unknown reason \"flaky\"";
    QTest::newRow("waive with a witness not at head")
        << w << existing
        << with(waive, QStringLiteral("--witness"), QStringLiteral("tests/test_x.py::test_zz"))
        << "witness tests/test_x.py::test_zz is not collected at head";
    QTest::newRow("waive without a witness")
        << w << existing << without(waive, QStringLiteral("--witness"))
        << "missing required field `witness`";
    QTest::newRow("waive the same node twice")
        << w << existing << QStringList{QStringLiteral("waive"),    QStringLiteral("n"),
                                        QStringLiteral("--reason"), QStringLiteral("environment"),
                                        QStringLiteral("--by"),     QStringLiteral("alice")}
        << "there already is a waiver for n";
    QTest::newRow("freeze without --owner")
        << q << QString() << without(freezeArgs(a), QStringLiteral("--owner"))
        << "missing required field `owner`";
    // test_b has no record: nothing backs it, and nothing fills what is not typed.
    QTest::newRow("freeze without evidence mode")
        << q << QString()
        << without(freezeArgs(QStringLiteral("tests/test_x.py::test_b")), QStringLiteral("--mode"))
        << "missing required field `evidence.mode`";
    QTest::newRow("freeze without a record")
        << q << QString() << freezeArgs(QStringLiteral("tests/test_x.py::test_b"))
        << "evidence: no freeze: no record backs a freeze of tests/test_x.py::test_b yet";
    // Seen on the demo: counts of 0 and an invented digest validated and were written.
    QTest::newRow("freeze with values the record does not say")
        << q << QString()
        << with(with(with(freezeArgs(a), QStringLiteral("--base-fail"), QStringLiteral("0")),
                     QStringLiteral("--head-fail"), QStringLiteral("0")),
                QStringLiteral("--env-digest"), QStringLiteral("0000000000000000"))
        << "evidence.env_digest: \"0000000000000000\" contradicts runs/hand-test_a.json, which "
           "says \"abcd1234abcd1234\"";
    QTest::newRow("freeze of a patch bug")
        << q << QString()
        << with(freezeArgs(a), QStringLiteral("--verdict"), QStringLiteral("PATCH_BUG"))
        << "a freeze is allowed only for PRE_EXISTING";
    QTest::newRow("freeze for too long")
        << q << QString()
        << with(freezeArgs(a), QStringLiteral("--expires"), QStringLiteral("2024-06-30"))
        << "(at most 14, config freeze_max_days)";
    QTest::newRow("freeze with a substitute not at head")
        << q << QString()
        << with(freezeArgs(a), QStringLiteral("--substitute"),
                QStringLiteral("tests/test_x.py::test_q"))
        << "substitute tests/test_x.py::test_q is not collected at head";
    QTest::newRow("freeze with a bad date")
        << q << QString()
        << with(freezeArgs(a), QStringLiteral("--expires"), QStringLiteral("soon"))
        << "--expires: \"soon\" is not a date";
    QTest::newRow("renew without --last-reproduced")
        << q << QString() << QStringList{QStringLiteral("renew"),     a,
                                         QStringLiteral("--expires"), QStringLiteral("2024-05-20"),
                                         QStringLiteral("--by"),      QStringLiteral("x")}
        << "--last-reproduced DATE and --expires DATE are required";
    QTest::newRow("renew a freeze that does not exist")
        << q << QStringLiteral("# empty\n")
        << QStringList{QStringLiteral("renew"),
                       a,
                       QStringLiteral("--last-reproduced"),
                       kToday,
                       QStringLiteral("--expires"),
                       QStringLiteral("2024-05-20"),
                       QStringLiteral("--by"),
                       QStringLiteral("x")}
        << "no freeze for tests/test_x.py::test_a to renew";
    QTest::newRow("journal close without two passes")
        << QStringLiteral("seed_journal.jsonl")
        << QStringLiteral("{\"id\": \"j1\", \"seed\": 1, \"env\": \"e\", \"status\": \"open\", "
                          "\"opened\": \"2024-05-01\", \"replays\": [{\"outcome\": \"pass\", "
                          "\"env\": \"e\"}]}\n")
        << QStringList{QStringLiteral("journal"), QStringLiteral("close"), QStringLiteral("j1"),
                       QStringLiteral("--by"), QStringLiteral("x")}
        << "closed without two consecutive passing replays on the same env digest (e)";
    QTest::newRow("journal close of an unknown row")
        << QStringLiteral("seed_journal.jsonl") << QStringLiteral("\n")
        << QStringList{QStringLiteral("journal"), QStringLiteral("close"), QStringLiteral("j9"),
                       QStringLiteral("--by"), QStringLiteral("x")}
        << "no journal row j9";
    QTest::newRow("journal close without --by")
        << QString() << QString()
        << QStringList{QStringLiteral("journal"), QStringLiteral("close"), QStringLiteral("j1")}
        << "--by NAME is required";
}

void TstLedgerCli::refusals()
{
    QFETCH(QString, file);
    QFETCH(QString, content);
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const std::string path =
        file.isEmpty() ? std::string() : ledger(qPrintable(file)).toStdString();
    if (!file.isEmpty() && !content.isEmpty())
        QVERIFY(pw::core::writeFileAtomically(path, content.toStdString(), true));
    const std::optional<std::string> before =
        path.empty() ? std::nullopt : pw::core::readWholeFile(path);
    const Result r = cli(args);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    if (!path.empty())
        QCOMPARE(pw::core::readWholeFile(path), before); // byte-identical (or still absent)
}

void TstLedgerCli::journalClose()
{
    const std::string path = ledger("seed_journal.jsonl").toStdString();
    const std::string other = "{\"id\": \"j0\", \"seed\": null, \"env\": \"e\", \"status\": "
                              "\"open\", \"opened\": \"2024-05-01\"}\n";
    QVERIFY(pw::core::writeFileAtomically(
        path,
        other + "{\"id\": \"j1\", \"seed\": 1, \"env\": \"e\", \"status\": \"open\", \"opened\": "
                "\"2024-05-01\", \"replays\": [{\"outcome\": \"pass\", \"env\": \"e\"}, "
                "{\"outcome\": \"pass\", \"env\": \"e\"}]}\n",
        true));
    const Result r = cli({QStringLiteral("journal"), QStringLiteral("close"), QStringLiteral("j1"),
                          QStringLiteral("--by"), QStringLiteral("frank")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::string text = pw::core::readWholeFile(path).value_or("");
    QVERIFY(text.starts_with(other));
    QVERIFY(text.find("\"status\": \"closed\"") != std::string::npos);
    QVERIFY(text.find("\"closed_by\": \"frank\", \"closed_on\": \"2024-05-10\"}") !=
            std::string::npos);
}

void TstLedgerCli::checkExitCodes_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("content");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("no ledgers at all") << QString() << QString() << 0 << "ledger check: OK";
    QTest::newRow("an expired waiver-free freeze")
        << "quarantine.toml"
        << "[[quarantine]]\ntest = \"tests/test_x.py::test_a\"\nowner = \"o\"\nopened = "
           "2024-04-01\n"
           "expires = 2024-04-10\nverdict = \"PRE_EXISTING\"\nattribution = \"solo\"\nwitness_seed "
           "= 1\n"
           "baseline_sha = \"abcdef0\"\nevidence = { base_fail = 1, head_fail = 1, mode = \"m\", "
           "seeds = [1], env_digest = \"e\" }\nobligation = \"o\"\nsubstitute = "
           "\"tests/test_x.py::test_b\"\n"
           "guards = [\"src/a.py\"]\nreplay = \"r\"\n"
        << 1
        << "quarantine.toml:5: tests/test_x.py::test_a: expires: expired on 2024-04-10 [expired]";
    QTest::newRow("a ledger that does not parse") << "census_waiver.toml"
                                                  << "[[waiver]]\nnode = \"x\n"
                                                  << 1 << "census_waiver.toml:2:";
    QTest::newRow("a witness missing at head")
        << "census_waiver.toml"
        << "[[waiver]]\nnode = \"x\"\nreason = \"obsolete-behavior\"\nwitness = "
           "\"tests/test_x.py::test_c\"\n"
           "approved_by = \"a\"\napproved_on = 2024-05-01\n"
        << 1 << "witness tests/test_x.py::test_c is not collected at head";
}

void TstLedgerCli::checkExitCodes()
{
    QFETCH(QString, file);
    QFETCH(QString, content);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    if (!file.isEmpty())
        QVERIFY(pw::core::writeFileAtomically(ledger(qPrintable(file)).toStdString(),
                                              content.toStdString(), true));
    const Result r = cli({QStringLiteral("ledger"), QStringLiteral("check")});
    QVERIFY2(r.exitCode == exitCode, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(message), qPrintable(r.out));
}

void TstLedgerCli::checkJson()
{
    QVERIFY(pw::core::writeFileAtomically(ledger("property_budget.toml").toStdString(),
                                          "max_examples = 0\ndeadline_ms = 5\nmax_workers = 1\n",
                                          true));
    const Result r = cli({QStringLiteral("ledger"), QStringLiteral("check"),
                          QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(r.exitCode, 1);
    const nlohmann::json doc = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(doc["schema"].get<std::string>(), std::string("patchwitness.ledger-check/1"));
    QCOMPARE(doc["ok"].get<bool>(), false);
    QCOMPARE(doc["problems"].size(), size_t(1));
    QCOMPARE(doc["problems"][0]["rule"].get<std::string>(), std::string("budget"));
    QCOMPARE(doc["problems"][0]["field"].get<std::string>(), std::string("max_examples"));
    QCOMPARE(doc["problems"][0]["line"].get<int>(), 1);
}

void TstLedgerCli::checkWithBaseFindsGuardEdits()
{
    const Result granted = cli(freezeArgs(QStringLiteral("tests/test_x.py::test_a")));
    QVERIFY2(granted.exitCode == 0, qPrintable(granted.err));
    m_repo->commit("freeze");
    m_repo->write("src/a.py", "a = 2\n");
    m_repo->commit("edit a guarded file");
    const Result r =
        cli({QStringLiteral("ledger"), QStringLiteral("check"), QStringLiteral("--base"),
             QStringLiteral("HEAD~1"), QStringLiteral("--head"), QStringLiteral("HEAD")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.out.contains(QLatin1String("the patch edits guarded file src/a.py while the freeze is "
                                     "active: restore the test or extend the substitute")),
        qPrintable(r.out));
}

void TstLedgerCli::history()
{
    QVERIFY(cli(freezeArgs(QStringLiteral("tests/test_x.py::test_a"))).exitCode == 0);
    m_repo->commit("grant");
    QVERIFY(cli({QStringLiteral("renew"), QStringLiteral("tests/test_x.py::test_a"),
                 QStringLiteral("--last-reproduced"), kToday, QStringLiteral("--expires"),
                 QStringLiteral("2024-05-22"), QStringLiteral("--by"), QStringLiteral("dave")})
                .exitCode == 0);
    m_repo->commit("renew");
    const Result r = cli({QStringLiteral("ledger"), QStringLiteral("history"),
                          QStringLiteral("tests/test_x.py::test_a"), QStringLiteral("--today"),
                          QStringLiteral("2024-06-01")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY2(lines[0].contains(QLatin1String(
                 "  added  .patchwitness/quarantine.toml  tests/test_x.py::test_a  ")),
             qPrintable(lines[0]));
    QVERIFY(lines[0].contains(QLatin1String("  Test")));
    QVERIFY2(lines[1].contains(QLatin1String("  renewed  ")) &&
                 lines[1].contains(QLatin1String("expires 2024-05-20 -> 2024-05-22")),
             qPrintable(lines[1]));
    QVERIFY2(lines[2].startsWith(QLatin1String("2024-05-22  expired  ")), qPrintable(lines[2]));

    const Result json =
        cli({QStringLiteral("ledger"), QStringLiteral("history"), QStringLiteral("--format"),
             QStringLiteral("json"), QStringLiteral("--file"), QStringLiteral("quarantine.toml")});
    QCOMPARE(json.exitCode, 0);
    const nlohmann::json doc = nlohmann::json::parse(json.out.toStdString());
    QCOMPARE(doc["events"][0]["event"].get<std::string>(), std::string("added"));
    QCOMPARE(doc["events"][0]["commit"].get<std::string>().size(), size_t(40));
}

void TstLedgerCli::configLimitsApply()
{
    QVERIFY(pw::core::writeFileAtomically(ledger("config.toml").toStdString(),
                                          "freeze_max_days = 30\n", true));
    const Result r = cli(with(freezeArgs(QStringLiteral("tests/test_x.py::test_a")),
                              QStringLiteral("--expires"), QStringLiteral("2024-06-05")));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
}

// A mirror (`git clone --mirror`, or a git dir copied out) has no work tree: the ledger
// directory of its trees is not on disk, and the current directory is not one. The commands
// that read or write it refuse, naming --ledger-dir; `ledger history` reads the commits and
// works; the audit reviews HEAD and names the git dir as its repository.
void TstLedgerCli::aBareRepositoryHasNoLedgerDirectoryOnDisk()
{
    QVERIFY(cli(freezeArgs(QStringLiteral("tests/test_x.py::test_a"))).exitCode == 0);
    m_repo->commit("grant");
    QTemporaryDir around;
    const QString mirror = around.filePath(QStringLiteral("mirror.git"));
    std::filesystem::copy(m_repo->root() + "/.git", mirror.toStdString(),
                          std::filesystem::copy_options::recursive);
    // The reviewer's current directory, with a ledger directory of its own.
    const QString cwd = around.filePath(QStringLiteral("elsewhere"));
    const std::string decoy = "[[waiver]]\nnode = \"not::this\"\n";
    QVERIFY(pw::core::writeFileAtomically(
        QDir(cwd).filePath(QStringLiteral(".patchwitness/census_waiver.toml")).toStdString(), decoy,
        true));
    auto inMirror = [&](QStringList args) {
        args << QStringLiteral("--repo") << mirror << QStringLiteral("--python")
             << QString::fromStdString(pw::test::testPython()) << QStringLiteral("--cache-dir")
             << m_cache->path();
        if (args.front() != QLatin1String("audit"))
            args << QStringLiteral("--today") << kToday;
        return cli(args, false, cwd);
    };

    const QList<QStringList> refused = {
        {QStringLiteral("waive"), QStringLiteral("tests/test_x.py::test_gone"),
         QStringLiteral("--reason"), QStringLiteral("obsolete-behavior"), QStringLiteral("--by"),
         QStringLiteral("alice")},
        {QStringLiteral("ledger"), QStringLiteral("check")},
        {QStringLiteral("renew"), QStringLiteral("tests/test_x.py::test_a"),
         QStringLiteral("--last-reproduced"), kToday, QStringLiteral("--expires"),
         QStringLiteral("2024-05-22"), QStringLiteral("--by"), QStringLiteral("dave")},
        freezeArgs(QStringLiteral("tests/test_x.py::test_b")),
        {QStringLiteral("journal"), QStringLiteral("close"), QStringLiteral("row-1"),
         QStringLiteral("--by"), QStringLiteral("dave")},
        {QStringLiteral("ledger"), QStringLiteral("check"), QStringLiteral("--ledger-dir"),
         QStringLiteral("../outside")},
    };
    for (const QStringList &args : refused) {
        const Result r = inMirror(args);
        QVERIFY2(r.exitCode == 3, qPrintable(args.join(' ') + ": " + r.err));
        QVERIFY2((r.err.contains(QStringLiteral(" is a bare repository: ")) &&
                  r.err.contains(QLatin1String("--ledger-dir"))) ||
                     r.err.contains(QStringLiteral("of a bare repository is not a directory of "
                                                   "its trees")),
                 qPrintable(r.err));
    }
    QCOMPARE(
        pw::core::readWholeFile(
            QDir(cwd).filePath(QStringLiteral(".patchwitness/census_waiver.toml")).toStdString())
            .value_or(""),
        decoy);
    QCOMPARE(QDir(cwd).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{QStringLiteral(".patchwitness")});

    const Result history = inMirror({QStringLiteral("ledger"), QStringLiteral("history"),
                                     QStringLiteral("tests/test_x.py::test_a")});
    QVERIFY2(history.exitCode == 0, qPrintable(history.err));
    QVERIFY2(history.out.contains(QLatin1String(
                 "  added  .patchwitness/quarantine.toml  tests/test_x.py::test_a  ")),
             qPrintable(history.out));

    // An absolute --ledger-dir is a directory on disk: the commands work there.
    QTemporaryDir outside;
    const Result there =
        inMirror({QStringLiteral("waive"), QStringLiteral("tests/test_x.py::test_gone"),
                  QStringLiteral("--reason"), QStringLiteral("environment"), QStringLiteral("--by"),
                  QStringLiteral("alice"), QStringLiteral("--ledger-dir"), outside.path()});
    QVERIFY2(there.exitCode == 0, qPrintable(there.err));
    QVERIFY(QFileInfo::exists(outside.filePath(QStringLiteral("census_waiver.toml"))));

    const Result audit =
        inMirror({QStringLiteral("audit"), QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(!audit.out.contains(QLatin1String("not::this")), qPrintable(audit.out));
    QVERIFY2(audit.exitCode == 0 || audit.exitCode == 1 || audit.exitCode == 2,
             qPrintable(audit.err));
    const nlohmann::json report = nlohmann::json::parse(audit.out.toStdString());
    QCOMPARE(QString::fromStdString(report["repo"].get<std::string>()),
             QDir(mirror).canonicalPath());
    QCOMPARE(report["head"]["rev"].get<std::string>(), std::string("HEAD"));
    const Result worktree =
        inMirror({QStringLiteral("audit"), QStringLiteral("--head"), QStringLiteral("WORKTREE")});
    QCOMPARE(worktree.exitCode, 3);
    QVERIFY2(
        worktree.err.contains(QLatin1String("is a bare repository: it has no work tree to read")),
        qPrintable(worktree.err));
}

// `waive --base REV`: the node (a test, or a whole file) must be one REV had.
void TstLedgerCli::waiveWithBaseNeedsANodeTheBaseHad()
{
    const auto waive = [this](const char *node) {
        return cli({QStringLiteral("waive"), QLatin1String(node), QStringLiteral("--reason"),
                    QStringLiteral("environment"), QStringLiteral("--by"), QStringLiteral("alice"),
                    QStringLiteral("--base"), QStringLiteral("HEAD")});
    };
    for (const char *node : {"tests/test_x.py::nope", "tests/test_none.py"}) {
        const Result r = waive(node);
        QVERIFY2(r.exitCode == 3, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("is not collected at base")), qPrintable(r.err));
    }
    QVERIFY(!QFileInfo::exists(ledger("census_waiver.toml")));
    for (const char *node : {"tests/test_x.py::test_b", "tests/test_x.py"}) {
        const Result r = waive(node);
        QVERIFY2(r.exitCode == 0, qPrintable(QLatin1String(node) + QLatin1String(": ") + r.err));
    }
}

QTEST_GUILESS_MAIN(TstLedgerCli)
#include "tst_ledgercli.moc"
