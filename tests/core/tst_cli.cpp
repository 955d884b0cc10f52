// patchwitness-cli as CI runs it: exit codes, report formats on stdout,
// progress and errors on stderr, clear messages for every input error.
#include "RepoBuilder.h"
#include "TestSupport.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using pw::test::RepoBuilder;

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

const char *kTests = "import pytest\n\n\ndef test_a():\n    assert f() == 1\n\n\ndef test_b():\n   "
                     " assert g() == 2\n";

} // namespace

class TstCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void exitCodes_data();
    void exitCodes();
    void jsonOnStdoutProgressOnStderr();
    void jsonContractFields();
    void otherFormats_data();
    void otherFormats();
    void outputFileIsWritten();
    void inputErrors_data();
    void inputErrors();
    void demoCommandBuildsAnAuditableRepository();
    void extractorOutOfMemoryIsAHarnessError();
    void aTestFileOverTheCapIsReviewedNotParsed();
    void aRelativeLedgerDirOutsideIsReadFromTheTree();

private:
    Result cli(const QStringList &args);
    QTemporaryDir m_cache;
    std::unique_ptr<RepoBuilder> m_repo;
    std::string m_base, m_pass, m_block, m_review;
};

Result TstCli::cli(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH), args);
    if (!p.waitForFinished(120000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

void TstCli::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_repo->write("tests/test_a.py", kTests);
    m_base = m_repo->commit("base");
    m_repo->write("src/a.py", "x = 1\n");
    m_pass = m_repo->commit("source only");
    m_repo->write("tests/test_a.py", "import pytest\n\n\ndef test_a():\n    assert f() == 1\n");
    m_block = m_repo->commit("drop test_b");
    m_repo->write("tests/test_a.py",
                  std::string(kTests) + "\n\ndef test_c():\n    assert h() == 3\n");
    m_review = m_repo->commit("add test_c");
}

void TstCli::exitCodes_data()
{
    QTest::addColumn<QString>("head");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("PASS -> 0") << "pass" << QStringList() << 0;
    QTest::newRow("BLOCK -> 1") << "block" << QStringList() << 1;
    QTest::newRow("REVIEW -> 2") << "review" << QStringList() << 2;
    QTest::newRow("REVIEW with --review-ok -> 0")
        << "review" << QStringList{QStringLiteral("--review-ok")} << 0;
}

void TstCli::exitCodes()
{
    QFETCH(QString, head);
    QFETCH(QStringList, extra);
    QFETCH(int, exitCode);
    const std::string &base = head == QLatin1String("review") ? m_block : m_base;
    const std::string &rev = head == QLatin1String("pass")    ? m_pass
                             : head == QLatin1String("block") ? m_block
                                                              : m_review;
    const Result r =
        cli(QStringList{QStringLiteral("audit"), QStringLiteral("--repo"),
                        QString::fromStdString(m_repo->root()), QStringLiteral("--base"),
                        QString::fromStdString(base), QStringLiteral("--head"),
                        QString::fromStdString(rev), QStringLiteral("--python"),
                        QString::fromStdString(pw::test::testPython()),
                        QStringLiteral("--cache-dir"), m_cache.path()} +
            extra);
    QVERIFY2(r.exitCode == exitCode, r.err.constData());
}

void TstCli::jsonOnStdoutProgressOnStderr()
{
    const Result r = cli(
        {QStringLiteral("audit"), QStringLiteral("--repo"), QString::fromStdString(m_repo->root()),
         QStringLiteral("--base"), QString::fromStdString(m_base), QStringLiteral("--head"),
         QString::fromStdString(m_block), QStringLiteral("--format"), QStringLiteral("json"),
         QStringLiteral("--python"), QString::fromStdString(pw::test::testPython()),
         QStringLiteral("--cache-dir"), m_cache.path()});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains("audit: "));
    const auto j = nlohmann::json::parse(r.out.toStdString()); // stdout is only the report
    QCOMPARE(j["verdict"].get<std::string>(), std::string("BLOCK"));
    QCOMPARE(j["findings"][0]["code"].get<std::string>(), std::string("T-DEL"));
    QCOMPARE(j["findings"][0]["test"].get<std::string>(), std::string("tests/test_a.py::test_b"));
}

