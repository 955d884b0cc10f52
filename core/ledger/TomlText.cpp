#include "ledger/TomlText.h"

#include "ledger/LedgerDate.h"
#include "util/Error.h"

#include <algorithm>
#include <sstream>

namespace pw::core::tomltext {

std::string where(const std::string &origin, const toml::source_position &pos)
{
    return origin + ':' + std::to_string(pos.line) + ':' + std::to_string(pos.column);
}

toml::table parse(std::string_view text, const std::string &origin)
{
    try {
        return toml::parse(text, std::string_view(origin));
    } catch (const toml::parse_error &e) {
        throw Error::input(where(origin, e.source().begin) + ": " + std::string(e.description()));
    }
}

std::string quoted(const std::string &s)
{
    std::ostringstream out;
    out << toml::toml_formatter{toml::value<std::string>(s),
                                toml::format_flags::allow_unicode_strings};
    return out.str();
}

std::string keyText(const std::string &key)
{
    const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
    });
    return bare ? key : quoted(key);
}

std::string dateText(const QDate &d)
{
    return ledgerDateText(d);
}

std::string integersText(const std::vector<long long> &values)
{
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + std::to_string(values[i]);
    return out + "]";
}

std::string stringsText(const std::vector<std::string> &values)
{
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + quoted(values[i]);
    return out + "]";
}

const char *typeName(const toml::node &node)
{
    switch (node.type()) {
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a number";
    case toml::node_type::boolean:
        return "a boolean";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::table:
        return "a table";
    case toml::node_type::date:
        return "a date";
    default:
        return "a time or date-time";
    }
}

std::string valueText(const toml::node &node)
{
    std::ostringstream out;
    node.visit([&out](const auto &n) {
        out << toml::toml_formatter{n, toml::format_flags::allow_unicode_strings};
    });
    return out.str();
}

LineIndex::LineIndex(const std::string &text) : m_text(text)
{
    const size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    m_starts.push_back(start);
    for (size_t i = start; i < text.size(); ++i) {
        if (text[i] == '\n')
            m_starts.push_back(i + 1);
    }
    if (text.find("\r\n") != std::string::npos)
        m_eol = "\r\n";
}

size_t LineIndex::lineStart(size_t line) const
{
    return line >= 1 && line <= m_starts.size() ? m_starts[line - 1] : m_text.size();
}

size_t LineIndex::offset(const toml::source_position &pos) const
{
    size_t i = lineStart(pos.line);
    for (toml::source_index column = 1; column < pos.column && i < m_text.size(); ++column) {
        ++i;
        while (i < m_text.size() && (static_cast<unsigned char>(m_text[i]) & 0xC0) == 0x80)
            ++i; // continuation byte of the same code point
    }
    return i;
}

namespace {

// A `[table]` header or dotted-key table: a section, not a plain value of its parent.
bool isSection(const toml::node &node)
{
    if (const toml::table *t = node.as_table())
        return !t->is_inline();
    if (const toml::array *a = node.as_array())
        return !a->empty() && a->is_array_of_tables() && !a->front().as_table()->is_inline();
    return false;
}

struct Splice
{
    size_t begin = 0;
    size_t end = 0;
    std::string text;
};

} // namespace

std::string setKeys(const std::string &text, const toml::table &table,
                    const std::vector<KeyEdit> &edits, const std::string &origin)
{
    const LineIndex lines(text);
    const std::string eol = lines.eol();
    std::vector<Splice> splices;
    std::string appended;
    for (const KeyEdit &edit : edits) {
        const toml::node *node = table.get(edit.key);
        if (!node) {
            appended += keyText(edit.key) + " = " + edit.valueText + eol;
            continue;
        }
        if (isSection(*node))
            throw Error::input(where(origin, node->source().begin) + ": `" + edit.key +
                               "` is a table here; edit it by hand");
        splices.push_back(
            {lines.offset(node->source().begin), lines.offset(node->source().end), edit.valueText});
    }
    if (!appended.empty()) {
        // After the table's last plain key (so before any `[x.sub]` section of it); for an
        // empty `[[x]]` element, on the line after its header.
        size_t lastLine = table.source().begin.line;
        for (auto &&[key, node] : table) {
            if (!isSection(node))
                lastLine = std::max<size_t>(lastLine, node.source().end.line);
        }
        size_t at = lines.lineStart(lastLine + 1);
        if (at == text.size() && !text.empty() && text.back() != '\n')
            appended = eol + appended;
        splices.push_back({at, at, appended});
    }
    std::sort(splices.begin(), splices.end(),
              [](const Splice &a, const Splice &b) { return a.begin > b.begin; });
    std::string result = text;
    for (const Splice &s : splices)
        result.replace(s.begin, s.end - s.begin, s.text);
    return result;
}

std::string appendBlock(const std::string &text, const std::string &block)
{
    const std::string eol = text.find("\r\n") != std::string::npos ? "\r\n" : "\n";
    std::string out = text;
    if (!out.empty()) {
        if (out.back() != '\n')
            out += eol;
        if (!out.ends_with(eol + eol))
            out += eol; // one blank line between entries
    }
    std::string b = block;
    if (eol == "\r\n") {
        std::string converted;
        for (char c : b) {
            if (c == '\n')
                converted += '\r';
            converted += c;
        }
        b = converted;
    }
    return out + b;
}

