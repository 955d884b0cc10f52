// The ledger part of the audit end to end (findings satisfied by ledger entries, ledger problems)
// on real git repositories: the base revision's ledgers satisfy findings, entries the patch adds do
// not (a patch cannot approve itself), invalid entries block with their problem, ledger self-edits
// are reported, and a ledger that does not parse is a finding, not a crash.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "audit/Audit.h"
#include "audit/LedgerGate.h"
#include "audit/ReportFormat.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QtTest>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

const char *kTests = R"(import pytest


def test_add():
    assert add(1, 2) == 3


def test_sub():
    assert sub(3, 1) == 2


class TestMul:
    def test_mul(self):
        assert mul(2, 3) == 6
)";

const char *kOld = "def test_x():\n    assert 1 == 1\n\n\ndef test_y():\n    assert 2 == 2\n";

const QString kLedgers = QStringLiteral(".patchwitness/");

QString testsWithout(const char *test)
{
    QString t = QString::fromUtf8(kTests);
    const QString def = QStringLiteral("def %1():").arg(QLatin1String(test));
    const int at = t.indexOf(def);
    const int next = t.indexOf(QStringLiteral("\n\n\n"), at);
    t.remove(at, next + 3 - at);
    return t;
}

QString testsWithSkip()
{
    return QString::fromUtf8(kTests).replace(QStringLiteral("def test_add():"),
                                             QStringLiteral("@pytest.mark.skip\ndef test_add():"));
}

QString waiver(const QString &node, const QString &reason, const QString &witness)
{
    QString out = QStringLiteral("[[waiver]]\nnode = \"%1\"\nreason = \"%2\"\n").arg(node, reason);
    if (!witness.isEmpty())
        out += QStringLiteral("witness = \"%1\"\n").arg(witness);
    return out + QStringLiteral("approved_by = \"bob\"\napproved_on = 2024-05-02\n\n");
}

QString freeze(const QString &opened, const QString &expires, const QString &substitute,
               const QString &guard,
               const QString &test = QStringLiteral("tests/test_calc.py::test_add"))
{
    return QStringLiteral(
               "[[quarantine]]\ntest = \"%5\"\nowner = \"alice\"\nopened = %1\nexpires = %2\n"
               "verdict = \"PRE_EXISTING\"\nattribution = \"order\"\nwitness_seed = 7\n"
               "baseline_sha = \"0123456789abcdef\"\nevidence = { base_fail = 3, head_fail = 3, "
               "mode = \"matched\", seeds = [7], env_digest = \"abcd1234abcd1234\" }\n"
               "obligation = \"adding returns the sum\"\nsubstitute = \"%3\"\nguards = [\"%4\"]\n"
               "replay = \"pytest tests/test_calc.py::test_add\"\n\n")
        .arg(opened, expires, substitute, guard, test);
}

QString validFreeze(const QString &guard = QStringLiteral("src/other.py"))
{
    return freeze(QStringLiteral("2024-05-01"), QStringLiteral("2024-05-14"),
                  QStringLiteral("tests/test_calc.py::test_sub"), guard);
}

const QString kOpenRow = QStringLiteral("{\"id\": \"j1\", \"seed\": 3, \"env\": \"e1\", "
                                        "\"status\": \"open\", \"opened\": \"2024-05-01\"}\n");
const QString kClosedRow = QStringLiteral(
    "{\"id\": \"j2\", \"seed\": 4, \"env\": \"e1\", \"status\": \"closed\", \"opened\": "
    "\"2024-05-01\", \"closed_by\": \"carol\", \"closed_on\": \"2024-05-03\", \"replays\": "
    "[{\"outcome\": \"pass\", \"env\": \"e1\"}, {\"outcome\": \"pass\", \"env\": \"e1\"}]}\n");

const std::string kFixture = "tests/fixtures/data.json";
const std::string kFixtureOld = "{\"rows\": [1, 2, 3]}\n";
const std::string kFixtureNew = "{\"rows\": [1, 2, 3, 4]}\n";

// fixture_digest.json with one entry for kFixture; an empty note writes the plain form.
QString digestLedger(const std::string &sha256, const std::string &note = {})
{
    if (note.empty())
        return QString::fromStdString("{\n  \"" + kFixture + "\": \"" + sha256 + "\"\n}\n");
    return QString::fromStdString("{\n  \"" + kFixture + "\": {\"sha256\": \"" + sha256 +
                                  "\", \"note\": \"" + note + "\"}\n}\n");
}

