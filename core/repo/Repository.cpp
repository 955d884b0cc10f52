#include "repo/Repository.h"

#include "repo/GitError.h"
#include "repo/RepositoryImpl.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/ThreadRule.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <tuple>

namespace pw::core {

using namespace repo_detail;

namespace {

const char kWorktree[] = "WORKTREE";

std::string withoutTrailingSlash(const char *path)
{
    std::string s = path ? path : "";
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

std::string trimmed(const std::string &s)
{
    const auto begin = s.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos)
        return {};
    const auto end = s.find_last_not_of(" \t\r\n");
    return s.substr(begin, end - begin + 1);
}

std::string shortId(const git_oid &id)
{
    return core::shortId(git::oidToHex(&id));
}

bool readTrustFileMode(git_repository *repo)
{
    git_config *raw = nullptr;
    if (git_repository_config_snapshot(&raw, repo) < 0)
        return true;
    git::ConfigPtr config(raw);
    int value = 1;
    if (git_config_get_bool(&value, config.get(), "core.filemode") < 0)
        return true;
    return value != 0;
}

// Whether libgit2's work tree of a non-bare repository is one. libgit2 gives a git
// directory without `core.bare` the directory above it as its work tree (a mirror copied
// without its config line, a `git init --bare` edited by hand): /tmp for /tmp/x.git, which
// then reads as every file of the project deleted and every file of /tmp added. git calls
// such a repository bare ("this operation must be run in a work tree"), and so do we: a
// work tree holds a `.git` that is this git directory (or a file naming it: a linked work
// tree, a submodule), or the config names it (`core.worktree`).
bool hasItsWorkTree(git_repository *repo)
{
    const char *workdir = git_repository_workdir(repo);
    if (git_repository_is_bare(repo) || !workdir)
        return false;
    git_config *raw = nullptr;
    if (git_repository_config_snapshot(&raw, repo) == 0) {
        git::ConfigPtr config(raw);
        const char *named = nullptr;
        if (git_config_get_string(&named, config.get(), "core.worktree") == 0 && named && *named)
            return true;
    }
    git_error_clear();
    std::error_code ec;
    const std::filesystem::path dotGit = std::filesystem::path(workdir) / ".git";
    if (std::filesystem::is_regular_file(dotGit, ec)) {
        // A linked work tree or a submodule: "gitdir: <path>" naming this git directory.
        const std::optional<std::string> text = readWholeFile(dotGit.string());
        if (!text || !text->starts_with("gitdir:"))
            return false;
        std::string named = text->substr(7, text->find('\n') - 7);
        named.erase(0, named.find_first_not_of(" \t"));
        while (!named.empty() && (named.back() == '\r' || named.back() == ' '))
            named.pop_back();
        const std::filesystem::path target = std::filesystem::path(named).is_absolute()
                                                 ? std::filesystem::path(named)
                                                 : std::filesystem::path(workdir) / named;
        return std::filesystem::equivalent(target, git_repository_path(repo), ec);
    }
    return std::filesystem::is_directory(dotGit, ec) &&
           std::filesystem::equivalent(dotGit, git_repository_path(repo), ec);
}

// "merge-base(A,B)" with white space tolerated anywhere between the tokens.
std::optional<std::pair<std::string, std::string>> parseMergeBase(const std::string &spec)
{
    const std::string s = trimmed(spec);
    const std::string keyword = "merge-base";
    if (!s.starts_with(keyword))
        return std::nullopt;
    const std::string rest = trimmed(s.substr(keyword.size()));
    if (rest.empty() || rest.front() != '(')
        return std::nullopt;
    if (rest.back() != ')')
        throw Error::input("malformed revision '" + spec + "': expected merge-base(A,B)");
    const std::string inner = rest.substr(1, rest.size() - 2);
    const auto comma = inner.find(',');
    if (comma == std::string::npos)
        throw Error::input("malformed revision '" + spec + "': expected merge-base(A,B)");
    std::string a = trimmed(inner.substr(0, comma));
    std::string b = trimmed(inner.substr(comma + 1));
    if (a.empty() || b.empty())
        throw Error::input("malformed revision '" + spec + "': expected merge-base(A,B)");
    return std::make_pair(a, b);
}

bool hasAnyReference(git_repository *repo)
{
    git_reference_iterator *raw = nullptr;
    if (git_reference_iterator_new(&raw, repo) < 0)
        return true;
    git::ReferenceIteratorPtr it(raw);
    git_reference *ref = nullptr;
    const bool any = git_reference_next(&ref, it.get()) == 0;
    git_reference_free(ref);
    return any;
}

git_oid revparseCommit(git_repository *repo, const std::string &spec)
{
    if (trimmed(spec).empty())
        throw Error::input("empty revision");
    git_object *raw = nullptr;
    const int rc = git_revparse_single(&raw, repo, spec.c_str());
    if (rc < 0) {
        const std::string message = takeGitError();
        if (git_repository_head_unborn(repo) == 1 && !hasAnyReference(repo))
            throw Error::input("cannot resolve '" + spec + "': the repository has no commits yet");
        if (rc == GIT_EAMBIGUOUS)
            throw Error::input("ambiguous revision '" + spec + "'");
        if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC)
            throw Error::input("unknown revision '" + spec + "'");
        throw GitError(rc, "resolving '" + spec + "'", message);
    }
    git::ObjectPtr object(raw);
    git_object *peeled = nullptr;
    if (git_object_peel(&peeled, object.get(), GIT_OBJECT_COMMIT) < 0)
        throw Error::input("revision '" + spec + "' does not name a commit");
    git::ObjectPtr commit(peeled);
    return *git_object_id(commit.get());
}

git_oid headCommitId(git_repository *repo, const std::string &forSpec)
{
    if (git_repository_head_unborn(repo) == 1)
        throw Error::input("cannot resolve '" + forSpec + "': the repository has no commits yet");
    git_oid id;
    gitCheck(git_reference_name_to_id(&id, repo, "HEAD"), "reading HEAD");
    return id;
}

std::string firstLine(const char *message)
{
    const std::string text = message ? message : "";
    return trimmed(text.substr(0, text.find('\n')));
}

Revision commitRevision(git_repository *repo, const std::string &spec, const git_oid &id)
{
    git::CommitPtr commit = lookupCommit(repo, id);
    Revision rev;
    rev.spec = spec;
    rev.kind = Revision::Kind::Commit;
    rev.commit = git::oidToHex(&id);
    rev.tree = git::oidToHex(git_commit_tree_id(commit.get()));
    rev.subject = firstLine(git_commit_message(commit.get()));
    return rev;
}

std::optional<git_oid> mergeBaseOf(git_repository *repo, const git_oid &a, const git_oid &b)
{
    git_oid out;
    const int rc = git_merge_base(&out, repo, &a, &b);
    if (rc == GIT_ENOTFOUND)
        return std::nullopt;
    gitCheck(rc, "computing merge base");
    return out;
}

struct BaseCandidate
{
    std::string name;    // as shown in the spec: "origin/main"
    std::string refName; // "refs/remotes/origin/main"
};

std::optional<BaseCandidate> upstreamCandidate(git_repository *repo)
{
    git_reference *rawHead = nullptr;
    if (git_repository_head(&rawHead, repo) < 0)
        return std::nullopt;
    git::ReferencePtr head(rawHead);
    if (!git_reference_is_branch(head.get()))
        return std::nullopt;
    git_reference *rawUpstream = nullptr;
    if (git_branch_upstream(&rawUpstream, head.get()) < 0)
        return std::nullopt;
    git::ReferencePtr upstream(rawUpstream);
    return BaseCandidate{git_reference_shorthand(upstream.get()),
                         git_reference_name(upstream.get())};
}

std::vector<BaseCandidate> baseCandidates(git_repository *repo)
{
    std::vector<BaseCandidate> candidates;
    if (auto upstream = upstreamCandidate(repo))
        candidates.push_back(*upstream);
    candidates.push_back({"origin/main", "refs/remotes/origin/main"});
    candidates.push_back({"main", "refs/heads/main"});
    candidates.push_back({"master", "refs/heads/master"});
    return candidates;
}

} // namespace

