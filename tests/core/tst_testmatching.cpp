// Tests matched across a renamed or moved class or file, end to end on real git
// repositories and the real extractor: a test that survives a rename with its body
// extended is a rename, scored by latitude and strength across the match; only a
// genuinely lost test is T-DEL — never one whose body merely resembles a test that kept
// its own base counterpart.
#include "Facts.h"
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "audit/Audit.h"
#include "audit/ReportFormat.h"
#include "audit/TestPairing.h"

#include <QtTest>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

// The attrs-like comparison tests: one class, every test with a couple of checks.
const char *kCompare = R"(import pytest


class TestLtLeGeGt:
    @pytest.mark.parametrize("a, b", [(1, 2), (2, 3)])
    def test_lt(self, a, b):
        assert C(a) < C(b)
        assert not C(b) < C(a)

    def test_le(self):
        assert C(1) <= C(1)
        assert C(1) <= C(2)

    def test_ge(self):
        assert C(2) >= C(2)
        assert C(2) >= C(1)

    def test_gt(self):
        assert C(2) > C(1)
        assert not C(1) > C(2)
)";

// The same class renamed, every test gaining a case, and one new test.
const char *kCompareRenamed = R"(import pytest


class TestLtLeGeGtNe:
    @pytest.mark.parametrize("a, b", [(1, 2), (2, 3), (3, 4)])
    def test_lt(self, a, b):
        assert C(a) < C(b)
        assert not C(b) < C(a)
        assert (C(a) < C(a)) is False

    def test_le(self):
        assert C(1) <= C(1)
        assert C(1) <= C(2)
        assert (C(2) <= C(1)) is False

    def test_ge(self):
        assert C(2) >= C(2)
        assert C(2) >= C(1)
        assert (C(1) >= C(2)) is False

    def test_gt(self):
        assert C(2) > C(1)
        assert not C(1) > C(2)
        assert (C(1) > C(1)) is False

    def test_ne(self):
        assert C(1) != C(2)
)";

// A click-like CLI test file: tests that share boilerplate.
const char *kCli = R"(from click.testing import CliRunner


class TestHelp:
    def test_help(self):
        runner = CliRunner()
        result = runner.invoke(cli, ["--help"])
        assert result.exit_code == 0
        assert "Usage" in result.output

    def test_version(self):
        runner = CliRunner()
        result = runner.invoke(cli, ["--version"])
        assert result.exit_code == 0
        assert "1.0" in result.output


class TestRun:
    def test_run(self):
        runner = CliRunner()
        result = runner.invoke(cli, ["run"])
        assert result.exit_code == 0
        assert "ran" in result.output
)";

const char *kParser = R"(class TestParser:
    def test_numbers(self):
        value = parse("1")
        assert value == 1
        assert parse("2") == 2
        assert parse("") is None
)";

const char *kParse = R"(def test_parse():
    value = parse("1")
    assert value == 1
    assert parse("2") == 2
    assert parse("") is None


def test_parse_many():
    values = parse_all("1 2 3")
    assert values == [1, 2, 3]
    assert parse("2") == 2
    assert parse("") is None
    assert len(values) == 3
)";

QString text(const char *source)
{
    return QString::fromUtf8(source);
}

QString replaced(QString source, const char *from, const char *to)
{
    return source.replace(QLatin1String(from), QLatin1String(to));
}

QString without(const QString &source, const char *start, const char *end)
{
    const int a = source.indexOf(QLatin1String(start));
    const int b = end ? source.indexOf(QLatin1String(end), a) : source.size();
    return source.left(a) + source.mid(b);
}

QStringList describe(const GateReport &r)
{
    QStringList out;
    for (const Finding &f : r.findings) {
        out << QStringLiteral("%1 %2 %3")
                   .arg(QString::fromStdString(f.code), QLatin1String(severityName(f.severity)),
                        QString::fromStdString(f.test.empty() ? f.path : f.test));
    }
    return out;
}

