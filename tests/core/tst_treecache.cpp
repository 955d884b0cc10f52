// TreeCache (core/execution) and Repository::materialize (core/repo): revisions copied into an
// isolated cache for runs, reused while intact, rebuilt when damaged, bounded by LRU,
// safe from two threads, stopped by a stop request without leaving half a tree, and never
// writing into the reviewer's repository.

#include "RepoBuilder.h"
#include "execution/TreeCache.h"
#include "execution/TreeCopy.h"
#include "repo/Repository.h"
#include "util/Error.h"

#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <atomic>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stop_token>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using pw::core::Error;
using pw::core::MaterializedTree;
using pw::core::Repository;
using pw::core::Revision;
using pw::core::TreeCache;
using pw::core::TreeCopy;
using pw::test::RepoBuilder;

namespace fs = std::filesystem;

namespace {

std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// path → (size, mtime ns, mode, content) of everything under `root`, .git included.
std::map<std::string, std::string> snapshot(const std::string &root)
{
    std::map<std::string, std::string> out;
    for (const auto &e : fs::recursive_directory_iterator(root)) {
        struct stat st;
        ::lstat(e.path().c_str(), &st);
        std::string line = std::to_string(st.st_mode) + " " + std::to_string(st.st_mtim.tv_sec) +
                           "." + std::to_string(st.st_mtim.tv_nsec);
        if (S_ISREG(st.st_mode))
            line += " " + readText(e.path().string());
        out[e.path().lexically_relative(root).string()] = line;
    }
    return out;
}

// mtime (ns) of every file of a materialised tree.
std::map<std::string, long long> mtimes(const std::string &dir)
{
    std::map<std::string, long long> out;
    for (const auto &e : fs::recursive_directory_iterator(dir)) {
        struct stat st;
        ::lstat(e.path().c_str(), &st);
        out[e.path().string()] = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    }
    return out;
}

std::string patchFile(const QTemporaryDir &dir)
{
    const std::string path = dir.path().toStdString() + "/agent.patch";
    std::ofstream(path) << "diff --git a/pkg/calc.py b/pkg/calc.py\n"
                           "--- a/pkg/calc.py\n"
                           "+++ b/pkg/calc.py\n"
                           "@@ -1 +1 @@\n"
                           "-X = 1\n"
                           "+X = 2\n";
    return path;
}

} // namespace

class TestTreeCache : public QObject
{
    Q_OBJECT

private:
    // A repository with a module, a test, an executable script and a symlink.
    void fill(RepoBuilder &repo)
    {
        repo.write("pkg/calc.py", "X = 1\n");
        repo.write("tests/test_calc.py", "from pkg.calc import X\n\ndef test_x():\n    assert X\n");
        repo.write("run.sh", "#!/bin/sh\necho hi\n");
        fs::permissions(repo.root() + "/run.sh", fs::perms::owner_exec, fs::perm_options::add);
        fs::create_symlink("pkg/calc.py", repo.root() + "/link.py");
        repo.write(".gitignore", "*.log\n");
    }

private Q_SLOTS:
    void materialisesACommitWithModesAndLinks()
    {
        RepoBuilder builder;
        fill(builder);
        const std::string commit = builder.commit("base");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const MaterializedTree tree = cache.acquire(repo, repo.resolve("HEAD"));

        QCOMPARE(tree.key(), commit);
        QCOMPARE(tree.path(), cache.treesDir() + "/" + commit);
        QVERIFY(tree.rebuilt());
        QCOMPARE(readText(tree.path() + "/pkg/calc.py"), std::string("X = 1\n"));
        QVERIFY((fs::status(tree.path() + "/run.sh").permissions() & fs::perms::owner_exec) !=
                fs::perms::none);
        QVERIFY((fs::status(tree.path() + "/pkg/calc.py").permissions() & fs::perms::owner_exec) ==
                fs::perms::none);
        QVERIFY(fs::is_symlink(tree.path() + "/link.py"));
        QCOMPARE(fs::read_symlink(tree.path() + "/link.py").string(), std::string("pkg/calc.py"));
        QVERIFY(!fs::exists(tree.path() + "/.git"));
        QVERIFY(fs::exists(tree.path() + ".marker"));
    }

