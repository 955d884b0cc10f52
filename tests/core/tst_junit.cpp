// JUnitReader (core/execution): pytest's JUnit XML back to node ids and outcomes — hand-written
// files for every shape pytest writes, and a round trip against pytest's own node ids.

#include "RunFixtures.h"
#include "TestSupport.h"
#include "execution/JUnitReader.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

using pw::core::JUnitReader;
using pw::core::JUnitReport;
using pw::core::NodeOutcome;
using pw::core::Outcome;

Q_DECLARE_METATYPE(Outcome)

namespace {

QByteArray suite(const QByteArray &cases)
{
    return "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites><testsuite name=\"pytest\" "
           "errors=\"0\" failures=\"0\" skipped=\"0\" tests=\"1\">" +
           cases + "</testsuite></testsuites>";
}

const NodeOutcome *find(const JUnitReport &report, const std::string &id)
{
    for (const NodeOutcome &row : report.nodes) {
        if (row.nodeId == id)
            return &row;
    }
    return nullptr;
}

} // namespace

class TestJUnit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nodeIdFromTestcase_data()
    {
        QTest::addColumn<QString>("classname");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("nodeId");
        QTest::newRow("function") << "tests.test_a"
                                  << "test_x"
                                  << "tests/test_a.py"
                                  << "tests/test_a.py::test_x";
        QTest::newRow("class") << "tests.test_a.TestC"
                               << "test_x"
                               << "tests/test_a.py"
                               << "tests/test_a.py::TestC::test_x";
        QTest::newRow("nested classes") << "tests.sub.test_a.TestC.TestInner"
                                        << "test_n"
                                        << "tests/sub/test_a.py"
                                        << "tests/sub/test_a.py::TestC::TestInner::test_n";
        QTest::newRow("brackets and :: in params") << "tests.test_a.TestC"
                                                   << "test_p[a::b-c[d]]"
                                                   << "tests/test_a.py"
                                                   << "tests/test_a.py::TestC::test_p[a::b-c[d]]";
        QTest::newRow("dots in params") << "test_top"
                                        << "test_p[e.f/g]"
                                        << "test_top.py"
                                        << "test_top.py::test_p[e.f/g]";
        QTest::newRow("dotted directory") << "tests.v1.2.test_a"
                                          << "test_x"
                                          << "tests/v1.2/test_a.py"
                                          << "tests/v1.2/test_a.py::test_x";
        QTest::newRow("collection error") << ""
                                          << "tests.test_broken"
                                          << "tests/test_broken.py"
                                          << "tests/test_broken.py";
        QTest::newRow("doctest") << "pkg.mod"
                                 << "pkg.mod.func"
                                 << "pkg/mod.py"
                                 << "pkg/mod.py::pkg.mod.func";
        QTest::newRow("no file (xunit2): CapWords heuristic") << "tests.test_a.TestC"
                                                              << "test_x"
                                                              << ""
                                                              << "tests/test_a.py::TestC::test_x";
        QTest::newRow("inherited from another file, no root: CapWords heuristic")
            << "tests.test_b.TestB"
            << "test_x"
            << "tests/base.py"
            << "tests/test_b.py::TestB::test_x";
    }

    void nodeIdFromTestcase()
    {
        QFETCH(QString, classname);
        QFETCH(QString, name);
        QFETCH(QString, file);
        QFETCH(QString, nodeId);
        const JUnitReader reader;
        QCOMPARE(QString::fromStdString(reader.nodeId(classname.toStdString(), name.toStdString(),
                                                      file.toStdString())),
                 nodeId);
    }

    void nodeIdUsesFilesOfTheTreeWhenFileDoesNotMatch()
    {
        // lower-case class names defeat the heuristic; the tree's files decide.
        QTemporaryDir root;
        pw::test::writeText(root.path().toStdString(), "tests/test_b.py", "");
        const JUnitReader reader(root.path().toStdString());
        QCOMPARE(reader.nodeId("tests.test_b.lowerCase", "test_x", "tests/base.py"),
                 std::string("tests/test_b.py::lowerCase::test_x"));
        QCOMPARE(reader.nodeId("tests.test_b.lowerCase", "test_x", ""),
                 std::string("tests/test_b.py::lowerCase::test_x"));
    }

    void outcomes_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<Outcome>("outcome");
        QTest::addColumn<QString>("message");
        QTest::newRow("pass") << QByteArray("") << Outcome::Pass << "";
        QTest::newRow("failure") << QByteArray("<failure message=\"assert 1 == 2\">trace</failure>")
                                 << Outcome::Fail << "assert 1 == 2";
        QTest::newRow("setup error") << QByteArray("<error message=\"failed on setup\">t</error>")
                                     << Outcome::Error << "failed on setup";
        QTest::newRow("failure then teardown error")
            << QByteArray("<failure message=\"boom\"/><error message=\"teardown\"/>")
            << Outcome::Fail << "boom";
        QTest::newRow("skipped") << QByteArray(
                                        "<skipped type=\"pytest.skip\" message=\"why\">x</skipped>")
                                 << Outcome::Skipped << "why";
        QTest::newRow("xfail") << QByteArray("<skipped type=\"pytest.xfail\" message=\"known\"/>")
                               << Outcome::Skipped << "xfail known";
        QTest::newRow("output only")
            << QByteArray("<system-out>hi</system-out>") << Outcome::Pass << "";
    }

    void outcomes()
    {
        QFETCH(QByteArray, body);
        QFETCH(Outcome, outcome);
        QFETCH(QString, message);
        const JUnitReport report = JUnitReader().read(
            suite("<testcase classname=\"t\" name=\"test_x\" file=\"t.py\" time=\"0.25\">" + body +
                  "</testcase>"));
        QVERIFY2(report.ok(), report.error.c_str());
        QCOMPARE(report.nodes.size(), size_t(1));
        QCOMPARE(report.nodes[0].nodeId, std::string("t.py::test_x"));
        QCOMPARE(report.nodes[0].outcome, outcome);
        QCOMPARE(QString::fromStdString(report.nodes[0].message), message);
        QCOMPARE(report.nodes[0].seconds, 0.25);
    }

    void keepsFileOrderAndMergesRepeatedNodes()
    {
        const JUnitReport report = JUnitReader().read(suite(
            "<testcase classname=\"t\" name=\"b\" file=\"t.py\" time=\"1\"/>"
            "<testcase classname=\"t\" name=\"a\" file=\"t.py\" time=\"1\">"
            "<rerunFailure message=\"first try\"/><flakyFailure message=\"2nd\"/></testcase>"
            "<testcase classname=\"t\" name=\"b\" file=\"t.py\" time=\"2\"><failure/></testcase>"));
        QVERIFY(report.ok());
        QCOMPARE(report.nodes.size(), size_t(2));
        QCOMPARE(report.nodes[0].nodeId, std::string("t.py::b"));
        QCOMPARE(report.nodes[0].outcome, Outcome::Fail); // the worse attempt wins
        QCOMPARE(report.nodes[0].seconds, 3.0);
        QCOMPARE(report.nodes[1].outcome, Outcome::Pass);
        QCOMPARE(report.nodes[1].reruns, 2);
    }

    void acceptsABareTestsuiteRoot()
    {
        const JUnitReport report = JUnitReader().read(
            "<testsuite><testcase classname=\"m\" name=\"t\" file=\"m.py\"/></testsuite>");
        QVERIFY(report.ok());
        QCOMPARE(report.nodes.size(), size_t(1));
        const JUnitReport empty =
            JUnitReader().read("<testsuites><testsuite tests=\"0\"/></testsuites>");
        QVERIFY(empty.ok());
        QVERIFY(empty.nodes.empty());
    }

    void rejectsWhatIsNotJUnit_data()
    {
        QTest::addColumn<QByteArray>("xml");
        QTest::addColumn<QString>("says");
        QTest::newRow("truncated") << suite("<testcase name=\"x\">").left(60) << "malformed";
        QTest::newRow("unclosed") << QByteArray("<testsuites><testsuite><testcase name=\"x\">")
                                  << "malformed";
        QTest::newRow("not xml") << QByteArray("Traceback (most recent call last):") << "malformed";
        QTest::newRow("other root") << QByteArray("<html><body/></html>") << "not JUnit";
        QTest::newRow("empty") << QByteArray() << "JUnit";
    }

    void rejectsWhatIsNotJUnit()
    {
        QFETCH(QByteArray, xml);
        QFETCH(QString, says);
        const JUnitReport report = JUnitReader().read(xml);
        QVERIFY(!report.ok());
        QVERIFY2(QString::fromStdString(report.error).contains(says), report.error.c_str());
        QVERIFY(report.nodes.empty());
    }

    void missingFileNamesIt()
    {
        const JUnitReport report = JUnitReader().readFile("/nonexistent/junit.xml");
        QVERIFY(!report.ok());
        QVERIFY(report.error.find("/nonexistent/junit.xml") != std::string::npos);
    }

    // The node ids read back from a real pytest run are exactly the ids pytest collects.
    void roundTripsPytestsOwnNodeIds()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        pw::test::writeText(root, "tests/__init__.py", "");
        pw::test::writeText(root, "tests/base.py",
                            "class Base:\n    def test_inherited(self):\n        pass\n");
        pw::test::writeText(root, "tests/sub/test_a.py",
                            "import pytest\n"
                            "from tests.base import Base\n"
                            "class TestC:\n"
                            "    class TestInner:\n"
                            "        def test_n(self): pass\n"
                            "    @pytest.mark.parametrize('x', ['a::b', 'c[d]', 'e.f/g', 'h i'])\n"
                            "    def test_p(self, x): assert x != 'c[d]'\n"
                            "class TestD(Base):\n"
                            "    pass\n"
                            "def test_skip():\n    pytest.skip('why')\n");
        pw::test::writeText(root, "test_top.py", "def test_top():\n    pass\n");
        const QString junit = dir.filePath(QStringLiteral("out.xml"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PYTEST_DISABLE_PLUGIN_AUTOLOAD"), QStringLiteral("1"));
        auto pytest = [&](const QStringList &args) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.setWorkingDirectory(dir.path());
            p.start(QString::fromStdString(pw::test::testPython()),
                    QStringList{QStringLiteral("-m"), QStringLiteral("pytest"),
                                QStringLiteral("-p"), QStringLiteral("no:cacheprovider")} +
                        args);
            p.waitForFinished(120000);
            return p.readAllStandardOutput();
        };
        const QByteArray collected =
            pytest({QStringLiteral("--collect-only"), QStringLiteral("-q")});
        pytest({QStringLiteral("-o"), QStringLiteral("junit_family=xunit1"),
                QStringLiteral("--junitxml=") + junit});

        QStringList expected;
        for (const QByteArray &line : collected.split('\n')) {
            if (line.contains("::"))
                expected << QString::fromUtf8(line.trimmed());
        }
        QCOMPARE(expected.size(), 8);
        const JUnitReport report = JUnitReader(root).readFile(junit.toStdString());
        QVERIFY2(report.ok(), report.error.c_str());
        QStringList read;
        for (const NodeOutcome &row : report.nodes)
            read << QString::fromStdString(row.nodeId);
        expected.sort();
        read.sort();
        QCOMPARE(read, expected);
        QCOMPARE(find(report, "tests/sub/test_a.py::TestC::test_p[c[d]]")->outcome, Outcome::Fail);
        QCOMPARE(find(report, "tests/sub/test_a.py::test_skip")->outcome, Outcome::Skipped);
        QCOMPARE(find(report, "tests/sub/test_a.py::TestD::test_inherited")->outcome,
                 Outcome::Pass);
    }
};

QTEST_GUILESS_MAIN(TestJUnit)
#include "tst_junit.moc"
