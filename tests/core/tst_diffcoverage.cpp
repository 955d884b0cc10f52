// Diff-coverage attribution (core/dynamic/DiffCoverage): the patch's changed head lines
// read from real git diffs; the pure judgement of a coverage report against them; the
// evidence record's diff_coverage fields; and end to end with real pytest and coverage.py —
// a test the patch breaks touches the change, a seed-flaky test in a module that imports
// the changed module does not, a coverage.py that cannot be imported gives `unknown` and
// leaves the verdict alone, and `patchwitness-cli attribute` shows it in text and JSON.

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/Attribution.h"
#include "dynamic/DiffCoverage.h"
#include "execution/PytestRun.h"
#include "ledger/RunEvidence.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using pw::core::Arm;
using pw::core::Attribution;
using pw::core::AttributionRecord;
using pw::core::AttributionRequest;
using pw::core::AttributionResult;
using pw::core::AttributionVerdict;
using pw::core::ChangedLines;
using pw::core::CoverageReport;
using pw::core::CoverageVerdict;
using pw::core::DiffCoverage;
using pw::core::DiffCoverageResult;
using pw::core::RunContext;
using pw::core::RunPool;
using pw::core::RunRequest;
using pw::test::RepoBuilder;

namespace {

using Files = QList<QPair<QString, QString>>; // path, content ("" content: remove)

// "m.py:2,3 | whole r.py | unmeasured d.txt (not Python)"
QString describe(const ChangedLines &c)
{
    QStringList parts;
    for (const auto &[path, lines] : c.python) {
        QStringList numbers;
        for (const int n : lines)
            numbers << QString::number(n);
        parts << QString::fromStdString(path) + QLatin1Char(':') + numbers.join(QLatin1Char(','));
    }
    for (const std::string &path : c.wholeFiles)
        parts << QStringLiteral("whole ") + QString::fromStdString(path);
    for (const std::string &file : c.unmeasured)
        parts << QStringLiteral("unmeasured ") + QString::fromStdString(file);
    for (const std::string &file : c.documentation)
        parts << QStringLiteral("doc ") + QString::fromStdString(file);
    for (const std::string &file : c.neverExecuted)
        parts << QStringLiteral("never ") + QString::fromStdString(file);
    return parts.join(QStringLiteral(" | "));
}

// The new end-to-end checks need coverage.py; the older ones predate this guard.
bool coverageImportable()
{
    return pw::test::testPythonImports("coverage");
}

// The statements fixture (base). test_total runs total(); test_broken only imports the
// module and fails on both trees.
const char *const kCalc = "def total():\n"               // 1
                          "    # the sum of the parts\n" // 2
                          "    parts = sum([\n"          // 3
                          "        1,\n"                 // 4
                          "        2,\n"                 // 5
                          "    ])\n"                     // 6
                          "    return parts\n"           // 7
                          "\n"                           // 8
                          "\n"                           // 9
                          "def unused():\n"              // 10
                          "    return 0\n";              // 11

const char *const kModule = "def value():\n"      // 1
                            "    x = 1\n"         // 2
                            "    return x\n"      // 3
                            "\n"                  // 4
                            "\n"                  // 5
                            "def other():\n"      // 6
                            "    return 5\n"      // 7
                            "\n"                  // 8
                            "\n"                  // 9
                            "def third():\n"      // 10
                            "    y = 2\n"         // 11
                            "    return y * 2\n"; // 12

const std::string kToday = "2024-05-10";

// The end-to-end fixture. Base: value() returns 1; the patch makes it 2. test_value calls
// value() (PATCH_INDUCED); test_flaky imports pkg.mod but only rolls the seeded die, which
// fails on both trees at seed 0 (PRE_EXISTING).
const char *const kModBase = "LIMIT = 3\n\n\ndef value():\n    x = 1\n    return x\n";
const char *const kModHead = "LIMIT = 3\n\n\ndef value():\n    x = 2\n    return x\n";
const char *const kTestValue =
    "from pkg.mod import value\n\n\ndef test_value():\n    assert value() == 1\n";
// Fails unless FLAKE_OFF=1: the tests set it for the coverage rerun only.
const char *const kTestEnv =
    "import os\n\n\ndef test_env_flake():\n    assert os.environ.get('FLAKE_OFF') == '1'\n";
const char *const kTestFlaky = "import random\n\nfrom pkg import mod\n\n\n"
                               "def test_flaky():\n    assert random.random() > 0.9\n";

} // namespace

class TestDiffCoverage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void changedLinesFromGit_data();
    void changedLinesFromGit();
    void judge_data();
    void judge();
    void leftOutSaysWhy();
    void badReportsAreRefused_data();
    void badReportsAreRefused();
    void reportWithoutStatementsParses();
    void summaries();
    void recordRoundTrip();
    void pluginSeparatesImportFromTestPhases();
    void pluginReportsStatementsOfChangedFiles();
    void patchesJudgedByStatements_data();
    void patchesJudgedByStatements();

    void patchInducedTestTouchesTheChange();
    void flakyTestDidNotTouchTheChange();
    void iniFileBelowTheTreeStillTouchesTheChange();
    void coverageNotImportableIsUnknownAndVerdictStands();
    void noCoverageSkipsTheRerun();
    void coverageRunThatIsNoFailureIsUnknown_data();
    void coverageRunThatIsNoFailureIsUnknown();
    void cliShowsCoverageInTextAndJson();
    void cliNamesWhatItLeftOut();

private:
    AttributionResult attribute(const std::string &test, bool coverage = true,
                                const std::function<void(Arm, pw::core::RunSpec &)> &adjust = {});

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::string m_base, m_head;
    std::unique_ptr<RunContext> m_ctx;
};

void TestDiffCoverage::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_cache = std::make_unique<QTemporaryDir>();
    m_repo->write("pkg/__init__.py", "");
    m_repo->write("pkg/mod.py", kModBase);
    m_repo->write("tests/test_value.py", kTestValue);
    m_repo->write("tests/test_flaky.py", kTestFlaky);
    m_repo->write("tests/test_env.py", kTestEnv);
    m_base = m_repo->commit("base");
    m_repo->write("pkg/mod.py", kModHead);
    m_head = m_repo->commit("the patch");

    const RunRequest r =
        pw::test::runRequest(m_repo->root(), m_cache->path().toStdString(), m_base, m_head, kToday);
    m_ctx = std::make_unique<RunContext>(RunContext::open(r));
}

