#include "repo/RepoWriter.h"

#include "repo/GitError.h"
#include "repo/GitHandles.h"
#include "util/ThreadRule.h"

namespace pw::core {

struct RepoWriter::Impl
{
    git::RepositoryPtr repo;

    // The commit a revision names (a tag is peeled); empty means HEAD.
    git::ObjectPtr commitObject(const std::string &rev) const
    {
        const std::string spec = rev.empty() ? "HEAD" : rev;
        git_object *raw = nullptr;
        gitCheck(git_revparse_single(&raw, repo.get(), spec.c_str()), "resolving " + spec);
        git::ObjectPtr object(raw);
        git_object *peeled = nullptr;
        gitCheck(git_object_peel(&peeled, object.get(), GIT_OBJECT_COMMIT), "peeling " + spec);
        return git::ObjectPtr(peeled);
    }

    static git::SignaturePtr signature(const std::string &name, const std::string &email,
                                       int64_t time)
    {
        git_signature *raw = nullptr;
        gitCheck(git_signature_new(&raw, name.c_str(), email.c_str(), git_time_t(time), 0),
                 "signature for " + name);
        return git::SignaturePtr(raw);
    }
};

RepoWriter::RepoWriter(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}
RepoWriter::RepoWriter(RepoWriter &&) noexcept = default;
RepoWriter &RepoWriter::operator=(RepoWriter &&) noexcept = default;
RepoWriter::~RepoWriter() = default;

RepoWriter RepoWriter::init(const std::string &path, const std::string &initialBranch)
{
    checkBlockingWorkAllowed("RepoWriter::init");
    git::ensureInit();
    git_repository_init_options opts;
    gitCheck(git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION),
             "init options");
    opts.flags = GIT_REPOSITORY_INIT_MKPATH;
    opts.initial_head = initialBranch.c_str();
    git_repository *raw = nullptr;
    gitCheck(git_repository_init_ext(&raw, path.c_str(), &opts), "init " + path);
    auto impl = std::make_unique<Impl>();
    impl->repo.reset(raw);
    return RepoWriter(std::move(impl));
}

std::string RepoWriter::workdir() const
{
    checkBlockingWorkAllowed("RepoWriter::workdir");
    const char *dir = git_repository_workdir(d->repo.get());
    std::string out = dir ? dir : "";
    if (out.size() > 1 && out.back() == '/')
        out.pop_back();
    return out;
}

void RepoWriter::setIdentity(const std::string &name, const std::string &email)
{
    checkBlockingWorkAllowed("RepoWriter::setIdentity");
    git_config *raw = nullptr;
    gitCheck(git_repository_config(&raw, d->repo.get()), "config");
    git::ConfigPtr config(raw);
    gitCheck(git_config_set_string(config.get(), "user.name", name.c_str()), "config user.name");
    gitCheck(git_config_set_string(config.get(), "user.email", email.c_str()), "config user.email");
}

std::string RepoWriter::commitAll(const std::string &message, const std::string &authorName,
                                  const std::string &authorEmail, int64_t time)
{
    checkBlockingWorkAllowed("RepoWriter::commitAll");
    git_repository *repo = d->repo.get();
    git_index *rawIndex = nullptr;
    gitCheck(git_repository_index(&rawIndex, repo), "index");
    git::IndexPtr index(rawIndex);
    gitCheck(git_index_add_all(index.get(), nullptr, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr),
             "staging");
    gitCheck(git_index_update_all(index.get(), nullptr, nullptr, nullptr), "staging deletions");
    gitCheck(git_index_write(index.get()), "writing index");
    git_oid treeId;
    gitCheck(git_index_write_tree(&treeId, index.get()), "writing tree");
    git_tree *rawTree = nullptr;
    gitCheck(git_tree_lookup(&rawTree, repo, &treeId), "tree");
    git::TreePtr tree(rawTree);

    git::CommitPtr parent;
    const int unborn = git_repository_head_unborn(repo);
    gitCheck(unborn, "reading HEAD");
    if (unborn == 0) {
        git::ObjectPtr headCommit = d->commitObject({});
        git_commit *rawParent = nullptr;
        gitCheck(git_commit_lookup(&rawParent, repo, git_object_id(headCommit.get())), "parent");
        parent.reset(rawParent);
    }
    const git_commit *parents[] = {parent.get()};
    git::SignaturePtr sig = Impl::signature(authorName, authorEmail, time);
    git_oid id;
    gitCheck(git_commit_create(&id, repo, "HEAD", sig.get(), sig.get(), nullptr, message.c_str(),
                               tree.get(), parent ? 1 : 0, parents),
             "commit");
    return git::oidToHex(&id);
}

void RepoWriter::createBranch(const std::string &name, const std::string &commit)
{
    checkBlockingWorkAllowed("RepoWriter::createBranch");
    git::ObjectPtr target = d->commitObject(commit);
    git_reference *raw = nullptr;
    gitCheck(git_branch_create(&raw, d->repo.get(), name.c_str(),
                               reinterpret_cast<const git_commit *>(target.get()), 0),
             "branch " + name);
    git::ReferencePtr ref(raw);
}

void RepoWriter::checkout(const std::string &branch)
{
    checkBlockingWorkAllowed("RepoWriter::checkout");
    const std::string ref = "refs/heads/" + branch;
    git::ObjectPtr target = d->commitObject(ref);
    git_checkout_options opts;
    gitCheck(git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION), "checkout options");
    opts.checkout_strategy = GIT_CHECKOUT_FORCE;
    gitCheck(git_checkout_tree(d->repo.get(), target.get(), &opts), "checkout " + branch);
    gitCheck(git_repository_set_head(d->repo.get(), ref.c_str()), "switching to " + branch);
}

void RepoWriter::orphan(const std::string &branch)
{
    checkBlockingWorkAllowed("RepoWriter::orphan");
    const std::string ref = "refs/heads/" + branch;
    gitCheck(git_repository_set_head(d->repo.get(), ref.c_str()), "orphan " + branch);
}

void RepoWriter::tag(const std::string &name, const std::string &commit)
{
    checkBlockingWorkAllowed("RepoWriter::tag");
    git::ObjectPtr target = d->commitObject(commit);
    git_oid id;
    gitCheck(git_tag_create_lightweight(&id, d->repo.get(), name.c_str(), target.get(), 0),
             "tag " + name);
}

void RepoWriter::annotatedTag(const std::string &name, const std::string &message,
                              const std::string &taggerName, const std::string &taggerEmail,
                              int64_t time, const std::string &commit)
{
    checkBlockingWorkAllowed("RepoWriter::annotatedTag");
    git::ObjectPtr target = d->commitObject(commit);
    git::SignaturePtr sig = Impl::signature(taggerName, taggerEmail, time);
    git_oid id;
    gitCheck(git_tag_create(&id, d->repo.get(), name.c_str(), target.get(), sig.get(),
                            message.c_str(), 0),
             "annotated tag " + name);
}

std::string RepoWriter::head() const
{
    checkBlockingWorkAllowed("RepoWriter::head");
    git_oid id;
    gitCheck(git_reference_name_to_id(&id, d->repo.get(), "HEAD"), "HEAD");
    return git::oidToHex(&id);
}

} // namespace pw::core
