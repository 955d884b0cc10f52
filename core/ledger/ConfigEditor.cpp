#include "ledger/ConfigEditor.h"

#include "ledger/Config.h"
#include "ledger/TomlText.h"
#include "util/DirectoryLock.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QFileInfo>
#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <toml++/toml.h>

namespace pw::core {
namespace {

constexpr size_t kNoLine = std::numeric_limits<size_t>::max();
constexpr size_t kMaxLineLength = 100;

toml::table parseOrThrow(const std::string &text, const std::string &origin)
{
    try {
        return toml::parse(text, origin);
    } catch (const toml::parse_error &e) {
        std::ostringstream out;
        out << origin << ':' << e.source().begin.line << ':' << e.source().begin.column << ": "
            << e.description();
        throw Error::input(out.str());
    }
}

// Maps toml++'s line/column positions (columns count code points, a UTF-8 BOM is not
// counted) to byte offsets in the text.
class LineIndex
{
public:
    explicit LineIndex(const std::string &text) : m_text(text)
    {
        const size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
        m_starts.push_back(start);
        for (size_t i = start; i < text.size(); ++i) {
            if (text[i] == '\n')
                m_starts.push_back(i + 1);
        }
    }

    size_t lineCount() const { return m_starts.size(); }

    size_t lineStart(size_t line) const
    {
        return line >= 1 && line <= m_starts.size() ? m_starts[line - 1] : m_text.size();
    }

    std::string_view line(size_t line) const
    {
        const size_t begin = lineStart(line);
        size_t end = m_text.find('\n', begin);
        if (end == std::string::npos)
            end = m_text.size();
        if (end > begin && m_text[end - 1] == '\r')
            --end;
        return std::string_view(m_text).substr(begin, end - begin);
    }