AttributionResult
TestDiffCoverage::attribute(const std::string &test, bool coverage,
                            const std::function<void(Arm, pw::core::RunSpec &)> &adjust)
{
    AttributionRequest req;
    req.test = test;
    req.runs = 1;
    req.record = false;
    req.coverage = coverage;
    req.adjust = adjust;
    RunPool pool(m_ctx->workers());
    return Attribution::run(*m_ctx, req, pool);
}

void TestDiffCoverage::changedLinesFromGit_data()
{
    QTest::addColumn<Files>("base");
    QTest::addColumn<Files>("head");
    QTest::addColumn<QString>("expected");

    const QString mod = QStringLiteral("m.py");
    const QString text = QString::fromLatin1(kModule);
    auto with = [&](const QString &from, const QString &to) {
        QString t = text;
        return t.replace(from, to);
    };
    QTest::newRow("modified line")
        << Files{{mod, text}}
        << Files{{mod, with(QStringLiteral("x = 1"), QStringLiteral("x = 2"))}}
        << QStringLiteral("m.py:2");
    QTest::newRow("added lines") << Files{{mod, text}}
                                 << Files{{mod, with(QStringLiteral("    return 5\n"),
                                                     QStringLiteral("    a = 1\n    b = 2\n"
                                                                    "    return 5\n"))}}
                                 << QStringLiteral("m.py:7,8");
    // The deleted line sat between head lines 10 and 11.
    QTest::newRow("delete-only hunk")
        << Files{{mod, text}} << Files{{mod, with(QStringLiteral("    y = 2\n"), QString())}}
        << QStringLiteral("m.py:10,11");
    QTest::newRow("delete at the top")
        << Files{{mod, text}} << Files{{mod, with(QStringLiteral("def value():\n"), QString())}}
        << QStringLiteral("m.py:1");
    QTest::newRow("new file") << Files{{mod, text}}
                              << Files{{mod, text},
                                       {QStringLiteral("n.py"), QStringLiteral("A = 1\nB = 2\n")}}
                              << QStringLiteral("n.py:1,2");
    QTest::newRow("renamed, unchanged")
        << Files{{mod, text}} << Files{{mod, QString()}, {QStringLiteral("r.py"), text}}
        << QStringLiteral("whole r.py");
    QTest::newRow("renamed and modified")
        << Files{{mod, text}}
        << Files{{mod, QString()},
                 {QStringLiteral("r.py"),
                  with(QStringLiteral("return 5"), QStringLiteral("return 6"))}}
        << QStringLiteral("r.py:7");
    QTest::newRow("non-Python and deleted files")
        << Files{{mod, text}, {QStringLiteral("data/c.json"), QStringLiteral("{}\n")}}
        << Files{{mod, QString()}, {QStringLiteral("data/c.json"), QStringLiteral("[]\n")}}
        << QStringLiteral("unmeasured data/c.json (not Python) | unmeasured m.py (deleted)");
    // Documentation is exempt (Shadow's rule); a data file next to it is not, nor is
    // Python below docs/.
    QTest::newRow("documentation")
        << Files{{mod, text},
                 {QStringLiteral("README.md"), QStringLiteral("# a\n")},
                 {QStringLiteral("docs/guide.txt"), QStringLiteral("a\n")}}
        << Files{{mod, text},
                 {QStringLiteral("README.md"), QStringLiteral("# b\n")},
                 {QStringLiteral("docs/guide.txt"), QStringLiteral("b\n")},
                 {QStringLiteral("docs/conf.py"), QStringLiteral("A = 1\n")},
                 {QStringLiteral("notes.rst"), QStringLiteral("b\n")},
                 {QStringLiteral("data/expected.json"), QStringLiteral("{}\n")}}
        << QStringLiteral("docs/conf.py:1 | unmeasured data/expected.json (not Python) | doc "
                          "README.md | doc docs/guide.txt | doc notes.rst");
    // Issue 17: type stubs and the PEP 561 marker are never executed — left out, like
    // documentation, and not "not Python" (which made every such patch `unknown`). A data
    // file beside them still counts.
    QTest::newRow("type stubs and py.typed")
        << Files{{mod, text},
                 {QStringLiteral("m.pyi"), QStringLiteral("def value() -> int: ...\n")}}
        << Files{{mod, with(QStringLiteral("x = 1"), QStringLiteral("x = 2"))},
                 {QStringLiteral("m.pyi"), QStringLiteral("def value() -> float: ...\n")},
                 {QStringLiteral("pkg/__init__.pyi"), QStringLiteral("VERSION: str\n")},
                 {QStringLiteral("pkg/py.typed"), QStringLiteral("partial\n")},
                 {QStringLiteral("pkg/data.typed.json"), QStringLiteral("{}\n")}}
        << QStringLiteral("m.py:2 | unmeasured pkg/data.typed.json (not Python) | never m.pyi "
                          "(type stub, never executed) | never pkg/__init__.pyi (type stub, never "
                          "executed) | never pkg/py.typed (typing marker (PEP 561), never "
                          "executed)");
}

void TestDiffCoverage::changedLinesFromGit()
{
    QFETCH(Files, base);
    QFETCH(Files, head);
    QFETCH(QString, expected);
    RepoBuilder repo;
    for (const auto &[path, content] : base)
        repo.write(path.toStdString(), content.toStdString());
    const std::string b = repo.commit("base");
    for (const auto &[path, content] : head) {
        if (content.isEmpty())
            repo.remove(path.toStdString());
        else
            repo.write(path.toStdString(), content.toStdString());
    }
    const std::string h = repo.commit("head");
    const pw::core::Repository git = pw::core::Repository::open(repo.root());
    // The same lines whatever the context size the diff was made with.
    for (const int context : {0, 3}) {
        pw::core::DiffOptions options;
        options.contextLines = context;
        const ChangedLines changed =
            ChangedLines::fromDiff(git.diff(git.resolve(b), git.resolve(h), options));
        QCOMPARE(describe(changed), expected);
    }
}

