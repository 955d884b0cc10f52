#include "ledger/Config.h"

#include "ledger/TomlText.h"
#include "util/Error.h"
#include "util/Files.h"

#include <cmath>
#include <functional>
#include <sstream>
#include <toml++/toml.h>

namespace pw::core {
namespace {

std::string where(const std::string &origin, const toml::node &node)
{
    const toml::source_region &src = node.source();
    std::ostringstream out;
    out << origin << ':' << src.begin.line << ':' << src.begin.column;
    return out.str();
}

[[noreturn]] void bad(const std::string &origin, const toml::node &node, const std::string &key,
                      const std::string &expected)
{
    throw Error::input(where(origin, node) + ": `" + key + "` must be " + expected + ", got " +
                       tomltext::typeName(node));
}

class Reader
{
public:
    explicit Reader(std::string origin) : m_origin(std::move(origin)) {}

    void string(const toml::node &n, const std::string &key, std::string *out)
    {
        if (!n.is_string())
            bad(m_origin, n, key, "a string");
        *out = n.as_string()->get();
        if (out->empty())
            throw Error::input(where(m_origin, n) + ": `" + key + "` must not be empty");
    }

    void strings(const toml::node &n, const std::string &key, std::vector<std::string> *out)
    {
        const toml::array *arr = n.as_array();
        if (!arr)
            bad(m_origin, n, key, "an array of strings");
        std::vector<std::string> values;
        for (const toml::node &item : *arr) {
            if (!item.is_string())
                bad(m_origin, item, key + "[]", "a string");
            values.push_back(item.as_string()->get());
        }
        *out = std::move(values);
    }

    void integer(const toml::node &n, const std::string &key, int *out, long long min,
                 long long max)
    {
        if (!n.is_integer())
            bad(m_origin, n, key, "an integer");
        const long long v = n.as_integer()->get();
        if (v < min || v > max) {
            throw Error::input(where(m_origin, n) + ": `" + key + "` must be between " +
                               std::to_string(min) + " and " + std::to_string(max) + ", got " +
                               std::to_string(v));
        }
        *out = int(v);
    }

    void seconds(const toml::node &n, const std::string &key, double *out)
    {
        double v = 0;
        if (n.is_integer())
            v = double(n.as_integer()->get());
        else if (n.is_floating_point())
            v = n.as_floating_point()->get();
        else
            bad(m_origin, n, key, "a number of seconds");
        const std::string problem = Config::secondsProblem(v);
        if (!problem.empty())
            throw Error::input(where(m_origin, n) + ": `" + key + "` " + problem);
        *out = v;
    }

    void boolean(const toml::node &n, const std::string &key, bool *out)
    {
        if (!n.is_boolean())
            bad(m_origin, n, key, "true or false");
        *out = n.as_boolean()->get();
    }

