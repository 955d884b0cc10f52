// `patchwitness-cli attribute` and `cells` (SPEC 5.3, 5.4, 9) through QProcess: text and
// JSON results on stdout, progress on stderr, the exit code of every verdict, the evidence
// record written or not (--no-record), usage errors (exit 3), and Ctrl-C (exit 4, the
// runs' process groups killed, nothing recorded).

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "util/Files.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <memory>
#include <nlohmann/json.hpp>

using nlohmann::json;
using pw::test::RepoBuilder;

namespace {

struct Result
{
    int exitCode = -1;
    QString out;
    QString err;
};

const char *const kBaseFiles[][2] = {
    {"src/__init__.py", ""},
    {"src/calc.py", "def value():\n    return 1\n\n\ndef parse(text):\n    return int(text)\n"},
    {"tests/induced/test_induced.py",
     "from src.calc import value\n\n\ndef test_value():\n    assert value() == 1\n"},
    {"tests/pre/test_pre.py", "def test_broken():\n    assert 1 + 1 == 3\n"},
    {"tests/green/test_green.py", "def test_fine():\n    assert True\n"},
    {"tests/masks/test_masks.py",
     "from src.calc import parse\n\n\ndef test_parse():\n    assert parse('x') == 0\n"},
    {"tests/env/test_env.py",
     "import random\n\n\ndef test_seeded():\n    assert random.randrange(3) != 1\n"},
    // cells: test_a leaves "strict" in a module cache and test_b fails after it (R = 3:
    // seeds 1 and 3 run a first).
    {"tests/order/order_registry.py", "CACHE = {}\n"},
    {"tests/order/test_order_a.py", "import order_registry\n\n\ndef test_a():\n"
                                    "    order_registry.CACHE['mode'] = 'strict'\n"},
    {"tests/order/test_order_b.py", "import order_registry\n\n\ndef test_b():\n"
                                    "    assert order_registry.CACHE.get('mode') != 'strict'\n"},
    {"tests/order/test_order_c.py", "def test_c():\n    pass\n"},
    {"tests/order/test_order_d.py", "def test_d():\n    pass\n"},
    // cells: a test that passes alone in a scoped suite that does not collect.
    {"tests/collerr/test_fine_here.py", "def test_ok():\n    pass\n"},
    {"tests/collerr/test_cannot_import.py", "import no_such_module_pw\n"},
};

const char *const kHeadFiles[][2] = {
    {"src/calc.py", "def value():\n    return 2\n\n\ndef parse(text):\n    try:\n"
                    "        return int(text)\n    except ValueError:\n        return 0\n"},
    {"tests/env/test_env.py",
     "import random\n\n\ndef test_seeded():\n    assert random.randrange(3) != 0\n"},
};

} // namespace

class TestRunCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void attributeText();
    void attributeJsonAndRecord();
    void attributeNoRecord();
    void attributeExitCodes_data();
    void attributeExitCodes();
    void usageErrors_data();
    void usageErrors();
    void helpNamesTheExitCodes();
    void cellsText();
    void cellsJson();
    void cellsWithHarnessErrorsIsNoNotReproduced();
    void ctrlCKillsTheRunsAndExits4();

private:
    Result cli(const QStringList &args) const;
    QString runsDir() const
    {
        return QString::fromStdString(m_repo->root()) + QStringLiteral("/.patchwitness/runs");
    }
    // Every file in runs/ but the .gitignore patchwitness keeps there.
    QStringList records() const
    {
        QStringList files = QDir(runsDir()).entryList(QDir::Files | QDir::Hidden);
        files.removeAll(QStringLiteral(".gitignore"));
        return files;
    }

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::string m_base, m_head;
};