void TestDiffCoverage::judge_data()
{
    // "file:1,2;file2:3" ; "whole:f" ; "other:f" ; "doc:f"
    QTest::addColumn<QString>("changed");
    QTest::addColumn<QString>("report");
    QTest::addColumn<QString>("verdict");
    QTest::addColumn<QString>("summary");

    const QString untouchedReport = QStringLiteral(
        R"({"files": {"tests/test_flaky.py": [7]}, "imported": {"pkg/mod.py": [1, 4]}})");
    QTest::newRow("touched") << QStringLiteral("pkg/mod.py:5,6;tests/t.py:9")
                             << QStringLiteral(R"({"files": {"pkg/mod.py": [5, 6]}})")
                             << QStringLiteral("touched")
                             << QStringLiteral("touched 2 changed lines in pkg/mod.py");
    QTest::newRow("untouched, module imported")
        << QStringLiteral("pkg/mod.py:5") << untouchedReport << QStringLiteral("untouched")
        << QStringLiteral("did not touch the change (executed none of its 1 changed line)");
    QTest::newRow("changed def header ran only at import")
        << QStringLiteral("pkg/mod.py:4") << untouchedReport << QStringLiteral("unknown")
        << QStringLiteral("unknown: changed lines ran only at import (module-level code such as "
                          "a def header or a constant), which does not show whether the test "
                          "used them: pkg/mod.py:4");
    QTest::newRow("non-Python file changed")
        << QStringLiteral("pkg/mod.py:5;other:data/c.json (not Python)") << untouchedReport
        << QStringLiteral("unknown")
        << QStringLiteral("unknown: the patch changes files coverage cannot measure but a test "
                          "could read: data/c.json (not Python)");
    QTest::newRow("touched wins over non-Python files")
        << QStringLiteral("pkg/mod.py:1;other:data/c.json (not Python)")
        << QStringLiteral(R"({"files": {"pkg/mod.py": [1]}})") << QStringLiteral("touched")
        << QStringLiteral("touched 1 changed line in pkg/mod.py");
    QTest::newRow("moved module executed")
        << QStringLiteral("whole:pkg/new.py")
        << QStringLiteral(R"({"files": {"pkg/new.py": [2, 3]}})") << QStringLiteral("touched")
        << QStringLiteral("touched 2 changed lines in pkg/new.py (moved)");
    QTest::newRow("coverage unavailable")
        << QStringLiteral("pkg/mod.py:5")
        << QStringLiteral(R"({"unavailable": "coverage: ImportError: nope"})")
        << QStringLiteral("unknown")
        << QStringLiteral("unknown: coverage is not importable by the project's interpreter "
                          "(coverage: ImportError: nope)");
    QTest::newRow("nothing changed") << QString() << untouchedReport << QStringLiteral("unknown")
                                     << QStringLiteral("unknown: the patch changes no file");

    // With statements: pkg/mod.py line 5 is a call over lines 5-7 (coverage reports it by
    // 5), line 8 a comment, 9 blank; line 4 a def header run at import.
    const QString statements =
        QStringLiteral(R"("statements": {"pkg/mod.py": [[4], [5, 6, 7], [10]]})");
    const QString ran =
        QStringLiteral(R"({"files": {"pkg/mod.py": [5]}, )") + statements + QLatin1Char('}');
    const QString notRun = QStringLiteral(R"({"files": {}, "imported": {"pkg/mod.py": [4]}, )") +
                           statements + QLatin1Char('}');
    QTest::newRow("continuation line of an executed statement")
        << QStringLiteral("pkg/mod.py:6") << ran << QStringLiteral("touched")
        << QStringLiteral("touched 1 changed line in pkg/mod.py");
    QTest::newRow("the tracer reported a continuation line")
        << QStringLiteral("pkg/mod.py:5")
        << QStringLiteral(R"({"files": {"pkg/mod.py": [7]}, )") + statements + QLatin1Char('}')
        << QStringLiteral("touched") << QStringLiteral("touched 1 changed line in pkg/mod.py");
    QTest::newRow("blank and comment lines next to it do not count")
        << QStringLiteral("pkg/mod.py:6,8,9") << ran << QStringLiteral("touched")
        << QStringLiteral("touched 1 changed line in pkg/mod.py");
    QTest::newRow("comment only")
        << QStringLiteral("pkg/mod.py:8,9") << ran << QStringLiteral("unknown")
        << QStringLiteral("unknown: the patch changes no executable Python line (only blank "
                          "lines, comments or docstrings: pkg/mod.py)");
    QTest::newRow("comment-only file next to a changed statement")
        << QStringLiteral("pkg/mod.py:10;pkg/other.py:1")
        << QStringLiteral(R"({"files": {}, "statements": {"pkg/mod.py": [[10]], )"
                          R"("pkg/other.py": []}})")
        << QStringLiteral("untouched")
        << QStringLiteral("did not touch the change (executed none of its 1 changed line)");
    QTest::newRow("def header continuation ran only at import")
        << QStringLiteral("pkg/mod.py:4") << notRun << QStringLiteral("unknown")
        << QStringLiteral("unknown: changed lines ran only at import (module-level code such as "
                          "a def header or a constant), which does not show whether the test "
                          "used them: pkg/mod.py:4");
    QTest::newRow("a file without statements counts its lines as they are")
        << QStringLiteral("pkg/mod.py:8;pkg/new.py:3") << ran << QStringLiteral("untouched")
        << QStringLiteral("did not touch the change (executed none of its 1 changed line)");
    QTest::newRow("documentation is exempt")
        << QStringLiteral("pkg/mod.py:5;doc:README.md") << untouchedReport
        << QStringLiteral("untouched")
        << QStringLiteral("did not touch the change (executed none of its 1 changed line)");
    QTest::newRow("documentation only")
        << QStringLiteral("doc:README.md;doc:docs/guide.txt") << untouchedReport
        << QStringLiteral("unknown")
        << QStringLiteral("unknown: the patch changes only documentation, which no test reads: "
                          "README.md, docs/guide.txt");
    QTest::newRow("documentation and a comment")
        << QStringLiteral("pkg/mod.py:8;doc:README.md") << ran << QStringLiteral("unknown")
        << QStringLiteral("unknown: the patch changes no executable Python line (only blank "
                          "lines, comments or docstrings: pkg/mod.py)");
    QTest::newRow("a type stub beside the change is left out")
        << QStringLiteral("pkg/mod.py:5;never:pkg/mod.pyi (type stub, never executed)")
        << untouchedReport << QStringLiteral("untouched")
        << QStringLiteral("did not touch the change (executed none of its 1 changed line)");
    QTest::newRow("type stubs only")
        << QStringLiteral("never:pkg/mod.pyi (type stub, never executed);never:pkg/py.typed "
                          "(typing marker (PEP 561), never executed)")
        << untouchedReport << QStringLiteral("unknown")
        << QStringLiteral("unknown: the patch changes only files no test executes: pkg/mod.pyi "
                          "(type stub, never executed), pkg/py.typed (typing marker (PEP 561), "
                          "never executed)");
    QTest::newRow("a stub and documentation")
        << QStringLiteral("never:pkg/mod.pyi (type stub, never executed);doc:README.md")
        << untouchedReport << QStringLiteral("unknown")
        << QStringLiteral("unknown: the patch changes only files no test executes: pkg/mod.pyi "
                          "(type stub, never executed), README.md (documentation)");
}