// ---------------------------------------------------------------------------------------
// Opening

Repository::Repository(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}
Repository::Repository(Repository &&) noexcept = default;
Repository &Repository::operator=(Repository &&) noexcept = default;
Repository::~Repository() = default;

Repository Repository::open(const std::string &path)
{
    checkBlockingWorkAllowed("Repository::open");
    git::ensureInit();
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec))
        throw Error::input(path + ": no such file or directory");
    // A file inside the work tree names its directory's repository.
    const std::filesystem::path start = std::filesystem::is_directory(path, ec)
                                            ? std::filesystem::path(path)
                                            : std::filesystem::path(path).parent_path();
    git_repository *raw = nullptr;
    const int rc = git_repository_open_ext(&raw, start.empty() ? "." : start.c_str(), 0, nullptr);
    if (rc == GIT_ENOTFOUND)
        throw Error::input(path + ": not a git repository (or any parent up to /)");
    if (rc < 0) // unreadable, not owned by the user (safe.directory), corrupt: the user's to fix
        throw Error::input(path + ": cannot open the repository: " + takeGitError());
    if (!git_repository_is_bare(raw) && !hasItsWorkTree(raw)) {
        const std::string gitDir = git_repository_path(raw);
        git_repository_free(raw);
        raw = nullptr;
        if (git_repository_open_ext(&raw, gitDir.c_str(),
                                    GIT_REPOSITORY_OPEN_BARE | GIT_REPOSITORY_OPEN_NO_SEARCH,
                                    nullptr) < 0)
            throw Error::input(path + ": cannot open the repository: " + takeGitError());
    }
    auto impl = std::make_unique<Impl>();
    impl->repo.reset(raw);
    impl->trustFileMode = readTrustFileMode(raw);
    return Repository(std::move(impl));
}

