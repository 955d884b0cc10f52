// Oracle strength: every flag from real extracted facts, and the action rule
// (any BLOCKER → block; WEAKER without a strength gain in the same file → review; else pass).
#include "Facts.h"
#include "audit/StrengthGate.h"

#include <QtTest>

using namespace pw::core;
using pw::test::testFacts;

class TstStrength : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void flags_data();
    void flags();
    void action_data();
    void action();
};

void TstStrength::flags_data()
{
    QTest::addColumn<QString>("base"); // empty: only at head
    QTest::addColumn<QString>("head"); // empty: only at base
    QTest::addColumn<QStringList>("flags");
    const QString two = QStringLiteral("def test_a():\n    assert f() == 1\n    assert g() == 2\n");
    QTest::newRow("unchanged") << two << two << QStringList();
    QTest::newRow("WEAKER:assertions + comparisons")
        << two << "def test_a():\n    assert f() == 1\n"
        << QStringList{"WEAKER:assertions", "WEAKER:comparisons"};
    QTest::newRow("WEAKER:truthiness")
        << two << "def test_a():\n    assert f() == 1\n    assert g()\n"
        << QStringList{"WEAKER:comparisons", "WEAKER:truthiness"};
    QTest::newRow("WEAKER:tolerance")
        << "import pytest\ndef test_a():\n    assert f() == pytest.approx(1, abs=0.01)\n"
        << "import pytest\ndef test_a():\n    assert f() == pytest.approx(1, abs=0.5)\n"
        << QStringList{"WEAKER:tolerance"};
    QTest::newRow("WEAKER:raises-scope")
        << "import pytest\ndef test_a():\n    with pytest.raises(ValueError):\n        f()\n"
        << "import pytest\ndef test_a():\n    with pytest.raises(BaseException):\n        f()\n"
        << QStringList{"WEAKER:raises-scope"};
    QTest::newRow("BLOCKER:marker")
        << "import pytest\ndef test_a():\n    assert f() == 1\n"
        << "import pytest\n@pytest.mark.xfail\ndef test_a():\n    assert f() == 1\n"
        << QStringList{"BLOCKER:marker"};
    QTest::newRow("STRONGER:comparisons") << "def test_a():\n    assert f()\n"
                                          << "def test_a():\n    assert f() == 1\n"
                                          << QStringList{"STRONGER:comparisons"};
    QTest::newRow("NEW:test") << QString() << two << QStringList{"NEW:test"};
    // A test that does not exist at base cannot have a marker added.
    QTest::newRow("new test born skipped is NEW:test, never BLOCKER:marker")
        << QString()
        << "import pytest\n@pytest.mark.skipif(True, reason='x')\n@pytest.mark.xfail\ndef "
           "test_a():\n    assert f() == 1\n"
        << QStringList{"NEW:test"};
    QTest::newRow("BLOCKER:deleted") << two << QString() << QStringList{"BLOCKER:deleted"};
}

void TstStrength::flags()
{
    QFETCH(QString, base);
    QFETCH(QString, head);
    QFETCH(QStringList, flags);
    std::optional<TestFunctionFacts> b, h;
    if (!base.isEmpty())
        b = testFacts(base.toStdString(), "test_a");
    if (!head.isEmpty())
        h = testFacts(head.toStdString(), "test_a");
    const StrengthRow row = StrengthGate::compare("tests/test_x.py::test_a", "tests/test_x.py",
                                                  b ? &*b : nullptr, h ? &*h : nullptr);
    QStringList got;
    for (const std::string &f : row.flags)
        got << QString::fromStdString(f);
    QCOMPARE(got, flags);
}

void TstStrength::action_data()
{
    // rows: "path flag,flag" per test
    QTest::addColumn<QStringList>("rows");
    QTest::addColumn<int>("action");
    QTest::newRow("nothing") << QStringList() << int(Severity::Info);
    QTest::newRow("stronger only passes")
        << QStringList{"a STRONGER:comparisons"} << int(Severity::Info);
    QTest::newRow("weaker alone reviews")
        << QStringList{"a WEAKER:assertions"} << int(Severity::Review);
    QTest::newRow("weaker with a gain in the same file passes")
        << QStringList{"a WEAKER:assertions", "a STRONGER:comparisons"} << int(Severity::Info);
    QTest::newRow("a gain in another file does not help")
        << QStringList{"a WEAKER:assertions", "b STRONGER:comparisons"} << int(Severity::Review);
    QTest::newRow("blocker blocks whatever else")
        << QStringList{"a STRONGER:comparisons", "a BLOCKER:marker"} << int(Severity::Block);
    QTest::newRow("deleted blocks") << QStringList{"a BLOCKER:deleted"} << int(Severity::Block);
    QTest::newRow("new test is reviewed") << QStringList{"a NEW:test"} << int(Severity::Review);
}

void TstStrength::action()
{
    QFETCH(QStringList, rows);
    QFETCH(int, action);
    StrengthReport report;
    for (const QString &r : rows) {
        StrengthRow row;
        row.path = r.section(QLatin1Char(' '), 0, 0).toStdString();
        row.test = row.path + "::t" + std::to_string(report.tests.size());
        for (const QString &flag : r.section(QLatin1Char(' '), 1).split(QLatin1Char(',')))
            row.flags.push_back(flag.toStdString());
        report.tests.push_back(row);
    }
    StrengthGate::finalize(report);
    QCOMPARE(int(report.action), action);
    // findings carry the same severities as the rows' actions
    Severity worst = Severity::Info;
    for (const Finding &f : StrengthGate::findings(report))
        worst = std::max(worst, f.severity);
    QCOMPARE(int(worst), action);
}

QTEST_GUILESS_MAIN(TstStrength)
#include "tst_strength.moc"
