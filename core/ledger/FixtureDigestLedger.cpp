#include "ledger/FixtureDigestLedger.h"

#include "util/Error.h"
#include "util/JsonText.h"

#include <algorithm>

namespace pw::core {
namespace {

using Json = nlohmann::ordered_json;

// The line a key starts on: JSON has no positions in nlohmann's tree, so look for the
// quoted key after the previous one (keys are unique, checked while parsing).
int lineOfKey(const std::string &text, const std::string &key, size_t *from)
{
    const std::string needle = nlohmann::json(key).dump();
    const size_t at = text.find(needle, *from);
    if (at == std::string::npos)
        return 0;
    *from = at + needle.size();
    return 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
}

Json parseObject(const std::string &text, const std::string &origin)
{
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        return Json::object();
    Json root = jsontext::parse(text, origin, 1, true);
    if (!root.is_object())
        throw Error::input(origin +
                           ":1:1: fixture_digest.json must be an object of path → sha256, got " +
                           jsontext::typeName(root));
    return root;
}

} // namespace

FixtureDigestLedger FixtureDigestLedger::parse(const std::string &text, const std::string &origin)
{
    const Json root = parseObject(text, origin);
    FixtureDigestLedger ledger;
    ledger.file = origin;
    size_t from = 0;
    int index = 0;
    for (auto it = root.begin(); it != root.end(); ++it) {
        FixtureDigestEntry e;
        e.path = it.key();
        e.info.index = index++;
        e.info.line = lineOfKey(text, it.key(), &from);
        auto wrong = [&](const std::string &field, const std::string &expected, const Json &v) {
            LedgerProblem p;
            p.file = origin;
            p.line = e.info.line;
            p.entry = e.path;
            p.field = field;
            p.rule = "wrong-type";
            p.message = "must be " + expected + ", got " + jsontext::typeName(v);
            e.info.problems.push_back(std::move(p));
        };
        const Json &v = it.value();
        if (v.is_string()) {
            e.sha256 = v.get<std::string>();
        } else if (v.is_object()) {
            for (auto field = v.begin(); field != v.end(); ++field) {
                if (field.key() == "sha256") {
                    if (field->is_string())
                        e.sha256 = field->get<std::string>();
                    else
                        wrong("sha256", "a string", *field);
                } else if (field.key() == "note") {
                    if (field->is_string())
                        e.note = field->get<std::string>();
                    else
                        wrong("note", "a string", *field);
                } else {
                    e.info.unknownFields.push_back(field.key());
                }
            }
        } else {
            wrong("sha256", "a sha256 string or an object with \"sha256\"", v);
        }
        ledger.entries.push_back(std::move(e));
    }
    return ledger;
}

const FixtureDigestEntry *FixtureDigestLedger::find(const std::string &path) const
{
    for (const FixtureDigestEntry &e : entries) {
        if (e.path == path)
            return &e;
    }
    return nullptr;
}

std::string FixtureDigestLedger::set(const std::string &text, const std::string &origin,
                                     const std::string &path, const std::string &sha256,
                                     const std::optional<std::string> &note)
{
    const Json root = parseObject(text, origin);
    nlohmann::json sorted = nlohmann::json::object(); // std::map: sorted by path
    for (auto it = root.begin(); it != root.end(); ++it)
        sorted[it.key()] = nlohmann::json::parse(it.value().dump());
    nlohmann::json &slot = sorted[path];
    if (note) {
        nlohmann::json object = slot.is_object() ? slot : nlohmann::json::object();
        object["sha256"] = sha256;
        object["note"] = *note;
        slot = std::move(object);
    } else if (slot.is_object()) {
        slot["sha256"] = sha256;
    } else {
        slot = sha256;
    }
    return sorted.dump(2) + "\n";
}

std::string FixtureDigestLedger::format(const std::map<std::string, std::string> &digests)
{
    nlohmann::json sorted = nlohmann::json::object();
    for (const auto &[path, sha] : digests)
        sorted[path] = sha;
    return sorted.dump(2) + "\n";
}

} // namespace pw::core
