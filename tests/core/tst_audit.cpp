// The static patch audit end to end: real git repositories (libgit2), the real
// extractor under the test interpreter, every manifest verdict, the strength flags and
// actions, fixtures, the collection-hook alarm, ledger edits, and the errors a user
// can cause.
#include "Facts.h"
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "audit/Audit.h"
#include "audit/ReviewTarget.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QtTest>
#include <csignal>
#include <thread>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

const char *kBaseTests = R"(import pytest


def test_add():
    assert add(1, 2) == 3


def test_sub():
    assert sub(3, 1) == 2
    assert sub(1, 1) == 0


class TestMul:
    def test_mul(self):
        assert mul(2, 3) == 6
)";

const char *kUnittest = R"(import unittest


class CalcTest(unittest.TestCase):
    def test_div(self):
        self.assertEqual(div(6, 3), 2)

    def test_div_zero(self):
        with self.assertRaises(ZeroDivisionError):
            div(1, 0)
)";

// A class gated on the interpreter version at base (the attrs-like `PY_3_8_PLUS` guard).
const char *kGated = R"(import sys

import pytest

PY_3_8_PLUS = sys.version_info >= (3, 8)


@pytest.mark.skipif(not PY_3_8_PLUS, reason="needs 3.8")
class TestGated:
    def test_old(self):
        assert 1 + 1 == 2
)";

// A conftest at the repository root, outside the test globs (fixtures only).
const char *kRootConftest = R"(import pytest


@pytest.fixture
def calc():
    """The calculator every test gets."""
    return 1


@pytest.fixture
def numbers():
    return [1, 2, 3, 4, 5, 6, 7, 8, 9]
)";

QString replaced(QString text, const char *from, const char *to)
{
    return text.replace(QLatin1String(from), QLatin1String(to));
}

// "code severity where" rows, e.g. "T-DEL block tests/test_calc.py::test_sub".
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

} // namespace

class TstAudit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void verdicts_data();
    void verdicts();
    void worktreeWithUntrackedTestFile();
    void aWorktreeReviewIsOneReadOfIt();
    void onlyChangedTestFilesAreParsed();
    void factCacheAvoidsTheInterpreter();
    void largeFileFactsSurviveTheCache();
    void stopEndsTheAuditAndKillsTheExtractor();
    void configComesFromTheBaseRevision();
    void badConfigNamesKeyAndLine();
    void latitudeFindingsBlockAtThreshold();
    void withManifestDescribesTheHeadTree();
    void errors_data();
    void errors();

private:
    GateReport audit(RepoBuilder &repo, const std::string &base, const std::string &head);
    std::unique_ptr<QTemporaryDir> m_cache;
};

void TstAudit::init()
{
    m_cache = std::make_unique<QTemporaryDir>(); // every test starts with an empty fact cache
    QVERIFY(m_cache->isValid());
}

GateReport TstAudit::audit(RepoBuilder &repo, const std::string &base, const std::string &head)
{
    AuditRequest request;
    request.repoPath = repo.root();
    request.base = base;
    request.head = head;
    request.python = pw::test::testPython();
    request.cacheDir = m_cache->path().toStdString();
    return Audit::run(request);
}