void TstCli::jsonContractFields()
{
    const Result r = cli(
        {QStringLiteral("audit"), QStringLiteral("--repo"), QString::fromStdString(m_repo->root()),
         QStringLiteral("--base"), QString::fromStdString(m_base), QStringLiteral("--head"),
         QString::fromStdString(m_block), QStringLiteral("--format"), QStringLiteral("json"),
         QStringLiteral("--with-manifest"), QStringLiteral("--quiet"), QStringLiteral("--python"),
         QString::fromStdString(pw::test::testPython()), QStringLiteral("--cache-dir"),
         m_cache.path()});
    QVERIFY(r.err.isEmpty());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    // These names are a contract.
    QCOMPARE(j["schema"].get<std::string>(), std::string("patchwitness.report/1"));
    QVERIFY(j["repo"].is_string());
    QCOMPARE(j["base"]["rev"].get<std::string>(), m_base);
    QCOMPARE(j["base"]["commit"].get<std::string>(), m_base);
    QVERIFY(j["head"]["commit"].is_string());
    for (const char *key : {"gate", "code", "severity", "path", "line", "test", "message",
                            "evidence", "satisfied_by"})
        QVERIFY2(j["findings"][0].contains(key), key);
    QVERIFY(j["findings"][0]["satisfied_by"].is_null());
    for (const char *key : {"total", "threshold", "policy", "tests"})
        QVERIFY2(j["latitude"].contains(key), key);
    const auto &manifest = j["manifest"]["tests"]["tests/test_a.py"];
    for (const char *key : {"sha", "defs", "markers", "asserts"})
        QVERIFY2(manifest.contains(key), key);
    QCOMPARE(manifest["defs"].get<std::vector<std::string>>(), std::vector<std::string>{"test_a"});
    QVERIFY(j["manifest"]["fixtures"].is_object());
}

void TstCli::otherFormats_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("needle");
    QTest::newRow("text") << "text"
                          << "patchwitness audit: BLOCK";
    QTest::newRow("md") << "md"
                        << "### patchwitness: **BLOCK**";
    QTest::newRow("junit") << "junit"
                           << "<testsuites";
    QTest::newRow("html") << "html"
                          << "<h2>patchwitness: BLOCK</h2>";
}

void TstCli::otherFormats()
{
    QFETCH(QString, format);
    QFETCH(QString, needle);
    const Result r = cli(
        {QStringLiteral("audit"), QStringLiteral("--repo"), QString::fromStdString(m_repo->root()),
         QStringLiteral("--base"), QString::fromStdString(m_base), QStringLiteral("--head"),
         QString::fromStdString(m_block), QStringLiteral("--format"), format,
         QStringLiteral("--python"), QString::fromStdString(pw::test::testPython()),
         QStringLiteral("--cache-dir"), m_cache.path()});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(needle.toUtf8()), r.out.constData());
    if (format == QLatin1String("junit")) {
        QXmlStreamReader xml(r.out);
        int testcases = 0, failures = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                testcases += xml.name() == QLatin1String("testcase");
                failures += xml.name() == QLatin1String("failure");
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(testcases >= 2); // T-DEL and BLOCKER:deleted at least
        QVERIFY(failures >= 2);
    }
}

void TstCli::outputFileIsWritten()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("report.md"));
    const Result r = cli(
        {QStringLiteral("audit"), QStringLiteral("--repo"), QString::fromStdString(m_repo->root()),
         QStringLiteral("--base"), QString::fromStdString(m_base), QStringLiteral("--head"),
         QString::fromStdString(m_pass), QStringLiteral("--format"), QStringLiteral("md"),
         QStringLiteral("--output"), file, QStringLiteral("--quiet"), QStringLiteral("--python"),
         QString::fromStdString(pw::test::testPython())});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.isEmpty());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("**PASS**"));
}

void TstCli::inputErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList() << 3 << "usage:";
    QTest::newRow("unknown command")
        << QStringList{QStringLiteral("frobnicate")} << 3 << "unknown command 'frobnicate'";
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--bogus")} << 3 << "bogus";
    QTest::newRow("unknown format")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--format"), QStringLiteral("pdf")}
        << 3 << "unknown --format 'pdf'";
    QTest::newRow("unknown revision")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--base"),
                       QStringLiteral("nope-rev")}
        << 3 << "unknown revision 'nope-rev'";
    QTest::newRow("not a repository")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--repo"), QStringLiteral("/proc")}
        << 3 << "not a git repository";
    QTest::newRow("missing path") << QStringList{QStringLiteral("audit"), QStringLiteral("--repo"),
                                                 QStringLiteral("/no/such/dir")}
                                  << 3 << "/no/such/dir";
    QTest::newRow("missing interpreter")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--python"),
                       QStringLiteral("/no/python3")}
        << 3 << "/no/python3";
    // The tree's top as ledger directory: refused, never read as a directory outside the
    // repository (whose config.toml the patch's own checkout could edit).
    QTest::newRow("ledger directory is the tree's top")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--ledger-dir"), QStringLiteral(".")}
        << 3 << "is the repository's top";
    QTest::newRow("ledger directory cleans to the tree's top")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--ledger-dir"),
                       QStringLiteral("tests/..")}
        << 3 << "is the repository's top";
    QTest::newRow("broken interpreter")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--python"),
                       QStringLiteral("/bin/false")}
        << 4 << "/bin/false";
    QTest::newRow("missing config")
        << QStringList{QStringLiteral("audit"), QStringLiteral("--config"),
                       QStringLiteral("/no/config.toml")}
        << 3 << "/no/config.toml";
}

