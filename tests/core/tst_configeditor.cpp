// Editing config.toml keeps what a person wrote: comments, key order, unknown keys and
// formatting survive byte for byte; only the values that change are rewritten in place.
#include "ledger/Config.h"
#include "ledger/ConfigEditor.h"
#include "util/Error.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace pw::core;
using Values = std::map<std::string, ConfigValue>;
using Strings = std::vector<std::string>;

Q_DECLARE_METATYPE(std::string)

namespace {

ConfigValue str(const char *s)
{
    return ConfigValue(std::string(s));
}

QByteArray bytes(const std::string &s)
{
    return QByteArray::fromStdString(s);
}

} // namespace

class TstConfigEditor : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void replacesAValueInPlace();
    void keepsCommentsAndUnknownKeysByteForByte();
    void unchangedValuesKeepTheirSpelling();
    void absentKeyGoesAfterTheLastTopLevelValue();
    void absentKeyGoesBeforeTheFirstTableAndItsComment();
    void absentKeyInAnEmptyFile();
    void absentKeyAtTheEndOfAFileWithoutNewline();
    void arrays_data();
    void arrays();
    void multiLineArrayStaysMultiLine();
    void stringsNeedingEscapes_data();
    void stringsNeedingEscapes();
    void keepsCrlfLineEndings();
    void countsColumnsInCodePoints();
    void invalidResultIsRejected_data();
    void invalidResultIsRejected();
    void tableKeyIsRefused();
    void syntaxErrorNamesLineAndColumn();
    void readsValues();
    void saveWritesAtomically();
    void saveRefusesAFileChangedOnDisk();
    void saveKeepsTheFileOnInvalidValues();
};

void TstConfigEditor::replacesAValueInPlace()
{
    const std::string in = "python = \"python3\"\nlatitude_max = 4\n";
    QCOMPARE(bytes(ConfigEditor::setValues(in, {{"latitude_max", 7LL}})),
             QByteArray("python = \"python3\"\nlatitude_max = 7\n"));
    QCOMPARE(bytes(ConfigEditor::setValues(in, {{"python", str("/opt/py/bin/python")}})),
             QByteArray("python = \"/opt/py/bin/python\"\nlatitude_max = 4\n"));
}

void TstConfigEditor::keepsCommentsAndUnknownKeysByteForByte()
{
    const std::string in = "# patchwitness settings for this repository\n"
                           "python = \"python3\"   # the project's venv\n"
                           "future_knob = { a = 1, b = [2, 3] } # unknown to us\n"
                           "\n"
                           "latitude_max=4#tight\n"
                           "seeds = 20\n"
                           "\n"
                           "# Per test and per run, in seconds\n"
                           "[timeouts]\n"
                           "per_test = 60 # one minute\n"
                           "mystery = \"kept\"\n";
    const std::string out = ConfigEditor::setValues(in, {{"latitude_max", 9LL}});
    std::string expected = in;
    expected.replace(expected.find("latitude_max=4"), 14, "latitude_max=9");
    QCOMPARE(bytes(out), bytes(expected));
    QCOMPARE(Config::parse(out, "config.toml").latitudeMax, 9);
}

void TstConfigEditor::unchangedValuesKeepTheirSpelling()
{
    // Same value, other spelling: a literal string and a multi-line array stay as written.
    const std::string in = "python = 'python3'\ntest_globs = [\n  'a/**', # first\n  'b',\n]\n";
    QCOMPARE(bytes(ConfigEditor::setValues(
                 in, {{"python", str("python3")}, {"test_globs", Strings{"a/**", "b"}}})),
             bytes(in));
}

void TstConfigEditor::absentKeyGoesAfterTheLastTopLevelValue()
{
    const std::string in = "# header\npython = \"python3\" # comment\n\n[timeouts]\nper_test = 5\n";
    QCOMPARE(bytes(ConfigEditor::setValues(in, {{"latitude_max", 6LL}})),
             QByteArray("# header\npython = \"python3\" # comment\nlatitude_max = 6\n\n"
                        "[timeouts]\nper_test = 5\n"));
}