    void materialisesTheWorktreeWithUntrackedFiles()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        builder.write("pkg/calc.py", "X = 3\n");
        builder.write("tests/test_new.py", "def test_new():\n    pass\n"); // untracked
        builder.write("debug.log", "ignored\n");
        builder.remove("run.sh");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const MaterializedTree tree = cache.acquire(repo, repo.resolve("WORKTREE"));

        QVERIFY(tree.key().starts_with("wt-"));
        QCOMPARE(readText(tree.path() + "/pkg/calc.py"), std::string("X = 3\n"));
        QVERIFY(fs::exists(tree.path() + "/tests/test_new.py"));
        QVERIFY(!fs::exists(tree.path() + "/debug.log"));
        QVERIFY(!fs::exists(tree.path() + "/run.sh"));

        // Another state of the work tree is another entry; the same state the same one.
        QCOMPARE(TreeCache::keyFor(repo, repo.resolve("WORKTREE")), tree.key());
        builder.write("pkg/calc.py", "X = 4\n");
        QVERIFY(TreeCache::keyFor(repo, repo.resolve("WORKTREE")) != tree.key());
    }

    void materialisesAPatchHead()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        QTemporaryDir patchDir, cacheDir;
        const std::string spec = "PATCH:" + patchFile(patchDir);
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const Revision base = repo.resolve("HEAD");
        const Revision head = repo.resolveHead(spec, base);
        const MaterializedTree tree = cache.acquire(repo, head);
        QCOMPARE(tree.key(), head.tree);
        QCOMPARE(readText(tree.path() + "/pkg/calc.py"), std::string("X = 2\n"));
        QCOMPARE(builder.read("pkg/calc.py"), std::string("X = 1\n"));

        // A fresh instance (another thread's) applies the file again and reuses the entry.
        const Repository other = Repository::open(builder.root());
        const MaterializedTree again = cache.acquire(other, head);
        QCOMPARE(again.path(), tree.path());
        QVERIFY(!again.rebuilt());
    }

    void reusesAnIntactTreeWithoutWriting()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const Revision rev = repo.resolve("HEAD");
        std::map<std::string, long long> before;
        std::string marker;
        {
            const MaterializedTree first = cache.acquire(repo, rev);
            before = mtimes(first.path());
            marker = readText(first.path() + ".marker");
        }
        const MaterializedTree second = cache.acquire(repo, rev);
        QVERIFY(!second.rebuilt());
        QCOMPARE(mtimes(second.path()), before);
        QCOMPARE(readText(second.path() + ".marker"), marker);
    }

    void rebuildsADamagedTree_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::newRow("file deleted, marker kept") << "delete";
        QTest::newRow("file edited") << "edit";
        // Issue 18: a test rewrote mod.py with its size kept and its mtime restored.
        QTest::newRow("same size, mtime restored") << "samesize";
        QTest::newRow("bytecode dropped into __pycache__") << "pyc";
        QTest::newRow("empty directory left by a run") << "emptydir";
        QTest::newRow("executable bit dropped") << "chmod";
        QTest::newRow("symlink retargeted") << "relink";
        QTest::newRow("file left behind by a run") << "extra";
        QTest::newRow("crash before the marker") << "nomarker";
        QTest::newRow("marker garbage") << "badmarker";
    }

    void rebuildsADamagedTree()
    {
        QFETCH(QString, damage);
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const Revision rev = repo.resolve("HEAD");
        std::string dir;
        {
            dir = cache.acquire(repo, rev).path();
        }
        if (damage == QLatin1String("delete"))
            fs::remove(dir + "/pkg/calc.py");
        else if (damage == QLatin1String("edit"))
            std::ofstream(dir + "/pkg/calc.py") << "X = 99  # edited by a test\n";
        else if (damage == QLatin1String("samesize")) {
            struct stat st;
            ::lstat((dir + "/pkg/calc.py").c_str(), &st);
            std::ofstream(dir + "/pkg/calc.py") << "X = 0\n"; // as long as "X = 1\n"
            const struct timespec times[2] = {st.st_atim, st.st_mtim};
            ::utimensat(AT_FDCWD, (dir + "/pkg/calc.py").c_str(), times, AT_SYMLINK_NOFOLLOW);
        } else if (damage == QLatin1String("pyc")) {
            fs::create_directories(dir + "/pkg/__pycache__");
            std::ofstream(dir + "/pkg/__pycache__/calc.cpython-311.pyc") << "poisoned";
        } else if (damage == QLatin1String("emptydir"))
            fs::create_directories(dir + "/.pytest_cache");
        else if (damage == QLatin1String("chmod"))
            fs::permissions(dir + "/run.sh", fs::perms::owner_exec, fs::perm_options::remove);
        else if (damage == QLatin1String("relink")) {
            fs::remove(dir + "/link.py");
            fs::create_symlink("tests/test_calc.py", dir + "/link.py");
        } else if (damage == QLatin1String("extra"))
            std::ofstream(dir + "/tests/conftest.py") << "raise SystemExit\n";
        else if (damage == QLatin1String("nomarker"))
            fs::remove(dir + ".marker");
        else
            std::ofstream(dir + ".marker") << "{not json";

        const MaterializedTree tree = cache.acquire(repo, rev);
        QVERIFY(tree.rebuilt());
        QCOMPARE(readText(dir + "/pkg/calc.py"), std::string("X = 1\n"));
        QVERIFY(!fs::exists(dir + "/tests/conftest.py"));
        QVERIFY(!fs::exists(dir + "/pkg/__pycache__"));
        QVERIFY(!fs::exists(dir + "/.pytest_cache"));
        QVERIFY((fs::status(dir + "/run.sh").permissions() & fs::perms::owner_exec) !=
                fs::perms::none);
        QCOMPARE(fs::read_symlink(dir + "/link.py").string(), std::string("pkg/calc.py"));
    }

    // A work tree whose files go through git's filters (eol=crlf here) has listing ids that
    // are not the ids of the bytes copied: the cache keeps the copied ones, and reuses it.
    void reusesAFilteredWorktree()
    {
        RepoBuilder builder;
        fill(builder);
        builder.write(".gitattributes", "*.txt text eol=crlf\n");
        builder.commit("base");
        builder.write("notes.txt", "one\r\ntwo\r\n");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        {
            const MaterializedTree first = cache.acquire(repo, repo.resolve("WORKTREE"));
            QVERIFY(first.rebuilt());
            QCOMPARE(readText(first.path() + "/notes.txt"), std::string("one\r\ntwo\r\n"));
        }
        const MaterializedTree second = cache.acquire(repo, repo.resolve("WORKTREE"));
        QVERIFY2(!second.rebuilt(), "a filtered work-tree file made the tree look damaged");
    }

    // A run's copy: the same files, modes and symlinks, never the bytecode; paths mapped
    // both ways; gone with the handle, also when a test made a directory read-only.
    void aRunsCopyIsItsOwnAndGoesAway()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const MaterializedTree tree = cache.acquire(repo, repo.resolve("HEAD"));
        std::string copyPath;
        {
            const TreeCopy copy = TreeCopy::make(tree.path());
            copyPath = copy.path();
            QVERIFY(copyPath.starts_with(tree.path() + ".run-"));
            QCOMPARE(readText(copyPath + "/pkg/calc.py"), std::string("X = 1\n"));
            QVERIFY((fs::status(copyPath + "/run.sh").permissions() & fs::perms::owner_exec) !=
                    fs::perms::none);
            QCOMPARE(fs::read_symlink(copyPath + "/link.py").string(), std::string("pkg/calc.py"));
            QCOMPARE(copy.toCopy(tree.path() + "/src"), copyPath + "/src");
            QCOMPARE(copy.toCopy("/elsewhere"), std::string("/elsewhere"));
            QCOMPARE(copy.toPristine("File \"" + copyPath + "/pkg/calc.py\", line 1"),
                     "File \"" + tree.path() + "/pkg/calc.py\", line 1");
            QCOMPARE(cache.keys(), std::vector<std::string>{tree.key()}); // not an entry

            std::ofstream(copyPath + "/pkg/calc.py") << "X = 0\n"; // the pristine is not it
            fs::create_directories(copyPath + "/pkg/locked");
            fs::permissions(copyPath + "/pkg/locked", fs::perms::owner_read);
            fs::permissions(copyPath + "/pkg", fs::perms::owner_read | fs::perms::owner_exec);
        }
        QVERIFY2(!fs::exists(copyPath), copyPath.c_str());
        QCOMPARE(readText(tree.path() + "/pkg/calc.py"), std::string("X = 1\n"));
        QVERIFY(!cache.acquire(repo, repo.resolve("HEAD")).rebuilt());

        // Bytecode in the pristine tree (not ours) is never copied.
        fs::create_directories(tree.path() + "/pkg/__pycache__");
        std::ofstream(tree.path() + "/pkg/__pycache__/calc.cpython-311.pyc") << "poisoned";
        const TreeCopy copy = TreeCopy::make(tree.path());
        QVERIFY(!fs::exists(copy.path() + "/pkg/__pycache__"));
        fs::remove_all(tree.path() + "/pkg/__pycache__");
    }

    // A copy left by a patchwitness killed mid-run goes when its tree is rebuilt.
    void aLeftCopyGoesWithARebuild()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        std::string dir;
        {
            dir = cache.acquire(repo, repo.resolve("HEAD")).path();
        }
        fs::create_directories(dir + ".run-k9lEft/pkg");
        fs::remove(dir + "/pkg/calc.py");
        QVERIFY(cache.acquire(repo, repo.resolve("HEAD")).rebuilt());
        QVERIFY(!fs::exists(dir + ".run-k9lEft"));
    }

    void refusesToRebuildATreeThisProcessStillHolds()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const Revision rev = repo.resolve("HEAD");
        const MaterializedTree held = cache.acquire(repo, rev);
        fs::remove(held.path() + "/pkg/calc.py");
        try {
            cache.acquire(repo, rev);
            QFAIL("a damaged tree in use was handed out again");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Harness);
            QVERIFY(std::string(e.what()).find(held.path()) != std::string::npos);
        }
    }

    void evictsTheLeastRecentlyUsed()
    {
        RepoBuilder builder;
        std::vector<std::string> commits;
        for (int i = 0; i < 4; ++i) {
            builder.write("pkg/calc.py", "X = " + std::to_string(i) + "\n");
            commits.push_back(builder.commit("c" + std::to_string(i)));
        }
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString(), 2);
        const Repository repo = Repository::open(builder.root());
        auto use = [&](int i) {
            cache.acquire(repo, repo.resolve(commits[size_t(i)]));
            QThread::msleep(15); // distinct marker mtimes, whatever the clock's granularity
        };
        use(0);
        use(1);
        use(0); // 0 is now more recent than 1
        use(2);
        std::vector<std::string> keys = cache.keys();
        QCOMPARE(keys, (std::vector<std::string>{commits[2], commits[0]}));
        QVERIFY(!fs::exists(cache.treesDir() + "/" + commits[1]));
        QVERIFY(!fs::exists(cache.treesDir() + "/" + commits[1] + ".marker"));

        // A held tree is not evicted, however old: the next oldest goes instead.
        {
            const MaterializedTree held = cache.acquire(repo, repo.resolve(commits[0]));
            QThread::msleep(15);
            use(2);
            use(3); // commits[0] is now the least recently used
            QVERIFY(fs::exists(held.path() + "/pkg/calc.py"));
            QCOMPARE(cache.keys(), (std::vector<std::string>{commits[3], commits[0]}));
        }
        use(1);
        QCOMPARE(cache.keys(), (std::vector<std::string>{commits[1], commits[3]}));
    }

    void twoThreadsShareOneKey()
    {
        RepoBuilder builder;
        fill(builder);
        for (int i = 0; i < 200; ++i) // enough files that the writers overlap
            builder.write("data/f" + std::to_string(i) + ".txt",
                          std::string(2000, char('a' + i % 26)));
        const std::string commit = builder.commit("base");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        std::atomic<int> rebuilt{0}, intact{0};
        std::vector<std::string> errors(2);
        auto work = [&](int slot) {
            try {
                const Repository repo = Repository::open(builder.root()); // one per thread
                const MaterializedTree tree = cache.acquire(repo, repo.resolve(commit));
                rebuilt += tree.rebuilt() ? 1 : 0;
                if (readText(tree.path() + "/data/f199.txt") ==
                    std::string(2000, char('a' + 199 % 26)))
                    ++intact;
            } catch (const std::exception &e) {
                errors[size_t(slot)] = e.what();
            }
        };
        std::thread a(work, 0), b(work, 1);
        a.join();
        b.join();
        QCOMPARE(errors, (std::vector<std::string>{"", ""}));
        QCOMPARE(rebuilt.load(), 1);
        QCOMPARE(intact.load(), 2);
    }

    void neverWritesIntoTheReviewersRepository()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        builder.write("pkg/calc.py", "X = 5\n");
        builder.write("tests/test_untracked.py", "def test_u():\n    pass\n");
        QTemporaryDir patchDir, cacheDir;
        const std::string spec = "PATCH:" + patchFile(patchDir);
        const auto before = snapshot(builder.root());
        {
            const TreeCache cache(cacheDir.path().toStdString());
            const Repository repo = Repository::open(builder.root());
            const Revision base = repo.resolve("HEAD");
            cache.acquire(repo, base);
            cache.acquire(repo, repo.resolve("WORKTREE"));
            cache.acquire(repo, repo.resolveHead(spec, base));
        }
        QCOMPARE(snapshot(builder.root()), before);
    }

    // Ctrl-C while a tree is written (RunContext::open hands the CLI's stop on): the
    // acquire ends at the next file, and the half-written directory goes with its marker
    // and lock file, so the cache holds nothing a later acquire would have to clean up.
    void aStopWhileWritingRemovesTheHalfWrittenTree()
    {
        RepoBuilder builder;
        for (int i = 0; i < 4000; ++i)
            builder.write("pkg/m" + std::to_string(i / 100) + "/f" + std::to_string(i) + ".py",
                          "X = " + std::to_string(i) + "\n");
        const std::string commit = builder.commit("many files");
        QTemporaryDir cacheDir;
        const TreeCache cache(cacheDir.path().toStdString());
        const Repository repo = Repository::open(builder.root());
        const Revision rev = repo.resolve("HEAD");
        const std::string dir = cache.treesDir() + "/" + commit;
        std::stop_source stop;
        std::atomic<bool> done{false};
        std::thread watcher([&] { // the stop comes once writing has begun
            std::error_code ec;
            while (!done.load() && !fs::exists(dir, ec))
                std::this_thread::yield();
            stop.request_stop();
        });
        try {
            cache.acquire(repo, rev, stop.get_token());
            done.store(true);
            watcher.join();
            QFAIL("the acquire ran to the end after the stop");
        } catch (const Error &e) {
            done.store(true);
            watcher.join();
            QCOMPARE(e.kind(), Error::Kind::Interrupted);
            QVERIFY2(std::string(e.what()).find("half-written tree was removed") !=
                         std::string::npos,
                     e.what());
        }
        QVERIFY(!fs::exists(dir));
        QVERIFY(!fs::exists(dir + ".marker"));
        QVERIFY(!fs::exists(dir + ".lock"));
        QVERIFY(cache.keys().empty());
        // Nothing in the way of the next acquire.
        const MaterializedTree tree = cache.acquire(repo, rev);
        QVERIFY(tree.rebuilt());
        QCOMPARE(readText(tree.path() + "/pkg/m39/f3999.py"), std::string("X = 3999\n"));
    }

    // A tree another process writes (its lock held) is waited for; a stop ends the wait
    // with Error::interrupted, not the lock timeout's harness error.
    void aStopEndsTheWaitForALockedTree()
    {
        RepoBuilder builder;
        fill(builder);
        const std::string commit = builder.commit("base");
        QTemporaryDir cacheDir;
        TreeCache cache(cacheDir.path().toStdString());
        cache.setLockTimeoutMs(120 * 1000);
        fs::create_directories(cache.treesDir());
        const std::string lockPath = cache.treesDir() + "/" + commit + ".lock";
        const int held = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        QVERIFY(held >= 0);
        QCOMPARE(::flock(held, LOCK_EX), 0);
        std::stop_source stop;
        std::optional<Error::Kind> kind;
        std::thread acquirer([&] {
            const Repository repo = Repository::open(builder.root());
            try {
                cache.acquire(repo, repo.resolve("HEAD"), stop.get_token());
            } catch (const Error &e) {
                kind = e.kind();
            }
        });
        stop.request_stop();
        acquirer.join();
        ::close(held);
        QVERIFY(kind.has_value());
        QCOMPARE(*kind, Error::Kind::Interrupted);
        QVERIFY(!fs::exists(cache.treesDir() + "/" + commit));
    }

    void anUnwritableCacheIsAnInputError()
    {
        RepoBuilder builder;
        fill(builder);
        builder.commit("base");
        QTemporaryDir dir;
        const std::string file = dir.path().toStdString() + "/plain-file";
        std::ofstream(file) << "x";
        const TreeCache cache(file + "/cache");
        const Repository repo = Repository::open(builder.root());
        try {
            cache.acquire(repo, repo.resolve("HEAD"));
            QFAIL("a cache below a regular file was accepted");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            QVERIFY(std::string(e.what()).find(file) != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestTreeCache)
#include "tst_treecache.moc"
