#include "ledger/SeedJournal.h"

#include "ledger/LedgerDate.h"
#include "util/Error.h"
#include "util/JsonText.h"

#include <algorithm>

namespace pw::core {
namespace {

using Json = nlohmann::ordered_json;

struct Line
{
    size_t begin = 0;
    size_t end = 0; // without '\n' (and '\r')
    int number = 0;
};

std::vector<Line> splitLines(const std::string &text)
{
    std::vector<Line> lines;
    size_t begin = 0;
    int number = 1;
    while (begin < text.size()) {
        size_t nl = text.find('\n', begin);
        const size_t next = nl == std::string::npos ? text.size() : nl + 1;
        size_t end = nl == std::string::npos ? text.size() : nl;
        if (end > begin && text[end - 1] == '\r')
            --end;
        lines.push_back({begin, end, number++});
        begin = next;
    }
    return lines;
}

bool blank(const std::string &text, const Line &l)
{
    for (size_t i = l.begin; i < l.end; ++i) {
        if (text[i] != ' ' && text[i] != '\t')
            return false;
    }
    return true;
}

class RowReader
{
public:
    RowReader(const Json &object, const std::string &file, JournalRow *row)
        : m_object(object), m_file(file), m_row(row)
    {
    }

    const Json *get(const std::string &key)
    {
        const auto it = m_object.find(key);
        if (it == m_object.end())
            return nullptr;
        m_row->info.fieldLines[key] = m_row->info.line;
        return &*it;
    }

    void wrongType(const std::string &key, const std::string &expected, const Json &value)
    {
        LedgerProblem p;
        p.file = m_file;
        p.line = m_row->info.line;
        p.entry = m_row->key();
        p.field = key;
        p.rule = "wrong-type";
        p.message = "must be " + expected + ", got " + jsontext::typeName(value);
        m_row->info.problems.push_back(std::move(p));
    }

    std::optional<std::string> string(const std::string &key)
    {
        const Json *v = get(key);
        if (!v)
            return std::nullopt;
        if (!v->is_string()) {
            wrongType(key, "a string", *v);
            return std::nullopt;
        }
        return v->get<std::string>();
    }