void TestDiffCoverage::judge()
{
    QFETCH(QString, changed);
    QFETCH(QString, report);
    QFETCH(QString, verdict);
    QFETCH(QString, summary);
    ChangedLines lines;
    for (const QString &part : changed.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const int colon = part.indexOf(QLatin1Char(':'));
        const QString key = part.left(colon);
        const std::string rest = part.mid(colon + 1).toStdString();
        if (key == QLatin1String("whole"))
            lines.wholeFiles.insert(rest);
        else if (key == QLatin1String("other"))
            lines.unmeasured.push_back(rest);
        else if (key == QLatin1String("doc"))
            lines.documentation.push_back(rest);
        else if (key == QLatin1String("never"))
            lines.neverExecuted.push_back(rest);
        else
            for (const QString &n : part.mid(colon + 1).split(QLatin1Char(',')))
                lines.python[key.toStdString()].insert(n.toInt());
    }
    const DiffCoverageResult r =
        DiffCoverage::judge(lines, CoverageReport::parse(report.toStdString(), "cov.json"));
    QCOMPARE(QString::fromLatin1(pw::core::coverageVerdictName(r.verdict)), verdict);
    QCOMPARE(QString::fromStdString(r.summary()), summary);
    // Whatever the verdict, what was left out is named with why.
    QCOMPARE(r.leftOut, lines.leftOut());
}

void TestDiffCoverage::leftOutSaysWhy()
{
    ChangedLines lines;
    lines.python["pkg/mod.py"] = {5};
    lines.documentation.push_back("README.md");
    lines.neverExecuted.push_back("pkg/mod.pyi (type stub, never executed)");
    const DiffCoverageResult r = DiffCoverage::judge(
        lines, CoverageReport::parse(R"({"files": {"pkg/mod.py": [5]}})", "cov.json"));
    QCOMPARE(r.verdict, CoverageVerdict::Touched);
    QCOMPARE(r.leftOutText(), std::string("left out: pkg/mod.pyi (type stub, never executed), "
                                          "README.md (documentation)"));
    QCOMPARE(DiffCoverageResult().leftOutText(), std::string());
    QCOMPARE(ChangedLines::neverExecutedWhy("stubs/a/b.pyi"),
             std::string("type stub, never executed"));
    QCOMPARE(ChangedLines::neverExecutedWhy("py.typed"),
             std::string("typing marker (PEP 561), never executed"));
    QCOMPARE(ChangedLines::neverExecutedWhy("pkg/mod.py"), std::string());
    QCOMPARE(ChangedLines::neverExecutedWhy("pkg/not_py.typed"), std::string());
    QCOMPARE(ChangedLines::neverExecutedWhy(".pyi"), std::string());
}

void TestDiffCoverage::badReportsAreRefused_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not JSON") << QStringLiteral("{\"files\": [") << QStringLiteral("cov.json:1:");
    QTest::newRow("not an object")
        << QStringLiteral("[]") << QStringLiteral("cov.json:1:1: a coverage report must be");
    QTest::newRow("no files") << QStringLiteral("{}") << QStringLiteral("cov.json: files: missing");
    QTest::newRow("files not an object") << QStringLiteral(R"({"files": []})")
                                         << QStringLiteral("cov.json: files: must be an object");
    QTest::newRow("lines not an array") << QStringLiteral(R"({"files": {"a.py": 3}})")
                                        << QStringLiteral("cov.json: files.a.py: must be an array");
    QTest::newRow("line not a positive integer")
        << QStringLiteral(R"({"files": {}, "imported": {"a.py": [0]}})")
        << QStringLiteral("cov.json: imported.a.py: line numbers must be positive integers");
    QTest::newRow("unavailable not a string")
        << QStringLiteral(R"({"unavailable": 1})")
        << QStringLiteral("cov.json: unavailable: must be a string");
    QTest::newRow("statements not an object")
        << QStringLiteral(R"({"files": {}, "statements": [1]})")
        << QStringLiteral("cov.json: statements: must be an object");
    QTest::newRow("statements of a file not an array")
        << QStringLiteral(R"({"files": {}, "statements": {"a.py": {"1": 1}}})")
        << QStringLiteral("cov.json: statements.a.py: must be an array of statements");
    QTest::newRow("empty statement")
        << QStringLiteral(R"({"files": {}, "statements": {"a.py": [[1], []]}})")
        << QStringLiteral("cov.json: statements.a.py[1]: a statement must be a non-empty array");
    QTest::newRow("statement line not a positive integer")
        << QStringLiteral(R"({"files": {}, "statements": {"a.py": [[2, -3]]}})")
        << QStringLiteral("cov.json: statements.a.py[0]: line numbers must be positive "
                          "integers, has -3");
}

void TestDiffCoverage::badReportsAreRefused()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        CoverageReport::parse(text.toStdString(), "cov.json");
        QFAIL("no error");
    } catch (const pw::core::Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(message), e.what());
    }
}

// Reports written before "statements" existed read as they did: no statements, so every
// changed line counts (a comment line too).
void TestDiffCoverage::reportWithoutStatementsParses()
{
    const CoverageReport r = CoverageReport::parse(
        R"({"files": {"pkg/mod.py": [5]}, "imported": {"pkg/mod.py": [1]}})", "old.json");
    QVERIFY(r.statements.empty());
    QCOMPARE(r.inTests.at("pkg/mod.py"), (std::set<int>{5}));
    ChangedLines changed;
    changed.python["pkg/mod.py"] = {5, 8};
    const DiffCoverageResult d = DiffCoverage::judge(changed, r);
    QCOMPARE(d.verdict, CoverageVerdict::Touched);
    QCOMPARE(d.changedLines, 2);
    QCOMPARE(d.touchedLines, 1);
}

