// Every validation rule of the ledgers: for each rule a ledger that breaks it (the problem
// names the rule, the field and says why) and one that satisfies it.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "ledger/LedgerSet.h"
#include "ledger/LedgerValidator.h"
#include "python/TestsAtRevision.h"
#include "util/Error.h"

#include <QtTest>
#include <set>

using namespace pw::core;

namespace {

const QDate kToday(2024, 5, 10);

const char *kFreeze = R"([[quarantine]]
test = "tests/test_calc.py::test_add"
owner = "alice"
opened = 2024-05-01
expires = 2024-05-14
verdict = "PRE_EXISTING"
attribution = "order"
witness_seed = 7
baseline_sha = "0123456789abcdef0123456789abcdef01234567"
evidence = { base_fail = 3, head_fail = 3, mode = "matched", seeds = [3, 7], env_digest = "abcd1234abcd1234" }
obligation = "adding two numbers returns their sum"
substitute = "tests/test_calc.py::test_sub"
guards = ["src/calc.py"]
replay = "pytest -p pw_plugin --seed 7 tests/test_calc.py::test_add"
)";

const char *kWaiver = R"([[waiver]]
node = "tests/test_calc.py::test_old"
reason = "obsolete-behavior"
witness = "tests/test_calc.py::test_mul"
approved_by = "bob"
approved_on = 2024-05-02
)";

// kFreeze with the line starting `key =` replaced by `line` (empty: dropped).
QString freezeWith(const QString &key, const QString &line)
{
    QStringList out;
    for (const QString &l : QString::fromUtf8(kFreeze).split(QLatin1Char('\n'))) {
        if (l.startsWith(key + QLatin1String(" =")))
            out << (line.isEmpty() ? QStringList() : QStringList{line});
        else
            out << l;
    }
    return out.join(QLatin1Char('\n'));
}

QString waiverWith(const QString &key, const QString &line)
{
    QStringList out;
    for (const QString &l : QString::fromUtf8(kWaiver).split(QLatin1Char('\n'))) {
        if (l.startsWith(key + QLatin1String(" =")))
            out << (line.isEmpty() ? QStringList() : QStringList{line});
        else
            out << l;
    }
    return out.join(QLatin1Char('\n'));
}

QString row(const char *json)
{
    return QString::fromUtf8(json) + QLatin1Char('\n');
}

} // namespace

class TstLedgerValidator : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void testLookupTellsMissingFromUnknown();
    void rules_data();
    void rules();
    void activeWindow();
    void problemsNameFileLineEntryAndField();
    void headLookupIsOptional();
};

