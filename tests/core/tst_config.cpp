// config.toml (SPEC §7) and the path globs that classify test and fixture files.
#include "ledger/Config.h"
#include "util/Error.h"
#include "util/Glob.h"

#include <QtTest>

using namespace pw::core;

class TstConfig : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaults();
    void values();
    void unknownKeysWarn();
    void badValues_data();
    void badValues();
    void glob_data();
    void glob();
};

void TstConfig::defaults()
{
    const Config c = Config::parse("", "config.toml");
    QCOMPARE(c.latitudeMax, 4);
    QCOMPARE(c.seeds, 20);
    QCOMPARE(c.replays, 5);
    QCOMPARE(c.orderSeeds, 8);
    QCOMPARE(c.minTrials, 20);
    QCOMPARE(c.trialBudget, 2000);
    QCOMPARE(c.freezeMaxDays, 14);
    QCOMPARE(c.renewalRecencyDays, 14);
    QCOMPARE(c.shadowPct, 10);
    QCOMPARE(c.infraFailPct, 50);
    QCOMPARE(c.patchMaxBytes, 64LL * 1024 * 1024);
    QCOMPARE(c.python, std::string("python3"));
    QVERIFY(c.sandbox);
    QVERIFY(c.warnings.empty());
    QCOMPARE(Config::load("/no/such/config.toml").latitudeMax, 4);
}

void TstConfig::values()
{
    const Config c = Config::parse(R"(
python = "/usr/bin/python3"
test_globs = ["spec/**/*.py"]
fixture_globs = ["data/**"]
plugins = ["myproj.plugin"]
latitude_max = 6
sandbox = false
workers = 2
patch_max_bytes = 300000000
[timeouts]
per_test = 30
per_run = 120.5
[test_map]
"src/calc/*.py" = ["tests/test_calc.py"]
"src/io.py" = "tests/test_io.py"
)",
                                   "config.toml");
    QCOMPARE(c.python, std::string("/usr/bin/python3"));
    QCOMPARE(c.testGlobs, std::vector<std::string>{"spec/**/*.py"});
    QCOMPARE(c.fixtureGlobs.size(), size_t(3)); // defaults plus the extra glob
    QCOMPARE(c.fixtureGlobs.back(), std::string("data/**"));
    QCOMPARE(c.plugins, std::vector<std::string>{"myproj.plugin"});
    QCOMPARE(c.latitudeMax, 6);
    QVERIFY(!c.sandbox);
    QCOMPARE(c.workers, 2);
    QCOMPARE(c.patchMaxBytes, 300000000LL);
    QCOMPARE(c.timeoutPerTest, 30.0);
    QCOMPARE(c.timeoutPerRun, 120.5);
    QCOMPARE(c.testMap.at("src/calc/*.py"), std::vector<std::string>{"tests/test_calc.py"});
    QCOMPARE(c.testMap.at("src/io.py"), std::vector<std::string>{"tests/test_io.py"});
}

void TstConfig::unknownKeysWarn()
{
    const Config c =
        Config::parse("latitude_max = 5\nlatitud_max = 9\n[timeouts]\nper_tset = 3\n", "cfg.toml");
    QCOMPARE(c.latitudeMax, 5);
    QCOMPARE(c.warnings.size(), size_t(2));
    QVERIFY(QString::fromStdString(c.warnings[0]).startsWith(QLatin1String("cfg.toml:2:")));
    QVERIFY(QString::fromStdString(c.warnings[0]).contains(QLatin1String("latitud_max")));
    QVERIFY(QString::fromStdString(c.warnings[1]).contains(QLatin1String("timeouts.per_tset")));
}

void TstConfig::badValues_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("syntax error") << QByteArray("latitude_max = = 3\n")
                                  << QString("config.toml:1:");
    QTest::newRow("truncated table")
        << QByteArray("[timeouts\nper_test = 3\n") << QString("config.toml:1:");
    QTest::newRow("wrong type")
        << QByteArray("\n\nlatitude_max = \"4\"\n")
        << QString("config.toml:3:16: `latitude_max` must be an integer, got a string");
    QTest::newRow("out of range") << QByteArray("shadow_pct = 101\n")
                                  << QString("`shadow_pct` must be between 0 and 100, got 101");
    QTest::newRow("negative") << QByteArray("latitude_max = -1\n")
                              << QString("`latitude_max` must be between 1");
    QTest::newRow("globs not strings")
        << QByteArray("test_globs = [1, 2]\n") << QString("`test_globs[]` must be a string");
    QTest::newRow("sandbox not bool")
        << QByteArray("sandbox = \"yes\"\n") << QString("`sandbox` must be true or false");
    QTest::newRow("timeout zero")
        << QByteArray("[timeouts]\nper_test = 0\n")
        << QString("config.toml:2:12: `timeouts.per_test` must be greater than 0");
    QTest::newRow("empty python") << QByteArray("python = \"\"\n")
                                  << QString("`python` must not be empty");
    QTest::newRow("patch cap too small")
        << QByteArray("patch_max_bytes = 100\n")
        << QString("`patch_max_bytes` must be between 1024 and 1000000000, got 100");
    QTest::newRow("invalid utf-8") << QByteArray("python = \"\xff\"\n") << "config.toml:1:";
}

void TstConfig::badValues()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    try {
        Config::parse(text.toStdString(), "config.toml");
        QFAIL("expected an error");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), int(Error::Kind::Input));
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TstConfig::glob_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("match");
    QTest::newRow("tests/** direct") << "tests/**/*.py"
                                     << "tests/test_a.py" << true;
    QTest::newRow("tests/** nested") << "tests/**/*.py"
                                     << "tests/unit/deep/test_a.py" << true;
    QTest::newRow("tests/** other dir") << "tests/**/*.py"
                                        << "src/tests/test_a.py" << false;
    QTest::newRow("**/test_ at root") << "**/test_*.py"
                                      << "test_root.py" << true;
    QTest::newRow("**/test_ nested") << "**/test_*.py"
                                     << "pkg/sub/test_x.py" << true;
    QTest::newRow("**/test_ wrong name") << "**/test_*.py"
                                         << "pkg/sub/x_test.txt" << false;
    QTest::newRow("*_test") << "**/*_test.py"
                            << "pkg/calc_test.py" << true;
    QTest::newRow("* stays in segment") << "tests/*.py"
                                        << "tests/a/b.py" << false;
    QTest::newRow("fixtures/**/*") << "tests/fixtures/**/*"
                                   << "tests/fixtures/a/b.json" << true;
    QTest::newRow("fixtures/** trailing") << "data/**"
                                          << "data/x/y" << true;
    QTest::newRow("conftest anywhere") << "**/conftest.py"
                                       << "conftest.py" << true;
    QTest::newRow("conftest suffix only") << "**/conftest.py"
                                          << "myconftest.py" << false;
    QTest::newRow("? one char") << "t?st.py"
                                << "test.py" << true;
    QTest::newRow("class") << "test_[ab].py"
                           << "test_b.py" << true;
    QTest::newRow("negated class") << "test_[!ab].py"
                                   << "test_b.py" << false;
    QTest::newRow("leading ./") << "./tests/*.py"
                                << "tests/a.py" << true;
}

void TstConfig::glob()
{
    QFETCH(QString, pattern);
    QFETCH(QString, path);
    QFETCH(bool, match);
    QCOMPARE(Glob(pattern.toStdString()).matches(path.toStdString()), match);
}

QTEST_GUILESS_MAIN(TstConfig)
#include "tst_config.moc"