void TestRunCli::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_cache = std::make_unique<QTemporaryDir>();
    m_scratch = std::make_unique<QTemporaryDir>();
    const std::string pids = m_scratch->path().toStdString();
    for (const auto &file : kBaseFiles)
        m_repo->write(file[0], file[1]);
    m_repo->write("tests/hang/test_hang.py", pw::test::hangingTestSource(pids + "/base.pids"));
    m_base = m_repo->commit("base");
    for (const auto &file : kHeadFiles)
        m_repo->write(file[0], file[1]);
    m_repo->write("tests/hang/test_hang.py", pw::test::hangingTestSource(pids + "/head.pids"));
    m_head = m_repo->commit("the patch");
}

void TestRunCli::init()
{
    QDir(runsDir()).removeRecursively();
}

Result TestRunCli::cli(const QStringList &args) const
{
    QStringList all = args;
    all << QStringLiteral("--repo") << QString::fromStdString(m_repo->root())
        << QStringLiteral("--base") << QString::fromStdString(m_base) << QStringLiteral("--head")
        << QString::fromStdString(m_head) << QStringLiteral("--python")
        << QString::fromStdString(pw::test::testPython()) << QStringLiteral("--cache-dir")
        << m_cache->path() << QStringLiteral("--workers") << QStringLiteral("2")
        << QStringLiteral("--no-sandbox") << QStringLiteral("--today")
        << QStringLiteral("2024-05-10");
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH), all);
    if (!p.waitForFinished(180000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

void TestRunCli::attributeText()
{
    const Result r = cli({QStringLiteral("attribute"),
                          QStringLiteral("tests/induced/test_induced.py::test_value"),
                          QStringLiteral("--runs"), QStringLiteral("2")});
    QCOMPARE(r.exitCode, 1); // PATCH_INDUCED: the patch is blamed
    QVERIFY2(r.out.contains(QLatin1String("verdict: PATCH_INDUCED\n  induced by the patch")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("run        1     2\n"
                                          "base    pass  pass\n"
                                          "head    fail  fail\n")),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("base fails 0/2, head fails 2/2")));
    QVERIFY(r.out.contains(QLatin1String("env digest: ")));
    QVERIFY(r.out.contains(QLatin1String("freeze: not allowed")));
    QVERIFY(r.out.contains(QLatin1String("replay:\n  cd ")));
    QVERIFY2(r.out.contains(QString::fromLatin1("replay from any checkout:\n  patchwitness-cli "
                                                "attribute tests/induced/test_induced.py::"
                                                "test_value --base ") +
                            QString::fromStdString(m_base)),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String(" --seed 0 --no-record\n")));
    QVERIFY(r.out.contains(QLatin1String("tests/induced/test_induced.py::test_value\n")));
    // Progress on stderr, one line per finished run.
    QVERIFY2(r.err.contains(QLatin1String("attribute: 4/4 ")), qPrintable(r.err));
    QVERIFY(r.err.contains(QLatin1String(" head seed 0: fail (")));
    // A verdict is recorded.
    QCOMPARE(records(), QStringList{QStringLiteral(
                            "2024-05-10-tests_induced_test_induced.py_test_value-matched.json")});
    QVERIFY(r.out.contains(QLatin1String(
        "record: "
        ".patchwitness/runs/2024-05-10-tests_induced_test_induced.py_test_value-matched.json")));
}