void TstLedgerValidator::rules_data()
{
    QTest::addColumn<QString>("file"); // ledger file name
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("patched"); // files the patch edits
    QTest::addColumn<QString>("before");      // seed journal before the patch (empty: none)
    QTest::addColumn<QString>("rule");        // expected rule; empty: the ledger is valid
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message"); // a part of the expected message

    const QString q = QStringLiteral("quarantine.toml");
    const QString w = QStringLiteral("census_waiver.toml");
    const QString j = QStringLiteral("seed_journal.jsonl");
    const QString none;
    const QString freeze = QString::fromUtf8(kFreeze);

    // quarantine.toml ----------------------------------------------------------------
    QTest::newRow("freeze: valid") << q << freeze << QStringList() << none << none << none << none;
    for (const char *field :
         {"test", "owner", "opened", "expires", "verdict", "attribution", "witness_seed",
          "baseline_sha", "evidence", "obligation", "substitute", "guards", "replay"}) {
        QTest::newRow(qPrintable(QStringLiteral("freeze: missing %1").arg(QLatin1String(field))))
            << q << freezeWith(QLatin1String(field), {}) << QStringList() << none << "missing-field"
            << QString::fromLatin1(field)
            << QStringLiteral("missing required field `%1`").arg(QLatin1String(field));
    }
    QTest::newRow("freeze: evidence without mode")
        << q
        << freezeWith(QStringLiteral("evidence"),
                      QStringLiteral("evidence = { base_fail = 3, head_fail = 3, seeds = [3, 7], "
                                     "env_digest = \"abcd1234abcd1234\" }"))
        << QStringList() << none << "missing-field"
        << "evidence.mode"
        << "missing required field `evidence.mode`";
    // Values no run can have measured (the form used to take them typed).
    const auto evidence = [](const char *values) {
        return freezeWith(QStringLiteral("evidence"),
                          QStringLiteral("evidence = { %1 }").arg(QLatin1String(values)));
    };
    QTest::newRow("freeze: no failure at base")
        << q
        << evidence("base_fail = 0, head_fail = 3, mode = \"matched\", seeds = [3, 7], "
                    "env_digest = \"abcd1234abcd1234\"")
        << QStringList() << none << "bad-value"
        << "evidence.base_fail"
        << "a PRE_EXISTING failure fails on the base tree too";
    QTest::newRow("freeze: no failure at head")
        << q
        << evidence("base_fail = 2, head_fail = 0, mode = \"matched\", seeds = [3, 7], "
                    "env_digest = \"abcd1234abcd1234\"")
        << QStringList() << none << "bad-value"
        << "evidence.head_fail"
        << "fails on the head tree too";
    QTest::newRow("freeze: witness outside the seeds")
        << q
        << evidence("base_fail = 2, head_fail = 3, mode = \"matched\", seeds = [3, 4], "
                    "env_digest = \"abcd1234abcd1234\"")
        << QStringList() << none << "bad-value"
        << "witness_seed"
        << "witness seed 7 is not one of evidence.seeds";
    for (const char *digest : {"abc", "ABCD1234ABCD1234", "abcd1234abcd12345", "abcd1234abcd123g"})
        QTest::newRow(
            qPrintable(QStringLiteral("freeze: env digest %1").arg(QLatin1String(digest))))
            << q
            << freezeWith(QStringLiteral("evidence"),
                          QStringLiteral("evidence = { base_fail = 3, head_fail = 3, mode = "
                                         "\"matched\", seeds = [3, 7], env_digest = \"%1\" }")
                              .arg(QLatin1String(digest)))
            << QStringList() << none << "bad-value"
            << "evidence.env_digest"
            << "is not a run's env digest (16 lowercase hex digits";
    QTest::newRow("freeze: a guard that names nothing at head")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = [\"src/gone.py\"]"))
        << QStringList() << none << "guard-missing"
        << "guards"
        << "guard src/gone.py names no file or directory at head";
    QTest::newRow("freeze: a directory guard")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = [\"src/\"]"))
        << QStringList() << none << none << none << none;
    // Written as guard-edited reads it: "src" (no slash) and "./src/" would guard nothing.
    QTest::newRow("freeze: a directory guard without its slash")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = [\"src\"]"))
        << QStringList() << none << "guard-missing"
        << "guards"
        << "guard src is a directory: write src/";
    QTest::newRow("freeze: a guard written with ./")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = [\"./src/calc.py\"]"))
        << QStringList() << none << "guard-missing"
        << "guards"
        << "as written: no globs, no ./";
    QTest::newRow("freeze: a guard the patch deletes is guard-edited, not missing")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = [\"src/gone.py\"]"))
        << QStringList{QStringLiteral("src/gone.py")} << none << "guard-edited"
        << "guards"
        << "the patch edits guarded file src/gone.py";
    QTest::newRow("freeze: empty obligation")
        << q << freezeWith(QStringLiteral("obligation"), QStringLiteral("obligation = \"\""))
        << QStringList() << none << "missing-field"
        << "obligation"
        << "is empty";
    QTest::newRow("freeze: no guards")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = []")) << QStringList()
        << none << "missing-field"
        << "guards"
        << "at least one file";
    QTest::newRow("freeze: verdict not PRE_EXISTING")
        << q << freezeWith(QStringLiteral("verdict"), QStringLiteral("verdict = \"FLAKY_ORACLE\""))
        << QStringList() << none << "verdict"
        << "verdict"
        << "verdict is FLAKY_ORACLE; a freeze is allowed only for PRE_EXISTING";
    QTest::newRow("freeze: baseline_sha not a sha")
        << q
        << freezeWith(QStringLiteral("baseline_sha"), QStringLiteral("baseline_sha = \"main\""))
        << QStringList() << none << "bad-value"
        << "baseline_sha"
        << "is not a commit sha";
    QTest::newRow("freeze: expired (on the expiry day)")
        << q << freezeWith(QStringLiteral("expires"), QStringLiteral("expires = 2024-05-10"))
        << QStringList() << none << "expired"
        << "expires"
        << "expired on 2024-05-10";
    QTest::newRow("freeze: expired long ago")
        << q
        << freezeWith(QStringLiteral("opened"), QStringLiteral("opened = 2024-04-01"))
               .replace(QStringLiteral("expires = 2024-05-14"),
                        QStringLiteral("expires = 2024-04-10"))
        << QStringList() << none << "expired"
        << "expires"
        << "expired on 2024-04-10";
    QTest::newRow("freeze: last valid day")
        << q << freezeWith(QStringLiteral("expires"), QStringLiteral("expires = 2024-05-11"))
        << QStringList() << none << none << none << none;
    QTest::newRow("freeze: expires more than freeze_max_days after opened")
        << q << freezeWith(QStringLiteral("expires"), QStringLiteral("expires = 2024-05-20"))
        << QStringList() << none << "expiry-too-far"
        << "expires"
        << "expires 2024-05-20 is 19 days after opened 2024-05-01 (at most 14";
    QTest::newRow("freeze: expires exactly freeze_max_days after opened")
        << q << freezeWith(QStringLiteral("expires"), QStringLiteral("expires = 2024-05-15"))
        << QStringList() << none << none << none << none;
    QTest::newRow("freeze: expires before opened")
        << q << freezeWith(QStringLiteral("opened"), QStringLiteral("opened = 2024-05-16"))
        << QStringList() << none << "expiry-too-far"
        << "expires"
        << "is before opened 2024-05-16";
    QTest::newRow("freeze: renewal without last_reproduced")
        << q
        << freezeWith(QStringLiteral("expires"),
                      QStringLiteral("expires = 2024-05-20\nrenewed = 2024-05-08"))
        << QStringList() << none << "renewal-recency"
        << "last_reproduced"
        << "renewed on 2024-05-08 without `last_reproduced`";
    QTest::newRow("freeze: renewal with a stale reproduction")
        << q
        << freezeWith(QStringLiteral("expires"),
                      QStringLiteral("expires = 2024-05-20\nrenewed = 2024-05-08\n"
                                     "last_reproduced = 2024-04-20"))
        << QStringList() << none << "renewal-recency"
        << "last_reproduced"
        << "is 18 days before the renewal on 2024-05-08 (at most 14";
    QTest::newRow("freeze: renewal with a recent reproduction")
        << q
        << freezeWith(QStringLiteral("expires"),
                      QStringLiteral("expires = 2024-05-20\nrenewed = 2024-05-08\n"
                                     "last_reproduced = 2024-05-07"))
        << QStringList() << none << none << none << none;
    QTest::newRow("freeze: renewal expiry counts from the renewal")
        << q
        << freezeWith(QStringLiteral("expires"),
                      QStringLiteral("expires = 2024-05-23\nrenewed = 2024-05-08\n"
                                     "last_reproduced = 2024-05-07"))
        << QStringList() << none << "expiry-too-far"
        << "expires"
        << "15 days after the renewal on 2024-05-08";
    QTest::newRow("freeze: substitute unknown at head")
        << q
        << freezeWith(QStringLiteral("substitute"),
                      QStringLiteral("substitute = \"tests/test_calc.py::test_gone\""))
        << QStringList() << none << "substitute"
        << "substitute"
        << "substitute tests/test_calc.py::test_gone is not collected at head";
    QTest::newRow("freeze: substitute with parameters exists")
        << q
        << freezeWith(QStringLiteral("substitute"),
                      QStringLiteral("substitute = \"tests/test_calc.py::test_sub[1-2]\""))
        << QStringList() << none << none << none << none;
    QTest::newRow("freeze: substitute is the frozen test")
        << q
        << freezeWith(QStringLiteral("substitute"),
                      QStringLiteral("substitute = \"tests/test_calc.py::test_add\""))
        << QStringList() << none << "substitute"
        << "substitute"
        << "another test";
    QTest::newRow("freeze: guarded file edited while active")
        << q << freeze << QStringList{QStringLiteral("src/calc.py")} << none << "guard-edited"
        << "guards"
        << "the patch edits guarded file src/calc.py while the freeze is active: restore the "
           "test or extend the substitute";
    QTest::newRow("freeze: file under a guarded package edited")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = [\"src/calcpkg/\"]"))
        << QStringList{QStringLiteral("src/calcpkg/core.py")} << none << "guard-edited"
        << "guards"
        << "the patch edits guarded file src/calcpkg/ while the freeze is active: restore the "
           "test or extend the substitute";
    QTest::newRow("freeze: a sibling of a guarded package edited")
        << q << freezeWith(QStringLiteral("guards"), QStringLiteral("guards = [\"src/calcpkg/\"]"))
        << QStringList{QStringLiteral("src/calcpkg.py")} << none << none << none << none;
    QTest::newRow("freeze: other files edited")
        << q << freeze << QStringList{QStringLiteral("src/other.py")} << none << none << none
        << none;
    QTest::newRow("freeze: guarded file edited before the freeze opens")
        << q
        << freezeWith(QStringLiteral("opened"), QStringLiteral("opened = 2024-05-11"))
               .replace(QStringLiteral("expires = 2024-05-14"),
                        QStringLiteral("expires = 2024-05-20"))
        << QStringList{QStringLiteral("src/calc.py")} << none << none << none << none;
    QTest::newRow("freeze: witness_seed of the wrong type")
        << q
        << freezeWith(QStringLiteral("witness_seed"), QStringLiteral("witness_seed = \"seven\""))
        << QStringList() << none << "wrong-type"
        << "witness_seed"
        << "must be an integer, got a string";
    QTest::newRow("freeze: opened of the wrong type")
        << q << freezeWith(QStringLiteral("opened"), QStringLiteral("opened = 5")) << QStringList()
        << none << "wrong-type"
        << "opened"
        << "must be a date (YYYY-MM-DD), got an integer";
    QTest::newRow("freeze: opened as a string date is accepted")
        << q << freezeWith(QStringLiteral("opened"), QStringLiteral("opened = \"2024-05-01\""))
        << QStringList() << none << none << none << none;
    QTest::newRow("freeze: evidence seeds of the wrong type")
        << q
        << freezeWith(QStringLiteral("evidence"),
                      QStringLiteral("evidence = { base_fail = 3, head_fail = 3, mode = \"m\", "
                                     "seeds = [\"a\"], env_digest = \"abcd1234abcd1234\" }"))
        << QStringList() << none << "wrong-type"
        << "evidence.seeds"
        << "must be an array of integers only, got a string in it";
    QTest::newRow("freeze: duplicate entries")
        << q << freeze + QLatin1Char('\n') + freeze << QStringList() << none << "duplicate" << none
        << "duplicate freeze for tests/test_calc.py::test_add (the first is at line 1)";

    // census_waiver.toml --------------------------------------------------------------
    QTest::newRow("waiver: valid")
        << w << QString::fromUtf8(kWaiver) << QStringList() << none << none << none << none;
    QTest::newRow("waiver: unknown reason")
        << w << waiverWith(QStringLiteral("reason"), QStringLiteral("reason = \"flaky\""))
        << QStringList() << none << "reason"
        << "reason"
        << "unknown reason \"flaky\"";
    QTest::newRow("waiver: missing reason")
        << w << waiverWith(QStringLiteral("reason"), {}) << QStringList() << none << "missing-field"
        << "reason"
        << "missing required field `reason`";
    QTest::newRow("waiver: witness missing for duplicate-coverage")
        << w
        << waiverWith(QStringLiteral("reason"), QStringLiteral("reason = \"duplicate-coverage\""))
               .replace(QStringLiteral("witness = \"tests/test_calc.py::test_mul\"\n"), QString())
        << QStringList() << none << "witness"
        << "witness"
        << "missing required field `witness`";
    QTest::newRow("waiver: environment needs no witness")
        << w
        << waiverWith(QStringLiteral("reason"), QStringLiteral("reason = \"environment\""))
               .replace(QStringLiteral("witness = \"tests/test_calc.py::test_mul\"\n"), QString())
        << QStringList() << none << none << none << none;
    QTest::newRow("waiver: witness not collected at head")
        << w
        << waiverWith(QStringLiteral("witness"),
                      QStringLiteral("witness = \"tests/test_other.py::test_x\""))
        << QStringList() << none << "witness"
        << "witness"
        << "witness tests/test_other.py::test_x is not collected at head";
    QTest::newRow("waiver: witness in a file that does not parse")
        << w
        << waiverWith(QStringLiteral("witness"),
                      QStringLiteral("witness = \"tests/test_broken.py::test_x\""))
        << QStringList() << none << "witness"
        << "witness"
        << "cannot confirm that witness tests/test_broken.py::test_x is collected at head: "
           "tests/test_broken.py:3:5: does not parse";
    QTest::newRow("waiver: witness is the waived node")
        << w
        << waiverWith(QStringLiteral("witness"),
                      QStringLiteral("witness = \"tests/test_calc.py::test_old\""))
        << QStringList() << none << "witness"
        << "witness"
        << "another test";
    QTest::newRow("waiver: missing approved_by")
        << w << waiverWith(QStringLiteral("approved_by"), {}) << QStringList() << none
        << "missing-field"
        << "approved_by"
        << "missing required field `approved_by`";
    QTest::newRow("waiver: approved_on not a date")
        << w
        << waiverWith(QStringLiteral("approved_on"), QStringLiteral("approved_on = \"yesterday\""))
        << QStringList() << none << "wrong-type"
        << "approved_on"
        << "must be a date (YYYY-MM-DD), got \"yesterday\"";
    QTest::newRow("waiver: duplicate entries")
        << w << QString::fromUtf8(kWaiver) + QLatin1Char('\n') + QString::fromUtf8(kWaiver)
        << QStringList() << none << "duplicate" << none << "duplicate waiver";

    // seed_journal.jsonl --------------------------------------------------------------
    const QString open =
        row(R"({"id": "j1", "seed": 7, "env": "e1", "status": "open", "opened": "2024-05-01"})");
    QTest::newRow("journal: open row")
        << j << open << QStringList() << none << none << none << none;
    QTest::newRow("journal: null seed is allowed")
        << j
        << row(R"({"id": "j1", "seed": null, "env": "e1", "status": "open", "opened": "2024-05-01"})")
        << QStringList() << none << none << none << none;
    QTest::newRow("journal: missing seed")
        << j << row(R"({"id": "j1", "env": "e1", "status": "open", "opened": "2024-05-01"})")
        << QStringList() << none << "missing-field"
        << "seed"
        << "missing required field `seed`";
    QTest::newRow("journal: missing env")
        << j << row(R"({"id": "j1", "seed": 1, "status": "open", "opened": "2024-05-01"})")
        << QStringList() << none << "missing-field"
        << "env"
        << "missing required field `env`";
    QTest::newRow("journal: unknown status")
        << j
        << row(R"({"id": "j1", "seed": 1, "env": "e1", "status": "done", "opened": "2024-05-01"})")
        << QStringList() << none << "journal-status"
        << "status"
        << "neither \"open\" nor \"closed\"";
    QTest::newRow("journal: closed after two consecutive passes")
        << j
        << row(R"({"id": "j1", "seed": 1, "env": "e1", "status": "closed", "opened": "2024-05-01", "closed_by": "carol", "closed_on": "2024-05-09", "replays": [{"outcome": "fail", "env": "e1"}, {"outcome": "pass", "env": "e1"}, {"outcome": "pass", "env": "e1"}]})")
        << QStringList() << none << none << none << none;
    QTest::newRow("journal: closed with passes not consecutive")
        << j
        << row(R"({"id": "j1", "seed": 1, "env": "e1", "status": "closed", "opened": "2024-05-01", "closed_by": "carol", "closed_on": "2024-05-09", "replays": [{"outcome": "pass", "env": "e1"}, {"outcome": "fail", "env": "e1"}, {"outcome": "pass", "env": "e1"}]})")
        << QStringList() << none << "journal-replays"
        << "replays"
        << "closed without two consecutive passing replays on the same env digest (e1)";
    QTest::newRow("journal: closed with passes on another env digest")
        << j
        << row(R"({"id": "j1", "seed": 1, "env": "e1", "status": "closed", "opened": "2024-05-01", "closed_by": "carol", "closed_on": "2024-05-09", "replays": [{"outcome": "pass", "env": "e2"}, {"outcome": "pass", "env": "e2"}]})")
        << QStringList() << none << "journal-replays"
        << "replays"
        << "two consecutive passing";
    QTest::newRow("journal: closed without replays")
        << j
        << row(R"({"id": "j1", "seed": 1, "env": "e1", "status": "closed", "opened": "2024-05-01", "closed_by": "carol", "closed_on": "2024-05-09"})")
        << QStringList() << none << "journal-replays"
        << "replays"
        << "two consecutive passing";
    QTest::newRow("journal: closed without closed_by")
        << j
        << row(R"({"id": "j1", "seed": 1, "env": "e1", "status": "closed", "opened": "2024-05-01", "closed_on": "2024-05-09", "replays": [{"outcome": "pass", "env": "e1"}, {"outcome": "pass", "env": "e1"}]})")
        << QStringList() << none << "missing-field"
        << "closed_by"
        << "missing required field `closed_by`";
    QTest::newRow("journal: replays of the wrong type")
        << j
        << row(R"({"id": "j1", "seed": 1, "env": "e1", "status": "open", "opened": "2024-05-01", "replays": 2})")
        << QStringList() << none << "wrong-type"
        << "replays"
        << "must be an array";
    QTest::newRow("journal: duplicate ids")
        << j << open + open << QStringList() << none << "duplicate" << none
        << "duplicate journal row for j1";
    QTest::newRow("journal: open row deleted")
        << j
        << row(R"({"id": "j2", "seed": 1, "env": "e1", "status": "open", "opened": "2024-05-01"})")
        << QStringList() << open << "open-row-deleted" << none << "open journal row j1 was deleted";
    QTest::newRow("journal: whole journal deleted with an open row")
        << j << QStringLiteral("<absent>") << QStringList() << open << "open-row-deleted" << none
        << "open journal row j1 was deleted";
    QTest::newRow("journal: open rows kept")
        << j << open << QStringList() << open << none << none << none;

    // fixture_digest.json and property_budget.toml ----------------------------------------
    const QString sha = QString(64, QLatin1Char('a'));
    QTest::newRow("fixture digest: valid")
        << "fixture_digest.json"
        << QStringLiteral("{\"tests/fixtures/a.json\": \"%1\",\n \"tests/fixtures/b.json\": "
                          "{\"sha256\": \"%1\", \"note\": \"regenerated\"}}\n")
               .arg(sha)
        << QStringList() << none << none << none << none;
    QTest::newRow("fixture digest: not a sha256")
        << "fixture_digest.json" << QStringLiteral("{\"tests/fixtures/a.json\": \"abc\"}\n")
        << QStringList() << none << "digest"
        << "sha256"
        << "is not a sha256";
    QTest::newRow("fixture digest: wrong type")
        << "fixture_digest.json" << QStringLiteral("{\"tests/fixtures/a.json\": 12}\n")
        << QStringList() << none << "wrong-type"
        << "sha256"
        << "got an integer";
    QTest::newRow("property budget: valid")
        << "property_budget.toml"
        << QStringLiteral("max_examples = 200\ndeadline_ms = 500\nmax_workers = 4\n")
        << QStringList() << none << none << none << none;
    QTest::newRow("property budget: zero examples")
        << "property_budget.toml"
        << QStringLiteral("max_examples = 0\ndeadline_ms = 500\nmax_workers = 4\n") << QStringList()
        << none << "budget"
        << "max_examples"
        << "must be positive";
    QTest::newRow("property budget: missing deadline")
        << "property_budget.toml" << QStringLiteral("max_examples = 10\nmax_workers = 4\n")
        << QStringList() << none << "missing-field"
        << "deadline_ms"
        << "missing required field";
}