void TstAudit::verdicts_data()
{
    QTest::addColumn<QVariantMap>("changes"); // path → new content, or invalid QVariant → delete
    QTest::addColumn<QStringList>("expected"); // rows that must be present (see describe())
    QTest::addColumn<QStringList>("absent");   // codes that must not appear
    QTest::addColumn<QString>("verdict");

    const QString tests = QString::fromUtf8(kBaseTests);
    const QString path = QStringLiteral("tests/test_calc.py");

    QTest::newRow("source-only change passes")
        << QVariantMap{{QStringLiteral("src/calc.py"),
                        QStringLiteral("def add(a, b):\n    return b + a\n")}}
        << QStringList() << QStringList{QStringLiteral("T-DEL"), QStringLiteral("LATITUDE")}
        << "PASS";
    QTest::newRow("T-ADD new test file")
        << QVariantMap{{QStringLiteral("tests/test_new.py"),
                        QStringLiteral("def test_new():\n    assert 1 + 1 == 2\n")}}
        << QStringList{QStringLiteral("T-ADD info tests/test_new.py"),
                       QStringLiteral("NEW:test review tests/test_new.py::test_new")}
        << QStringList() << "REVIEW";
    QTest::newRow("T-DEL function removed")
        << QVariantMap{{path, replaced(tests, "def test_add():\n    assert add(1, 2) == 3\n", "")}}
        << QStringList{QStringLiteral("T-DEL block tests/test_calc.py::test_add"),
                       QStringLiteral("BLOCKER:deleted block tests/test_calc.py::test_add")}
        << QStringList{QStringLiteral("T-WEAK")} << "BLOCK";
    QTest::newRow("T-DEL class method removed")
        << QVariantMap{{path,
                        replaced(tests, "    def test_mul(self):\n        assert mul(2, 3) == 6\n",
                                 "    pass\n")}}
        << QStringList{QStringLiteral("T-DEL block tests/test_calc.py::TestMul::test_mul")}
        << QStringList() << "BLOCK";
    QTest::newRow("T-DEL unittest method removed")
        << QVariantMap{{QStringLiteral("tests/test_unit.py"),
                        replaced(
                            QString::fromUtf8(kUnittest),
                            "    def test_div(self):\n        self.assertEqual(div(6, 3), 2)\n\n",
                            "")}}
        << QStringList{QStringLiteral("T-DEL block tests/test_unit.py::CalcTest::test_div")}
        << QStringList() << "BLOCK";
    QTest::newRow("T-GONE test file deleted")
        << QVariantMap{{path, QVariant()}}
        << QStringList{QStringLiteral("T-GONE block tests/test_calc.py")}
        << QStringList{QStringLiteral("T-DEL")} << "BLOCK";
    QTest::newRow("helper module without tests deleted is not T-GONE")
        << QVariantMap{{QStringLiteral("tests/helpers.py"), QVariant()}} << QStringList()
        << QStringList{QStringLiteral("T-GONE")} << "PASS";
    QTest::newRow("file rename is not GONE+ADD")
        << QVariantMap{{path, QVariant()}, {QStringLiteral("tests/test_calculator.py"), tests}}
        << QStringList{QStringLiteral("T-RENAME info tests/test_calculator.py")}
        << QStringList{QStringLiteral("T-GONE"), QStringLiteral("T-ADD"), QStringLiteral("T-DEL")}
        << "PASS";
    QTest::newRow("renamed and loosened file is scored under its new path")
        << QVariantMap{{path, QVariant()},
                       {QStringLiteral("tests/test_calculator.py"),
                        replaced(tests, "assert add(1, 2) == 3", "assert add(1, 2)")}}
        << QStringList{QStringLiteral("T-RENAME info tests/test_calculator.py"),
                       QStringLiteral("LATITUDE review tests/test_calculator.py::test_add"),
                       QStringLiteral(
                           "WEAKER:truthiness review tests/test_calculator.py::test_add")}
        << QStringList{QStringLiteral("T-GONE")} << "REVIEW";
    QTest::newRow("new helper module without tests is no T-ADD")
        << QVariantMap{{QStringLiteral("tests/helpers2.py"),
                        QStringLiteral("def helper():\n    return 2\n")}}
        << QStringList() << QStringList{QStringLiteral("T-ADD")} << "PASS";
    // A rename with only one side under the test globs, and fixtures moved.
    const QString rootConftest = QString::fromUtf8(kRootConftest);
    QTest::newRow("conftest moved into the test globs and edited is drift, not a test file")
        << QVariantMap{{QStringLiteral("conftest.py"), QVariant()},
                       {QStringLiteral("tests/unit/conftest.py"),
                        replaced(rootConftest, "return 1", "return 2")}}
        << QStringList{QStringLiteral("F-DRIFT block tests/unit/conftest.py")}
        << QStringList{QStringLiteral("T-RENAME"), QStringLiteral("T-ADD"),
                       QStringLiteral("T-GONE")}
        << "BLOCK";
    QTest::newRow("conftest moved unchanged now governs another directory")
        << QVariantMap{{QStringLiteral("conftest.py"), QVariant()},
                       {QStringLiteral("tests/unit/conftest.py"), rootConftest}}
        << QStringList{QStringLiteral("F-RENAME review tests/unit/conftest.py")}
        << QStringList{QStringLiteral("T-RENAME"), QStringLiteral("T-ADD"),
                       QStringLiteral("F-DRIFT")}
        << "REVIEW";
    QTest::newRow("conftest moved within the test globs is no test file rename")
        << QVariantMap{{QStringLiteral("tests/conftest.py"), QVariant()},
                       {QStringLiteral("tests/unit/conftest.py"),
                        QStringLiteral("import pytest\n")}}
        << QStringList{QStringLiteral("F-RENAME review tests/unit/conftest.py")}
        << QStringList{QStringLiteral("T-RENAME"), QStringLiteral("T-ADD"),
                       QStringLiteral("F-DRIFT")}
        << "REVIEW";
    QTest::newRow("data fixture renamed unchanged is info")
        << QVariantMap{{QStringLiteral("tests/fixtures/expected.json"), QVariant()},
                       {QStringLiteral("tests/fixtures/sum.json"),
                        QStringLiteral("{\"sum\": 3}\n")}}
        << QStringList{QStringLiteral("F-RENAME info tests/fixtures/sum.json")}
        << QStringList{QStringLiteral("F-DRIFT")} << "PASS";
    QTest::newRow("test file moved out of the test globs is T-GONE")
        << QVariantMap{{path, QVariant()}, {QStringLiteral("src/calc_checks.py"), tests}}
        << QStringList{QStringLiteral("T-GONE block tests/test_calc.py")}
        << QStringList{QStringLiteral("T-RENAME"), QStringLiteral("T-ADD")} << "BLOCK";
    QTest::newRow("test file moved into the test globs is T-ADD of its tests")
        << QVariantMap{{QStringLiteral("src/smoke.py"), QVariant()},
                       {QStringLiteral("tests/test_smoke.py"),
                        QStringLiteral("def test_smoke():\n    assert 1 + 1 == 2\n")}}
        << QStringList{QStringLiteral("T-ADD info tests/test_smoke.py")}
        << QStringList{QStringLiteral("T-RENAME"), QStringLiteral("T-GONE")} << "REVIEW";
    QTest::newRow("pure function rename is info")
        << QVariantMap{{path, replaced(tests, "def test_add():", "def test_addition():")}}
        << QStringList{QStringLiteral("T-RENAME info tests/test_calc.py::test_addition")}
        << QStringList{QStringLiteral("T-DEL"), QStringLiteral("NEW:test")} << "PASS";
    QTest::newRow("T-SKIP decorator")
        << QVariantMap{{path, replaced(tests, "def test_add():",
                                       "@pytest.mark.skip(reason='flaky')\ndef test_add():")}}
        << QStringList{QStringLiteral("T-SKIP block tests/test_calc.py::test_add"),
                       QStringLiteral("BLOCKER:marker block tests/test_calc.py::test_add"),
                       QStringLiteral("LATITUDE block tests/test_calc.py::test_add")}
        << QStringList() << "BLOCK";
    QTest::newRow("T-SKIP in-body pytest.skip")
        << QVariantMap{{path, replaced(tests, "    assert add(1, 2) == 3",
                                       "    pytest.skip('later')\n    assert add(1, 2) == 3")}}
        << QStringList{QStringLiteral("T-SKIP block tests/test_calc.py::test_add")} << QStringList()
        << "BLOCK";
    QTest::newRow("T-SKIP module pytestmark")
        << QVariantMap{{path, replaced(tests, "import pytest\n",
                                       "import pytest\npytestmark = pytest.mark.skip\n")}}
        << QStringList{QStringLiteral("T-SKIP block tests/test_calc.py")} << QStringList()
        << "BLOCK";
    // A test that does not exist at base cannot have a skip added: T-ADD, with a note when it
    // does not run here from birth, and NEW:test (never BLOCKER:marker).
    const QString gated = QString::fromUtf8(kGated);
    const QString gatedPath = QStringLiteral("tests/test_gated.py");
    QTest::newRow("new test born xfail is T-ADD, not T-SKIP")
        << QVariantMap{{QStringLiteral("tests/test_new.py"),
                        QStringLiteral("import pytest\n\n@pytest.mark.xfail\ndef test_new():\n    "
                                       "assert 1 == 2\n")}}
        << QStringList{QStringLiteral("T-ADD review tests/test_new.py::test_new"),
                       QStringLiteral("NEW:test review tests/test_new.py::test_new")}
        << QStringList{QStringLiteral("T-SKIP"), QStringLiteral("BLOCKER:marker")} << "REVIEW";
    QTest::newRow("new method inheriting a class skipif already at base")
        << QVariantMap{{gatedPath, QString(gated + "\n    def test_new(self):\n        assert 2 * "
                                                   "2 == 4\n")}}
        << QStringList{QStringLiteral("T-ADD info tests/test_gated.py::TestGated::test_new"),
                       QStringLiteral("NEW:test review tests/test_gated.py::TestGated::test_new")}
        << QStringList{QStringLiteral("T-SKIP"), QStringLiteral("BLOCKER:marker")} << "REVIEW";
    QTest::newRow("new class born with its own skip")
        << QVariantMap{{path, QString(tests + "\n\n@pytest.mark.skip(reason=\"later\")\nclass "
                                              "TestDiv:\n    def test_div(self):\n        "
                                              "assert 6 / 3 == 2\n")}}
        << QStringList{QStringLiteral("T-ADD review tests/test_calc.py::TestDiv::test_div"),
                       QStringLiteral("NEW:test review tests/test_calc.py::TestDiv::test_div")}
        << QStringList{QStringLiteral("T-SKIP"), QStringLiteral("BLOCKER:marker")} << "REVIEW";
    QTest::newRow("new test born with its own version gate")
        << QVariantMap{{path, QString(tests + "\n\n@pytest.mark.skipif(sys.version_info < (3, "
                                              "8), reason=\"3.8\")\ndef test_walrus():\n    "
                                              "assert (n := 2) == 2\n")}}
        << QStringList{QStringLiteral("T-ADD info tests/test_calc.py::test_walrus"),
                       QStringLiteral("NEW:test review tests/test_calc.py::test_walrus")}
        << QStringList{QStringLiteral("T-SKIP"), QStringLiteral("BLOCKER:marker")} << "REVIEW";
    QTest::newRow("new file of tests under a module pytestmark skip")
        << QVariantMap{{QStringLiteral("tests/test_new.py"),
                        QStringLiteral("import pytest\n\npytestmark = pytest.mark.skip\n\n\ndef "
                                       "test_new():\n    assert 1 == 1\n")}}
        << QStringList{QStringLiteral("T-ADD info tests/test_new.py"),
                       QStringLiteral("T-ADD review tests/test_new.py::test_new")}
        << QStringList{QStringLiteral("T-SKIP")} << "REVIEW";
    QTest::newRow("skip added to an existing test of a gated class stays T-SKIP")
        << QVariantMap{{gatedPath, replaced(gated, "    def test_old(self):",
                                            "    @pytest.mark.xfail\n    def test_old(self):")}}
        << QStringList{QStringLiteral("T-SKIP block tests/test_gated.py::TestGated::test_old"),
                       QStringLiteral(
                           "BLOCKER:marker block tests/test_gated.py::TestGated::test_old")}
        << QStringList{QStringLiteral("T-ADD")} << "BLOCK";
    QTest::newRow("class skip added over existing and new tests")
        << QVariantMap{{path, replaced(QString(tests + "\n    def test_mul_zero(self):\n        "
                                                       "assert mul(0, 3) == 0\n"),
                                       "class TestMul:", "@pytest.mark.skip\nclass TestMul:")}}
        << QStringList{QStringLiteral("T-SKIP block tests/test_calc.py::TestMul::test_mul"),
                       QStringLiteral("T-ADD review tests/test_calc.py::TestMul::test_mul_zero")}
        << QStringList{QStringLiteral("T-SKIP block tests/test_calc.py::TestMul::test_mul_zero")}
        << "BLOCK";
    QTest::newRow("T-WEAK assertion dropped, no test lost")
        << QVariantMap{{path, replaced(tests, "    assert sub(1, 1) == 0\n", "")}}
        << QStringList{QStringLiteral("T-WEAK review tests/test_calc.py"),
                       QStringLiteral("WEAKER:assertions review tests/test_calc.py::test_sub"),
                       QStringLiteral("WEAKER:comparisons review tests/test_calc.py::test_sub"),
                       QStringLiteral("LATITUDE review tests/test_calc.py::test_sub")}
        << QStringList{QStringLiteral("T-DEL")} << "REVIEW";
    QTest::newRow("STRONGER:comparisons is info and lifts WEAKER in the same file")
        << QVariantMap{{path, replaced(replaced(tests, "    assert sub(1, 1) == 0\n", ""),
                                       "assert mul(2, 3) == 6",
                                       "assert mul(2, 3) == 6\n        assert mul(0, 3) == 0\n     "
                                       "   assert mul(1, 1) == 1")}}
        << QStringList{QStringLiteral(
                           "STRONGER:comparisons info tests/test_calc.py::TestMul::test_mul"),
                       QStringLiteral("WEAKER:assertions info tests/test_calc.py::test_sub")}
        << QStringList() << "REVIEW";
    QTest::newRow("WEAKER:raises-scope")
        << QVariantMap{{QStringLiteral("tests/test_unit.py"),
                        replaced(QString::fromUtf8(kUnittest), "ZeroDivisionError", "Exception")}}
        << QStringList{QStringLiteral("WEAKER:raises-scope review "
                                      "tests/test_unit.py::CalcTest::test_div_zero"),
                       QStringLiteral(
                           "LATITUDE review tests/test_unit.py::CalcTest::test_div_zero")}
        << QStringList() << "REVIEW";
    QTest::newRow("WEAKER:tolerance")
        << QVariantMap{{path, replaced(tests, "assert add(1, 2) == 3",
                                       "assert add(1, 2) == pytest.approx(3, abs=1)")}}
        << QStringList{QStringLiteral("WEAKER:tolerance review tests/test_calc.py::test_add")}
        << QStringList() << "REVIEW";
    QTest::newRow("PARSE_ERROR at head blocks")
        << QVariantMap{{path, replaced(tests, "def test_add():", "def test_add(:")}}
        << QStringList{QStringLiteral("PARSE_ERROR block tests/test_calc.py")}
        << QStringList{QStringLiteral("T-DEL")} << "BLOCK";
    QTest::newRow("latin-1 without a coding cookie does not parse")
        << QVariantMap{{QStringLiteral("tests/test_latin.py"),
                        QByteArray("def test_caf\xe9():\n    assert 'caf\xe9'\n")}}
        << QStringList{QStringLiteral("PARSE_ERROR block tests/test_latin.py")} << QStringList()
        << "BLOCK";
    QTest::newRow("latin-1 with a coding cookie parses")
        << QVariantMap{{QStringLiteral("tests/test_latin.py"),
                        QByteArray("# -*- coding: latin-1 -*-\ndef test_cafe():\n    assert "
                                   "'caf\xe9' == 'caf\xe9'\n")}}
        << QStringList{QStringLiteral("T-ADD info tests/test_latin.py")}
        << QStringList{QStringLiteral("PARSE_ERROR")} << "REVIEW";
    QTest::newRow("F-DRIFT fixture edited")
        << QVariantMap{{QStringLiteral("tests/fixtures/expected.json"),
                        QStringLiteral("{\"sum\": 4}\n")}}
        << QStringList{QStringLiteral("F-DRIFT block tests/fixtures/expected.json")}
        << QStringList() << "BLOCK";
    QTest::newRow("F-DRIFT fixture removed")
        << QVariantMap{{QStringLiteral("tests/fixtures/expected.json"), QVariant()}}
        << QStringList{QStringLiteral("F-DRIFT block tests/fixtures/expected.json")}
        << QStringList() << "BLOCK";
    QTest::newRow("F-DRIFT binary fixture")
        << QVariantMap{{QStringLiteral("tests/fixtures/image.png"),
                        QByteArray("\x89PNG\r\n\x1a\n\0\0\0\x02", 12)}}
        << QStringList{QStringLiteral("F-DRIFT block tests/fixtures/image.png")} << QStringList()
        << "BLOCK";
    QTest::newRow("new fixture is not drift")
        << QVariantMap{{QStringLiteral("tests/fixtures/more.json"), QStringLiteral("{}\n")}}
        << QStringList() << QStringList{QStringLiteral("F-DRIFT")} << "PASS";
    QTest::newRow("conftest collection hook")
        << QVariantMap{{QStringLiteral("tests/conftest.py"),
                        QStringLiteral(
                            "import pytest\n\n\ndef pytest_collection_modifyitems(config, items):\n"
                            "    for item in items:\n        item.add_marker(pytest.mark.skip)\n")}}
        << QStringList{QStringLiteral("CONFTEST-HOOK review tests/conftest.py"),
                       QStringLiteral("F-DRIFT block tests/conftest.py")}
        << QStringList() << "BLOCK";
    QTest::newRow("plugin module collection hook")
        << QVariantMap{{QStringLiteral("src/myplugin.py"),
                        QStringLiteral("def pytest_collection_modifyitems(config, items):\n    "
                                       "items[:] = items[:1]\n")}}
        << QStringList{QStringLiteral("CONFTEST-HOOK review src/myplugin.py")} << QStringList()
        << "REVIEW";
    QTest::newRow("ledger edited by the patch")
        << QVariantMap{{QStringLiteral(".patchwitness/quarantine.toml"),
                        QStringLiteral("[[quarantine]]\ntest = \"x\"\n")}}
        << QStringList{QStringLiteral("LEDGER-EDIT review .patchwitness/quarantine.toml")}
        << QStringList() << "REVIEW";
}

