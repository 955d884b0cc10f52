#include "repo/FileHistory.h"

#include "repo/GitError.h"
#include "repo/GitHandles.h"
#include "util/ThreadRule.h"

#include <cstring>
#include <unordered_map>

namespace pw::core {
namespace {

struct OidHash
{
    size_t operator()(const git_oid &id) const
    {
        size_t h = 0;
        std::memcpy(&h, id.id, sizeof h);
        return h;
    }
};
struct OidEq
{
    bool operator()(const git_oid &a, const git_oid &b) const { return git_oid_equal(&a, &b); }
};

// The blob id of `path` in a commit's tree (the zero id when absent), cached per commit:
// in a linear walk each commit is looked up as a parent and then as itself.
class EntryCache
{
public:
    explicit EntryCache(git_repository *repo) : m_repo(repo) {}

    void reset(const std::string &path)
    {
        m_path = path;
        m_cache.clear();
    }

    git_oid blobIn(const git_commit *commit)
    {
        const git_oid *id = git_commit_id(commit);
        if (const auto it = m_cache.find(*id); it != m_cache.end())
            return it->second;
        git_oid out;
        std::memset(&out, 0, sizeof out);
        git_tree *rawTree = nullptr;
        gitCheck(git_commit_tree(&rawTree, commit), "tree of a commit");
        git::TreePtr tree(rawTree);
        git_tree_entry *rawEntry = nullptr;
        if (git_tree_entry_bypath(&rawEntry, tree.get(), m_path.c_str()) == 0) {
            git::TreeEntryPtr entry(rawEntry);
            if (git_tree_entry_type(entry.get()) == GIT_OBJECT_BLOB)
                git_oid_cpy(&out, git_tree_entry_id(entry.get()));
        } else {
            git_error_clear();
        }
        m_cache.emplace(*id, out);
        return out;
    }

private:
    git_repository *m_repo;
    std::string m_path;
    std::unordered_map<git_oid, git_oid, OidHash, OidEq> m_cache;
};

// The path `path` had in the first parent when `commit` renamed it there; empty when the
// commit really added it.
std::string renamedFrom(git_repository *repo, const git_commit *commit, const git_commit *parent,
                        const std::string &path)
{
    git_tree *rawOld = nullptr, *rawNew = nullptr;
    gitCheck(git_commit_tree(&rawOld, parent), "parent tree");
    git::TreePtr oldTree(rawOld);
    gitCheck(git_commit_tree(&rawNew, commit), "commit tree");
    git::TreePtr newTree(rawNew);
    git_diff_options opts;
    gitCheck(git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION), "diff options");
    git_diff *rawDiff = nullptr;
    gitCheck(git_diff_tree_to_tree(&rawDiff, repo, oldTree.get(), newTree.get(), &opts),
             "diff for rename detection");
    git::DiffPtr diff(rawDiff);
    git_diff_find_options find;
    gitCheck(git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION), "find options");
    find.flags = GIT_DIFF_FIND_RENAMES;
    gitCheck(git_diff_find_similar(diff.get(), &find), "rename detection");
    const size_t n = git_diff_num_deltas(diff.get());
    for (size_t i = 0; i < n; ++i) {
        const git_diff_delta *d = git_diff_get_delta(diff.get(), i);
        if (d->status == GIT_DELTA_RENAMED && d->new_file.path && path == d->new_file.path)
            return d->old_file.path ? d->old_file.path : "";
    }
    return {};
}

} // namespace

std::vector<FileVersion> FileHistory::walk(const std::string &repoPath, const std::string &path,
                                           const std::string &rev)
{
    checkBlockingWorkAllowed("FileHistory::walk");
    git::ensureInit();
    git_repository *rawRepo = nullptr;
    gitCheck(git_repository_open_ext(&rawRepo, repoPath.c_str(), 0, nullptr),
             "opening " + repoPath);
    git::RepositoryPtr repo(rawRepo);

    std::vector<FileVersion> out;
    if (rev == "HEAD" && git_repository_head_unborn(repo.get()) == 1)
        return out;
    git_object *rawStart = nullptr;
    gitCheck(git_revparse_single(&rawStart, repo.get(), rev.c_str()), "resolving " + rev);
    git::ObjectPtr start(rawStart);
    git_object *rawPeeled = nullptr;
    gitCheck(git_object_peel(&rawPeeled, start.get(), GIT_OBJECT_COMMIT), "peeling " + rev);
    git::ObjectPtr startCommit(rawPeeled);

    git_revwalk *rawWalk = nullptr;
    gitCheck(git_revwalk_new(&rawWalk, repo.get()), "revwalk");
    git::RevwalkPtr walk(rawWalk);
    gitCheck(git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME), "sorting");
    gitCheck(git_revwalk_push(walk.get(), git_object_id(startCommit.get())), "walk start");

    std::string current = path;
    EntryCache cache(repo.get());
    cache.reset(current);
    git_oid id;
    int rc = 0;
    while ((rc = git_revwalk_next(&id, walk.get())) == 0) {
        git_commit *rawCommit = nullptr;
        gitCheck(git_commit_lookup(&rawCommit, repo.get(), &id), "commit");
        git::CommitPtr commit(rawCommit);
        const git_oid mine = cache.blobIn(commit.get());
        const unsigned parents = git_commit_parentcount(commit.get());
        bool changed = parents == 0 ? !git_oid_is_zero(&mine) : true;
        git::CommitPtr firstParent;
        for (unsigned i = 0; i < parents && changed; ++i) {
            git_commit *rawParent = nullptr;
            gitCheck(git_commit_parent(&rawParent, commit.get(), i), "parent");
            git::CommitPtr parent(rawParent);
            const git_oid theirs = cache.blobIn(parent.get());
            if (git_oid_equal(&mine, &theirs))
                changed = false; // same as one parent: the change (if any) came from there
            if (i == 0)
                firstParent = std::move(parent);
        }
        if (!changed)
            continue;
        const git_signature *author = git_commit_author(commit.get());
        const char *summary = git_commit_summary(commit.get());
        FileVersion v;
        v.commit = git::oidToHex(&id);
        v.path = current;
        v.blob = git::oidToHex(&mine);
        v.author = author && author->name ? author->name : "";
        v.email = author && author->email ? author->email : "";
        v.time = author ? int64_t(author->when.time) : 0;
        v.subject = summary ? summary : "";
        out.push_back(std::move(v));
        const git_oid before = firstParent ? cache.blobIn(firstParent.get()) : git_oid{};
        if (firstParent && !git_oid_is_zero(&mine) && git_oid_is_zero(&before)) {
            // The commit added `current`: follow a rename to where it came from.
            const std::string from =
                renamedFrom(repo.get(), commit.get(), firstParent.get(), current);
            if (!from.empty()) {
                current = from;
                cache.reset(current);
            }
        }
    }
    if (rc != GIT_ITEROVER)
        gitCheck(rc, "walking history");
    return out;
}

} // namespace pw::core