QString messageOf(const GateReport &r, const QString &row)
{
    for (const Finding &f : r.findings) {
        const QString d =
            QStringLiteral("%1 %2 %3")
                .arg(QString::fromStdString(f.code), QLatin1String(severityName(f.severity)),
                     QString::fromStdString(f.test.empty() ? f.path : f.test));
        if (d == row)
            return QString::fromStdString(f.message);
    }
    return {};
}

} // namespace

class TstTestMatching : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void similarity_data();
    void similarity();
    void matching_data();
    void matching();
    void renameIsScoredAcrossTheMatch();
    void foldedTestsNameTheirSuccessor();
    void cachedFactsMatchAlike();

private:
    GateReport audit(const QVariantMap &base, const QVariantMap &changes);
    std::unique_ptr<QTemporaryDir> m_cache;
};

void TstTestMatching::init()
{
    m_cache = std::make_unique<QTemporaryDir>();
    QVERIFY(m_cache->isValid());
}

GateReport TstTestMatching::audit(const QVariantMap &base, const QVariantMap &changes)
{
    RepoBuilder repo;
    for (auto it = base.cbegin(); it != base.cend(); ++it)
        repo.write(it.key().toStdString(), it.value().toString().toStdString());
    const std::string baseCommit = repo.commit("base");
    for (auto it = changes.cbegin(); it != changes.cend(); ++it) {
        if (!it.value().isValid())
            repo.remove(it.key().toStdString());
        else
            repo.write(it.key().toStdString(), it.value().toString().toStdString());
    }
    const std::string headCommit = repo.commit("head");
    AuditRequest request;
    request.repoPath = repo.root();
    request.base = baseCommit;
    request.head = headCommit;
    request.python = pw::test::testPython();
    request.cacheDir = m_cache->path().toStdString();
    return Audit::run(request);
}

void TstTestMatching::similarity_data()
{
    QTest::addColumn<QString>("base");
    QTest::addColumn<QString>("head");
    QTest::addColumn<int>("percent");
    QTest::newRow("identical") << "def test_a():\n    x = f()\n    assert x == 1\n"
                               << "def test_a():\n    x = f()\n    assert x == 1\n"
                               << 100;
    QTest::newRow("formatting and comments are no change")
        << "def test_a():\n    x = f(1, 2)\n    assert x == 1\n"
        << "def test_a():\n    # the sum\n    x = f(1,\n          2)\n    assert x == 1  # ok\n"
        << 100;
    QTest::newRow("one assertion added to two") << "def test_a():\n    x = f()\n    assert x == 1\n"
                                                << "def test_a():\n    x = f()\n    assert x == "
                                                   "1\n    assert x > 0\n"
                                                << 80;
    QTest::newRow("an edit inside a with block replaces one statement, not the block")
        << "import pytest\ndef test_a():\n    with pytest.raises(E):\n        f(1)\n        g(1)\n"
        << "import pytest\ndef test_a():\n    with pytest.raises(E):\n        f(1)\n        g(2)\n"
        << 66;
    QTest::newRow("nothing in common") << "def test_a():\n    assert f() == 1\n"
                                       << "def test_a():\n    assert g() == 2\n"
                                       << 0;
}

void TstTestMatching::similarity()
{
    QFETCH(QString, base);
    QFETCH(QString, head);
    QFETCH(int, percent);
    const TestFunctionFacts b = pw::test::testFacts(base.toStdString(), "test_a");
    const TestFunctionFacts h = pw::test::testFacts(head.toStdString(), "test_a");
    QCOMPARE(statementSimilarity(b.statements, h.statements), percent);
}

