// Oracle latitude: every signal, its weight, the alignment rule and the
// policy thresholds, on facts the real extractor produces from real Python.
#include "Facts.h"
#include "audit/LatitudeScorer.h"

#include <QtTest>

using namespace pw::core;
using pw::test::testFacts;

class TstLatitude : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void score_data();
    void score();
    void policy_data();
    void policy();
};

void TstLatitude::score_data()
{
    QTest::addColumn<QString>("base");
    QTest::addColumn<QString>("head");
    QTest::addColumn<int>("expected");
    QTest::addColumn<QStringList>("signals");

    QTest::newRow("unchanged") << "def test_a():\n    assert f() == 1\n"
                               << "def test_a():\n    assert f() == 1\n"
                               << 0 << QStringList();
    QTest::newRow("stricter: in -> ==") << "def test_a():\n    assert 1 in f()\n"
                                        << "def test_a():\n    assert f() == [1]\n"
                                        << 0 << QStringList();
    QTest::newRow("compare rank 0->1") << "def test_a():\n    assert f() == 3\n"
                                       << "def test_a():\n    assert f() >= 3\n"
                                       << 1 << QStringList{"compare rank 0->1"};
    QTest::newRow("compare rank 0->2") << "def test_a():\n    assert f() == [1]\n"
                                       << "def test_a():\n    assert 1 in f()\n"
                                       << 2 << QStringList{"compare rank 0->2"};
    QTest::newRow("compare rank 0->3 (truthiness)") << "def test_a():\n    assert f() == 3\n"
                                                    << "def test_a():\n    assert f()\n"
                                                    << 3 << QStringList{"compare rank 0->3"};
    QTest::newRow("assertion removed")
        << "def test_a():\n    assert f() == 3\n    assert g() == 4\n"
        << "def test_a():\n    assert f() == 3\n"
        << 1 << QStringList{"1 assertion(s) removed"};
    QTest::newRow("inserted assertion does not shift the rest")
        << "def test_a():\n    assert f() == 3\n    assert g() == 4\n"
        << "def test_a():\n    assert h() == 0\n    assert f() == 3\n    assert g() == 4\n"
        << 0 << QStringList();
    // An assertion present only at head is new checking: it makes no oracle cheaper, however
    // loose it is (a truthiness check, a membership test, a wide tolerance).
    QTest::newRow("an assertion only at head is new checking, not latitude")
        << "def test_a():\n    assert f() == 3\n"
        << "def test_a():\n    assert f() == 3\n    assert g()\n"
        << 0 << QStringList();
    QTest::newRow("a loose assertion inserted before the others scores nothing")
        << "def test_a():\n    assert f() == 3\n"
        << "def test_a():\n    assert 1 in g()\n    assert f() == 3\n"
        << 0 << QStringList();
    QTest::newRow("a tolerant assertion only at head scores nothing")
        << "from pytest import approx\ndef test_a():\n    assert f() == 3\n"
        << "from pytest import approx\ndef test_a():\n    assert f() == 3\n    assert g() == "
           "approx(1.0, rel=0.5)\n"
        << 0 << QStringList();
    QTest::newRow("a loosened assertion still scores beside a new one")
        << "def test_a():\n    assert f() == 3\n    assert g() == 4\n"
        << "def test_a():\n    assert f() == 3\n    assert g()\n    assert h()\n"
        << 3 << QStringList{"compare rank 0->3"};
    QTest::newRow("exception rank 0->3")
        << "import pytest\ndef test_a():\n    with pytest.raises(ValueError):\n        f()\n"
        << "import pytest\ndef test_a():\n    with pytest.raises(Exception):\n        f()\n"
        << 3 << QStringList{"exception rank 0->3"};
    QTest::newRow("exception tuple takes its widest member")
        << "import pytest\ndef test_a():\n    with pytest.raises(KeyError):\n        f()\n"
        << "import pytest\ndef test_a():\n    with pytest.raises((KeyError, BaseException)):\n     "
           "   f()\n"
        << 3 << QStringList{"exception rank 0->3"};
    QTest::newRow("exception base class KeyError->LookupError")
        << "import pytest\ndef test_a():\n    with pytest.raises(KeyError):\n        f()\n"
        << "import pytest\ndef test_a():\n    with pytest.raises(LookupError):\n        f()\n"
        << 1 << QStringList{"exception rank 0->1 (KeyError->LookupError, base class)"};
    QTest::newRow("exception base class FileNotFoundError->OSError, same rank")
        << "import pytest\ndef test_a():\n    with pytest.raises(FileNotFoundError):\n        f()\n"
        << "import pytest\ndef test_a():\n    with pytest.raises(OSError):\n        f()\n"
        << 1 << QStringList{"exception FileNotFoundError->OSError (base class)"};
    QTest::newRow("assertRaises widened")
        << "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        with "
           "self.assertRaises(TypeError):\n            f()\n"
        << "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        with "
           "self.assertRaises(Exception):\n            f()\n"
        << 3 << QStringList{"exception rank 0->3"};
    QTest::newRow("tolerance approx default -> abs 0.1")
        << "from pytest import approx\ndef test_a():\n    assert f() == approx(1.0)\n"
        << "from pytest import approx\ndef test_a():\n    assert f() == approx(1.0, abs=0.1)\n"
        << 2 << QStringList{"tolerance 1e-06->0.1"};
    QTest::newRow("tolerance narrowed scores nothing")
        << "import math\ndef test_a():\n    assert math.isclose(f(), 1.0, rel_tol=0.01)\n"
        << "import math\ndef test_a():\n    assert math.isclose(f(), 1.0, rel_tol=0.001)\n"
        << 0 << QStringList();
    QTest::newRow("tolerance abs(a-b) literal widened")
        << "def test_a():\n    assert abs(f() - 1.0) < 1e-9\n"
        << "def test_a():\n    assert abs(f() - 1.0) < 1e-3\n"
        << 2 << QStringList{"tolerance 1e-09->0.001"};
    QTest::newRow("tolerance computed is infinitely wide")
        << "def test_a():\n    assert abs(f() - 1.0) < 1e-9\n"
        << "def test_a():\n    eps = 1e-9\n    assert abs(f() - 1.0) < eps\n"
        << 2 << QStringList{"tolerance 1e-09->computed"};
    QTest::newRow("assertAlmostEqual places 7 -> delta 0.5")
        << "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        "
           "self.assertAlmostEqual(f(), 1.0)\n"
        << "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        "
           "self.assertAlmostEqual(f(), 1.0, delta=0.5)\n"
        << 2 << QStringList{"tolerance 1e-07->0.5"};
    QTest::newRow("tolerance added where the check was exact")
        << "from pytest import approx\ndef test_a():\n    assert f() == 1.0\n"
        << "from pytest import approx\ndef test_a():\n    assert f() == approx(1.0, rel=0.5)\n"
        << 2 << QStringList{"tolerance exact->0.5"};
    QTest::newRow("skip added")
        << "import pytest\ndef test_a():\n    assert f() == 1\n"
        << "import pytest\n@pytest.mark.skip(reason='later')\ndef test_a():\n    assert f() == 1\n"
        << 4 << QStringList{"skip/xfail added"};
    QTest::newRow("in-body pytest.skip added")
        << "import pytest\ndef test_a():\n    assert f() == 1\n"
        << "import pytest\ndef test_a():\n    pytest.skip('flaky')\n    assert f() == 1\n"
        << 4 << QStringList{"skip/xfail added"};
    QTest::newRow("unittest assertEqual -> assertTrue")
        << "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        "
           "self.assertEqual(f(), 1)\n"
        << "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        "
           "self.assertTrue(f())\n"
        << 3 << QStringList{"compare rank 0->3"};
    QTest::newRow("async test loosened") << "async def test_a():\n    assert await f() == 1\n"
                                         << "async def test_a():\n    assert await f()\n"
                                         << 3 << QStringList{"compare rank 0->3"};
    QTest::newRow("signals add up")
        << "import pytest\ndef test_a():\n    assert f() == 3\n    assert g() == 4\n    with "
           "pytest.raises(KeyError):\n        h()\n"
        << "import pytest\ndef test_a():\n    assert f()\n    with pytest.raises(Exception):\n     "
           "   h()\n"
        << 3 + 1 + 3
        << QStringList{"compare rank 0->3", "1 assertion(s) removed", "exception rank 0->3"};
}

