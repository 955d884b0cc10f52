// The collection-hook alarm: every way a patch drops tests from collection
// without deleting them — collection hooks and `collect_ignore` in conftests and plugin
// modules, and the collection options of pytest's configuration files, read as pytest
// reads them (its own section only, continuation lines and TOML arrays, removed lines).
// Review only: the alarm never blocks on its own.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "audit/Audit.h"
#include "audit/ConftestAlarm.h"
#include "audit/PytestConfig.h"

#include <QtTest>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

QStringList options(const PytestConfig &config)
{
    QStringList out;
    for (const PytestOption &o : config.options) {
        QStringList args;
        for (const std::string &a : o.args)
            args << QString::fromStdString(a);
        out << QStringLiteral("%1 %2:%3 %4")
                   .arg(QString::fromStdString(o.section), QString::fromStdString(o.key))
                   .arg(o.line)
                   .arg(args.join(QLatin1Char('|')));
    }
    return out;
}

QString replaced(QString text, const char *from, const char *to)
{
    return text.replace(QLatin1String(from), QLatin1String(to));
}

QStringList messages(const std::vector<Finding> &findings)
{
    QStringList out;
    for (const Finding &f : findings)
        out << QString::fromStdString(f.message);
    return out;
}

} // namespace

class TstCollectionAlarm : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parse_data();
    void parse();
    void configChanges_data();
    void configChanges();
    void audit_data();
    void audit();
};

void TstCollectionAlarm::parse_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("expected"); // "section key:line arg|arg"
    QTest::newRow("pytest.ini, continuation lines")
        << "pytest.ini"
        << "[pytest]\naddopts = -ra\n    -k 'not slow'\n# a comment\ntestpaths = tests\n"
        << QStringList{"[pytest] addopts:2 -ra|-k|not slow", "[pytest] testpaths:5 tests"};
    QTest::newRow("another section is not pytest's")
        << "tox.ini"
        << "[tox]\ntestpaths = nope\n\n[pytest]\nnorecursedirs = build\n"
        << QStringList{"[pytest] norecursedirs:5 build"};
    QTest::newRow("setup.cfg reads [tool:pytest] only")
        << "pkg/setup.cfg"
        << "[pytest]\naddopts = -x\n[tool:pytest]\npython_files = check_*.py\n"
        << QStringList{"[tool:pytest] python_files:4 check_*.py"};
    QTest::newRow("pyproject ini_options and pytest 9's native table, not another tool's")
        << "pyproject.toml"
        << "[tool.coverage.run]\ntestpaths = [\"x\"]\n\n[tool.pytest.ini_options]\naddopts = [\n"
           "    \"-ra\",\n    \"-m\", \"not db\",\n]\n\n[tool.pytest]\ntestpaths = [\"tests\"]\n"
        << QStringList{"[tool.pytest.ini_options] addopts:5 -ra|-m|not db",
                       "[tool.pytest] testpaths:11 tests"};
    QTest::newRow("no pytest section") << "setup.cfg"
                                       << "[metadata]\nname = x\n"
                                       << QStringList();
}

void TstCollectionAlarm::parse()
{
    QFETCH(QString, path);
    QFETCH(QString, text);
    QFETCH(QStringList, expected);
    const PytestConfig config = PytestConfig::parse(path.toStdString(), text.toStdString());
    QVERIFY(!config.error);
    QCOMPARE(options(config), expected);
}