void TstConfigEditor::absentKeyGoesBeforeTheFirstTableAndItsComment()
{
    const std::string in = "# settings\n\n# Timeouts in seconds\n[timeouts]\nper_test = 5\n";
    const std::string out = ConfigEditor::setValues(in, {{"latitude_max", 6LL}});
    QCOMPARE(bytes(out), QByteArray("# settings\n\nlatitude_max = 6\n\n# Timeouts in seconds\n"
                                    "[timeouts]\nper_test = 5\n"));
    const Config c = Config::parse(out, "config.toml");
    QCOMPARE(c.latitudeMax, 6);
    QCOMPARE(c.timeoutPerTest, 5.0); // still in its table
}

void TstConfigEditor::absentKeyInAnEmptyFile()
{
    QCOMPARE(bytes(ConfigEditor::setValues(
                 "", {{"python", str("python3.12")}, {"test_globs", Strings{"t/*.py"}}})),
             QByteArray("python = \"python3.12\"\ntest_globs = [\"t/*.py\"]\n"));
    QCOMPARE(bytes(ConfigEditor::setValues("", {})), QByteArray());
}

void TstConfigEditor::absentKeyAtTheEndOfAFileWithoutNewline()
{
    QCOMPARE(bytes(ConfigEditor::setValues("seeds = 3", {{"latitude_max", 2LL}})),
             QByteArray("seeds = 3\nlatitude_max = 2\n"));
    QCOMPARE(bytes(ConfigEditor::setValues("# only a comment", {{"latitude_max", 2LL}})),
             QByteArray("# only a comment\nlatitude_max = 2\n"));
}

void TstConfigEditor::arrays_data()
{
    QTest::addColumn<std::string>("in");
    QTest::addColumn<QStringList>("globs");
    QTest::addColumn<std::string>("expected");
    QTest::newRow("replace") << std::string("test_globs = [\"a\"] # why\n")
                             << QStringList{QStringLiteral("x/**/*.py"), QStringLiteral("y.py")}
                             << std::string("test_globs = [\"x/**/*.py\", \"y.py\"] # why\n");
    QTest::newRow("to empty") << std::string("fixture_globs = [\"a\", \"b\"]\n") << QStringList()
                              << std::string("fixture_globs = []\n");
    QTest::newRow("from empty") << std::string("fixture_globs = []\n")
                                << QStringList{QStringLiteral("data/**")}
                                << std::string("fixture_globs = [\"data/**\"]\n");
    QTest::newRow("scalar to array")
        << std::string("test_globs = \"a\"\n") << QStringList{QStringLiteral("a")}
        << std::string("test_globs = [\"a\"]\n");
}

void TstConfigEditor::arrays()
{
    QFETCH(std::string, in);
    QFETCH(QStringList, globs);
    QFETCH(std::string, expected);
    const std::string key = in.substr(0, in.find(' '));
    Strings items;
    for (const QString &g : globs)
        items.push_back(g.toStdString());
    QCOMPARE(bytes(ConfigEditor::setValues(in, {{key, items}})), bytes(expected));
}

void TstConfigEditor::multiLineArrayStaysMultiLine()
{
    const std::string in = "test_globs = [\n  \"old/*.py\",\n]\nlatitude_max = 4\n";
    QCOMPARE(bytes(ConfigEditor::setValues(in, {{"test_globs", Strings{"a/*.py", "b/*.py"}}})),
             QByteArray("test_globs = [\n  \"a/*.py\",\n  \"b/*.py\",\n]\nlatitude_max = 4\n"));
    // A line that would get too long is wrapped, one glob per line.
    Strings many(8, "tests/integration/**/test_*.py");
    const std::string out = ConfigEditor::setValues("", {{"test_globs", many}});
    QVERIFY(out.find("[\n    \"tests/integration/**/test_*.py\",\n") != std::string::npos);
    QCOMPARE(Config::parse(out, "config.toml").testGlobs, many);
}