FieldReader::FieldReader(const toml::table &table, std::string file, LedgerEntryInfo *info)
    : m_table(table), m_file(std::move(file)), m_info(info)
{
}

FieldReader FieldReader::nested(const toml::table &table, const std::string &key) const
{
    FieldReader r(table, m_file, m_info);
    r.m_entry = m_entry;
    r.m_prefix = m_prefix + key + ".";
    return r;
}

const toml::node *FieldReader::node(const std::string &key)
{
    const toml::node *n = m_table.get(key);
    if (n)
        m_info->fieldLines[m_prefix + key] = int(n->source().begin.line);
    return n;
}

void FieldReader::wrongType(const toml::node &n, const std::string &key,
                            const std::string &expected)
{
    LedgerProblem p;
    p.file = m_file;
    p.line = int(n.source().begin.line);
    p.column = int(n.source().begin.column);
    p.entry = m_entry;
    p.field = m_prefix + key;
    p.rule = "wrong-type";
    p.message =
        "must be " + expected + ", got " + typeName(n) + (&n == m_table.get(key) ? "" : " in it");
    m_info->problems.push_back(std::move(p));
}

std::optional<std::string> FieldReader::string(const std::string &key)
{
    const toml::node *n = node(key);
    if (!n)
        return std::nullopt;
    if (!n->is_string()) {
        wrongType(*n, key, "a string");
        return std::nullopt;
    }
    return n->as_string()->get();
}

std::optional<long long> FieldReader::integer(const std::string &key)
{
    const toml::node *n = node(key);
    if (!n)
        return std::nullopt;
    if (!n->is_integer()) {
        wrongType(*n, key, "an integer");
        return std::nullopt;
    }
    return n->as_integer()->get();
}

std::optional<QDate> FieldReader::date(const std::string &key)
{
    const toml::node *n = node(key);
    if (!n)
        return std::nullopt;
    if (const toml::value<toml::date> *d = n->as_date()) {
        const toml::date v = d->get();
        const QDate out(int(v.year), int(v.month), int(v.day));
        if (out.isValid())
            return out;
    } else if (n->is_string()) {
        if (std::optional<QDate> out = parseLedgerDate(n->as_string()->get()))
            return out;
        LedgerProblem p;
        p.file = m_file;
        p.line = int(n->source().begin.line);
        p.column = int(n->source().begin.column);
        p.entry = m_entry;
        p.field = m_prefix + key;
        p.rule = "wrong-type";
        p.message = "must be a date (YYYY-MM-DD), got \"" + n->as_string()->get() + "\"";
        m_info->problems.push_back(std::move(p));
        return std::nullopt;
    }
    wrongType(*n, key, "a date (YYYY-MM-DD)");
    return std::nullopt;
}

std::optional<std::vector<std::string>> FieldReader::strings(const std::string &key)
{
    const toml::node *n = node(key);
    if (!n)
        return std::nullopt;
    const toml::array *arr = n->as_array();
    if (!arr) {
        wrongType(*n, key, "an array of strings");
        return std::nullopt;
    }
    std::vector<std::string> out;
    for (const toml::node &item : *arr) {
        if (!item.is_string()) {
            wrongType(item, key, "an array of strings only");
            return std::nullopt;
        }
        out.push_back(item.as_string()->get());
    }
    return out;
}

std::optional<std::vector<long long>> FieldReader::integers(const std::string &key)
{
    const toml::node *n = node(key);
    if (!n)
        return std::nullopt;
    const toml::array *arr = n->as_array();
    if (!arr) {
        wrongType(*n, key, "an array of integers");
        return std::nullopt;
    }
    std::vector<long long> out;
    for (const toml::node &item : *arr) {
        if (!item.is_integer()) {
            wrongType(item, key, "an array of integers only");
            return std::nullopt;
        }
        out.push_back(item.as_integer()->get());
    }
    return out;
}

const toml::table *FieldReader::table(const std::string &key)
{
    const toml::node *n = node(key);
    if (!n)
        return nullptr;
    if (!n->is_table()) {
        wrongType(*n, key, "a table");
        return nullptr;
    }
    return n->as_table();
}

void FieldReader::finish(const std::vector<std::string> &known)
{
    for (auto &&[key, value] : m_table) {
        const std::string name(key.str());
        if (std::find(known.begin(), known.end(), name) == known.end())
            m_info->unknownFields.push_back(m_prefix + name);
    }
}

std::vector<const toml::table *> arrayOfTables(const toml::table &root, const std::string &name,
                                               const std::string &origin)
{
    std::vector<const toml::table *> out;
    const toml::node *n = root.get(name);
    if (!n)
        return out;
    const toml::array *arr = n->as_array();
    if (!arr)
        throw Error::input(where(origin, n->source().begin) + ": `" + name +
                           "` must be an array of tables ([[" + name + "]]), got " + typeName(*n));
    for (const toml::node &item : *arr) {
        if (!item.is_table())
            throw Error::input(where(origin, item.source().begin) + ": every `" + name +
                               "` entry must be a table, got " + typeName(item));
        out.push_back(item.as_table());
    }
    return out;
}

} // namespace pw::core::tomltext