// "CODE severity where[ <- satisfied_by]" rows.
QStringList describe(const GateReport &r)
{
    QStringList out;
    for (const Finding &f : r.findings) {
        QString row =
            QStringLiteral("%1 %2 %3")
                .arg(QString::fromStdString(f.code), QLatin1String(severityName(f.severity)),
                     QString::fromStdString(f.test.empty() ? f.path : f.test));
        if (f.satisfiedBy)
            row += QStringLiteral(" <- ") + QString::fromStdString(*f.satisfiedBy);
        out << row;
    }
    return out;
}

const Finding *findingOf(const GateReport &r, const std::string &code)
{
    for (const Finding &f : r.findings) {
        if (f.code == code)
            return &f;
    }
    return nullptr;
}

} // namespace

class TstLedgerGate : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void gate_data();
    void gate();
    void selfApprovalIsExplained();
    void parseErrorNamesFileLineAndColumn();
    void todayIsInjectable();
    void ledgerDirectoryOutsideTheRepository();
    void fixtureNotes_data();
    void fixtureNotes();
    void fixtureNoteOutsideTheRepository();
    void jsonReportCarriesSatisfiedBy();
    void countingLedgersWithoutAnAudit();
    void freezeEvidenceIsReadFromTheReviewedTree();

private:
    GateReport audit(const QVariantMap &base, const QVariantMap &head,
                     const std::string &today = "2024-05-10", const std::string &ledgerDir = {});
    std::unique_ptr<QTemporaryDir> m_cache;
    std::unique_ptr<RepoBuilder> m_repo;
};

void TstLedgerGate::init()
{
    m_cache = std::make_unique<QTemporaryDir>();
    QVERIFY(m_cache->isValid());
}

GateReport TstLedgerGate::audit(const QVariantMap &base, const QVariantMap &head,
                                const std::string &today, const std::string &ledgerDir)
{
    m_repo = std::make_unique<RepoBuilder>();
    RepoBuilder &repo = *m_repo;
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n");
    repo.write("src/other.py", "x = 1\n");
    repo.write("tests/test_calc.py", kTests);
    repo.write("tests/test_old.py", kOld);
    for (auto it = base.cbegin(); it != base.cend(); ++it)
        repo.write(it.key().toStdString(), it.value().toString().toStdString());
    const std::string b = repo.commit("base");
    for (auto it = head.cbegin(); it != head.cend(); ++it) {
        if (!it.value().isValid())
            repo.remove(it.key().toStdString());
        else
            repo.write(it.key().toStdString(), it.value().toString().toStdString());
    }
    const std::string h = repo.commit("agent patch");
    AuditRequest request;
    request.repoPath = repo.root();
    request.base = b;
    request.head = h;
    request.python = pw::test::testPython();
    request.cacheDir = m_cache->path().toStdString();
    request.today = today;
    if (!ledgerDir.empty())
        request.ledgerDir = ledgerDir;
    return Audit::run(request);
}

