// config.toml and the path globs that classify test and fixture files.
#include "TestSupport.h"
#include "ledger/Config.h"
#include "util/Error.h"
#include "util/Glob.h"

#include <QFile>
#include <QRegularExpression>
#include <QtTest>
#include <cstring>
#include <tuple>

using namespace pw::core;

class TstConfig : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaults();
    void values();
    void unknownKeysWarn();
    void ledgerDirIsNoConfigKey();
    void everyDocumentedKeyIsRead();
    void durationBounds_data();
    void durationBounds();
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
    QCOMPARE(c.testFileMaxBytes, 4LL * 1024 * 1024);
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
test_file_max_bytes = 2048
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
    QCOMPARE(c.testFileMaxBytes, 2048LL);
    QCOMPARE(c.timeoutPerTest, 30.0);
    QCOMPARE(c.timeoutPerRun, 120.5);
    QCOMPARE(c.timeoutProbe, 20.0); // the default
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

void TstConfig::durationBounds_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<double>("seconds");
    QTest::addColumn<int>("ms");
    QTest::newRow("smallest") << QByteArray("0.001") << 0.001 << 1;
    QTest::newRow("rounds, never to 0") << QByteArray("0.0014") << 0.0014 << 1;
    QTest::newRow("rounds half up") << QByteArray("1.0005") << 1.0005 << 1001;
    QTest::newRow("integer") << QByteArray("30") << 30.0 << 30000;
    QTest::newRow("largest: a week") << QByteArray("604800") << 604800.0 << 604800000;
}

// The edges of the range are accepted and reach the timers as whole milliseconds.
void TstConfig::durationBounds()
{
    QFETCH(QByteArray, value);
    QFETCH(double, seconds);
    QFETCH(int, ms);
    const QByteArray text =
        "[timeouts]\nper_test = " + value + "\nper_run = " + value + "\nprobe = " + value;
    const Config c = Config::parse(text.toStdString(), "config.toml");
    QCOMPARE(c.timeoutPerTest, seconds);
    QCOMPARE(c.timeoutPerRun, seconds);
    QCOMPARE(c.timeoutProbe, seconds);
    QCOMPARE(Config::milliseconds(c.timeoutPerTest), ms);
    QVERIFY(Config::secondsProblem(seconds).empty());
}

// config.toml is read from the ledger directory, so it cannot choose it: the warning says
// where the choice is made instead of calling the key unknown.
void TstConfig::ledgerDirIsNoConfigKey()
{
    const Config c = Config::parse("ledger_dir = \"/srv/ledgers\"\n", "cfg.toml");
    QCOMPARE(c.warnings.size(), size_t(1));
    const QString warning = QString::fromStdString(c.warnings[0]);
    QVERIFY2(warning.startsWith(QLatin1String("cfg.toml:1:")), qPrintable(warning));
    QVERIFY2(warning.contains(QLatin1String("--ledger-dir")), qPrintable(warning));
    QVERIFY(!warning.contains(QLatin1String("unknown key")));
}

