#include "RepoBuilder.h"

#include "repo/GitHandles.h"

#include <QDir>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace pw::test {

namespace git = pw::core::git;
namespace fs = std::filesystem;

namespace {

void check(int code, const std::string &context)
{
    if (code >= 0)
        return;
    const git_error *last = git_error_last();
    throw std::runtime_error("RepoBuilder: " + context + ": " +
                             (last && last->message ? last->message : "libgit2 error"));
}

// Deterministic, strictly increasing commit times: history order is time order.
constexpr git_time_t kFirstCommitTime = 1'700'000'000;

} // namespace

struct RepoBuilder::Git
{
    git::RepositoryPtr repo;
    int commits = 0;

    git::SignaturePtr signature()
    {
        git_signature *raw = nullptr;
        check(
            git_signature_new(&raw, "Test", "t@example.com", kFirstCommitTime + 60 * commits++, 0),
            "signature");
        return git::SignaturePtr(raw);
    }

    git::ObjectPtr commitObject(const std::string &id)
    {
        git_object *raw = nullptr;
        check(git_revparse_single(&raw, repo.get(), id.empty() ? "HEAD^{commit}" : id.c_str()),
              "resolving " + (id.empty() ? std::string("HEAD") : id));
        git::ObjectPtr object(raw);
        git_object *peeled = nullptr;
        check(git_object_peel(&peeled, object.get(), GIT_OBJECT_COMMIT), "peeling " + id);
        return git::ObjectPtr(peeled);
    }
};

RepoBuilder::RepoBuilder() : RepoBuilder(QString()) {}

RepoBuilder::RepoBuilder(const QString &dir)
{
    if (dir.isEmpty() && !m_tmp.isValid())
        throw std::runtime_error("RepoBuilder: cannot create a temporary directory");
    const QString path = dir.isEmpty() ? m_tmp.path() : dir;
    QDir().mkpath(path);
    m_root = QDir(path).canonicalPath().toStdString();

    git::ensureInit();
    auto state = std::make_unique<Git>(); // owned by m_git only once construction succeeded
    git_repository_init_options opts;
    check(git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION), "init");
    opts.flags = GIT_REPOSITORY_INIT_MKPATH;
    opts.initial_head = "main";
    git_repository *raw = nullptr;
    check(git_repository_init_ext(&raw, m_root.c_str(), &opts), "init " + m_root);
    state->repo.reset(raw);

    git_config *rawConfig = nullptr;
    check(git_repository_config(&rawConfig, raw), "config");
    git::ConfigPtr config(rawConfig);
    check(git_config_set_string(config.get(), "user.name", "Test"), "config user.name");
    check(git_config_set_string(config.get(), "user.email", "t@example.com"), "config user.email");
    m_git = state.release();
}

RepoBuilder::~RepoBuilder()
{
    delete m_git;
}

std::string RepoBuilder::root() const
{
    return m_root;
}

void RepoBuilder::write(const std::string &path, const std::string &content)
{
    const fs::path file = fs::path(m_root) / path;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out)
        throw std::runtime_error("RepoBuilder: cannot write " + file.string());
}

void RepoBuilder::remove(const std::string &path)
{
    if (!fs::remove(fs::path(m_root) / path))
        throw std::runtime_error("RepoBuilder: cannot remove " + path + ": no such file");
}

void RepoBuilder::rename(const std::string &from, const std::string &to)
{
    const fs::path target = fs::path(m_root) / to;
    fs::create_directories(target.parent_path());
    fs::rename(fs::path(m_root) / from, target);
}

std::string RepoBuilder::read(const std::string &path) const
{
    std::ifstream in(fs::path(m_root) / path, std::ios::binary);
    if (!in)
        throw std::runtime_error("RepoBuilder: cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string RepoBuilder::commit(const std::string &message)
{
    git_repository *repo = m_git->repo.get();
    git_index *rawIndex = nullptr;
    check(git_repository_index(&rawIndex, repo), "index");
    git::IndexPtr index(rawIndex);
    check(git_index_add_all(index.get(), nullptr, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr),
          "staging");
    check(git_index_update_all(index.get(), nullptr, nullptr, nullptr), "staging deletions");
    check(git_index_write(index.get()), "writing index");
    git_oid treeId;
    check(git_index_write_tree(&treeId, index.get()), "writing tree");
    git_tree *rawTree = nullptr;
    check(git_tree_lookup(&rawTree, repo, &treeId), "tree");
    git::TreePtr tree(rawTree);

    git::CommitPtr parent;
    if (git_repository_head_unborn(repo) != 1) {
        git::ObjectPtr head = m_git->commitObject({});
        git_commit *rawParent = nullptr;
        check(git_commit_lookup(&rawParent, repo, git_object_id(head.get())), "parent");
        parent.reset(rawParent);
    }
    const git_commit *parents[] = {parent.get()};
    git::SignaturePtr sig = m_git->signature();
    git_oid id;
    check(git_commit_create(&id, repo, "HEAD", sig.get(), sig.get(), nullptr, message.c_str(),
                            tree.get(), parent ? 1 : 0, parents),
          "commit");
    return git::oidToHex(&id);
}

void RepoBuilder::branch(const std::string &name, const std::string &commit)
{
    git::ObjectPtr target = m_git->commitObject(commit);
    git_reference *raw = nullptr;
    check(git_branch_create(&raw, m_git->repo.get(), name.c_str(),
                            reinterpret_cast<const git_commit *>(target.get()), 0),
          "branch " + name);
    git_reference_free(raw);
}

void RepoBuilder::checkout(const std::string &branch)
{
    const std::string ref = "refs/heads/" + branch;
    git::ObjectPtr target = m_git->commitObject(ref);
    git_checkout_options opts;
    check(git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION), "checkout options");
    opts.checkout_strategy = GIT_CHECKOUT_FORCE;
    check(git_checkout_tree(m_git->repo.get(), target.get(), &opts), "checkout " + branch);
    check(git_repository_set_head(m_git->repo.get(), ref.c_str()), "switching to " + branch);
}

void RepoBuilder::orphan(const std::string &branch)
{
    const std::string ref = "refs/heads/" + branch;
    check(git_repository_set_head(m_git->repo.get(), ref.c_str()), "orphan " + branch);
}

void RepoBuilder::tag(const std::string &name, const std::string &commit)
{
    git::ObjectPtr target = m_git->commitObject(commit);
    git_oid id;
    check(git_tag_create_lightweight(&id, m_git->repo.get(), name.c_str(), target.get(), 0),
          "tag " + name);
}

void RepoBuilder::annotatedTag(const std::string &name, const std::string &message,
                               const std::string &commit)
{
    git::ObjectPtr target = m_git->commitObject(commit);
    git::SignaturePtr sig = m_git->signature();
    git_oid id;
    check(git_tag_create(&id, m_git->repo.get(), name.c_str(), target.get(), sig.get(),
                         message.c_str(), 0),
          "annotated tag " + name);
}

std::string RepoBuilder::head() const
{
    git_oid id;
    check(git_reference_name_to_id(&id, m_git->repo.get(), "HEAD"), "HEAD");
    return git::oidToHex(&id);
}

} // namespace pw::test
