#include "ledger/RunEvidence.h"

#include "ledger/JsonText.h"
#include "ledger/LedgerDate.h"
#include "ledger/QuarantineLedger.h"
#include "util/Error.h"
#include "util/Files.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <system_error>

namespace pw::core {
namespace {

using Json = nlohmann::ordered_json;

// Reads the fields of one record; a field of the wrong type is an input error naming it.
class FieldReader
{
public:
    FieldReader(const Json &object, const std::string &origin) : m_object(object), m_origin(origin)
    {
    }

    [[noreturn]] void fail(const std::string &field, const std::string &message) const
    {
        throw Error::input(m_origin + ": " + field + ": " + message);
    }

    // The value, or nullptr when the field is absent or null (null means "not recorded").
    const Json *get(const std::string &field) const
    {
        const auto it = m_object.find(field);
        return it == m_object.end() || it->is_null() ? nullptr : &*it;
    }

    void wrongType(const std::string &field, const std::string &expected, const Json &v) const
    {
        fail(field, "must be " + expected + ", got " + jsontext::typeName(v));
    }

    std::optional<std::string> string(const std::string &field) const
    {
        const Json *v = get(field);
        if (!v)
            return std::nullopt;
        if (!v->is_string())
            wrongType(field, "a string", *v);
        return v->get<std::string>();
    }

    std::optional<long long> integer(const std::string &field, bool nonNegative) const
    {
        const Json *v = get(field);
        if (!v)
            return std::nullopt;
        if (!v->is_number_integer())
            wrongType(field, nonNegative ? "a non-negative integer" : "an integer", *v);
        if (v->is_number_unsigned() && v->get<unsigned long long>() > (1ULL << 62))
            fail(field, "is out of range");
        const long long n = v->get<long long>();
        if (nonNegative && n < 0)
            fail(field, "must not be negative, got " + std::to_string(n));
        return n;
    }

    std::optional<std::vector<long long>> integers(const std::string &field) const
    {
        const Json *v = get(field);
        if (!v)
            return std::nullopt;
        if (!v->is_array())
            wrongType(field, "an array of integers", *v);
        std::vector<long long> out;
        for (const Json &item : *v) {
            if (!item.is_number_integer())
                fail(field,
                     "must be an array of integers, has " + std::string(jsontext::typeName(item)));
            out.push_back(item.get<long long>());
        }
        return out;
    }

private:
    const Json &m_object;
    const std::string &m_origin;
};

const char *const kKnown[] = {"schema",
                              "test",
                              "verdict",
                              "mode",
                              "base_fail",
                              "head_fail",
                              "runs",
                              "seeds",
                              "witness_seed",
                              "env_digest",
                              "baseline_sha",
                              "base",
                              "head",
                              "attribution",
                              "replay",
                              "replay_exact",
                              "recorded",
                              "diff_coverage",
                              "diff_coverage_detail"};

} // namespace

AttributionRecord AttributionRecord::parse(const std::string &text, const std::string &origin)
{
    const Json root = jsontext::parse(text, origin, 1, true);
    if (!root.is_object())
        throw Error::input(origin + ":1:1: an attribution record must be a JSON object, got " +
                           jsontext::typeName(root));
    const FieldReader r(root, origin);
    const std::optional<std::string> schema = r.string("schema");
    if (!schema)
        r.fail("schema", std::string("missing (expected \"") + kSchema + "\")");
    if (*schema != kSchema)
        r.fail("schema", "\"" + *schema + "\" is not " + kSchema);

    AttributionRecord rec;
    rec.file = origin;
    const std::optional<std::string> test = r.string("test");
    if (!test || test->empty())
        r.fail("test", "missing (the test id the evidence is about)");
    rec.test = *test;
    rec.verdict = r.string("verdict");
    rec.mode = r.string("mode");
    rec.baseFail = r.integer("base_fail", true);
    rec.headFail = r.integer("head_fail", true);
    rec.runs = r.integer("runs", true);
    rec.seeds = r.integers("seeds");
    rec.witnessSeed = r.integer("witness_seed", false);
    rec.envDigest = r.string("env_digest");
    rec.baselineSha = r.string("baseline_sha");
    rec.base = r.string("base");
    rec.head = r.string("head");
    rec.attribution = r.string("attribution");
    rec.replay = r.string("replay");
    rec.replayExact = r.string("replay_exact");
    rec.recorded = r.string("recorded");
    if (rec.recorded && !parseLedgerDate(*rec.recorded))
        r.fail("recorded", "\"" + *rec.recorded + "\" is not a date (YYYY-MM-DD)");
    rec.diffCoverage = r.string("diff_coverage");
    if (rec.diffCoverage && *rec.diffCoverage != "touched" && *rec.diffCoverage != "untouched" &&
        *rec.diffCoverage != "unknown")
        r.fail("diff_coverage",
               "\"" + *rec.diffCoverage + "\" is not touched, untouched or unknown");
    rec.diffCoverageDetail = r.string("diff_coverage_detail");
    for (auto it = root.begin(); it != root.end(); ++it) {
        if (std::find(std::begin(kKnown), std::end(kKnown), it.key()) == std::end(kKnown))
            rec.unknownFields.emplace_back(it.key(), it.value().dump());
    }
    return rec;
}

std::string AttributionRecord::format() const
{
    Json out = Json::object();
    out["schema"] = kSchema;
    out["test"] = test;
    auto put = [&out](const char *key, const auto &value) {
        if (value)
            out[key] = *value;
    };
    put("verdict", verdict);
    put("mode", mode);
    put("base_fail", baseFail);
    put("head_fail", headFail);
    put("runs", runs);
    put("seeds", seeds);
    put("witness_seed", witnessSeed);
    put("env_digest", envDigest);
    put("baseline_sha", baselineSha);
    put("base", base);
    put("head", head);
    put("attribution", attribution);
    put("replay", replay);
    put("replay_exact", replayExact);
    put("recorded", recorded);
    put("diff_coverage", diffCoverage);
    put("diff_coverage_detail", diffCoverageDetail);
    for (const auto &[key, json] : unknownFields)
        out[key] = Json::parse(json);
    return out.dump(2) + "\n";
}

std::string AttributionRecord::fileNamePart(const std::string &test)
{
    std::string out;
    for (const char c : test) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '.' || c == '-';
        if (plain)
            out += c;
        else if (out.empty() || out.back() != '_')
            out += '_';
    }
    while (!out.empty() && (out.back() == '_' || out.back() == '.'))
        out.pop_back();
    while (!out.empty() && (out.front() == '_' || out.front() == '.'))
        out.erase(out.begin());
    if (out.size() > 80)
        out = out.substr(0, 80) + "-" + sha256Hex(test, 8);
    return out.empty() ? sha256Hex(test, 8) : out;
}

