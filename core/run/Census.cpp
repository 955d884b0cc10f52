#include "run/Census.h"

#include "audit/Audit.h"
#include "ledger/LedgerDate.h"
#include "ledger/LedgerSet.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"
#include "run/RunPool.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDate>
#include <algorithm>
#include <set>

namespace pw::core {

namespace {

constexpr const char *kGate = "census";

// Static facts of the test functions of both trees, by function id.
struct StaticSide
{
    std::map<std::string, CensusFacts> functions;
    std::map<std::string, int> lines;
    int assertions = 0;
    int testFunctions = 0;
};

StaticSide staticFacts(const Repository &repo, const Revision &rev, FactExtractor &extractor,
                       const std::set<std::string> &files)
{
    std::vector<SourceRef> refs;
    for (const std::string &file : files) {
        const std::optional<FileEntry> entry = repo.entry(rev, file);
        if (!entry || file.size() < 3 || file.compare(file.size() - 3, 3, ".py") != 0)
            continue;
        refs.push_back(
            {file, entry->blob, [&repo, rev, file] { return repo.readFile(rev, file); }});
    }
    StaticSide side;
    for (const FileFacts &facts : extractor.extract(refs)) {
        for (const TestFunctionFacts &t : facts.tests) {
            CensusFacts f;
            f.bodyHash = t.bodyHash;
            f.assertions = t.asserts;
            f.parametrizeCases = t.parametrizeCases;
            f.parametrized =
                std::find(t.markers.begin(), t.markers.end(), "parametrize") != t.markers.end();
            const std::string id = facts.path + "::" + t.name;
            side.functions[id] = f;
            side.lines[id] = t.line;
            side.assertions += t.asserts;
            ++side.testFunctions;
        }
    }
    return side;
}

const CensusFacts *factsOf(const StaticSide &side, const std::string &functionId)
{
    const auto it = side.functions.find(functionId);
    return it == side.functions.end() ? nullptr : &it->second;
}

bool startsWith(const std::string &text, const std::string &prefix)
{
    return text.rfind(prefix, 0) == 0;
}

// Waivers and freezes as the static audit counted them, plus the base ledgers for the
// waiver witnesses and for skips only a run sees.
class LedgerView
{
public:
    LedgerView(const GateReport *audit, LedgerSet ledgers, QDate today)
        : m_audit(audit), m_ledgers(std::move(ledgers)), m_today(today)
    {
    }

    // The waiver node that satisfies the removal of `functionId` (in `file`), if any.
    std::optional<std::string> waiverFor(const std::string &functionId,
                                         const std::string &file) const
    {
        if (!m_audit)
            return std::nullopt;
        for (const Finding &f : m_audit->findings) {
            const bool removal =
                f.code == "T-DEL" || f.code == "T-GONE" || f.code == "BLOCKER:deleted";
            const bool about = f.test == functionId || (f.test.empty() && f.path == file);
            if (removal && about && f.satisfiedBy && startsWith(*f.satisfiedBy, kWaiverPrefix)) {
                const std::string node = f.satisfiedBy->substr(std::string(kWaiverPrefix).size());
                if (node == functionId || f.test.empty())
                    return node;
            }
        }
        return std::nullopt;
    }

    std::optional<std::string> witnessOf(const std::string &node) const
    {
        if (!m_ledgers.waivers)
            return std::nullopt;
        const WaiverEntry *w = m_ledgers.waivers->find(node);
        return w ? w->witness : std::nullopt;
    }

