#pragma once

// The pytest versions the plugin and the gates are tested on: the distribution's pytest
// (Debian 12: 7.2) and cached virtual environments with the pinned pytest 8.x and the
// newest release beside pytest-xdist, Hypothesis, pytest-randomly, pytest-random-order,
// coverage and freezegun. The venvs are built by tests/support/pytest_lines.py (its pins,
// its cache, its lock); this is the tests' side of it.

#include <QMetaType>
#include <QProcessEnvironment>
#include <QStringList>
#include <string>

namespace pw::test {

enum class PytestLine
{
    V7,    // "debian": testPython() (/usr/bin/python3 with Debian's pytest 7.2)
    V8,    // "pytest8": pytest 8.4.2
    Newest // "newest": pytest 9.2.0
};

// The line's name: a test row's name and pytest_lines.py's ("debian", "pytest8", "newest").
const char *pytestLineName(PytestLine line);

// A line's interpreter, or why there is none (pytest_lines.py's output: pip's, when the
// package registry cannot be reached). Tests QFAIL with the error; they never skip.
struct PinnedPython
{
    std::string python;
    std::string error;
    bool ok() const { return error.empty(); }
};

// V7: testPython(). V8, Newest: the venv of PW_TEST_PYTHON in $PATCHWITNESS_TEST_VENVS
// (default ~/.cache/patchwitness-test-venvs), built on first use — executables started
// together wait for one build — and checked before it is reused. Once per process and line.
PinnedPython pytestPython(PytestLine line);

// One data row per line, column "line" (PytestLine): for a test class's initTestCase_data()
// (every test function runs on each line, a failure names its line; the class's init()
// then takes the row's interpreter) or a test function's _data(). PW_TEST_PYTEST_LINES
// ("debian,newest") keeps only the lines it names.
void addPytestLineRows();

// pytest_lines.py run with `arguments` under `environment` (the script's own tests).
struct ScriptRun
{
    int exitCode = -1;
    std::string out; // stdout
    std::string err; // stderr: progress, and why a line cannot be provided
};
ScriptRun runPytestLines(const QStringList &arguments, const QProcessEnvironment &environment);

// Whether `python` can import `module`.
bool pythonImports(const std::string &python, const std::string &module);

} // namespace pw::test

Q_DECLARE_METATYPE(pw::test::PytestLine)