void TstAudit::verdicts()
{
    QFETCH(QVariantMap, changes);
    QFETCH(QStringList, expected);
    QFETCH(QStringList, absent);
    QFETCH(QString, verdict);

    RepoBuilder repo;
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n");
    repo.write("tests/test_calc.py", kBaseTests);
    repo.write("tests/test_unit.py", kUnittest);
    repo.write("tests/helpers.py", "def helper():\n    return 1\n");
    repo.write("tests/test_gated.py", kGated);
    repo.write("src/smoke.py", "def test_smoke():\n    assert 1 + 1 == 2\n");
    repo.write("tests/conftest.py", "import pytest\n");
    repo.write("conftest.py", kRootConftest);
    repo.write("tests/fixtures/expected.json", "{\"sum\": 3}\n");
    repo.write("tests/fixtures/image.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\x01", 12));
    const std::string base = repo.commit("base");
    for (auto it = changes.cbegin(); it != changes.cend(); ++it) {
        if (!it.value().isValid())
            repo.remove(it.key().toStdString());
        else
            repo.write(it.key().toStdString(), it.value().toByteArray().toStdString());
    }
    const std::string head = repo.commit("agent patch");

    const GateReport report = audit(repo, base, head);
    const QStringList got = describe(report);
    for (const QString &row : expected)
        QVERIFY2(got.contains(row),
                 qPrintable(row + QLatin1String(" not in:\n  ") + got.join(QLatin1String("\n  "))));
    for (const QString &code : absent) {
        for (const QString &row : got)
            QVERIFY2(!row.startsWith(code + QLatin1Char(' ')),
                     qPrintable(QLatin1String("unexpected ") + row));
    }
    QCOMPARE(QString::fromLatin1(verdictName(report.verdict)), verdict);
}