void TestRunCli::attributeJsonAndRecord()
{
    const Result r =
        cli({QStringLiteral("attribute"), QStringLiteral("tests/pre/test_pre.py::test_broken"),
             QStringLiteral("--mode"), QStringLiteral("swept"), QStringLiteral("--runs"),
             QStringLiteral("2"), QStringLiteral("--format"), QStringLiteral("json"),
             QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 0); // PRE_EXISTING: nothing blamed on the patch
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    const json doc = json::parse(r.out.toStdString());
    QCOMPARE(doc["schema"].get<std::string>(), std::string("patchwitness.attribution-run/1"));
    QCOMPARE(doc["verdict"].get<std::string>(), std::string("PRE_EXISTING"));
    QCOMPARE(doc["mode"].get<std::string>(), std::string("swept"));
    QCOMPARE(doc["seeds"], json::parse("[0, 1]"));
    QCOMPARE(doc["freeze_allowed"].get<bool>(), true);
    QCOMPARE(doc["witness_seed"].get<int>(), 0);
    QCOMPARE(doc["base"]["fails"].get<int>(), 2);
    QCOMPARE(doc["head"]["fails"].get<int>(), 2);
    QCOMPARE(doc["base"]["commit"].get<std::string>(), m_base);
    QCOMPARE(doc["head"]["runs"].size(), size_t(2));
    QCOMPARE(doc["head"]["runs"][1]["seed"].get<int>(), 1);
    QCOMPARE(doc["head"]["runs"][1]["outcome"].get<std::string>(), std::string("fail"));
    QCOMPARE(doc["env_digest"].get<std::string>().size(), size_t(16));
    const std::string record = doc["record"].get<std::string>();
    QCOMPARE(
        record,
        std::string(".patchwitness/runs/2024-05-10-tests_pre_test_pre.py_test_broken-swept.json"));
    const json rec =
        json::parse(pw::core::readWholeFile(m_repo->root() + "/" + record).value_or("null"));
    QCOMPARE(rec["schema"].get<std::string>(), std::string("patchwitness.attribution/1"));
    QCOMPARE(rec["verdict"].get<std::string>(), std::string("PRE_EXISTING"));
    QCOMPARE(rec["baseline_sha"].get<std::string>(), m_base);
    QCOMPARE(rec["recorded"].get<std::string>(), std::string("2024-05-10"));
    // The document names its replays as the record does.
    QCOMPARE(doc["replay"], rec["replay"]);
    QCOMPARE(doc["replay_exact"], rec["replay_exact"]);
    QVERIFY(doc["replay"].get<std::string>().rfind("patchwitness-cli attribute ", 0) == 0);
    QVERIFY(doc["replay_exact"].get<std::string>().rfind("cd ", 0) == 0);
}

void TestRunCli::attributeNoRecord()
{
    const Result r =
        cli({QStringLiteral("attribute"), QStringLiteral("tests/pre/test_pre.py::test_broken"),
             QStringLiteral("--runs"), QStringLiteral("1"), QStringLiteral("--no-record"),
             QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 0);
    const json doc = json::parse(r.out.toStdString());
    QVERIFY(doc["record"].is_null());
    QVERIFY(records().isEmpty());
}

void TestRunCli::attributeExitCodes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("verdict");
    QTest::newRow("NO_REPRO") << QStringList{QStringLiteral("tests/green/test_green.py::test_fine")}
                              << 0 << QStringLiteral("NO_REPRO");
    QTest::newRow("PATCH_MASKS") << QStringList{QStringLiteral(
                                        "tests/masks/test_masks.py::test_parse")}
                                 << 1 << QStringLiteral("PATCH_MASKS");
    // Seeds 0 and 1: base fails on 0, head on 1.
    QTest::newRow("HARNESS_ENV") << QStringList{QStringLiteral(
                                                    "tests/env/test_env.py::test_seeded"),
                                                QStringLiteral("--mode"), QStringLiteral("swept"),
                                                QStringLiteral("--runs"), QStringLiteral("2")}
                                 << 2 << QStringLiteral("HARNESS_ENV");
    QTest::newRow("PATCH_INDUCED, matched at seed 3")
        << QStringList{QStringLiteral("tests/induced/test_induced.py::test_value"),
                       QStringLiteral("--seed"), QStringLiteral("3")}
        << 1 << QStringLiteral("PATCH_INDUCED");
}

void TestRunCli::attributeExitCodes()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, verdict);
    QStringList all = QStringList{QStringLiteral("attribute")} + args;
    if (!args.contains(QStringLiteral("--runs")))
        all << QStringLiteral("--runs") << QStringLiteral("1");
    all << QStringLiteral("--quiet") << QStringLiteral("--no-record");
    const Result r = cli(all);
    QVERIFY2(r.exitCode == exitCode, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("verdict: ") + verdict + QLatin1Char('\n')),
             qPrintable(r.out));
    if (args.contains(QStringLiteral("--seed")))
        QVERIFY(r.out.contains(QLatin1String("seed 3 on every run")));
}

void TestRunCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString green = QStringLiteral("tests/green/test_green.py::test_fine");
    QTest::newRow("no test") << QStringList{QStringLiteral("attribute")}
                             << QStringLiteral("a test node id is required");
    QTest::newRow("two tests") << QStringList{QStringLiteral("attribute"), green, green}
                               << QStringLiteral("one test at a time");
    QTest::newRow("not a node id")
        << QStringList{QStringLiteral("attribute"), QStringLiteral("tests/green/test_green.py")}
        << QStringLiteral("not a pytest node id");
    QTest::newRow("no such file") << QStringList{QStringLiteral("attribute"),
                                                 QStringLiteral("tests/x/test_x.py::test_a")}
                                  << QStringLiteral("exists neither at base");
    QTest::newRow("no such test") << QStringList{QStringLiteral("attribute"),
                                                 QStringLiteral("tests/green/test_green.py::nope"),
                                                 QStringLiteral("--runs"), QStringLiteral("1")}
                                  << QStringLiteral("not collected at base nor at head");
    QTest::newRow("unknown mode") << QStringList{QStringLiteral("attribute"), green,
                                                 QStringLiteral("--mode"), QStringLiteral("random")}
                                  << QStringLiteral("unknown --mode 'random'");
    QTest::newRow("zero runs") << QStringList{QStringLiteral("attribute"), green,
                                              QStringLiteral("--runs"), QStringLiteral("0")}
                               << QStringLiteral("--runs must be an integer of at least 1");
    QTest::newRow("seed with swept")
        << QStringList{QStringLiteral("attribute"), green,
                       QStringLiteral("--mode"),    QStringLiteral("swept"),
                       QStringLiteral("--seed"),    QStringLiteral("2")}
        << QStringLiteral("--seed is for --mode matched");
    QTest::newRow("unknown format") << QStringList{QStringLiteral("attribute"), green,
                                                   QStringLiteral("--format"), QStringLiteral("md")}
                                    << QStringLiteral("unknown --format 'md'");
    QTest::newRow("cells: zero order seeds")
        << QStringList{QStringLiteral("cells"), green, QStringLiteral("--order-seeds"),
                       QStringLiteral("0")}
        << QStringLiteral("--order-seeds must be an integer of at least 1");
    QTest::newRow("cells: unknown arm")
        << QStringList{QStringLiteral("cells"), green, QStringLiteral("--arm"),
                       QStringLiteral("mid")}
        << QStringLiteral("unknown --arm 'mid'");
}

void TestRunCli::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Result r = cli(args);
    QVERIFY2(r.exitCode == 3, qPrintable(r.out + r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(records().isEmpty());
}

void TestRunCli::helpNamesTheExitCodes()
{
    for (const char *command : {"attribute", "cells"}) {
        QProcess p;
        p.start(QStringLiteral(PW_CLI_PATH), {QLatin1String(command), QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QString help = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(help.contains(QLatin1String("Exit 0")), qPrintable(help));
        QVERIFY(help.contains(QLatin1String("interrupted")));
    }
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH), {QStringLiteral("--help")});
    QVERIFY(p.waitForFinished(30000));
    const QString usage = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY(usage.contains(QLatin1String("  attribute ")));
    QVERIFY(usage.contains(QLatin1String("  cells ")));
}

void TestRunCli::cellsText()
{
    const Result r =
        cli({QStringLiteral("cells"), QStringLiteral("tests/order/test_order_b.py::test_b"),
             QStringLiteral("--order-seeds"), QStringLiteral("3")});
    QCOMPARE(r.exitCode, 1); // a cell fails
    QVERIFY2(r.out.contains(QLatin1String("attribution: order\n  ordering/shared state")),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("failing seeds {1, 3}")));
    QVERIFY(r.out.contains(QLatin1String("replay (order):\n  cd ")));
    QVERIFY2(r.err.contains(QLatin1String("cells: 6/6 ")), qPrintable(r.err));
    QVERIFY(r.err.contains(QLatin1String("forked replays failed")));
}