void TstTestMatching::matching_data()
{
    QTest::addColumn<QVariantMap>("base");
    QTest::addColumn<QVariantMap>("changes"); // path → content, invalid QVariant → delete
    QTest::addColumn<QStringList>("expected");
    QTest::addColumn<QStringList>("absent"); // a code, or a whole row
    QTest::addColumn<QString>("verdict");

    const QString cmp = QStringLiteral("tests/test_cmp.py");
    const QString cli = QStringLiteral("tests/test_cli.py");

    QTest::newRow("class renamed in place, every test gaining a case")
        << QVariantMap{{cmp, text(kCompare)}} << QVariantMap{{cmp, text(kCompareRenamed)}}
        << QStringList{"T-RENAME info tests/test_cmp.py::TestLtLeGeGtNe::test_lt",
                       "T-RENAME info tests/test_cmp.py::TestLtLeGeGtNe::test_le",
                       "T-RENAME info tests/test_cmp.py::TestLtLeGeGtNe::test_ge",
                       "T-RENAME info tests/test_cmp.py::TestLtLeGeGtNe::test_gt",
                       "STRONGER:comparisons info tests/test_cmp.py::TestLtLeGeGtNe::test_le",
                       "NEW:test review tests/test_cmp.py::TestLtLeGeGtNe::test_ne"}
        << QStringList{"T-DEL", "BLOCKER:deleted", "LATITUDE",
                       "NEW:test review tests/test_cmp.py::TestLtLeGeGtNe::test_lt"}
        << "REVIEW";
    QTest::newRow("class moved to a new file, the old file keeping its other tests")
        << QVariantMap{{cmp, QString(text(kCompare) + "\n\ndef test_keep():\n    assert C(1) == "
                                                      "C(1)\n")}}
        << QVariantMap{{cmp, QStringLiteral("def test_keep():\n    assert C(1) == C(1)\n")},
                       {QStringLiteral("tests/test_order.py"), text(kCompareRenamed)}}
        << QStringList{"T-ADD info tests/test_order.py",
                       "T-RENAME info tests/test_order.py::TestLtLeGeGtNe::test_lt",
                       "T-RENAME info tests/test_order.py::TestLtLeGeGtNe::test_gt"}
        << QStringList{"T-DEL", "T-WEAK", "BLOCKER:deleted"} << "REVIEW";
    QTest::newRow("file moved with edits git no longer calls a rename")
        << QVariantMap{{cmp, text(kCompare)}}
        << QVariantMap{{cmp, QVariant()},
                       {QStringLiteral("tests/unit/test_ordering.py"),
                        QString("\"\"\"Ordering.\n\n" +
                                QStringLiteral("Explained at length.\n").repeated(40) + "\"\"\"\n" +
                                text(kCompareRenamed))}}
        << QStringList{"T-RENAME info tests/test_cmp.py",
                       "T-RENAME info tests/unit/test_ordering.py::TestLtLeGeGtNe::test_ge"}
        << QStringList{"T-GONE", "T-DEL", "BLOCKER:deleted"} << "REVIEW";
    QTest::newRow("pure move to another existing file")
        << QVariantMap{{cli, text(kCli)},
                       {QStringLiteral("tests/test_run.py"),
                        QStringLiteral("def test_other():\n    assert 1 == 1\n")}}
        << QVariantMap{{cli, without(text(kCli), "class TestRun:", nullptr)},
                       {QStringLiteral("tests/test_run.py"),
                        QString(
                            "from click.testing import CliRunner\n\n\ndef test_other():\n    "
                            "assert 1 == 1\n\n\n" +
                            text(kCli).mid(text(kCli).indexOf(QLatin1String("class TestRun:"))))}}
        << QStringList{"T-RENAME info tests/test_run.py::TestRun::test_run"}
        << QStringList{"T-DEL", "NEW:test", "BLOCKER:deleted", "T-WEAK"} << "PASS";
    QTest::newRow("test renamed and edited slightly, in place")
        << QVariantMap{{QStringLiteral("tests/test_parse.py"), text(kParse)}}
        << QVariantMap{{QStringLiteral("tests/test_parse.py"),
                        replaced(text(kParse), "def test_parse():\n    value = parse(\"1\")",
                                 "def test_parse_one():\n    value = parse(\" 1 \")")}}
        << QStringList{"T-RENAME info tests/test_parse.py::test_parse_one"}
        << QStringList{"T-DEL", "NEW:test"} << "PASS";
    // test_parse resembles test_parse_many (three statements in common), which keeps its
    // own base counterpart: the deletion stays a deletion.
    QTest::newRow("deleted test resembling a surviving test stays T-DEL")
        << QVariantMap{{QStringLiteral("tests/test_parse.py"), text(kParse)}}
        << QVariantMap{{QStringLiteral("tests/test_parse.py"),
                        without(text(kParse), "def test_parse():", "def test_parse_many")}}
        << QStringList{"T-DEL block tests/test_parse.py::test_parse",
                       "BLOCKER:deleted block tests/test_parse.py::test_parse"}
        << QStringList{"T-RENAME"} << "BLOCK";
    QTest::newRow("two deletions cannot hide behind one new test")
        << QVariantMap{{QStringLiteral("tests/test_parse.py"), text(kParse)}}
        << QVariantMap{{QStringLiteral("tests/test_parse.py"),
                        QStringLiteral("def test_parse_all():\n    values = parse_all(\"1 2 3\")\n"
                                       "    assert values == [1, 2, 3]\n    assert parse(\"2\") "
                                       "== 2\n    assert parse(\"\") is None\n    assert "
                                       "len(values) == 3\n")}}
        << QStringList{"T-RENAME info tests/test_parse.py::test_parse_all",
                       "T-DEL block tests/test_parse.py::test_parse"}
        << QStringList{"T-DEL block tests/test_parse.py::test_parse_many"} << "BLOCK";
    // TestHelp::test_help deleted, TestRun::test_help added: half their statements are the
    // shared boilerplate, and both classes live on. Not enough to call it a move.
    QTest::newRow("boilerplate alone does not move a test between surviving classes")
        << QVariantMap{{cli, text(kCli)}}
        << QVariantMap{{cli, replaced(without(text(kCli),
                                              "    def test_help(self):", "    def test_version"),
                                      "        assert \"ran\" in result.output\n",
                                      "        assert \"ran\" in result.output\n\n"
                                      "    def test_help(self):\n        runner = CliRunner()\n"
                                      "        result = runner.invoke(cli, [\"run\", \"--help\"])\n"
                                      "        assert result.exit_code == 0\n"
                                      "        assert \"run\" in result.output\n")}}
        << QStringList{"T-DEL block tests/test_cli.py::TestHelp::test_help",
                       "NEW:test review tests/test_cli.py::TestRun::test_help"}
        << QStringList{"T-RENAME"} << "BLOCK";
    QTest::newRow("a test moved into a module whose pytestmark skips it is T-SKIP")
        << QVariantMap{{cli, text(kCli)},
                       {QStringLiteral("tests/test_slow.py"),
                        QStringLiteral("import pytest\n\npytestmark = pytest.mark.skip(reason="
                                       "\"slow\")\n\n\ndef test_slow():\n    assert 1 == 1\n")}}
        << QVariantMap{{cli, without(text(kCli), "class TestRun:", nullptr)},
                       {QStringLiteral("tests/test_slow.py"),
                        QString(
                            "import pytest\nfrom click.testing import CliRunner\n\npytestmark = "
                            "pytest.mark.skip(reason=\"slow\")\n\n\ndef test_slow():\n    "
                            "assert 1 == 1\n\n\n" +
                            text(kCli).mid(text(kCli).indexOf(QLatin1String("class TestRun:"))))}}
        << QStringList{"T-RENAME info tests/test_slow.py::TestRun::test_run",
                       "T-SKIP block tests/test_slow.py::TestRun::test_run"}
        << QStringList{"T-DEL", "T-ADD"} << "BLOCK";
    QTest::newRow("a renamed class whose test gains a skip is T-SKIP, not T-ADD")
        << QVariantMap{{cmp, text(kCompare)}}
        << QVariantMap{{cmp, replaced(text(kCompareRenamed), "    def test_ge(self):",
                                      "    @pytest.mark.skip(reason=\"flaky\")\n    def "
                                      "test_ge(self):")}}
        << QStringList{"T-SKIP block tests/test_cmp.py::TestLtLeGeGtNe::test_ge",
                       "BLOCKER:marker block tests/test_cmp.py::TestLtLeGeGtNe::test_ge",
                       "LATITUDE block tests/test_cmp.py::TestLtLeGeGtNe::test_ge"}
        << QStringList{"T-DEL", "T-ADD"} << "BLOCK";
}