void TstConfigEditor::stringsNeedingEscapes_data()
{
    QTest::addColumn<std::string>("value");
    QTest::newRow("quote") << std::string("py\"thon");
    QTest::newRow("backslash") << std::string("C:\\Python\\python.exe");
    QTest::newRow("tab and newline") << std::string("a\tb\nc");
    QTest::newRow("control") << std::string("a\x01z");
    QTest::newRow("unicode") << std::string("/home/ren\xC3\xA9/venv/bin/python");
    QTest::newRow("comment sign") << std::string("py # not a comment");
    QTest::newRow("triple quotes") << std::string("'''\"\"\"");
}

void TstConfigEditor::stringsNeedingEscapes()
{
    QFETCH(std::string, value);
    for (const std::string in : {"python = \"x\" # keep\n", ""}) {
        const std::string out = ConfigEditor::setValues(in, {{"python", value}});
        QCOMPARE(Config::parse(out, "config.toml").python, value);
        QCOMPARE(std::get<std::string>(*ConfigEditor::value(out, "python")), value);
        if (!in.empty())
            QVERIFY(out.find("# keep\n") != std::string::npos);
        // The glob list goes through the same escaping.
        const std::string globs = ConfigEditor::setValues(in, {{"test_globs", Strings{value}}});
        QCOMPARE(Config::parse(globs, "config.toml").testGlobs, Strings{value});
    }
}

void TstConfigEditor::keepsCrlfLineEndings()
{
    const std::string in = "# c\r\npython = \"a\"\r\n[timeouts]\r\nper_test = 1\r\n";
    QCOMPARE(
        bytes(ConfigEditor::setValues(in, {{"python", str("b")}, {"latitude_max", 3LL}})),
        QByteArray("# c\r\npython = \"b\"\r\nlatitude_max = 3\r\n[timeouts]\r\nper_test = 1\r\n"));
}

void TstConfigEditor::countsColumnsInCodePoints()
{
    // toml++ counts columns in code points and does not count a BOM: multi-byte
    // characters before a value on its line must not shift the splice.
    const std::string ok = "\xEF\xBB\xBFpython = \"\xF0\x9F\x90\x8D\" # snake\n"
                           "k = { a = \"\xE2\x82\xAC\xE2\x82\xAC\", b = 4 }\n";
    QCOMPARE(bytes(ConfigEditor::setValues(ok, {{"python", str("py")}})),
             QByteArray("\xEF\xBB\xBFpython = \"py\" # snake\n"
                        "k = { a = \"\xE2\x82\xAC\xE2\x82\xAC\", b = 4 }\n"));
    // A quoted key puts multi-byte characters before the value on its own line.
    const std::string key = "cl\xC3\xA9\xE2\x82\xAC";
    const std::string sameLine = "\"" + key + "\" = 1 # \xE2\x82\xAC\npython = \"\xC3\xA9\"\n";
    QCOMPARE(bytes(ConfigEditor::setValues(sameLine, {{key, 22LL}, {"python", str("y")}})),
             bytes("\"" + key + "\" = 22 # \xE2\x82\xAC\npython = \"y\"\n"));
}

void TstConfigEditor::invalidResultIsRejected_data()
{
    QTest::addColumn<std::string>("key");
    QTest::addColumn<long long>("number");
    QTest::addColumn<QString>("message");
    QTest::newRow("latitude 0") << std::string("latitude_max") << 0LL
                                << QStringLiteral("`latitude_max` must be between 1");
    QTest::newRow("seeds 0") << std::string("seeds") << 0LL
                             << QStringLiteral("`seeds` must be between 1");
}

void TstConfigEditor::invalidResultIsRejected()
{
    QFETCH(std::string, key);
    QFETCH(long long, number);
    QFETCH(QString, message);
    const std::string in = "# keep me\nlatitude_max = 4\n";
    const std::string before = in;
    try {
        ConfigEditor::setValues(in, {{key, number}});
        QFAIL("an invalid value was accepted");
    } catch (const Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        QVERIFY(QString::fromUtf8(e.what()).startsWith(QLatin1String("config.toml:")));
    }
    QCOMPARE(bytes(in), bytes(before));
    // A value of the wrong type is no better.
    QVERIFY_EXCEPTION_THROWN(ConfigEditor::setValues(in, {{"python", Strings{"a"}}}), Error);
    QVERIFY_EXCEPTION_THROWN(ConfigEditor::setValues(in, {{"python", str("")}}), Error);
}

