#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pw::core {

// A top-level config.toml value the workbench writes: a boolean, an integer, a string or
// an array of strings.
using ConfigValue = std::variant<bool, long long, std::string, std::vector<std::string>>;

// Edits config.toml the way a person would: only the values that change are
// rewritten, in place, so comments, key order, formatting and keys patchwitness does not
// know survive byte for byte. toml++ parses; this class only splices text at the spans
// toml++ reports for each value.
class ConfigEditor
{
public:
    // `original` with each of `values` set on the top-level table: a present key has its
    // value's text replaced (left alone when it already holds that value); an absent key
    // gets a `key = value` line after the last top-level value, or else before the first
    // `[table]` header (and its comment). The result is checked with Config::parse.
    // Throws Error::input, naming `origin`, line and column, when `original` does not
    // parse, a key is a table there (edit those by hand), or the result is not a valid
    // config (e.g. `latitude_max = 0`).
    static std::string setValues(const std::string &original,
                                 const std::map<std::string, ConfigValue> &values,
                                 const std::string &origin = "config.toml");

    // The top-level value of `key` in `text` when it is one a ConfigValue can hold.
    // Throws Error::input when `text` does not parse.
    static std::optional<ConfigValue> value(const std::string &text, const std::string &key,
                                            const std::string &origin = "config.toml");

    // Writes setValues(loaded, values) to `path` atomically (creating its directory), but
    // only when the file still holds exactly `loaded` (empty for a file that did not exist):
    // otherwise, or on any error, throws Error::input and leaves the file untouched.
    // Returns false when there was nothing to change.
    static bool save(const std::string &path, const std::string &loaded,
                     const std::map<std::string, ConfigValue> &values);
};

} // namespace pw::core
