#include "ledger/RunEvidence.h"

#include "ledger/LedgerDate.h"
#include "ledger/QuarantineLedger.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/JsonText.h"

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
                              "interpreter",
                              "python_version",
                              "pytest_version",
                              "baseline_sha",
                              "base",
                              "head",
                              "attribution",
                              "replay",
                              "replay_exact",
                              "recorded",
                              "diff_coverage",
                              "diff_coverage_detail",
                              "head_failing_seeds"};

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
    rec.headFailingSeeds = r.integers("head_failing_seeds");
    rec.witnessSeed = r.integer("witness_seed", false);
    rec.envDigest = r.string("env_digest");
    rec.interpreter = r.string("interpreter");
    rec.pythonVersion = r.string("python_version");
    rec.pytestVersion = r.string("pytest_version");
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
    put("head_failing_seeds", headFailingSeeds);
    put("witness_seed", witnessSeed);
    put("env_digest", envDigest);
    put("interpreter", interpreter);
    put("python_version", pythonVersion);
    put("pytest_version", pytestVersion);
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

std::optional<AttributionRecord> AttributionRecord::ofMatrixRecord(const std::string &text,
                                                                   const std::string &origin,
                                                                   const std::string &test)
{
    // A hand-edited or foreign record may hold any JSON in any field: every read goes
    // through member(), which gives null for a missing key or a non-object, so that a
    // mistyped field is an absent value here and never a nlohmann type_error.
    static const Json null;
    const auto member = [](const Json &j, const std::string &key) -> const Json & {
        if (!j.is_object())
            return null;
        const auto it = j.find(key);
        return it == j.end() ? null : *it;
    };
    const auto string = [&member](const Json &j, const std::string &key) {
        const Json &v = member(j, key);
        return v.is_string() ? std::optional(v.get<std::string>()) : std::nullopt;
    };
    const auto integer = [&member](const Json &j, const std::string &key) {
        const Json &v = member(j, key);
        return v.is_number_integer() ? std::optional(v.get<long long>()) : std::nullopt;
    };
    const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (string(doc, "schema") != kMatrixSchema || !member(doc, "tests").is_array())
        return std::nullopt;
    for (const Json &row : member(doc, "tests")) {
        if (string(row, "test") != test)
            continue;
        AttributionRecord r;
        r.file = origin;
        r.test = test;
        r.verdict = string(row, "triage");
        r.mode = "matrix";
        std::vector<long long> compared;
        if (member(row, "seeds_compared").is_array())
            for (const Json &seed : member(row, "seeds_compared"))
                if (seed.is_number_integer())
                    compared.push_back(seed.get<long long>());
        for (const char *arm : {"base", "head"}) {
            long long fails = 0;
            for (long long seed : compared)
                fails += integer(member(row, arm), std::to_string(seed)).value_or(0);
            (std::string(arm) == "base" ? r.baseFail : r.headFail) = fails;
        }
        std::vector<long long> failing;
        for (long long seed : compared)
            if (integer(member(row, "head"), std::to_string(seed)).value_or(0) > 0)
                failing.push_back(seed);
        r.headFailingSeeds = failing;
        if (const auto replays = integer(doc, "replays"))
            r.runs = (long long)compared.size() * *replays;
        r.seeds = compared;
        r.witnessSeed = integer(row, "witness_seed");
        r.envDigest = string(doc, "env_digest");
        r.baselineSha = string(doc, "baseline_sha");
        r.base = string(member(member(doc, "trees"), "base"), "spec");
        r.head = string(member(member(doc, "trees"), "head"), "spec");
        r.replay = string(row, "portable");
        if (r.witnessSeed)
            r.replayExact =
                string(member(member(row, "commands"), "head"), std::to_string(*r.witnessSeed));
        r.recorded = string(doc, "recorded");
        r.interpreter = string(member(doc, "interpreter"), "path");
        r.pythonVersion = string(member(doc, "interpreter"), "python");
        r.pytestVersion = string(member(doc, "interpreter"), "pytest");
        return r;
    }
    return std::nullopt;
}