void TstLedgerGate::gate_data()
{
    QTest::addColumn<QVariantMap>("base");     // path → content committed at base
    QTest::addColumn<QVariantMap>("head");     // path → content (invalid: deleted) at head
    QTest::addColumn<QStringList>("expected"); // rows that must be present (see describe())
    QTest::addColumn<QStringList>("absent");   // codes that must not appear
    QTest::addColumn<QString>("verdict");

    const QString calc = QStringLiteral("tests/test_calc.py");
    const QString w = kLedgers + QStringLiteral("census_waiver.toml");
    const QString q = kLedgers + QStringLiteral("quarantine.toml");
    const QString j = kLedgers + QStringLiteral("seed_journal.jsonl");
    const QString sub = QStringLiteral("tests/test_calc.py::test_sub");
    const QString add = QStringLiteral("tests/test_calc.py::test_add");
    const QString mul = QStringLiteral("tests/test_calc.py::TestMul::test_mul");
    const QString subWaiver = waiver(sub, QStringLiteral("duplicate-coverage"), mul);

    QTest::newRow("a base waiver satisfies T-DEL and BLOCKER:deleted")
        << QVariantMap{{w, subWaiver}} << QVariantMap{{calc, testsWithout("test_sub")}}
        << QStringList{QStringLiteral("T-DEL block %1 <- census_waiver.toml: %1").arg(sub),
                       QStringLiteral("BLOCKER:deleted block %1 <- census_waiver.toml: %1")
                           .arg(sub)}
        << QStringList{QStringLiteral("LEDGER-EDIT"), QStringLiteral("LEDGER:witness")} << "PASS";
    QTest::newRow("a waiver the patch adds satisfies nothing")
        << QVariantMap() << QVariantMap{{calc, testsWithout("test_sub")}, {w, subWaiver}}
        << QStringList{QStringLiteral("T-DEL block %1").arg(sub),
                       QStringLiteral("LEDGER-EDIT review %1").arg(w)}
        << QStringList() << "BLOCK";
    QTest::newRow("a waiver whose witness is not at head is invalid")
        << QVariantMap{{w, waiver(sub, QStringLiteral("obsolete-behavior"),
                                  QStringLiteral("tests/test_calc.py::test_gone"))}}
        << QVariantMap{{calc, testsWithout("test_sub")}}
        << QStringList{QStringLiteral("LEDGER:witness block %1").arg(sub),
                       QStringLiteral("T-DEL block %1").arg(sub)}
        << QStringList() << "BLOCK";
    QTest::newRow("a waiver with an unknown reason is invalid")
        << QVariantMap{{w, waiver(sub, QStringLiteral("flaky"), mul)}}
        << QVariantMap{{calc, testsWithout("test_sub")}}
        << QStringList{QStringLiteral("LEDGER:reason block %1").arg(sub),
                       QStringLiteral("T-DEL block %1").arg(sub)}
        << QStringList() << "BLOCK";
    QTest::newRow("a waiver the patch deletes no longer counts")
        << QVariantMap{{w, subWaiver}}
        << QVariantMap{{calc, testsWithout("test_sub")}, {w, QVariant()}}
        << QStringList{QStringLiteral("T-DEL block %1").arg(sub),
                       QStringLiteral("LEDGER-EDIT review %1").arg(w)}
        << QStringList() << "BLOCK";
    QTest::newRow("waivers for each test satisfy T-GONE")
        << QVariantMap{{w, QVariant(waiver(QStringLiteral("tests/test_old.py::test_x"),
                                           QStringLiteral("environment"), {}) +
                                    waiver(QStringLiteral("tests/test_old.py::test_y"),
                                           QStringLiteral("environment"), {}))}}
        << QVariantMap{{QStringLiteral("tests/test_old.py"), QVariant()}}
        << QStringList{QStringLiteral("T-GONE block tests/test_old.py <- census_waiver.toml: "
                                      "tests/test_old.py::test_x, tests/test_old.py::test_y")}
        << QStringList() << "PASS";
    QTest::newRow("a waiver for one test of a removed file is not enough")
        << QVariantMap{{w, waiver(QStringLiteral("tests/test_old.py::test_x"),
                                  QStringLiteral("environment"), {})}}
        << QVariantMap{{QStringLiteral("tests/test_old.py"), QVariant()}}
        << QStringList{QStringLiteral("T-GONE block tests/test_old.py"),
                       QStringLiteral("BLOCKER:deleted block tests/test_old.py::test_y")}
        << QStringList() << "BLOCK";
    QTest::newRow("a waiver for the removed file satisfies T-GONE and its tests")
        << QVariantMap{{w, waiver(QStringLiteral("tests/test_old.py"),
                                  QStringLiteral("obsolete-behavior"), mul)}}
        << QVariantMap{{QStringLiteral("tests/test_old.py"), QVariant()}}
        << QStringList{QStringLiteral("T-GONE block tests/test_old.py <- census_waiver.toml: "
                                      "tests/test_old.py"),
                       QStringLiteral("BLOCKER:deleted block tests/test_old.py::test_x <- "
                                      "census_waiver.toml: tests/test_old.py")}
        << QStringList() << "PASS";
    QTest::newRow("an active freeze satisfies T-SKIP, BLOCKER:marker and the skip's latitude")
        << QVariantMap{{q, validFreeze()}} << QVariantMap{{calc, testsWithSkip()}}
        << QStringList{QStringLiteral("T-SKIP block %1 <- quarantine.toml: %1").arg(add),
                       QStringLiteral("BLOCKER:marker block %1 <- quarantine.toml: %1").arg(add),
                       QStringLiteral("LATITUDE block %1 <- quarantine.toml: %1").arg(add)}
        << QStringList{QStringLiteral("LEDGER")} << "PASS";
    QTest::newRow("an expired freeze satisfies nothing and blocks")
        << QVariantMap{{q, freeze(QStringLiteral("2024-04-25"), QStringLiteral("2024-05-05"), sub,
                                  QStringLiteral("src/other.py"))}}
        << QVariantMap{{calc, testsWithSkip()}}
        << QStringList{QStringLiteral("LEDGER:expired block %1").arg(add),
                       QStringLiteral("T-SKIP block %1").arg(add)}
        << QStringList() << "BLOCK";
    QTest::newRow("a freeze whose guarded file the patch edits")
        << QVariantMap{{q, validFreeze(QStringLiteral("src/calc.py"))}}
        << QVariantMap{{calc, testsWithSkip()},
                       {QStringLiteral("src/calc.py"),
                        QStringLiteral("def add(a, b):\n    return b + a\n")}}
        << QStringList{QStringLiteral("LEDGER:guard-edited block %1").arg(add),
                       QStringLiteral("T-SKIP block %1").arg(add)}
        << QStringList() << "BLOCK";
    QTest::newRow("a freeze whose substitute the patch removes")
        << QVariantMap{{q, validFreeze()}, {w, subWaiver}}
        << QVariantMap{{calc, testsWithout("test_sub")}}
        << QStringList{QStringLiteral("LEDGER:substitute block %1").arg(add),
                       QStringLiteral("T-DEL block %1 <- census_waiver.toml: %1").arg(sub)}
        << QStringList() << "BLOCK";
    QTest::newRow("an invalid entry blocks even when the patch is unrelated")
        << QVariantMap{{q,
                        freeze(QStringLiteral("2024-05-01"), QStringLiteral("2024-05-14"), sub,
                               QStringLiteral("src/other.py"), mul)
                            .replace(QStringLiteral("PRE_EXISTING"), QStringLiteral("PATCH_BUG"))}}
        << QVariantMap{{QStringLiteral("README"), QStringLiteral("docs\n")}}
        << QStringList{QStringLiteral("LEDGER:verdict block %1").arg(mul)} << QStringList()
        << "BLOCK";
    QTest::newRow("quarantine as a side effect")
        << QVariantMap()
        << QVariantMap{{calc, testsWithSkip()},
                       {QStringLiteral("src/calc.py"),
                        QStringLiteral("def add(a, b):\n    return 0\n")},
                       {q, validFreeze(QStringLiteral("src/calc.py"))}}
        << QStringList{QStringLiteral("LEDGER:side-effect block %1").arg(add),
                       QStringLiteral("T-SKIP block %1").arg(add)}
        << QStringList{QStringLiteral("LEDGER-EDIT")} << "BLOCK";
    QTest::newRow("a freeze the patch adds for an untouched module is a review")
        << QVariantMap() << QVariantMap{{q, validFreeze()}}
        << QStringList{QStringLiteral("LEDGER-EDIT review %1").arg(q)}
        << QStringList{QStringLiteral("LEDGER:side-effect")} << "REVIEW";
    QTest::newRow("deleting an open journal row")
        << QVariantMap{{j, QVariant(kOpenRow + kClosedRow)}}
        << QVariantMap{{j, QVariant(kClosedRow)}}
        << QStringList{QStringLiteral("LEDGER:open-row-deleted block %1").arg(j)}
        << QStringList{QStringLiteral("LEDGER-EDIT")} << "BLOCK";
    QTest::newRow("deleting the journal with an open row")
        << QVariantMap{{j, QVariant(kOpenRow)}} << QVariantMap{{j, QVariant()}}
        << QStringList{QStringLiteral("LEDGER:open-row-deleted block %1").arg(j)} << QStringList()
        << "BLOCK";
    QTest::newRow("deleting a closed journal row is a review")
        << QVariantMap{{j, QVariant(kOpenRow + kClosedRow)}} << QVariantMap{{j, QVariant(kOpenRow)}}
        << QStringList{QStringLiteral("LEDGER-EDIT review %1").arg(j)}
        << QStringList{QStringLiteral("LEDGER:open-row-deleted")} << "REVIEW";
    QTest::newRow("other ledger edits are reviews")
        << QVariantMap{{kLedgers + QStringLiteral("property_budget.toml"),
                        QStringLiteral("max_examples = 10\ndeadline_ms = 100\nmax_workers = 1\n")}}
        << QVariantMap{{kLedgers + QStringLiteral("property_budget.toml"),
                        QStringLiteral(
                            "max_examples = 1000\ndeadline_ms = 100\nmax_workers = 1\n")}}
        << QStringList{QStringLiteral("LEDGER-EDIT review .patchwitness/property_budget.toml")}
        << QStringList() << "REVIEW";
    QTest::newRow("a base ledger that does not parse is a finding; the rest still works")
        << QVariantMap{{q, QStringLiteral("[[quarantine]\ntest = 1\n")}, {w, subWaiver}}
        << QVariantMap{{calc, testsWithout("test_sub")}}
        << QStringList{QStringLiteral("LEDGER:parse block %1").arg(q),
                       QStringLiteral("T-DEL block %1 <- census_waiver.toml: %1").arg(sub)}
        << QStringList() << "BLOCK";
    QTest::newRow("a ledger the patch breaks")
        << QVariantMap{{w, subWaiver}}
        << QVariantMap{{w, QVariant(subWaiver + QStringLiteral("[[waiver"))}}
        << QStringList{QStringLiteral("LEDGER:parse block %1").arg(w),
                       QStringLiteral("LEDGER-EDIT review %1").arg(w)}
        << QStringList() << "BLOCK";
}