void TstAudit::worktreeWithUntrackedTestFile()
{
    RepoBuilder repo;
    repo.write("tests/test_calc.py", kBaseTests);
    const std::string base = repo.commit("base");
    repo.write("tests/test_untracked.py", "def test_new():\n    assert 2 == 2\n");
    // the modified tracked file loses a test in the working tree only
    repo.write("tests/test_calc.py", replaced(QString::fromUtf8(kBaseTests),
                                              "def test_add():\n    assert add(1, 2) == 3\n", "")
                                         .toStdString());

    const GateReport report = audit(repo, base, "WORKTREE");
    const QStringList got = describe(report);
    QVERIFY2(got.contains(QStringLiteral("T-ADD info tests/test_untracked.py")),
             qPrintable(got.join(QLatin1Char('\n'))));
    QVERIFY(got.contains(QStringLiteral("T-DEL block tests/test_calc.py::test_add")));
    QVERIFY(!report.head.commit.has_value());
    QCOMPARE(report.head.rev, std::string("WORKTREE"));
}

// A WORKTREE review reads the work tree once (PreparedReview::prepare): a file changed on
// disk after that reaches neither the audit nor the diff shown beside it, and another
// thread's reopen of the target (the runs', the desk's lookups) refuses the changed tree.
void TstAudit::aWorktreeReviewIsOneReadOfIt()
{
    RepoBuilder repo;
    repo.write("tests/test_calc.py", kBaseTests);
    const std::string base = repo.commit("base");
    repo.write("tests/test_calc.py", replaced(QString::fromUtf8(kBaseTests),
                                              "def test_add():\n    assert add(1, 2) == 3\n", "")
                                         .toStdString());
    AuditRequest request;
    request.repoPath = repo.root();
    request.base = base;
    request.head = "WORKTREE";
    request.python = pw::test::testPython();
    request.cacheDir = m_cache->path().toStdString();
    const PreparedReview review = PreparedReview::prepare(request);
    QCOMPARE(PreparedReview::reopen(review.target()).head().snapshot, review.head().snapshot);

    // The reviewer's editor puts the test back, and adds a file, after the read.
    repo.write("tests/test_calc.py", kBaseTests);
    repo.write("tests/test_later.py", "def test_later():\n    assert 1\n");
    const GateReport report = Audit::run(review, request);
    const QStringList got = describe(report);
    QVERIFY2(got.contains(QStringLiteral("T-DEL block tests/test_calc.py::test_add")),
             qPrintable(got.join(QLatin1Char('\n'))));
    QVERIFY2(!got.join(QLatin1Char('\n')).contains(QStringLiteral("test_later")),
             qPrintable(got.join(QLatin1Char('\n'))));
    const pw::core::PatchDiff shown = review.repo().diff(review.base(), review.head(), {});
    QCOMPARE(shown.files.size(), size_t(1));
    QCOMPARE(shown.files[0].path(), std::string("tests/test_calc.py"));
    QCOMPARE(shown.files[0].newBlob, report.changedFiles[0].newBlob);
    try {
        (void)PreparedReview::reopen(review.target());
        QFAIL("a changed work tree was reopened as the reviewed one");
    } catch (const Error &e) {
        QCOMPARE(e.kind(), Error::Kind::Input);
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("the working tree changed")),
                 e.what());
    }
}