AttributionRecord AttributionRecord::evidenceFor(const std::string &text, const std::string &origin,
                                                 const std::string &test)
{
    if (std::optional<AttributionRecord> row = ofMatrixRecord(text, origin, test))
        return *row;
    const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_object() && doc.value("schema", Json()) == kMatrixSchema)
        throw Error::input(origin + ": tests: the matrix record has no row for " + test);
    AttributionRecord record = parse(text, origin);
    if (record.test != test)
        throw Error::input(origin + ": test: the record is evidence for " + record.test + ", not " +
                           test + " (one test is never frozen on another's runs)");
    return record;
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
    if (name.starts_with("undated-"))
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

namespace {

// The newest record for `test` among `runsDir`/*.json that `parse` reads (AttributionRecord::
// latestFor's rule, for any record with `file`, `test` and `recorded`).
template <typename Record>
std::optional<Record> newestRecord(const std::string &runsDir, const std::string &test,
                                   Record (*parse)(const std::string &, const std::string &))
{
    namespace fs = std::filesystem;
    // Records named by date and test are chosen by name, newest day first, and read only
    // until the day that holds the newest one; other names (written by hand) are all read.
    const std::string part = "-" + AttributionRecord::fileNamePart(test) + "-";
    std::error_code ec;
    std::vector<fs::path> others;
    std::map<std::string, std::vector<fs::path>, std::greater<>> byDay; // "" (undated) last
    fs::directory_iterator it(runsDir, ec);
    // A runs directory that is there but cannot be listed may hide the newest record: refuse
    // rather than decide on the others.
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        throw Error::input(cannotBeRead(runsDir, ec.message()));
    for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->path().extension() != ".json" || !it->is_regular_file(ec))
            continue;
        const std::optional<std::string> day = nameDate(name);
        if (!day)
            others.push_back(it->path());
        else if (name.compare(day->empty() ? 7 : 10, part.size(), part) == 0)
            byDay[*day].push_back(it->path());
    }
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        throw Error::input(cannotBeRead(runsDir, ec.message()));

    std::vector<Record> found;
    auto read = [&](const fs::path &file) {
        // One that cannot be read may be the newest: fail closed (readFileOrAbsent throws).
        const std::optional<std::string> text = readFileOrAbsent(file.string());
        if (!text)
            return;
        try {
            Record rec = parse(*text, file.string());
            if (rec.test == test)
                found.push_back(std::move(rec));
        } catch (const Error &) {
            // Another kind of run ledger, or a broken file: not evidence for this test.
        }
    };
    // The latest `recorded` (absent: the oldest); ties: the later file name.
    auto newest = [&found]() -> const Record * {
        const Record *best = nullptr;
        for (const Record &rec : found) {
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
        const Record *best = newest();
        if (best && best->recorded.value_or("").substr(0, 10) > day)
            break;
        for (const fs::path &file : files)
            read(file);
    }
    const Record *best = newest();
    return best ? std::optional<Record>(*best) : std::nullopt;
}

} // namespace

