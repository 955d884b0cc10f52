#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace pw::core {

struct Config;

// How long an interpreter probe waits for its answer unless config `timeouts.probe` says
// otherwise: a healthy interpreter answers in well under a second, one that hangs at
// start-up (a .pth file or sitecustomize that waits) should not hold a command for minutes.
constexpr int kDefaultProbeTimeoutMs = 20 * 1000;

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
// pytest, Error::harness when it answers garbage. With `sandboxed` the probe runs inside
// the sandbox (Sandbox::wrap, its own and its installation's directories bound): an
// interpreter the reviewed code can write to, like the repository's .venv, runs its .pth
// files and site customisation on any start, a version probe's too. An interpreter that
// does not start there is Error::input saying so. Thread-safe; a probe is reused while the
// interpreter file and its sys.path directories are unchanged. One that does not answer
// within `timeoutMs` is Error::harness naming it, the time and the config key; one still
// probing when `stop` is requested is killed, and Error::interrupted.
InterpreterProbe probeInterpreter(const std::string &python, bool sandboxed = false,
                                  int timeoutMs = kDefaultProbeTimeoutMs,
                                  std::stop_token stop = {});
// The same, but an interpreter without pytest is an answer (pytestError), not an error.
InterpreterProbe inspectInterpreter(const std::string &python, bool sandboxed = false,
                                    int timeoutMs = kDefaultProbeTimeoutMs,
                                    std::stop_token stop = {});

// Whether `path` lies below `dir` (both made absolute and clean; not resolved).
bool insideDirectory(const std::string &path, const std::string &dir);

// The interpreter runs use, and why that one.
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
    // It lies inside the repository (its .venv): code the patch's author can write, so
    // patchwitness starts it only inside the sandbox when the runs have one.
    bool inRepository = false;
};

// A place an interpreter may be, in the order chooseInterpreter tries them.
struct InterpreterCandidate
{
    std::string path;          // absolute
    std::string origin;        // InterpreterChoice::origin when it is chosen
    bool listIfMissing = true; // a missing one is named among the candidates tried
    bool inRepository = false; // InterpreterChoice::inRepository
};

// How the candidates are looked at.
struct InterpreterSearch
{
    // Runs need pytest; the static audit's extractor needs Python's ast only, and then
    // takes the first candidate that runs at all when none imports pytest.
    bool needsPytest = true;
    // The runs will be sandboxed: a candidate inside the repository is probed inside the
    // sandbox too (one elsewhere is probed as it is, which also tells what the sandbox must
    // bind for it).
    bool sandboxed = false;
    // Candidates inside the repository (its .venv and venv, a VIRTUAL_ENV there) are code
    // the patch's author can write: the static audit, which starts the interpreter without
    // asking and without a sandbox, leaves them out.
    bool inRepository = true;
    // Each candidate's probe (config `timeouts.probe`).
    int probeTimeoutMs = kDefaultProbeTimeoutMs;
    // Requested: the probe under way is killed and the search ends (Error::interrupted),
    // no candidate is passed over for it.
    std::stop_token stop;
};

// The repository's `.venv` and `venv` (with `inRepository`), VIRTUAL_ENV (unless it lies
// in the repository and `inRepository` is false), each python3 on PATH (this process's
// environment), /usr/bin/python3.
std::vector<InterpreterCandidate> interpreterCandidates(const std::string &repoRoot,
                                                        bool inRepository = true);
// The first of `candidates` that imports pytest (see InterpreterSearch); Error::input
// naming every candidate and why it was passed over.
InterpreterChoice chooseFrom(const std::vector<InterpreterCandidate> &candidates,
                             const InterpreterSearch &search);

// `given` (--python) wins, then config `python` when the config sets it; else the first
// of interpreterCandidates() that chooseFrom takes. `inRepository` is set for each.
InterpreterChoice chooseInterpreter(const std::string &repoRoot,
                                    const std::optional<std::string> &given, const Config &config,
                                    const InterpreterSearch &search);

} // namespace pw::core