void TstCli::inputErrors()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    // Defaults that make the rest of the command valid; the row's own options come last
    // and win (QCommandLineParser keeps the last value).
    QStringList full = args;
    if (!args.isEmpty() && args.first() == QLatin1String("audit")) {
        full = QStringList{QStringLiteral("audit"),
                           QStringLiteral("--repo"),
                           QString::fromStdString(m_repo->root()),
                           QStringLiteral("--base"),
                           QString::fromStdString(m_base),
                           QStringLiteral("--head"),
                           QString::fromStdString(m_review),
                           QStringLiteral("--no-cache"),
                           QStringLiteral("--python"),
                           QString::fromStdString(pw::test::testPython())} +
               args.mid(1);
    }
    const Result r = cli(full);
    QVERIFY2(r.exitCode == exitCode, r.err.constData());
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(!r.err.contains("patchwitness-cli: internal error:") || exitCode == 4);
}

void TstCli::demoCommandBuildsAnAuditableRepository()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("demo"));
    const Result built = cli({QStringLiteral("demo"), QStringLiteral("--dir"), target});
    QVERIFY2(built.exitCode == 0, built.err.constData());
    QCOMPARE(QString::fromUtf8(built.out.trimmed()), target);
    const Result audit =
        cli({QStringLiteral("audit"), QStringLiteral("--repo"), target, QStringLiteral("--quiet"),
             QStringLiteral("--python"), QString::fromStdString(pw::test::testPython()),
             QStringLiteral("--cache-dir"), m_cache.path()});
    QVERIFY2(audit.exitCode == 1, audit.err.constData()); // the agent's patch blocks
    QVERIFY(audit.out.contains("T-DEL"));
    // a directory that is not a demo is never replaced
    QTemporaryDir foreign;
    QFile keep(foreign.filePath(QStringLiteral("keep.txt")));
    QVERIFY(keep.open(QIODevice::WriteOnly));
    keep.close();
    const Result refused = cli({QStringLiteral("demo"), QStringLiteral("--dir"), foreign.path()});
    QCOMPARE(refused.exitCode, 3);
    QVERIFY(QFile::exists(foreign.filePath(QStringLiteral("keep.txt"))));
}

// The extractor under a memory cap (an interpreter wrapper with `ulimit -v`) on a large
// generated test file: MemoryError is the machine's limit, exit 4 — never the patch's
// PARSE_ERROR (BLOCK, exit 1).
void TstCli::extractorOutOfMemoryIsAHarnessError()
{
    RepoBuilder repo;
    repo.write("tests/test_a.py", kTests);
    const std::string base = repo.commit("base");
    // One test of 60,000 assertions: one top-level statement, so one piece the extractor
    // must hold whole (hundreds of MB of AST), however it splits files.
    std::string big = "def test_big():\n";
    for (int i = 0; i < 60000; ++i)
        big += "    assert f(" + std::to_string(i) + ") == [" + std::to_string(i) +
               ", {'k': " + std::to_string(i) + "}]\n";
    repo.write("tests/test_big.py", big);
    const std::string head = repo.commit("a generated test file");
    QTemporaryDir dir;
    const QString wrapper = dir.filePath(QStringLiteral("python-capped"));
    QFile f(wrapper);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\nulimit -v 160000\nexec " +
            QByteArray::fromStdString(pw::test::testPython()) + " \"$@\"\n");
    f.close();
    QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const Result r =
        cli({QStringLiteral("audit"), QStringLiteral("--repo"), QString::fromStdString(repo.root()),
             QStringLiteral("--base"), QString::fromStdString(base), QStringLiteral("--head"),
             QString::fromStdString(head), QStringLiteral("--python"), wrapper,
             QStringLiteral("--cache-dir"), dir.filePath(QStringLiteral("cache"))});
    QVERIFY2(r.exitCode == 4, QByteArray(r.out + r.err).constData());
    QVERIFY2(r.err.contains("MemoryError"), r.err.constData());
    QVERIFY2(!r.out.contains("PARSE_ERROR"), r.out.constData());
}

