#include "execution/OutcomeRows.h"

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

namespace pw::core {

namespace {

using nlohmann::json;

std::string text(const json &row, const char *key)
{
    const auto it = row.find(key);
    return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Empty when `row` has the fields every row has, else what is wrong.
std::string toRow(const json &row, OutcomeRow &out)
{
    if (!row.is_object())
        return "not a JSON object";
    for (const char *key : {"nodeid", "when", "outcome"}) {
        const auto it = row.find(key);
        if (it == row.end() || !it->is_string())
            return std::string("\"") + key + "\" missing or not a string";
    }
    out.run = text(row, "run");
    out.arm = text(row, "arm");
    out.nodeId = text(row, "nodeid");
    out.when = text(row, "when");
    out.outcome = text(row, "outcome");
    out.kind = text(row, "kind");
    out.detail = text(row, "detail");
    if (const auto it = row.find("duration"); it != row.end() && it->is_number())
        out.duration = it->get<double>();
    if (const auto it = row.find("seed"); it != row.end()) {
        if (!it->is_number_unsigned() || it->get<uint64_t>() > UINT32_MAX)
            return "\"seed\" is not a 32-bit unsigned number";
        out.seed = it->get<uint32_t>();
    }
    if (const auto it = row.find("replay"); it != row.end() && !it->is_null()) {
        if (!it->is_number_unsigned())
            return "\"replay\" is not an unsigned number";
        out.replay = it->get<int>();
    }
    if (const auto it = row.find("xfail"); it != row.end() && it->is_boolean())
        out.xfail = it->get<bool>();
    return {};
}

} // namespace

OutcomeRowsFile parseOutcomeRows(const std::string &text, const std::string &name)
{
    return parseJsonLines<OutcomeRow>(text, name, toRow);
}

OutcomeRowsFile readOutcomeRows(const std::string &path)
{
    return readJsonLines<OutcomeRow>(path, "no outcome rows (missing or unreadable)", toRow);
}

std::vector<Trial> foldTrials(const std::vector<OutcomeRow> &rows)
{
    struct Acc
    {
        Trial trial;
        bool phase = false, call = false, failed = false, skipped = false;
        bool harness = false, notCollected = false;
    };
    using Key = std::tuple<std::string, uint32_t, int>;
    std::map<Key, size_t> index;
    std::vector<Acc> accs;
    for (const OutcomeRow &row : rows) {
        const bool phase = row.when == "setup" || row.when == "call" || row.when == "teardown";
        // A replay child that died, or a phase the plugin's per-test timer stopped.
        const bool harness = (row.when == "replay" || phase) && row.outcome == "harness_error";
        const bool notCollected = row.when == "collect" && row.outcome == "not_collected";
        if (!phase && !harness && !notCollected && row.when != "leak")
            continue;
        const Key key{row.nodeId, row.seed, row.replay.value_or(-1)};
        auto [it, added] = index.emplace(key, accs.size());
        if (added) {
            Acc acc;
            acc.trial.nodeId = row.nodeId;
            acc.trial.seed = row.seed;
            acc.trial.replay = row.replay.value_or(-1);
            accs.push_back(std::move(acc));
        }
        Acc &acc = accs[it->second];
        if (row.when == "leak") {
            acc.trial.leaks.push_back(row.kind);
            continue;
        }
        if (harness) {
            acc.harness = true;
            acc.trial.detail = row.detail;
            continue;
        }
        if (notCollected) {
            acc.notCollected = true;
            continue;
        }
        acc.phase = true;
        acc.trial.seconds += row.duration;
        acc.trial.xfail = acc.trial.xfail || row.xfail;
        if (row.when == "call")
            acc.call = true;
        if (row.outcome == "failed" && !acc.failed) {
            acc.failed = true;
            acc.trial.failedPhase = row.when;
        }
        if (row.outcome == "skipped")
            acc.skipped = true;
    }

    std::vector<Trial> trials;
    for (Acc &acc : accs) {
        Trial &t = acc.trial;
        if (acc.harness) {
            t.outcome = Outcome::HarnessError;
        } else if (acc.notCollected && !acc.phase) {
            t.outcome = Outcome::NotCollected;
        } else if (!acc.phase) {
            continue; // leak rows alone
        } else if (acc.failed) {
            t.outcome = Outcome::Fail;
        } else if (acc.skipped) {
            t.outcome = Outcome::Skipped;
        } else if (!acc.call) {
            t.outcome = Outcome::HarnessError;
            t.detail = "no call phase recorded (the process ended mid-test)";
        } else {
            t.outcome = Outcome::Pass;
        }
        trials.push_back(std::move(t));
    }
    return trials;
}

const OutcomeRow *budgetRow(const std::vector<OutcomeRow> &rows)
{
    for (const OutcomeRow &row : rows) {
        if (row.when == "budget")
            return &row;
    }
    return nullptr;
}

} // namespace pw::core