void TstLedgerGate::gate()
{
    QFETCH(QVariantMap, base);
    QFETCH(QVariantMap, head);
    QFETCH(QStringList, expected);
    QFETCH(QStringList, absent);
    QFETCH(QString, verdict);

    const GateReport report = audit(base, head);
    const QStringList got = describe(report);
    for (const QString &row : expected)
        QVERIFY2(got.contains(row),
                 qPrintable(row + QLatin1String(" not in:\n  ") + got.join(QLatin1String("\n  "))));
    for (const QString &code : absent) {
        for (const QString &row : got)
            QVERIFY2(!row.startsWith(code), qPrintable(QLatin1String("unexpected ") + row));
    }
    QVERIFY2(QString::fromLatin1(verdictName(report.verdict)) == verdict,
             qPrintable(got.join(QLatin1String("\n"))));
}

void TstLedgerGate::selfApprovalIsExplained()
{
    const QString sub = QStringLiteral("tests/test_calc.py::test_sub");
    const GateReport report = audit(
        QVariantMap(), QVariantMap{{QStringLiteral("tests/test_calc.py"), testsWithout("test_sub")},
                                   {kLedgers + QStringLiteral("census_waiver.toml"),
                                    waiver(sub, QStringLiteral("environment"), {})}});
    const Finding *del = findingOf(report, "T-DEL");
    QVERIFY(del && !del->satisfiedBy);
    QVERIFY2(QString::fromStdString(del->message)
                 .contains(QLatin1String("a patch cannot approve itself")),
             del->message.c_str());
    const Finding *edit = findingOf(report, "LEDGER-EDIT");
    QVERIFY(edit);
    QVERIFY2(QString::fromStdString(edit->message).contains(QLatin1String("added ") + sub),
             edit->message.c_str());
}