std::string Repository::workdir() const
{
    checkBlockingWorkAllowed("Repository::workdir");
    return withoutTrailingSlash(git_repository_workdir(d->get()));
}

std::string Repository::gitDir() const
{
    checkBlockingWorkAllowed("Repository::gitDir");
    return withoutTrailingSlash(git_repository_path(d->get()));
}

std::string Repository::commonDir() const
{
    checkBlockingWorkAllowed("Repository::commonDir");
    return withoutTrailingSlash(git_repository_commondir(d->get()));
}

std::string Repository::userName() const
{
    checkBlockingWorkAllowed("Repository::userName");
    git_config *raw = nullptr;
    gitCheck(git_repository_config_snapshot(&raw, d->get()), "reading the git config");
    git::ConfigPtr config(raw);
    const char *value = nullptr;
    const int rc = git_config_get_string(&value, config.get(), "user.name");
    if (rc == GIT_ENOTFOUND) {
        git_error_clear();
        return {};
    }
    gitCheck(rc, "reading user.name");
    return value ? value : "";
}

bool Repository::isUnborn() const
{
    checkBlockingWorkAllowed("Repository::isUnborn");
    const int rc = git_repository_head_unborn(d->get());
    gitCheck(rc, "reading HEAD");
    return rc == 1;
}

bool Repository::isBare() const
{
    checkBlockingWorkAllowed("Repository::isBare");
    return git_repository_is_bare(d->get());
}

bool Repository::isNothingCheckedOut() const
{
    checkBlockingWorkAllowed("Repository::isNothingCheckedOut");
    git_repository *repo = d->get();
    if (git_repository_is_bare(repo) || isUnborn())
        return false;
    git_index *rawIndex = nullptr;
    gitCheck(git_repository_index(&rawIndex, repo), "reading the index");
    git::IndexPtr index(rawIndex);
    gitCheck(git_index_read(index.get(), 1), "reading the index"); // as it is on disk now
    if (git_index_entrycount(index.get()) > 0)
        return false;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(workdir(), ec)) {
        if (entry.path().filename() != ".git")
            return false;
    }
    if (ec)
        return false;
    const git::CommitPtr commit = lookupCommit(repo, headCommitId(repo, "HEAD"));
    git_tree *rawTree = nullptr;
    gitCheck(git_commit_tree(&rawTree, commit.get()), "reading HEAD's tree");
    git::TreePtr tree(rawTree);
    return git_tree_entrycount(tree.get()) > 0;
}

bool Repository::isDirty() const
{
    checkBlockingWorkAllowed("Repository::isDirty");
    if (git_repository_is_bare(d->get()))
        return false;
    return git_status_list_entrycount(workdirStatus(d->get()).get()) > 0;
}

// ---------------------------------------------------------------------------------------
// Revisions

Revision Repository::resolve(const std::string &spec) const
{
    checkBlockingWorkAllowed("Repository::resolve");
    git_repository *repo = d->get();
    if (isPatchSpec(spec))
        throw Error::input("'" + spec +
                           "' is a patch file: it needs a base revision to apply "
                           "onto (Repository::resolvePatch, or --base; default HEAD)");
    if (spec == kWorktree) {
        if (git_repository_is_bare(repo))
            throw Error::input("WORKTREE: " + gitDir() +
                               " is a bare repository: it has no work tree to read; compare "
                               "two revisions (the head defaults to HEAD)");
        Revision rev;
        rev.spec = spec;
        rev.kind = Revision::Kind::Worktree;
        if (!isUnborn()) {
            const git_oid head = headCommitId(repo, spec);
            rev.commit = git::oidToHex(&head);
        }
        return rev;
    }
    if (auto sides = parseMergeBase(spec)) {
        auto sideCommit = [&](const std::string &side) {
            return side == kWorktree ? headCommitId(repo, side) : revparseCommit(repo, side);
        };
        const git_oid a = sideCommit(sides->first);
        const git_oid b = sideCommit(sides->second);
        const auto base = mergeBaseOf(repo, a, b);
        if (!base)
            throw Error::input("no merge base between '" + sides->first + "' and '" +
                               sides->second + "'");
        return commitRevision(repo, spec, *base);
    }
    return commitRevision(repo, spec, revparseCommit(repo, spec));
}