void TstTestMatching::matching()
{
    QFETCH(QVariantMap, base);
    QFETCH(QVariantMap, changes);
    QFETCH(QStringList, expected);
    QFETCH(QStringList, absent);
    QFETCH(QString, verdict);
    const GateReport report = audit(base, changes);
    const QStringList got = describe(report);
    const QString all = QLatin1String("\n  ") + got.join(QLatin1String("\n  "));
    for (const QString &row : expected)
        QVERIFY2(got.contains(row), qPrintable(row + QLatin1String(" not in:") + all));
    for (const QString &what : absent) {
        for (const QString &row : got) {
            const bool hit =
                what.contains(QLatin1Char(' ')) ? row == what : row.startsWith(what + ' ');
            QVERIFY2(!hit, qPrintable(QLatin1String("unexpected ") + row + all));
        }
    }
    QCOMPARE(QString::fromLatin1(verdictName(report.verdict)), verdict);
}

// Issue 20 item 9: two tests folded into one parametrised test are two T-DELs that each name
// the likely successor — a new or changed test of the same file calling what they called —
// which the report carries (and a waiver's witness is pre-filled with); a new test calling
// something else is no successor.
void TstTestMatching::foldedTestsNameTheirSuccessor()
{
    const QString path = QStringLiteral("tests/test_round.py");
    const QString base =
        QStringLiteral("from roundmath import round_half, parse\n\n\n"
                       "def test_half_up():\n    assert round_half(0.125, 2) == 0.13\n\n\n"
                       "def test_half_negative():\n    assert round_half(-0.125, 2) == -0.13\n\n\n"
                       "def test_parse():\n    assert parse('1') == 1\n");
    const QString head = QStringLiteral(
        "import pytest\nfrom roundmath import round_half, parse\n\n\n"
        "@pytest.mark.parametrize('value, expected', [(0.125, 0.13), (-0.125, -0.13)])\n"
        "def test_half_cases(value, expected):\n    assert round_half(value, 2) == expected\n\n\n"
        "def test_parse():\n    assert parse('1') == 1\n\n\n"
        "def test_parse_more():\n    assert parse('2') == 2\n");
    const GateReport report = audit({{path, base}}, {{path, head}});
    int deleted = 0;
    for (const Finding &f : report.findings) {
        if (f.code != "T-DEL")
            continue;
        ++deleted;
        QCOMPARE(f.successor.value_or(""), std::string("tests/test_round.py::test_half_cases"));
        QVERIFY2(f.message.find("likely successor: test_half_cases (new in this file, 2 "
                                "parametrised cases, calls round_half as it did)") !=
                     std::string::npos,
                 f.message.c_str());
    }
    QCOMPARE(deleted, 2);
    QVERIFY(formatReport(report, ReportFormat::Json)
                .find("\"successor\": \"tests/test_round.py::test_half_cases\"") !=
            std::string::npos);

    // The only new test calls parse(): no successor for a test of round_half.
    const QString unrelated =
        QStringLiteral("from roundmath import round_half, parse\n\n\n"
                       "def test_half_negative():\n    assert round_half(-0.125, 2) == -0.13\n\n\n"
                       "def test_parse():\n    assert parse('1') == 1\n\n\n"
                       "def test_parse_more():\n    assert parse('2') == 2\n");
    const GateReport other = audit({{path, base}}, {{path, unrelated}});
    int others = 0;
    for (const Finding &f : other.findings) {
        if (f.code == "T-DEL") {
            ++others;
            QVERIFY(!f.successor);
            QVERIFY(f.message.find("successor") == std::string::npos);
        }
    }
    QCOMPARE(others, 1); // test_half_up
    // Two unittest tests that share a matcher (assertEqual) share no code under test.
    const QString unit = QStringLiteral(
        "import unittest\nfrom roundmath import round_half, parse\n\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_half(self):\n        self.assertEqual(round_half(0.125, 2), 0.13)\n\n"
        "    def test_parse(self):\n        self.assertEqual(parse('1'), 1)\n");
    const QString unitHead =
        QStringLiteral("import unittest\nfrom roundmath import round_half, parse\n\n\n"
                       "class T(unittest.TestCase):\n"
                       "    def test_parse(self):\n        self.assertEqual(parse('1'), 1)\n"
                       "        self.assertEqual(parse('2'), 2)\n");
    const GateReport unittestReport = audit({{path, unit}}, {{path, unitHead}});
    int unitDeleted = 0;
    for (const Finding &f : unittestReport.findings) {
        if (f.code == "T-DEL") {
            ++unitDeleted;
            QVERIFY2(!f.successor, f.successor.value_or("").c_str());
        }
    }
    QCOMPARE(unitDeleted, 1);
}

