#include "dynamic/CellsRecord.h"

#include "dynamic/RunsDir.h"
#include "ledger/LedgerDate.h"
#include "util/Format.h"

#include <QDate>
#include <nlohmann/json.hpp>

namespace pw::core {

namespace {

using Json = nlohmann::ordered_json;

} // namespace

std::string formatCellsRecord(const ReproCellsResult &r, const std::string &recorded)
{
    Json cells = Json::array();
    for (const ReproCell &c : r.cells) {
        Json trials = Json::array();
        for (const NodeRun &t : c.trials)
            trials.push_back({{"seed", t.seed},
                              {"outcome", outcomeName(t.outcome)},
                              {"seconds", wholeMillis(t.seconds)},
                              {"env_digest", t.envDigest},
                              {"reason", t.reason}});
        cells.push_back(
            {{"name", c.name},
             {"description", c.description},
             {"status", cellStatusName(c.status)},
             {"runs", c.runs()},
             {"evidence", c.evidence},
             {"fails", c.fails},
             {"harness_errors", c.harnessErrors},
             {"failing_seeds", c.failingSeeds},
             {"passing_seeds", c.passingSeeds},
             {"unknown_reason", c.unknownReason.empty() ? Json() : Json(c.unknownReason)},
             {"not_run", c.notRun},
             {"replay", c.replay},
             {"trials", trials}});
    }
    Json findings = Json::array();
    for (const CellFinding &f : r.findings)
        findings.push_back({{"attribution", f.attribution}, {"sentence", f.sentence}});
    const auto first = [&](bool sentence) {
        if (r.findings.empty())
            return Json();
        return Json(sentence ? r.findings.front().sentence : r.findings.front().attribution);
    };
    const Json doc = {{"schema", "patchwitness.cells/1"},
                      {"test", r.test},
                      {"arm", armName(r.arm)},
                      {"revision", r.revision},
                      {"commit", r.commit.empty() ? Json() : Json(r.commit)},
                      {"scope", r.scope},
                      {"interpreter", r.provenance.interpreterJson()},
                      {"trees", r.provenance.treesJson()},
                      {"order_seeds", r.orderSeeds},
                      {"clock_zone", r.clockZone},
                      {"freeze_time", r.freezeTime},
                      {"cells", cells},
                      {"attribution", first(false)},
                      {"sentence", first(true)},
                      {"findings", findings},
                      {"interrupted", r.interrupted},
                      {"recorded", recorded.empty() ? Json() : Json(recorded)}};
    return doc.dump(2) + "\n";
}

std::string writeCellsRecord(const std::string &runsDir, const ReproCellsResult &result,
                             const std::string &recorded)
{
    return RunsDir::writeNew(
        runsDir, RunsDir::recordStem(recorded.empty() ? "undated" : recorded, result.test, "cells"),
        formatCellsRecord(result, recorded));
}

std::string recordDate(const RunContext &ctx)
{
    if (!ctx.target().today.empty())
        return ctx.target().today;
    return ledgerDateText(QDate::currentDate());
}

} // namespace pw::core