Revision Repository::snapshot(const Revision &worktree) const
{
    checkBlockingWorkAllowed("Repository::snapshot");
    if (!worktree.isWorktree())
        throw Error::input("'" + worktree.spec + "' is not WORKTREE: only a work tree is read");
    Revision rev = worktree;
    snapshotWorktree(*d, rev);
    return rev;
}

Revision Repository::resolvePatch(const std::string &spec, const Revision &base,
                                  long long maxBytes) const
{
    checkBlockingWorkAllowed("Repository::resolvePatch");
    if (!isPatchSpec(spec))
        throw Error::input("'" + spec + "' is not a patch file: expected PATCH:<file>");
    return applyPatchFile(*d, spec, base, maxBytes);
}

Revision Repository::resolveHead(const std::string &spec, const Revision &base,
                                 long long maxBytes) const
{
    checkBlockingWorkAllowed("Repository::resolveHead");
    return isPatchSpec(spec) ? resolvePatch(spec, base, maxBytes) : resolve(spec);
}

bool Repository::isPatchSpec(const std::string &spec)
{
    return repo_detail::isPatchSpec(spec);
}

Revision Repository::defaultHead() const
{
    checkBlockingWorkAllowed("Repository::defaultHead");
    if (isBare()) {
        if (isUnborn())
            throw Error::input(gitDir() +
                               ": a bare repository without commits yet: nothing to review");
        return resolve("HEAD"); // no work tree to read
    }
    if (isUnborn() || (isDirty() && !isNothingCheckedOut()))
        return resolve(kWorktree);
    return resolve("HEAD");
}

Revision Repository::defaultBase(const Revision &head) const
{
    checkBlockingWorkAllowed("Repository::defaultBase");
    git_repository *repo = d->get();
    if (head.commit.empty())
        throw Error::input("no base revision: the repository has no commits yet; pass --base");
    const git_oid headId = parseOid(head.commit, "commit");
    if (head.isPatch()) // what the patch was applied onto
        return commitRevision(repo, shortId(headId), headId);
    const bool plainSpec = !head.isWorktree() && !parseMergeBase(head.spec);
    const std::string headSpec = plainSpec ? head.spec : head.isWorktree() ? "HEAD" : head.commit;

    for (const BaseCandidate &candidate : baseCandidates(repo)) {
        git_oid candidateId;
        if (git_reference_name_to_id(&candidateId, repo, candidate.refName.c_str()) < 0)
            continue;
        if (git_oid_equal(&candidateId, &headId))
            continue;
        const auto base = mergeBaseOf(repo, headId, candidateId);
        // A head that is an ancestor of the candidate has nothing to show against it.
        if (!base || (!head.isWorktree() && git_oid_equal(&*base, &headId)))
            continue;
        return commitRevision(repo, "merge-base(" + candidate.name + "," + headSpec + ")", *base);
    }

    // Nothing to compare against: the working tree sits on HEAD, a commit on its parent.
    if (head.isWorktree())
        return commitRevision(repo, "HEAD", headId);
    git::CommitPtr commit = lookupCommit(repo, headId);
    if (git_commit_parentcount(commit.get()) == 0)
        throw Error::input("no base revision: '" + head.spec + "' (" + shortId(headId) +
                           ") is a root commit and there is no upstream, origin/main, main or "
                           "master branch to compare against; pass --base");
    const std::string parentSpec = plainSpec ? head.spec + "~1" : shortId(headId) + "~1";
    return commitRevision(repo, parentSpec, *git_commit_parent_id(commit.get(), 0));
}

// ---------------------------------------------------------------------------------------
// Refs and history