void TstCollectionAlarm::configChanges_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("base"); // empty: the file is absent
    QTest::addColumn<QString>("head");
    QTest::addColumn<QStringList>("expected"); // message prefixes after "pytest configuration: "

    const QString ini = QStringLiteral("[pytest]\naddopts = -ra\ntestpaths = tests\n");
    QTest::newRow("unchanged options")
        << "pytest.ini" << ini << QString(ini + "# a comment\n") << QStringList();
    QTest::newRow("addopts gains -k on a continuation line")
        << "pytest.ini" << ini
        << "[pytest]\naddopts = -ra\n    -k \"not slow\"\ntestpaths = tests\n"
        << QStringList{"`addopts` adds `-k not slow` in [pytest]"};
    QTest::newRow("addopts change that collects the same")
        << "pytest.ini" << ini << replaced(ini, "-ra", "-ra -v") << QStringList();
    QTest::newRow("a removed line is a change too")
        << "pytest.ini" << QString(ini + "norecursedirs = legacy\n") << ini
        << QStringList{"`norecursedirs` removed (was `legacy`) in [pytest] (base line 4)"};
    QTest::newRow("testpaths narrowed")
        << "tox.ini"
        << "[pytest]\ntestpaths = tests\n"
        << "[pytest]\ntestpaths = tests/unit\n"
        << QStringList{"`testpaths` changed from `tests` to `tests/unit` in [pytest]"};
    QTest::newRow("another tool's testpaths is not pytest's") << "tox.ini"
                                                              << "[other]\ntestpaths = a\n"
                                                              << "[other]\ntestpaths = b\n"
                                                              << QStringList();
    QTest::newRow("TOML array element added: --deselect and -p no:")
        << "pyproject.toml"
        << "[tool.pytest.ini_options]\naddopts = [\n    \"-ra\",\n]\n"
        << "[tool.pytest.ini_options]\naddopts = [\n    \"-ra\",\n    \"--deselect=tests/test_a.py"
           "::test_b\",\n    \"-p\", \"no:randomly\",\n]\n"
        << QStringList{"`addopts` adds `--deselect tests/test_a.py::test_b`, `-p no:randomly` in "
                       "[tool.pytest.ini_options]"};
    QTest::newRow("pytest 9 native table: python_functions and --ignore")
        << "pyproject.toml"
        << "[tool.pytest]\naddopts = [\"--ignore\", \"tests/old\"]\n"
        << "[tool.pytest]\npython_functions = [\"check_*\"]\naddopts = []\n"
        << QStringList{"`python_functions` set to `check_*` in [tool.pytest]",
                       "`addopts` drops `--ignore tests/old` in [tool.pytest]"};
    QTest::newRow("setup.cfg python_classes and -m")
        << "setup.cfg"
        << "[tool:pytest]\naddopts = -m \"not db\"\n"
        << "[tool:pytest]\naddopts = -m \"not db and not net\"\npython_classes = Check\n"
        << QStringList{"`python_classes` set to `Check` in [tool:pytest]",
                       "`addopts` adds `-m not db and not net` and drops `-m not db` in "
                       "[tool:pytest]"};
    QTest::newRow("configuration file removed")
        << "pytest.ini"
        << "[pytest]\ntestpaths = tests\n"
        << QString()
        << QStringList{"`testpaths` removed (was `tests`) in [pytest] (pytest.ini is gone at "
                       "head)"};
    QTest::newRow("pyproject that does not parse at head")
        << "pyproject.toml"
        << "[tool.pytest.ini_options]\n"
        << "[tool.pytest\n"
        << QStringList{"the file does not parse at head"};
}

void TstCollectionAlarm::configChanges()
{
    QFETCH(QString, path);
    QFETCH(QString, base);
    QFETCH(QString, head);
    QFETCH(QStringList, expected);
    const std::string p = path.toStdString();
    const std::vector<Finding> findings =
        ConftestAlarm::scanConfig(base.isEmpty() ? std::string() : p, base.toStdString(),
                                  head.isEmpty() ? std::string() : p, head.toStdString());
    const QStringList got = messages(findings);
    QCOMPARE(got.size(), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        QVERIFY2(got[i].startsWith("pytest configuration: " + expected[i]),
                 qPrintable(got.join(QLatin1Char('\n'))));
        QVERIFY(
            got[i].endsWith(QLatin1String(": collection logic touched: human review required")));
    }
    for (const Finding &f : findings) {
        QCOMPARE(f.code, std::string("CONFTEST-HOOK"));
        QCOMPARE(f.severity, Severity::Review);
    }
}

