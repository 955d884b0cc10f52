#include "PytestLines.h"

#include "TestSupport.h"

#include <QProcess>
#include <QTest>
#include <map>
#include <mutex>

namespace pw::test {

namespace {

// A cold build downloads from the registry (≈ 30–60 s a line here); pip itself gives up
// after its own timeout and retries, this is the bound on the whole build.
constexpr int kScriptTimeoutMs = 15 * 60 * 1000;

QString scriptPath()
{
    return QStringLiteral(PW_SOURCE_DIR "/tests/support/pytest_lines.py");
}

} // namespace

const char *pytestLineName(PytestLine line)
{
    switch (line) {
    case PytestLine::V7:
        return "debian";
    case PytestLine::V8:
        return "pytest8";
    case PytestLine::Newest:
        return "newest";
    }
    return "?";
}

ScriptRun runPytestLines(const QStringList &arguments, const QProcessEnvironment &environment)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setStandardInputFile(QProcess::nullDevice());
    // The venvs are made from Debian's interpreter, whatever PW_TEST_PYTHON says.
    process.start(QStringLiteral(PW_TEST_PYTHON), QStringList{scriptPath()} + arguments);
    ScriptRun run;
    if (!process.waitForStarted(30 * 1000)) {
        run.err = "cannot start " PW_TEST_PYTHON ": " + process.errorString().toStdString();
        return run;
    }
    if (!process.waitForFinished(kScriptTimeoutMs)) {
        process.kill();
        process.waitForFinished(5000);
        run.err = "pytest_lines.py did not finish within 15 minutes\n";
    }
    run.out = process.readAllStandardOutput().toStdString();
    run.err += process.readAllStandardError().toStdString();
    if (process.exitStatus() == QProcess::NormalExit)
        run.exitCode = process.exitCode();
    return run;
}

PinnedPython pytestPython(PytestLine line)
{
    if (line == PytestLine::V7)
        return {testPython(), {}};
    static std::mutex mutex;
    static std::map<PytestLine, PinnedPython> known;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = known.find(line);
    if (it != known.end())
        return it->second;
    const ScriptRun run =
        runPytestLines({QStringLiteral("path"), QString::fromLatin1(pytestLineName(line))},
                       QProcessEnvironment::systemEnvironment());
    PinnedPython pinned;
    std::string python = run.out;
    while (!python.empty() && (python.back() == '\n' || python.back() == '\r'))
        python.pop_back();
    if (run.exitCode == 0 && !python.empty() && python.find('\n') == std::string::npos)
        pinned.python = python;
    else
        pinned.error = std::string("no interpreter for the ") + pytestLineName(line) +
                       " line (tests/support/pytest_lines.py path " + pytestLineName(line) +
                       ", exit " + std::to_string(run.exitCode) + "):\n" + run.err + run.out;
    known[line] = pinned;
    return pinned;
}

void addPytestLineRows()
{
    QTest::addColumn<PytestLine>("line");
    const QStringList only = qEnvironmentVariable("PW_TEST_PYTEST_LINES")
                                 .split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const PytestLine line : {PytestLine::V7, PytestLine::V8, PytestLine::Newest}) {
        if (only.isEmpty() || only.contains(QLatin1String(pytestLineName(line))))
            QTest::newRow(pytestLineName(line)) << line;
    }
}

bool pythonImports(const std::string &python, const std::string &module)
{
    return QProcess::execute(QString::fromStdString(python),
                             {QStringLiteral("-c"), QString::fromStdString("import " + module)}) ==
           0;
}

} // namespace pw::test