void TstAudit::onlyChangedTestFilesAreParsed()
{
    RepoBuilder repo;
    for (int i = 0; i < 40; ++i)
        repo.write("tests/test_m" + std::to_string(i) + ".py",
                   "def test_x():\n    assert " + std::to_string(i) + " == " + std::to_string(i) +
                       "\n");
    const std::string base = repo.commit("base");
    repo.write("tests/test_m7.py", "def test_x():\n    assert 7\n");
    const std::string head = repo.commit("head");
    const GateReport report = audit(repo, base, head);
    QCOMPARE(report.stats.filesChanged, 1);
    QCOMPARE(report.stats.testFilesParsed, 2); // base and head side of one file
}

void TstAudit::factCacheAvoidsTheInterpreter()
{
    RepoBuilder repo;
    repo.write("tests/test_calc.py", kBaseTests);
    const std::string base = repo.commit("base");
    repo.write("tests/test_calc.py",
               replaced(QString::fromUtf8(kBaseTests), "== 3", ">= 3").toStdString());
    const std::string head = repo.commit("head");
    const GateReport cold = audit(repo, base, head);
    QCOMPARE(cold.stats.interpreterRuns, 1);
    QCOMPARE(cold.stats.cacheHits, 0);
    const GateReport warm = audit(repo, base, head);
    QCOMPARE(warm.stats.interpreterRuns, 0);
    QCOMPARE(warm.stats.cacheHits, 2);
    QCOMPARE(describe(warm), describe(cold));
}

