// The census classification on its own: node ids as the plugin's collect-only
// dump lists them, static facts from the real extractor, no pytest run. The same class of
// questions the static audit answers, answered the same way: a node born skipped is no
// skip added, and a test found again across a renamed or moved class or file (the same
// body, or most of its statements) is a rename, not a removal.
#include "Facts.h"
#include "dynamic/CensusClassifier.h"

#include <QtTest>

using namespace pw::core;

namespace {

const char *kCompare = R"(import pytest


class TestLtLeGeGt:
    def test_le(self):
        assert C(1) <= C(1)
        assert C(1) <= C(2)

    def test_gt(self):
        assert C(2) > C(1)
        assert (C(1) > C(2)) is False
)";

const char *kCompareRenamed = R"(import pytest


class TestLtLeGeGtNe:
    def test_le(self):
        assert C(1) <= C(1)
        assert C(1) <= C(2)
        assert (C(2) <= C(1)) is False

    def test_gt(self):
        assert C(2) > C(1)

    def test_ne(self):
        assert C(1) != C(2)
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

const char *kCases = R"(import pytest


@pytest.mark.parametrize("x", [1, 2])
def test_x(x):
    assert x > 0
)";

// "id" or "id skipped" or "id xfail": a node of a collect-only dump.
CensusCollection collection(const QStringList &nodes)
{
    CensusCollection c;
    c.ok = true;
    for (const QString &n : nodes) {
        const QStringList parts = n.split(QLatin1Char(' '));
        CensusNode node;
        node.nodeId = parts.front().toStdString();
        node.skipped = parts.contains(QLatin1String("skipped"));
        if (parts.contains(QLatin1String("xfail")))
            node.markers.push_back("xfail");
        c.dump.nodes.push_back(node);
    }
    return c;
}

CensusStatic facts(const QVariantMap &files)
{
    CensusStatic side;
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        addCensusFacts(
            side, pw::test::factsFor(it.key().toStdString(), it.value().toString().toStdString()));
    return side;
}

QString text(const char *source)
{
    return QString::fromUtf8(source);
}

} // namespace

class TstCensusClassifier : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void classify_data();
    void classify();
};

