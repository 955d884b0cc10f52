#pragma once

// Private to core/ledger: TOML reading and in-place editing shared by the TOML ledgers.
// toml++ parses; these helpers only read its values (collecting type problems per entry)
// and splice new text at the spans toml++ reports, so comments, key order and entries
// nobody touched survive byte for byte.

#include "ledger/LedgerProblem.h"

#include <QDate>
#include <optional>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

namespace pw::core::tomltext {

// Parses `text`; a syntax error (truncated file, invalid UTF-8, duplicate key) is
// Error::input "origin:line:column: description".
toml::table parse(std::string_view text, const std::string &origin);

std::string quoted(const std::string &s);    // a TOML basic string, escaped by toml++
std::string keyText(const std::string &key); // bare when it can be, else quoted
std::string dateText(const QDate &d);        // 2024-05-01 (a TOML local date)
std::string integersText(const std::vector<long long> &values);
std::string stringsText(const std::vector<std::string> &values);
const char *typeName(const toml::node &node); // "a string", "an integer", ...
// A value as TOML text (for comparing versions of an entry field by field).
std::string valueText(const toml::node &node);

// toml++'s line/column positions (columns count code points) as byte offsets.
class LineIndex
{
public:
    explicit LineIndex(const std::string &text);
    size_t lineStart(size_t line) const; // text size past the last line
    size_t offset(const toml::source_position &pos) const;
    std::string eol() const { return m_eol; }

private:
    const std::string &m_text;
    std::vector<size_t> m_starts;
    std::string m_eol = "\n";
};

struct KeyEdit
{
    std::string key;
    std::string valueText; // already TOML ("2024-05-01", "\"alice\"", "[1, 2]")
};

// `text` with the keys of `table` (a `[[array]]` element or `[section]` parsed from this
// very text) set: a present key has only its value replaced; an absent key gets a
// `key = value` line after the table's last plain key. Throws Error::input naming the
// key when it is a sub-table there (edit those by hand).
std::string setKeys(const std::string &text, const toml::table &table,
                    const std::vector<KeyEdit> &edits, const std::string &origin);

// `text` with `block` appended as a new section, separated by one blank line.
std::string appendBlock(const std::string &text, const std::string &block);

// Typed reading of one entry's fields. A missing field reads as nullopt; a field of the
// wrong type reads as nullopt and adds a problem naming the entry and the field.
class FieldReader
{
public:
    FieldReader(const toml::table &table, std::string file, LedgerEntryInfo *info);

    void setEntry(const std::string &id) { m_entry = id; }
    std::optional<std::string> string(const std::string &key);
    std::optional<long long> integer(const std::string &key);
    std::optional<QDate> date(const std::string &key);
    std::optional<std::vector<std::string>> strings(const std::string &key);
    std::optional<std::vector<long long>> integers(const std::string &key);
    const toml::table *table(const std::string &key);
    // Records every key not in `known` as an unknown field (kept in the file).
    void finish(const std::vector<std::string> &known);

private:
    const toml::node *node(const std::string &key);
    void wrongType(const toml::node &node, const std::string &key, const std::string &expected);

    const toml::table &m_table;
    std::string m_file;
    std::string m_entry;
    LedgerEntryInfo *m_info;
    std::string m_prefix; // "evidence." for a nested table

public:
    // A reader for a nested table whose problems go to the same entry, keys prefixed.
    FieldReader nested(const toml::table &table, const std::string &key) const;
};

// The elements of the top-level array of tables `name` (`[[name]]`); an empty vector when
// absent. Throws Error::input (with position) when `name` is something else.
std::vector<const toml::table *> arrayOfTables(const toml::table &root, const std::string &name,
                                               const std::string &origin);

std::string where(const std::string &origin, const toml::source_position &pos);

} // namespace pw::core::tomltext