// A file over 256 KiB is parsed in pieces and its facts are read and cached test by test;
// the module's skip condition holds the text the cache writer looks for.
// A stop asked for from another thread ends the audit with Error::interrupted within the
// extractor's 100 ms slice: the interpreter it waits on (one that hangs) is killed, not
// waited for until `timeouts.probe`. A stop asked for before the audit ends it at its
// first step.
void TstAudit::stopEndsTheAuditAndKillsTheExtractor()
{
    RepoBuilder repo;
    repo.write("tests/test_calc.py", kBaseTests);
    const std::string base = repo.commit("base");
    repo.write("tests/test_calc.py", std::string(kBaseTests) + "\n\ndef test_more():\n    pass\n");
    const std::string head = repo.commit("head");
    QTemporaryDir dir;
    const QString pidFile = dir.filePath(QStringLiteral("pid"));
    const QString hang = dir.filePath(QStringLiteral("python3"));
    QVERIFY(writeFileAtomically(
        hang.toStdString(),
        "#!/bin/sh\necho $$ > '" + pidFile.toStdString() + "'\nexec sleep 300\n", false));
    QVERIFY(QFile::setPermissions(hang, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

    AuditRequest request;
    request.repoPath = repo.root();
    request.base = base;
    request.head = head;
    request.cacheDir = m_cache->path().toStdString();
    request.python = hang.toStdString();
    std::stop_source stop;
    request.stop = stop.get_token();
    std::thread stopper([&] {
        while (!QFile::exists(pidFile) || QFileInfo(pidFile).size() == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        stop.request_stop();
    });
    QElapsedTimer clock;
    clock.start();
    try {
        Audit::run(request);
        stopper.join();
        QFAIL("a stopped audit must not return a report");
    } catch (const Error &e) {
        stopper.join();
        QCOMPARE(int(e.kind()), int(Error::Kind::Interrupted));
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("stopped")), e.what());
    }
    QVERIFY2(clock.elapsed() < 15000, qPrintable(QString::number(clock.elapsed())));
    const pid_t pid =
        pid_t(QString::fromStdString(readWholeFile(pidFile.toStdString()).value_or(""))
                  .trimmed()
                  .toLong());
    QVERIFY(pid > 0);
    QVERIFY(::kill(pid, 0) != 0); // killed and reaped

    std::stop_source early;
    early.request_stop();
    request.stop = early.get_token();
    QFile::remove(pidFile);
    try {
        Audit::run(request);
        QFAIL("a stopped audit must not return a report");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), int(Error::Kind::Interrupted));
    }
    QVERIFY(!QFile::exists(pidFile)); // no interpreter was started
}

