// libFuzzer target: a PATCH: file as the audit reads it — split into mails, binary hunks
// checked, parsed by libgit2 and applied in memory onto a small base tree (the files of
// tests/fuzz/base). Input errors (pw::core::Error) are the expected outcome of most
// inputs; a crash, a sanitizer report, an escaping exception or a hang is a finding.

#include "repo/GitHandles.h"
#include "repo/RepositoryImpl.h"
#include "util/Error.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <git2.h>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fs = std::filesystem;
using namespace pw::core;

namespace {

constexpr long long kMaxBytes = 1024 * 1024; // small: inputs that declare more are refused

void check(int rc, const char *what)
{
    if (rc < 0)
        throw std::runtime_error(std::string("fuzz fixture: ") + what);
}

struct Fixture
{
    std::string dir;       // the repository
    std::string patchPath; // where each input is written
    std::string commit;    // the base commit
};

// A repository whose one commit holds the files of tests/fuzz/base (the corpus's patches
// were made against them, so they apply and reach libgit2's apply code).
Fixture makeFixture()
{
    Fixture f;
    char pattern[] = "/tmp/pw-fuzz-XXXXXX";
    if (!mkdtemp(pattern))
        throw std::runtime_error("fuzz fixture: mkdtemp");
    f.dir = pattern;
    f.patchPath = f.dir + "/input.patch";
    git::ensureInit();
    git_repository *raw = nullptr;
    check(git_repository_init(&raw, (f.dir + "/repo").c_str(), false), "init");
    git::RepositoryPtr repo(raw);
    git_index *rawIndex = nullptr;
    check(git_repository_index(&rawIndex, repo.get()), "index");
    git::IndexPtr index(rawIndex);
    for (const auto &e : fs::directory_iterator(PW_FUZZ_BASE_DIR)) {
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        const std::string content = bytes.str();
        git_index_entry entry{};
        entry.mode = GIT_FILEMODE_BLOB;
        const std::string name = e.path().filename().string();
        entry.path = name.c_str();
        check(git_index_add_from_buffer(index.get(), &entry, content.data(), content.size()),
              "add");
    }
    git_oid treeId, commitId;
    check(git_index_write_tree(&treeId, index.get()), "tree");
    git_tree *rawTree = nullptr;
    check(git_tree_lookup(&rawTree, repo.get(), &treeId), "tree lookup");
    git::TreePtr tree(rawTree);
    git_signature *rawSig = nullptr;
    check(git_signature_new(&rawSig, "Fuzz", "fuzz@example.com", 0, 0), "signature");
    git::SignaturePtr sig(rawSig);
    check(git_commit_create(&commitId, repo.get(), "HEAD", sig.get(), sig.get(), nullptr, "base",
                            tree.get(), 0, nullptr),
          "commit");
    f.commit = git::oidToHex(&commitId);
    return f;
}

const Fixture &fixture()
{
    static const Fixture f = makeFixture();
    static const int cleanup = std::atexit([] {
        std::error_code ec;
        fs::remove_all(fixture().dir, ec);
    });
    (void)cleanup;
    return f;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const Fixture &f = fixture();
    {
        std::ofstream out(f.patchPath, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), std::streamsize(size));
    }
    // A fresh instance per input: applied trees live in its in-memory object database.
    repo_detail::RepoState state;
    git_repository *raw = nullptr;
    if (git_repository_open(&raw, (f.dir + "/repo").c_str()) < 0)
        std::abort();
    state.repo.reset(raw);
    Revision base;
    base.spec = f.commit;
    base.commit = f.commit;
    try {
        const Revision patched =
            repo_detail::applyPatchFile(state, "PATCH:" + f.patchPath, base, kMaxBytes);
        if (patched.tree.size() != GIT_OID_HEXSZ)
            std::abort(); // applied, but no tree
    } catch (const Error &) {
        // refused with a message: what untrusted input should get
    }
    return 0;
}
