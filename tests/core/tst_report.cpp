// The gate report in every format against reviewed golden files (tests/golden/report;
// regenerate with tests/golden/report/regenerate.sh), and the verdict rule (the worst unsatisfied
// finding decides).
#include "TestSupport.h"
#include "audit/ReportFormat.h"

#include <QXmlStreamReader>
#include <QtTest>
#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

using namespace pw::core;

namespace {

Finding finding(const char *gate, const char *code, Severity s, const char *path, int line,
                const char *test, const char *message, const char *evidence)
{
    Finding f;
    f.gate = gate;
    f.code = code;
    f.severity = s;
    f.path = path;
    f.line = line;
    f.test = test;
    f.message = message;
    f.evidence = evidence;
    return f;
}

GateReport sampleReport()
{
    GateReport r;
    r.repo = "/work/repo";
    r.base = {"main", std::string("0123456789abcdef0123456789abcdef01234567")};
    r.head = {"WORKTREE", std::nullopt};
    r.findings.push_back(finding("manifest", "T-DEL", Severity::Block, "tests/test_calc.py", 8,
                                 "tests/test_calc.py::test_sub",
                                 "test function test_sub disappeared",
                                 "replacement test id or written rationale (a census waiver)"));
    Finding satisfied =
        finding("manifest", "T-SKIP", Severity::Block, "tests/test_calc.py", 3,
                "tests/test_calc.py::test_add", "skip/xfail newly present: pytest.mark.skip",
                "a freeze record with an expiry");
    satisfied.satisfiedBy = "quarantine.toml: tests/test_calc.py::test_add";
    r.findings.push_back(satisfied);
    r.findings.push_back(finding("latitude", "LATITUDE", Severity::Review, "tests/test_calc.py", 12,
                                 "tests/test_calc.py::test_mul",
                                 "oracle latitude +3: compare rank 0->3 (line 13)",
                                 "reviewer acknowledgement of the widening"));
    r.findings.push_back(finding(
        "conftest", "CONFTEST-HOOK", Severity::Review, "tests/conftest.py", 4, "",
        "collection logic touched (`pytest_collection_modifyitems` added): human review required",
        "reviewer confirms which tests the hook skips, deselects or marks"));
    r.findings.push_back(finding("manifest", "T-ADD", Severity::Info, "tests/test_new.py", 1, "",
                                 "new test file with 1 test(s) | <pipes> & ampersands", "none"));
    r.latitude = {3,
                  4,
                  "small widening: reviewer acknowledgement required",
                  {{"tests/test_calc.py::test_mul",
                    "tests/test_calc.py",
                    12,
                    3,
                    {"compare rank 0->3 (line 13)"}},
                   {"tests/test_calc.py::test_div", "tests/test_calc.py", 20, 0, {}}}};
    StrengthRow row;
    row.test = "tests/test_calc.py::test_mul";
    row.path = "tests/test_calc.py";
    row.line = 12;
    row.base = StrengthMetrics{1, 1, 0, 1e-6, 0, 0};
    row.head = StrengthMetrics{1, 0, 1, std::numeric_limits<double>::infinity(), 0, 0};
    row.flags = {"WEAKER:comparisons", "WEAKER:truthiness", "WEAKER:tolerance"};
    row.action = Severity::Review;
    r.strength.tests.push_back(row);
    r.strength.action = Severity::Review;
    r.fixtures.push_back(
        {"tests/fixtures/expected.json", std::string("aa11"), std::string("bb22")});
    r.changedFiles.push_back({"tests/test_calc.py", "", "M", true, false, false});
    r.changedFiles.push_back(
        {"tests/test_calculator.py", "tests/test_calc_old.py", "R", true, false, false});
    r.warnings.push_back("config.toml:3:1: unknown key `latitud_max` (ignored)");
    r.stats = {4, 3, 1, 1};
    r.computeVerdict();
    return r;
}

} // namespace

class TstReport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void formats_data();
    void formats();
    void verdict_data();
    void verdict();
    void hostileNamesStayReadable_data();
    void hostileNamesStayReadable();
    void manifestOnlyWhenAsked();
    void findingJsonNullsAbsentFields();
};

void TstReport::formats_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("golden");
    QTest::newRow("text") << "text"
                          << "report/report.txt";
    QTest::newRow("json") << "json"
                          << "report/report.json";
    QTest::newRow("md") << "md"
                        << "report/report.md";
    QTest::newRow("junit") << "junit"
                           << "report/report.junit.xml";
    QTest::newRow("html") << "html"
                          << "report/report.html";
}

void TstReport::formats()
{
    QFETCH(QString, format);
    QFETCH(QString, golden);
    const std::string text =
        formatReport(sampleReport(), *reportFormatFromName(format.toStdString()));
    QString diff;
    QVERIFY2(pw::test::compareGolden(golden, QByteArray::fromStdString(text), &diff),
             qPrintable(diff));
}