void TstAudit::largeFileFactsSurviveTheCache()
{
    std::string text = "import sys\nimport pytest\n\npytestmark = pytest.mark.skipif("
                       "sys.platform == '\"tests\":[]', reason='never')\n";
    const int count = 3000;
    for (int i = 0; i < count; ++i) {
        const std::string n = std::to_string(i);
        text += "\n\ndef test_" + n + "(tmp_path):\n    value = " + n +
                " * 2\n    assert value == " + n + " + " + n + "\n    assert str(value) == '" +
                std::to_string(2 * i) + "'\n";
    }
    QVERIFY(text.size() > 256 * 1024);
    RepoBuilder repo;
    repo.write("tests/test_big.py", text);
    const std::string base = repo.commit("base");
    // The last test (in the last piece) goes, one in the middle is loosened.
    std::string head = text.substr(0, text.find("\n\ndef test_" + std::to_string(count - 1) + "("));
    const std::string strict = "assert value == 1000 + 1000";
    head.replace(head.find(strict), strict.size(), "assert value >= 1000 + 1000");
    repo.write("tests/test_big.py", head + "\n");
    const std::string headSha = repo.commit("head");
    const GateReport cold = audit(repo, base, headSha);
    QCOMPARE(cold.stats.cacheHits, 0);
    const QStringList rows = describe(cold);
    QVERIFY2(rows.contains(QStringLiteral("T-DEL block tests/test_big.py::test_2999")),
             qPrintable(rows.join(QLatin1Char('\n'))));
    const GateReport warm = audit(repo, base, headSha);
    QCOMPARE(warm.stats.interpreterRuns, 0);
    QCOMPARE(warm.stats.cacheHits, 2);
    QCOMPARE(describe(warm), rows);
    QCOMPARE(warm.latitude.total, cold.latitude.total);
    QVERIFY(cold.latitude.total > 0);
}

void TstAudit::configComesFromTheBaseRevision()
{
    RepoBuilder repo;
    repo.write(".patchwitness/config.toml", "latitude_max = 10\n");
    repo.write("tests/test_calc.py", kBaseTests);
    const std::string base = repo.commit("base");
    // +3 +3: above the default threshold 4, below the base revision's 10; the patch
    // also tries to raise the threshold further, which must not count.
    repo.write("tests/test_calc.py",
               replaced(replaced(QString::fromUtf8(kBaseTests), "add(1, 2) == 3", "add(1, 2)"),
                        "mul(2, 3) == 6", "mul(2, 3)")
                   .toStdString());
    repo.write(".patchwitness/config.toml", "latitude_max = 100\n");
    const std::string head = repo.commit("head");
    const GateReport report = audit(repo, base, head);
    QCOMPARE(report.latitude.total, 6);
    QCOMPARE(report.latitude.threshold, 10);
    QVERIFY(
        describe(report).contains(QStringLiteral("LEDGER-EDIT review .patchwitness/config.toml")));
    QCOMPARE(QString::fromLatin1(verdictName(report.verdict)), QStringLiteral("REVIEW"));
}

