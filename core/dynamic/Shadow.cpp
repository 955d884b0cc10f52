#include "dynamic/Shadow.h"

#include "dynamic/CensusClassifier.h"
#include "dynamic/DiffCoverage.h"
#include "execution/CensusDump.h"
#include "execution/RunPool.h"
#include "ledger/LedgerDate.h"
#include "ledger/LedgerSet.h"
#include "ledger/LedgerValidator.h"
#include "repo/Repository.h"
#include "util/Documentation.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/Glob.h"

#include <QDate>
#include <QDateTime>
#include <QFileInfo>
#include <algorithm>
#include <map>

namespace pw::core {

namespace {

std::string octal(uint32_t mode)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%06o", mode);
    return buffer;
}

// Fixtures whose fingerprint differs, or that one side has and the other lacks.
std::vector<std::string> driftedFixtures(const WitnessRow &base, const WitnessRow &head)
{
    std::vector<std::string> names;
    for (const auto &[name, fp] : base.fixtureFps) {
        const auto it = head.fixtureFps.find(name);
        if (it == head.fixtureFps.end() || it->second != fp)
            names.push_back(name);
    }
    for (const auto &[name, fp] : head.fixtureFps) {
        if (!base.fixtureFps.count(name))
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string baseName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string dirName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool isPytestConfig(const std::string &path)
{
    const std::string name = baseName(path);
    return name == "pytest.ini" || name == "pyproject.toml" || name == "setup.cfg" ||
           name == "tox.ini";
}

std::optional<std::string> activeFreeze(const LedgerSet &ledgers, const QDate &today,
                                        const std::string &nodeId)
{
    if (!ledgers.quarantine)
        return std::nullopt;
    for (const std::string &id : {nodeId, functionIdOf(nodeId)}) {
        const QuarantineEntry *q = ledgers.quarantine->find(id);
        if (q && LedgerValidator::isActiveOn(*q, today))
            return ledgerDateText(*q->expires);
    }
    return std::nullopt;
}

std::string runLine(int done, int total, const RunResult &r)
{
    return std::to_string(done) + "/" + std::to_string(total) + " " + r.arm + ": " +
           (r.status == RunStatus::Completed ? "exit " + std::to_string(r.exitCode)
                                             : std::string(runStatusName(r.status))) +
           " (" + formatSeconds(r.durationMs / 1000.0) + ")";
}

} // namespace

int ShadowReport::toRun() const
{
    return int(std::count_if(decisions.begin(), decisions.end(),
                             [](const ShadowDecision &d) { return d.run; }));
}

int ShadowReport::skipped() const
{
    return int(decisions.size()) - toRun();
}

int ShadowReport::sampled() const
{
    return int(std::count_if(decisions.begin(), decisions.end(),
                             [](const ShadowDecision &d) { return d.sampled; }));
}

std::vector<const ShadowDecision *> ShadowReport::failures() const
{
    std::vector<const ShadowDecision *> out;
    for (const ShadowDecision &d : decisions) {
        if (d.run && !d.frozen && d.failed())
            out.push_back(&d);
    }
    return out;
}

std::vector<const ShadowDecision *> ShadowReport::noEvidence() const
{
    std::vector<const ShadowDecision *> out;
    for (const ShadowDecision &d : decisions) {
        if (d.outcome == Outcome::HarnessError || d.outcome == Outcome::NotCollected)
            out.push_back(&d);
    }
    return out;
}

std::vector<Finding> ShadowReport::findings() const
{
    std::vector<Finding> out;
    if (dryRun || interrupted || !harnessError.empty() || !headRan)
        return out;
    const auto add = [&out](const std::string &nodeId, const char *code, Severity severity,
                            std::string message, std::string evidence) {
        Finding f;
        f.gate = "run";
        f.code = code;
        f.severity = severity;
        f.test = nodeId;
        f.path = nodeId.substr(0, nodeId.find("::"));
        f.message = std::move(message);
        f.evidence = std::move(evidence);
        out.push_back(std::move(f));
    };
    std::set<std::string> bugNodes;
    for (const WitnessBug &bug : bugs) {
        bugNodes.insert(bug.nodeId);
        add(bug.nodeId, "S-WITNESS-BUG", Severity::Block,
            "shadow sample: " + bug.nodeId +
                " was skip-witnessed yet fails at head: " + bug.message,
            "a fix of the witness (it missed what the test depends on), and of the failure");
    }
    for (const ShadowDecision *d : failures()) {
        if (!bugNodes.count(d->nodeId))
            add(d->nodeId, "S-FAIL", Severity::Block,
                "shadow sample: " + d->nodeId + " (" + d->reason + ") fails at head: " + d->message,
                "an attribution of the test: did the patch cause it?");
    }
    for (const ShadowDecision *d : noEvidence())
        add(d->nodeId, "S-NO-EVIDENCE", Severity::Review,
            "shadow sample: " + d->nodeId + " (" + d->reason + ") gave no evidence at head (" +
                (d->outcome == Outcome::NotCollected ? "not collected" : "harness error") + ")",
            "a run of the test that is evidence");
    return out;
}

std::string Shadow::patchText(const PatchDiff &diff)
{
    std::string text;
    for (const FileDiff &f : diff.files) {
        const std::string oldPath = f.oldPath.empty() ? f.newPath : f.oldPath;
        const std::string newPath = f.newPath.empty() ? f.oldPath : f.newPath;
        text += "diff --git a/" + oldPath + " b/" + newPath + "\n";
        text += std::string("status ") + changeStatusLetter(f.status) + " " + f.oldBlob + ".." +
                f.newBlob + " " + octal(f.oldMode) + ".." + octal(f.newMode) + "\n";
        for (const DiffHunk &h : f.hunks) {
            text += h.header + "\n";
            for (const DiffLine &l : h.lines) {
                text += (l.origin == DiffLine::Origin::Added     ? "+"
                         : l.origin == DiffLine::Origin::Deleted ? "-"
                                                                 : " ") +
                        l.text + "\n";
                if (l.noNewlineAtEnd)
                    text += "\\ No newline at end of file\n";
            }
        }
    }
    return text;
}

std::string Shadow::patchDigest(const std::string &text)
{
    return sha256Hex(text);
}

int Shadow::pickValue(const std::string &patchDigest, const std::string &nodeId)
{
    const std::string first4 = sha256Hex(patchDigest + ":" + nodeId, 8);
    return int(std::stoul(first4, nullptr, 16) % 100);
}

void Shadow::decide(
    ShadowReport &report, const std::vector<WitnessRow> &head, const std::set<std::string> &changed,
    const std::function<std::optional<std::string>(const std::string &)> &frozenUntil,
    const std::vector<std::string> &fixtureGlobs)
{
    report.decisions.clear();
    report.ambientDrift = false;
    report.suiteChange.clear();
    // Files every test may read without running their code: the whole suite runs.
    const GlobSet fixtures(fixtureGlobs);
    std::vector<std::string> conftests; // changed or added conftest.py files
    for (const std::string &file : changed) {
        if (baseName(file) == "conftest.py")
            conftests.push_back(file);
        if (!report.suiteChange.empty())
            continue;
        if (isPytestConfig(file))
            report.suiteChange = "pytest configuration changed: " + file;
        else if (!file.ends_with(".py") && fixtures.matches(file))
            report.suiteChange = "fixture file changed: " + file;
    }
    std::map<std::string, const WitnessRow *> byNode; // one lookup per head test, not a scan
    for (const WitnessRow &row : report.witness.rows)
        byNode.emplace(row.nodeId, &row);
    const auto baseRow = [&](const std::string &nodeId) -> const WitnessRow * {
        const auto it = byNode.find(nodeId);
        return it == byNode.end() ? nullptr : it->second;
    };
    for (const WitnessRow &h : head) {
        const WitnessRow *b = baseRow(h.nodeId);
        const std::string baseAmbient =
            b ? b->ambientFp
              : (report.witness.rows.empty() ? h.ambientFp : report.witness.rows.front().ambientFp);
        if (baseAmbient != h.ambientFp) {
            report.ambientDrift = true;
            report.ambientDetail = "ambient fingerprint (TZ, LANG, LC_ALL, PYTHONHASHSEED, "
                                   "SOURCE_DATE_EPOCH) " +
                                   baseAmbient + " at base, " + h.ambientFp + " at head";
            break;
        }
    }
    for (const WitnessRow &h : head) {
        ShadowDecision d;
        d.nodeId = h.nodeId;
        const WitnessRow *b = baseRow(h.nodeId);
        if (b)
            d.witness = *b;
        const std::optional<std::string> frozen = frozenUntil(h.nodeId);
        d.frozen = frozen.has_value();
        std::string changedFile, conftest;
        for (const std::string &file : conftests) {
            const std::string dir = dirName(file);
            if (dir.empty() || fileOf(h.nodeId).starts_with(dir + "/")) {
                conftest = file;
                break;
            }
        }
        if (b) {
            for (const std::string &file : b->files) {
                if (changed.count(file) && file != fileOf(h.nodeId)) {
                    changedFile = file;
                    break;
                }
            }
        }
        const std::vector<std::string> drift =
            b ? driftedFixtures(*b, h) : std::vector<std::string>{};
        if (!b || !b->hasFiles)
            d.reason = "new test: no witness";
        else if (!b->complete)
            d.reason = "incomplete: uses " + join(b->escapes, ", ");
        else if (frozen)
            d.reason = "frozen until " + *frozen;
        else if (b->baseOutcome && *b->baseOutcome != Outcome::Pass &&
                 *b->baseOutcome != Outcome::Skipped)
            // It stopped early at base: its files are what it reached before the failure.
            d.reason = std::string("witness run did not pass: ") + outcomeName(*b->baseOutcome);
        else if (changed.count(fileOf(h.nodeId)))
            d.reason = "test file changed";
        else if (!drift.empty() || b->fixtureFp != h.fixtureFp)
            d.reason = "fixture drift" + (drift.empty() ? "" : ": " + join(drift, ", "));
        else if (!conftest.empty())
            d.reason = "conftest.py on its path changed: " + conftest;
        else if (!changedFile.empty())
            d.reason = (changedFile.ends_with(".py") ? "witnessed import " : "witnessed file ") +
                       changedFile + " changed";
        else if (report.ambientDrift)
            d.reason = "ambient drift";
        else if (!report.suiteChange.empty())
            d.reason = report.suiteChange;
        else {
            d.run = false;
            d.reason = "witnessed";
            d.sampled = picked(report.patchDigest, h.nodeId, report.pct);
        }
        report.decisions.push_back(std::move(d));
    }
    // What no witness lists and no rule above covers: the shadow sample is the check.
    std::set<std::string> witnessed;
    for (const WitnessRow &row : report.witness.rows)
        witnessed.insert(row.files.begin(), row.files.end());
    for (const std::string &file : changed) {
        if (!file.ends_with(".py") && !isDocumentation(file) && !isPytestConfig(file) &&
            !fixtures.matches(file) && !witnessed.count(file))
            report.warnings.push_back(file + " changed and no witness lists it: a test that "
                                             "reads it may be skipped (the shadow sample checks)");
    }
}

ShadowReport Shadow::run(const RunContext &ctx, const ShadowOptions &options, RunPool &runner,
                         const RunPool::Progress &onRun)
{
    ShadowReport report;
    report.repo = ctx.repoRoot();
    report.base = ctx.base().spec;
    report.baseCommit = ctx.base().commit;
    report.head = ctx.head().spec;
    report.headCommit = ctx.head().isWorktree() || ctx.head().isPatch() ? "" : ctx.head().commit;
    report.provenance = ctx.provenance();
    report.dryRun = options.dryRun;
    report.sandboxed = ctx.sandbox();
    report.pct = options.pct.value_or(ctx.config().shadowPct);
    if (report.pct < 0 || report.pct > 100)
        throw Error::input("shadow: the sample percentage must be 0..100, not " +
                           std::to_string(report.pct));

    const Repository repo = Repository::open(ctx.repoRoot());
    DiffOptions diffOptions;
    diffOptions.intraline = false;
    const PatchDiff diff = withoutLedgerDir(repo.diff(ctx.base(), ctx.head(), diffOptions), ctx);
    report.patchDigest = patchDigest(patchText(diff));
    std::set<std::string> changed;
    for (const FileDiff &f : diff.files) {
        for (const std::string *path : {&f.oldPath, &f.newPath}) {
            if (!path->empty())
                changed.insert(*path);
        }
    }
    report.changedPaths = int(diff.files.size());

    // The base witness: stored evidence when intact, else a full base run.
    RunSpec witnessSpec = ctx.spec(Arm::Base, {}, 0);
    const std::string witnessRows = witnessSpec.runDir + "/witness.jsonl";
    witnessSpec.env.witness.witnessFile = witnessRows;
    report.envDigest = envDigest(witnessSpec.env);
    const bool storable = ctx.base().kind == Revision::Kind::Commit && !ctx.base().commit.empty();
    // Kept in our cache, never read from the ledger directory: a WORKTREE head (or anyone
    // who can write untracked files there) could plant a witness that lists no files.
    if (storable)
        report.witnessPath = ctx.witnessDir() + "/" +
                             WitnessLedger::fileName(ctx.base().commit, report.envDigest,
                                                     RunEnvironment::pluginHash());
    bool reused = false;
    if (storable && !options.rewitness) {
        if (const std::optional<std::string> text = readWholeFile(report.witnessPath)) {
            try {
                WitnessLedger stored = WitnessLedger::parse(*text, report.witnessPath);
                if (stored.baseCommit != ctx.base().commit || stored.envDigest != report.envDigest)
                    throw Error::input(report.witnessPath +
                                       ": records another base or environment");
                report.witness = std::move(stored);
                reused = true;
            } catch (const Error &e) {
                report.warnings.push_back(std::string("taking a new base witness: ") + e.what());
            }
        }
    }

    RunSpec collectSpec = ctx.spec(Arm::Head, {}, 0);
    const std::string headRows = collectSpec.runDir + "/witness.jsonl";
    collectSpec.extraArgs << QStringLiteral("--collect-only");
    collectSpec.env.witness.witnessFile = headRows;
    collectSpec.env.witness.outFile.clear();
    collectSpec.env.witness.orderFile.clear();
    collectSpec.infraFailPct = 100;

    std::vector<RunSpec> specs;
    if (!reused)
        specs.push_back(witnessSpec);
    specs.push_back(collectSpec);
    ctx.say(std::string(reused ? "reusing the base witness " + report.witnessPath
                               : "taking the base witness (a full base run)") +
            "; collecting head");
    // `done` and `total` count the job's runs so far (the head run is planned last).
    const auto progress = [&](int done, int total, const RunResult &r) {
        if (onRun)
            onRun(done, total, r);
        ctx.say(runLine(done, total, r));
    };
    const std::vector<RunResult> first = runner.run(specs, progress);
    report.runs = first;
    for (const RunResult &r : first) {
        if (r.status == RunStatus::Cancelled)
            report.interrupted = true;
    }
    if (report.interrupted) {
        report.harnessError = "interrupted: runs were cancelled";
        return report;
    }

    if (!reused) {
        const RunResult &w = first.front();
        if (!w.evidence()) {
            report.harnessError = "the base witness run is no evidence: " + w.harnessReason;
            return report;
        }
        const WitnessRowsFile rows = readWitnessRows(witnessRows);
        if (!rows.ok()) {
            report.harnessError = "base witness: " + rows.error;
            return report;
        }
        std::map<std::string, Outcome> outcomes;
        for (const NodeOutcome &o : w.outcomes)
            outcomes[o.nodeId] = o.outcome;
        report.witness.baseCommit = ctx.base().commit;
        report.witness.envDigest = report.envDigest;
        report.witness.recorded = utcTimestampText(QDateTime::currentDateTimeUtc());
        report.witness.command = w.command;
        report.witness.rows = rows.rows;
        for (WitnessRow &row : report.witness.rows) {
            if (const auto it = outcomes.find(row.nodeId); it != outcomes.end())
                row.baseOutcome = it->second;
        }
        if (storable) {
            try {
                report.witness.write(report.witnessPath);
                report.witnessState = "recorded";
            } catch (const Error &e) {
                report.witnessState = std::string("not stored: ") + e.what();
                report.witnessPath.clear();
            }
        } else {
            report.witnessState = "not stored: the base is not a commit";
        }
    } else {
        report.witnessState = "reused";
    }

    const RunResult &collect = first.back();
    if (collect.status != RunStatus::Completed ||
        (collect.exitCode != 0 && collect.exitCode != 5)) {
        report.harnessError =
            "the head collection failed (" +
            (collect.harnessReason.empty() ? "exit " + std::to_string(collect.exitCode)
                                           : collect.harnessReason) +
            "); `patchwitness-cli census` names the files that do not collect";
        return report;
    }
    if (!collect.envDigest.empty() && collect.envDigest != report.envDigest) {
        report.harnessError = "the head collection ran in another environment (env digest " +
                              collect.envDigest + ", witness " + report.envDigest + ")";
        return report;
    }
    WitnessRowsFile head;
    if (collect.exitCode != 5 || QFileInfo::exists(QString::fromStdString(headRows)))
        head = readWitnessRows(headRows);
    if (!head.ok()) {
        report.harnessError = "head collection: " + head.error;
        return report;
    }

    QDate today = QDate::currentDate();
    if (!ctx.target().today.empty()) {
        if (const std::optional<QDate> d = parseLedgerDate(ctx.target().today))
            today = *d;
    }
    const LedgerSet ledgers = censusBaseLedgers(ctx, repo);
    for (const LedgerProblem &p : ledgers.loadProblems)
        report.warnings.push_back("base ledgers: " + p.toString());
    decide(
        report, head.rows, changed,
        [&](const std::string &node) { return activeFreeze(ledgers, today, node); },
        ctx.config().fixtureGlobs);
    if (options.dryRun)
        return report;

    std::vector<std::string> selection;
    for (const ShadowDecision &d : report.decisions) {
        if (d.run || d.sampled)
            selection.push_back(d.nodeId);
    }
    if (selection.empty())
        return report; // nothing to run: every test is skip-witnessed and none sampled
    const bool wholeSuite = report.ambientDrift || !report.suiteChange.empty();
    if (wholeSuite)
        selection.clear(); // the whole suite
    ctx.say(wholeSuite
                ? (report.ambientDrift ? std::string("ambient drift") : report.suiteChange) +
                      ": running the whole head suite"
                : "running " + std::to_string(report.toRun()) + " test(s) and a shadow sample of " +
                      std::to_string(report.sampled()) + " at head");
    // Counted on from the first phase: the head run is the job's run first.size() + 1.
    const int before = int(first.size());
    const std::vector<RunResult> second = runner.run({ctx.spec(Arm::Head, selection, 0)},
                                                     [&](int done, int total, const RunResult &r) {
                                                         progress(before + done, before + total, r);
                                                     });
    const RunResult &result = second.front();
    report.runs.push_back(result);
    report.headRan = true;
    if (result.status == RunStatus::Cancelled) {
        report.interrupted = true;
        report.harnessError = "interrupted: the head run was cancelled";
        return report;
    }
    if (!result.evidence()) {
        report.harnessError = "the head run is no evidence: " + result.harnessReason;
        return report;
    }
    std::map<std::string, const NodeOutcome *> outcomes;
    for (const NodeOutcome &o : result.outcomes)
        outcomes[o.nodeId] = &o;
    for (ShadowDecision &d : report.decisions) {
        if (!d.run && !d.sampled)
            continue;
        const auto it = outcomes.find(d.nodeId);
        if (it == outcomes.end()) {
            d.outcome = Outcome::NotCollected;
            continue;
        }
        d.outcome = it->second->outcome;
        d.message = it->second->message;
        if (!d.sampled || !d.failed())
            continue;
        const std::optional<Outcome> before = d.witness ? d.witness->baseOutcome : std::nullopt;
        if (before == Outcome::Fail || before == Outcome::Error) {
            report.warnings.push_back(d.nodeId + " (shadow sample) failed at base too: not a "
                                                 "witness bug");
            continue;
        }
        WitnessBug bug;
        bug.nodeId = d.nodeId;
        bug.message = d.message;
        if (d.witness) {
            bug.files = d.witness->files;
            bug.fixtures = d.witness->fixtures;
        }
        report.bugs.push_back(std::move(bug));
    }
    return report;
}

} // namespace pw::core