    const std::string &origin() const { return m_origin; }

private:
    std::string m_origin;
};

} // namespace

std::string Config::secondsProblem(double seconds)
{
    std::ostringstream got;
    got << seconds; // "inf", "nan", "1e+300", "0.0001"
    if (!std::isfinite(seconds))
        return "must be a finite number of seconds, got " + got.str();
    if (!(seconds > 0))
        return "must be greater than 0, got " + got.str();
    if (seconds < kMinSeconds)
        return "must be at least 0.001 s (timers count whole milliseconds), got " + got.str();
    if (seconds > kMaxSeconds)
        return "must be at most 604800 s (a week), got " + got.str();
    return {};
}

int Config::milliseconds(double seconds)
{
    // Clamped again so that a value that skipped secondsProblem() is still no UB (NaN too).
    if (!(seconds >= kMinSeconds))
        return 1;
    return int(std::lround(std::min(seconds, kMaxSeconds) * 1000.0));
}

Config Config::parse(const std::string &text, const std::string &origin)
{
    toml::table root;
    try {
        root = toml::parse(text, origin);
    } catch (const toml::parse_error &e) {
        std::ostringstream out;
        out << origin << ':' << e.source().begin.line << ':' << e.source().begin.column << ": "
            << e.description();
        throw Error::input(out.str());
    }

    Config c;
    c.source = origin;
    Reader r(origin);
    constexpr long long big = 1000000000LL;

    using Handler = std::function<void(const toml::node &, const std::string &)>;
    const std::map<std::string, Handler> handlers = {
        {"python",
         [&](auto &n, auto &k) {
             r.string(n, k, &c.python);
             c.pythonSet = true;
         }},
        {"test_globs", [&](auto &n, auto &k) { r.strings(n, k, &c.testGlobs); }},
        {"fixture_globs",
         [&](auto &n, auto &k) {
             std::vector<std::string> extra;
             r.strings(n, k, &extra);
             c.fixtureGlobs.insert(c.fixtureGlobs.end(), extra.begin(), extra.end());
         }},
        {"plugins", [&](auto &n, auto &k) { r.strings(n, k, &c.plugins); }},
        {"latitude_max", [&](auto &n, auto &k) { r.integer(n, k, &c.latitudeMax, 1, big); }},
        {"seeds", [&](auto &n, auto &k) { r.integer(n, k, &c.seeds, 1, 100000); }},
        {"replays", [&](auto &n, auto &k) { r.integer(n, k, &c.replays, 1, 100000); }},
        {"order_seeds", [&](auto &n, auto &k) { r.integer(n, k, &c.orderSeeds, 1, 100000); }},
        {"min_trials", [&](auto &n, auto &k) { r.integer(n, k, &c.minTrials, 1, big); }},
        {"trial_budget", [&](auto &n, auto &k) { r.integer(n, k, &c.trialBudget, 1, big); }},
        {"freeze_max_days", [&](auto &n, auto &k) { r.integer(n, k, &c.freezeMaxDays, 1, 3650); }},
        {"renewal_recency_days",
         [&](auto &n, auto &k) { r.integer(n, k, &c.renewalRecencyDays, 1, 3650); }},
        {"shadow_pct", [&](auto &n, auto &k) { r.integer(n, k, &c.shadowPct, 0, 100); }},
        {"infra_fail_pct", [&](auto &n, auto &k) { r.integer(n, k, &c.infraFailPct, 1, 100); }},
        {"workers", [&](auto &n, auto &k) { r.integer(n, k, &c.workers, 0, 1024); }},
        {"sandbox", [&](auto &n, auto &k) { r.boolean(n, k, &c.sandbox); }},
        {"diff_max_bytes",
         [&](auto &n, auto &k) {
             int bytes = 0;
             r.integer(n, k, &bytes, 1, big);
             c.diffMaxBytes = bytes;
         }},
        {"patch_max_bytes",
         [&](auto &n, auto &k) {
             int bytes = 0;
             r.integer(n, k, &bytes, 1024, big);
             c.patchMaxBytes = bytes;
         }},
        {"test_file_max_bytes",
         [&](auto &n, auto &k) {
             int bytes = 0;
             r.integer(n, k, &bytes, 1024, big);
             c.testFileMaxBytes = bytes;
         }},
        {"timeouts",
         [&](auto &n, auto &k) {
             const toml::table *t = n.as_table();
             if (!t)
                 bad(origin, n, k, "a table (per_test, per_run, probe)");
             for (auto &&[subKey, value] : *t) {
                 const std::string name = k + "." + std::string(subKey.str());
                 if (subKey.str() == "per_test")
                     r.seconds(value, name, &c.timeoutPerTest);
                 else if (subKey.str() == "per_run")
                     r.seconds(value, name, &c.timeoutPerRun);
                 else if (subKey.str() == "probe")
                     r.seconds(value, name, &c.timeoutProbe);
                 else
                     c.warnings.push_back(where(origin, value) + ": unknown key `" + name +
                                          "` (ignored)");
             }
         }},
        {"test_map",
         [&](auto &n, auto &k) {
             const toml::table *t = n.as_table();
             if (!t)
                 bad(origin, n, k, "a table of source glob = [test paths]");
             for (auto &&[subKey, value] : *t) {
                 const std::string name = k + "." + std::string(subKey.str());
                 std::vector<std::string> tests;
                 if (value.is_string())
                     tests.push_back(value.as_string()->get());
                 else
                     r.strings(value, name, &tests);
                 c.testMap[std::string(subKey.str())] = std::move(tests);
             }
         }},
    };

    for (auto &&[key, value] : root) {
        const std::string name(key.str());
        auto it = handlers.find(name);
        if (name == "ledger_dir") {
            // The ledger directory is documented as a config key, but this file is read from
            // that directory: it cannot choose it (--ledger-dir does).
            c.warnings.push_back(where(origin, value) +
                                 ": `ledger_dir` is not read from config.toml, which lives in "
                                 "the ledger directory (ignored; pass --ledger-dir)");
            continue;
        }
        if (it == handlers.end()) {
            c.warnings.push_back(where(origin, value) + ": unknown key `" + name + "` (ignored)");
            continue;
        }
        it->second(value, name);
    }
    return c;
}

Config Config::load(const std::string &path)
{
    // Absent: the defaults; there but unreadable (or behind an unsearchable directory):
    // an error, never the defaults.
    const std::optional<std::string> text = readFileOrAbsent(path);
    return text ? parse(*text, path) : Config();
}

} // namespace pw::core