void TstLedgerValidator::rules()
{
    QFETCH(QString, file);
    QFETCH(QString, text);
    QFETCH(QStringList, patched);
    QFETCH(QString, before);
    QFETCH(QString, rule);
    QFETCH(QString, field);
    QFETCH(QString, message);

    LedgerSet set;
    if (text != QLatin1String("<absent>"))
        set.add(file.toStdString(), text.toStdString(), file.toStdString());
    QVERIFY2(set.loadProblems.empty(),
             set.loadProblems.empty() ? "" : set.loadProblems.front().toString().c_str());
    std::optional<SeedJournal> journalBefore;
    ValidationContext ctx;
    ctx.today = kToday;
    const std::set<std::string> head = {"tests/test_calc.py::test_sub",
                                        "tests/test_calc.py::test_mul"};
    ctx.testExistsAtHead = [&head](const std::string &id) {
        if (id.starts_with("tests/test_broken.py")) // as TestsAtRevision says it
            throw pw::core::Error::harness("tests/test_broken.py:3:5: does not parse (invalid "
                                           "syntax)");
        return head.count(id.substr(0, id.find('['))) > 0;
    };
    ctx.pathExistsAtHead = pw::core::pathLookup(std::make_shared<const std::set<std::string>>(
        std::set<std::string>{"src/", "src/calc.py", "src/calcpkg/", "src/calcpkg/core.py",
                              "tests/", "tests/test_calc.py"}));
    for (const QString &p : patched)
        ctx.patchedFiles.insert(p.toStdString());
    if (!before.isEmpty()) {
        journalBefore = SeedJournal::parse(before.toStdString(), file.toStdString());
        ctx.journalBefore = &*journalBefore;
    }
    const std::vector<LedgerProblem> problems = LedgerValidator(ctx).check(set);
    QStringList got;
    for (const LedgerProblem &p : problems)
        got << QString::fromStdString(p.rule + " | " + p.toString());
    if (rule.isEmpty()) {
        QVERIFY2(problems.empty(), qPrintable(got.join(QLatin1Char('\n'))));
        return;
    }
    QCOMPARE(int(problems.size()), 1);
    const LedgerProblem &p = problems.front();
    QCOMPARE(QString::fromStdString(p.rule), rule);
    QCOMPARE(QString::fromStdString(p.field), field);
    QVERIFY2(QString::fromStdString(p.message).contains(message),
             qPrintable(QString::fromStdString(p.message)));
    QCOMPARE(QString::fromStdString(p.file), file);
    QVERIFY(p.line >= 1);
}

