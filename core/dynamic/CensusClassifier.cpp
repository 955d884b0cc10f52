#include "dynamic/CensusClassifier.h"

#include "ledger/LedgerDate.h"
#include "ledger/LedgerValidator.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"

#include <algorithm>

namespace pw::core {

namespace {

constexpr const char *kGate = "census";

const CensusFacts *factsOf(const CensusStatic &side, const std::string &functionId)
{
    const auto it = side.functions.find(functionId);
    return it == side.functions.end() ? nullptr : &it->second;
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

class Classifier
{
public:
    Classifier(CensusReport &report, const CensusStatic &base, const CensusStatic &head,
               const CensusLedgers &ledgers)
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

        // A removed function found again under another id (the same body, or most of its
        // statements in a renamed or moved class or file) was renamed.
        m_renames = censusRenames(base, head, m_base, m_head);
        for (const auto &[from, rename] : m_renames)
            m_renamedAway.insert(from);

        std::map<std::string, std::string> renamedTo; // base function → the head one it took
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
                        m_report.findings.push_back(censusFileFinding(
                            "C-COLLECT", Severity::Block, file,
                            file + " collects at base but fails to collect at head (" +
                                head.collectErrors.at(file) + "): its tests no longer run",
                            "a test file that collects"));
                } else if (headCount[fn] > 0) {
                    classifyNarrowed(r, fn, baseCount[fn], headCount[fn], reported);
                } else if (const auto rename = m_renames.find(fn); rename != m_renames.end()) {
                    const std::string &to = rename->second.to;
                    renamedTo[fn] = to;
                    const bool same = rename->second.match == TestMatch::Body;
                    const std::string kept =
                        std::to_string(rename->second.similarity) + "% of its statements kept";
                    r.change = "renamed";
                    r.code = "C-RENAME";
                    r.severity = Severity::Info;
                    r.detail = "renamed to " + to + (same ? " (same body)" : " (" + kept + ")");
                    if (reported.insert(fn).second)
                        m_report.findings.push_back(
                            finding("C-RENAME", Severity::Info, fn, lineOf(m_base, fn),
                                    fn + " was renamed to " + to +
                                        (same ? " (same body hash)" : " (" + kept + ")"),
                                    "none"));
                } else {
                    classifyRemoved(r, fn, file, head, witnessOutcome, reported);
                }
            } else {
                r.change = "added";
            }
        }
        classifyRenameTargets(rows, renamedTo, headCount, base, head, reported);
        // A test file that fails to collect at head and collected nothing at base (new, or
        // empty before): the tests it would add never run, and pytest's exit 2 is no pass.
        for (const auto &[file, error] : head.collectErrors) {
            if (base.collectErrors.count(file) || !reported.insert(file).second)
                continue;
            m_report.findings.push_back(censusFileFinding("C-COLLECT", Severity::Block, file,
                                                          file + " fails to collect at head (" +
                                                              error + "): none of its tests run",
                                                          "a test file that collects"));
        }
        for (auto &[id, r] : rows)
            m_report.rows.push_back(std::move(r));
    }

