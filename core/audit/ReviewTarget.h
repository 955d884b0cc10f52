#pragma once

#include "ledger/Config.h"
#include "ledger/LedgerLocation.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"

#include <stop_token>
#include <string>

namespace pw::core {

struct AuditRequest;

// What a review is of, resolved once from an AuditRequest: the repository, base and head with
// their ids, the configuration in force (the base's, with the interpreter chosen and the
// request's override applied), where the ledgers are and the fact cache. Plain data, cheap
// to copy into another thread, which opens its own Repository (PreparedReview::reopen).
struct ReviewTarget
{
    std::string repoRoot;  // the work tree's top, absolute; empty for a bare repository
    std::string gitDir;    // Repository::gitDir: HEAD and index
    std::string commonDir; // Repository::commonDir: refs and objects
    Revision base;
    Revision head;
    Config config;
    LedgerLocation ledgers;
    std::string cacheDir; // the fact cache; empty when the request turned the cache off
};

// A fact extractor that reads tests as `config` says: its interpreter, the size cap of a test
// file, the probe timeout for the interpreter's start; `stop` kills it. `cacheDir` empty: no
// disk cache.
FactExtractor extractorFor(const Config &config, std::string cacheDir, std::stop_token stop = {});

// A ReviewTarget with the Repository it was resolved in. A PATCH head's tree lives in that
// instance's memory, so everything done with it reads the one application of the patch;
// the audit, its display diff and the ledger checks share it. Not thread-safe (as
// Repository): one per thread.
class PreparedReview
{
public:
    // Opens the repository, resolves base and head (defaults: head WORKTREE when dirty
    // else HEAD, base their merge-base; a PATCH head applies onto the base, capped by the
    // base's `patch_max_bytes`) and reads the configuration. Every problem with the request
    // is Error::input naming what is wrong (the path, the revision, the file and line).
    static PreparedReview prepare(const AuditRequest &request);
    // The same target opened in this thread: a PATCH head is applied again, capped by the
    // config's `patch_max_bytes`, and must give the same tree (Error::input when the file
    // changed since).
    static PreparedReview reopen(const ReviewTarget &target);

    const Repository &repo() const { return m_repo; }
    const ReviewTarget &target() const { return m_target; }
    const Revision &base() const { return m_target.base; }
    const Revision &head() const { return m_target.head; }
    const Config &config() const { return m_target.config; }

private:
    PreparedReview(Repository repo, ReviewTarget target)
        : m_repo(std::move(repo)), m_target(std::move(target))
    {
    }

    Repository m_repo;
    ReviewTarget m_target;
};

} // namespace pw::core