// Every key of README's table of configuration keys is one the parser reads: given a value
// of the wrong type (or the right one), it is refused naming the key or taken, never
// ignored as unknown.
void TstConfig::everyDocumentedKeyIsRead()
{
    QFile readme(QStringLiteral(PW_SOURCE_DIR "/README.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    const int start = text.indexOf(QLatin1String("\n### Configuration keys\n"));
    QVERIFY(start >= 0);
    const int end = text.indexOf(QLatin1String("\n#"), start + 2);
    const QStringList lines = text.mid(start, end - start).split(QLatin1Char('\n'));
    const QRegularExpression row(QStringLiteral("^\\| `([a-z_]+(?:\\.[a-z_]+)?)` \\|"));
    QStringList keys;
    for (const QString &line : lines) {
        const QRegularExpressionMatch m = row.match(line);
        if (m.hasMatch())
            keys << m.captured(1);
    }
    QVERIFY2(keys.size() >= 20, qPrintable(keys.join(QLatin1String(", "))));
    for (const QString &key : keys) {
        const int dot = key.indexOf(QLatin1Char('.'));
        const QString toml =
            dot < 0 ? key + QStringLiteral(" = true\n")
                    : QStringLiteral("[%1]\n%2 = true\n").arg(key.left(dot), key.mid(dot + 1));
        try {
            const Config c = Config::parse(toml.toStdString(), "config.toml");
            const std::string warning = c.warnings.empty() ? std::string() : c.warnings[0];
            QVERIFY2(warning.empty(),
                     qPrintable(key + QStringLiteral(": ") + QString::fromStdString(warning)));
        } catch (const Error &e) {
            QVERIFY2(
                QString::fromUtf8(e.what()).contains(QLatin1Char('`') + key + QLatin1Char('`')),
                e.what());
        }
    }
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
        << QString("config.toml:2:12: `timeouts.per_test` must be greater than 0, got 0");
    // Durations: the run's timers count whole int milliseconds, so a value they cannot
    // hold (overflow) or that rounds to 0 would turn the timer off without a word.
    const std::pair<const char *, const char *> durations[] = {
        {"inf", "must be a finite number of seconds, got inf"},
        {"-inf", "must be a finite number of seconds, got -inf"},
        {"nan", "must be a finite number of seconds, got nan"},
        {"1e300", "must be at most 604800 s (a week), got 1e+300"},
        {"604801", "must be at most 604800 s (a week), got 604801"},
        {"0.0001", "must be at least 0.001 s (timers count whole milliseconds), got 0.0001"},
        {"-5", "must be greater than 0, got -5"},
        {"0.0", "must be greater than 0, got 0"},
        {"\"60\"", "must be a number of seconds, got a string"},
    };
    for (const char *key : {"per_test", "per_run", "probe"}) {
        for (const auto &[value, message] : durations) {
            QTest::newRow(qPrintable(QStringLiteral("timeouts.%1 = %2").arg(key, value)))
                << QByteArray("# durations\n[timeouts]\n") + key + " = " + value + "\n"
                << QStringLiteral("config.toml:3:%1: `timeouts.%2` %3")
                       .arg(int(strlen(key)) + 4)
                       .arg(key, message);
        }
    }
    // Every integer key: below its minimum (0 where nothing is meaningless, -1 where 0
    // means something), above a sane maximum, and of the wrong type.
    const std::tuple<const char *, long long, long long> integers[] = {
        {"latitude_max", 1, 1000000000},
        {"seeds", 1, 100000},
        {"replays", 1, 100000},
        {"order_seeds", 1, 100000},
        {"min_trials", 1, 1000000000},
        {"trial_budget", 1, 1000000000},
        {"freeze_max_days", 1, 3650},
        {"renewal_recency_days", 1, 3650},
        {"shadow_pct", 0, 100},
        {"infra_fail_pct", 1, 100},
        {"workers", 0, 1024},
        {"diff_max_bytes", 1, 1000000000},
    };
    for (const auto &[key, min, max] : integers) {
        const QString range = QStringLiteral("`%1` must be between %2 and %3, got ")
                                  .arg(QLatin1String(key))
                                  .arg(min)
                                  .arg(max);
        QTest::newRow(qPrintable(QStringLiteral("%1 below").arg(key)))
            << QByteArray(key) + " = " + QByteArray::number(min - 1) + "\n"
            << QStringLiteral("config.toml:1:%1: ").arg(strlen(key) + 4) + range +
                   QString::number(min - 1);
        QTest::newRow(qPrintable(QStringLiteral("%1 above").arg(key)))
            << QByteArray(key) + " = " + QByteArray::number(max + 1) + "\n"
            << range + QString::number(max + 1);
        QTest::newRow(qPrintable(QStringLiteral("%1 beyond 64 bits").arg(key)))
            << QByteArray(key) + " = 99999999999999999999\n"
            << QString("config.toml:1:");
        QTest::newRow(qPrintable(QStringLiteral("%1 float").arg(key)))
            << QByteArray(key) + " = 2.5\n"
            << QStringLiteral("`%1` must be an integer, got a number").arg(key);
        QTest::newRow(qPrintable(QStringLiteral("%1 inf").arg(key)))
            << QByteArray(key) + " = inf\n"
            << QStringLiteral("`%1` must be an integer, got a number").arg(key);
    }
    QTest::newRow("empty python") << QByteArray("python = \"\"\n")
                                  << QString("`python` must not be empty");
    QTest::newRow("patch cap too small")
        << QByteArray("patch_max_bytes = 100\n")
        << QString("`patch_max_bytes` must be between 1024 and 1000000000, got 100");
    QTest::newRow("test file cap too small")
        << QByteArray("test_file_max_bytes = 1023\n")
        << QString("`test_file_max_bytes` must be between 1024 and 1000000000, got 1023");
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