private:
    static int lineOf(const CensusStatic &side, const std::string &fn)
    {
        const auto it = side.lines.find(fn);
        return it == side.lines.end() ? 0 : it->second;
    }

    static bool hasMarker(const CensusCollection &c, const std::string &id, const char *marker)
    {
        const CensusNode *n = c.dump.find(id);
        return n && std::find(n->markers.begin(), n->markers.end(), marker) != n->markers.end();
    }

    // C-SKIP: a test that ran at base is skipped or newly xfail at head (`renamedFrom`: the
    // base function it was renamed from, when the head id is a rename's).
    void skipAdded(CensusRow &r, const std::string &fn, bool xfailAdded,
                   const CensusCollection &head, const std::string &renamedFrom,
                   std::set<std::string> &reported)
    {
        r.change = "skip-added";
        r.code = "C-SKIP";
        r.severity = Severity::Block;
        const CensusNode *atHead = head.dump.find(r.nodeId);
        r.satisfiedBy = m_ledgers.freezeFor(fn, xfailAdded || (atHead && atHead->skipped));
        const std::string renamed =
            renamedFrom.empty() ? "" : " (renamed from " + renamedFrom + ")";
        r.detail = std::string(xfailAdded ? "xfail added" : "runs at base, skipped at head") +
                   renamed + (r.satisfiedBy ? "; frozen: " + *r.satisfiedBy : "; no active freeze");
        if (reported.insert("skip:" + fn).second) {
            Finding f = finding("C-SKIP", Severity::Block, fn, lineOf(m_head, fn),
                                fn + renamed +
                                    (xfailAdded ? " is newly xfail at head"
                                                : " ran at base and is skipped at head"),
                                "a freeze record with an expiry (Grant freeze)");
            f.satisfiedBy = r.satisfiedBy;
            m_report.findings.push_back(std::move(f));
        }
    }

    // Head ids a rename produced are no additions: "renamed-to", counted once (as the base
    // ids' "renamed"). A skip or xfail gained across the rename is still a skip added —
    // moving tests into a directory a conftest hook xfails is one.
    void classifyRenameTargets(std::map<std::string, CensusRow> &rows,
                               const std::map<std::string, std::string> &renamedTo,
                               std::map<std::string, int> &headCount, const CensusCollection &base,
                               const CensusCollection &head, std::set<std::string> &reported)
    {
        std::map<std::string, std::string> renamedFrom; // head function → base function
        for (const auto &[from, to] : renamedTo)
            renamedFrom[to] = from;
        std::set<std::string> skippedAtBase; // base functions with a skipped or xfail id
        std::map<std::string, int> runningAtBase, runningAtHead; // ids neither skipped nor xfail
        for (const auto &[id, r] : rows) {
            const std::string fn = functionIdOf(id);
            if (r.change == "renamed" && headCount[fn] > 0)
                renamedFrom[fn] = fn; // its parameter ids changed
            const bool baseSkipped = r.skippedBase || hasMarker(base, id, "xfail");
            if (r.atBase && baseSkipped)
                skippedAtBase.insert(fn);
            runningAtBase[fn] += r.atBase && !baseSkipped ? 1 : 0;
            runningAtHead[fn] +=
                r.atHead && !r.skippedHead && !hasMarker(head, id, "xfail") ? 1 : 0;
        }
        std::set<std::string> densityReported;
        for (auto &[id, r] : rows) {
            const std::string fn = functionIdOf(id);
            const auto from = renamedFrom.find(fn);
            if (r.change != "added" || from == renamedFrom.end())
                continue;
            const bool sameFunction = from->second == fn;
            r.change = "renamed-to";
            r.detail = sameFunction ? "new parameter id" : "renamed from " + from->second;
            const bool xfail = hasMarker(head, id, "xfail");
            // New parameter ids of one function: a case born skipped is no skip added while
            // as many cases run as ran at base.
            const bool bornSkipped =
                sameFunction && runningAtHead[fn] >= runningAtBase[from->second];
            if ((xfail || r.skippedHead) && bornSkipped) {
                r.detail += ", skipped from birth (as many cases run as at base)";
                continue;
            }
            if (!skippedAtBase.count(from->second) && (xfail || r.skippedHead)) {
                skipAdded(r, fn, xfail, head, sameFunction ? "" : from->second, reported);
                continue;
            }
            if (!sameFunction && densityReported.insert(fn).second)
                densityAcrossRename(r, from->second, fn, reported);
        }
    }

    // C-DENSITY across a rename: the test still runs under its new id and checks less.
    void densityAcrossRename(CensusRow &r, const std::string &from, const std::string &fn,
                             std::set<std::string> &reported)
    {
        const CensusFacts *b = factsOf(m_base, from);
        const CensusFacts *h = factsOf(m_head, fn);
        if (!b || !h || h->assertions >= b->assertions)
            return;
        r.code = "C-DENSITY";
        r.severity = Severity::Review;
        r.detail += "; assertions " + std::to_string(b->assertions) + " -> " +
                    std::to_string(h->assertions);
        if (reported.insert("density:" + fn).second)
            m_report.findings.push_back(finding(
                "C-DENSITY", Severity::Review, fn, lineOf(m_head, fn),
                fn + " (renamed from " + from + ") still runs but checks less: assertions " +
                    std::to_string(b->assertions) + " -> " + std::to_string(h->assertions),
                "a reviewer note naming the property still covered"));
    }

    void classifyKept(CensusRow &r, const std::string &fn, const CensusCollection &base,
                      const CensusCollection &head, std::set<std::string> &reported)
    {
        r.change = "kept";
        const bool xfailAdded =
            hasMarker(head, r.nodeId, "xfail") && !hasMarker(base, r.nodeId, "xfail");
        if ((r.skippedHead && !r.skippedBase) || xfailAdded) {
            skipAdded(r, fn, xfailAdded, head, "", reported);
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
                data ? "the data change and why the cases went" : "the removed cases back"));
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
        if (const std::optional<std::string> node = m_ledgers.waiverFor(fn, file, m_renamedAway)) {
            const std::optional<std::string> witness = m_ledgers.witnessOf(*node);
            if (!witness || witness->empty()) {
                why = "the waiver for " + *node + " names no witness";
            } else if (!collectedAt(head, *witness)) {
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

    CensusReport &m_report;
    const CensusStatic &m_base;
    const CensusStatic &m_head;
    const CensusLedgers &m_ledgers;
    std::map<std::string, CensusRename> m_renames;
    std::set<std::string> m_renamedAway; // base function ids renamed
};

} // namespace

