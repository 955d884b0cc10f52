#include "dynamic/Attribution.h"
#include "execution/Sandbox.h"
#include "util/Format.h"

#include <algorithm>
#include <iterator>
#include <map>

// The verdict table of base/head attribution: from the runs of both arms to a
// verdict, its sentence and its finding.
namespace pw::core {

namespace {

void tally(ArmEvidence &arm)
{
    arm.evidence = arm.fails = arm.skipped = arm.harnessErrors = arm.notCollected = 0;
    arm.failingSeeds.clear();
    for (const NodeRun &run : arm.runs) {
        if (run.outcome == Outcome::HarnessError) {
            ++arm.harnessErrors;
            continue;
        }
        if (run.outcome == Outcome::NotCollected) {
            ++arm.notCollected;
            continue;
        }
        ++arm.evidence;
        if (run.outcome == Outcome::Skipped)
            ++arm.skipped;
        if (run.failed()) {
            ++arm.fails;
            arm.failingSeeds.insert(run.seed);
        }
    }
}

std::string count(int fails, const ArmEvidence &arm)
{
    return std::to_string(fails) + "/" + std::to_string(arm.evidence);
}

// Failing runs whose failure the sandbox may have caused (Sandbox::annotate's notes): the
// verdict stands on what ran, and the sentence says what the sandbox did to it.
void noteSandbox(AttributionResult &r)
{
    SandboxTally tally;
    for (const ArmEvidence *arm : {&r.base, &r.head}) {
        for (const NodeRun &run : arm->runs) {
            if (run.failed())
                tally.add(run.reason);
        }
    }
    r.sentence += tally.clause();
}

// The verdict and sentence from the runs alone (Attribution::judge).
void judgeRuns(AttributionResult &r)
{
    tally(r.base);
    tally(r.head);
    r.verdict.reset();
    r.notes.clear();
    r.witnessSeed.reset();
    r.envDigest.clear();
    r.digestsMatch = true;
    r.notCollectedAnywhere = false;

    for (const ArmEvidence *arm : {&r.base, &r.head}) {
        for (const NodeRun &run : arm->runs) {
            if (run.outcome == Outcome::HarnessError)
                r.notes.push_back(run.label + " run " + std::to_string(run.index + 1) + " (seed " +
                                  std::to_string(run.seed) +
                                  "): harness error, not counted: " + run.reason);
        }
    }
    // The replay: the first failing head run, else the first head run that is evidence.
    const NodeRun *replay = nullptr;
    for (const NodeRun &run : r.head.runs) {
        if (run.failed()) {
            replay = &run;
            break;
        }
    }
    for (const NodeRun &run : r.head.runs) {
        if (!replay && run.evidence())
            replay = &run;
    }
    if (!replay && !r.head.runs.empty())
        replay = &r.head.runs.front();
    r.portableReplay.clear();
    if (replay) {
        r.replay = replay->command;
        // Only commits name the same trees on another machine: a working tree or a patch
        // file is this checkout's.
        auto committed = [](const std::string &spec, const std::string &commit) {
            return !commit.empty() && spec != "WORKTREE" && !spec.starts_with("PATCH:");
        };
        if (committed(r.baseSpec, r.baseCommit) && committed(r.headSpec, r.headCommit))
            r.portableReplay = "patchwitness-cli attribute " + shellQuote(r.test) + " --base " +
                               r.baseCommit + " --head " + r.headCommit + " --seed " +
                               std::to_string(replay->seed) + " --no-record";
    }

    if (r.interrupted) {
        r.sentence = "interrupted: " + std::to_string(r.cancelledRuns) + " of " +
                     std::to_string(r.base.runs.size() + r.head.runs.size()) +
                     " runs did not finish; no verdict, nothing recorded";
        return;
    }
    if (r.base.absent() && r.head.absent()) {
        r.notCollectedAnywhere = true;
        r.sentence = "not collected at base nor at head: no such test; check the node id "
                     "(pytest's spelling: path/to/test_file.py::Class::test_name[param])";
        return;
    }
    // What the other tree's runs say of a test one tree does not have.
    const auto onlyAt = [](const char *tree, const ArmEvidence &arm) {
        if (arm.evidence == 0)
            return std::string();
        return std::string("; at ") + tree + " it failed " + std::to_string(arm.fails) + " of " +
               std::to_string(arm.evidence) + " run(s)";
    };
    if (r.base.absent()) {
        r.sentence = "test added by the patch: no attribution; run it against the base code" +
                     onlyAt("head", r.head);
        return;
    }
    if (r.head.absent()) {
        r.sentence = "not collected at head: the patch removed or renamed this test; no "
                     "attribution (find it under its new name, or its census waiver)" +
                     onlyAt("base", r.base) +
                     (r.base.fails > 0 ? ": the patch took away a test that fails" : "");
        return;
    }
    if (r.base.evidence == 0 || r.head.evidence == 0) {
        std::string which =
            r.base.evidence == 0 && r.head.evidence == 0
                ? std::string("every run")
                : std::string("every ") + (r.base.evidence == 0 ? "base" : "head") + " run";
        r.sentence = which + " was a harness error (or did not collect the test): no evidence, "
                             "no verdict; see the reasons";
        return;
    }

    // A skipped run is no pass: a tree that skipped the test on every run gives nothing to
    // compare (a skip the patch added is the census's to judge: C-SKIP).
    const bool baseSkipped = r.base.skipped == r.base.evidence;
    const bool headSkipped = r.head.skipped == r.head.evidence;
    if (baseSkipped || headSkipped) {
        const std::string which = baseSkipped && headSkipped ? "every run of both trees"
                                  : headSkipped              ? "every head run"
                                                             : "every base run";
        r.sentence = "skipped on " + which + ": a skipped test proves nothing, no verdict" +
                     (headSkipped && !baseSkipped
                          ? "; the patch skips a test the base runs — see the census (C-SKIP)"
                          : "");
        return;
    }

    // Runs with different env digests are never compared. Runs of one seed on
    // the two trees must share one digest.
    std::map<uint32_t, std::set<std::string>> digests;
    for (const ArmEvidence *arm : {&r.base, &r.head}) {
        for (const NodeRun &run : arm->runs) {
            if (run.evidence())
                digests[run.seed].insert(run.envDigest);
        }
    }
    for (const auto &[seed, set] : digests) {
        if (set.size() > 1) {
            r.digestsMatch = false;
            std::string list;
            for (const std::string &d : set)
                list += (list.empty() ? "" : ", ") + d;
            r.notes.push_back("seed " + std::to_string(seed) + ": env digests " + list);
        }
    }
    if (!r.digestsMatch) {
        r.sentence = "base and head ran in different environments (env digests differ): runs "
                     "with different digests are never compared; no verdict";
        return;
    }
    if (replay)
        r.envDigest = replay->envDigest;

    const int b = r.base.fails;
    const int h = r.head.fails;
    if (h > 0)
        r.witnessSeed = *r.head.failingSeeds.begin();
    const std::string counts = "base fails " + count(b, r.base) + ", head " + count(h, r.head);
    const int skips = r.base.skipped + r.head.skipped;
    if (b == 0 && h == 0) {
        r.verdict = AttributionVerdict::NoRepro;
        r.sentence = std::string("not reproduced: the test ") +
                     (skips ? "failed on no run of either tree (" + std::to_string(skips) +
                                  " run(s) skipped, which prove nothing; "
                            : "passed on every run of both trees (") +
                     counts +
                     "); nothing to blame on the patch, nothing to freeze — green is not "
                     "evidence either: raise --runs or sweep seeds before calling it fixed";
    } else if (b == 0) {
        r.verdict = AttributionVerdict::PatchInduced;
        r.sentence = "induced by the patch: head fails and base never does (" + counts +
                     "); fix the code, do not freeze the test";
    } else if (h == 0) {
        r.verdict = AttributionVerdict::PatchMasks;
        r.sentence = "masked by the patch: base fails and head never does (" + counts +
                     "); a masked failure is usually a swallowed exception — check that the "
                     "patch fixed the cause rather than hid it";
    } else {
        // Compared on the seeds both trees have evidence for: a harness error on one side
        // is no difference between the trees.
        std::set<uint32_t> both;
        for (const NodeRun &bRun : r.base.runs) {
            for (const NodeRun &hRun : r.head.runs) {
                if (bRun.evidence() && hRun.evidence() && bRun.seed == hRun.seed)
                    both.insert(bRun.seed);
            }
        }
        std::set<uint32_t> bSeeds, hSeeds;
        for (const uint32_t s : r.base.failingSeeds)
            if (both.count(s))
                bSeeds.insert(s);
        for (const uint32_t s : r.head.failingSeeds)
            if (both.count(s))
                hSeeds.insert(s);
        if (!bSeeds.empty() && bSeeds == hSeeds) {
            r.verdict = AttributionVerdict::PreExisting;
            r.sentence = "pre-existing: both trees fail on the same seeds " + seedList(hSeeds) +
                         " (" + counts +
                         "); do not blame the patch — the one verdict a freeze can rest on "
                         "(if the four cells do not call the test broken), witness seed " +
                         std::to_string(*r.witnessSeed);
        } else {
            r.verdict = AttributionVerdict::HarnessEnv;
            r.sentence = "harness or environment: both trees fail but on different seeds (base " +
                         seedList(r.base.failingSeeds) + ", head " + seedList(r.head.failingSeeds) +
                         "; " + counts +
                         "); the failure follows the seed or the machine, not the patch — "
                         "review the harness before blaming either tree";
        }
    }
}

} // namespace

void Attribution::judge(AttributionResult &r)
{
    judgeRuns(r);
    noteSandbox(r);
}

std::optional<Finding> AttributionResult::finding() const
{
    if (shard || interrupted)
        return std::nullopt;
    Finding f;
    f.gate = "run";
    f.test = test;
    f.path = test.substr(0, test.find("::"));
    f.message = "attribution of " + test + ": " + sentence;
    f.code = verdict ? std::string("A-") + attributionVerdictName(*verdict) : "A-NONE";
    switch (verdict.value_or(AttributionVerdict::HarnessEnv)) {
    case AttributionVerdict::PatchInduced:
        f.severity = Severity::Block;
        f.evidence = "a fix of the patch: the test passes on the base and fails at head";
        break;
    case AttributionVerdict::PatchMasks:
        f.severity = Severity::Block;
        f.evidence = "why the base's failure vanished at head (a swallowed exception?)";
        break;
    case AttributionVerdict::HarnessEnv:
        f.severity = Severity::Review;
        f.evidence = verdict ? "a swept attribution or the cells: the trees fail on different "
                               "seeds"
                             : "a run that can judge the test (see the sentence)";
        break;
    case AttributionVerdict::PreExisting:
        f.evidence = "a freeze, if the failure is to stay";
        break;
    case AttributionVerdict::NoRepro:
        break;
    }
    return f;
}

const char *attributionVerdictName(AttributionVerdict verdict)
{
    switch (verdict) {
    case AttributionVerdict::NoRepro:
        return "NO_REPRO";
    case AttributionVerdict::PreExisting:
        return "PRE_EXISTING";
    case AttributionVerdict::HarnessEnv:
        return "HARNESS_ENV";
    case AttributionVerdict::PatchInduced:
        return "PATCH_INDUCED";
    case AttributionVerdict::PatchMasks:
        return "PATCH_MASKS";
    }
    return "?";
}

} // namespace pw::core