namespace {

// The date a file name of RunsDir::recordStem starts with ("YYYY-MM-DD-…", or "" for
// "undated-…"); nullopt for a name that does not follow it.
std::optional<std::string> nameDate(const std::string &name)
{
    if (name.rfind("undated-", 0) == 0)
        return std::string();
    if (name.size() < 11 || name[10] != '-')
        return std::nullopt;
    for (size_t i = 0; i < 10; ++i) {
        const bool digit = name[i] >= '0' && name[i] <= '9';
        if ((i == 4 || i == 7) ? name[i] != '-' : !digit)
            return std::nullopt;
    }
    return name.substr(0, 10);
}

} // namespace

std::optional<AttributionRecord> AttributionRecord::latestFor(const std::string &runsDir,
                                                              const std::string &test)
{
    namespace fs = std::filesystem;
    // Records named by date and test are chosen by name, newest day first, and read only
    // until the day that holds the newest one; other names (written by hand) are all read.
    const std::string part = "-" + fileNamePart(test) + "-";
    std::error_code ec;
    std::vector<fs::path> others;
    std::map<std::string, std::vector<fs::path>, std::greater<>> byDay; // "" (undated) last
    for (fs::directory_iterator it(runsDir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->path().extension() != ".json" || !it->is_regular_file(ec))
            continue;
        const std::optional<std::string> day = nameDate(name);
        if (!day)
            others.push_back(it->path());
        else if (name.compare(day->empty() ? 7 : 10, part.size(), part) == 0)
            byDay[*day].push_back(it->path());
    }

    std::vector<AttributionRecord> found;
    auto read = [&](const fs::path &file) {
        const std::optional<std::string> text = readWholeFile(file.string());
        if (!text)
            return;
        try {
            AttributionRecord rec = parse(*text, file.string());
            if (rec.test == test)
                found.push_back(std::move(rec));
        } catch (const Error &) {
            // Another kind of run ledger, or a broken file: not evidence for this freeze.
        }
    };
    // The latest `recorded` (absent: the oldest); ties: the later file name.
    auto newest = [&found]() -> const AttributionRecord * {
        const AttributionRecord *best = nullptr;
        for (const AttributionRecord &rec : found) {
            const std::string a = rec.recorded.value_or(""),
                              b = best ? best->recorded.value_or("") : "";
            if (!best || a > b || (a == b && rec.file > best->file))
                best = &rec;
        }
        return best;
    };
    for (const fs::path &file : others)
        read(file);
    for (const auto &[day, files] : byDay) {
        // Every record of an older day was recorded before `day` (its name says so).
        const AttributionRecord *best = newest();
        if (best && best->recorded.value_or("").substr(0, 10) > day)
            break;
        for (const fs::path &file : files)
            read(file);
    }
    const AttributionRecord *best = newest();
    return best ? std::optional<AttributionRecord>(*best) : std::nullopt;
}

void AttributionRecord::fillFreeze(QuarantineEntry &e) const
{
    auto fill = [](auto &slot, const auto &value) {
        if (!slot && value)
            slot = value;
    };
    fill(e.verdict, verdict);
    fill(e.attribution, attribution);
    fill(e.witnessSeed, witnessSeed);
    fill(e.baselineSha, baselineSha);
    fill(e.replay, replay);
    if (!baseFail && !headFail && !mode && !seeds && !envDigest)
        return;
    FreezeEvidence &ev = e.evidence ? *e.evidence : e.evidence.emplace();
    fill(ev.baseFail, baseFail);
    fill(ev.headFail, headFail);
    fill(ev.mode, mode);
    fill(ev.seeds, seeds);
    fill(ev.envDigest, envDigest);
}

} // namespace pw::core