void TstLedgerGate::parseErrorNamesFileLineAndColumn()
{
    const GateReport report =
        audit(QVariantMap{{kLedgers + QStringLiteral("seed_journal.jsonl"),
                           QVariant(kOpenRow + QStringLiteral("{\"id\": \n"))}},
              QVariantMap{{QStringLiteral("README"), QStringLiteral("x\n")}});
    const Finding *parse = findingOf(report, "LEDGER:parse");
    QVERIFY(parse);
    QCOMPARE(parse->line, 2);
    QVERIFY2(QString::fromStdString(parse->message)
                 .startsWith(QLatin1String(".patchwitness/seed_journal.jsonl:2:")),
             parse->message.c_str());
}

void TstLedgerGate::todayIsInjectable()
{
    const QVariantMap base{{kLedgers + QStringLiteral("quarantine.toml"), validFreeze()}};
    const QVariantMap head{{QStringLiteral("tests/test_calc.py"), testsWithSkip()}};
    QCOMPARE(QString::fromLatin1(verdictName(audit(base, head, "2024-05-13").verdict)),
             QStringLiteral("PASS"));
    const GateReport expired = audit(base, head, "2024-05-14");
    QVERIFY(findingOf(expired, "LEDGER:expired"));
    QVERIFY(QString::fromStdString(findingOf(expired, "LEDGER:expired")->message)
                .contains(QLatin1String("expired on 2024-05-14")));
    QCOMPARE(QString::fromLatin1(verdictName(expired.verdict)), QStringLiteral("BLOCK"));
    try {
        audit(base, head, "2024-13-01");
        QFAIL("a bad date must be an input error");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), int(Error::Kind::Input));
    }
}

void TstLedgerGate::ledgerDirectoryOutsideTheRepository()
{
    // Reviewers keep the ledgers where agents cannot edit them: read from disk, and an
    // in-repository `.patchwitness/` is then just another directory.
    QTemporaryDir outside;
    const QString sub = QStringLiteral("tests/test_calc.py::test_sub");
    QVERIFY(
        writeFileAtomically(outside.filePath(QStringLiteral("census_waiver.toml")).toStdString(),
                            waiver(sub, QStringLiteral("environment"), {}).toStdString()));
    const GateReport report =
        audit(QVariantMap(),
              QVariantMap{{QStringLiteral("tests/test_calc.py"), testsWithout("test_sub")}},
              "2024-05-10", outside.path().toStdString());
    const Finding *del = findingOf(report, "T-DEL");
    QVERIFY(del && del->satisfiedBy);
    QCOMPARE(*del->satisfiedBy, "census_waiver.toml: " + sub.toStdString());
}