void TestDiffCoverage::summaries()
{
    DiffCoverageResult r;
    r.verdict = CoverageVerdict::Touched;
    r.touchedLines = 3;
    r.touchedFiles = {"src/pkg/mod.py"};
    QCOMPARE(r.summary(), std::string("touched 3 changed lines in src/pkg/mod.py"));
    r.verdict = CoverageVerdict::Untouched;
    r.changedLines = 4;
    QCOMPARE(r.summary(),
             std::string("did not touch the change (executed none of its 4 changed lines)"));
    QCOMPARE(DiffCoverageResult::unknown("why").summary(), std::string("unknown: why"));
}

void TestDiffCoverage::recordRoundTrip()
{
    AttributionRecord rec;
    rec.test = "tests/t.py::test_a";
    rec.verdict = "PRE_EXISTING";
    rec.diffCoverage = "untouched";
    rec.diffCoverageDetail = "did not touch the change (executed none of its 1 changed line)";
    const std::string text = rec.format();
    QVERIFY2(text.find("\"diff_coverage\": \"untouched\"") != std::string::npos, text.c_str());
    const AttributionRecord back = AttributionRecord::parse(text, "runs/a.json");
    QCOMPARE(back.diffCoverage, rec.diffCoverage);
    QCOMPARE(back.diffCoverageDetail, rec.diffCoverageDetail);
    QVERIFY(back.unknownFields.empty());
    QCOMPARE(back.format(), text);

    // A record written before diff coverage existed reads as it did.
    const AttributionRecord old = AttributionRecord::parse(
        R"({"schema": "patchwitness.attribution/1", "test": "t.py::a", "verdict": "NO_REPRO"})",
        "runs/old.json");
    QVERIFY(!old.diffCoverage);
    QVERIFY(!old.diffCoverageDetail);

    try {
        AttributionRecord::parse(R"({"schema": "patchwitness.attribution/1", "test": "t.py::a",)"
                                 R"( "diff_coverage": "maybe"})",
                                 "runs/bad.json");
        QFAIL("no error");
    } catch (const pw::core::Error &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("runs/bad.json: diff_coverage: \"maybe\" is not touched, untouched "
                             "or unknown"));
    }
}

// The plugin on its own: coverage starts before the initial conftest imports the project,
// so module-level lines land in "imported" (def headers, a constant, conftest itself), and
// only what a test's phases ran (a fixture body, the function the test calls) in "files".
void TestDiffCoverage::pluginSeparatesImportFromTestPhases()
{
    QTemporaryDir dir;
    const std::string tree = dir.filePath(QStringLiteral("tree")).toStdString();
    pw::test::writeText(tree, "lib/__init__.py", "");
    pw::test::writeText(tree, "lib/calc.py",
                        "RATE = 3\n\n\ndef used():\n    return RATE\n\n\n"
                        "def unused():\n    return 0\n");
    pw::test::writeText(tree, "conftest.py",
                        "import pytest\n\nimport lib.calc\n\n\n@pytest.fixture\n"
                        "def rate():\n    return lib.calc.used()\n");
    pw::test::writeText(tree, "test_c.py", "def test_rate(rate):\n    assert rate == 3\n");
    pw::core::RunSpec spec =
        pw::test::runSpec(tree, dir.filePath(QStringLiteral("run")).toStdString());
    spec.env.witness.enabled = true;
    const std::string report = dir.filePath(QStringLiteral("cov.json")).toStdString();
    spec.extraArgs << QStringLiteral("--pw-cover=") + QString::fromStdString(report);
    const pw::core::RunResult run = pw::core::PytestRun(spec).run();
    QCOMPARE(run.exitCode, 0);
    const std::optional<std::string> text = pw::core::readWholeFile(report);
    QVERIFY(text);
    const CoverageReport r = CoverageReport::parse(*text, report);
    QVERIFY(!r.unavailable);
    QCOMPARE(r.inTests.at("lib/calc.py"), (std::set<int>{5}));
    QCOMPARE(r.atImport.at("lib/calc.py"), (std::set<int>{1, 4, 8}));
    QCOMPARE(r.inTests.at("conftest.py"), (std::set<int>{8}));
    QCOMPARE(r.atImport.at("conftest.py"), (std::set<int>{1, 3, 6, 7}));
    QCOMPARE(r.inTests.at("test_c.py"), (std::set<int>{2}));
    QVERIFY(!r.inTests.count("lib/__init__.py")); // no statements: no line 0 either
}

// With PATH.changed.json the plugin reports the statements of the files it lists, run or
// not: a multi-line call is one statement reported (and executed) by its first line, and
// comment and blank lines belong to none; a missing or unparsable file has no entry.
void TestDiffCoverage::pluginReportsStatementsOfChangedFiles()
{
    if (!coverageImportable())
        QSKIP("coverage is not importable by /usr/bin/python3");
    QTemporaryDir dir;
    const std::string tree = dir.filePath(QStringLiteral("tree")).toStdString();
    pw::test::writeText(tree, "lib/__init__.py", "");
    pw::test::writeText(tree, "lib/calc.py",
                        "RATE = 3\n\n\ndef used():\n    # why\n    value = max(\n        RATE,\n"
                        "        0,\n    )\n    return value\n");
    pw::test::writeText(tree, "lib/idle.py", "# idle\nLIMIT = (\n    1\n)\n");
    pw::test::writeText(tree, "lib/broken.py", "def (:\n");
    pw::test::writeText(tree, "test_c.py",
                        "from lib.calc import used\n\n\ndef test_used():\n"
                        "    assert used() == 3\n");
    const std::string report = dir.filePath(QStringLiteral("cov.json")).toStdString();
    QVERIFY(pw::core::writeFileAtomically(
        report + ".changed.json",
        R"(["lib/calc.py", "lib/idle.py", "lib/broken.py", "missing.py"])"));
    pw::core::RunSpec spec =
        pw::test::runSpec(tree, dir.filePath(QStringLiteral("run")).toStdString());
    spec.env.witness.enabled = true;
    spec.env.witness.coverFile = report;
    const pw::core::RunResult run = pw::core::PytestRun(spec).run();
    QCOMPARE(run.exitCode, 0);
    const std::optional<std::string> text = pw::core::readWholeFile(report);
    QVERIFY(text);
    const CoverageReport r = CoverageReport::parse(*text, report);
    // The call ran; which of its lines the tracer reports depends on the Python version.
    QVERIFY(r.inTests.at("lib/calc.py").count(6));
    QVERIFY(!r.inTests.at("lib/calc.py").count(5));
    QCOMPARE(r.statements.at("lib/calc.py"),
             (std::map<int, int>{{1, 1}, {4, 4}, {6, 6}, {7, 6}, {8, 6}, {9, 6}, {10, 10}}));
    QVERIFY(!r.inTests.count("lib/idle.py") && !r.atImport.count("lib/idle.py"));
    QCOMPARE(r.statements.at("lib/idle.py"), (std::map<int, int>{{2, 2}, {3, 2}, {4, 2}}));
    QCOMPARE(r.statements.size(), size_t(2));
}

