#include "dynamic/ShardLedger.h"

#include "dynamic/RunsDir.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/JsonText.h"

#include <algorithm>
#include <set>

namespace pw::core {

namespace {

using Json = nlohmann::ordered_json;

// Reads the fields of one shard ledger; a missing or mistyped field is an input error
// naming it ("runs[3].outcome").
class Fields
{
public:
    Fields(const Json &object, const std::string &origin, std::string path = {})
        : m_object(object), m_origin(origin), m_path(std::move(path))
    {
    }

    [[noreturn]] void fail(const std::string &field, const std::string &message) const
    {
        throw Error::input(m_origin + ": " + m_path + field + ": " + message);
    }

    const Json &need(const std::string &field) const
    {
        const auto it = m_object.find(field);
        if (it == m_object.end() || it->is_null())
            fail(field, "missing");
        return *it;
    }

    const Json &object(const std::string &field) const
    {
        const Json &v = need(field);
        if (!v.is_object())
            fail(field, std::string("must be an object, got ") + jsontext::typeName(v));
        return v;
    }

    const Json &array(const std::string &field) const
    {
        const Json &v = need(field);
        if (!v.is_array())
            fail(field, std::string("must be an array, got ") + jsontext::typeName(v));
        return v;
    }

    std::string string(const std::string &field) const
    {
        const Json &v = need(field);
        if (!v.is_string())
            fail(field, std::string("must be a string, got ") + jsontext::typeName(v));
        return v.get<std::string>();
    }

    std::string optionalString(const std::string &field) const
    {
        const auto it = m_object.find(field);
        return it == m_object.end() || it->is_null() ? std::string() : string(field);
    }

    long long integer(const std::string &field, long long minimum = 0) const
    {
        const Json &v = need(field);
        if (!v.is_number_integer())
            fail(field, std::string("must be an integer, got ") + jsontext::typeName(v));
        if (v.is_number_unsigned() && v.get<unsigned long long>() > (1ULL << 62))
            fail(field, "is out of range");
        const long long n = v.get<long long>();
        if (n < minimum)
            fail(field,
                 "must be at least " + std::to_string(minimum) + ", got " + std::to_string(n));
        return n;
    }