void TstLedgerGate::fixtureNotes_data()
{
    QTest::addColumn<QVariantMap>("base");
    QTest::addColumn<QVariantMap>("head");
    QTest::addColumn<QString>("drift");   // the F-DRIFT row (see describe())
    QTest::addColumn<QString>("message"); // part of the F-DRIFT message (empty: not checked)
    QTest::addColumn<QString>("verdict");

    const QString fixture = QString::fromStdString(kFixture);
    const QString ledger = kLedgers + QStringLiteral("fixture_digest.json");
    const std::string oldSha = sha256Hex(kFixtureOld);
    const std::string newSha = sha256Hex(kFixtureNew);
    const QString changed = QString::fromStdString(kFixtureNew);
    const QString satisfied =
        QStringLiteral("F-DRIFT block %1 <- fixture_digest.json: %1").arg(fixture);
    const QString unsatisfied = QStringLiteral("F-DRIFT block %1").arg(fixture);
    const std::string why = "row 4 added with the new parser";

    QTest::newRow("a note at base for the head digest satisfies F-DRIFT")
        << QVariantMap{{ledger, digestLedger(newSha, why)}} << QVariantMap{{fixture, changed}}
        << satisfied << QString() << "PASS";
    QTest::newRow("a note for another digest does not")
        << QVariantMap{{ledger, digestLedger(oldSha, why)}} << QVariantMap{{fixture, changed}}
        << unsatisfied << QString() << "BLOCK";
    QTest::newRow("the head digest without a note does not")
        << QVariantMap{{ledger, digestLedger(newSha)}} << QVariantMap{{fixture, changed}}
        << unsatisfied << QString() << "BLOCK";
    QTest::newRow("a blank note does not")
        << QVariantMap{{ledger, digestLedger(newSha, "  ")}} << QVariantMap{{fixture, changed}}
        << unsatisfied << QString() << "BLOCK";
    QTest::newRow("a note the patch adds satisfies nothing")
        << QVariantMap() << QVariantMap{{fixture, changed}, {ledger, digestLedger(newSha, why)}}
        << unsatisfied << QStringLiteral("a patch cannot approve itself") << "BLOCK";
    QTest::newRow("a note the patch rewrites for its own digest satisfies nothing")
        << QVariantMap{{ledger, digestLedger(oldSha, why)}}
        << QVariantMap{{fixture, changed}, {ledger, digestLedger(newSha, why)}} << unsatisfied
        << QStringLiteral("fixture_digest.json at head has a note for this digest") << "BLOCK";
    QTest::newRow("a note the patch deletes no longer counts")
        << QVariantMap{{ledger, digestLedger(newSha, why)}}
        << QVariantMap{{fixture, changed}, {ledger, QVariant()}} << unsatisfied << QString()
        << "BLOCK";
    QTest::newRow("a removed fixture is not answered by a note")
        << QVariantMap{{ledger, digestLedger(oldSha, why)}} << QVariantMap{{fixture, QVariant()}}
        << unsatisfied << QStringLiteral("fixture removed") << "BLOCK";
}

void TstLedgerGate::fixtureNotes()
{
    QFETCH(QVariantMap, base);
    QFETCH(QVariantMap, head);
    QFETCH(QString, drift);
    QFETCH(QString, message);
    QFETCH(QString, verdict);

    base.insert(QString::fromStdString(kFixture), QString::fromStdString(kFixtureOld));
    const GateReport report = audit(base, head);
    const QStringList got = describe(report);
    QVERIFY2(got.contains(drift),
             qPrintable(drift + QLatin1String(" not in:\n  ") + got.join(QLatin1String("\n  "))));
    const Finding *f = findingOf(report, "F-DRIFT");
    QVERIFY(f);
    QVERIFY2(QString::fromStdString(f->message).contains(message), f->message.c_str());
    QVERIFY2(QString::fromLatin1(verdictName(report.verdict)) == verdict,
             qPrintable(got.join(QLatin1String("\n"))));
}

