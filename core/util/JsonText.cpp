#include "util/JsonText.h"

#include "util/Error.h"

#include <set>

namespace pw::core::jsontext {
namespace {

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix (we say where ourselves, in code points like toml++).
std::string plainMessage(const std::string &what)
{
    const size_t at = what.find("parse error");
    if (at == std::string::npos)
        return what;
    const size_t colon = what.find(": ", at);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

void lineColumn(std::string_view text, size_t byte, int firstLine, int *line, int *column)
{
    *line = firstLine;
    *column = 1;
    const size_t end = std::min(byte, text.size());
    for (size_t i = 0; i < end; ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++*line;
            *column = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++*column;
        }
    }
}

} // namespace

nlohmann::ordered_json parse(std::string_view text, const std::string &origin, int firstLine,
                             bool rejectDuplicateKeys)
{
    std::set<std::string> seen;
    std::string duplicate;
    nlohmann::ordered_json::parser_callback_t callback =
        [&](int depth, nlohmann::ordered_json::parse_event_t event,
            nlohmann::ordered_json &parsed) {
            if (rejectDuplicateKeys && depth == 1 &&
                event == nlohmann::ordered_json::parse_event_t::key && parsed.is_string()) {
                const std::string key = parsed.get<std::string>();
                if (!seen.insert(key).second && duplicate.empty())
                    duplicate = key;
            }
            return true;
        };
    try {
        nlohmann::ordered_json value = nlohmann::ordered_json::parse(
            text.begin(), text.end(), rejectDuplicateKeys ? callback : nullptr);
        if (!duplicate.empty()) {
            // Find the second occurrence for a position a person can jump to.
            const std::string needle = nlohmann::json(duplicate).dump();
            size_t at = text.find(needle);
            at = at == std::string_view::npos ? 0 : text.find(needle, at + 1);
            int line = 0, column = 0;
            lineColumn(text, at == std::string_view::npos ? 0 : at, firstLine, &line, &column);
            throw Error::input(origin + ':' + std::to_string(line) + ':' + std::to_string(column) +
                               ": duplicate key " + needle);
        }
        return value;
    } catch (const nlohmann::ordered_json::parse_error &e) {
        int line = 0, column = 0;
        lineColumn(text, e.byte > 0 ? e.byte - 1 : 0, firstLine, &line, &column);
        throw Error::input(origin + ':' + std::to_string(line) + ':' + std::to_string(column) +
                           ": " + plainMessage(e.what()));
    } catch (const nlohmann::ordered_json::out_of_range &e) {
        // A number too large for a double ("number overflow parsing '1e999'", found by
        // fuzzing) carries no position: the number's first occurrence is where it is.
        const std::string what = e.what();
        const size_t open = what.find('\'');
        const size_t close = open == std::string::npos ? open : what.find('\'', open + 1);
        const size_t at = close == std::string::npos
                              ? std::string_view::npos
                              : text.find(what.substr(open + 1, close - open - 1));
        int line = 0, column = 0;
        lineColumn(text, at == std::string_view::npos ? 0 : at, firstLine, &line, &column);
        const size_t prefix = what.find("] ");
        throw Error::input(origin + ':' + std::to_string(line) + ':' + std::to_string(column) +
                           ": " + (prefix == std::string::npos ? what : what.substr(prefix + 2)));
    }
}

std::string dumpLine(const nlohmann::ordered_json &value)
{
    if (value.is_object()) {
        std::string out = "{";
        bool first = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
            out +=
                (first ? "" : ", ") + nlohmann::json(it.key()).dump() + ": " + dumpLine(it.value());
            first = false;
        }
        return out + "}";
    }
    if (value.is_array()) {
        std::string out = "[";
        for (size_t i = 0; i < value.size(); ++i)
            out += (i ? ", " : "") + dumpLine(value[i]);
        return out + "]";
    }
    return value.dump();
}

const char *typeName(const nlohmann::ordered_json &value)
{
    switch (value.type()) {
    case nlohmann::ordered_json::value_t::string:
        return "a string";
    case nlohmann::ordered_json::value_t::number_integer:
    case nlohmann::ordered_json::value_t::number_unsigned:
        return "an integer";
    case nlohmann::ordered_json::value_t::number_float:
        return "a number";
    case nlohmann::ordered_json::value_t::boolean:
        return "a boolean";
    case nlohmann::ordered_json::value_t::array:
        return "an array";
    case nlohmann::ordered_json::value_t::object:
        return "an object";
    case nlohmann::ordered_json::value_t::null:
        return "null";
    default:
        return "something else";
    }
}

} // namespace pw::core::jsontext