// Real patches, pytest and coverage: which changed lines count. test_total runs total();
// test_broken only imports pkg.calc and fails on both trees.
void TestDiffCoverage::patchesJudgedByStatements_data()
{
    QTest::addColumn<Files>("head");   // over the base files
    QTest::addColumn<QString>("test"); // in tests/
    QTest::addColumn<QString>("summary");
    QTest::addColumn<int>("changedLines");
    QTest::addColumn<QString>("leftOut"); // leftOutText()

    const QString calc = QStringLiteral("pkg/calc.py");
    auto edit = [&](const QString &from, const QString &to) {
        QString t = QString::fromLatin1(kCalc);
        return t.replace(from, to);
    };
    const QString broken = QStringLiteral("test_broken.py::test_broken");
    const QString unusedChanged = edit(QStringLiteral("return 0"), QStringLiteral("return 1"));
    QTest::newRow("comment only")
        << Files{{calc, edit(QStringLiteral("sum of"), QStringLiteral("total of"))}} << broken
        << QStringLiteral("unknown: the patch changes no executable Python line (only blank "
                          "lines, comments or docstrings: pkg/calc.py)")
        << 0 << QString();
    QTest::newRow("middle line of a multi-line call")
        << Files{{calc, edit(QStringLiteral("2,"), QStringLiteral("5,"))}}
        << QStringLiteral("test_calc.py::test_total")
        << QStringLiteral("touched 1 changed line in pkg/calc.py") << 1 << QString();
    QTest::newRow("blank line next to an executed change")
        << Files{{calc, edit(QStringLiteral("2,\n"), QStringLiteral("5,\n\n"))}}
        << QStringLiteral("test_calc.py::test_total")
        << QStringLiteral("touched 1 changed line in pkg/calc.py") << 1 << QString();
    QTest::newRow("README and a Python change")
        << Files{{calc, unusedChanged}, {QStringLiteral("README.md"), QStringLiteral("# calc!\n")}}
        << broken
        << QStringLiteral("did not touch the change (executed none of its 1 changed line)") << 1
        << QStringLiteral("left out: README.md (documentation)");
    QTest::newRow("data file and a Python change")
        << Files{{calc, unusedChanged},
                 {QStringLiteral("data/expected.json"), QStringLiteral("[]\n")}}
        << broken
        << QStringLiteral("unknown: the patch changes files coverage cannot measure but a test "
                          "could read: data/expected.json (not Python)")
        << 1 << QString();
    QTest::newRow("comment in a module no test imports")
        << Files{{QStringLiteral("pkg/other.py"), QStringLiteral("# helpers\nVALUE = 1\n")}}
        << broken
        << QStringLiteral("unknown: the patch changes no executable Python line (only blank "
                          "lines, comments or docstrings: pkg/other.py)")
        << 0 << QString();
    QTest::newRow("documentation only")
        << Files{{QStringLiteral("README.md"), QStringLiteral("# calc!\n")}} << broken
        << QStringLiteral("unknown: the patch changes only documentation, which no test reads: "
                          "README.md")
        << 0 << QStringLiteral("left out: README.md (documentation)");
    // Issue 17: a type stub the patch edits next to the code is never executed: left out
    // (and said so), not `unknown` for every such patch.
    QTest::newRow("a type stub and a Python change")
        << Files{{calc, unusedChanged},
                 {QStringLiteral("pkg/calc.pyi"), QStringLiteral("def total() -> int: ...\n")},
                 {QStringLiteral("pkg/py.typed"), QStringLiteral("partial\n")}}
        << broken
        << QStringLiteral("did not touch the change (executed none of its 1 changed line)") << 1
        << QStringLiteral("left out: pkg/calc.pyi (type stub, never executed), pkg/py.typed "
                          "(typing marker (PEP 561), never executed)");
    QTest::newRow("a type stub only")
        << Files{{QStringLiteral("pkg/calc.pyi"), QStringLiteral("def total() -> int: ...\n")}}
        << broken
        << QStringLiteral("unknown: the patch changes only files no test executes: pkg/calc.pyi "
                          "(type stub, never executed)")
        << 0 << QStringLiteral("left out: pkg/calc.pyi (type stub, never executed)");
}

