#pragma once

#include "repo/PatchLimits.h"

#include <map>
#include <string>
#include <vector>

namespace pw::core {

constexpr long long kDefaultTestFileMaxBytes = 4LL * 1024 * 1024;

// config.toml in the ledger directory. Every threshold of the gates lives here;
// the defaults are the documented ones (README, "Configuration").
struct Config
{
    // Unset (pythonSet false): runs choose one (chooseInterpreter: the repository's venv,
    // the first python3 on PATH that imports pytest, /usr/bin/python3).
    std::string python = "python3";
    bool pythonSet = false;
    std::vector<std::string> testGlobs = {"tests/**/*.py", "test/**/*.py", "**/test_*.py",
                                          "**/*_test.py"};
    // Always fixtures; `fixture_globs` adds to these.
    std::vector<std::string> fixtureGlobs = {"tests/fixtures/**/*", "**/conftest.py"};
    std::vector<std::string> plugins;
    int latitudeMax = 4;
    int seeds = 20;
    int replays = 5;
    int orderSeeds = 8;
    int minTrials = 20;
    int trialBudget = 2000;
    int freezeMaxDays = 14;
    int renewalRecencyDays = 14;
    int shadowPct = 10;
    int infraFailPct = 50;
    double timeoutPerTest = 60.0; // seconds
    double timeoutPerRun = 900.0;
    // How long an interpreter probe (version, pytest, sys.path) may take before the
    // interpreter counts as hung: a healthy one answers in well under a second.
    double timeoutProbe = 20.0;
    int workers = 0; // 0: one per core
    bool sandbox = true;
    std::map<std::string, std::vector<std::string>> testMap; // source glob → test paths
    long long diffMaxBytes = 2 * 1024 * 1024;                // per file, before "load anyway"
    // The largest PATCH: file, and the most one of its binary hunks may inflate to.
    long long patchMaxBytes = kDefaultPatchMaxBytes;
    // The largest test file the fact extractor parses: a larger one is TOO-LARGE (review),
    // never parsed (its facts would cost ~200 bytes of memory per byte of source).
    long long testFileMaxBytes = kDefaultTestFileMaxBytes;

    // Messages about keys that were ignored (unknown keys): "config.toml:3: ...".
    std::vector<std::string> warnings;
    // Where the values came from ("<defaults>", a path, or "<rev>:.patchwitness/config.toml").
    std::string source = "<defaults>";

    // Every duration (config `timeouts.*`, the CLI's --timeout) lies in this range: the
    // timers count whole milliseconds, so less than one is no timer at all, and a week is
    // beyond any run that has not hung (and beyond what an int of milliseconds holds).
    static constexpr double kMinSeconds = 0.001;
    static constexpr double kMaxSeconds = 7 * 24 * 3600.0;
    // Why `seconds` is no duration ("must be at least 0.001 s, got 0.0001"); empty when it
    // is one.
    static std::string secondsProblem(double seconds);
    // A duration secondsProblem() accepts, in whole milliseconds (rounded, at least 1).
    static int milliseconds(double seconds);

    // Parses TOML text. `origin` names the file in messages. Throws Error::input with
    // "origin:line:column: message" for a syntax error or a bad value (naming the key).
    static Config parse(const std::string &text, const std::string &origin);
    // Reads a file; a file that does not exist gives the defaults.
    static Config load(const std::string &path);
};

} // namespace pw::core