// A test file over `test_file_max_bytes` is never handed to the extractor: TOO-LARGE
// (REVIEW, exit 2), not PARSE_ERROR and not a list of lost tests; under the cap, the same
// file is judged as usual.
void TstCli::aTestFileOverTheCapIsReviewedNotParsed()
{
    RepoBuilder repo;
    std::string tests = kTests;
    for (int i = 0; i < 200; ++i)
        tests += "\n\ndef test_" + std::to_string(i) +
                 "():\n    assert f() == " + std::to_string(i) + "\n";
    repo.write("tests/test_a.py", tests);
    const std::string base = repo.commit("base");
    repo.write("src/a.py", "x = 2\n");
    const std::string head = repo.commit("source only");
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("config.toml"));
    QFile f(config);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("test_file_max_bytes = 2048\n");
    f.close();
    auto run = [&](const std::string &from, const std::string &to, bool capped) {
        QStringList args = {QStringLiteral("audit"),
                            QStringLiteral("--repo"),
                            QString::fromStdString(repo.root()),
                            QStringLiteral("--base"),
                            QString::fromStdString(from),
                            QStringLiteral("--head"),
                            QString::fromStdString(to),
                            QStringLiteral("--format"),
                            QStringLiteral("json"),
                            QStringLiteral("--python"),
                            QString::fromStdString(pw::test::testPython()),
                            QStringLiteral("--cache-dir"),
                            dir.filePath(QStringLiteral("cache"))};
        if (capped)
            args << QStringLiteral("--config") << config;
        return cli(args);
    };
    // The patch touches only source: the large test file is not in the diff.
    Result r = run(base, head, true);
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    // A patch that edits the large test file.
    repo.write("tests/test_a.py", tests + "\n\ndef test_new():\n    assert f() == -1\n");
    const std::string edited = repo.commit("a new test in the large file");
    r = run(head, edited, true);
    QVERIFY2(r.exitCode == 2, QByteArray(r.out + r.err).constData());
    const nlohmann::json doc = nlohmann::json::parse(r.out.toStdString());
    int tooLarge = 0;
    for (const nlohmann::json &finding : doc["findings"]) {
        const std::string code = finding["code"].get<std::string>();
        QVERIFY2(code != "PARSE_ERROR" && code != "T-DEL", code.c_str());
        if (code == "TOO-LARGE") {
            ++tooLarge;
            QCOMPARE(finding["severity"].get<std::string>(), std::string("review"));
            QVERIFY2(finding["message"].get<std::string>().find(
                         "over `test_file_max_bytes` (2.0 KiB): too large to judge") !=
                         std::string::npos,
                     finding["message"].get<std::string>().c_str());
        }
    }
    QCOMPARE(tooLarge, 2); // base and head
    // The default cap: judged, the new test found by name.
    r = run(head, edited, false);
    QVERIFY2(!r.out.contains("TOO-LARGE"), r.out.constData());
    QVERIFY2(r.out.contains("\"code\": \"NEW:test\"") &&
                 r.out.contains("tests/test_a.py::test_new"),
             r.out.constData());
}

// `--ledger-dir ../x` names a directory beside the work tree whatever the current
// directory is, as the ledger commands and the workbench read it: its config.toml (broken
// here) is the one the audit reads, not a ../x of the directory the CLI was started in.
void TstCli::aRelativeLedgerDirOutsideIsReadFromTheTree()
{
    const QString root = QString::fromStdString(m_repo->root());
    const QString outside = QFileInfo(root).absolutePath() + QStringLiteral("/") +
                            QFileInfo(root).fileName() + QStringLiteral("-ledgers");
    QVERIFY(QDir().mkpath(outside));
    auto cleanup = qScopeGuard([&] { QDir(outside).removeRecursively(); });
    QFile config(outside + QStringLiteral("/config.toml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("latitude_max = \n");
    config.close();
    QProcess p;
    p.setWorkingDirectory(QStringLiteral("/"));
    p.start(QStringLiteral(PW_CLI_PATH),
            {QStringLiteral("audit"), QStringLiteral("--repo"), root, QStringLiteral("--base"),
             QString::fromStdString(m_base), QStringLiteral("--head"),
             QString::fromStdString(m_pass), QStringLiteral("--ledger-dir"),
             QStringLiteral("../") + QFileInfo(outside).fileName(), QStringLiteral("--python"),
             QString::fromStdString(pw::test::testPython()), QStringLiteral("--cache-dir"),
             m_cache.path()});
    QVERIFY(p.waitForFinished(120000));
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(p.exitCode() == 3, err.constData());
    QVERIFY2(err.contains(QByteArray(QFileInfo(outside).fileName().toUtf8() + "/config.toml:1")),
             err.constData());
}

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
