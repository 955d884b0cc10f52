// `patchwitness-cli attribute` and `cells` through QProcess: text and
// JSON results on stdout, progress on stderr, the exit code of every verdict, the evidence
// record written or not (--no-record), usage errors (exit 3), and Ctrl-C (exit 4, the
// runs' process groups killed, nothing recorded) — also while the command still prepares,
// and for a daemon a test left behind when the command is SIGKILLed.

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "util/Files.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <cstring>
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
    // Fails on both trees at seed 1 (random.seed(1) → randrange(3) == 0), passes at seed 0:
    // PRE_EXISTING in a sweep, and not broken (solo, at seed 0, passes).
    {"tests/seeded/test_roll.py",
     "import random\n\n\ndef test_roll():\n    assert random.randrange(3) != 0\n"},
};

const char *const kHeadFiles[][2] = {
    {"src/calc.py", "def value():\n    return 2\n\n\ndef parse(text):\n    try:\n"
                    "        return int(text)\n    except ValueError:\n        return 0\n"},
    {"tests/env/test_env.py",
     "import random\n\n\ndef test_seeded():\n    assert random.randrange(3) != 0\n"},
};

// A test module whose one test starts a daemon the usual way — fork, setsid, fork again,
// so it is in a session of its own and its parent is gone — that writes "<pytest pid>
// <daemon pid>" into `pidFile` and then a heartbeat into `pidFile`.beat every 20 ms for
// ten minutes; the test itself then sleeps 600 s.
std::string heartbeatDaemonSource(const std::string &pidFile)
{
    const std::string file = "'" + pidFile + "'";
    return "import os, time\n"
           "\n"
           "def test_daemon():\n"
           "    pytest_pid = os.getpid()\n"
           "    first = os.fork()\n"
           "    if first == 0:\n"
           "        os.setsid()\n"
           "        if os.fork() != 0:\n"
           "            os._exit(0)\n"
           "        with open(" +
           file +
           " + '.tmp', 'w') as f:\n"
           "            f.write('%d %d' % (pytest_pid, os.getpid()))\n"
           "        os.rename(" +
           file + " + '.tmp', " + file +
           ")\n"
           "        end = time.time() + 600\n"
           "        while time.time() < end:\n"
           "            with open(" +
           file +
           " + '.beat', 'w') as f:\n"
           "                f.write(repr(time.time()))\n"
           "            time.sleep(0.02)\n"
           "        os._exit(0)\n"
           "    os.waitpid(first, 0)\n"
           "    time.sleep(600)\n";
}

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
    void cellsStopsWhenSoloDecides();
    void freezeHintIsACommandThatSucceeds();
    void brokenTestTurnsTheFreezeHintIntoARefusal();
    void ctrlCKillsTheRunsAndExits4();
    void noProcessOfTheRunOutlivesTheCommand_data();
    void noProcessOfTheRunOutlivesTheCommand();
    void aDaemonOfTheRunDiesWithTheCommand_data();
    void aDaemonOfTheRunDiesWithTheCommand();
    void aSignalWhilePreparingStopsCleanly_data();
    void aSignalWhilePreparingStopsCleanly();

private:
    Result cli(const QStringList &args) const;
    // `command` as printed, with "patchwitness-cli" this build's, through /bin/sh.
    Result shell(const QString &command) const;
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
    m_repo->write("tests/daemon/test_daemon.py", heartbeatDaemonSource(pids + "/base.daemon"));
    m_base = m_repo->commit("base");
    for (const auto &file : kHeadFiles)
        m_repo->write(file[0], file[1]);
    m_repo->write("tests/hang/test_hang.py", pw::test::hangingTestSource(pids + "/head.pids"));
    m_repo->write("tests/daemon/test_daemon.py", heartbeatDaemonSource(pids + "/head.daemon"));
    m_head = m_repo->commit("the patch");
}