    double number(const std::string &field) const
    {
        const Json &v = need(field);
        if (!v.is_number())
            fail(field, std::string("must be a number, got ") + jsontext::typeName(v));
        return v.get<double>();
    }

private:
    const Json &m_object;
    const std::string &m_origin;
    std::string m_path;
};

Outcome outcomeNamed(const std::string &name, const Fields &fields)
{
    if (const std::optional<Outcome> outcome = outcomeFromName(name))
        return *outcome;
    fields.fail("outcome", "\"" + name +
                               "\" is not an outcome (pass, fail, skipped, error, not_collected, "
                               "harness_error)");
}

Json revisionJson(const std::string &spec, const std::string &commit)
{
    Json v = Json::object();
    v["spec"] = spec;
    v["commit"] = commit;
    return v;
}

} // namespace

std::vector<std::string> ShardLedger::envDigests() const
{
    std::set<std::string> digests;
    for (const ShardRun &r : runs) {
        if (!r.run.envDigest.empty())
            digests.insert(r.run.envDigest);
    }
    return {digests.begin(), digests.end()};
}

void ShardLedger::setParameter(const std::string &name, const std::string &value)
{
    parameters.emplace_back(name, Json(value).dump());
}

void ShardLedger::setParameter(const std::string &name, long long value)
{
    parameters.emplace_back(name, Json(value).dump());
}

bool ShardLedger::hasParameter(const std::string &name) const
{
    for (const auto &[key, value] : parameters) {
        if (key == name)
            return true;
    }
    return false;
}

std::string ShardLedger::stringParameter(const std::string &name) const
{
    for (const auto &[key, value] : parameters) {
        if (key != name)
            continue;
        const Json v = Json::parse(value);
        if (!v.is_string())
            throw Error::input(file + ": parameters." + name + ": must be a string, got " +
                               jsontext::typeName(v));
        return v.get<std::string>();
    }
    throw Error::input(file + ": parameters." + name + ": missing");
}

long long ShardLedger::integerParameter(const std::string &name) const
{
    for (const auto &[key, value] : parameters) {
        if (key != name)
            continue;
        const Json v = Json::parse(value);
        if (!v.is_number_integer())
            throw Error::input(file + ": parameters." + name + ": must be an integer, got " +
                               jsontext::typeName(v));
        return v.get<long long>();
    }
    throw Error::input(file + ": parameters." + name + ": missing");
}

std::string ShardLedger::parametersText() const
{
    std::string out;
    for (const auto &[key, value] : parameters)
        out += (out.empty() ? "" : ", ") + key + " " + value;
    return "{" + out + "}";
}

ShardLedger ShardLedger::parse(const std::string &text, const std::string &origin)
{
    const Json root = jsontext::parse(text, origin, 1, true);
    if (!root.is_object())
        throw Error::input(origin + ":1:1: a shard ledger must be a JSON object, got " +
                           jsontext::typeName(root));
    const Fields f(root, origin);
    const std::string schema = f.string("schema");
    if (schema != kSchema)
        f.fail("schema", "\"" + schema + "\" is not " + kSchema);

    ShardLedger l;
    l.file = origin;
    l.kind = f.string("kind");
    for (const auto &item : f.object("parameters").items())
        l.parameters.emplace_back(item.key(), item.value().dump());
    for (const char *arm : {"base", "head"}) {
        const Fields rev(f.object(arm), origin, std::string(arm) + ".");
        (arm[0] == 'b' ? l.baseSpec : l.headSpec) = rev.string("spec");
        (arm[0] == 'b' ? l.baseCommit : l.headCommit) = rev.string("commit");
    }
    const Fields shard(f.object("shard"), origin, "shard.");
    const long long count = shard.integer("count", 1);
    l.shard.count = int(std::min<long long>(count, 1LL << 30));
    const long long index = shard.integer("index", 1);
    if (index > count)
        shard.fail("index", std::to_string(index) + " is past count " + std::to_string(count));
    l.shard.index = int(index);
    // A forged ledger must not make merge loop or allocate without end: no sweep has more
    // units than this (the trial budget is far below it), nor more shards than units.
    constexpr long long kMaxUnits = 100000;
    const long long units = f.integer("units", 1);
    if (units > kMaxUnits)
        f.fail("units", std::to_string(units) + " is more than " + std::to_string(kMaxUnits));
    l.units = int(units);
    if (count > l.units)
        shard.fail("count", std::to_string(count) + " is more than the sweep's " +
                                std::to_string(l.units) + " units");
    const Json &ran = f.array("ran");
    for (size_t i = 0; i < ran.size(); ++i) {
        if (!ran[i].is_number_integer() || ran[i].get<long long>() < 0 ||
            ran[i].get<long long>() >= l.units)
            f.fail("ran[" + std::to_string(i) + "]",
                   "must be a unit number from 0 to " + std::to_string(l.units - 1));
        l.ran.push_back(ran[i].get<int>());
    }
    const Json &runs = f.array("runs");
    for (size_t i = 0; i < runs.size(); ++i) {
        const std::string at = "runs[" + std::to_string(i) + "]";
        if (!runs[i].is_object())
            f.fail(at, std::string("must be an object, got ") + jsontext::typeName(runs[i]));
        const Fields r(runs[i], origin, at + ".");
        ShardRun run;
        run.unit = int(r.integer("unit"));
        if (std::find(l.ran.begin(), l.ran.end(), run.unit) == l.ran.end())
            r.fail("unit", std::to_string(run.unit) + " is not among the units this shard ran");
        run.run.label = r.string("label");
        run.run.seed = uint32_t(r.integer("seed"));
        run.run.index = int(r.integer("index"));
        run.run.outcome = outcomeNamed(r.string("outcome"), r);
        run.run.seconds = r.number("seconds");
        run.run.command = r.optionalString("command");
        run.run.envDigest = r.optionalString("env_digest");
        run.run.seedlessDigest = r.optionalString("env_digest_seedless"); // absent before
        run.run.reason = r.optionalString("reason");
        l.runs.push_back(std::move(run));
    }
    if (root.contains("notes") && !root["notes"].is_null()) {
        for (const auto &item : f.object("notes").items()) {
            if (!item.value().is_string())
                f.fail("notes." + item.key(), "must be a string");
            l.notes[item.key()] = item.value().get<std::string>();
        }
    }
    l.recorded = f.optionalString("recorded");
    return l;
}

ShardLedger ShardLedger::read(const std::string &path)
{
    const std::optional<std::string> text = readWholeFile(path);
    if (!text)
        throw Error::input(path + ": cannot read the shard ledger");
    return parse(*text, path);
}

std::string ShardLedger::format() const
{
    Json out = Json::object();
    out["schema"] = kSchema;
    out["kind"] = kind;
    Json params = Json::object();
    for (const auto &[key, value] : parameters)
        params[key] = Json::parse(value);
    out["parameters"] = params;
    out["base"] = revisionJson(baseSpec, baseCommit);
    out["head"] = revisionJson(headSpec, headCommit);
    out["shard"] = Json{{"index", shard.index}, {"count", shard.count}};
    out["units"] = units;
    out["ran"] = ran;
    out["env_digests"] = envDigests();
    Json noteJson = Json::object();
    for (const auto &[label, note] : notes)
        noteJson[label] = note;
    out["notes"] = noteJson;
    if (!recorded.empty())
        out["recorded"] = recorded;
    Json runJson = Json::array();
    for (const ShardRun &r : runs) {
        Json row = Json::object();
        row["unit"] = r.unit;
        row["label"] = r.run.label;
        row["seed"] = r.run.seed;
        row["index"] = r.run.index;
        row["outcome"] = outcomeName(r.run.outcome);
        row["seconds"] = wholeMillis(r.run.seconds);
        row["command"] = r.run.command;
        row["env_digest"] = r.run.envDigest;
        if (!r.run.seedlessDigest.empty())
            row["env_digest_seedless"] = r.run.seedlessDigest;
        row["reason"] = r.run.reason;
        runJson.push_back(std::move(row));
    }
    out["runs"] = runJson;
    return out.dump(2) + "\n";
}

std::string ShardLedger::write(const std::string &runsDir, const std::string &test,
                               const std::string &what, const std::string &out) const
{
    const std::string text = format();
    if (!out.empty()) {
        std::string error;
        if (!writeFileAtomically(out, text, /*createDirs=*/true, &error))
            throw Error::input(out + ": cannot write the shard ledger: " + error);
        return out;
    }
    const std::string stem = RunsDir::recordStem(recorded.empty() ? "undated" : recorded, test,
                                                 what + "-shard-" + std::to_string(shard.index) +
                                                     "of" + std::to_string(shard.count));
    return RunsDir::writeNew(runsDir, stem, text);
}

ShardSet ShardSet::gather(std::vector<ShardLedger> ledgers)
{
    if (ledgers.empty())
        throw Error::input("merge: no shard ledgers given");
    std::sort(ledgers.begin(), ledgers.end(), [](const ShardLedger &a, const ShardLedger &b) {
        return a.shard.index < b.shard.index;
    });
    const ShardLedger &ref = ledgers.front();
    auto refuse = [&](const ShardLedger &l, const std::string &what, const std::string &mine,
                      const std::string &theirs) {
        throw Error::input(l.file + ": not a shard of the same sweep as " + ref.file + ": " + what +
                           " " + mine + " vs " + theirs);
    };
    for (const ShardLedger &l : ledgers) {
        if (l.kind != ref.kind)
            refuse(l, "kind", l.kind, ref.kind);
        if (l.parametersText() != ref.parametersText())
            refuse(l, "parameters", l.parametersText(), ref.parametersText());
        if (l.baseCommit != ref.baseCommit)
            refuse(l, "base commit", l.baseCommit, ref.baseCommit);
        if (l.headCommit != ref.headCommit)
            refuse(l, "head commit", l.headCommit, ref.headCommit);
        if (l.shard.count != ref.shard.count)
            refuse(l, "shard count n", std::to_string(l.shard.count),
                   std::to_string(ref.shard.count));
        if (l.units != ref.units)
            refuse(l, "unit count", std::to_string(l.units), std::to_string(ref.units));
    }

    ShardSet set;
    set.count = ref.shard.count;
    std::map<int, std::string> unitOwner; // unit → file
    for (size_t i = 0; i < ledgers.size(); ++i) {
        const ShardLedger &l = ledgers[i];
        if (i > 0 && ledgers[i - 1].shard.index == l.shard.index)
            throw Error::input("merge: duplicate shard " + l.shard.name() + ": " +
                               ledgers[i - 1].file + " and " + l.file);
        for (const int unit : l.ran) {
            if (!l.shard.owns(size_t(unit)))
                throw Error::input(l.file + ": ran: unit " + std::to_string(unit) +
                                   " does not belong to shard " + l.shard.name());
            const auto [it, fresh] = unitOwner.emplace(unit, l.file);
            if (!fresh)
                throw Error::input("merge: unit " + std::to_string(unit) + " is in " + it->second +
                                   " and in " + l.file + " (overlapping shards)");
        }
    }
    for (int index = 1; index <= set.count; ++index) {
        const bool given = std::any_of(ledgers.begin(), ledgers.end(), [&](const ShardLedger &l) {
            return l.shard.index == index;
        });
        if (!given)
            set.missing.push_back(index);
    }
    // A shard given must have run all of its units: one that stopped short is no shard.
    for (const ShardLedger &l : ledgers) {
        for (int unit = 0; unit < l.units; ++unit) {
            if (l.shard.owns(size_t(unit)) && !unitOwner.count(unit))
                throw Error::input(l.file + ": ran: unit " + std::to_string(unit) + " of shard " +
                                   l.shard.name() + " is missing");
        }
    }
    set.shards = std::move(ledgers);
    return set;
}

std::string ShardSet::missingText() const
{
    if (missing.empty())
        return {};
    std::string list;
    for (const int index : missing)
        list += (list.empty() ? "" : ", ") + std::to_string(index) + "/" + std::to_string(count);
    return (missing.size() == 1 ? "missing shard " : "missing shards ") + list;
}

std::vector<ShardRun> ShardSet::runs() const
{
    std::vector<ShardRun> all;
    for (const ShardLedger &l : shards)
        all.insert(all.end(), l.runs.begin(), l.runs.end());
    std::stable_sort(all.begin(), all.end(), [](const ShardRun &a, const ShardRun &b) {
        return a.unit != b.unit ? a.unit < b.unit : a.run.index < b.run.index;
    });
    return all;
}

} // namespace pw::core
