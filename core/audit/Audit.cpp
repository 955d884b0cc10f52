#include "audit/Audit.h"

#include "audit/ConftestAlarm.h"
#include "audit/LatitudeScorer.h"
#include "audit/LedgerGate.h"
#include "audit/ManifestDiff.h"
#include "audit/PytestConfig.h"
#include "audit/ReviewTarget.h"
#include "audit/StrengthGate.h"
#include "audit/TestPairing.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/Glob.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <map>
#include <set>

namespace pw::core {
namespace {

constexpr uint32_t kSymlinkMode = 0120000;

struct Classifier
{
    GlobSet tests;
    GlobSet fixtures;
    std::string ledgerPrefix; // "<ledgerDir>/" when inside the repository, else empty

    bool isTest(const std::string &path) const
    {
        return path.size() > 3 && path.ends_with(".py") && tests.matches(path);
    }
    bool isFixture(const std::string &path) const { return fixtures.matches(path); }
    bool isLedger(const std::string &path) const
    {
        return !ledgerPrefix.empty() && path.starts_with(ledgerPrefix);
    }
};

class Reader
{
public:
    Reader(const Repository &repo, const Revision &rev) : m_repo(repo), m_rev(rev) {}

    std::string read(const std::string &path, const std::string &blob) const
    {
        return m_rev.isWorktree() ? m_repo.readFile(m_rev, path) : m_repo.readBlob(blob);
    }

private:
    const Repository &m_repo;
    const Revision &m_rev;
};

// Ends the audit with Error::interrupted once its request's stop was asked for.
void checkStop(const AuditRequest &r)
{
    if (r.stop.stop_requested())
        throw Error::interrupted("the audit was stopped");
}

void say(const AuditRequest &r, const std::string &line)
{
    checkStop(r);
    if (r.progress)
        r.progress(line);
}

std::vector<TestFileChange> collectTestChanges(const PatchDiff &diff, const Classifier &cls,
                                               const Repository &repo, const Revision &base,
                                               const Revision &head, FactExtractor &extractor,
                                               AuditStats &stats)
{
    std::vector<TestFileChange> changes;
    std::vector<SourceRef> refs;
    struct Slot
    {
        size_t change;
        bool headSide;
    };
    std::vector<Slot> slots;
    const Reader baseReader(repo, base);
    const Reader headReader(repo, head);

    for (const FileDiff &f : diff.files) {
        const bool oldIsTest =
            !f.oldPath.empty() && f.oldMode != kSymlinkMode && cls.isTest(f.oldPath);
        const bool newIsTest =
            !f.newPath.empty() && f.newMode != kSymlinkMode && cls.isTest(f.newPath);
        if (!oldIsTest && !newIsTest)
            continue;
        TestFileChange c;
        c.path = newIsTest ? f.newPath : f.oldPath;
        c.basePath = oldIsTest ? f.oldPath : std::string();
        c.status = f.status;
        c.similarity = f.similarity;
        if (f.status == ChangeStatus::Renamed && oldIsTest != newIsTest)
            c.outsidePath = oldIsTest ? f.newPath : f.oldPath;
        const size_t index = changes.size();
        changes.push_back(c);
        if (oldIsTest) {
            const std::string path = f.oldPath, blob = f.oldBlob;
            refs.push_back(
                {path, blob, [&baseReader, path, blob] { return baseReader.read(path, blob); }});
            slots.push_back({index, false});
        }
        if (newIsTest) {
            const std::string path = f.newPath, blob = f.newBlob;
            refs.push_back(
                {path, blob, [&headReader, path, blob] { return headReader.read(path, blob); }});
            slots.push_back({index, true});
        }
    }
    std::vector<FileFacts> facts = extractor.extract(refs);
    for (size_t i = 0; i < facts.size(); ++i) {
        TestFileChange &c = changes[slots[i].change];
        (slots[i].headSide ? c.head : c.base) = std::move(facts[i]);
    }
    stats.testFilesParsed = int(refs.size());
    return changes;
}

// Latitude and strength of every test the patch touched, across renames and moves: a
// pair is scored once, under its head id (a lost test under its base file's id).
void scoreTests(const std::vector<TestFileChange> &changes, const std::vector<TestPair> &pairs,
                GateReport &report)
{
    std::map<std::string, std::string> pathOf; // base path → the path findings use
    for (const TestFileChange &c : changes) {
        if (!c.basePath.empty())
            pathOf[c.basePath] = c.path;
    }
    for (const TestPair &p : pairs) {
        if (p.base && p.head && p.base->bodyHash == p.head->bodyHash)
            continue; // untouched test: nothing changed in its oracle
        const std::string path = p.head ? p.headFile : pathOf[p.baseFile];
        const std::string id = path + "::" + (p.head ? p.head->name : p.base->name);
        if (p.base && p.head) {
            LatitudeScorer::Score s = LatitudeScorer::score(*p.base, *p.head);
            report.latitude.tests.push_back({id, path, p.head->line, s.score, s.signals});
            report.latitude.total += s.score;
        }
        StrengthRow row = StrengthGate::compare(id, path, p.base, p.head);
        report.strength.tests.push_back(std::move(row));
    }
}

void latitudeFindings(GateReport &report)
{
    LatitudeReport &lat = report.latitude;
    lat.policy = LatitudeScorer::policy(lat.total, lat.threshold);
    const Severity sev = LatitudeScorer::severity(lat.total, lat.threshold);
    for (const LatitudeTestScore &t : lat.tests) {
        if (t.score <= 0)
            continue;
        Finding f;
        f.gate = "latitude";
        f.code = "LATITUDE";
        f.severity = sev;
        f.path = t.path;
        f.line = t.line;
        f.test = t.test;
        std::string signals;
        for (const std::string &s : t.signals)
            signals += (signals.empty() ? "" : "; ") + s;
        f.message = "oracle latitude +" + std::to_string(t.score) + ": " + signals;
        f.evidence = sev == Severity::Block ? "a replacement assertion"
                                            : "reviewer acknowledgement of the widening";
        report.findings.push_back(std::move(f));
    }
}

void fixtureGate(const PatchDiff &diff, const Classifier &cls, const Repository &repo,
                 const Revision &base, const Revision &head, GateReport &report)
{
    const Reader baseReader(repo, base);
    const Reader headReader(repo, head);
    for (const FileDiff &f : diff.files) {
        const bool oldFixture = !f.oldPath.empty() && cls.isFixture(f.oldPath);
        const bool newFixture = !f.newPath.empty() && cls.isFixture(f.newPath);
        if (!oldFixture && !newFixture)
            continue;
        FixtureChange change;
        change.path = f.path();
        if (oldFixture)
            change.base = sha256Hex(baseReader.read(f.oldPath, f.oldBlob));
        if (newFixture)
            change.head = sha256Hex(headReader.read(f.newPath, f.newBlob));
        report.fixtures.push_back(change);
        if (!change.base)
            continue; // an added fixture
        const bool moved = f.status == ChangeStatus::Renamed && f.oldPath != f.newPath;
        Finding fd;
        fd.gate = "fixture";
        fd.path = change.path;
        if (change.base == change.head) {
            if (!moved)
                continue; // a mode-only change
            // Same bytes elsewhere: a data fixture's readers moved with it or fail loudly,
            // but a conftest.py now governs another directory.
            const bool conftest = ConftestAlarm::isConftest(f.newPath);
            fd.code = "F-RENAME";
            fd.severity = conftest ? Severity::Review : Severity::Info;
            fd.message = "fixture moved from " + f.oldPath + " (same content)" +
                         (conftest ? std::string(": its fixtures and hooks now apply to the "
                                                 "tests under its new directory")
                                   : std::string());
            fd.evidence =
                conftest ? "reviewer confirms which tests the moved conftest.py governs" : "none";
            report.findings.push_back(std::move(fd));
            continue;
        }
        fd.code = "F-DRIFT";
        fd.severity = Severity::Block;
        const std::string sha = "sha256 " + shortId(*change.base);
        if (change.head)
            fd.message = (moved ? "fixture moved from " + f.oldPath + " (similarity " +
                                      std::to_string(f.similarity) + "%) and changed: "
                                : std::string("fixture changed: ")) +
                         sha + " -> " + shortId(*change.head);
        else if (moved)
            fd.message = "fixture removed: moved to " + f.newPath +
                         ", outside the fixture globs (" + sha + ")";
        else
            fd.message = "fixture removed (" + sha + ")";
        fd.evidence = "fixture diff plus reason (human note)";
        report.findings.push_back(std::move(fd));
    }
}

// Modules pytest loads as plugins, dotted: config `plugins`, `-p name` in the `addopts` of
// the head's root configuration files and of changed ones, and `pytest_plugins` of the
// head's root conftests and of changed ones (reading a few files, not the tree).
std::set<std::string> pluginModules(const PatchDiff &diff, const Config &config,
                                    const Repository &repo, const Revision &head)
{
    std::set<std::string> modules(config.plugins.begin(), config.plugins.end());
    std::set<std::string> files = {"pytest.ini",        ".pytest.ini",     "pyproject.toml",
                                   "tox.ini",           "setup.cfg",       "conftest.py",
                                   "tests/conftest.py", "test/conftest.py"};
    for (const FileDiff &f : diff.files) {
        if (!f.newPath.empty() && !f.binary &&
            (PytestConfig::isConfigFile(f.newPath) || ConftestAlarm::isConftest(f.newPath)))
            files.insert(f.newPath);
    }
    for (const std::string &path : files) {
        if (!repo.entry(head, path))
            continue;
        const std::string text = repo.readFile(head, path);
        const std::vector<std::string> named = ConftestAlarm::isConftest(path)
                                                   ? ConftestAlarm::declaredPlugins(text)
                                                   : PytestConfig::parse(path, text).plugins();
        modules.insert(named.begin(), named.end());
    }
    return modules;
}

bool isPluginModule(const FileDiff &f, const std::set<std::string> &plugins, const Repository &repo,
                    const Revision &head)
{
    const std::string &path = f.newPath;
    if (ConftestAlarm::isConftest(path))
        return true;
    if (path.size() < 3 || !path.ends_with(".py"))
        return false;
    for (std::string module : plugins) {
        std::replace(module.begin(), module.end(), '.', '/');
        if (path == module + ".py" || path == module + "/__init__.py" ||
            (path.size() > module.size() + 4 && path.ends_with("/" + module + ".py")))
            return true;
    }
    const std::string text = repo.readFile(head, path);
    return text.find("def pytest_") != std::string::npos ||
           text.find("pytest_plugins") != std::string::npos;
}

void conftestGate(const PatchDiff &diff, const Config &config, const Repository &repo,
                  const Revision &base, const Revision &head, GateReport &report)
{
    const Reader baseReader(repo, base);
    const Reader headReader(repo, head);
    std::optional<std::set<std::string>> plugins; // read when a module needs them
    for (const FileDiff &f : diff.files) {
        if (f.binary)
            continue;
        const bool oldConfig = !f.oldPath.empty() && PytestConfig::isConfigFile(f.oldPath);
        const bool newConfig = !f.newPath.empty() && PytestConfig::isConfigFile(f.newPath);
        if (oldConfig || newConfig) {
            const std::string baseText = oldConfig ? baseReader.read(f.oldPath, f.oldBlob) : "";
            const std::string headText = newConfig ? headReader.read(f.newPath, f.newBlob) : "";
            for (Finding &finding :
                 ConftestAlarm::scanConfig(oldConfig ? f.oldPath : std::string(), baseText,
                                           newConfig ? f.newPath : std::string(), headText))
                report.findings.push_back(std::move(finding));
            continue;
        }
        if (f.newPath.empty() || !ConftestAlarm::touchesCollection(f))
            continue;
        if (!plugins)
            plugins = pluginModules(diff, config, repo, head);
        if (!isPluginModule(f, *plugins, repo, head))
            continue;
        for (Finding &finding : ConftestAlarm::scan(f))
            report.findings.push_back(std::move(finding));
    }
}

Manifest buildManifest(const Repository &repo, const Revision &head, const Classifier &cls,
                       FactExtractor &extractor)
{
    Manifest m;
    const Reader reader(repo, head);
    std::vector<SourceRef> refs;
    for (const FileEntry &e : repo.listFiles(head)) {
        if (e.mode != kSymlinkMode && cls.isTest(e.path)) {
            const std::string path = e.path, blob = e.blob;
            refs.push_back({path, blob, [&reader, path, blob] { return reader.read(path, blob); }});
        }
        if (cls.isFixture(e.path))
            m.fixtures[e.path] = sha256Hex(reader.read(e.path, e.blob));
    }
    for (FileFacts &f : extractor.extract(refs)) {
        ManifestFile mf;
        mf.sha = f.blob;
        mf.defs = f.defs;
        mf.markers = f.markers;
        mf.asserts = f.asserts;
        m.tests[f.path] = std::move(mf);
    }
    return m;
}

} // namespace

Config Audit::loadConfig(const AuditRequest &request)
{
    return PreparedReview::prepare(request).config();
}

GateReport Audit::run(const AuditRequest &request)
{
    return run(PreparedReview::prepare(request), request);
}

GateReport Audit::run(const PreparedReview &review, const AuditRequest &request)
{
    const Repository &repo = review.repo();
    const Revision &base = review.base();
    const Revision &head = review.head();
    const Config &config = review.config();
    say(request, "base " + base.spec + " (" + shortId(base.commit) + "), head " + head.spec +
                     (head.isWorktree() ? ""
                      : head.isPatch()  ? " (applied in memory)"
                                        : " (" + shortId(head.commit) + ")"));

    GateReport report;
    report.repo = repo.isBare() ? repo.gitDir() : repo.workdir(); // a bare one: its git dir
    report.base = {base.spec, base.commit};
    // A patch file has no commit of its own (its `commit` is the base it applies onto).
    report.head = {head.spec,
                   head.isWorktree() || head.isPatch() ? std::nullopt : std::optional(head.commit)};
    report.latitude.threshold = config.latitudeMax;
    report.warnings = config.warnings;

    Classifier cls{GlobSet(config.testGlobs), GlobSet(config.fixtureGlobs),
                   review.target().ledgers.prefix};

    DiffOptions options;
    options.contextLines = 0;
    options.intraline = false;
    const PatchDiff diff = repo.diff(base, head, options);
    report.stats.filesChanged = int(diff.files.size());
    for (const FileDiff &f : diff.files) {
        report.changedFiles.push_back(
            {f.path(), f.status == ChangeStatus::Renamed ? f.oldPath : std::string(),
             changeStatusLetter(f.status), cls.isTest(f.path()), cls.isFixture(f.path()), f.binary,
             f.newBlob, f.newMode});
    }
    say(request, std::to_string(diff.files.size()) + " file(s) changed");

    FactExtractor extractor = extractorFor(config, review.target().cacheDir, request.stop);
    const std::vector<TestFileChange> changes =
        collectTestChanges(diff, cls, repo, base, head, extractor, report.stats);
    say(request, std::to_string(changes.size()) + " test file(s) read");

    const std::vector<TestPair> pairs = pairPatchTests(changes);
    for (Finding &f : ManifestDiff::evaluate(changes, pairs))
        report.findings.push_back(std::move(f));
    scoreTests(changes, pairs, report);
    latitudeFindings(report);
    StrengthGate::finalize(report.strength);
    for (Finding &f : StrengthGate::findings(report.strength))
        report.findings.push_back(std::move(f));
    conftestGate(diff, config, repo, base, head, report);
    fixtureGate(diff, cls, repo, base, head, report);
    checkStop(request);
    LedgerGate::apply({{repo, base, head, diff, config, cls.ledgerPrefix,
                        review.target().ledgers.dir, request.today, extractor},
                       changes},
                      report);

    if (request.withManifest) {
        checkStop(request);
        report.manifest = buildManifest(repo, head, cls, extractor);
    }

    report.stats.cacheHits = extractor.stats().cacheHits;
    report.stats.interpreterRuns = extractor.stats().interpreterRuns;
    report.computeVerdict();
    if (request.progress) // the work is done: a stop asked for now keeps the report
        request.progress(std::string("verdict ") + verdictName(report.verdict));
    return report;
}

} // namespace pw::core