void TstLedgerGate::fixtureNoteOutsideTheRepository()
{
    QTemporaryDir outside;
    QVERIFY(writeFileAtomically(
        outside.filePath(QStringLiteral("fixture_digest.json")).toStdString(),
        digestLedger(sha256Hex(kFixtureNew), "regenerated by the reviewers").toStdString()));
    const QString fixture = QString::fromStdString(kFixture);
    const GateReport report = audit(QVariantMap{{fixture, QString::fromStdString(kFixtureOld)}},
                                    QVariantMap{{fixture, QString::fromStdString(kFixtureNew)}},
                                    "2024-05-10", outside.path().toStdString());
    const Finding *f = findingOf(report, "F-DRIFT");
    QVERIFY(f && f->satisfiedBy);
    QCOMPARE(*f->satisfiedBy, "fixture_digest.json: " + kFixture);
    QCOMPARE(QString::fromLatin1(verdictName(report.verdict)), QStringLiteral("PASS"));
}

void TstLedgerGate::jsonReportCarriesSatisfiedBy()
{
    const QString sub = QStringLiteral("tests/test_calc.py::test_sub");
    const GateReport report =
        audit(QVariantMap{{kLedgers + QStringLiteral("census_waiver.toml"),
                           waiver(sub, QStringLiteral("environment"), {})}},
              QVariantMap{{QStringLiteral("tests/test_calc.py"), testsWithout("test_sub")}});
    const std::string json = formatReport(report, ReportFormat::Json);
    QVERIFY(json.find("\"satisfied_by\": \"census_waiver.toml: " + sub.toStdString() + "\"") !=
            std::string::npos);
}

QTEST_GUILESS_MAIN(TstLedgerGate)
// CountingLedgers alone (what the census asks, without the audit): base entries the head
// keeps count when valid, an entry the patch adds or removes does not, an invalid one does
// not, a freeze stops counting on its expiry day — and the audit on the same patch agrees.
void TstLedgerGate::countingLedgersWithoutAnAudit()
{
    const QString w = kLedgers + QStringLiteral("census_waiver.toml");
    const QString q = kLedgers + QStringLiteral("quarantine.toml");
    const QString oldFile = QStringLiteral("tests/test_old.py");
    const QString kept = waiver(oldFile, QStringLiteral("obsolete-behavior"),
                                QStringLiteral("tests/test_calc.py::test_sub"));
    const QString bad =
        waiver(QStringLiteral("tests/test_calc.py::test_add"), QStringLiteral("because"),
               QStringLiteral("tests/test_calc.py::test_sub"));
    const QString removed =
        waiver(QStringLiteral("tests/test_calc.py::test_sub"), QStringLiteral("duplicate-coverage"),
               QStringLiteral("tests/test_calc.py::test_add"));
    const QString added = waiver(QStringLiteral("tests/test_calc.py::TestMul::test_mul"),
                                 QStringLiteral("duplicate-coverage"),
                                 QStringLiteral("tests/test_calc.py::test_sub"));
    const QVariantMap base{{w, QString(kept + bad + removed)}, {q, validFreeze()}};
    const QVariantMap head{{w, QString(kept + bad + added)}, {oldFile, QVariant()}};
    const GateReport report = audit(base, head);

    const Repository repo = Repository::open(m_repo->root());
    const Revision b = repo.resolve("HEAD~1");
    const Revision h = repo.resolve("HEAD");
    DiffOptions options;
    options.contextLines = 0;
    const PatchDiff diff = repo.diff(b, h, options);
    const Config config;
    FactExtractor extractor(pw::test::testPython(), m_cache->path().toStdString());
    auto count = [&](const std::string &today) {
        return CountingLedgers::compute({repo, b, h, diff, config, kLedgers.toStdString(),
                                         kLedgers.toStdString(), today, extractor});
    };
    const CountingLedgers c = count("2024-05-10");
    QVERIFY(c.validWaiver(oldFile.toStdString()));
    QVERIFY(!c.validWaiver("tests/test_calc.py::test_add")); // unknown reason
    QVERIFY(std::any_of(c.problems().begin(), c.problems().end(), [](const LedgerProblem &p) {
        return p.entry == "tests/test_calc.py::test_add" && p.field == "reason";
    }));
    QVERIFY(!c.validWaiver("tests/test_calc.py::test_sub")); // the patch removed it
    QVERIFY(!c.headOnlyWaiver("tests/test_calc.py::test_sub"));
    QVERIFY(!c.validWaiver("tests/test_calc.py::TestMul::test_mul")); // the patch added it
    QVERIFY(c.headOnlyWaiver("tests/test_calc.py::TestMul::test_mul"));
    QVERIFY(c.validFreeze("tests/test_calc.py::test_add"));
    QVERIFY(!c.headOnlyFreeze("tests/test_calc.py::test_add"));
    QVERIFY(!count("2024-05-14").validFreeze("tests/test_calc.py::test_add")); // expiry day

    // The audit counted the same: the removed file is answered by its waiver.
    const Finding *gone = findingOf(report, "T-GONE");
    QVERIFY2(gone && gone->satisfiedBy, qPrintable(describe(report).join(QLatin1Char('\n'))));
    QCOMPARE(*gone->satisfiedBy, "census_waiver.toml: " + oldFile.toStdString());
    QVERIFY_EXCEPTION_THROWN(count("2024-13-01"), Error);
}