void TstLedgerValidator::activeWindow()
{
    QuarantineEntry e;
    e.opened = QDate(2024, 5, 1);
    e.expires = QDate(2024, 5, 14);
    ValidationContext ctx;
    ctx.today = QDate(2024, 5, 1);
    QVERIFY(LedgerValidator(ctx).isActive(e));
    ctx.today = QDate(2024, 5, 13);
    QVERIFY(LedgerValidator(ctx).isActive(e));
    ctx.today = QDate(2024, 5, 14);
    QVERIFY(!LedgerValidator(ctx).isActive(e));
    ctx.today = QDate(2024, 4, 30);
    QVERIFY(!LedgerValidator(ctx).isActive(e));
}

void TstLedgerValidator::problemsNameFileLineEntryAndField()
{
    const std::string text =
        "# freezes\n\n" +
        freezeWith(QStringLiteral("expires"), QStringLiteral("expires = 2024-05-02")).toStdString();
    const QuarantineLedger ledger = QuarantineLedger::parse(text, ".patchwitness/quarantine.toml");
    ValidationContext ctx;
    ctx.today = kToday;
    const std::vector<LedgerProblem> problems = LedgerValidator(ctx).check(ledger);
    QCOMPARE(int(problems.size()), 1);
    QCOMPARE(QString::fromStdString(problems.front().toString()),
             QStringLiteral(".patchwitness/quarantine.toml:7: tests/test_calc.py::test_add: "
                            "expires: expired on 2024-05-02"));
}