    size_t offset(const toml::source_position &pos) const
    {
        size_t i = lineStart(pos.line);
        for (toml::source_index column = 1; column < pos.column && i < m_text.size(); ++column) {
            ++i;
            while (i < m_text.size() && (static_cast<unsigned char>(m_text[i]) & 0xC0) == 0x80)
                ++i; // continuation byte of the same code point
        }
        return i;
    }

private:
    const std::string &m_text;
    std::vector<size_t> m_starts;
};

std::string_view leadingSpace(std::string_view line)
{
    const size_t n = line.find_first_not_of(" \t");
    return line.substr(0, n == std::string_view::npos ? line.size() : n);
}

bool isCommentLine(std::string_view line)
{
    const size_t n = line.find_first_not_of(" \t");
    return n != std::string_view::npos && line[n] == '#';
}

// A `[table]` or `[[array]]` section, or a table made by dotted keys: not a plain value.
bool isSection(const toml::node &node)
{
    if (const toml::table *t = node.as_table())
        return !t->is_inline();
    if (const toml::array *a = node.as_array()) {
        return !a->empty() && a->is_array_of_tables() && !a->front().as_table()->is_inline();
    }
    return false;
}

struct Layout
{
    bool multiline = false; // one array item per line
    std::string indent = "    ";
    std::string closingIndent;
    std::string eol = "\n";
    size_t column = 0; // where the value starts on its line
};

std::string formatValue(const ConfigValue &value, const Layout &layout)
{
    if (const bool *b = std::get_if<bool>(&value))
        return *b ? "true" : "false";
    if (const long long *i = std::get_if<long long>(&value))
        return std::to_string(*i);
    if (const std::string *s = std::get_if<std::string>(&value))
        return tomltext::quoted(*s);
    const auto &items = std::get<std::vector<std::string>>(value);
    if (items.empty())
        return "[]";
    std::string single = "[";
    for (size_t i = 0; i < items.size(); ++i)
        single += (i ? ", " : "") + tomltext::quoted(items[i]);
    single += ']';
    if (!layout.multiline && layout.column + single.size() <= kMaxLineLength)
        return single;
    std::string out = "[" + layout.eol;
    for (const std::string &item : items)
        out += layout.indent + tomltext::quoted(item) + "," + layout.eol;
    return out + layout.closingIndent + "]";
}

bool holds(const toml::node &node, const ConfigValue &value)
{
    if (const bool *b = std::get_if<bool>(&value))
        return node.is_boolean() && node.as_boolean()->get() == *b;
    if (const long long *i = std::get_if<long long>(&value))
        return node.is_integer() && node.as_integer()->get() == *i;
    if (const std::string *s = std::get_if<std::string>(&value))
        return node.is_string() && node.as_string()->get() == *s;
    const auto &items = std::get<std::vector<std::string>>(value);
    const toml::array *arr = node.as_array();
    if (!arr || arr->size() != items.size())
        return false;
    for (size_t i = 0; i < items.size(); ++i) {
        const toml::node &item = *arr->get(i);
        if (!item.is_string() || item.as_string()->get() != items[i])
            return false;
    }
    return true;
}

std::string where(const std::string &origin, const toml::source_position &pos)
{
    return origin + ':' + std::to_string(pos.line) + ':' + std::to_string(pos.column);
}

struct Splice
{
    size_t begin = 0;
    size_t end = 0;
    std::string text;
};

} // namespace

std::string ConfigEditor::setValues(const std::string &original,
                                    const std::map<std::string, ConfigValue> &values,
                                    const std::string &origin)
{
    const toml::table root = parseOrThrow(original, origin);
    const LineIndex lines(original);
    const std::string eol = original.find("\r\n") != std::string::npos ? "\r\n" : "\n";

    std::vector<Splice> splices;
    std::string appended;
    for (const auto &[key, value] : values) {
        const toml::node *node = root.get(key);
        if (!node) {
            Layout layout;
            layout.eol = eol;
            layout.column = tomltext::keyText(key).size() + 3;
            appended += tomltext::keyText(key) + " = " + formatValue(value, layout) + eol;
            continue;
        }
        if (isSection(*node)) {
            throw Error::input(where(origin, node->source().begin) + ": `" + key +
                               "` is a table here; edit it by hand");
        }
        if (holds(*node, value))
            continue; // keep the bytes as written (quotes, spacing, comments inside)
        const toml::source_region &src = node->source();
        Splice splice{lines.offset(src.begin), lines.offset(src.end), {}};
        Layout layout;
        layout.eol = eol;
        layout.multiline = original.find('\n', splice.begin) < splice.end;
        layout.column = splice.begin - lines.lineStart(src.begin.line);
        layout.closingIndent = std::string(leadingSpace(lines.line(src.begin.line)));
        if (const toml::array *arr = node->as_array(); arr && !arr->empty()) {
            const auto firstLine = arr->front().source().begin.line;
            if (firstLine != src.begin.line)
                layout.indent = std::string(leadingSpace(lines.line(firstLine)));
        }
        splice.text = formatValue(value, layout);
        splices.push_back(std::move(splice));
    }

    if (!appended.empty()) {
        // New keys go after the last top-level value; in a file of sections only, before
        // the first section and the comment block that introduces it.
        size_t firstSection = kNoLine, lastValueLine = 0;
        for (auto &&[key, node] : root) {
            if (isSection(node))
                firstSection = std::min<size_t>(firstSection, node.source().begin.line);
        }
        for (auto &&[key, node] : root) {
            if (!isSection(node) && node.source().begin.line < firstSection)
                lastValueLine = std::max<size_t>(lastValueLine, node.source().end.line);
        }
        size_t at = original.size();
        if (lastValueLine > 0) {
            at = lines.lineStart(lastValueLine + 1);
        } else if (firstSection != kNoLine) {
            size_t line = firstSection;
            while (line > 1 && isCommentLine(lines.line(line - 1)))
                --line;
            at = lines.lineStart(line);
            appended += eol; // a blank line between the new keys and the section
        }
        if (at == original.size() && !original.empty() && original.back() != '\n')
            appended = eol + appended;
        splices.push_back({at, at, appended});
    }

    std::sort(splices.begin(), splices.end(),
              [](const Splice &a, const Splice &b) { return a.begin > b.begin; });
    std::string result = original;
    for (const Splice &s : splices)
        result.replace(s.begin, s.end - s.begin, s.text);

    Config::parse(result, origin); // throws Error::input naming the offending key

    // The splice must say what was asked; anything else is a bug here, not a user error.
    const toml::table check = parseOrThrow(result, origin);
    for (const auto &[key, value] : values) {
        const toml::node *node = check.get(key);
        if (!node || !holds(*node, value))
            throw std::logic_error("ConfigEditor: `" + key + "` was not written as asked");
    }
    return result;
}

std::optional<ConfigValue> ConfigEditor::value(const std::string &text, const std::string &key,
                                               const std::string &origin)
{
    const toml::table root = parseOrThrow(text, origin);
    const toml::node *node = root.get(key);
    if (!node)
        return std::nullopt;
    if (node->is_boolean())
        return ConfigValue(node->as_boolean()->get());
    if (node->is_integer())
        return ConfigValue(static_cast<long long>(node->as_integer()->get()));
    if (node->is_string())
        return ConfigValue(node->as_string()->get());
    if (const toml::array *arr = node->as_array()) {
        std::vector<std::string> items;
        for (const toml::node &item : *arr) {
            if (!item.is_string())
                return std::nullopt;
            items.push_back(item.as_string()->get());
        }
        return ConfigValue(std::move(items));
    }
    return std::nullopt;
}

bool ConfigEditor::save(const std::string &path, const std::string &loaded,
                        const std::map<std::string, ConfigValue> &values)
{
    // Held from the re-read through the rename, as every ledger write (LedgerStore).
    const DirectoryLock lock(QFileInfo(QString::fromStdString(path)).absolutePath().toStdString());
    const FileRead now = readFileIfPresent(path);
    if (now.status == FileRead::Status::Unreadable)
        throw Error::input(cannotBeRead(path, now.reason));
    if (now.bytes != loaded) {
        throw Error::input(path + " changed on disk since it was loaded; nothing was written. Open "
                                  "the settings again to edit the new version.");
    }
    const std::string result = setValues(loaded, values, path);
    if (result == loaded)
        return false;
    std::string error;
    if (!writeFileAtomically(path, result, true, &error))
        throw Error::input("cannot write " + error);
    return true;
}

} // namespace pw::core