// A freeze's evidence file is read from the reviewed head: a patch that leaves it alone
// keeps the freeze counting; one that edits it (the sha256 no longer matches) or deletes it
// ends the freeze, and the problem names the file.
void TstLedgerGate::freezeEvidenceIsReadFromTheReviewedTree()
{
    const QString q = kLedgers + QStringLiteral("quarantine.toml");
    const QString ev = kLedgers + QStringLiteral("evidence/r.json");
    const std::string record =
        "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"tests/test_calc.py::test_add\", "
        "\"verdict\": \"PRE_EXISTING\", \"mode\": \"matched\", \"base_fail\": 3, \"head_fail\": 3, "
        "\"seeds\": [7], \"head_failing_seeds\": [7], \"witness_seed\": 7, \"env_digest\": "
        "\"abcd1234abcd1234\", \"baseline_sha\": \"0123456789abcdef\", \"attribution\": "
        "\"order\"}\n";
    const QString pinned =
        QString(validFreeze())
            .replace(
                QStringLiteral("env_digest = \"abcd1234abcd1234\" }"),
                QStringLiteral("env_digest = \"abcd1234abcd1234\", record = \"evidence/r.json\", "
                               "record_sha256 = \"%1\" }")
                    .arg(QString::fromStdString(pw::core::sha256Hex(record))));
    const QVariantMap base{{q, pinned}, {ev, QString::fromStdString(record)}};
    const auto counting = [this] {
        const Repository repo = Repository::open(m_repo->root());
        const Revision b = repo.resolve("HEAD~1");
        const Revision h = repo.resolve("HEAD");
        DiffOptions options;
        options.contextLines = 0;
        const PatchDiff diff = repo.diff(b, h, options);
        const Config config;
        FactExtractor extractor(pw::test::testPython(), m_cache->path().toStdString());
        return CountingLedgers::compute({repo, b, h, diff, config, kLedgers.toStdString(),
                                         kLedgers.toStdString(), "2024-05-10", extractor});
    };
    const auto evidenceProblem = [](const CountingLedgers &c) {
        std::string all;
        for (const LedgerProblem &p : c.problems())
            if (p.rule == "evidence-file")
                return p.message;
            else
                all += p.toString() + "\n";
        return all;
    };

    audit(base,
          {{QStringLiteral("src/calc.py"), QStringLiteral("def add(a, b):\n    return b + a\n")}});
    CountingLedgers c = counting();
    QVERIFY2(c.validFreeze("tests/test_calc.py::test_add"), evidenceProblem(c).c_str());

    std::string edited = record;
    edited.replace(edited.find("\"base_fail\": 3"), 14, "\"base_fail\": 9");
    audit(base, {{ev, QString::fromStdString(edited)}});
    c = counting();
    QVERIFY(!c.validFreeze("tests/test_calc.py::test_add"));
    QVERIFY2(evidenceProblem(c).find("evidence/r.json was altered after the freeze") !=
                 std::string::npos,
             evidenceProblem(c).c_str());

    // A pin outside evidence/ is a problem of the entry, never a failed audit.
    const QString escaping = QString(pinned).replace(
        QStringLiteral("\"evidence/r.json\""), QStringLiteral("\"evidence/../../../x.json\""));
    const GateReport escaped = audit({{q, escaping}, {ev, QString::fromStdString(record)}}, {});
    QVERIFY(std::any_of(escaped.findings.begin(), escaped.findings.end(),
                        [](const Finding &f) { return f.code == "LEDGER:bad-value"; }));
    c = counting();
    QVERIFY(!c.validFreeze("tests/test_calc.py::test_add"));

    audit(base, {{ev, QVariant()}});
    c = counting();
    QVERIFY(!c.validFreeze("tests/test_calc.py::test_add"));
    QVERIFY2(evidenceProblem(c).find("evidence/r.json is missing") != std::string::npos,
             evidenceProblem(c).c_str());
}

#include "tst_ledgergate.moc"
