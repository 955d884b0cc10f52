// How a duration reads (core/util/Format's formatSeconds), the one way every progress line,
// report and panel prints one: milliseconds under a second, one decimal under ten seconds,
// whole seconds, minutes and hours above — never "143. s" (the first four characters of
// std::to_string(143.4)) or "0.0 s" for a 4 ms run.

#include "util/Format.h"

#include <QTest>
#include <cmath>
#include <limits>

class TestFormat : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formatSeconds_data();
    void formatSeconds();
    void formatBytes_data();
    void formatBytes();
};

void TestFormat::formatSeconds_data()
{
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");

    QTest::newRow("nothing") << 0.0 << QStringLiteral("0 ms");
    QTest::newRow("negative (a clock step)") << -2.5 << QStringLiteral("0 ms");
    QTest::newRow("under a millisecond") << 0.0004 << QStringLiteral("< 1 ms");
    QTest::newRow("half a millisecond rounds up") << 0.0005 << QStringLiteral("1 ms");
    QTest::newRow("4 ms") << 0.004 << QStringLiteral("4 ms");
    QTest::newRow("0.5 s") << 0.5 << QStringLiteral("500 ms");
    QTest::newRow("just under a second") << 0.9994 << QStringLiteral("999 ms");
    QTest::newRow("rounds up to a second") << 0.9996 << QStringLiteral("1.0 s");
    QTest::newRow("1 s") << 1.0 << QStringLiteral("1.0 s");
    QTest::newRow("1.25 s") << 1.25 << QStringLiteral("1.3 s");
    QTest::newRow("9.94 s") << 9.94 << QStringLiteral("9.9 s");
    QTest::newRow("9.96 s rounds to ten") << 9.96 << QStringLiteral("10 s");
    QTest::newRow("10 s") << 10.0 << QStringLiteral("10 s");
    QTest::newRow("59.4 s") << 59.4 << QStringLiteral("59 s");
    QTest::newRow("59.6 s rounds to a minute") << 59.6 << QStringLiteral("1 min");
    QTest::newRow("143 s") << 143.0 << QStringLiteral("2 min 23 s");
    QTest::newRow("143.4 s") << 143.4 << QStringLiteral("2 min 23 s");
    QTest::newRow("300 s") << 300.0 << QStringLiteral("5 min");
    QTest::newRow("3599.4 s") << 3599.4 << QStringLiteral("59 min 59 s");
    QTest::newRow("3599.6 s rounds to an hour") << 3599.6 << QStringLiteral("1 h");
    QTest::newRow("3600 s") << 3600.0 << QStringLiteral("1 h");
    QTest::newRow("3661 s") << 3661.0 << QStringLiteral("1 h 1 min");
    QTest::newRow("5399 s rounds the minutes") << 5399.0 << QStringLiteral("1 h 30 min");
    QTest::newRow("a day") << 86400.0 << QStringLiteral("24 h");
    QTest::newRow("not a number") << std::nan("") << QStringLiteral("? s");
    QTest::newRow("infinity") << std::numeric_limits<double>::infinity() << QStringLiteral("? s");
}

void TestFormat::formatSeconds()
{
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(pw::core::formatSeconds(seconds)), text);
}

void TestFormat::formatBytes_data()
{
    QTest::addColumn<qlonglong>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("none") << qlonglong(0) << "0 bytes";
    QTest::newRow("under a KiB") << qlonglong(1023) << "1023 bytes";
    QTest::newRow("one KiB") << qlonglong(1024) << "1.0 KiB";
    QTest::newRow("KiB and a half") << qlonglong(1536) << "1.5 KiB";
    QTest::newRow("the test file cap") << qlonglong(4LL * 1024 * 1024) << "4.0 MiB";
    QTest::newRow("50 MB") << qlonglong(50'000'000) << "47.7 MiB";
    QTest::newRow("GiB") << qlonglong(3LL << 30) << "3.0 GiB";
    QTest::newRow("negative") << qlonglong(-5) << "0 bytes";
}

void TestFormat::formatBytes()
{
    QFETCH(qlonglong, bytes);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(pw::core::formatBytes(bytes)), text);
}

QTEST_GUILESS_MAIN(TestFormat)
#include "tst_format.moc"
