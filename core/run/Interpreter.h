#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pw::core {

struct Config;

// What an interpreter reports about itself, asked with `-I` (no PYTHONPATH, no working
// directory, no user site): so `sysPath` is the tree-independent part of every run's
// sys.path — the standard library, site-packages and what their .pth files add (an
// editable install's checkout among them). One subprocess per interpreter file (path, size
// and mtime), cached in memory for the life of the process.
struct InterpreterProbe
{
    std::string python;         // as asked
    std::string pythonVersion;  // sys.version
    std::string version;        // platform.python_version(): "3.11.7"
    std::string pytestVersion;  // pytest.__version__ ("" with pytestError)
    std::string pytestError;    // why pytest does not import (inspectInterpreter only)
    std::string platform;       // platform.platform()
    std::string cacheTag;       // sys.implementation.cache_tag ("cpython-311"; "": none)
    std::string executable;     // sys.executable: a venv's own bin/python, a shim's target
    std::string realExecutable; // os.path.realpath(sys.executable)
    std::string prefix;         // sys.prefix (a venv's directory)
    std::string basePrefix;     // sys.base_prefix
    std::vector<std::string> sysPath;

    // pytest's major version (7 for "7.2.1"); 0 when unknown.
    int pytestMajor() const;
};

// The file behind `python` (a name looked up on PATH, or a path), absolute; empty when
// there is none.
std::string interpreterPath(const std::string &python);

// Throws Error::input naming the interpreter when it does not exist or cannot import
// pytest, Error::harness when it answers garbage. Thread-safe.
InterpreterProbe probeInterpreter(const std::string &python);
// The same, but an interpreter without pytest is an answer (pytestError), not an error.
InterpreterProbe inspectInterpreter(const std::string &python);

// The interpreter runs use, and why that one (issue: interpreter choice without thinking).
struct InterpreterChoice
{
    std::string python; // what runs start: as given, or the candidate's path
    // Why: "--python", "<config source>: python", "the repository's .venv", "the
    // repository's venv", "VIRTUAL_ENV", "the first python3 on PATH that imports pytest",
    // "/usr/bin/python3".
    std::string origin;
    // Candidates looked at before it and why each was passed over
    // ("<repo>/.venv/bin/python: cannot import pytest (ModuleNotFoundError: …)").
    std::vector<std::string> passedOver;
};

// A place an interpreter may be, in the order chooseInterpreter tries them.
struct InterpreterCandidate
{
    std::string path;          // absolute
    std::string origin;        // InterpreterChoice::origin when it is chosen
    bool listIfMissing = true; // a missing one is named among the candidates tried
};

// The repository's `.venv` and `venv`, VIRTUAL_ENV, each python3 on PATH (this process's
// environment), /usr/bin/python3.
std::vector<InterpreterCandidate> interpreterCandidates(const std::string &repoRoot);
// The first of `candidates` that imports pytest (with `needsPytest` false, else the first
// that runs); Error::input naming every candidate and why it was passed over.
InterpreterChoice chooseFrom(const std::vector<InterpreterCandidate> &candidates, bool needsPytest);

// `given` (--python) wins, then config `python` when the config sets it; else the
// repository's virtual environment (`.venv`, `venv`), an active VIRTUAL_ENV, each python3
// on PATH in order, then /usr/bin/python3 — the first that imports pytest. With
// `needsPytest` false (the static audit reads files with Python's ast only), the first
// candidate that runs at all is taken when none imports pytest. Throws Error::input naming
// every candidate tried and why it was passed over.
InterpreterChoice chooseInterpreter(const std::string &repoRoot,
                                    const std::optional<std::string> &given, const Config &config,
                                    bool needsPytest);

} // namespace pw::core