    // "quarantine.toml: <test>" when a counting freeze answers a skip of `functionId`.
    std::optional<std::string> freezeFor(const std::string &functionId) const
    {
        if (m_audit) {
            for (const Finding &f : m_audit->findings) {
                if (f.test == functionId && f.satisfiedBy &&
                    startsWith(*f.satisfiedBy, "quarantine.toml"))
                    return f.satisfiedBy;
            }
        }
        // A skip the static facts cannot see (a hook, pytest.skip behind a condition): a
        // base freeze of the test that has not expired.
        if (m_ledgers.quarantine) {
            const QuarantineEntry *q = m_ledgers.quarantine->find(functionId);
            if (q && q->expires && *q->expires >= m_today)
                return std::string("quarantine.toml: ") + functionId + " (expires " +
                       q->expires->toString(Qt::ISODate).toStdString() + ")";
        }
        return std::nullopt;
    }

private:
    static constexpr const char *kWaiverPrefix = "census_waiver.toml: ";
    const GateReport *m_audit;
    LedgerSet m_ledgers;
    QDate m_today;
};

LedgerSet baseLedgers(const RunContext &ctx, const Repository &repo)
{
    const std::string root = ctx.repoRoot() + "/";
    if (!startsWith(ctx.ledgerDir() + "/", root) || ctx.base().commit.empty())
        return LedgerSet::loadDirectory(ctx.ledgerDir());
    const std::string prefix = ctx.ledgerDir().substr(root.size()) + "/";
    return LedgerSet::load(
        [&](const std::string &name) -> std::optional<std::string> {
            if (!repo.entry(ctx.base(), prefix + name))
                return std::nullopt;
            return repo.readFile(ctx.base(), prefix + name);
        },
        prefix);
}

Finding finding(const std::string &code, Severity severity, const std::string &test, int line,
                const std::string &message, const std::string &evidence)
{
    Finding f;
    f.gate = kGate;
    f.code = code;
    f.severity = severity;
    f.path = fileOf(test);
    f.test = test;
    f.line = line;
    f.message = message;
    f.evidence = evidence;
    return f;
}

Finding fileFinding(const std::string &code, Severity severity, const std::string &path,
                    const std::string &message, const std::string &evidence)
{
    Finding f = finding(code, severity, path, 0, message, evidence);
    f.test.clear();
    return f;
}

std::string lastLine(const std::string &text)
{
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
        t.pop_back();
    const size_t nl = t.rfind('\n');
    std::string line = nl == std::string::npos ? t : t.substr(nl + 1);
    if (startsWith(line, "E   "))
        line = line.substr(4);
    return line;
}

class Classifier
{
public:
    Classifier(CensusReport &report, const StaticSide &base, const StaticSide &head,
               const LedgerView &ledgers)
        : m_report(report), m_base(base), m_head(head), m_ledgers(ledgers)
    {
    }