    std::optional<QDate> date(const std::string &key)
    {
        const Json *v = get(key);
        if (!v)
            return std::nullopt;
        if (v->is_string()) {
            if (std::optional<QDate> d = parseLedgerDate(v->get<std::string>()))
                return d;
        }
        wrongType(key, "a date string (YYYY-MM-DD)", *v);
        return std::nullopt;
    }

private:
    const Json &m_object;
    const std::string &m_file;
    JournalRow *m_row;
};

JournalRow readRow(const Json &object, const std::string &file, int line, int index)
{
    JournalRow row;
    row.info.index = index;
    row.info.line = line;
    RowReader r(object, file, &row);
    if (const Json *id = r.get("id")) {
        if (id->is_string())
            row.id = id->get<std::string>();
        else if (id->is_number_integer())
            row.id = id->dump();
        else
            r.wrongType("id", "a string or an integer", *id);
    }
    if (const Json *seed = r.get("seed")) {
        row.hasSeed = true;
        if (seed->is_number_integer())
            row.seed = seed->get<long long>();
        else if (!seed->is_null())
            r.wrongType("seed", "an integer or null", *seed);
    }
    row.env = r.string("env");
    row.status = r.string("status");
    row.opened = r.date("opened");
    row.closedBy = r.string("closed_by");
    row.closedOn = r.date("closed_on");
    if (const Json *replays = r.get("replays")) {
        if (!replays->is_array()) {
            r.wrongType("replays", "an array of {\"outcome\", \"env\"} objects", *replays);
        } else {
            std::vector<JournalReplay> list;
            bool ok = true;
            for (const Json &item : *replays) {
                if (!item.is_object()) {
                    r.wrongType("replays", "an array of {\"outcome\", \"env\"} objects only", item);
                    ok = false;
                    break;
                }
                JournalReplay replay;
                replay.line = line;
                const auto outcome = item.find("outcome");
                const auto env = item.find("env");
                if (outcome != item.end() && outcome->is_string())
                    replay.outcome = outcome->get<std::string>();
                if (env != item.end() && env->is_string())
                    replay.env = env->get<std::string>();
                list.push_back(std::move(replay));
            }
            if (ok)
                row.replays = std::move(list);
        }
    }
    for (auto it = object.begin(); it != object.end(); ++it) {
        static const char *known[] = {"id",     "seed",      "env",       "status",
                                      "opened", "closed_by", "closed_on", "replays"};
        if (std::find(std::begin(known), std::end(known), it.key()) == std::end(known))
            row.info.unknownFields.push_back(it.key());
    }
    return row;
}

} // namespace

std::string JournalRow::key() const
{
    return id && !id->empty() ? *id : "row " + std::to_string(info.index + 1);
}

SeedJournal SeedJournal::parse(const std::string &text, const std::string &origin)
{
    SeedJournal journal;
    journal.file = origin;
    int index = 0;
    for (const Line &l : splitLines(text)) {
        if (blank(text, l))
            continue;
        const std::string_view view(text.data() + l.begin, l.end - l.begin);
        const Json value = jsontext::parse(view, origin, l.number);
        if (!value.is_object())
            throw Error::input(origin + ':' + std::to_string(l.number) +
                               ":1: a journal row must be a JSON object, got " +
                               jsontext::typeName(value));
        journal.rows.push_back(readRow(value, origin, l.number, index++));
    }
    return journal;
}

const JournalRow *SeedJournal::find(const std::string &id) const
{
    for (const JournalRow &row : rows) {
        if (row.id == id)
            return &row;
    }
    return nullptr;
}

std::string SeedJournal::closeRow(const std::string &text, const std::string &origin,
                                  const std::string &id, const std::string &by, const QDate &on)
{
    for (const Line &l : splitLines(text)) {
        if (blank(text, l))
            continue;
        const std::string_view view(text.data() + l.begin, l.end - l.begin);
        Json value = jsontext::parse(view, origin, l.number);
        if (!value.is_object())
            continue;
        const auto it = value.find("id");
        if (it == value.end() ||
            (it->is_string() ? it->get<std::string>() != id : it->dump() != id))
            continue;
        const auto status = value.find("status");
        if (status == value.end() || !status->is_string() || status->get<std::string>() != "open")
            throw Error::input(origin + ':' + std::to_string(l.number) + ": journal row " + id +
                               " is not open");
        value["status"] = "closed";
        value["closed_by"] = by;
        value["closed_on"] = ledgerDateText(on);
        std::string out = text;
        out.replace(l.begin, l.end - l.begin, jsontext::dumpLine(value));
        return out;
    }
    throw Error::input(origin + ": no journal row " + id);
}

std::string SeedJournal::formatRow(const JournalRow &row)
{
    Json value = Json::object();
    if (row.id)
        value["id"] = *row.id;
    value["seed"] = row.seed ? Json(*row.seed) : Json(nullptr);
    if (row.env)
        value["env"] = *row.env;
    if (row.status)
        value["status"] = *row.status;
    if (row.opened)
        value["opened"] = ledgerDateText(*row.opened);
    if (row.closedBy)
        value["closed_by"] = *row.closedBy;
    if (row.closedOn)
        value["closed_on"] = ledgerDateText(*row.closedOn);
    if (row.replays) {
        Json list = Json::array();
        for (const JournalReplay &r : *row.replays) {
            Json item = Json::object();
            if (r.outcome)
                item["outcome"] = *r.outcome;
            if (r.env)
                item["env"] = *r.env;
            list.push_back(std::move(item));
        }
        value["replays"] = std::move(list);
    }
    return jsontext::dumpLine(value);
}

std::string SeedJournal::append(const std::string &text, const JournalRow &row)
{
    std::string out = text;
    if (!out.empty() && out.back() != '\n')
        out += '\n';
    return out + formatRow(row) + "\n";
}

} // namespace pw::core