std::optional<AttributionRecord> AttributionRecord::latestFor(const std::string &runsDir,
                                                              const std::string &test)
{
    return newestRecord<AttributionRecord>(runsDir, test, &AttributionRecord::parse);
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

CellsEvidence CellsEvidence::parse(const std::string &text, const std::string &origin)
{
    const Json root = jsontext::parse(text, origin, 1, true);
    if (!root.is_object())
        throw Error::input(origin + ":1:1: a cells record must be a JSON object, got " +
                           jsontext::typeName(root));
    const FieldReader r(root, origin);
    const std::optional<std::string> schema = r.string("schema");
    if (!schema)
        r.fail("schema", std::string("missing (expected \"") + kSchema + "\")");
    if (*schema != kSchema)
        r.fail("schema", "\"" + *schema + "\" is not " + kSchema);
    CellsEvidence rec;
    rec.file = origin;
    const std::optional<std::string> test = r.string("test");
    if (!test || test->empty())
        r.fail("test", "missing (the test id the evidence is about)");
    rec.test = *test;
    rec.arm = r.string("arm").value_or("");
    rec.revision = r.string("revision").value_or("");
    rec.commit = r.string("commit").value_or("");
    rec.attribution = r.string("attribution").value_or("");
    rec.sentence = r.string("sentence").value_or("");
    rec.recorded = r.string("recorded");
    if (rec.recorded && !parseLedgerDate(*rec.recorded))
        r.fail("recorded", "\"" + *rec.recorded + "\" is not a date (YYYY-MM-DD)");
    if (const Json *v = r.get("interrupted")) {
        if (!v->is_boolean())
            r.wrongType("interrupted", "true or false", *v);
        rec.interrupted = v->get<bool>();
    }
    return rec;
}

std::optional<CellsEvidence> CellsEvidence::latestFor(const std::string &runsDir,
                                                      const std::string &test)
{
    return newestRecord<CellsEvidence>(runsDir, test, &CellsEvidence::parse);
}

namespace {

// How a reason names a record: "runs/<file name>" (or "evidence/<file name>" for a
// freeze's copy), or what it is when it was not written.
std::string shown(const std::string &file, const char *unwritten)
{
    if (file.empty())
        return unwritten;
    const std::filesystem::path path(file);
    const bool kept = path.parent_path().filename() == FreezeEvidence::kDir;
    return std::string(kept ? FreezeEvidence::kDir : AttributionRecord::kRunsDir) + "/" +
           path.filename().string();
}

// A cells attribution that names the cell the failure comes from.
bool namesACell(const std::string &attribution)
{
    return !attribution.empty() && attribution != "none" && attribution != "unknown";
}

} // namespace

bool FreezeCase::isPlaceholder(const std::string &value)
{
    const size_t first = value.find_first_not_of(" \t");
    const size_t last = value.find_last_not_of(" \t");
    return first != std::string::npos && last > first && value[first] == '<' && value[last] == '>';
}

bool FreezeCase::forbids(const std::string &cellAttribution)
{
    return cellAttribution == "solo";
}

std::string FreezeCase::cellAttribution() const
{
    if (m_cells)
        return namesACell(m_cells->attribution) ? m_cells->attribution : std::string();
    return m_attribution ? m_attribution->attribution.value_or("") : std::string();
}

FreezeCase FreezeCase::judge(const std::string &test,
                             const std::optional<AttributionRecord> &attribution,
                             const std::optional<CellsEvidence> &cells,
                             const std::optional<AttributionRecord> &newer)
{
    FreezeCase c;
    c.m_test = test;
    c.m_attribution = attribution;
    c.m_cells = cells;
    auto set = [&c](Stance stance, std::string reason, const char *field = "") {
        c.m_stance = stance;
        c.m_reason = std::move(reason);
        c.m_field = field;
        return c;
    };
    const std::string attributionName =
        attribution ? shown(attribution->file, "the attribution run (not recorded)") : "";
    const std::string cellsName = cells ? shown(cells->file, "the cells run (not recorded)") : "";

    // Refusals first: no other record can make up for one.
    if (cells && forbids(cells->attribution))
        return set(Stance::Refused,
                   "the four cells say it is a broken test (" + cellsName + ": " +
                       (cells->sentence.empty() ? "solo fails" : cells->sentence) + ")",
                   "attribution");
    if (!cells && attribution && forbids(attribution->attribution.value_or("")))
        return set(Stance::Refused,
                   attributionName + " names attribution solo: a test that "
                                     "fails alone is broken — fix or delete "
                                     "it, never freeze it",
                   "attribution");
    if (newer && newer->verdict.value_or("") != "PRE_EXISTING")
        return set(Stance::Refused,
                   "a newer attribution record of " + test + " (" + shown(newer->file, "") +
                       ", recorded " + newer->recorded.value_or("undated") + ") says " +
                       newer->verdict.value_or("no verdict") +
                       ": a freeze is allowed only for PRE_EXISTING",
                   "verdict");
    if (attribution && attribution->verdict.value_or("") != "PRE_EXISTING")
        return set(Stance::Refused,
                   attributionName + " says " + attribution->verdict.value_or("no verdict") +
                       ": a freeze is allowed only for PRE_EXISTING (the "
                       "failure exists at base too)",
                   "verdict");
    if (!attribution)
        return set(Stance::NeedsAttribution,
                   "no record backs a freeze of " + test +
                       " yet: a freeze rests on PRE_EXISTING from `patchwitness-cli attribute` "
                       "or `patchwitness-cli matrix` (--from-run names the record; it gives the "
                       "evidence fields)");
    // PRE_EXISTING must be what the record measured: failures on both trees, and a witness
    // seed that is one of the failing head seeds.
    const auto count = [](const std::optional<long long> &n) {
        return n ? std::to_string(*n) : std::string("no count");
    };
    if (attribution->baseFail.value_or(0) < 1 || attribution->headFail.value_or(0) < 1)
        return set(Stance::Refused,
                   attributionName + " says PRE_EXISTING but records " +
                       count(attribution->baseFail) + " base and " + count(attribution->headFail) +
                       " head failure(s): a freeze needs the failure on both trees",
                   attribution->baseFail.value_or(0) < 1 ? "evidence.base_fail"
                                                         : "evidence.head_fail");
    if (!attribution->witnessSeed)
        return set(Stance::Refused,
                   attributionName + " names no witness seed: a freeze is bound to a seed that "
                                     "reproduces the failure",
                   "witness_seed");
    const auto among = [](long long seed, const std::optional<std::vector<long long>> &seeds) {
        return !seeds || std::find(seeds->begin(), seeds->end(), seed) != seeds->end();
    };
    if (!among(*attribution->witnessSeed, attribution->seeds))
        return set(Stance::Refused,
                   attributionName + ": witness seed " + std::to_string(*attribution->witnessSeed) +
                       " is not one of the seeds that ran",
                   "witness_seed");
    if (!among(*attribution->witnessSeed, attribution->headFailingSeeds))
        return set(Stance::Refused,
                   attributionName + ": witness seed " + std::to_string(*attribution->witnessSeed) +
                       " is not among the seeds that failed at head",
                   "witness_seed");
    // PRE_EXISTING: the attribution is the four cells' verdict.
    if (!cells && !namesACell(attribution->attribution.value_or("")))
        return set(Stance::NeedsCells, "no cells record of " + test +
                                           " yet: a freeze's `attribution` is the four cells' "
                                           "verdict — run `patchwitness-cli cells` first");
    if (cells && cells->interrupted)
        return set(Stance::NeedsCells,
                   cellsName + " was interrupted: run `patchwitness-cli cells` again");
    if (cells && cells->attribution == "none")
        return set(Stance::NeedsCells,
                   cellsName + " did not reproduce the failure (" + cells->sentence +
                       "): a freeze's `attribution` names the cell that fails — run "
                       "`patchwitness-cli cells` again with more --order-seeds");
    if (cells && !namesACell(cells->attribution))
        return set(Stance::NeedsCells,
                   cellsName + " names no attribution (" +
                       (cells->sentence.empty() ? std::string("no evidence") : cells->sentence) +
                       "): run `patchwitness-cli cells` again");
    return set(Stance::Allowed, "PRE_EXISTING (" + attributionName + "), attribution " +
                                    c.cellAttribution() + " (" +
                                    (cells ? cellsName : attributionName) + ")");
}

FreezeCase FreezeCase::gather(const std::string &runsDir, const std::string &test,
                              std::optional<AttributionRecord> attribution,
                              std::optional<CellsEvidence> cells,
                              const std::function<bool(const std::string &)> &ignore)
{
    const auto drop = [&ignore](auto &record) {
        if (record && ignore && !record->file.empty() && ignore(record->file))
            record.reset();
    };
    std::optional<AttributionRecord> newest = AttributionRecord::latestFor(runsDir, test);
    drop(newest);
    std::optional<AttributionRecord> newer;
    if (!attribution) {
        attribution = newest;
    } else if (newest && !attribution->file.empty()) {
        // A record chosen by hand (--from-run, a Ledgers row) must not hide a later verdict.
        std::error_code ec;
        const bool same = std::filesystem::equivalent(newest->file, attribution->file, ec);
        const std::string a = attribution->recorded.value_or(""), b = newest->recorded.value_or("");
        if (!same && (b > a || (b == a && std::filesystem::path(newest->file).filename() >
                                              std::filesystem::path(attribution->file).filename())))
            newer = newest;
    }
    if (!cells)
        cells = CellsEvidence::latestFor(runsDir, test);
    drop(cells);
    return judge(test, attribution, cells, newer);
}

void FreezeCase::fill(QuarantineEntry &e) const
{
    if (!e.attribution && !cellAttribution().empty())
        e.attribution = cellAttribution();
    if (m_attribution)
        m_attribution->fillFreeze(e);
}

std::vector<LedgerProblem> FreezeCase::problemsOf(const QuarantineEntry &e,
                                                  const std::string &file) const
{
    std::vector<LedgerProblem> out;
    auto add = [&](const std::string &field, const std::string &rule, const std::string &message) {
        LedgerProblem p;
        p.file = file;
        p.line = e.info.lineOf(field);
        p.entry = e.id();
        p.field = field;
        p.rule = rule;
        p.message = message;
        out.push_back(std::move(p));
    };
    if (m_stance == Stance::NeedsAttribution && !m_test.empty())
        add("evidence", "evidence", "no freeze: " + m_reason);
    if (m_stance == Stance::Refused)
        add(m_field, "evidence", "no freeze: " + m_reason);
    else if (e.attribution && forbids(*e.attribution))
        add("attribution", "evidence",
            "solo: a test that fails alone in pytest's order is broken — fix or delete it, "
            "never freeze it");

    // A value typed by hand may add to the records, never contradict them ("the JSON is
    // the evidence, the entry is the pointer").
    if (m_attribution && m_stance != Stance::Refused) {
        const AttributionRecord &r = *m_attribution;
        const std::string source = shown(r.file, "the attribution run");
        auto against = [&](const char *field, const auto &typed, const auto &recorded, auto text) {
            if (typed && recorded && *typed != *recorded)
                add(field, "contradicts",
                    text(*typed) + " contradicts " + source + ", which says " + text(*recorded));
        };
        const auto number = [](long long n) { return std::to_string(n); };
        const auto quoted = [](const std::string &v) { return "\"" + v + "\""; };
        const auto list = [](const std::vector<long long> &v) {
            std::string out;
            for (long long n : v)
                out += (out.empty() ? "" : ", ") + std::to_string(n);
            return "[" + out + "]";
        };
        against("verdict", e.verdict, r.verdict, quoted);
        against("witness_seed", e.witnessSeed, r.witnessSeed, number);
        against("baseline_sha", e.baselineSha, r.baselineSha, quoted);
        if (e.evidence) {
            against("evidence.base_fail", e.evidence->baseFail, r.baseFail, number);
            against("evidence.head_fail", e.evidence->headFail, r.headFail, number);
            against("evidence.mode", e.evidence->mode, r.mode, quoted);
            against("evidence.seeds", e.evidence->seeds, r.seeds, list);
            against("evidence.env_digest", e.evidence->envDigest, r.envDigest, quoted);
        }
        const std::string cell = cellAttribution();
        if (e.attribution && !cell.empty() && *e.attribution != cell && !forbids(*e.attribution))
            add("attribution", "contradicts",
                quoted(*e.attribution) + " contradicts " +
                    (m_cells ? shown(m_cells->file, "the cells run") : source) + ", which says " +
                    quoted(cell));
    }

    // What a printed command left for a person to fill in.
    auto placeholder = [&](const char *field, const std::optional<std::string> &value) {
        if (value && isPlaceholder(*value))
            add(field, "placeholder",
                "\"" + *value + "\" is a placeholder of the printed command: put in " +
                    value->substr(1, value->size() - 2));
    };
    placeholder("owner", e.owner);
    placeholder("verdict", e.verdict);
    placeholder("attribution", e.attribution);
    placeholder("baseline_sha", e.baselineSha);
    placeholder("obligation", e.obligation);
    placeholder("substitute", e.substitute);
    placeholder("replay", e.replay);
    placeholder("note", e.note);
    placeholder("granted_by", e.grantedBy);
    if (e.guards) {
        for (const std::string &g : *e.guards)
            placeholder("guards", g);
    }
    if (e.evidence) {
        placeholder("evidence.mode", e.evidence->mode);
        placeholder("evidence.env_digest", e.evidence->envDigest);
    }
    return out;
}

void FreezeCase::explain(std::vector<LedgerProblem> &problems) const
{
    if (m_test.empty()) // no records were asked about: nothing to say what gives a field
        return;
    for (LedgerProblem &p : problems) {
        if (p.rule != "missing-field")
            continue;
        const bool fromCells = p.field == "attribution";
        const bool fromAttribution =
            !fromCells && (p.field == "witness_seed" || p.field == "baseline_sha" ||
                           p.field == "replay" || p.field.starts_with("evidence"));
        if ((fromCells && m_stance == Stance::NeedsCells) ||
            ((fromCells || fromAttribution) && m_stance == Stance::NeedsAttribution))
            p.message += " (" + m_reason + ")";
    }
}

} // namespace pw::core