void TestDiffCoverage::patchesJudgedByStatements()
{
    QFETCH(Files, head);
    QFETCH(QString, test);
    QFETCH(QString, summary);
    QFETCH(int, changedLines);
    QFETCH(QString, leftOut);
    if (!coverageImportable())
        QSKIP("coverage is not importable by /usr/bin/python3");
    RepoBuilder repo;
    QTemporaryDir cache;
    repo.write("pkg/__init__.py", "");
    repo.write("pkg/calc.py", kCalc);
    repo.write("pkg/other.py", "# helper\nVALUE = 1\n");
    repo.write("README.md", "# calc\n");
    repo.write("data/expected.json", "{}\n");
    repo.write("tests/test_calc.py",
               "from pkg.calc import total\n\n\ndef test_total():\n    assert total() == 3\n");
    repo.write("tests/test_broken.py",
               "import pkg.calc\n\n\ndef test_broken():\n    assert False\n");
    const std::string base = repo.commit("base");
    for (const auto &[path, content] : head)
        repo.write(path.toStdString(), content.toStdString());
    const std::string headCommit = repo.commit("the patch");
    const RunRequest r =
        pw::test::runRequest(repo.root(), cache.path().toStdString(), base, headCommit, kToday);
    const RunContext ctx = RunContext::open(r);
    AttributionRequest req;
    req.test = "tests/" + test.toStdString();
    req.runs = 3; // test_broken: 3 of 3 failures on each tree is a broken test, no flake
    req.record = false;
    req.coverage = true;
    RunPool pool(ctx.workers());
    const AttributionResult res = Attribution::run(ctx, req, pool);
    QVERIFY(res.coverage.has_value());
    QCOMPARE(QString::fromStdString(res.coverage->summary()), summary);
    QCOMPARE(res.coverage->changedLines, changedLines);
    QCOMPARE(QString::fromStdString(res.coverage->leftOutText()), leftOut);
    // test_broken fails on all 3 runs of both trees: untouched, it is a broken test, no flake.
    if (res.coverage->verdict == CoverageVerdict::Untouched)
        QVERIFY2(res.sentence.find("failed on every run of both trees: a broken test rather "
                                   "than a patch bug (not a flake)") != std::string::npos,
                 res.sentence.c_str());
}

void TestDiffCoverage::patchInducedTestTouchesTheChange()
{
    const AttributionResult r = attribute("tests/test_value.py::test_value");
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PatchInduced);
    QVERIFY(r.coverage.has_value());
    QCOMPARE(r.coverage->verdict, CoverageVerdict::Touched);
    QCOMPARE(r.coverage->summary(), std::string("touched 1 changed line in pkg/mod.py"));
    QCOMPARE(r.coverage->seed.value_or(99), 0u);
    QVERIFY2(r.sentence.find("did not touch") == std::string::npos, r.sentence.c_str());
    const AttributionRecord rec = r.record(kToday);
    QCOMPARE(rec.diffCoverage.value_or(""), std::string("touched"));
}

// tests/pytest.ini makes tests/ pytest's rootpath; the diff's paths stay relative to the
// tree, so coverage is measured there (not "did not touch the change" for every failure).
void TestDiffCoverage::iniFileBelowTheTreeStillTouchesTheChange()
{
    RepoBuilder repo;
    QTemporaryDir cache;
    repo.write("pkg/__init__.py", "");
    repo.write("pkg/mod.py", kModBase);
    repo.write("tests/pytest.ini", "[pytest]\n");
    repo.write("tests/test_value.py", kTestValue);
    const std::string base = repo.commit("base");
    repo.write("pkg/mod.py", kModHead);
    const std::string head = repo.commit("the patch");
    const RunRequest r =
        pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, kToday);
    const RunContext ctx = RunContext::open(r);
    AttributionRequest req;
    req.test = "tests/test_value.py::test_value";
    req.runs = 1;
    req.record = false;
    req.coverage = true;
    RunPool pool(ctx.workers());
    const AttributionResult res = Attribution::run(ctx, req, pool);
    QCOMPARE(res.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PatchInduced);
    QVERIFY(res.coverage.has_value());
    QCOMPARE(res.coverage->verdict, CoverageVerdict::Touched);
    QCOMPARE(res.coverage->summary(), std::string("touched 1 changed line in pkg/mod.py"));
}

void TestDiffCoverage::flakyTestDidNotTouchTheChange()
{
    const AttributionResult r = attribute("tests/test_flaky.py::test_flaky");
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QVERIFY(r.coverage.has_value());
    QVERIFY2(r.coverage->verdict == CoverageVerdict::Untouched, r.coverage->summary().c_str());
    QCOMPARE(r.coverage->changedLines, 1);
    QVERIFY2(r.sentence.find("; the failing test did not touch the change: strong evidence of "
                             "a flake rather than a patch bug") != std::string::npos,
             r.sentence.c_str());
    bool noted = false;
    for (const std::string &note : r.notes)
        noted = noted || note.starts_with("diff coverage (head seed 0): did not touch the change");
    QVERIFY(noted);
    QCOMPARE(r.record(kToday).diffCoverage.value_or(""), std::string("untouched"));
}

void TestDiffCoverage::coverageNotImportableIsUnknownAndVerdictStands()
{
    QTemporaryDir fake;
    pw::test::writeText(fake.path().toStdString(), "coverage.py",
                        "raise ImportError('simulated: no coverage here')\n");
    const std::string pythonPath =
        fake.path().toStdString() + ":" + pw::core::RunEnvironment::pluginDir();
    const AttributionResult r =
        attribute("tests/test_flaky.py::test_flaky", true, [&](Arm, pw::core::RunSpec &spec) {
            spec.env.extraVariables["PYTHONPATH"] = pythonPath;
        });
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QCOMPARE(r.base.fails, 1);
    QCOMPARE(r.head.fails, 1);
    QVERIFY(r.coverage.has_value());
    QCOMPARE(r.coverage->verdict, CoverageVerdict::Unknown);
    QCOMPARE(r.coverage->summary(),
             std::string("unknown: coverage is not importable by the project's interpreter "
                         "(coverage: ImportError: simulated: no coverage here)"));
    QVERIFY(r.sentence.find("did not touch") == std::string::npos);
}

void TestDiffCoverage::noCoverageSkipsTheRerun()
{
    const AttributionResult r = attribute("tests/test_flaky.py::test_flaky", false);
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QVERIFY(!r.coverage.has_value());
    QVERIFY(!r.record(kToday).diffCoverage);
}

void TestDiffCoverage::coverageRunThatIsNoFailureIsUnknown_data()
{
    QTest::addColumn<QString>("how");
    QTest::addColumn<QString>("summary");
    QTest::newRow("passes in the coverage run")
        << QStringLiteral("pass")
        << QStringLiteral("unknown: the test did not fail in the coverage run (head seed 0: "
                          "pass)");
    QTest::newRow("interpreter missing in the coverage run")
        << QStringLiteral("no-python")
        << QStringLiteral("unknown: the coverage run did not start: Python interpreter "
                          "'/nonexistent/python3' not found");
}

