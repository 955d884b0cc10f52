// RunEnvironment (core/execution): the pinned environment and arguments of every pytest run and
// the env digest that decides which runs may be compared.

#include "TestSupport.h"
#include "execution/RunEnvironment.h"
#include "ledger/Config.h"
#include "python/FactExtractor.h"
#include "util/Error.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using pw::core::Error;
using pw::core::InterpreterProbe;
using pw::core::RunEnvironment;

namespace {

// A script standing in for an interpreter that never answers.
QString writeHangingInterpreter(const QTemporaryDir &dir)
{
    const QString fake = dir.filePath(QStringLiteral("python-that-hangs"));
    QFile f(fake);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write("#!/bin/sh\nexec sleep 600\n");
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return fake;
}

} // namespace

class TestRunEnv : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pinsTheEnvironmentAndKeepsTheParentsOut()
    {
        qputenv("PYTHONPATH", "/leaked");
        qputenv("PYTEST_ADDOPTS", "-x");
        qputenv("PYTHONSTARTUP", "/leaked.py");
        RunEnvironment env;
        env.hashSeed = 7;
        env.homeDir = "/tmp/pw-home";
        env.tmpDir = "/tmp/pw-tmp";
        const QProcessEnvironment e = env.environment();
        qunsetenv("PYTHONPATH");
        qunsetenv("PYTEST_ADDOPTS");
        qunsetenv("PYTHONSTARTUP");

        QCOMPARE(e.value(QStringLiteral("PYTHONHASHSEED")), QStringLiteral("7"));
        QCOMPARE(e.value(QStringLiteral("TZ")), QStringLiteral("UTC"));
        QCOMPARE(e.value(QStringLiteral("LC_ALL")), QStringLiteral("C.UTF-8"));
        QCOMPARE(e.value(QStringLiteral("PYTEST_DISABLE_PLUGIN_AUTOLOAD")), QStringLiteral("1"));
        QCOMPARE(e.value(QStringLiteral("HOME")), QStringLiteral("/tmp/pw-home"));
        QCOMPARE(e.value(QStringLiteral("TMPDIR")), QStringLiteral("/tmp/pw-tmp"));
        QVERIFY(e.contains(QStringLiteral("PATH")));
        const QStringList keys = e.keys();
        for (const QString &key : keys) {
            QVERIFY2(!key.startsWith(QLatin1String("PYTHON")) ||
                         key == QLatin1String("PYTHONHASHSEED"),
                     qPrintable(key));
            QVERIFY2(key != QLatin1String("PYTEST_ADDOPTS"), qPrintable(key));
        }
    }

    void defaultHashSeedIsExplicitZero()
    {
        QCOMPARE(RunEnvironment().environment().value(QStringLiteral("PYTHONHASHSEED")),
                 QStringLiteral("0"));
    }

    void extraVariablesOverridePinnedOnes()
    {
        RunEnvironment env;
        env.extraVariables["TZ"] = "Pacific/Auckland";
        QCOMPARE(env.environment().value(QStringLiteral("TZ")), QStringLiteral("Pacific/Auckland"));
    }

    void argumentsNameEveryPluginAndTheJUnitFile()
    {
        pw::core::Config config;
        config.python = "/usr/bin/python3";
        config.plugins = {"pytest_timeout", "xdist.plugin"};
        const RunEnvironment env = RunEnvironment::fromConfig(config);
        QCOMPARE(env.python, std::string("/usr/bin/python3"));
        const QStringList args = env.pytestArguments("/run/junit.xml", {"tests/test_a.py::test_x"},
                                                     {QStringLiteral("-x")});
        const QStringList expected = {QStringLiteral("-m"),
                                      QStringLiteral("pytest"),
                                      QStringLiteral("-p"),
                                      QStringLiteral("no:cacheprovider"),
                                      QStringLiteral("-p"),
                                      QStringLiteral("pytest_timeout"),
                                      QStringLiteral("-p"),
                                      QStringLiteral("xdist.plugin"),
                                      QStringLiteral("-o"),
                                      QStringLiteral("junit_family=xunit1"),
                                      QStringLiteral("--junitxml=/run/junit.xml"),
                                      QStringLiteral("-q"),
                                      QStringLiteral("-x"),
                                      QStringLiteral("tests/test_a.py::test_x")};
        QCOMPARE(args, expected);
    }

    void commandLineReproducesTheRun()
    {
        RunEnvironment env;
        env.python = pw::test::testPython();
        env.hashSeed = 3;
        QTemporaryDir dir;
        const std::string line = env.shellCommand(
            dir.path().toStdString(),
            {QStringLiteral("-c"),
             QStringLiteral("import os; print(os.environ['PYTHONHASHSEED'], os.environ['TZ'], "
                            "'it''s' == \"it's\", len(os.environ.get('PYTHONPATH', '')))")});
        QVERIFY(line.starts_with("cd "));
        QVERIFY(line.find(" env -i ") != std::string::npos);
        QProcess sh;
        qputenv("PYTHONPATH", "/leaked");
        sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QString::fromStdString(line)});
        QVERIFY(sh.waitForFinished(60000));
        qunsetenv("PYTHONPATH");
        QCOMPARE(sh.readAllStandardOutput().trimmed(), QByteArray("3 UTC False 0"));
    }

    void shellQuoting_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("quoted");
        QTest::newRow("plain") << "tests/test_a.py"
                               << "tests/test_a.py";
        QTest::newRow("node id") << "t.py::C::f[a b]"
                                 << "'t.py::C::f[a b]'";
        QTest::newRow("single quote") << "it's"
                                      << "'it'\\''s'";
        QTest::newRow("empty") << ""
                               << "''";
    }

    void shellQuoting()
    {
        QFETCH(QString, text);
        QFETCH(QString, quoted);
        QCOMPARE(QString::fromStdString(pw::core::shellQuote(text.toStdString())), quoted);
    }

    void digestIsStableAndEqualForEqualInputs()
    {
        RunEnvironment a;
        a.python = pw::test::testPython();
        a.plugins = {"b_plugin", "a_plugin"};
        RunEnvironment b = a;
        b.plugins = {"a_plugin", "b_plugin"}; // the order plugins are named in is not part of it
        const std::string first = pw::core::envDigest(a);
        QCOMPARE(first.size(), size_t(16));
        QCOMPARE(pw::core::envDigest(a), first);
        QCOMPARE(pw::core::envDigest(b), first);
        b.homeDir = "/elsewhere"; // private directories are not environment identity
        QCOMPARE(pw::core::envDigest(b), first);
    }

    void digestChangesWithSeedPluginsAndVersions()
    {
        InterpreterProbe probe;
        probe.pythonVersion = "3.11.2";
        probe.pytestVersion = "7.2.1";
        probe.platform = "Linux-x86_64";
        RunEnvironment env;
        const std::string base = pw::core::envDigest(probe, env);
        RunEnvironment seeded = env;
        seeded.hashSeed = 1;
        QVERIFY(pw::core::envDigest(probe, seeded) != base);
        RunEnvironment plugged = env;
        plugged.plugins = {"pytest_timeout"};
        QVERIFY(pw::core::envDigest(probe, plugged) != base);
        InterpreterProbe newer = probe;
        newer.pytestVersion = "8.0.0";
        QVERIFY(pw::core::envDigest(newer, env) != base);
        InterpreterProbe elsewhere = probe;
        elsewhere.platform = "Darwin-arm64";
        QVERIFY(pw::core::envDigest(elsewhere, env) != base);
    }

    void probeReportsTheInterpreter()
    {
        const InterpreterProbe probe = pw::core::probeInterpreter(pw::test::testPython());
        QVERIFY(probe.pythonVersion.starts_with("3."));
        QVERIFY(!probe.pytestVersion.empty());
        QVERIFY(!probe.platform.empty());
    }

    void missingInterpreterIsAnInputErrorNamingIt_data()
    {
        QTest::addColumn<QString>("python");
        QTest::newRow("path") << "/nonexistent/bin/python3.99";
        QTest::newRow("name") << "no-such-python-pw";
    }

    void missingInterpreterIsAnInputErrorNamingIt()
    {
        QFETCH(QString, python);
        RunEnvironment env;
        env.python = python.toStdString();
        try {
            pw::core::envDigest(env);
            QFAIL("a missing interpreter gave a digest");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            QVERIFY2(std::string(e.what()).find(env.python) != std::string::npos, e.what());
        }
    }

    // An interpreter that hangs at start-up (here: a script that sleeps) is named after
    // config timeouts.probe, not after minutes. The bound is the test's only clock: a hang.
    void hungInterpreterIsNamedAfterTheProbeTimeout()
    {
        QTemporaryDir dir;
        const QString fake = writeHangingInterpreter(dir);
        QElapsedTimer clock;
        clock.start();
        try {
            pw::core::probeInterpreter(fake.toStdString(), false, 300);
            QFAIL("a hanging interpreter answered");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Harness);
            const std::string what = e.what();
            QVERIFY2(what.find(fake.toStdString()) != std::string::npos, e.what());
            QVERIFY2(what.find("within 300 ms (config timeouts.probe)") != std::string::npos,
                     e.what());
        }
        QVERIFY2(clock.elapsed() < 30000, "the probe waited for the hang");
        // The environment of the runs takes it from config.toml.
        pw::core::Config config =
            pw::core::Config::parse("[timeouts]\nprobe = 0.3\n", "config.toml");
        config.python = fake.toStdString();
        QCOMPARE(RunEnvironment::fromConfig(config).probeTimeoutMs, 300);
    }

    // The static audit's extractor does not wait minutes for it either.
    void hungInterpreterStopsTheFactExtractor()
    {
        QTemporaryDir dir;
        const QString fake = writeHangingInterpreter(dir);
        pw::core::FactExtractor extractor(fake.toStdString(), std::string());
        extractor.setStartTimeout(300);
        QElapsedTimer clock;
        clock.start();
        try {
            extractor.extract({{"tests/test_a.py", "0123", [] { return std::string("x = 1\n"); }}});
            QFAIL("a hanging interpreter gave facts");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Harness);
            const std::string what = e.what();
            QVERIFY2(what.find(fake.toStdString()) != std::string::npos, e.what());
            QVERIFY2(what.find("from 1 file(s) within 550 ms (config timeouts.probe") !=
                         std::string::npos,
                     e.what());
        }
        QVERIFY2(clock.elapsed() < 30000, "the extractor waited for the hang");
    }

    void interpreterWithoutPytestIsAnInputError()
    {
        // A script standing in for an interpreter that cannot import pytest.
        QTemporaryDir dir;
        const QString fake = dir.filePath(QStringLiteral("python-without-pytest"));
        QFile f(fake);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\necho '{\"error\": \"ModuleNotFoundError(\\\"No module named "
                "pytest\\\")\"}'\n");
        f.close();
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        try {
            pw::core::probeInterpreter(fake.toStdString());
            QFAIL("an interpreter without pytest was accepted");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            QVERIFY2(std::string(e.what()).find("cannot import pytest") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRunEnv)
#include "tst_runenv.moc"