void TstAudit::badConfigNamesKeyAndLine()
{
    RepoBuilder repo;
    repo.write(".patchwitness/config.toml", "python = \"python3\"\n\nlatitude_max = \"four\"\n");
    repo.write("tests/test_calc.py", kBaseTests);
    const std::string base = repo.commit("base");
    repo.write("README", "x\n");
    const std::string head = repo.commit("head");
    try {
        audit(repo, base, head);
        QFAIL("a bad config value must be an error");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), int(Error::Kind::Input));
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(QLatin1String("config.toml:3:")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("latitude_max")), qPrintable(message));
    }
}

void TstAudit::latitudeFindingsBlockAtThreshold()
{
    RepoBuilder repo;
    repo.write("tests/test_calc.py", kBaseTests);
    const std::string base = repo.commit("base");
    // two tests loosened by 3 each: 6 >= 4, every LATITUDE finding blocks
    repo.write("tests/test_calc.py",
               replaced(replaced(QString::fromUtf8(kBaseTests), "add(1, 2) == 3", "add(1, 2)"),
                        "mul(2, 3) == 6", "mul(2, 3)")
                   .toStdString());
    const std::string head = repo.commit("head");
    const GateReport report = audit(repo, base, head);
    QCOMPARE(report.latitude.total, 6);
    const QStringList got = describe(report);
    QVERIFY(got.contains(QStringLiteral("LATITUDE block tests/test_calc.py::test_add")));
    QVERIFY(got.contains(QStringLiteral("LATITUDE block tests/test_calc.py::TestMul::test_mul")));
    QVERIFY(QString::fromStdString(report.latitude.policy)
                .contains(QLatin1String("replacement assertion")));
}

void TstAudit::withManifestDescribesTheHeadTree()
{
    RepoBuilder repo;
    repo.write("tests/test_calc.py", kBaseTests);
    repo.write("tests/test_unit.py", kUnittest);
    repo.write("tests/fixtures/expected.json", "{}\n");
    const std::string base = repo.commit("base");
    repo.write("src/x.py", "x = 1\n");
    const std::string head = repo.commit("head");
    AuditRequest request;
    request.repoPath = repo.root();
    request.base = base;
    request.head = head;
    request.python = pw::test::testPython();
    request.useCache = false;
    request.withManifest = true;
    const GateReport report = Audit::run(request);
    QVERIFY(report.manifest.has_value());
    QCOMPARE(report.manifest->tests.size(), size_t(2));
    const ManifestFile &calc = report.manifest->tests.at("tests/test_calc.py");
    QCOMPARE(calc.defs, (std::vector<std::string>{"TestMul::test_mul", "test_add", "test_sub"}));
    QCOMPARE(calc.asserts, 4);
    QCOMPARE(report.manifest->fixtures.at("tests/fixtures/expected.json"), sha256Hex("{}\n"));
}

void TstAudit::errors_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown revision")
        << "unknown-rev" << int(Error::Kind::Input) << "no-such-branch";
    QTest::newRow("not a repository")
        << "not-a-repo" << int(Error::Kind::Input) << "not a git repository";
    QTest::newRow("empty repository") << "empty" << int(Error::Kind::Input) << "no commits";
    QTest::newRow("missing interpreter")
        << "no-python" << int(Error::Kind::Input) << "/nonexistent/python3";
    QTest::newRow("interpreter that is not Python")
        << "not-python" << int(Error::Kind::Harness) << "/bin/false";
    QTest::newRow("WORKTREE as base") << "worktree-base" << int(Error::Kind::Input) << "WORKTREE";
}

void TstAudit::errors()
{
    QFETCH(QString, scenario);
    QFETCH(int, kind);
    QFETCH(QString, message);
    RepoBuilder repo;
    QTemporaryDir plain;
    AuditRequest request;
    request.repoPath = repo.root();
    request.python = pw::test::testPython();
    request.useCache = false;
    if (scenario != QLatin1String("empty")) {
        repo.write("tests/test_calc.py", kBaseTests);
        request.base = repo.commit("base");
        repo.write("tests/test_calc.py",
                   std::string(kBaseTests) + "\ndef test_more():\n    assert 1 == 1\n");
        request.head = repo.commit("head");
    }
    if (scenario == QLatin1String("unknown-rev"))
        request.base = "no-such-branch";
    else if (scenario == QLatin1String("not-a-repo"))
        request.repoPath = plain.path().toStdString();
    else if (scenario == QLatin1String("no-python"))
        request.python = "/nonexistent/python3";
    else if (scenario == QLatin1String("not-python"))
        request.python = "/bin/false";
    else if (scenario == QLatin1String("worktree-base"))
        request.base = "WORKTREE";
    try {
        Audit::run(request);
        QFAIL("expected an error");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), kind);
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

QTEST_GUILESS_MAIN(TstAudit)
#include "tst_audit.moc"