void TstLatitude::score()
{
    QFETCH(QString, base);
    QFETCH(QString, head);
    QFETCH(int, expected);
    QFETCH(QStringList, signals);
    const std::string name = base.contains(QLatin1String("class T")) ? "T::test_a" : "test_a";
    const LatitudeScorer::Score s = LatitudeScorer::score(testFacts(base.toStdString(), name),
                                                          testFacts(head.toStdString(), name));
    QStringList got;
    for (const std::string &signal : s.signals)
        got << QString::fromStdString(signal);
    QCOMPARE(s.score, expected);
    QCOMPARE(got.size(), signals.size());
    for (int i = 0; i < signals.size(); ++i)
        QVERIFY2(got[i].startsWith(signals[i]), qPrintable(got.join(QLatin1String(" | "))));
}

void TstLatitude::policy_data()
{
    QTest::addColumn<int>("total");
    QTest::addColumn<int>("threshold");
    QTest::addColumn<int>("severity");
    QTest::addColumn<QString>("policy");
    QTest::newRow("0") << 0 << 4 << int(Severity::Info) << "oracle unchanged or stricter";
    QTest::newRow("1") << 1 << 4 << int(Severity::Review) << "small widening";
    QTest::newRow("3") << 3 << 4 << int(Severity::Review) << "small widening";
    QTest::newRow("4 blocks") << 4 << 4 << int(Severity::Block) << "latitude 4 >= 4";
    QTest::newRow("9 blocks") << 9 << 4 << int(Severity::Block) << "latitude 9 >= 4";
    QTest::newRow("threshold from config") << 4 << 10 << int(Severity::Review) << "small widening";
}

void TstLatitude::policy()
{
    QFETCH(int, total);
    QFETCH(int, threshold);
    QFETCH(int, severity);
    QFETCH(QString, policy);
    QCOMPARE(int(LatitudeScorer::severity(total, threshold)), severity);
    QVERIFY(QString::fromStdString(LatitudeScorer::policy(total, threshold)).startsWith(policy));
}

QTEST_GUILESS_MAIN(TstLatitude)
#include "tst_latitude.moc"