void TestRunCli::init()
{
    QDir(runsDir()).removeRecursively();
    QFile::remove(QString::fromStdString(m_repo->root()) +
                  QStringLiteral("/.patchwitness/quarantine.toml"));
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

Result TestRunCli::shell(const QString &command) const
{
    QString line = command;
    if (line.startsWith(QLatin1String("patchwitness-cli ")))
        line.replace(0, int(strlen("patchwitness-cli")),
                     QStringLiteral("'") + QStringLiteral(PW_CLI_PATH) + QStringLiteral("'"));
    QProcess p;
    p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), line});
    if (!p.waitForFinished(300000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

namespace {

// The line after `label` ("run first:\n  <command>"); empty when there is none.
QString commandAfter(const QString &text, const QString &label)
{
    const int at = text.indexOf(label + QStringLiteral("\n  "));
    if (at < 0)
        return {};
    const int start = at + label.size() + 3;
    return text.mid(start, text.indexOf(QLatin1Char('\n'), start) - start);
}

// Every "(duration)" a progress line ends with, and whether each reads as formatSeconds
// writes durations (never "0.4 s" for 400 ms, "1.52 s" or "143. s").
QStringList badDurations(const QString &progress)
{
    static const QRegularExpression duration(QStringLiteral(
        R"(\((\d+ ms|< 1 ms|[1-9]\.\d s|[1-5]?\d s|\d+ min( \d+ s)?|\d+ h( \d+ min)?)\)$)"));
    QStringList bad;
    for (const QString &line : progress.split(QLatin1Char('\n'))) {
        if (line.contains(QLatin1String(" seed ")) && line.endsWith(QLatin1Char(')')) &&
            !duration.match(line).hasMatch())
            bad << line;
    }
    return bad;
}

} // namespace

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
    // Each line's duration reads the one way durations read (formatSeconds).
    QVERIFY2(badDurations(r.err).isEmpty(), qPrintable(badDurations(r.err).join('\n')));
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
    QVERIFY(doc["replay"].get<std::string>().starts_with("patchwitness-cli attribute "));
    QVERIFY(doc["replay_exact"].get<std::string>().starts_with("cd "));
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
    // A timeout the timers cannot hold would turn them off (inf overflowed an int of
    // milliseconds, 0.0001 rounded to none).
    for (const char *timeout : {"inf", "1e300", "0.0001", "-1", "nan", "soon"}) {
        QTest::newRow(qPrintable(QStringLiteral("attribute: --timeout %1").arg(timeout)))
            << QStringList{QStringLiteral("attribute"), green, QStringLiteral("--timeout"),
                           QLatin1String(timeout)}
            << QStringLiteral("attribute: --timeout must");
    }
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

// Solo fails: the verdict is decided (broken test) and no other cell runs; the text, the
// JSON and the record say which cells were not run and why.
void TestRunCli::cellsStopsWhenSoloDecides()
{
    const Result r =
        cli({QStringLiteral("cells"), QStringLiteral("tests/pre/test_pre.py::test_broken"),
             QStringLiteral("--order-seeds"), QStringLiteral("3")});
    QCOMPARE(r.exitCode, 1); // a cell fails
    QVERIFY2(r.out.contains(QLatin1String("attribution: solo\n  broken test")), qPrintable(r.out));
    for (const char *cell : {"order", "isolate", "clock"})
        QVERIFY2(r.out.contains(QString::fromLatin1(cell).leftJustified(9) +
                                QStringLiteral("unknown     0      0        0  not run: solo "
                                               "already decided (broken test: it fails alone)")),
                 qPrintable(r.out));
    // One run, solo's: its progress line, and nothing after it.
    QVERIFY2(r.err.contains(QLatin1String("cells: 1/6 solo seed 0: fail (")), qPrintable(r.err));
    QVERIFY2(!r.err.contains(QLatin1String("cells: 2/6 ")), qPrintable(r.err));
    QVERIFY(r.err.contains(QLatin1String("order, isolate and clock not run")));
    QCOMPARE(records().size(), 1);
    const json rec =
        json::parse(pw::core::readWholeFile(
                        QString(runsDir() + QLatin1Char('/') + records().front()).toStdString())
                        .value_or("null"));
    QCOMPARE(rec["attribution"].get<std::string>(), std::string("solo"));
    for (const json &cell : rec["cells"])
        QCOMPARE(cell["not_run"].get<bool>(), cell["name"] != "solo");

    const Result j =
        cli({QStringLiteral("cells"), QStringLiteral("tests/pre/test_pre.py::test_broken"),
             QStringLiteral("--order-seeds"), QStringLiteral("3"), QStringLiteral("--format"),
             QStringLiteral("json"), QStringLiteral("--no-record"), QStringLiteral("--quiet")});
    const json doc = json::parse(j.out.toStdString());
    QCOMPARE(doc["cells"][1]["name"].get<std::string>(), std::string("order"));
    QCOMPARE(doc["cells"][1]["not_run"].get<bool>(), true);
    QCOMPARE(doc["cells"][1]["runs"].get<int>(), 0);
    QVERIFY(doc["cells"][1]["unknown_reason"].get<std::string>().starts_with(
        "not run: solo already decided"));
}

// Issue 17: the freeze command `attribute` prints is one a reviewer pastes and that succeeds.
// Its fields come from the records (attribution and cells) or are '<…>' a person fills in;
// left unfilled they are refused. The hint names what to run first (the cells) and,
// after that, `cells` prints the same freeze command.
void TestRunCli::freezeHintIsACommandThatSucceeds()
{
    const QString test = QStringLiteral("tests/seeded/test_roll.py::test_roll");
    const Result a =
        cli({QStringLiteral("attribute"), test, QStringLiteral("--mode"), QStringLiteral("swept"),
             QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--quiet")});
    QVERIFY2(a.exitCode == 0, qPrintable(a.out + a.err));
    QVERIFY2(a.out.contains(QLatin1String("verdict: PRE_EXISTING\n")), qPrintable(a.out));
    QVERIFY2(a.out.contains(QLatin1String("freeze: not yet: no cells record of ") + test),
             qPrintable(a.out));
    QVERIFY(!a.out.contains(QLatin1String("freeze: allowed")));
    const QString cellsCommand = commandAfter(a.out, QStringLiteral("run first:"));
    QVERIFY2(cellsCommand.startsWith(QLatin1String("patchwitness-cli cells ") + test),
             qPrintable(a.out));
    const QString freeze =
        commandAfter(a.out, QStringLiteral("then freeze with (fill in the <…> fields):"));
    QVERIFY2(freeze.startsWith(QLatin1String("patchwitness-cli freeze ") + test +
                               QLatin1String(" --from-run runs/2024-05-10-")),
             qPrintable(a.out));

    // Pasted before the cells ran (placeholders filled), the freeze lacks its attribution
    // and says what gives it.
    const QString filled =
        QString(freeze)
            .replace(QLatin1String("'<who fixes the test>'"), QLatin1String("ada"))
            .replace(QLatin1String("'<the behaviour the fix must restore>'"),
                     QLatin1String("'a roll of the die is never zero'"))
            .replace(QLatin1String("'<a test at head that covers it meanwhile>'"),
                     QLatin1String("tests/green/test_green.py::test_fine"))
            .replace(QLatin1String("'<files the patch must leave alone meanwhile>'"),
                     QLatin1String("tests/seeded/test_roll.py"))
            .replace(QLatin1String("'<your name>'"), QLatin1String("grace"));
    QVERIFY2(!filled.contains(QLatin1Char('<')), qPrintable(filled));
    const QString quarantine =
        QString::fromStdString(m_repo->root()) + QStringLiteral("/.patchwitness/quarantine.toml");
    const Result early = shell(filled);
    QCOMPARE(early.exitCode, 3);
    QVERIFY2(early.err.contains(QLatin1String("missing required field `attribution` (no cells "
                                              "record of ")),
             qPrintable(early.err));
    QVERIFY(!QFileInfo::exists(quarantine));

    // The command to run first, as printed: the four cells, recorded.
    const Result c = shell(cellsCommand);
    QVERIFY2(c.exitCode == 1, qPrintable(c.out + c.err)); // a cell fails
    QVERIFY2(c.out.contains(QLatin1String("freeze: allowed: PRE_EXISTING (runs/")),
             qPrintable(c.out));
    // The other direction agrees: cells prints the same command.
    QCOMPARE(commandAfter(c.out, QStringLiteral("freeze with (fill in the <…> fields):")), freeze);
    QString cellsRecord;
    for (const QString &name : records()) {
        if (name.endsWith(QLatin1String("-cells.json")))
            cellsRecord = name;
    }
    QVERIFY(!cellsRecord.isEmpty());
    const json cells = json::parse(
        pw::core::readWholeFile(QString(runsDir() + QLatin1Char('/') + cellsRecord).toStdString())
            .value_or("null"));
    const std::string attribution = cells["attribution"].get<std::string>();
    QVERIFY2(attribution != "solo" && attribution != "none" && attribution != "unknown",
             attribution.c_str());

    // As printed, the '<…>' fields left as they are: refused, nothing written.
    const Result unfilled = shell(freeze);
    QCOMPARE(unfilled.exitCode, 3);
    QVERIFY2(unfilled.err.contains(
                 QLatin1String("owner: \"<who fixes the test>\" is a placeholder of the "
                               "printed command")),
             qPrintable(unfilled.err));
    QVERIFY(!QFileInfo::exists(quarantine));

    // Filled in: granted, every other field from the records.
    const Result granted = shell(filled);
    QVERIFY2(granted.exitCode == 0, qPrintable(granted.out + granted.err));
    const std::string text = pw::core::readWholeFile(quarantine.toStdString()).value_or("");
    for (const std::string &expected :
         {"verdict = \"PRE_EXISTING\"\nattribution = \"" + attribution + "\"\n",
          std::string("witness_seed = 1\n"), "baseline_sha = \"" + m_base + "\"\n",
          std::string("evidence = { base_fail = 1, head_fail = 1, mode = \"swept\", seeds = "
                      "[0, 1], env_digest = \""),
          std::string("expires = 2024-05-24\n"), std::string("granted_by = \"grace\"\n")})
        QVERIFY2(text.find(expected) != std::string::npos, (expected + " in\n" + text).c_str());
    QVERIFY2(granted.out.contains(QLatin1String("cells from runs/") + cellsRecord),
             qPrintable(granted.out));
}

// Issue 17: for a test the cells call broken (solo fails), neither `attribute` nor `cells`
// says "freeze: allowed", and `freeze` refuses it — whichever ran first.
void TestRunCli::brokenTestTurnsTheFreezeHintIntoARefusal()
{
    const QString test = QStringLiteral("tests/pre/test_pre.py::test_broken");
    const Result before = cli({QStringLiteral("attribute"), test, QStringLiteral("--runs"),
                               QStringLiteral("1"), QStringLiteral("--quiet")});
    QVERIFY2(before.exitCode == 0, qPrintable(before.out + before.err));
    QVERIFY2(before.out.contains(QLatin1String("freeze: not yet: no cells record of ") + test),
             qPrintable(before.out));

    const Result c = cli({QStringLiteral("cells"), test, QStringLiteral("--order-seeds"),
                          QStringLiteral("2"), QStringLiteral("--quiet")});
    QCOMPARE(c.exitCode, 1);
    QVERIFY2(c.out.contains(QLatin1String("freeze: not allowed: the four cells say it is a "
                                          "broken test (runs/2024-05-10-tests_pre_test_pre.py_"
                                          "test_broken-cells.json: broken test")),
             qPrintable(c.out));
    QVERIFY(!c.out.contains(QLatin1String("patchwitness-cli freeze")));

    const Result after = cli({QStringLiteral("attribute"), test, QStringLiteral("--runs"),
                              QStringLiteral("1"), QStringLiteral("--quiet")});
    QVERIFY2(after.out.contains(QLatin1String("verdict: PRE_EXISTING\n")), qPrintable(after.out));
    QVERIFY2(after.out.contains(QLatin1String("freeze: not allowed: the four cells say it is a "
                                              "broken test")),
             qPrintable(after.out));
    QVERIFY(!after.out.contains(QLatin1String("freeze: allowed")));
    QVERIFY(!after.out.contains(QLatin1String("patchwitness-cli freeze")));
    const Result j =
        cli({QStringLiteral("attribute"), test, QStringLiteral("--runs"), QStringLiteral("1"),
             QStringLiteral("--quiet"), QStringLiteral("--format"), QStringLiteral("json"),
             QStringLiteral("--no-record")});
    const json doc = json::parse(j.out.toStdString());
    QCOMPARE(doc["freeze_allowed"].get<bool>(), false);
    QCOMPARE(doc["freeze"]["stance"].get<std::string>(), std::string("refused"));
    QVERIFY(doc["freeze"]["command"].is_null());

    // `freeze` itself applies the same rule, every human field given.
    QString attributionRecord;
    for (const QString &name : records()) {
        if (name.endsWith(QLatin1String("-matched.json")))
            attributionRecord = name;
    }
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH),
            {QStringLiteral("freeze"),       test,
             QStringLiteral("--from-run"),   QStringLiteral("runs/") + attributionRecord,
             QStringLiteral("--owner"),      QStringLiteral("ada"),
             QStringLiteral("--expires"),    QStringLiteral("2024-05-20"),
             QStringLiteral("--obligation"), QStringLiteral("one plus one is two"),
             QStringLiteral("--substitute"), QStringLiteral("tests/green/test_green.py::test_fine"),
             QStringLiteral("--guards"),     QStringLiteral("tests/pre/test_pre.py"),
             QStringLiteral("--by"),         QStringLiteral("grace"),
             QStringLiteral("--repo"),       QString::fromStdString(m_repo->root()),
             QStringLiteral("--today"),      QStringLiteral("2024-05-10"),
             QStringLiteral("--python"),     QString::fromStdString(pw::test::testPython())});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 3);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains(QLatin1String("attribution: no freeze: the four cells say it is a "
                                        "broken test")),
             qPrintable(err));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(m_repo->root()) +
                               QStringLiteral("/.patchwitness/quarantine.toml")));
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

