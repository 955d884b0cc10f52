// bench_ledger: (1) the history of one ledger across a 10,000-commit repository in which
// 500 commits touch the ledger (target <= 1 s), next to `git log --follow` of the same
// path; (2) validation of a 5,000-entry quarantine ledger (target <= 100 ms), next to a
// plain toml++ parse of the same text. Prints medians and ratios. The repository is
// written straight into the object database with libgit2 (no index, no work tree).
#include "ledger/LedgerHistory.h"
#include "ledger/LedgerValidator.h"
#include "ledger/QuarantineLedger.h"
#include "repo/FileHistory.h"
#include "repo/GitError.h"
#include "repo/GitHandles.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <sys/resource.h>
#include <toml++/toml.h>
#include <vector>

using namespace pw::core;

namespace {

constexpr int kCommits = 10000;
constexpr int kLedgerCommits = 500;
constexpr int kEntries = 5000;
constexpr int kRuns = 5;
const char *kLedgerPath = ".patchwitness/quarantine.toml";

QuarantineEntry entry(int i, const QDate &opened)
{
    QuarantineEntry e;
    e.test = "tests/test_mod" + std::to_string(i / 20) + ".py::test_case_" + std::to_string(i);
    e.owner = "owner" + std::to_string(i % 7);
    e.opened = opened;
    e.expires = opened.addDays(14);
    e.verdict = "PRE_EXISTING";
    e.attribution = "order";
    e.witnessSeed = i % 20;
    e.baselineSha = "0123456789abcdef0123456789abcdef01234567";
    e.evidence = FreezeEvidence{3, 3, std::string("matched"), std::vector<long long>{1, 2, 3},
                                std::string("abcd1234abcd1234")};
    e.obligation = "case " + std::to_string(i) + " keeps its result";
    e.substitute = "tests/test_mod" + std::to_string(i / 20) + ".py::test_other";
    e.guards = std::vector<std::string>{"src/mod" + std::to_string(i / 20) + ".py"};
    e.replay =
        "pytest tests/test_mod" + std::to_string(i / 20) + ".py::test_case_" + std::to_string(i);
    return e;
}

git_oid writeBlob(git_repository *repo, const std::string &bytes)
{
    git_oid id;
    gitCheck(git_blob_create_from_buffer(&id, repo, bytes.data(), bytes.size()), "blob");
    return id;
}

git_oid
writeTree(git_repository *repo,
          const std::vector<std::pair<std::string, std::pair<git_oid, git_filemode_t>>> &items)
{
    git_treebuilder *raw = nullptr;
    gitCheck(git_treebuilder_new(&raw, repo, nullptr), "treebuilder");
    std::unique_ptr<git_treebuilder, void (*)(git_treebuilder *)> tb(raw, git_treebuilder_free);
    for (const auto &[name, item] : items)
        gitCheck(git_treebuilder_insert(nullptr, tb.get(), name.c_str(), &item.first, item.second),
                 "insert");
    git_oid id;
    gitCheck(git_treebuilder_write(&id, tb.get()), "tree");
    return id;
}

// A linear history of kCommits commits; every (kCommits / kLedgerCommits)th changes the
// ledger (a freeze added, one renewed, the oldest removed), the others change a source file.
void buildRepository(const std::string &path)
{
    git::ensureInit();
    git_repository *rawRepo = nullptr;
    gitCheck(git_repository_init(&rawRepo, path.c_str(), 0), "init");
    git::RepositoryPtr repo(rawRepo);
    git_repository *r = repo.get();

    const git_oid readme = writeBlob(r, "bench\n");
    std::vector<QuarantineEntry> live;
    int next = 0;
    git_oid ledgerTree{};
    git_oid parent{};
    bool haveParent = false;
    const int every = kCommits / kLedgerCommits;
    git_signature *rawSig = nullptr;
    for (int c = 0; c < kCommits; ++c) {
        const QDate day = QDate(2023, 1, 1).addDays(c / 20);
        if (c % every == 0) {
            live.push_back(entry(next++, day));
            if (live.size() > 30)
                live.erase(live.begin());
            if (c % (every * 3) == 0 && live.size() > 2) {
                live[1].renewed = day;
                live[1].lastReproduced = day;
                live[1].expires = day.addDays(14);
            }
            std::string text = "# freezes\n";
            for (const QuarantineEntry &e : live)
                text += "\n" + QuarantineLedger::format(e);
            ledgerTree =
                writeTree(r, {{"quarantine.toml", {writeBlob(r, text), GIT_FILEMODE_BLOB}}});
        }
        const git_oid src = writeTree(
            r,
            {{"mod.py", {writeBlob(r, "VALUE = " + std::to_string(c) + "\n"), GIT_FILEMODE_BLOB}}});
        const git_oid root = writeTree(r, {{".patchwitness", {ledgerTree, GIT_FILEMODE_TREE}},
                                           {"README", {readme, GIT_FILEMODE_BLOB}},
                                           {"src", {src, GIT_FILEMODE_TREE}}});
        git_tree *rawTree = nullptr;
        gitCheck(git_tree_lookup(&rawTree, r, &root), "tree lookup");
        git::TreePtr tree(rawTree);
        git::CommitPtr parentCommit;
        if (haveParent) {
            git_commit *rawParent = nullptr;
            gitCheck(git_commit_lookup(&rawParent, r, &parent), "parent");
            parentCommit.reset(rawParent);
        }
        gitCheck(git_signature_new(&rawSig, "Bench", "b@example.com", 1672531200 + c * 600, 0),
                 "sig");
        git::SignaturePtr sig(rawSig);
        const git_commit *parents[] = {parentCommit.get()};
        const std::string message = "commit " + std::to_string(c);
        gitCheck(git_commit_create(&parent, r, nullptr, sig.get(), sig.get(), nullptr,
                                   message.c_str(), tree.get(), haveParent ? 1 : 0, parents),
                 "commit");
        haveParent = true;
    }
    git_reference *rawRef = nullptr;
    gitCheck(git_reference_create(&rawRef, r, "refs/heads/main", &parent, 1, "bench"), "ref");
    git::ReferencePtr ref(rawRef);
    gitCheck(git_repository_set_head(r, "refs/heads/main"), "HEAD");
}

// CPU seconds of this process and of its finished children (user + system): on a shared
// machine wall-clock time measures the neighbours as much as the code.
double cpuMs()
{
    rusage self{}, children{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    auto ms = [](const timeval &t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
    return ms(self.ru_utime) + ms(self.ru_stime) + ms(children.ru_utime) + ms(children.ru_stime);
}

struct Timing
{
    double wall = 0; // median wall-clock ms
    double cpu = 0;  // median CPU ms
};

Timing median(int runs, const std::function<void()> &f)
{
    std::vector<double> wall, cpu;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        const double c0 = cpuMs();
        t.start();
        f();
        wall.push_back(double(t.nsecsElapsed()) / 1e6);
        cpu.push_back(cpuMs() - c0);
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void row(const char *what, const Timing &t, const Timing &ref, const char *refName, double target)
{
    std::printf("  %-40s wall %8.1f ms  cpu %8.1f ms | %-19s wall %8.1f ms  cpu %8.1f ms | "
                "cpu ratio %5.2f | target %s %.0f ms (cpu)\n",
                what, t.wall, t.cpu, refName, ref.wall, ref.cpu, t.cpu / ref.cpu,
                t.cpu <= target ? "met, <=" : "MISSED, >", target);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();

    QElapsedTimer build;
    build.start();
    buildRepository(path);
    std::printf("bench_ledger (medians of %d runs; CPU = user + system, children included)\n"
                "  repository: %d commits, %d touching %s (built in %.1f s)\n",
                kRuns, kCommits, kLedgerCommits, kLedgerPath, double(build.elapsed()) / 1000);

    // (1) history
    size_t versions = 0, events = 0;
    const Timing walk =
        median(kRuns, [&] { versions = FileHistory::walk(path, kLedgerPath).size(); });
    const Timing history = median(
        kRuns, [&] { events = LedgerHistory::of(path, kLedgerPath, QDate(2024, 6, 1)).size(); });
    int gitVersions = 0;
    const Timing gitLog = median(kRuns, [&] {
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.start(QStringLiteral("git"), {QStringLiteral("log"), QStringLiteral("--follow"),
                                        QStringLiteral("--format=%H %an %at"), QStringLiteral("--"),
                                        QString::fromLatin1(kLedgerPath)});
        p.waitForFinished(120000);
        gitVersions = int(p.readAllStandardOutput().count('\n'));
    });
    std::printf("  versions found: %zu (git log --follow: %d), events derived: %zu\n", versions,
                gitVersions, events);
    row("revwalk with path filter (FileHistory)", walk, gitLog, "git log --follow", 1000);
    row("history with per-entry events", history, gitLog, "git log --follow", 1000);

    // (2) validation
    std::string text = "# 5000 freezes\n";
    for (int i = 0; i < kEntries; ++i)
        text += "\n" + QuarantineLedger::format(entry(i, QDate(2024, 5, 1)));
    std::set<std::string> head;
    for (int i = 0; i < kEntries / 20 + 1; ++i)
        head.insert("tests/test_mod" + std::to_string(i) + ".py::test_other");
    ValidationContext ctx;
    ctx.today = QDate(2024, 5, 10);
    ctx.testExistsAtHead = [&head](const std::string &id) { return head.count(id) > 0; };
    for (int i = 0; i < 20; ++i)
        ctx.patchedFiles.insert("src/other" + std::to_string(i) + ".py");
    const LedgerValidator validator(ctx);
    size_t problems = 0;
    const Timing plain = median(kRuns, [&] {
        toml::table t = toml::parse(text, std::string_view("quarantine.toml"));
        (void)t;
    });
    const QuarantineLedger parsed = QuarantineLedger::parse(text, "quarantine.toml");
    const Timing validateOnly = median(kRuns, [&] { problems = validator.check(parsed).size(); });
    const Timing full = median(kRuns, [&] {
        problems = validator.check(QuarantineLedger::parse(text, "quarantine.toml")).size();
    });
    std::printf("  quarantine ledger: %d entries, %.1f KiB, %zu problem(s)\n", kEntries,
                double(text.size()) / 1024, problems);
    row("validate (entries already read)", validateOnly, plain, "plain toml++ parse", 100);
    row("read + validate (from text)", full, plain, "plain toml++ parse", 100);
#ifndef NDEBUG
    std::printf(
        "  note: a Debug build (no optimisation); Release figures are several times lower\n");
#endif
    return 0;
}
