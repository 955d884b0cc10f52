// Text and JSON renderings of a ShadowReport (the CLI's stdout).

#include "dynamic/Shadow.h"
#include "util/Format.h"

#include <nlohmann/json.hpp>

namespace pw::core {

namespace {

std::string verdictLine(const ShadowReport &r)
{
    if (r.interrupted)
        return "interrupted: no result";
    if (!r.harnessError.empty())
        return "no result: " + r.harnessError;
    if (r.dryRun)
        return "dry run: head not run";
    const size_t failed = r.failures().size();
    if (!r.bugs.empty())
        return "WITNESS BUG: " + std::to_string(r.bugs.size()) +
               " shadow-sampled test(s) failed although their witness said the patch cannot "
               "reach them";
    if (failed > 0)
        return "FAIL: " + std::to_string(failed) + " selected test(s) failed at head";
    if (const std::vector<const ShadowDecision *> none = r.noEvidence(); !none.empty()) {
        std::vector<std::string> names;
        for (const ShadowDecision *d : none)
            names.push_back(d->nodeId + " (" + outcomeName(*d->outcome) + ")");
        return "no result: " + std::to_string(none.size()) +
               " selected test(s) gave no evidence at head: " + join(names);
    }
    return r.headRan ? "OK: every selected and sampled test passed at head"
                     : "OK: nothing to run (every test skip-witnessed, none sampled)";
}

} // namespace

std::string formatShadowText(const ShadowReport &r)
{
    std::string out = "shadow: base " + r.base +
                      (r.baseCommit.empty() ? "" : " (" + shortId(r.baseCommit) + ")") + ", head " +
                      r.head + (r.headCommit.empty() ? "" : " (" + shortId(r.headCommit) + ")") +
                      (r.envDigest.empty() ? "" : ", env " + r.envDigest) +
                      (r.sandboxed ? ", sandboxed" : ", NOT sandboxed") + "\n";
    out += r.provenance.text("");
    if (!r.witnessState.empty())
        out += "witness: " + r.witnessState +
               (r.witnessPath.empty() ? "" : " (" + r.witnessPath + ")") + ", " +
               std::to_string(r.witness.rows.size()) + " test(s)\n";
    if (!r.patchDigest.empty())
        out += "patch: P = " + r.patchDigest + ", " + std::to_string(r.changedPaths) +
               " changed file(s); shadow sample " + std::to_string(r.pct) + "%\n";
    if (!r.decisions.empty()) {
        out += "decisions: " + std::to_string(r.toRun()) + " run, " + std::to_string(r.skipped()) +
               " skip-witnessed, " + std::to_string(r.sampled()) + " shadow-sampled" +
               (r.ambientDrift ? "; " + r.ambientDetail + ": whole suite" : "") +
               (!r.ambientDrift && !r.suiteChange.empty() ? "; " + r.suiteChange + ": whole suite"
                                                          : "") +
               "\n";
        for (const ShadowDecision &d : r.decisions) {
            out += std::string("  ") +
                   (d.run       ? "run    "
                    : d.sampled ? "shadow "
                                : "skip   ") +
                   d.nodeId + "  " + d.reason;
            if (d.outcome)
                out += std::string(" -> ") + outcomeName(*d.outcome);
            out += "\n";
        }
    }
    for (const WitnessBug &b : r.bugs)
        out += "witness bug: " + b.nodeId + " failed at head (" + b.message +
               "); its witness: files [" + join(b.files) + "], fixtures [" + join(b.fixtures) +
               "]\n";
    for (const ShadowDecision *d : r.failures())
        out += "failed: " + d->nodeId + " (" + d->reason + "): " + d->message + "\n";
    return out + verdictLine(r) + "\n";
}

std::string formatShadowJson(const ShadowReport &r)
{
    using nlohmann::json;
    json decisions = json::array();
    for (const ShadowDecision &d : r.decisions)
        decisions.push_back({{"nodeid", d.nodeId},
                             {"action", d.run ? "run" : "skip"},
                             {"reason", d.reason},
                             {"frozen", d.frozen},
                             {"sampled", d.sampled},
                             {"outcome", d.outcome ? json(outcomeName(*d.outcome)) : json(nullptr)},
                             {"message", d.message}});
    json bugs = json::array();
    for (const WitnessBug &b : r.bugs)
        bugs.push_back({{"nodeid", b.nodeId},
                        {"message", b.message},
                        {"files", b.files},
                        {"fixtures", b.fixtures}});
    json failed = json::array();
    for (const ShadowDecision *d : r.failures())
        failed.push_back(d->nodeId);
    const json j = {
        {"schema", "patchwitness.shadow-report/1"},
        {"repo", r.repo},
        {"base", {{"spec", r.base}, {"commit", r.baseCommit}}},
        {"head", {{"spec", r.head}, {"commit", r.headCommit}}},
        {"env_digest", r.envDigest},
        {"interpreter", r.provenance.interpreterJson()},
        {"trees", r.provenance.treesJson()},
        {"patch_digest", r.patchDigest},
        {"pct", r.pct},
        {"changed_files", r.changedPaths},
        {"witness",
         {{"state", r.witnessState}, {"path", r.witnessPath}, {"tests", r.witness.rows.size()}}},
        {"ambient_drift", r.ambientDrift},
        {"suite_change", r.suiteChange},
        {"counts",
         {{"run", r.toRun()},
          {"skipped", r.skipped()},
          {"sampled", r.sampled()},
          {"no_evidence", r.noEvidence().size()}}},
        {"decisions", decisions},
        {"witness_bugs", bugs},
        {"failed", failed},
        {"warnings", r.warnings},
        {"dry_run", r.dryRun},
        {"sandboxed", r.sandboxed},
        {"head_ran", r.headRan},
        {"interrupted", r.interrupted},
        {"harness_error", r.harnessError.empty() ? json(nullptr) : json(r.harnessError)},
        {"summary", verdictLine(r)}};
    return j.dump(2) + "\n";
}

} // namespace pw::core