    // Fills rows (with the head witness outcomes still unknown) and findings.
    void classify(const CensusCollection &base, const CensusCollection &head,
                  const std::map<std::string, Outcome> &baseRun,
                  const std::map<std::string, Outcome> &headRun,
                  const std::function<std::optional<Outcome>(const std::string &)> &witnessOutcome)
    {
        std::map<std::string, CensusRow> rows;
        for (const CensusNode &n : base.dump.nodes) {
            CensusRow &r = rows[n.nodeId];
            r.nodeId = n.nodeId;
            r.atBase = true;
            r.skippedBase = n.skipped;
        }
        for (const CensusNode &n : head.dump.nodes) {
            CensusRow &r = rows[n.nodeId];
            r.nodeId = n.nodeId;
            r.atHead = true;
            r.skippedHead = n.skipped;
        }
        std::map<std::string, int> baseCount, headCount; // per function id
        for (auto &[id, r] : rows) {
            if (const auto it = baseRun.find(id); it != baseRun.end()) {
                r.outcomeBase = it->second;
                r.skippedBase = r.skippedBase || it->second == Outcome::Skipped;
            }
            if (const auto it = headRun.find(id); it != headRun.end()) {
                r.outcomeHead = it->second;
                r.skippedHead = r.skippedHead || it->second == Outcome::Skipped;
            }
            baseCount[functionIdOf(id)] += r.atBase ? 1 : 0;
            headCount[functionIdOf(id)] += r.atHead ? 1 : 0;
        }

        // Bodies of functions only the head collects: a removed node whose body reappears
        // under another name was renamed.
        std::map<std::string, std::string> headOnlyByBody;
        for (const auto &[fn, n] : headCount) {
            if (baseCount[fn] == 0 && n > 0) {
                if (const CensusFacts *f = factsOf(m_head, fn); f && !f->bodyHash.empty())
                    headOnlyByBody.emplace(f->bodyHash, fn);
            }
        }

        std::set<std::string> reported; // function ids (or files) a finding exists for
        for (auto &[id, r] : rows) {
            const std::string fn = functionIdOf(id);
            const std::string file = fileOf(id);
            if (r.atBase && r.atHead) {
                classifyKept(r, fn, base, head, reported);
            } else if (r.atBase) {
                if (head.collectErrors.count(file) && !base.collectErrors.count(file)) {
                    r.change = "collect-error";
                    r.code = "C-COLLECT";
                    r.severity = Severity::Block;
                    r.detail = file + " fails to collect at head: " + head.collectErrors.at(file);
                    if (reported.insert(file).second)
                        m_report.findings.push_back(fileFinding(
                            "C-COLLECT", Severity::Block, file,
                            file + " collects at base but fails to collect at head (" +
                                head.collectErrors.at(file) + "): its tests no longer run",
                            "a test file that collects"));
                } else if (headCount[fn] > 0) {
                    classifyNarrowed(r, fn, baseCount[fn], headCount[fn], reported);
                } else if (const CensusFacts *f = factsOf(m_base, fn);
                           f && !f->bodyHash.empty() && headOnlyByBody.count(f->bodyHash)) {
                    const std::string to = headOnlyByBody.at(f->bodyHash);
                    r.change = "renamed";
                    r.code = "C-RENAME";
                    r.severity = Severity::Info;
                    r.detail = "renamed to " + to + " (same body)";
                    if (reported.insert(fn).second)
                        m_report.findings.push_back(
                            finding("C-RENAME", Severity::Info, fn, lineOf(m_base, fn),
                                    fn + " was renamed to " + to + " (same body hash)", "none"));
                } else {
                    classifyRemoved(r, fn, file, head, witnessOutcome, reported);
                }
            } else {
                r.change = "added";
            }
        }
        for (auto &[id, r] : rows)
            m_report.rows.push_back(std::move(r));
    }

private:
    static int lineOf(const StaticSide &side, const std::string &fn)
    {
        const auto it = side.lines.find(fn);
        return it == side.lines.end() ? 0 : it->second;
    }

    static bool hasMarker(const CensusCollection &c, const std::string &id, const char *marker)
    {
        const CensusNode *n = c.dump.find(id);
        return n && std::find(n->markers.begin(), n->markers.end(), marker) != n->markers.end();
    }

    void classifyKept(CensusRow &r, const std::string &fn, const CensusCollection &base,
                      const CensusCollection &head, std::set<std::string> &reported)
    {
        r.change = "kept";
        const bool xfailAdded =
            hasMarker(head, r.nodeId, "xfail") && !hasMarker(base, r.nodeId, "xfail");
        if ((r.skippedHead && !r.skippedBase) || xfailAdded) {
            r.change = "skip-added";
            r.code = "C-SKIP";
            r.severity = Severity::Block;
            r.satisfiedBy = m_ledgers.freezeFor(fn);
            r.detail = std::string(xfailAdded ? "xfail added" : "runs at base, skipped at head") +
                       (r.satisfiedBy ? "; frozen: " + *r.satisfiedBy : "; no active freeze");
            if (reported.insert("skip:" + fn).second) {
                Finding f = finding("C-SKIP", Severity::Block, fn, lineOf(m_head, fn),
                                    fn + (xfailAdded ? " is newly xfail at head"
                                                     : " ran at base and is skipped at head"),
                                    "a freeze record with an expiry (Grant freeze)");
                f.satisfiedBy = r.satisfiedBy;
                m_report.findings.push_back(std::move(f));
            }
            return;
        }
        const CensusFacts *b = factsOf(m_base, fn);
        const CensusFacts *h = factsOf(m_head, fn);
        if (b && h && h->assertions < b->assertions) {
            r.change = "density-down";
            r.code = "C-DENSITY";
            r.severity = Severity::Review;
            r.detail = "assertions " + std::to_string(b->assertions) + " -> " +
                       std::to_string(h->assertions);
            if (reported.insert("density:" + fn).second)
                m_report.findings.push_back(finding(
                    "C-DENSITY", Severity::Review, fn, lineOf(m_head, fn),
                    fn + " still runs but checks less: assertions " +
                        std::to_string(b->assertions) + " -> " + std::to_string(h->assertions),
                    "a reviewer note naming the property still covered"));
        }
    }