void TstConfigEditor::tableKeyIsRefused()
{
    for (const std::string in : {"[python]\nx = 1\n", "python.x = 1\n", "[[python]]\nx = 1\n"}) {
        try {
            ConfigEditor::setValues(in, {{"python", str("python3")}});
            QFAIL("a table was overwritten");
        } catch (const Error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("is a table here")),
                     e.what());
        }
    }
    // An inline table is a value: it can be replaced like any other.
    QCOMPARE(bytes(ConfigEditor::setValues("python = { x = 1 }\n", {{"python", str("p")}})),
             QByteArray("python = \"p\"\n"));
}

void TstConfigEditor::syntaxErrorNamesLineAndColumn()
{
    try {
        ConfigEditor::setValues("python = \"a\"\nlatitude_max = = 3\n", {{"python", str("b")}},
                                "/r/.patchwitness/config.toml");
        QFAIL("a broken file was edited");
    } catch (const Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(
                     QLatin1String("/r/.patchwitness/config.toml:2:")),
                 e.what());
    }
}

void TstConfigEditor::readsValues()
{
    const std::string text =
        "python = 'py'\nlatitude_max = 3\nsandbox = false\n"
        "test_globs = ['a', 'b']\nmixed = [1, 'x']\n[timeouts]\nper_test = 1\n";
    QCOMPARE(std::get<std::string>(*ConfigEditor::value(text, "python")), std::string("py"));
    QCOMPARE(std::get<long long>(*ConfigEditor::value(text, "latitude_max")), 3LL);
    QCOMPARE(std::get<bool>(*ConfigEditor::value(text, "sandbox")), false);
    QCOMPARE(std::get<Strings>(*ConfigEditor::value(text, "test_globs")), (Strings{"a", "b"}));
    QVERIFY(!ConfigEditor::value(text, "mixed"));
    QVERIFY(!ConfigEditor::value(text, "timeouts"));
    QVERIFY(!ConfigEditor::value(text, "fixture_globs"));
    QVERIFY_EXCEPTION_THROWN(ConfigEditor::value("x = ", "x"), Error);
}

void TstConfigEditor::saveWritesAtomically()
{
    QTemporaryDir dir;
    const std::string path =
        dir.filePath(QStringLiteral(".patchwitness/config.toml")).toStdString();
    // A file that does not exist yet: loaded as empty, created with its directory.
    QVERIFY(ConfigEditor::save(path, "", {{"latitude_max", 5LL}}));
    QFile file(QString::fromStdString(path));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("latitude_max = 5\n"));
    file.close();
    // Nothing to change: nothing written.
    QVERIFY(!ConfigEditor::save(path, "latitude_max = 5\n", {{"latitude_max", 5LL}}));
    QCOMPARE(QDir(dir.filePath(QStringLiteral(".patchwitness"))).entryList(QDir::Files),
             QStringList{QStringLiteral("config.toml")}); // no temporary left behind
}

void TstConfigEditor::saveRefusesAFileChangedOnDisk()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("config.toml"));
    const QByteArray onDisk = "# someone else's edit\nlatitude_max = 8\n";
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(onDisk);
    file.close();
    try {
        ConfigEditor::save(path.toStdString(), "latitude_max = 4\n", {{"latitude_max", 5LL}});
        QFAIL("a file changed on disk was overwritten");
    } catch (const Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("changed on disk")), e.what());
    }
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), onDisk);
}

void TstConfigEditor::saveKeepsTheFileOnInvalidValues()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("config.toml"));
    const QByteArray onDisk = "# mine\nlatitude_max = 4\n";
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(onDisk);
    file.close();
    QVERIFY_EXCEPTION_THROWN(
        ConfigEditor::save(path.toStdString(), onDisk.toStdString(), {{"latitude_max", 0LL}}),
        Error);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), onDisk);
}

QTEST_GUILESS_MAIN(TstConfigEditor)
#include "tst_configeditor.moc"