// The match carries the oracle across: an assertion loosened in a renamed class is latitude
// and WEAKER under the new id (the assertion it gained is new checking, not latitude), and
// the message says how much of the body was kept.
void TstTestMatching::renameIsScoredAcrossTheMatch()
{
    const QString path = QStringLiteral("tests/test_parser.py");
    const QString head =
        replaced(replaced(text(kParser), "class TestParser:", "class TestParsing:"),
                 "        assert value == 1\n        assert parse(\"2\") == 2\n",
                 "        assert value\n        assert parse(\"2\") == 2\n        assert "
                 "parse(\"3\") == 3\n");
    const GateReport report = audit({{path, text(kParser)}}, {{path, head}});
    const QStringList got = describe(report);
    const QString id = QStringLiteral("tests/test_parser.py::TestParsing::test_numbers");
    QVERIFY2(got.contains("LATITUDE review " + id), qPrintable(got.join(QLatin1Char('\n'))));
    QVERIFY(got.contains("WEAKER:truthiness review " + id));
    QVERIFY(!got.contains("NEW:test review " + id));
    QCOMPARE(report.latitude.total, 3); // compare rank 0->3; the new assertion scores nothing
    QCOMPARE(messageOf(report, "T-RENAME info " + id),
             QStringLiteral("renamed from TestParser::test_numbers (66% of its statements kept): "
                            "scored by latitude and strength across the match"));
    const GateReport cmp = audit({{QStringLiteral("tests/test_cmp.py"), text(kCompare)}},
                                 {{QStringLiteral("tests/test_cmp.py"), text(kCompareRenamed)}});
    QCOMPARE(messageOf(cmp, QStringLiteral("T-RENAME info tests/test_cmp.py::TestLtLeGeGtNe::"
                                           "test_lt")),
             QStringLiteral("renamed from TestLtLeGeGt::test_lt (80% of its statements kept): "
                            "scored by latitude and strength across the match"));
}

// The statement hashes live in the fact cache too: a warm audit matches as a cold one.
void TstTestMatching::cachedFactsMatchAlike()
{
    const QString cmp = QStringLiteral("tests/test_cmp.py");
    const GateReport cold = audit({{cmp, text(kCompare)}}, {{cmp, text(kCompareRenamed)}});
    const GateReport warm = audit({{cmp, text(kCompare)}}, {{cmp, text(kCompareRenamed)}});
    QCOMPARE(cold.stats.cacheHits, 0);
    QCOMPARE(warm.stats.cacheHits, 2);
    QCOMPARE(warm.stats.interpreterRuns, 0);
    QCOMPARE(describe(warm), describe(cold));
    QVERIFY(describe(warm).contains(
        QStringLiteral("T-RENAME info tests/test_cmp.py::TestLtLeGeGtNe::test_lt")));
}

QTEST_GUILESS_MAIN(TstTestMatching)
#include "tst_testmatching.moc"