void addCensusFacts(CensusStatic &side, const FileFacts &facts)
{
    for (const TestFunctionFacts &t : facts.tests) {
        CensusFacts f;
        f.bodyHash = t.bodyHash;
        f.assertions = t.asserts;
        f.parametrizeCases = t.parametrizeCases;
        f.parametrized =
            std::find(t.markers.begin(), t.markers.end(), "parametrize") != t.markers.end();
        const std::string id = facts.path + "::" + t.name;
        side.tests[id] = t;
        side.functions[id] = f;
        side.lines[id] = t.line;
        side.assertions += t.asserts;
        ++side.testFunctions;
    }
}

CensusStatic censusStaticFacts(const Repository &repo, const Revision &rev,
                               FactExtractor &extractor, const std::set<std::string> &files)
{
    std::vector<SourceRef> refs;
    for (const std::string &file : files) {
        const std::optional<FileEntry> entry = repo.entry(rev, file);
        if (!entry || file.size() < 3 || !file.ends_with(".py"))
            continue;
        refs.push_back(
            {file, entry->blob, [&repo, rev, file] { return repo.readFile(rev, file); }});
    }
    CensusStatic side;
    for (const FileFacts &facts : extractor.extract(refs))
        addCensusFacts(side, facts);
    return side;
}

std::map<std::string, CensusRename> censusRenames(const CensusCollection &base,
                                                  const CensusCollection &head,
                                                  const CensusStatic &baseStatic,
                                                  const CensusStatic &headStatic)
{
    std::set<std::string> atBase, atHead; // function ids with a collected node
    for (const CensusNode &n : base.dump.nodes)
        atBase.insert(functionIdOf(n.nodeId));
    for (const CensusNode &n : head.dump.nodes)
        atHead.insert(functionIdOf(n.nodeId));
    auto refs = [](const std::set<std::string> &ids, const CensusStatic &side) {
        std::vector<TestRef> out;
        for (const std::string &id : ids) {
            if (const auto it = side.tests.find(id); it != side.tests.end())
                out.push_back({fileOf(id), &it->second});
        }
        return out;
    };
    const std::vector<TestRef> b = refs(atBase, baseStatic);
    const std::vector<TestRef> h = refs(atHead, headStatic);
    std::map<std::string, CensusRename> renames;
    for (const TestPair &p : matchTests(b, h)) {
        if (!p.renamed())
            continue;
        const std::string from = p.baseFile + "::" + p.base->name;
        const std::string to = p.headFile + "::" + p.head->name;
        if (!atHead.count(from) && !atBase.count(to))
            renames[from] = {to, p.match, p.similarity};
    }
    return renames;
}

CensusLedgers::CensusLedgers(std::optional<CountingLedgers> counting, CensusRemovals removals,
                             LedgerSet ledgers, QDate today)
    : m_counting(std::move(counting)), m_removals(std::move(removals)),
      m_ledgers(std::move(ledgers)), m_today(today)
{
}