void TestDiffCoverage::coverageRunThatIsNoFailureIsUnknown()
{
    QFETCH(QString, how);
    QFETCH(QString, summary);
    // Only the coverage rerun is changed: the one spec that carries --pw-cover.
    const AttributionResult r =
        attribute("tests/test_env.py::test_env_flake", true, [&](Arm, pw::core::RunSpec &spec) {
            if (spec.env.witness.coverFile.empty())
                return;
            if (how == QLatin1String("pass"))
                spec.env.extraVariables["FLAKE_OFF"] = "1";
            else
                spec.env.python = "/nonexistent/python3";
        });
    QCOMPARE(r.verdict.value_or(AttributionVerdict::NoRepro), AttributionVerdict::PreExisting);
    QVERIFY(r.coverage.has_value());
    QCOMPARE(r.coverage->verdict, CoverageVerdict::Unknown);
    QVERIFY2(QString::fromStdString(r.coverage->summary()).startsWith(summary),
             r.coverage->summary().c_str());
}

void TestDiffCoverage::cliShowsCoverageInTextAndJson()
{
    auto cli = [&](const QStringList &extra) {
        QStringList args = {QStringLiteral("attribute"),
                            QStringLiteral("tests/test_flaky.py::test_flaky"),
                            QStringLiteral("--runs"),
                            QStringLiteral("1"),
                            QStringLiteral("--no-record"),
                            QStringLiteral("--repo"),
                            QString::fromStdString(m_repo->root()),
                            QStringLiteral("--base"),
                            QString::fromStdString(m_base),
                            QStringLiteral("--head"),
                            QString::fromStdString(m_head),
                            QStringLiteral("--python"),
                            QString::fromStdString(pw::test::testPython()),
                            QStringLiteral("--cache-dir"),
                            m_cache->path() + QStringLiteral("/trees"), // m_ctx's
                            QStringLiteral("--no-sandbox")};
        args << extra;
        QProcess p;
        p.start(QStringLiteral(PW_CLI_PATH), args);
        if (!p.waitForFinished(180000))
            p.kill();
        return QString::fromUtf8(p.readAllStandardOutput());
    };
    const QString text = cli({});
    QVERIFY2(text.contains(QLatin1String(
                 "diff coverage: did not touch the change (executed none of its 1 changed "
                 "line)\n")),
             qPrintable(text));
    const QJsonObject doc =
        QJsonDocument::fromJson(cli({QStringLiteral("--format"), QStringLiteral("json")}).toUtf8())
            .object();
    const QJsonObject cov = doc.value(QLatin1String("diff_coverage")).toObject();
    QCOMPARE(cov.value(QLatin1String("verdict")).toString(), QStringLiteral("untouched"));
    QCOMPARE(cov.value(QLatin1String("changed_lines")).toInt(), 1);
    QCOMPARE(cov.value(QLatin1String("seed")).toInt(-1), 0);
    const QJsonObject off =
        QJsonDocument::fromJson(cli({QStringLiteral("--format"), QStringLiteral("json"),
                                     QStringLiteral("--no-coverage")})
                                    .toUtf8())
            .object();
    QCOMPARE(off.value(QLatin1String("verdict")).toString(), QStringLiteral("PRE_EXISTING"));
    QVERIFY(off.contains(QLatin1String("diff_coverage")));
    QVERIFY(off.value(QLatin1String("diff_coverage")).isNull());
}

// Issue 17 end to end: a patch that edits a module and its type stub. The stub is never
// executed: the text, the JSON and the record judge the module and say what was left out.
void TestDiffCoverage::cliNamesWhatItLeftOut()
{
    if (!coverageImportable())
        QSKIP("coverage is not importable by /usr/bin/python3");
    RepoBuilder repo;
    QTemporaryDir cache;
    repo.write("pkg/__init__.py", "");
    repo.write("pkg/mod.py", kModBase);
    repo.write("pkg/mod.pyi", "LIMIT: int\n\ndef value() -> int: ...\n");
    repo.write("tests/test_flaky.py", kTestFlaky);
    const std::string base = repo.commit("base");
    repo.write("pkg/mod.py", kModHead);
    repo.write("pkg/mod.pyi", "LIMIT: int\n\ndef value() -> float: ...\n");
    const std::string head = repo.commit("the patch, with its stub");
    auto cli = [&](const QStringList &extra) {
        QStringList args = {
            QStringLiteral("attribute"),    QStringLiteral("tests/test_flaky.py::test_flaky"),
            QStringLiteral("--runs"),       QStringLiteral("1"),
            QStringLiteral("--repo"),       QString::fromStdString(repo.root()),
            QStringLiteral("--base"),       QString::fromStdString(base),
            QStringLiteral("--head"),       QString::fromStdString(head),
            QStringLiteral("--python"),     QString::fromStdString(pw::test::testPython()),
            QStringLiteral("--cache-dir"),  cache.path(),
            QStringLiteral("--no-sandbox"), QStringLiteral("--quiet"),
            QStringLiteral("--today"),      QString::fromStdString(kToday)};
        args << extra;
        QProcess p;
        p.start(QStringLiteral(PW_CLI_PATH), args);
        if (!p.waitForFinished(180000))
            p.kill();
        return QString::fromUtf8(p.readAllStandardOutput());
    };
    const QString text = cli({});
    QVERIFY2(text.contains(QLatin1String(
                 "diff coverage: did not touch the change (executed none of its 1 changed "
                 "line)\n  left out: pkg/mod.pyi (type stub, never executed)\n")),
             qPrintable(text));
    const QJsonObject doc =
        QJsonDocument::fromJson(
            cli({QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--no-record")})
                .toUtf8())
            .object();
    const QJsonObject cov = doc.value(QLatin1String("diff_coverage")).toObject();
    QCOMPARE(cov.value(QLatin1String("verdict")).toString(), QStringLiteral("untouched"));
    QCOMPARE(cov.value(QLatin1String("left_out")).toArray(),
             QJsonArray{QStringLiteral("pkg/mod.pyi (type stub, never executed)")});
    const std::optional<AttributionRecord> rec = AttributionRecord::latestFor(
        repo.root() + "/.patchwitness/runs", "tests/test_flaky.py::test_flaky");
    QVERIFY(rec.has_value());
    QCOMPARE(rec->diffCoverage.value_or(""), std::string("untouched"));
    QCOMPARE(rec->diffCoverageDetail.value_or(""),
             std::string("did not touch the change (executed none of its 1 changed line); left "
                         "out: pkg/mod.pyi (type stub, never executed)"));
}

QTEST_GUILESS_MAIN(TestDiffCoverage)
#include "tst_diffcoverage.moc"
