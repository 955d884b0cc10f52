#include "audit/ReviewTarget.h"

#include "audit/Audit.h"
#include "execution/Interpreter.h"
#include "python/FactExtractor.h"
#include "util/Error.h"

#include <QFileInfo>

namespace pw::core {
namespace {

// The configuration the request names: --config, else the base revision's
// `<ledger dir>/config.toml` (the patch cannot loosen its own gate), or the file on disk
// when the ledger directory lies outside the repository (the reviewers' own copy).
Config readConfig(const AuditRequest &request, const Repository &repo, const Revision &base,
                  const LedgerLocation &where)
{
    if (!request.configPath.empty()) {
        if (!QFileInfo::exists(QString::fromStdString(request.configPath)))
            throw Error::input(request.configPath + ": no such configuration file");
        return Config::load(request.configPath);
    }
    if (!where.insideRepository())
        return Config::load(where.path("config.toml"));
    const std::string inRepo = where.prefix + "config.toml";
    if (base.isWorktree() || base.commit.empty())
        return Config::load(repo.workdir() + "/" + inRepo);
    if (!repo.entry(base, inRepo))
        return Config();
    return Config::parse(repo.readFile(base, inRepo), base.spec + ":" + inRepo);
}

// The interpreter resolved when the config names none (chooseInterpreter): the extractor
// only needs Python's ast, but takes an interpreter with pytest when there is one, so the
// grammar is the runs'. Never one inside the repository: the audit starts it without a
// sandbox and without asking, and the patch's author can write there (a .pth file in the
// repository's .venv runs on every start). When no candidate runs, `python3` stays and the
// extractor names the problem if it is needed at all. The request's interpreter wins.
void chooseExtractorPython(const AuditRequest &request, const std::string &workdir, Config &config)
{
    if (request.python) {
        config.python = *request.python;
        return;
    }
    if (config.pythonSet)
        return;
    try {
        config.python =
            chooseInterpreter(workdir, std::nullopt, config,
                              {.needsPytest = false,
                               .inRepository = false,
                               .probeTimeoutMs = Config::milliseconds(config.timeoutProbe)})
                .python;
    } catch (const Error &) {
    }
}

} // namespace

FactExtractor extractorFor(const Config &config, std::string cacheDir, std::stop_token stop)
{
    FactExtractor extractor(config.python, std::move(cacheDir));
    extractor.setMaxFileBytes(config.testFileMaxBytes);
    extractor.setStartTimeout(Config::milliseconds(config.timeoutProbe));
    extractor.setStopToken(std::move(stop));
    return extractor;
}

PreparedReview PreparedReview::prepare(const AuditRequest &request)
{
    Repository repo = Repository::open(request.repoPath);
    ReviewTarget t;
    t.repoRoot = repo.workdir();
    t.gitDir = repo.gitDir();
    t.commonDir = repo.commonDir();
    t.ledgers = LedgerLocation::resolve(t.repoRoot, request.ledgerDir);
    if (Repository::isPatchSpec(request.head)) {
        // A patch file applies onto the base, so the base comes first (default: HEAD), and
        // the base's configuration caps the file (a patch cannot raise its own cap).
        t.base = repo.resolve(request.base.empty() ? std::string("HEAD") : request.base);
        t.config = readConfig(request, repo, t.base, t.ledgers);
        t.head = repo.resolvePatch(request.head, t.base, t.config.patchMaxBytes);
    } else {
        t.head = request.head.empty() ? repo.defaultHead() : repo.resolve(request.head);
        t.base = request.base.empty() ? repo.defaultBase(t.head) : repo.resolve(request.base);
        t.config = readConfig(request, repo, t.base, t.ledgers);
        if (request.head.empty() && repo.isNothingCheckedOut())
            t.config.warnings.push_back(
                "the work tree has nothing checked out (a clone made with --no-checkout?): "
                "the head is HEAD, not the empty work tree; name WORKTREE to review that");
    }
    if (t.base.isWorktree())
        throw Error::input("WORKTREE can only be the head revision");
    // The work tree read once: the audit, the diff shown beside it, the ledger checks and
    // the runs all see this state of it.
    if (t.head.isWorktree())
        t.head = repo.snapshot(t.head);
    chooseExtractorPython(request, t.repoRoot, t.config);
    t.cacheDir = !request.useCache          ? std::string()
                 : request.cacheDir.empty() ? FactExtractor::defaultCacheDir()
                                            : request.cacheDir;
    return PreparedReview(std::move(repo), std::move(t));
}

PreparedReview PreparedReview::reopen(const ReviewTarget &target)
{
    if (target.repoRoot.empty())
        throw Error::input(target.gitDir + ": a bare repository has no work tree to review");
    Repository repo = Repository::open(target.repoRoot);
    if (target.head.isPatch()) {
        // Applied again here, capped as it was (not by the default cap), to the same tree.
        const Revision again =
            repo.resolvePatch(target.head.spec, target.base, target.config.patchMaxBytes);
        if (again.tree != target.head.tree)
            throw Error::input(target.head.patchFile + ": the patch file changed since '" +
                               target.head.spec + "' was resolved; resolve it again");
    }
    // A WORKTREE head is read here again and must be what the review read (Error::input
    // when the work tree changed since): runs test the state that was audited.
    if (target.head.isSnapshot())
        (void)repo.listFiles(target.head);
    return PreparedReview(std::move(repo), target);
}

} // namespace pw::core