void TstReport::verdict_data()
{
    QTest::addColumn<QList<int>>("severities"); // negative: satisfied
    QTest::addColumn<QString>("verdict");
    QTest::newRow("none") << QList<int>() << "PASS";
    QTest::newRow("info only") << QList<int>{int(Severity::Info)} << "PASS";
    QTest::newRow("review") << QList<int>{int(Severity::Info), int(Severity::Review)} << "REVIEW";
    QTest::newRow("block wins") << QList<int>{int(Severity::Review), int(Severity::Block)}
                                << "BLOCK";
    QTest::newRow("satisfied block does not block")
        << QList<int>{-int(Severity::Block), int(Severity::Review)} << "REVIEW";
    QTest::newRow("all satisfied")
        << QList<int>{-int(Severity::Block), -int(Severity::Review)} << "PASS";
}

void TstReport::verdict()
{
    QFETCH(QList<int>, severities);
    QFETCH(QString, verdict);
    GateReport r;
    for (int s : severities) {
        Finding f;
        f.severity = Severity(std::abs(s));
        if (s < 0)
            f.satisfiedBy = "ledger entry";
        r.findings.push_back(f);
    }
    r.computeVerdict();
    QCOMPARE(QString::fromLatin1(verdictName(r.verdict)), verdict);
}

void TstReport::hostileNamesStayReadable_data()
{
    QTest::addColumn<QString>("format");
    for (const char *format : {"text", "json", "md", "junit", "html"})
        QTest::newRow(format) << QString::fromLatin1(format);
}

// A file name from the reviewed repository is bytes: Latin-1 (not UTF-8), a terminal escape
// that would clear the screen above it, pipes and backticks that would break a Markdown
// table. Every format stays valid UTF-8 without control characters, and keeps its shape.
void TstReport::hostileNamesStayReadable()
{
    QFETCH(QString, format);
    GateReport r = sampleReport();
    r.findings.push_back(
        finding("manifest", "T-ADD", Severity::Review, "tests/caf\xe9|`x`\x1b[2J_\xc0\xaf.py", 1,
                "", "new test file \xff\xfe\xed\xa0\x80 \x1b]0;title\x07 \xc2\x9b", "none"));
    const QByteArray bytes =
        QByteArray::fromStdString(formatReport(r, *reportFormatFromName(format.toStdString())));
    QCOMPARE(QString::fromUtf8(bytes).toUtf8(), bytes); // Qt replaces what is not UTF-8
    for (const char control : {'\x1b', '\x07', '\r', '\0'})
        QVERIFY2(!bytes.contains(control), bytes.constData());
    if (format != QLatin1String("json"))      // JSON keeps the text as it is, only valid
        QVERIFY(!bytes.contains("\xc2\x9b")); // C1 CSI
    QVERIFY2(bytes.contains("caf\xEF\xBF\xBD") || bytes.contains("caf\\ufffd"), bytes.constData());
    if (format == QLatin1String("md")) {
        const QList<QByteArray> rows = bytes.split('\n');
        const auto row = std::find_if(rows.begin(), rows.end(),
                                      [](const QByteArray &line) { return line.contains("caf"); });
        QVERIFY(row != rows.end());
        int cells = 0;
        for (int i = 0; i < row->size(); ++i)
            cells += row->at(i) == '|' && (i == 0 || row->at(i - 1) != '\\') ? 1 : 0;
        QVERIFY2(cells == 6, row->constData()); // five cells, as in the header
        QVERIFY2(row->contains("``tests/caf\xEF\xBF\xBD\\|`x`"), row->constData());
    } else if (format == QLatin1String("junit")) {
        QXmlStreamReader xml(bytes);
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    } else if (format == QLatin1String("json")) {
        QVERIFY(!nlohmann::json::parse(bytes.toStdString(), nullptr, false).is_discarded());
    }
}

void TstReport::manifestOnlyWhenAsked()
{
    GateReport r = sampleReport();
    QVERIFY(!reportToJson(r).contains("manifest"));
    r.manifest = Manifest{{{"tests/test_a.py", {"abc", {"test_a"}, {"slow"}, 2}}},
                          {{"tests/fixtures/x", "ff"}}};
    const auto j = reportToJson(r);
    QCOMPARE(j["manifest"]["tests"]["tests/test_a.py"]["asserts"].get<int>(), 2);
    QCOMPARE(j["manifest"]["fixtures"]["tests/fixtures/x"].get<std::string>(), std::string("ff"));
}

// The census report writes its findings with the same function (one contract for both).
void TstReport::findingJsonNullsAbsentFields()
{
    Finding f;
    f.gate = "census";
    f.code = "C-COLLECT";
    f.path = "tests/test_x.py";
    const nlohmann::json bare = findingJson(f);
    QVERIFY(bare.at("test").is_null());
    QVERIFY(bare.at("satisfied_by").is_null());
    f.test = "tests/test_x.py::test_a";
    f.satisfiedBy = "census_waiver.toml:3";
    const nlohmann::json full = findingJson(f);
    QCOMPARE(full.at("test").get<std::string>(), f.test);
    QCOMPARE(full.at("satisfied_by").get<std::string>(), *f.satisfiedBy);
}

QTEST_GUILESS_MAIN(TstReport)
#include "tst_report.moc"