std::vector<RefInfo> Repository::refs() const
{
    checkBlockingWorkAllowed("Repository::refs");
    git_reference_iterator *rawIt = nullptr;
    gitCheck(git_reference_iterator_new(&rawIt, d->get()), "listing references");
    git::ReferenceIteratorPtr it(rawIt);
    std::vector<RefInfo> result;
    git_reference *rawRef = nullptr;
    int rc = 0;
    while ((rc = git_reference_next(&rawRef, it.get())) == 0) {
        git::ReferencePtr ref(rawRef);
        RefInfo info;
        if (git_reference_is_branch(ref.get()))
            info.kind = RefInfo::Kind::Branch;
        else if (git_reference_is_remote(ref.get()))
            info.kind = RefInfo::Kind::RemoteBranch;
        else if (git_reference_is_tag(ref.get()))
            info.kind = RefInfo::Kind::Tag;
        else
            continue; // notes, stash, …
        if (git_reference_type(ref.get()) == GIT_REFERENCE_SYMBOLIC)
            continue; // origin/HEAD repeats another entry
        git_object *rawPeeled = nullptr;
        if (git_reference_peel(&rawPeeled, ref.get(), GIT_OBJECT_COMMIT) < 0)
            continue; // a tag of a tree or blob is no revision to review
        git::ObjectPtr peeled(rawPeeled);
        info.name = git_reference_shorthand(ref.get());
        info.commit = git::oidToHex(git_object_id(peeled.get()));
        result.push_back(std::move(info));
    }
    if (rc != GIT_ITEROVER)
        gitCheck(rc, "listing references");
    std::sort(result.begin(), result.end(), [](const RefInfo &a, const RefInfo &b) {
        return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
    });
    return result;
}

std::vector<CommitInfo> Repository::recentCommits(int max) const
{
    checkBlockingWorkAllowed("Repository::recentCommits");
    std::vector<CommitInfo> result;
    if (max <= 0 || isUnborn())
        return result;
    git_revwalk *rawWalk = nullptr;
    gitCheck(git_revwalk_new(&rawWalk, d->get()), "walking history");
    git::RevwalkPtr walk(rawWalk);
    gitCheck(git_revwalk_sorting(walk.get(), GIT_SORT_TIME), "walking history");
    gitCheck(git_revwalk_push_head(walk.get()), "walking history from HEAD");
    git_oid id;
    int rc = 0;
    while (static_cast<int>(result.size()) < max && (rc = git_revwalk_next(&id, walk.get())) == 0) {
        git::CommitPtr commit = lookupCommit(d->get(), id);
        const git_signature *author = git_commit_author(commit.get());
        CommitInfo info;
        info.commit = git::oidToHex(&id);
        info.subject = firstLine(git_commit_message(commit.get()));
        info.author = author && author->name ? author->name : "";
        info.time = static_cast<int64_t>(git_commit_time(commit.get()));
        result.push_back(std::move(info));
    }
    if (rc < 0 && rc != GIT_ITEROVER)
        gitCheck(rc, "walking history");
    return result;
}

TagDistance Repository::describe(const std::string &commit) const
{
    checkBlockingWorkAllowed("Repository::describe");
    git_oid id;
    if (git_oid_fromstr(&id, commit.c_str()) != 0)
        throw Error::input("not a commit id: " + commit);
    git::CommitPtr target = lookupCommit(d->get(), id);
    TagDistance out;
    out.shortId = git::oidToHex(&id).substr(0, 7);
    git_describe_options options = GIT_DESCRIBE_OPTIONS_INIT;
    options.describe_strategy = GIT_DESCRIBE_TAGS;
    options.pattern = "*[0-9]*";
    git_describe_result *raw = nullptr;
    const int rc =
        git_describe_commit(&raw, reinterpret_cast<git_object *>(target.get()), &options);
    if (rc == 0) {
        git::DescribeResultPtr result(raw);
        git_describe_format_options format = GIT_DESCRIBE_FORMAT_OPTIONS_INIT;
        format.always_use_long_format = 1;
        format.abbreviated_size = 7;
        git_buf buf = GIT_BUF_INIT;
        gitCheck(git_describe_format(&buf, result.get(), &format), "describing " + commit);
        const std::string text(buf.ptr, buf.size);
        git_buf_dispose(&buf);
        // "<tag>-<distance>-g<sha>"; the tag itself may hold dashes.
        const size_t g = text.rfind("-g");
        const size_t dash = g == std::string::npos ? g : text.rfind('-', g - 1);
        if (dash != std::string::npos && dash > 0) {
            out.tag = text.substr(0, dash);
            out.distance = std::stoi(text.substr(dash + 1, g - dash - 1));
            return out;
        }
    } else if (rc != GIT_ENOTFOUND) {
        gitCheck(rc, "describing " + commit);
    }
    git_revwalk *rawWalk = nullptr;
    gitCheck(git_revwalk_new(&rawWalk, d->get()), "walking history");
    git::RevwalkPtr walk(rawWalk);
    gitCheck(git_revwalk_push(walk.get(), &id), "walking history from " + commit);
    git_oid next;
    while (git_revwalk_next(&next, walk.get()) == 0)
        ++out.distance;
    return out;
}

} // namespace pw::core