void TstLedgerValidator::headLookupIsOptional()
{
    // Without a head lookup (no repository at hand) substitutes and witnesses are not
    // looked up; everything else still is.
    LedgerSet set;
    set.add("quarantine.toml",
            freezeWith(QStringLiteral("substitute"),
                       QStringLiteral("substitute = \"tests/x.py::test_unknown\""))
                .toStdString(),
            "quarantine.toml");
    ValidationContext ctx;
    ctx.today = kToday;
    QVERIFY(LedgerValidator(ctx).check(set).empty());
}

// The forms' lookup (real facts through the extractor): a test that is not there is
// `false`; a file that does not parse, or no interpreter, is "cannot tell" with the reason.
void TstLedgerValidator::testLookupTellsMissingFromUnknown()
{
    pw::test::RepoBuilder builder;
    builder.write("tests/test_ok.py", "def test_a():\n    assert 1\n");
    builder.write("tests/test_broken.py", "def test_x(:\n    pass\n");
    builder.commit("tests");
    auto repo =
        std::make_shared<const pw::core::Repository>(pw::core::Repository::open(builder.root()));
    const pw::core::Revision head = repo->resolve("HEAD");
    QTemporaryDir cache;
    pw::core::TestsAtRevision lookup(
        repo, head, pw::core::FactExtractor(pw::test::testPython(), cache.path().toStdString()));
    QVERIFY(lookup.contains("tests/test_ok.py::test_a"));
    QVERIFY(!lookup.contains("tests/test_ok.py::test_gone"));
    QVERIFY(!lookup.contains("tests/test_absent.py::test_a"));
    try {
        lookup.contains("tests/test_broken.py::test_x");
        QFAIL("a file that does not parse is not an empty file");
    } catch (const pw::core::Error &e) {
        QVERIFY2(std::string(e.what()).starts_with("tests/test_broken.py:1:"), e.what());
        QVERIFY2(std::string(e.what()).find("does not parse") != std::string::npos, e.what());
    }

    QTemporaryDir emptyCache; // the first cache already holds these facts
    pw::core::TestsAtRevision blind(
        repo, head,
        pw::core::FactExtractor("/nonexistent/python3", emptyCache.path().toStdString()));
    try {
        blind.contains("tests/test_ok.py::test_a");
        QFAIL("no interpreter is not an empty file");
    } catch (const pw::core::Error &e) {
        QVERIFY2(std::string(e.what()).find("tests/test_ok.py: its tests cannot be read") == 0,
                 e.what());
    }
}

QTEST_GUILESS_MAIN(TstLedgerValidator)
#include "tst_ledgervalidator.moc"
