#pragma once

// JSON reading with positions, for the JSON ledgers and the run engine's records and rows.
// nlohmann_json parses; this only turns its byte offsets into "origin:line:column" and
// writes values in the layout Python's json module uses, so rows written here look like
// rows the pytest plugin writes.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace pw::core::jsontext {

// Parses one JSON document; a syntax error (also invalid UTF-8, truncation) is
// Error::input "origin:line:column: message". `firstLine` is the line `text` starts on
// (JSON Lines). With `duplicateKey` set, a key repeated in the top-level object is an
// error too (nlohmann would keep the last one silently).
nlohmann::ordered_json parse(std::string_view text, const std::string &origin, int firstLine = 1,
                             bool rejectDuplicateKeys = false);

// `{"a": 1, "b": [1, 2]}`: Python's json.dumps layout, one line.
std::string dumpLine(const nlohmann::ordered_json &value);

const char *typeName(const nlohmann::ordered_json &value); // "a string", "an integer", ...

} // namespace pw::core::jsontext