void TestRunCli::noProcessOfTheRunOutlivesTheCommand_data()
{
    QTest::addColumn<int>("signal");
    QTest::addColumn<bool>("cleansUp"); // a handler runs: exit 4 and no run directory left
    QTest::newRow("SIGHUP (terminal or ssh closed)") << int(SIGHUP) << true;
    QTest::newRow("SIGTERM") << int(SIGTERM) << true;
    // No handler runs: pytest dies by PR_SET_PDEATHSIG, the `sleep` it started by the
    // watchdog that kills the run's process group (without the sandbox, as here).
    QTest::newRow("SIGKILL") << int(SIGKILL) << false;
}

// However the command ends, every process of its runs ends with it: both arms' pytest and
// the `sleep 600` each test started (their pids in the files the hanging test writes).
void TestRunCli::noProcessOfTheRunOutlivesTheCommand()
{
    QFETCH(int, signal);
    QFETCH(bool, cleansUp);
    const std::string dir = m_scratch->path().toStdString();
    for (const char *arm : {"base", "head"})
        QFile::remove(QString::fromStdString(dir + "/" + arm + ".pids"));
    QTemporaryDir tmp; // the command's TMPDIR: where its run directories live
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
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TMPDIR"), tmp.path());
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(PW_CLI_PATH), args);
    QVERIFY(p.waitForStarted());
    QVERIFY(pw::test::waitForFile(dir + "/base.pids", 60000));
    QVERIFY(pw::test::waitForFile(dir + "/head.pids", 60000));
    QVERIFY(!QDir(tmp.path())
                 .entryList({QStringLiteral("patchwitness-*")}, QDir::Dirs | QDir::NoDotAndDotDot)
                 .isEmpty());
    ::kill(pid_t(p.processId()), signal);
    QVERIFY(p.waitForFinished(30000));
    if (cleansUp) {
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 4);
        QVERIFY(QString::fromUtf8(p.readAllStandardError())
                    .contains(QLatin1String("patchwitness-cli: attribute: interrupted")));
        const QStringList left =
            QDir(tmp.path())
                .entryList({QStringLiteral("patchwitness-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1String(", "))));
    } else {
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    }
    for (const char *arm : {"base", "head"}) {
        const std::vector<long> pids = pw::test::readPids(dir + "/" + arm + ".pids");
        QCOMPARE(pids.size(), size_t(2));
        QVERIFY2(pw::test::waitUntilGone(pids, 10000), arm);
        QFile::remove(QString::fromStdString(dir + "/" + arm + ".pids")); // for the next row
    }
    QVERIFY(records().isEmpty());
}

void TestRunCli::aDaemonOfTheRunDiesWithTheCommand_data()
{
    QTest::addColumn<int>("signal");
    // The run's own end finds the daemon by the token in its environment (StrayProcesses).
    QTest::newRow("SIGHUP") << int(SIGHUP);
    // No handler runs and no run ends: the watchdog finds it by that token.
    QTest::newRow("SIGKILL") << int(SIGKILL);
}

// Without the sandbox, a daemon a test started (double fork and setsid: out of the run's
// process group, its parent gone) dies with the command, however the command ends.
void TestRunCli::aDaemonOfTheRunDiesWithTheCommand()
{
    QFETCH(int, signal);
    const std::string dir = m_scratch->path().toStdString();
    for (const char *arm : {"base", "head"}) {
        QFile::remove(QString::fromStdString(dir + "/" + arm + ".daemon"));
        QFile::remove(QString::fromStdString(dir + "/" + arm + ".daemon.beat"));
    }
    QTemporaryDir tmp; // the command's TMPDIR: a SIGKILLed command leaves its run directories
    QStringList args = {QStringLiteral("attribute"),
                        QStringLiteral("tests/daemon/test_daemon.py::test_daemon"),
                        QStringLiteral("--runs"), QStringLiteral("1")};
    args << QStringLiteral("--repo") << QString::fromStdString(m_repo->root())
         << QStringLiteral("--base") << QString::fromStdString(m_base) << QStringLiteral("--head")
         << QString::fromStdString(m_head) << QStringLiteral("--python")
         << QString::fromStdString(pw::test::testPython()) << QStringLiteral("--cache-dir")
         << m_cache->path() << QStringLiteral("--workers") << QStringLiteral("2")
         << QStringLiteral("--no-sandbox") << QStringLiteral("--quiet");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TMPDIR"), tmp.path());
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(PW_CLI_PATH), args);
    QVERIFY(p.waitForStarted());
    std::vector<long> daemons;
    for (const char *arm : {"base", "head"}) {
        const std::string file = dir + "/" + arm + ".daemon";
        QVERIFY2(pw::test::waitForFile(file, 60000), arm);
        QVERIFY(pw::test::waitForFile(file + ".beat", 10000));
        const std::vector<long> pids = pw::test::readPids(file);
        QCOMPARE(pids.size(), size_t(2));
        QVERIFY2(pw::test::isAlive(pids[1]), arm);
        daemons.insert(daemons.end(), pids.begin(), pids.end());
    }
    ::kill(pid_t(p.processId()), signal);
    QVERIFY(p.waitForFinished(30000));
    if (signal == SIGKILL)
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    else
        QCOMPARE(p.exitCode(), 4);
    // Both pytest processes and both daemons (pids the daemons wrote themselves).
    QVERIFY2(pw::test::waitUntilGone(daemons, 10000), "a daemon of the run outlived the command");
    QVERIFY(records().isEmpty());
}