// Order and isolate cannot run (the scoped suite does not collect), solo and clock pass:
// that is no "not reproduced" (exit 0) but a harness error (exit 4).
void TestRunCli::cellsWithHarnessErrorsIsNoNotReproduced()
{
    const Result r =
        cli({QStringLiteral("cells"), QStringLiteral("tests/collerr/test_fine_here.py::test_ok"),
             QStringLiteral("--order-seeds"), QStringLiteral("2"), QStringLiteral("--no-record")});
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.out.contains(QLatin1String("harness error")), qPrintable(r.out));
}

void TestRunCli::cellsJson()
{
    const Result r =
        cli({QStringLiteral("cells"), QStringLiteral("tests/green/test_green.py::test_fine"),
             QStringLiteral("--order-seeds"), QStringLiteral("2"), QStringLiteral("--format"),
             QStringLiteral("json"), QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 0); // not reproduced
    const json doc = json::parse(r.out.toStdString());
    QCOMPARE(doc["schema"].get<std::string>(), std::string("patchwitness.cells/1"));
    QCOMPARE(doc["arm"].get<std::string>(), std::string("head"));
    QCOMPARE(doc["scope"].get<std::string>(), std::string("tests/green"));
    QCOMPARE(doc["attribution"].get<std::string>(), std::string("none"));
    QCOMPARE(doc["cells"].size(), size_t(4));
    QCOMPARE(doc["cells"][0]["name"].get<std::string>(), std::string("solo"));
    QCOMPARE(doc["cells"][1]["runs"].get<int>(), 2);
    QCOMPARE(doc["cells"][2]["name"].get<std::string>(), std::string("isolate"));
    QCOMPARE(doc["cells"][3]["status"].get<std::string>(), std::string("pass")); // freezegun
}

void TestRunCli::ctrlCKillsTheRunsAndExits4()
{
    QStringList args = {QStringLiteral("attribute"),
                        QStringLiteral("tests/hang/test_hang.py::test_hangs"),
                        QStringLiteral("--runs"), QStringLiteral("1")};
    args << QStringLiteral("--repo") << QString::fromStdString(m_repo->root())
         << QStringLiteral("--base") << QString::fromStdString(m_base) << QStringLiteral("--head")
         << QString::fromStdString(m_head) << QStringLiteral("--python")
         << QString::fromStdString(pw::test::testPython()) << QStringLiteral("--cache-dir")
         << m_cache->path() << QStringLiteral("--workers") << QStringLiteral("2")
         << QStringLiteral("--no-sandbox");
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH), args);
    QVERIFY(p.waitForStarted());
    const std::string dir = m_scratch->path().toStdString();
    QVERIFY(pw::test::waitForFile(dir + "/base.pids", 60000));
    QVERIFY(pw::test::waitForFile(dir + "/head.pids", 60000));
    ::kill(pid_t(p.processId()), SIGINT); // what Ctrl-C sends
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 4);
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(out.contains(QLatin1String("verdict: none\n  interrupted: ")), qPrintable(out));
    QVERIFY2(err.contains(QLatin1String("patchwitness-cli: attribute: interrupted")),
             qPrintable(err));
    for (const char *arm : {"base", "head"}) {
        const std::vector<long> pids = pw::test::readPids(dir + "/" + arm + ".pids");
        QCOMPARE(pids.size(), size_t(2));
        QVERIFY(pw::test::waitUntilGone(pids, 5000));
    }
    QVERIFY(records().isEmpty());
}

QTEST_GUILESS_MAIN(TestRunCli)
#include "tst_runcli.moc"