    void classifyNarrowed(CensusRow &r, const std::string &fn, int before, int after,
                          std::set<std::string> &reported)
    {
        if (after >= before) { // same number of cases, other ids: the parameters were renamed
            r.change = "renamed";
            r.code = "C-RENAME";
            r.detail = "parameter ids changed; " + std::to_string(after) + " cases at both";
            return;
        }
        const CensusFacts *h = factsOf(m_head, fn);
        const bool data = h && h->parametrized && !h->parametrizeCases;
        r.change = "narrowed";
        r.code = "C-PARAM";
        r.severity = data ? Severity::Review : Severity::Block;
        r.detail = "parametrize cases " + std::to_string(before) + " -> " + std::to_string(after) +
                   (data ? " (the case list is data)" : "");
        if (reported.insert("param:" + fn).second)
            m_report.findings.push_back(finding(
                "C-PARAM", r.severity, fn, lineOf(m_head, fn),
                fn + ": parametrize cases " + std::to_string(before) + " -> " +
                    std::to_string(after) +
                    (data ? " (the case list is computed or read from data: review the data)"
                          : " (the patch narrowed the cases the test checks)"),
                data ? "the data change and why the cases went"
                     : "the removed cases back, or a "
                       "census waiver per case"));
    }

    void classifyRemoved(CensusRow &r, const std::string &fn, const std::string &file,
                         const CensusCollection &head,
                         const std::function<std::optional<Outcome>(const std::string &)> &outcome,
                         std::set<std::string> &reported)
    {
        r.change = "removed";
        r.code = "C-REMOVED";
        r.severity = Severity::Block;
        std::string why = "no census waiver";
        if (const std::optional<std::string> node = m_ledgers.waiverFor(fn, file)) {
            const std::optional<std::string> witness = m_ledgers.witnessOf(*node);
            if (!witness || witness->empty()) {
                why = "the waiver for " + *node + " names no witness";
            } else if (!collected(head, *witness)) {
                why = "the waiver's witness " + *witness + " is not collected at head";
            } else {
                const std::optional<Outcome> o = outcome(*witness);
                if (o && *o == Outcome::Pass) {
                    r.satisfiedBy = "census_waiver.toml: " + *node + " (witness " + *witness +
                                    " collected and passed at head)";
                    why.clear();
                } else {
                    why = "the waiver's witness " + *witness +
                          (o ? std::string(" did not pass at head (") + outcomeName(*o) + ")"
                             : std::string(" did not run at head"));
                }
            }
        }
        r.detail = why.empty() ? *r.satisfiedBy : why;
        if (reported.insert("removed:" + fn).second) {
            Finding f = finding("C-REMOVED", Severity::Block, fn, lineOf(m_base, fn),
                                fn + " is collected at base and not at head" +
                                    (why.empty() ? "" : " — " + why),
                                "a census waiver whose witness is collected and passes at head");
            f.satisfiedBy = r.satisfiedBy;
            m_report.findings.push_back(std::move(f));
        }
    }

public:
    static bool collected(const CensusCollection &head, const std::string &witness)
    {
        return std::any_of(head.dump.nodes.begin(), head.dump.nodes.end(),
                           [&](const CensusNode &n) {
                               return n.nodeId == witness || functionIdOf(n.nodeId) == witness;
                           });
    }

private:
    CensusReport &m_report;
    const StaticSide &m_base;
    const StaticSide &m_head;
    const LedgerView &m_ledgers;
};

std::map<std::string, Outcome> outcomesOf(const RunResult &run)
{
    std::map<std::string, Outcome> out;
    if (!run.evidence())
        return out;
    for (const NodeOutcome &o : run.outcomes)
        out[o.nodeId] = o.outcome;
    return out;
}

// Pass when every collected node of `witness` passed; otherwise the first other outcome.
std::optional<Outcome> witnessOutcome(const std::map<std::string, Outcome> &outcomes,
                                      const std::string &witness)
{
    std::optional<Outcome> result;
    for (const auto &[id, o] : outcomes) {
        if (id != witness && functionIdOf(id) != witness)
            continue;
        if (o != Outcome::Pass)
            return o;
        result = Outcome::Pass;
    }
    return result;
}

std::string differenceOf(const CensusDump &a, const CensusDump &b)
{
    std::set<std::string> ia, ib;
    for (const CensusNode &n : a.nodes)
        ia.insert(n.nodeId);
    for (const CensusNode &n : b.nodes)
        ib.insert(n.nodeId);
    std::vector<std::string> only;
    std::set_symmetric_difference(ia.begin(), ia.end(), ib.begin(), ib.end(),
                                  std::back_inserter(only));
    std::string text = "count " + std::to_string(a.count()) + " vs " + std::to_string(b.count()) +
                       ", digest " + a.digest + " vs " + b.digest;
    if (!only.empty()) {
        text += "; in one collection only: " + only.front();
        if (only.size() > 1)
            text += " and " + std::to_string(only.size() - 1) + " more";
    }
    return text;
}

} // namespace

Verdict CensusReport::verdict() const
{
    Verdict v = Verdict::Pass;
    for (const Finding &f : findings) {
        if (f.satisfiedBy)
            continue;
        if (f.severity == Severity::Block)
            return Verdict::Block;
        if (f.severity == Severity::Review)
            v = Verdict::Review;
    }
    return v;
}

int CensusReport::count(const std::string &change) const
{
    return int(std::count_if(rows.begin(), rows.end(),
                             [&](const CensusRow &r) { return r.change == change; }));
}

void Census::readCollection(CensusCollection &c, const std::string &dumpPath)
{
    const RunResult &run = c.run;
    for (const NodeOutcome &o : run.outcomes) {
        if (o.outcome == Outcome::Error && o.message == "collection failure")
            c.collectErrors[fileOf(o.nodeId)] = "collection failure";
    }
    if (run.status != RunStatus::Completed) {
        c.error = run.harnessReason;
        return;
    }
    if (run.exitCode != 0 && run.exitCode != 2 && run.exitCode != 5) {
        c.error = run.harnessReason.empty() ? "pytest exit " + std::to_string(run.exitCode)
                                            : run.harnessReason;
        return;
    }
    const std::optional<std::string> text = readWholeFile(dumpPath);
    if (!text) {
        // exit 5 before any module was imported writes no dump: an empty census is valid.
        if (run.exitCode == 5) {
            c.ok = true;
            c.dump.origin = dumpPath;
            c.dump.digest = CensusDump::digestOf({});
            return;
        }
        c.error = "the collect-only run wrote no census dump (" + dumpPath + ")";
        return;
    }
    try {
        c.dump = CensusDump::parse(*text, dumpPath);
        c.ok = true;
        for (const auto &[path, message] : c.dump.errors)
            c.collectErrors[fileOf(path)] =
                message.empty() ? "collection failure" : lastLine(message);
    } catch (const Error &e) {
        c.error = e.what();
    }
}

CensusReport Census::run(const RunContext &ctx, const CensusOptions &options, RunPool *pool)
{
    CensusReport report;
    report.repo = ctx.repoRoot();
    report.base = ctx.base().spec;
    report.baseCommit = ctx.base().commit;
    report.head = ctx.head().spec;
    report.headCommit = ctx.head().isWorktree() || ctx.head().isPatch() ? "" : ctx.head().commit;

    RunPool localPool(ctx.workers());
    RunPool &runner = pool ? *pool : localPool;

    // Collect-only: base, head, base again (interleaved so noise hits both trees).
    std::vector<RunSpec> specs;
    std::vector<std::string> dumps;
    for (const Arm arm : {Arm::Base, Arm::Head, Arm::Base}) {
        RunSpec spec = ctx.spec(arm, {}, 0);
        spec.extraArgs << QStringLiteral("--collect-only");
        spec.env.witness.collectFile = spec.runDir + "/census.json";
        spec.env.witness.outFile.clear();
        spec.env.witness.orderFile.clear();
        // A collection error is a census finding, not an infrastructure failure.
        spec.infraFailPct = 100;
        dumps.push_back(spec.env.witness.collectFile);
        specs.push_back(std::move(spec));
    }
    if (options.execute) {
        for (const Arm arm : {Arm::Base, Arm::Head})
            specs.push_back(ctx.spec(arm, {}, 0));
    }
    ctx.say("collecting base, head and base again" +
            std::string(options.execute ? ", then running both suites" : "") + " on " +
            std::to_string(ctx.workers()) + " worker(s)");
    const std::vector<RunResult> results =
        runner.run(specs, [&](int done, int total, const RunResult &r) {
            const bool collect = r.command.find("--collect-only") != std::string::npos;
            ctx.say(std::to_string(done) + "/" + std::to_string(total) + " " + r.arm +
                    (collect ? " collect" : " run") + ": " +
                    (r.evidence() || r.status == RunStatus::Completed
                         ? "exit " + std::to_string(r.exitCode)
                         : std::string(runStatusName(r.status))) +
                    " (" + std::to_string(r.durationMs / 1000.0).substr(0, 4) + " s)");
        });

    for (int i = 0; i < 3; ++i) {
        CensusCollection c;
        c.arm = i == 1 ? Arm::Head : Arm::Base;
        c.run = results[size_t(i)];
        readCollection(c, dumps[size_t(i)]);
        report.collections.push_back(std::move(c));
    }
    for (size_t i = 3; i < results.size(); ++i)
        report.executions.push_back(results[i]);
    report.envDigest = results.front().envDigest;
    report.interrupted = std::any_of(results.begin(), results.end(), [](const RunResult &r) {
        return r.status == RunStatus::Cancelled;
    });

    const CensusCollection &base = report.collections[0];
    const CensusCollection &head = report.collections[1];
    const CensusCollection &base2 = report.collections[2];
    for (const CensusCollection &c : report.collections) {
        if (!c.ok) {
            report.harnessError = std::string(armName(c.arm)) + " collection: " + c.error;
            return report;
        }
    }
    for (const RunResult &r : results) {
        if (r.envDigest != report.envDigest) {
            report.harnessError = "runs of this census have different env digests (" +
                                  report.envDigest + ", " + r.envDigest + "): not comparable";
            return report;
        }
    }
    if (base.dump.digest != base2.dump.digest) {
        report.unstable = true;
        report.unstableDetail = differenceOf(base.dump, base2.dump);
        report.findings.push_back(fileFinding(
            "C-UNSTABLE", Severity::Review, "",
            "the baseline census is not reproducible (" + report.unstableDetail +
                "): the census is unstable and not trusted",
            "a collection that does not depend on the run (ordering, time, environment)"));
    }
    for (const auto &[file, message] : base.collectErrors)
        report.warnings.push_back(file + " fails to collect at base as well (" + message + ")");

    // Executed vs skipped.
    std::map<std::string, Outcome> baseRun, headRun;
    for (const RunResult &r : report.executions) {
        if (!r.evidence())
            report.warnings.push_back(r.arm +
                                      " suite run not used as evidence: " + r.harnessReason);
        (r.arm == "base" ? baseRun : headRun) = outcomesOf(r);
    }

    // Static side: facts of every test file either census names, and the ledgers.
    const Repository repo = Repository::open(ctx.repoRoot());
    std::set<std::string> baseFiles, headFiles;
    for (const CensusNode &n : base.dump.nodes)
        baseFiles.insert(fileOf(n.nodeId));
    for (const CensusNode &n : head.dump.nodes)
        headFiles.insert(fileOf(n.nodeId));
    FactExtractor extractor(ctx.config().python, ctx.target().cacheDir.empty()
                                                     ? FactExtractor::defaultCacheDir()
                                                     : ctx.target().cacheDir);
    for (const auto &[file, message] : head.collectErrors)
        baseFiles.insert(file); // the base facts of a file that breaks at head
    const StaticSide baseStatic = staticFacts(repo, ctx.base(), extractor, baseFiles);
    const StaticSide headStatic = staticFacts(repo, ctx.head(), extractor, headFiles);

    std::optional<GateReport> audit;
    try {
        AuditRequest request = ctx.target();
        request.python = ctx.config().python;
        audit = Audit::run(request);
    } catch (const Error &e) {
        report.warnings.push_back(std::string("static audit failed, waivers and freezes not "
                                              "counted: ") +
                                  e.what());
    }
    QDate today = QDate::currentDate();
    if (!ctx.target().today.empty()) {
        if (const std::optional<QDate> d = parseLedgerDate(ctx.target().today))
            today = *d;
    }
    const LedgerView ledgers(audit ? &*audit : nullptr, baseLedgers(ctx, repo), today);

    // Witnesses the execution did not run (or no execution): one head run of them.
    std::map<std::string, Outcome> witnessRun = headRun;
    {
        std::vector<std::string> needed;
        for (const CensusNode &n : base.dump.nodes) {
            if (Classifier::collected(head, n.nodeId))
                continue;
            const std::string fn = functionIdOf(n.nodeId);
            if (const std::optional<std::string> node = ledgers.waiverFor(fn, fileOf(fn))) {
                const std::optional<std::string> w = ledgers.witnessOf(*node);
                if (w && !w->empty() && Classifier::collected(head, *w) &&
                    !witnessOutcome(headRun, *w) &&
                    std::find(needed.begin(), needed.end(), *w) == needed.end())
                    needed.push_back(*w);
            }
        }
        if (!needed.empty() && !report.interrupted) {
            ctx.say("running " + std::to_string(needed.size()) + " waiver witness(es) at head");
            const std::vector<RunResult> w = runner.run({ctx.spec(Arm::Head, needed, 0)});
            report.executions.push_back(w.front());
            for (const NodeOutcome &o : w.front().outcomes) {
                if (w.front().status == RunStatus::Completed)
                    witnessRun[o.nodeId] = o.outcome;
            }
        }
    }

    Classifier(report, baseStatic, headStatic, ledgers)
        .classify(base, head, baseRun, headRun,
                  [&](const std::string &witness) { return witnessOutcome(witnessRun, witness); });

    auto summarise = [&](const CensusCollection &c, const std::map<std::string, Outcome> &run,
                         const StaticSide &side, bool isBase) {
        CensusArmSummary s;
        s.collected = c.dump.count();
        s.digest = c.dump.digest;
        for (const CensusRow &r : report.rows) {
            if (isBase ? !r.atBase : !r.atHead)
                continue;
            const bool skipped = isBase ? r.skippedBase : r.skippedHead;
            s.skipped += skipped ? 1 : 0;
            s.executed += !skipped && run.count(r.nodeId) ? 1 : 0;
        }
        s.assertions = side.assertions;
        s.testFunctions = side.testFunctions;
        return s;
    };
    report.baseSummary = summarise(base, baseRun, baseStatic, true);
    report.headSummary = summarise(head, headRun, headStatic, false);
    return report;
}

} // namespace pw::core
