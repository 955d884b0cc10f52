#include "dynamic/SkipWitness.h"

#include "util/Error.h"
#include "util/Files.h"
#include "util/JsonText.h"

#include <nlohmann/json.hpp>

namespace pw::core {

namespace {

using nlohmann::json;

std::string strings(const json &row, const char *key, std::vector<std::string> &out)
{
    const auto it = row.find(key);
    if (it == row.end())
        return {};
    if (!it->is_array())
        return std::string("\"") + key + "\" is not a list";
    for (const json &v : *it) {
        if (!v.is_string())
            return std::string("\"") + key + "\" holds a non-string";
        out.push_back(v.get<std::string>());
    }
    return {};
}

// Empty when `row` is a witness row, else what is wrong.
std::string toRow(const json &row, WitnessRow &out)
{
    if (!row.is_object())
        return "not a JSON object";
    for (const char *key : {"nodeid", "fixture_fp", "ambient_fp"}) {
        const auto it = row.find(key);
        if (it == row.end() || !it->is_string())
            return std::string("\"") + key + "\" missing or not a string";
    }
    out.nodeId = row["nodeid"].get<std::string>();
    out.fixtureFp = row["fixture_fp"].get<std::string>();
    out.ambientFp = row["ambient_fp"].get<std::string>();
    out.hasFiles = row.contains("files");
    for (const auto &[key, list] :
         {std::pair<const char *, std::vector<std::string> *>{"files", &out.files},
          {"fixtures", &out.fixtures},
          {"escapes", &out.escapes}}) {
        if (std::string problem = strings(row, key, *list); !problem.empty())
            return problem;
    }
    if (const auto it = row.find("fixture_fps"); it != row.end()) {
        if (!it->is_object())
            return "\"fixture_fps\" is not an object";
        for (const auto &[name, fp] : it->items()) {
            if (!fp.is_string())
                return "\"fixture_fps\"." + name + " is not a string";
            out.fixtureFps[name] = fp.get<std::string>();
        }
    }
    if (const auto it = row.find("complete"); it != row.end()) {
        if (!it->is_boolean())
            return "\"complete\" is not true or false";
        out.complete = it->get<bool>();
    }
    if (const auto it = row.find("base_outcome"); it != row.end() && !it->is_null()) {
        out.baseOutcome = it->is_string() ? outcomeFromName(it->get<std::string>()) : std::nullopt;
        if (!out.baseOutcome)
            return "\"base_outcome\" is not an outcome name";
    }
    return {};
}

json toJson(const WitnessRow &row)
{
    json j = {{"nodeid", row.nodeId},
              {"fixtures", row.fixtures},
              {"fixture_fps", row.fixtureFps},
              {"fixture_fp", row.fixtureFp},
              {"ambient_fp", row.ambientFp}};
    if (row.hasFiles) {
        j["files"] = row.files;
        j["complete"] = row.complete;
        j["escapes"] = row.escapes;
    }
    if (row.baseOutcome)
        j["base_outcome"] = outcomeName(*row.baseOutcome);
    return j;
}

} // namespace

WitnessRowsFile parseWitnessRows(const std::string &text, const std::string &name)
{
    return parseJsonLines<WitnessRow>(text, name, toRow);
}

WitnessRowsFile readWitnessRows(const std::string &path)
{
    return readJsonLines<WitnessRow>(path, "no witness rows (the run wrote none)", toRow);
}

std::string WitnessLedger::fileName(const std::string &baseCommit, const std::string &envDigest,
                                    const std::string &pluginHash)
{
    return "witness-" + baseCommit + "-" + envDigest + "-" + pluginHash + ".json";
}

std::string WitnessLedger::format() const
{
    json rowsJson = json::array();
    for (const WitnessRow &r : rows)
        rowsJson.push_back(toJson(r));
    const json j = {{"schema", kSchema},    {"base_commit", baseCommit}, {"env_digest", envDigest},
                    {"recorded", recorded}, {"command", command},        {"rows", rowsJson}};
    return j.dump(1) + "\n";
}

WitnessLedger WitnessLedger::parse(const std::string &text, const std::string &origin)
{
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded())
        jsontext::parse(text, origin); // throws "origin:line:column: …"
    if (j.is_discarded() || !j.is_object())
        throw Error::input(origin + ":1:1: not a JSON object (a torn or damaged witness ledger)");
    if (j.value("schema", std::string()) != kSchema)
        throw Error::input(origin + ": \"schema\" is not " + kSchema);
    WitnessLedger ledger;
    for (const auto &[key, field] :
         {std::pair<const char *, std::string *>{"base_commit", &ledger.baseCommit},
          {"env_digest", &ledger.envDigest},
          {"recorded", &ledger.recorded},
          {"command", &ledger.command}}) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_string())
            throw Error::input(origin + ": \"" + key + "\" missing or not a string");
        *field = it->get<std::string>();
    }
    const auto rows = j.find("rows");
    if (rows == j.end() || !rows->is_array())
        throw Error::input(origin + ": \"rows\" missing or not a list");
    for (size_t i = 0; i < rows->size(); ++i) {
        WitnessRow row;
        if (const std::string problem = toRow((*rows)[i], row); !problem.empty())
            throw Error::input(origin + ": rows[" + std::to_string(i) + "]: " + problem);
        ledger.rows.push_back(std::move(row));
    }
    return ledger;
}

void WitnessLedger::write(const std::string &path) const
{
    std::string error;
    if (!writeFileAtomically(path, format(), /*createDirs=*/true, &error))
        throw Error::input(path + ": cannot write the witness ledger: " + error);
}

const WitnessRow *WitnessLedger::find(const std::string &nodeId) const
{
    for (const WitnessRow &r : rows) {
        if (r.nodeId == nodeId)
            return &r;
    }
    return nullptr;
}

} // namespace pw::core
