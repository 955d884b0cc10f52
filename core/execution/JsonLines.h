#pragma once

// The line loop of the bundled plugin's JSONL files (outcome rows, witness rows): one JSON
// object a line, each written with one write(2), so only the last line of a killed run can
// be incomplete.

#include "util/Files.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

template <typename Row> struct JsonLinesFile
{
    std::vector<Row> rows;
    std::string error;     // non-empty: missing file or a garbled line ("path:line: …")
    bool tornTail = false; // an unterminated last line that did not parse was dropped
    bool ok() const { return error.empty(); }
};

// Rows of `text` in file order, each with its 1-based `line`. Blank lines are skipped; an
// unterminated last line that does not parse is the killed writer's and is dropped
// (tornTail); any other line that is not JSON or that `toRow(const json &, Row &)` refuses
// (it returns what is wrong, empty when the row is good) is an error "name:line: …", and
// then no rows are returned: a reader never acts on part of a garbled file.
template <typename Row, typename ToRow>
JsonLinesFile<Row> parseJsonLines(const std::string &text, const std::string &name, ToRow toRow)
{
    JsonLinesFile<Row> file;
    size_t at = 0;
    int line = 0;
    while (at < text.size()) {
        ++line;
        const size_t end = text.find('\n', at);
        const bool terminated = end != std::string::npos;
        const std::string content = text.substr(at, terminated ? end - at : std::string::npos);
        at = terminated ? end + 1 : text.size();
        if (content.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const nlohmann::json parsed = nlohmann::json::parse(content, nullptr, false);
        Row row;
        row.line = line;
        const std::string problem =
            parsed.is_discarded() ? std::string("not JSON") : toRow(parsed, row);
        if (problem.empty()) {
            file.rows.push_back(std::move(row));
        } else if (!terminated) {
            file.tornTail = true; // the killed writer's last, partial line
        } else {
            file.error = name + ":" + std::to_string(line) + ": " + problem;
            file.rows.clear();
            return file;
        }
    }
    return file;
}

// The file at `path` parsed as above; a missing or unreadable one is the error
// "path: <missing>".
template <typename Row, typename ToRow>
JsonLinesFile<Row> readJsonLines(const std::string &path, const std::string &missing, ToRow toRow)
{
    const std::optional<std::string> text = readWholeFile(path);
    if (!text) {
        JsonLinesFile<Row> file;
        file.error = path + ": " + missing;
        return file;
    }
    return parseJsonLines<Row>(*text, path, toRow);
}

} // namespace pw::core