void TestRunCli::aSignalWhilePreparingStopsCleanly_data()
{
    QTest::addColumn<int>("signal");
    QTest::addColumn<QString>("hangsIn"); // "probe" or "preflight"
    QTest::addColumn<QString>("stopped"); // what the message says was stopped
    QTest::newRow("Ctrl-C while the interpreter is probed")
        << int(SIGINT) << QStringLiteral("probe")
        << QStringLiteral("the probe of the Python interpreter");
    // By then both trees are materialised and the run directories exist.
    QTest::newRow("SIGHUP during the import preflight")
        << int(SIGHUP) << QStringLiteral("preflight")
        << QString(QStringLiteral("base ") + QString::fromStdString(m_base) +
                   QStringLiteral(": the import preflight stopped"));
    QTest::newRow("SIGTERM during the import preflight")
        << int(SIGTERM) << QStringLiteral("preflight")
        << QStringLiteral("the import preflight stopped");
}

// A signal before the first run — while the command probes its interpreter or runs the
// import preflight, after it materialised both trees — ends it as one during the runs
// does: the probe or preflight killed, exit 4 with "interrupted", no report, no run
// directory, no half-made tree, nothing recorded.
void TestRunCli::aSignalWhilePreparingStopsCleanly()
{
    QFETCH(int, signal);
    QFETCH(QString, hangsIn);
    QFETCH(QString, stopped);
    QTemporaryDir tmp, cache, bin;
    // The interpreter the command is told to use: it hangs in the probe (`-I -c …`) or,
    // answering that, in the preflight (`-c …`, in the tree), after writing its pid.
    const QString pidFile = bin.filePath(QStringLiteral("hung.pid"));
    const QString python = bin.filePath(QStringLiteral("python3"));
    const QString sleep = QStandardPaths::findExecutable(QStringLiteral("sleep"));
    QVERIFY(!sleep.isEmpty());
    {
        QFile script(python);
        QVERIFY(script.open(QIODevice::WriteOnly));
        QString text = QStringLiteral("#!/bin/sh\n");
        if (hangsIn == QLatin1String("preflight"))
            text += QStringLiteral("if [ \"$1\" = -I ]; then exec '%1' \"$@\"; fi\n")
                        .arg(QString::fromStdString(pw::test::testPython()));
        text += QStringLiteral("echo $$ > '%1.tmp'\nmv '%1.tmp' '%1' || exit 1\nexec '%2' 600\n")
                    .arg(pidFile, sleep);
        script.write(text.toUtf8());
        script.close();
        QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
    }
    QStringList args = {QStringLiteral("cells"),
                        QStringLiteral("tests/green/test_green.py::test_fine")};
    args << QStringLiteral("--repo") << QString::fromStdString(m_repo->root())
         << QStringLiteral("--base") << QString::fromStdString(m_base) << QStringLiteral("--head")
         << QString::fromStdString(m_head) << QStringLiteral("--python") << python
         << QStringLiteral("--cache-dir") << cache.path() << QStringLiteral("--no-sandbox");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TMPDIR"), tmp.path());
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(PW_CLI_PATH), args);
    QVERIFY(p.waitForStarted());
    QVERIFY(pw::test::waitForFile(pidFile.toStdString(), 60000));
    const std::vector<long> hung = pw::test::readPids(pidFile.toStdString());
    QCOMPARE(hung.size(), size_t(1));
    if (hangsIn == QLatin1String("preflight")) // the run directories exist by now
        QVERIFY(
            !QDir(tmp.path())
                 .entryList({QStringLiteral("patchwitness-*")}, QDir::Dirs | QDir::NoDotAndDotDot)
                 .isEmpty());
    ::kill(pid_t(p.processId()), signal);
    QVERIFY(p.waitForFinished(30000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 4);
    QVERIFY2(err.contains(QLatin1String("patchwitness-cli: cells: interrupted while preparing "
                                        "the runs (")),
             qPrintable(err));
    QVERIFY2(err.contains(stopped), qPrintable(err));
    QVERIFY2(out.isEmpty(), qPrintable(out));
    QVERIFY2(pw::test::waitUntilGone(hung, 5000), "the probe or preflight outlived the command");
    const QStringList left = QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
    QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1String(", "))));
    // The cache holds whole trees only: each with its marker, no run's copy.
    const QDir trees(cache.filePath(QStringLiteral("trees")));
    for (const QString &name : trees.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QVERIFY2(!name.contains(QLatin1Char('.')), qPrintable(name));
        QVERIFY2(trees.exists(name + QStringLiteral(".marker")), qPrintable(name));
    }
    QCOMPARE(trees.entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(),
             hangsIn == QLatin1String("preflight") ? 2 : 0);
    QVERIFY(records().isEmpty());
}

QTEST_GUILESS_MAIN(TestRunCli)
#include "tst_runcli.moc"
