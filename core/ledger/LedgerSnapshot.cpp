#include "ledger/LedgerSnapshot.h"

#include "ledger/FixtureDigestLedger.h"
#include "ledger/LedgerDate.h"
#include "ledger/QuarantineLedger.h"
#include "ledger/SeedJournal.h"
#include "ledger/TomlText.h"
#include "ledger/WaiverLedger.h"
#include "util/JsonText.h"

#include <algorithm>
#include <set>

namespace pw::core {
namespace {

void addEntry(LedgerSnapshot &snap, std::set<std::string> &seen, SnapshotEntry entry)
{
    if (seen.insert(entry.id).second)
        snap.entries.push_back(std::move(entry));
}

// A value's text as written (cheap: no re-formatting); a non-inline sub-table has no span
// of its own, so it is formatted.
std::string sourceText(const std::string &text, const tomltext::LineIndex &lines,
                       const toml::node &v)
{
    const toml::table *t = v.as_table();
    if ((t && !t->is_inline()) || (v.is_array() && v.as_array()->is_array_of_tables()))
        return tomltext::valueText(v);
    const size_t begin = lines.offset(v.source().begin);
    const size_t end = lines.offset(v.source().end);
    return end > begin ? text.substr(begin, end - begin) : tomltext::valueText(v);
}

void tomlEntries(LedgerSnapshot &snap, const std::string &text, const toml::table &root,
                 const std::string &table, const std::string &key, const std::string &origin)
{
    const tomltext::LineIndex lines(text);
    std::set<std::string> seen;
    int index = 0;
    for (const toml::table *t : tomltext::arrayOfTables(root, table, origin)) {
        SnapshotEntry e;
        e.line = int(t->source().begin.line);
        ++index;
        for (auto &&[k, v] : *t)
            e.fields[std::string(k.str())] =
                t->is_inline() ? tomltext::valueText(v) : sourceText(text, lines, v);
        const toml::node *id = t->get(key);
        e.id = id && id->is_string() ? id->as_string()->get() : "entry " + std::to_string(index);
        addEntry(snap, seen, std::move(e));
    }
}

std::string shortened(const std::string &s)
{
    constexpr size_t kMax = 60;
    std::string one = s;
    std::replace(one.begin(), one.end(), '\n', ' ');
    std::replace(one.begin(), one.end(), '\r', ' ');
    return one.size() <= kMax ? one : one.substr(0, kMax - 3) + "...";
}

std::optional<QDate> dateField(const SnapshotEntry *e, const std::string &key)
{
    if (!e)
        return std::nullopt;
    const auto it = e->fields.find(key);
    if (it == e->fields.end())
        return std::nullopt;
    std::string text = it->second;
    if (text.size() >= 2 && text.front() == '"')
        text = text.substr(1, text.size() - 2);
    return parseLedgerDate(text);
}

} // namespace

const SnapshotEntry *LedgerSnapshot::find(const std::string &id) const
{
    for (const SnapshotEntry &e : entries) {
        if (e.id == id)
            return &e;
    }
    return nullptr;
}

LedgerSnapshot LedgerSnapshot::parse(const std::string &fileName, const std::string &text,
                                     const std::string &origin)
{
    LedgerSnapshot snap;
    snap.file = origin;
    if (fileName == QuarantineLedger::kFileName || fileName == WaiverLedger::kFileName) {
        const toml::table root = tomltext::parse(text, origin);
        if (fileName == QuarantineLedger::kFileName)
            tomlEntries(snap, text, root, QuarantineLedger::kTable, "test", origin);
        else
            tomlEntries(snap, text, root, WaiverLedger::kTable, "node", origin);
        return snap;
    }
    if (fileName == SeedJournal::kFileName) {
        const SeedJournal journal = SeedJournal::parse(text, origin); // validates each line
        std::set<std::string> seen;
        size_t begin = 0;
        int number = 1, row = 0;
        while (begin < text.size()) {
            const size_t nl = text.find('\n', begin);
            const size_t end = nl == std::string::npos ? text.size() : nl;
            const std::string line = text.substr(begin, end - begin);
            if (line.find_first_not_of(" \t\r") != std::string::npos) {
                const nlohmann::ordered_json value = jsontext::parse(line, origin, number);
                SnapshotEntry e;
                e.line = number;
                for (auto it = value.begin(); it != value.end(); ++it)
                    e.fields[it.key()] = it.value().dump();
                e.id = journal.rows[size_t(row++)].key();
                addEntry(snap, seen, std::move(e));
            }
            begin = end + 1;
            ++number;
        }
        return snap;
    }
    if (fileName == FixtureDigestLedger::kFileName) {
        const FixtureDigestLedger ledger = FixtureDigestLedger::parse(text, origin);
        for (const FixtureDigestEntry &d : ledger.entries) {
            SnapshotEntry e;
            e.id = d.path;
            e.line = d.info.line;
            if (d.sha256)
                e.fields["sha256"] = *d.sha256;
            if (d.note)
                e.fields["note"] = *d.note;
            snap.entries.push_back(std::move(e));
        }
        return snap;
    }
    SnapshotEntry whole;
    whole.id = fileName;
    whole.line = 1;
    if (fileName.ends_with(".toml")) {
        const toml::table root = tomltext::parse(text, origin);
        for (auto &&[k, v] : root)
            whole.fields[std::string(k.str())] = tomltext::valueText(v);
    } else {
        whole.fields["content"] = text;
    }
    snap.entries.push_back(std::move(whole));
    return snap;
}

const char *entryChangeName(EntryChange::Kind kind)
{
    switch (kind) {
    case EntryChange::Kind::Added:
        return "added";
    case EntryChange::Kind::Removed:
        return "removed";
    case EntryChange::Kind::Edited:
        return "edited";
    case EntryChange::Kind::Renewed:
        return "renewed";
    }
    return "edited";
}

std::vector<EntryChange> compareSnapshots(const LedgerSnapshot &before, const LedgerSnapshot &after)
{
    std::vector<EntryChange> out;
    for (const SnapshotEntry &now : after.entries) {
        const SnapshotEntry *old = before.find(now.id);
        if (!old) {
            out.push_back({EntryChange::Kind::Added, now.id, now.line, {}, {}});
            continue;
        }
        if (old->fields == now.fields)
            continue;
        EntryChange change{EntryChange::Kind::Edited, now.id, now.line, {}, {}};
        std::set<std::string> keys;
        for (const auto &[k, v] : old->fields)
            keys.insert(k);
        for (const auto &[k, v] : now.fields)
            keys.insert(k);
        for (const std::string &k : keys) {
            const auto a = old->fields.find(k);
            const auto b = now.fields.find(k);
            const std::string from = a == old->fields.end() ? "(none)" : a->second;
            const std::string to = b == now.fields.end() ? "(none)" : b->second;
            if (from == to)
                continue;
            change.fields.push_back(k);
            change.detail += (change.detail.empty() ? "" : "; ") + k + " " + shortened(from) +
                             " -> " + shortened(to);
        }
        const std::optional<QDate> oldExpiry = dateField(old, "expires");
        const std::optional<QDate> newExpiry = dateField(&now, "expires");
        const bool later = oldExpiry && newExpiry && *newExpiry > *oldExpiry;
        const bool newRenewal = dateField(&now, "renewed") != dateField(old, "renewed") &&
                                dateField(&now, "renewed").has_value();
        if (later || newRenewal)
            change.kind = EntryChange::Kind::Renewed;
        out.push_back(std::move(change));
    }
    for (const SnapshotEntry &old : before.entries) {
        if (!after.find(old.id))
            out.push_back({EntryChange::Kind::Removed, old.id, old.line, {}, {}});
    }
    return out;
}

} // namespace pw::core
