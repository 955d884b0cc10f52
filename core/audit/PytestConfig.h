#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// One option of pytest's own section of a configuration file, as pytest reads it: the
// value split into arguments (an ini value shell-split, a TOML array element by element),
// so a multi-line `addopts` continuation or TOML array is still one `addopts`.
struct PytestOption
{
    std::string
        section; // "[pytest]", "[tool:pytest]", "[tool.pytest.ini_options]", "[tool.pytest]"
    std::string key;
    int line = 0; // of the key
    std::vector<std::string> args;
};

// pytest's configuration in one file: pytest.ini and .pytest.ini (`[pytest]`),
// pyproject.toml (`[tool.pytest.ini_options]`, and pytest 9's native `[tool.pytest]`),
// tox.ini (`[pytest]`), setup.cfg (`[tool:pytest]`). Keys of other sections and tables
// (another tool's `testpaths`) are not pytest's and are not read.
struct PytestConfig
{
    std::vector<PytestOption> options;
    std::optional<std::string> error; // the file does not parse (TOML): why

    // Whether `path` (by its file name) is one of the files above.
    static bool isConfigFile(const std::string &path);
    // `text` empty: the file is absent (no options).
    static PytestConfig parse(const std::string &path, const std::string &text);

    const PytestOption *find(const std::string &section, const std::string &key) const;
    // The plugins `addopts` loads (`-p name`, not `-p no:name`).
    std::vector<std::string> plugins() const;
};

// The options of `addopts` that decide what is collected (`-k`, `-m`, `--deselect`,
// `--ignore`, `--ignore-glob`, `-p`), each normalised to "flag value" ("-k not slow").
std::vector<std::string> collectionArgs(const std::vector<std::string> &addopts);

// Shell-style split of an ini value (pytest's `args` and `linelist` types).
std::vector<std::string> splitArgs(const std::string &text);

} // namespace pw::core