std::optional<std::string> CensusLedgers::waiverFor(const std::string &functionId,
                                                    const std::string &file,
                                                    const std::set<std::string> &renamed) const
{
    // The audit's rules (LedgerGate): only a removal its static facts see is answered.
    if (!m_counting || !m_removals.goneAtHead.count(functionId))
        return std::nullopt;
    const auto tests = m_removals.baseTests.find(file);
    const bool someMoved = tests != m_removals.baseTests.end() &&
                           std::any_of(tests->second.begin(), tests->second.end(),
                                       [&](const std::string &id) { return renamed.count(id); });
    if (!m_removals.filesGoneAtHead.count(file) || someMoved) { // T-DEL
        if (m_counting->validWaiver(functionId))
            return functionId;
        if (m_counting->validWaiver(file))
            return file;
        return std::nullopt;
    }
    if (m_counting->validWaiver(file)) // T-GONE: the file's waiver, or one for each test
        return file;
    if (tests == m_removals.baseTests.end() || !tests->second.count(functionId))
        return std::nullopt;
    for (const std::string &id : tests->second) {
        if (!m_counting->validWaiver(id))
            return std::nullopt;
    }
    return functionId;
}

std::optional<std::string> CensusLedgers::witnessOf(const std::string &node) const
{
    if (!m_ledgers.waivers)
        return std::nullopt;
    const WaiverEntry *w = m_ledgers.waivers->find(node);
    return w ? w->witness : std::nullopt;
}

std::optional<std::string> CensusLedgers::freezeFor(const std::string &functionId,
                                                    bool marked) const
{
    if (marked && m_counting && m_counting->validFreeze(functionId))
        return std::string("quarantine.toml: ") + functionId;
    // A skip the static facts cannot see (a hook, pytest.skip behind a condition): a
    // base freeze of the test that has not expired.
    if (m_ledgers.quarantine) {
        const QuarantineEntry *q = m_ledgers.quarantine->find(functionId);
        if (q && LedgerValidator::isActiveOn(*q, m_today))
            return std::string("quarantine.toml: ") + functionId + " (expires " +
                   ledgerDateText(*q->expires) + ")";
    }
    return std::nullopt;
}

std::string censusLedgerPrefix(const RunContext &ctx)
{
    const std::string root = ctx.repoRoot() + "/";
    if (!(ctx.ledgerDir() + "/").starts_with(root))
        return {};
    return ctx.ledgerDir().substr(root.size()) + "/";
}

LedgerSet censusBaseLedgers(const RunContext &ctx, const Repository &repo)
{
    const std::string root = ctx.repoRoot() + "/";
    if (!(ctx.ledgerDir() + "/").starts_with(root) || ctx.base().commit.empty())
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

bool collectedAt(const CensusCollection &head, const std::string &witness)
{
    return std::any_of(head.dump.nodes.begin(), head.dump.nodes.end(), [&](const CensusNode &n) {
        return n.nodeId == witness || functionIdOf(n.nodeId) == witness;
    });
}

Finding censusFileFinding(const std::string &code, Severity severity, const std::string &path,
                          const std::string &message, const std::string &evidence)
{
    Finding f = finding(code, severity, path, 0, message, evidence);
    f.test.clear();
    return f;
}

std::string censusErrorLine(const std::string &text)
{
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
        t.pop_back();
    const size_t nl = t.rfind('\n');
    std::string line = nl == std::string::npos ? t : t.substr(nl + 1);
    if (line.starts_with("E   "))
        line = line.substr(4);
    return line;
}

void classifyCensus(CensusReport &report, const CensusCollection &base,
                    const CensusCollection &head, const std::map<std::string, Outcome> &baseRun,
                    const std::map<std::string, Outcome> &headRun, const CensusStatic &baseStatic,
                    const CensusStatic &headStatic, const CensusLedgers &ledgers,
                    const std::function<std::optional<Outcome>(const std::string &)> &witness)
{
    Classifier(report, baseStatic, headStatic, ledgers)
        .classify(base, head, baseRun, headRun, witness);
}

} // namespace pw::core