void TstCollectionAlarm::audit_data()
{
    QTest::addColumn<QVariantMap>("base");
    QTest::addColumn<QVariantMap>("changes");
    QTest::addColumn<QStringList>("expected"); // "path:line" of each CONFTEST-HOOK finding
    QTest::addColumn<QString>("verdict");

    const QString kIniBody = QStringLiteral("\n# the suite and how it is collected\ntestpaths = "
                                            "tests\naddopts = -ra\n    --strict-markers\n"
                                            "xfail_strict = true\nconsole_output_style = count\n");
    const QVariantMap plain{
        {QStringLiteral("tests/test_a.py"), QStringLiteral("def test_a():\n    assert 1 == 1\n")},
        {QStringLiteral("src/pkg/testing.py"), QStringLiteral("X = 1\n")}};
    QTest::newRow("collect_ignore added to a conftest")
        << plain
        << QVariantMap{{QStringLiteral("conftest.py"),
                        QStringLiteral("collect_ignore = [\"tests/test_a.py\"]\n")}}
        << QStringList{"conftest.py:1"} << "REVIEW";
    QTest::newRow("pytest_ignore_collect and collect_ignore_glob")
        << plain
        << QVariantMap{{QStringLiteral("tests/conftest.py"),
                        QStringLiteral("collect_ignore_glob = [\"*_slow.py\"]\n\n\ndef "
                                       "pytest_ignore_collect(collection_path, config):\n    "
                                       "return 'legacy' in str(collection_path)\n")}}
        << QStringList{"tests/conftest.py:1", "tests/conftest.py:4"} << "REVIEW";
    QTest::newRow("a plugin module a conftest names in pytest_plugins")
        << QVariantMap{{QStringLiteral("tests/test_a.py"),
                        QStringLiteral("def test_a():\n    assert 1 == 1\n")},
                       {QStringLiteral("conftest.py"),
                        QStringLiteral("pytest_plugins = [\n    \"pkg.testing\",\n]\n")},
                       {QStringLiteral("src/pkg/testing.py"), QStringLiteral("X = 1\n")}}
        << QVariantMap{{QStringLiteral("src/pkg/testing.py"),
                        QStringLiteral("X = 1\n\n\ndef _drop(items):\n    items[:] = [i for i in "
                                       "items if i.get_closest_marker('deselect') is None]\n")}}
        << QStringList{"src/pkg/testing.py:5"} << "REVIEW";
    QTest::newRow("a plugin module addopts loads with -p")
        << QVariantMap{{QStringLiteral("tests/test_a.py"),
                        QStringLiteral("def test_a():\n    assert 1 == 1\n")},
                       {QStringLiteral("pytest.ini"), QStringLiteral("[pytest]\naddopts = -p "
                                                                     "pkg.testing\n")},
                       {QStringLiteral("src/pkg/testing.py"), QStringLiteral("X = 1\n")}}
        << QVariantMap{{QStringLiteral("src/pkg/testing.py"),
                        QStringLiteral(
                            "import pytest\nSKIP = pytest.mark.skip\n\n\ndef mark(item):\n"
                            "    item.add_marker(SKIP)\n")}}
        << QStringList{"src/pkg/testing.py:6"} << "REVIEW";
    QTest::newRow("the same lines in an ordinary module are no alarm")
        << plain
        << QVariantMap{{QStringLiteral("src/pkg/testing.py"),
                        QStringLiteral("def mark(item):\n    item.add_marker('x')\n")}}
        << QStringList() << "PASS";
    QTest::newRow("pyproject addopts gains -k")
        << QVariantMap{{QStringLiteral("tests/test_a.py"),
                        QStringLiteral("def test_a():\n    assert 1 == 1\n")},
                       {QStringLiteral("pyproject.toml"),
                        QStringLiteral("[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\n"
                                       "addopts = \"-ra\"\n")}}
        << QVariantMap{{QStringLiteral("pyproject.toml"),
                        QStringLiteral("[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\n"
                                       "addopts = \"-ra -k 'not test_a'\"\n")}}
        << QStringList{"pyproject.toml:5"} << "REVIEW";
    QTest::newRow("setup.cfg moved into pytest.ini is read by each name")
        << QVariantMap{{QStringLiteral("tests/test_a.py"),
                        QStringLiteral("def test_a():\n    assert 1 == 1\n")},
                       {QStringLiteral("setup.cfg"), QString("[tool:pytest]" + kIniBody)}}
        << QVariantMap{{QStringLiteral("setup.cfg"), QVariant()},
                       {QStringLiteral("pytest.ini"), QString("[pytest]" + kIniBody)}}
        << QStringList() << "PASS";
    QTest::newRow("options moved to pytest 9's native table are the same options")
        << QVariantMap{{QStringLiteral("tests/test_a.py"),
                        QStringLiteral("def test_a():\n    assert 1 == 1\n")},
                       {QStringLiteral("pyproject.toml"),
                        QStringLiteral("[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n")}}
        << QVariantMap{{QStringLiteral("pyproject.toml"),
                        QStringLiteral("[tool.pytest]\ntestpaths = [\"tests\"]\n")}}
        << QStringList() << "PASS";
}

void TstCollectionAlarm::audit()
{
    QFETCH(QVariantMap, base);
    QFETCH(QVariantMap, changes);
    QFETCH(QStringList, expected);
    QFETCH(QString, verdict);
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
    request.useCache = false;
    const GateReport report = Audit::run(request);
    QStringList got, all;
    for (const Finding &f : report.findings) {
        all << QString::fromStdString(f.code + " " + f.path + ": " + f.message);
        if (f.code == "CONFTEST-HOOK")
            got << QStringLiteral("%1:%2").arg(QString::fromStdString(f.path)).arg(f.line);
    }
    QVERIFY2(got == expected, qPrintable(all.join(QLatin1Char('\n'))));
    QCOMPARE(QString::fromLatin1(verdictName(report.verdict)), verdict);
}

QTEST_GUILESS_MAIN(TstCollectionAlarm)
#include "tst_collectionalarm.moc"