void TstCensusClassifier::classify_data()
{
    QTest::addColumn<QVariantMap>("baseFiles");
    QTest::addColumn<QVariantMap>("headFiles");
    QTest::addColumn<QStringList>("baseNodes");
    QTest::addColumn<QStringList>("headNodes");
    QTest::addColumn<QStringList>("expected"); // "node change code" (code "-": none)
    QTest::addColumn<QStringList>("codes");    // the findings' codes, in order

    const QString cmp = QStringLiteral("tests/test_cmp.py");
    const QString t = QStringLiteral("tests/test_t.py");
    QTest::newRow("class renamed, its tests extended: a rename, not a removal")
        << QVariantMap{{cmp, text(kCompare)}} << QVariantMap{{cmp, text(kCompareRenamed)}}
        << QStringList{"tests/test_cmp.py::TestLtLeGeGt::test_le",
                       "tests/test_cmp.py::TestLtLeGeGt::test_gt"}
        << QStringList{"tests/test_cmp.py::TestLtLeGeGtNe::test_le",
                       "tests/test_cmp.py::TestLtLeGeGtNe::test_gt",
                       "tests/test_cmp.py::TestLtLeGeGtNe::test_ne"}
        << QStringList{"tests/test_cmp.py::TestLtLeGeGt::test_le renamed C-RENAME",
                       "tests/test_cmp.py::TestLtLeGeGtNe::test_le renamed-to -",
                       "tests/test_cmp.py::TestLtLeGeGt::test_gt renamed C-RENAME",
                       "tests/test_cmp.py::TestLtLeGeGtNe::test_gt renamed-to C-DENSITY",
                       "tests/test_cmp.py::TestLtLeGeGtNe::test_ne added -"}
        << QStringList{"C-RENAME", "C-RENAME", "C-DENSITY"};
    QTest::newRow("deleted test resembling a surviving one stays C-REMOVED")
        << QVariantMap{{t, text(kParse)}}
        << QVariantMap{{t, text(kParse).mid(text(kParse).indexOf(QLatin1String("def "
                                                                               "test_parse_"
                                                                               "many")))}}
        << QStringList{"tests/test_t.py::test_parse", "tests/test_t.py::test_parse_many"}
        << QStringList{"tests/test_t.py::test_parse_many"}
        << QStringList{"tests/test_t.py::test_parse removed C-REMOVED",
                       "tests/test_t.py::test_parse_many kept -"}
        << QStringList{"C-REMOVED"};
    QTest::newRow("new test born skipped is an addition, not a skip added")
        << QVariantMap{{t, text(kCases)}}
        << QVariantMap{{t, QString(text(kCases) + "\n\n@pytest.mark.skip\ndef test_new():\n    "
                                                  "assert 1 == 1\n")}}
        << QStringList{"tests/test_t.py::test_x[1]", "tests/test_t.py::test_x[2]"}
        << QStringList{"tests/test_t.py::test_x[1]", "tests/test_t.py::test_x[2]",
                       "tests/test_t.py::test_new skipped"}
        << QStringList{"tests/test_t.py::test_new added -"} << QStringList();
    QTest::newRow("new parameter case born skipped is no skip added")
        << QVariantMap{{t, text(kCases)}} << QVariantMap{{t, text(kCases)}}
        << QStringList{"tests/test_t.py::test_x[1]", "tests/test_t.py::test_x[2]"}
        << QStringList{"tests/test_t.py::test_x[one]", "tests/test_t.py::test_x[two]",
                       "tests/test_t.py::test_x[3] skipped"}
        << QStringList{"tests/test_t.py::test_x[1] renamed C-RENAME",
                       "tests/test_t.py::test_x[3] renamed-to -",
                       "tests/test_t.py::test_x[one] renamed-to -"}
        << QStringList();
    QTest::newRow("a case that ran at base and is skipped under its new id is C-SKIP")
        << QVariantMap{{t, text(kCases)}} << QVariantMap{{t, text(kCases)}}
        << QStringList{"tests/test_t.py::test_x[1]", "tests/test_t.py::test_x[2]"}
        << QStringList{"tests/test_t.py::test_x[one]", "tests/test_t.py::test_x[two] skipped"}
        << QStringList{"tests/test_t.py::test_x[two] skip-added C-SKIP"} << QStringList{"C-SKIP"};
    QTest::newRow("a renamed class whose test becomes xfail is C-SKIP")
        << QVariantMap{{cmp, text(kCompare)}} << QVariantMap{{cmp, text(kCompareRenamed)}}
        << QStringList{"tests/test_cmp.py::TestLtLeGeGt::test_le"}
        << QStringList{"tests/test_cmp.py::TestLtLeGeGtNe::test_le xfail"}
        << QStringList{"tests/test_cmp.py::TestLtLeGeGt::test_le renamed C-RENAME",
                       "tests/test_cmp.py::TestLtLeGeGtNe::test_le skip-added C-SKIP"}
        << QStringList{"C-RENAME", "C-SKIP"};
}

void TstCensusClassifier::classify()
{
    QFETCH(QVariantMap, baseFiles);
    QFETCH(QVariantMap, headFiles);
    QFETCH(QStringList, baseNodes);
    QFETCH(QStringList, headNodes);
    QFETCH(QStringList, expected);
    QFETCH(QStringList, codes);
    CensusReport report;
    const CensusLedgers ledgers(std::nullopt, CensusRemovals(), LedgerSet(), QDate(2024, 5, 10));
    classifyCensus(report, collection(baseNodes), collection(headNodes), {}, {}, facts(baseFiles),
                   facts(headFiles), ledgers, [](const std::string &) { return std::nullopt; });
    QStringList rows, got;
    for (const CensusRow &r : report.rows)
        rows << QStringLiteral("%1 %2 %3")
                    .arg(QString::fromStdString(r.nodeId), QString::fromStdString(r.change),
                         r.code.empty() ? QStringLiteral("-") : QString::fromStdString(r.code));
    for (const Finding &f : report.findings)
        got << QString::fromStdString(f.code);
    const QString all = rows.join(QLatin1Char('\n'));
    for (const QString &row : expected)
        QVERIFY2(rows.contains(row), qPrintable(row + QLatin1String(" not in:\n") + all));
    QCOMPARE(got, codes);
}

QTEST_GUILESS_MAIN(TstCensusClassifier)
#include "tst_censusclassifier.moc"
