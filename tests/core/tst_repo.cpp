// The repository layer (core/repo): opening, revisions and their defaults, the files of a
// revision (git objects or the working tree) and the patch diff, on real repositories
// built with libgit2 in temporary directories.

#include "RepoBuilder.h"
#include "execution/ChildProcess.h"
#include "repo/GitError.h"
#include "repo/PatchDiff.h"
#include "repo/RepoWriter.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/ThreadRule.h"

#include <QCryptographicHash>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using pw::core::ChangeStatus;
using pw::core::DiffLine;
using pw::core::DiffOptions;
using pw::core::Error;
using pw::core::FileDiff;
using pw::core::PatchDiff;
using pw::core::RefInfo;
using pw::core::Repository;
using pw::core::Revision;
using pw::test::RepoBuilder;

namespace fs = std::filesystem;

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

// The id git gives a blob with these bytes: sha1("blob <size>\0" + bytes), which is what
// git_odb_hash / `git hash-object` compute.
std::string blobId(const std::string &bytes)
{
    QCryptographicHash sha1(QCryptographicHash::Sha1);
    const std::string header = "blob " + std::to_string(bytes.size());
    sha1.addData(QByteArray(header.data(), int(header.size() + 1))); // with the NUL
    sha1.addData(QByteArray::fromStdString(bytes));
    return sha1.result().toHex().toStdString();
}

std::optional<Error> errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return e;
    }
    return std::nullopt;
}

void makeExecutable(const RepoBuilder &repo, const std::string &path)
{
    namespace fs = std::filesystem;
    fs::permissions(fs::path(repo.root()) / path,
                    fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
}

const FileDiff *findFile(const PatchDiff &diff, const std::string &path)
{
    for (const FileDiff &f : diff.files) {
        if (f.path() == path)
            return &f;
    }
    return nullptr;
}

QStringList fileSummary(const PatchDiff &diff)
{
    QStringList out;
    for (const FileDiff &f : diff.files)
        out << QLatin1String(pw::core::changeStatusLetter(f.status)) + QLatin1Char(' ') +
                   qs(f.path());
    return out;
}

// "<origin><old>,<new>:<text>" per line, "\" appended when the line has no newline.
QString renderLines(const pw::core::DiffHunk &hunk)
{
    QStringList out;
    for (const DiffLine &l : hunk.lines) {
        const QChar origin = l.origin == DiffLine::Origin::Added     ? QLatin1Char('+')
                             : l.origin == DiffLine::Origin::Deleted ? QLatin1Char('-')
                                                                     : QLatin1Char(' ');
        out << origin + QString::number(l.oldLine) + QLatin1Char(',') + QString::number(l.newLine) +
                   QLatin1Char(':') + qs(l.text) +
                   (l.noNewlineAtEnd ? QStringLiteral("\\") : QString());
    }
    return out.join(QLatin1Char('|'));
}

QString renderRanges(const std::vector<std::pair<int, int>> &ranges)
{
    QStringList out;
    for (const auto &[offset, length] : ranges)
        out << QString::number(offset) + QLatin1Char('+') + QString::number(length);
    return out.join(QLatin1Char(','));
}

// main: c1 ─ c2 ─ c3 (HEAD);  feature: c2 ─ f1;  tags v1 (lightweight, c1), v2 (annotated, c2)
struct History
{
    RepoBuilder repo;
    std::map<std::string, std::string> ids;

    History()
    {
        repo.write("README.md", "# demo\n");
        ids["c1"] = repo.commit("first commit\n\nwith a body");
        repo.write("src/a.py", "A = 1\n");
        ids["c2"] = repo.commit("second commit");
        repo.branch("feature");
        repo.write("src/a.py", "A = 2\n");
        ids["c3"] = repo.commit("third commit");
        repo.checkout("feature");
        repo.write("src/b.py", "B = 1\n");
        ids["f1"] = repo.commit("feature commit");
        repo.checkout("main");
        repo.tag("v1", ids["c1"]);
        repo.annotatedTag("v2", "release two", ids["c2"]);
    }
};

const std::string kModBase = "def f():\n    a = 1\n    b = 2\n    return a + b\n";
const std::string kModHead = "def f():\n    a = 1\n    b = 3\n    return a + b\n";
const std::string kRenamedBase = "def one():\n    return 1\n\n\ndef two():\n    return 2\n\n\n"
                                 "def three():\n    return 3\n\n\ndef four():\n    return 4\n";
const std::string kRenamedHead = "def one():\n    return 1\n\n\ndef two():\n    return 2\n\n\n"
                                 "def three():\n    return 3\n\n\ndef four():\n    return 44\n";
const std::string kPngBase = std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10", 20);
const std::string kPngHead = std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x20\x01\x02", 22);
const std::string kScript = "#!/bin/sh\necho hi\n";

// Base commit, then every kind of change as uncommitted work (the agent's usual output).
// Returns the base commit.
std::string buildPatchScenario(RepoBuilder &repo)
{
    repo.write("keep.py", "KEEP = True\n");
    repo.write("mod.py", kModBase);
    repo.write("del.py", "GONE = 1\n");
    repo.write("old_name.py", kRenamedBase);
    repo.write("logo.png", kPngBase);
    repo.write("run.sh", kScript);
    repo.write(".gitattributes", "*.dat binary\n");
    repo.write("blob.dat", "text, but declared binary\n");
    const std::string base = repo.commit("base");
    repo.write("mod.py", kModHead);
    repo.remove("del.py");
    repo.write("add.py", "NEW = 1\n");
    repo.rename("old_name.py", "pkg/new_name.py");
    repo.write("pkg/new_name.py", kRenamedHead);
    repo.write("logo.png", kPngHead);
    makeExecutable(repo, "run.sh");
    repo.write("blob.dat", "still text, still declared binary\n");
    return base;
}

} // namespace

class TestRepo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void markedThreadsNestInAnyOrder();
    void gitOrAProcessOnAMarkedThreadAborts_data();
    void gitOrAProcessOnAMarkedThreadAborts();
    void openFromSubdirectory();
    void openRejectsPathsOutsideRepositories_data();
    void openRejectsPathsOutsideRepositories();
    void emptyRepository();
    void aGitDirWithoutItsWorkTreeIsBare_data();
    void aGitDirWithoutItsWorkTreeIsBare();
    void aCloneWithNothingCheckedOutDefaultsToHead();
    void aSnapshotIsTheWorkTreeAsItWasRead();
    void userNameFromRepositoryConfig_data();
    void userNameFromRepositoryConfig();
    void resolve_data();
    void resolve();
    void resolveErrors_data();
    void resolveErrors();
    void defaultHeadIsWorktreeOnlyWhenDirty_data();
    void defaultHeadIsWorktreeOnlyWhenDirty();
    void defaultBase_data();
    void defaultBase();
    void defaultBaseOfRootCommitNeedsExplicitBase();
    void refsAndRecentCommits();
    void listFilesAtCommit();
    void listFilesAtWorktree();
    void readFileIsByteExact_data();
    void readFileIsByteExact();
    void readErrors();
    void diffFileList_data();
    void diffFileList();
    void diffHunksAndIntraline();
    void diffLineNumbersAndMissingNewline_data();
    void diffLineNumbersAndMissingNewline();
    void diffContextLines_data();
    void diffContextLines();
    void diffIgnoreWhitespace_data();
    void diffIgnoreWhitespace();
    void diffRejectsWorktreeBase();
    void intralineRanges_data();
    void intralineRanges();
    void changeStatusNames();
};

// ---------------------------------------------------------------------------------------
// Opening

void TestRepo::openFromSubdirectory()
{
    RepoBuilder repo;
    repo.write("pkg/sub/mod.py", "X = 1\n");
    repo.commit("init");
    const Repository r = Repository::open(repo.root() + "/pkg/sub");
    QCOMPARE(qs(r.workdir()), qs(repo.root()));
    QCOMPARE(qs(r.gitDir()), qs(repo.root() + "/.git"));
    QVERIFY(!r.isUnborn());
    QVERIFY(!r.isDirty());
    // A file inside the work tree names the repository that contains it.
    QCOMPARE(qs(Repository::open(repo.root() + "/pkg/sub/mod.py").workdir()), qs(repo.root()));
}

void TestRepo::openRejectsPathsOutsideRepositories_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QString>("message");
    QTest::newRow("plain directory") << QString() << QStringLiteral("not a git repository");
    QTest::newRow("nonexistent path")
        << QStringLiteral("/does/not/exist") << QStringLiteral("no such file or directory");
}

void TestRepo::openRejectsPathsOutsideRepositories()
{
    QFETCH(QString, suffix);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = QString(dir.path() + suffix).toStdString();
    const auto error = errorOf([&] { Repository::open(path); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    const QString what = QString::fromUtf8(error->what());
    QVERIFY2(what.contains(qs(path)), qPrintable(what));
    QVERIFY2(what.contains(message), qPrintable(what));
}

// A mirror (`git clone --mirror`), a copy of one without its `bare = true` line, a `.git`
// copied out of its clone: no work tree of its own. libgit2 alone takes the directory
// above such a git dir for its work tree (every file of the project deleted, every file
// around it added); git refuses ("must be run in a work tree") and so do we: it is bare, the
// head defaults to HEAD and WORKTREE says why it cannot be read. A clone's own `.git`, a
// linked work tree and `core.worktree` keep their work trees.
void TestRepo::aGitDirWithoutItsWorkTreeIsBare_data()
{
    QTest::addColumn<QString>("bareLine"); // core.bare in the copy's config; "-": none
    QTest::newRow("core.bare = true (a mirror)") << QStringLiteral("bare = true");
    QTest::newRow("core.bare unset") << QStringLiteral("-");
    QTest::newRow("core.bare = false, copied out of its clone") << QStringLiteral("bare = false");
}

void TestRepo::aGitDirWithoutItsWorkTreeIsBare()
{
    QFETCH(QString, bareLine);
    RepoBuilder repo;
    repo.write("pkg/mod.py", "X = 1\n");
    repo.write("tests/test_mod.py", "def test_x():\n    assert True\n");
    const std::string base = repo.commit("base");
    repo.write("pkg/mod.py", "X = 2\n");
    const std::string head = repo.commit("head");

    QTemporaryDir around; // the directory the copy sits in, with files of its own
    QVERIFY(around.isValid());
    const std::filesystem::path gitDir =
        around.filePath(QStringLiteral("mirror.git")).toStdString();
    std::filesystem::copy(repo.root() + "/.git", gitDir, std::filesystem::copy_options::recursive);
    pw::core::writeFileAtomically(around.filePath(QStringLiteral("notes.txt")).toStdString(),
                                  "not a file of the project\n");
    std::string config = *pw::core::readWholeFile((gitDir / "config").string());
    const size_t at = config.find("bare = false");
    QVERIFY(at != std::string::npos);
    config.replace(at, std::string("bare = false").size(),
                   bareLine == QLatin1String("-") ? std::string() : bareLine.toStdString());
    pw::core::writeFileAtomically((gitDir / "config").string(), config);

    const Repository r = Repository::open(gitDir.string());
    QVERIFY(r.isBare());
    QCOMPARE(qs(r.workdir()), QString());
    QVERIFY(!r.isDirty());
    QVERIFY(!r.isNothingCheckedOut());
    const Revision defaultHead = r.defaultHead();
    QCOMPARE(qs(defaultHead.spec), QStringLiteral("HEAD"));
    QCOMPARE(qs(defaultHead.commit), qs(head));
    QCOMPARE(qs(r.defaultBase(defaultHead).commit), qs(base));
    const PatchDiff diff = r.diff(r.defaultBase(defaultHead), defaultHead, DiffOptions{});
    QCOMPARE(diff.files.size(), size_t(1));
    QCOMPARE(qs(diff.files.front().path()), QStringLiteral("pkg/mod.py"));
    const auto error = errorOf([&] { r.resolve("WORKTREE"); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    QVERIFY2(QString::fromUtf8(error->what())
                 .contains(QLatin1String("is a bare repository: it has no work tree to read")),
             error->what());

    // Where the work tree is really there, it stays.
    const Repository clone = Repository::open(repo.root() + "/.git");
    QVERIFY(!clone.isBare());
    QCOMPARE(qs(clone.workdir()), qs(repo.root()));
    std::string named = *pw::core::readWholeFile(repo.root() + "/.git/config");
    named.insert(named.find("[core]") + 6, "\n\tworktree = " + repo.root());
    std::filesystem::copy(repo.root() + "/.git",
                          around.filePath(QStringLiteral("named.git")).toStdString(),
                          std::filesystem::copy_options::recursive);
    pw::core::writeFileAtomically(around.filePath(QStringLiteral("named.git/config")).toStdString(),
                                  named);
    const Repository withConfig =
        Repository::open(around.filePath(QStringLiteral("named.git")).toStdString());
    QVERIFY(!withConfig.isBare());
    QCOMPARE(qs(withConfig.workdir()), qs(repo.root()));

    // A linked work tree (`git worktree add`): its `.git` file names its git directory.
    const QString wtGit = QString::fromStdString(repo.root() + "/.git/worktrees/wt");
    const QString wt = around.filePath(QStringLiteral("wt"));
    QVERIFY(QDir().mkpath(wtGit) && QDir().mkpath(wt));
    const auto put = [](const QString &path, const std::string &text) {
        QVERIFY(pw::core::writeFileAtomically(path.toStdString(), text));
    };
    put(wt + QStringLiteral("/.git"), "gitdir: " + wtGit.toStdString() + "\n");
    put(wtGit + QStringLiteral("/commondir"), "../..\n");
    put(wtGit + QStringLiteral("/HEAD"), head + "\n");
    put(wtGit + QStringLiteral("/gitdir"), wt.toStdString() + "/.git\n");
    const Repository linked = Repository::open(wt.toStdString());
    QVERIFY(!linked.isBare());
    QCOMPARE(qs(linked.workdir()), QDir(wt).canonicalPath());
    // A `.git` file beside the copy that names another repository is not the copy's.
    if (bareLine == QLatin1String("-")) {
        put(around.filePath(QStringLiteral(".git")), "gitdir: " + repo.root() + "/.git\n");
        QVERIFY(Repository::open(gitDir.string()).isBare());
    }

    // An unborn bare repository: nothing to review, said so.
    QTemporaryDir empty;
    std::filesystem::create_directories(std::filesystem::path(empty.path().toStdString()) /
                                        "objects");
    std::filesystem::create_directories(std::filesystem::path(empty.path().toStdString()) /
                                        "refs/heads");
    pw::core::writeFileAtomically(empty.filePath(QStringLiteral("HEAD")).toStdString(),
                                  "ref: refs/heads/main\n");
    pw::core::writeFileAtomically(empty.filePath(QStringLiteral("config")).toStdString(),
                                  "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
    const Repository unborn = Repository::open(empty.path().toStdString());
    QVERIFY(unborn.isBare());
    const auto none = errorOf([&] { unborn.defaultHead(); });
    QVERIFY(none);
    QVERIFY2(QString::fromUtf8(none->what())
                 .contains(QLatin1String("a bare repository without commits yet")),
             none->what());
}

// `git clone --no-checkout`: HEAD has files, no index was written and the work tree holds
// only `.git`. Dirty (every file "deleted"), but not a reviewer's uncommitted work: the head
// defaults to HEAD; WORKTREE named still reads the empty work tree.
void TestRepo::aCloneWithNothingCheckedOutDefaultsToHead()
{
    RepoBuilder repo;
    repo.write("pkg/mod.py", "X = 1\n");
    repo.write("README.md", "hello\n");
    const std::string base = repo.commit("base");
    repo.write("pkg/mod.py", "X = 2\n");
    const std::string head = repo.commit("head");
    const Repository r = Repository::open(repo.root());
    QVERIFY(!r.isNothingCheckedOut());

    repo.remove("pkg/mod.py");
    repo.remove("README.md");
    std::filesystem::remove_all(repo.root() + "/pkg");
    std::filesystem::remove(repo.root() + "/.git/index");
    QVERIFY(r.isDirty());
    QVERIFY(r.isNothingCheckedOut());
    QVERIFY(!r.isBare());
    QCOMPARE(qs(r.defaultHead().spec), QStringLiteral("HEAD"));
    QCOMPARE(qs(r.defaultHead().commit), qs(head));
    QVERIFY(r.listFiles(r.resolve("WORKTREE")).empty());

    // One file put back by hand is work: WORKTREE again.
    repo.write("notes.txt", "mine\n");
    QVERIFY(!r.isNothingCheckedOut());
    QVERIFY(r.defaultHead().isWorktree());
}

void TestRepo::emptyRepository()
{
    RepoBuilder repo;
    const Repository r = Repository::open(repo.root());
    QVERIFY(r.isUnborn());
    QVERIFY(!r.isDirty());

    for (const char *spec : {"HEAD", "main"}) {
        const auto error = errorOf([&] { r.resolve(spec); });
        QVERIFY(error);
        QCOMPARE(error->kind(), Error::Kind::Input);
        QVERIFY2(QString::fromUtf8(error->what()).contains(QLatin1String("no commits")),
                 error->what());
    }

    const Revision worktree = r.resolve("WORKTREE");
    QVERIFY(worktree.isWorktree());
    QVERIFY(worktree.commit.empty());
    QVERIFY(worktree.tree.empty());
    QVERIFY(r.listFiles(worktree).empty());
    QVERIFY(r.recentCommits(10).empty());

    repo.write("new/untracked.py", "print('hi')\n");
    QVERIFY(r.isDirty());
    QVERIFY(r.defaultHead().isWorktree());
    const auto files = r.listFiles(worktree);
    QCOMPARE(files.size(), size_t(1));
    QCOMPARE(qs(files[0].path), QStringLiteral("new/untracked.py"));
    QCOMPARE(qs(files[0].blob), qs(blobId("print('hi')\n")));
    QCOMPARE(files[0].mode, uint32_t(0100644));

    const auto error = errorOf([&] { r.defaultBase(worktree); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
}

// Repository::snapshot: the work tree read once. Its listing is the live one of that moment
// (tracked edits, untracked files, deletions, the executable bit, a symlink, a file git's
// filters change); afterwards the disk can change in every way and the snapshot's listing,
// files, diff and materialised tree stay what was read. Another instance reads it again
// and refuses a work tree that changed.
void TestRepo::aSnapshotIsTheWorkTreeAsItWasRead()
{
    RepoBuilder repo;
    repo.write(".gitattributes", "*.txt text eol=crlf\n");
    repo.write("a.py", "A = 1\n");
    repo.write("gone.py", "G = 1\n");
    repo.write("run.sh", "echo\n");
    repo.write("kept.txt", "a\r\nb\r\n"); // stored as "a\nb\n", unchanged on disk
    const std::string c1 = repo.commit("init");
    repo.write("a.py", "A = 2\n");
    repo.remove("gone.py");
    repo.write("pkg/new.py", "N = 1\n");
    repo.write("notes.txt", "one\r\ntwo\r\n");
    makeExecutable(repo, "run.sh");
    fs::create_symlink("a.py", repo.root() + "/link.py");

    const Repository r = Repository::open(repo.root());
    const Revision live = r.resolve("WORKTREE");
    const std::vector<pw::core::FileEntry> before = r.listFiles(live);
    const Revision snap = r.snapshot(live);
    QVERIFY(snap.isWorktree());
    QVERIFY(!snap.snapshot.empty());
    QVERIFY(snap.tree.empty()); // not a tree of the object database
    QCOMPARE(qs(snap.commit), qs(c1));
    const auto listed = [](const std::vector<pw::core::FileEntry> &files) {
        std::string out;
        for (const auto &f : files)
            out += f.path + " " + f.blob + " " + std::to_string(f.mode) + "\n";
        return qs(out);
    };
    QCOMPARE(listed(r.listFiles(snap)), listed(before));
    QVERIFY(listed(before).contains(QStringLiteral("run.sh")));
    QVERIFY(!listed(before).contains(QStringLiteral("gone.py")));
    QCOMPARE(qs(r.readFile(snap, "notes.txt")), QStringLiteral("one\r\ntwo\r\n")); // as on disk
    QCOMPARE(qs(r.readBlob(r.entry(snap, "kept.txt")->blob)), QStringLiteral("a\nb\n"));
    QCOMPARE(qs(r.readFile(snap, "kept.txt")), QStringLiteral("a\r\nb\r\n"));
    const PatchDiff first = r.diff(r.resolve(c1), snap, DiffOptions{});

    // Everything changes on disk.
    repo.write("a.py", "A = 3\n");
    repo.write("pkg/new.py", "N = 2\n");
    repo.remove("notes.txt");
    repo.write("later.py", "L = 1\n");
    fs::remove(repo.root() + "/link.py");

    QCOMPARE(listed(r.listFiles(snap)), listed(before));
    QCOMPARE(qs(r.readFile(snap, "a.py")), QStringLiteral("A = 2\n"));
    QCOMPARE(qs(r.readFile(snap, "pkg/new.py")), QStringLiteral("N = 1\n"));
    QCOMPARE(qs(r.readFile(snap, "notes.txt")), QStringLiteral("one\r\ntwo\r\n"));
    QCOMPARE(qs(r.readFile(snap, "link.py")), QStringLiteral("a.py"));
    QVERIFY(!r.entry(snap, "later.py"));
    const PatchDiff again = r.diff(r.resolve(c1), snap, DiffOptions{});
    QCOMPARE(again.files.size(), first.files.size());
    for (size_t i = 0; i < again.files.size(); ++i) {
        QCOMPARE(qs(again.files[i].path()), qs(first.files[i].path()));
        QCOMPARE(qs(again.files[i].newBlob), qs(first.files[i].newBlob));
    }
    // The live revision sees the disk as it is now.
    QCOMPARE(qs(r.readFile(live, "a.py")), QStringLiteral("A = 3\n"));
    QTemporaryDir out;
    r.materialize(snap, out.path().toStdString());
    QCOMPARE(qs(*pw::core::readWholeFile(out.path().toStdString() + "/a.py")),
             QStringLiteral("A = 2\n"));
    QVERIFY(fs::is_symlink(out.path().toStdString() + "/link.py"));
    QCOMPARE(qs(*pw::core::readWholeFile(out.path().toStdString() + "/kept.txt")),
             QStringLiteral("a\r\nb\r\n"));
    QVERIFY(!fs::exists(out.path().toStdString() + "/later.py"));

    // Another instance (another thread's): the work tree is read again, and it changed.
    const Repository other = Repository::open(repo.root());
    const auto refused = errorOf([&] { other.listFiles(snap); });
    QVERIFY(refused);
    QCOMPARE(refused->kind(), Error::Kind::Input);
    QVERIFY2(qs(refused->what()).contains(QStringLiteral("the working tree changed")),
             refused->what());
    // Unchanged since: the same snapshot.
    const Revision now = r.snapshot(r.resolve("WORKTREE"));
    const Repository third = Repository::open(repo.root());
    QCOMPARE(listed(third.listFiles(now)), listed(r.listFiles(now)));
    QCOMPARE(qs(third.readFile(now, "later.py")), QStringLiteral("L = 1\n"));
    // Line ends changed where git's filters hide it (the same blob): still another state.
    repo.write("kept.txt", "a\nb\n");
    const Repository fourth = Repository::open(repo.root());
    const auto crlf = errorOf([&] { fourth.listFiles(now); });
    QVERIFY2(crlf && crlf->kind() == Error::Kind::Input, crlf ? crlf->what() : "accepted");
}

// ---------------------------------------------------------------------------------------
// Revisions

void TestRepo::userNameFromRepositoryConfig_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("plain") << QStringLiteral("Pat Reviewer");
    QTest::newRow("non-ASCII") << QStringLiteral("Zoë Ørsted-Łukasz");
}

void TestRepo::userNameFromRepositoryConfig()
{
    // The repository's own config (written with libgit2, as `git config user.name` would)
    // overrides whatever the global config says.
    QFETCH(QString, name);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    pw::core::RepoWriter writer = pw::core::RepoWriter::init(dir.path().toStdString());
    writer.setIdentity(name.toStdString(), "pat@example.com");
    QCOMPARE(qs(Repository::open(dir.path().toStdString()).userName()), name);
}

void TestRepo::resolve_data()
{
    QTest::addColumn<QString>("spec"); // "<c1>" / "<c1:7>" stand for the full / short id
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("subject");
    QTest::newRow("branch") << "main"
                            << "c3"
                            << "third commit";
    QTest::newRow("other branch") << "feature"
                                  << "f1"
                                  << "feature commit";
    QTest::newRow("lightweight tag") << "v1"
                                     << "c1"
                                     << "first commit";
    QTest::newRow("annotated tag peels") << "v2"
                                         << "c2"
                                         << "second commit";
    QTest::newRow("HEAD") << "HEAD"
                          << "c3"
                          << "third commit";
    QTest::newRow("HEAD~1") << "HEAD~1"
                            << "c2"
                            << "second commit";
    QTest::newRow("full sha") << "<c1>"
                              << "c1"
                              << "first commit";
    QTest::newRow("short sha") << "<c1:7>"
                               << "c1"
                               << "first commit";
    QTest::newRow("merge-base") << "merge-base(main,feature)"
                                << "c2"
                                << "second commit";
    QTest::newRow("merge-base with spaces") << " merge-base( feature , main ) "
                                            << "c2"
                                            << "second commit";
}

void TestRepo::resolve()
{
    QFETCH(QString, spec);
    QFETCH(QString, expected);
    QFETCH(QString, subject);
    History h;
    for (const auto &[key, id] : h.ids) {
        spec.replace(QStringLiteral("<%1>").arg(qs(key)), qs(id));
        spec.replace(QStringLiteral("<%1:7>").arg(qs(key)), qs(id.substr(0, 7)));
    }
    const Repository r = Repository::open(h.repo.root());
    const Revision rev = r.resolve(spec.toStdString());
    QCOMPARE(qs(rev.spec), spec);
    QCOMPARE(rev.kind, Revision::Kind::Commit);
    QCOMPARE(qs(rev.commit), qs(h.ids.at(expected.toStdString())));
    QCOMPARE(rev.tree.size(), size_t(40));
    QCOMPARE(qs(rev.subject), subject);
}

void TestRepo::resolveErrors_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown") << "no-such-branch"
                             << "unknown revision 'no-such-branch'";
    QTest::newRow("empty") << ""
                           << "empty revision";
    QTest::newRow("not a commit") << "HEAD:README.md"
                                  << "does not name a commit";
    QTest::newRow("malformed merge-base") << "merge-base(main)"
                                          << "expected merge-base(A,B)";
    QTest::newRow("merge-base of unknown") << "merge-base(main,nope)"
                                           << "unknown revision 'nope'";
    QTest::newRow("worktree is case-sensitive") << "worktree"
                                                << "unknown revision 'worktree'";
    QTest::newRow("no merge base") << "merge-base(main, island)"
                                   << "no merge base between 'main' and 'island'";
}

void TestRepo::resolveErrors()
{
    QFETCH(QString, spec);
    QFETCH(QString, message);
    History h;
    h.repo.orphan("island"); // an unrelated history: no merge base with main
    h.repo.write("island.py", "I = 1\n");
    h.repo.commit("island root");
    h.repo.checkout("main");
    const Repository r = Repository::open(h.repo.root());
    const auto error = errorOf([&] { r.resolve(spec.toStdString()); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    QVERIFY2(QString::fromUtf8(error->what()).contains(message), error->what());
}

void TestRepo::defaultHeadIsWorktreeOnlyWhenDirty_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("dirty");
    QTest::newRow("clean") << "" << false;
    QTest::newRow("modified file") << "modify" << true;
    QTest::newRow("untracked file") << "untracked" << true;
    QTest::newRow("ignored file only") << "ignored" << false;
}

void TestRepo::defaultHeadIsWorktreeOnlyWhenDirty()
{
    QFETCH(QString, change);
    QFETCH(bool, dirty);
    RepoBuilder repo;
    repo.write(".gitignore", "build/\n");
    repo.write("a.py", "A = 1\n");
    const std::string c1 = repo.commit("init");
    if (change == QLatin1String("modify"))
        repo.write("a.py", "A = 2\n");
    else if (change == QLatin1String("untracked"))
        repo.write("pkg/new.py", "N = 1\n");
    else if (change == QLatin1String("ignored"))
        repo.write("build/out.txt", "artefact\n");

    const Repository r = Repository::open(repo.root());
    QCOMPARE(r.isDirty(), dirty);
    const Revision head = r.defaultHead();
    QCOMPARE(head.isWorktree(), dirty);
    QCOMPARE(qs(head.spec), dirty ? QStringLiteral("WORKTREE") : QStringLiteral("HEAD"));
    QCOMPARE(qs(head.commit), qs(c1)); // WORKTREE sits on HEAD's commit
    QCOMPARE(head.tree.empty(), dirty);
}

void TestRepo::defaultBase_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<bool>("dirty");
    QTest::addColumn<QString>("expected"); // key of the expected base commit
    QTest::addColumn<QString>("specPrefix");
    QTest::newRow("feature branch: fork point with main") << "feature" << false << "fork"
                                                          << "merge-base(main,";
    QTest::newRow("feature branch, dirty") << "feature" << true << "fork"
                                           << "merge-base(main,";
    QTest::newRow("linear main: first parent") << "linear" << false << "parent"
                                               << "HEAD~1";
    QTest::newRow("linear main, dirty: HEAD itself") << "linear" << true << "tip"
                                                     << "HEAD";
    QTest::newRow("single commit, dirty: HEAD itself") << "single" << true << "tip"
                                                       << "HEAD";
}

void TestRepo::defaultBase()
{
    QFETCH(QString, scenario);
    QFETCH(bool, dirty);
    QFETCH(QString, expected);
    QFETCH(QString, specPrefix);

    RepoBuilder repo;
    std::map<QString, std::string> ids;
    repo.write("a.py", "A = 1\n");
    ids[QStringLiteral("root")] = repo.commit("root");
    if (scenario == QLatin1String("feature")) {
        repo.write("a.py", "A = 2\n");
        ids[QStringLiteral("fork")] = repo.commit("fork point");
        repo.branch("feature");
        repo.write("a.py", "A = 3\n");
        repo.commit("main moves on");
        repo.checkout("feature");
        repo.write("b.py", "B = 1\n");
        ids[QStringLiteral("tip")] = repo.commit("feature work");
    } else if (scenario == QLatin1String("linear")) {
        repo.write("a.py", "A = 2\n");
        ids[QStringLiteral("tip")] = repo.commit("second");
        ids[QStringLiteral("parent")] = ids[QStringLiteral("root")];
    } else {
        ids[QStringLiteral("tip")] = ids[QStringLiteral("root")];
    }
    if (dirty)
        repo.write("scratch.py", "S = 1\n");

    const Repository r = Repository::open(repo.root());
    const Revision head = r.defaultHead();
    QCOMPARE(head.isWorktree(), dirty);
    const Revision base = r.defaultBase(head);
    QCOMPARE(base.kind, Revision::Kind::Commit);
    QCOMPARE(qs(base.commit), qs(ids.at(expected)));
    QVERIFY2(qs(base.spec).startsWith(specPrefix), base.spec.c_str());
    // The spec it reports resolves to the same commit again.
    QCOMPARE(qs(r.resolve(base.spec).commit), qs(base.commit));
}

void TestRepo::defaultBaseOfRootCommitNeedsExplicitBase()
{
    RepoBuilder repo;
    repo.write("a.py", "A = 1\n");
    repo.commit("only commit");
    const Repository r = Repository::open(repo.root());
    const Revision head = r.defaultHead();
    QVERIFY(!head.isWorktree());
    const auto error = errorOf([&] { r.defaultBase(head); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    QVERIFY2(QString::fromUtf8(error->what()).contains(QLatin1String("--base")), error->what());
}

void TestRepo::refsAndRecentCommits()
{
    History h;
    const Repository r = Repository::open(h.repo.root());
    QStringList refs;
    for (const RefInfo &ref : r.refs()) {
        const char *kind = ref.kind == RefInfo::Kind::Branch         ? "branch"
                           : ref.kind == RefInfo::Kind::RemoteBranch ? "remote"
                                                                     : "tag";
        refs << QLatin1String(kind) + QLatin1Char(' ') + qs(ref.name) + QLatin1Char(' ') +
                    qs(ref.commit.substr(0, 7));
    }
    auto s = [&](const char *key) { return qs(h.ids.at(key).substr(0, 7)); };
    QCOMPARE(refs, QStringList({QStringLiteral("branch feature ") + s("f1"),
                                QStringLiteral("branch main ") + s("c3"),
                                QStringLiteral("tag v1 ") + s("c1"),
                                QStringLiteral("tag v2 ") + s("c2")}));

    const auto commits = r.recentCommits(2);
    QCOMPARE(commits.size(), size_t(2));
    QCOMPARE(qs(commits[0].commit), qs(h.ids.at("c3")));
    QCOMPARE(qs(commits[0].subject), QStringLiteral("third commit"));
    QCOMPARE(qs(commits[0].author), QStringLiteral("Test"));
    QCOMPARE(qs(commits[1].commit), qs(h.ids.at("c2")));
    QVERIFY(commits[0].time > commits[1].time);
    QCOMPARE(r.recentCommits(100).size(), size_t(3)); // HEAD's history only
    QCOMPARE(qs(r.resolve("HEAD~2").subject), QStringLiteral("first commit"));
}

// ---------------------------------------------------------------------------------------
// Files

void TestRepo::listFilesAtCommit()
{
    RepoBuilder repo;
    repo.write("src/pkg/mod.py", "M = 1\n");
    repo.write("a.py", "A = 1\n");
    repo.write("tools/run.sh", kScript);
    makeExecutable(repo, "tools/run.sh");
    std::filesystem::create_symlink("a.py", repo.root() + "/link.py");
    repo.commit("init");
    repo.write("a.py", "A = 2\n"); // the working tree does not leak into a commit listing

    const Repository r = Repository::open(repo.root());
    const auto files = r.listFiles(r.resolve("HEAD"));
    QStringList rows;
    for (const auto &f : files)
        rows << qs(f.path) + QLatin1Char(' ') + QString::number(f.mode, 8) + QLatin1Char(' ') +
                    qs(f.blob);
    QCOMPARE(rows, QStringList({
                       QStringLiteral("a.py 100644 ") + qs(blobId("A = 1\n")),
                       QStringLiteral("link.py 120000 ") + qs(blobId("a.py")),
                       QStringLiteral("src/pkg/mod.py 100644 ") + qs(blobId("M = 1\n")),
                       QStringLiteral("tools/run.sh 100755 ") + qs(blobId(kScript)),
                   }));

    const Revision head = r.resolve("HEAD");
    const auto entry = r.entry(head, "src/pkg/mod.py");
    QVERIFY(entry);
    QCOMPARE(qs(entry->blob), qs(blobId("M = 1\n")));
    QVERIFY(!r.entry(head, "src/pkg")); // a directory is not a file
    QVERIFY(!r.entry(head, "missing.py"));
}

void TestRepo::listFilesAtWorktree()
{
    RepoBuilder repo;
    repo.write(".gitignore", "build/\n*.pyc\n");
    repo.write("keep.py", "KEEP = 1\n");
    repo.write("mod.py", "MOD = 1\n");
    repo.write("del.py", "DEL = 1\n");
    repo.commit("init");
    repo.write("mod.py", "MOD = 2\n");
    repo.remove("del.py");
    repo.write("new/deep/untracked.py", "U = 1\n");
    repo.write("build/out.txt", "ignored\n");
    repo.write("cache.pyc", "ignored\n");
    std::filesystem::create_symlink("keep.py", repo.root() + "/new/link.py");
    makeExecutable(repo, "keep.py");

    const Repository r = Repository::open(repo.root());
    const Revision worktree = r.resolve("WORKTREE");
    QStringList rows;
    for (const auto &f : r.listFiles(worktree))
        rows << qs(f.path) + QLatin1Char(' ') + QString::number(f.mode, 8) + QLatin1Char(' ') +
                    qs(f.blob);
    QCOMPARE(rows, QStringList({
                       QStringLiteral(".gitignore 100644 ") + qs(blobId("build/\n*.pyc\n")),
                       QStringLiteral("keep.py 100755 ") + qs(blobId("KEEP = 1\n")),
                       QStringLiteral("mod.py 100644 ") + qs(blobId("MOD = 2\n")),
                       QStringLiteral("new/deep/untracked.py 100644 ") + qs(blobId("U = 1\n")),
                       QStringLiteral("new/link.py 120000 ") + qs(blobId("keep.py")),
                   }));

    QCOMPARE(qs(r.entry(worktree, "mod.py")->blob), qs(blobId("MOD = 2\n")));
    QCOMPARE(qs(r.entry(worktree, "keep.py")->blob), qs(blobId("KEEP = 1\n")));
    QCOMPARE(qs(r.entry(worktree, "new/deep/untracked.py")->blob), qs(blobId("U = 1\n")));
    QVERIFY(!r.entry(worktree, "del.py"));
    QVERIFY(!r.entry(worktree, "build/out.txt"));
    QVERIFY(r.entry(r.resolve("HEAD"), "del.py"));
}

void TestRepo::readFileIsByteExact_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("latin-1") << QByteArray("caf\xe9 = '\xff\xfe'\n");
    QTest::newRow("NUL and invalid UTF-8") << QByteArray("\x00\x80\xc3\x28\n\r\n", 6);
    QTest::newRow("no final newline") << QByteArray("x = 1");
    QTest::newRow("empty") << QByteArray();
}

void TestRepo::readFileIsByteExact()
{
    QFETCH(QByteArray, bytes);
    const std::string content = bytes.toStdString();
    RepoBuilder repo;
    repo.write("data.txt", content);
    repo.commit("init");
    repo.write("wt.txt", content);

    const Repository r = Repository::open(repo.root());
    const Revision head = r.resolve("HEAD");
    const Revision worktree = r.resolve("WORKTREE");
    QCOMPARE(r.readFile(head, "data.txt"), content);
    QCOMPARE(r.readFile(worktree, "data.txt"), content);
    QCOMPARE(r.readFile(worktree, "wt.txt"), content);
    const auto entry = r.entry(head, "data.txt");
    QVERIFY(entry);
    QCOMPARE(qs(entry->blob), qs(blobId(content)));
    QCOMPARE(r.readBlob(entry->blob), content);
    QCOMPARE(qs(r.entry(worktree, "wt.txt")->blob), qs(blobId(content)));
}

void TestRepo::readErrors()
{
    History h;
    const Repository r = Repository::open(h.repo.root());
    const Revision head = r.resolve("HEAD");
    const struct
    {
        std::function<void()> call;
        const char *message;
    } cases[] = {
        {[&] { r.readFile(head, "missing.py"); }, "'missing.py' does not exist at 'HEAD'"},
        {[&] { r.readFile(r.resolve("WORKTREE"), "missing.py"); }, "missing.py"},
        {[&] { r.readFile(head, "../outside"); }, "leaves the repository"},
        {[&] { r.readFile(head, "/etc/passwd"); }, "relative to the repository root"},
        {[&] { r.readBlob("not-hex"); }, "invalid blob id"},
        {[&] { r.readBlob(std::string(40, 'a')); }, "reading blob aaaa"},
    };
    for (const auto &c : cases) {
        const auto error = errorOf(c.call);
        QVERIFY2(error, c.message);
        QCOMPARE(error->kind(), Error::Kind::Input);
        QVERIFY2(QString::fromUtf8(error->what()).contains(QLatin1String(c.message)),
                 error->what());
    }
}

// ---------------------------------------------------------------------------------------
// Diff

void TestRepo::diffFileList_data()
{
    QTest::addColumn<bool>("committed");
    QTest::addColumn<bool>("withHunks");
    QTest::newRow("commit to commit, hunks") << true << true;
    QTest::newRow("commit to commit, file list only") << true << false;
    QTest::newRow("commit to WORKTREE, hunks") << false << true;
    QTest::newRow("commit to WORKTREE, file list only") << false << false;
}

void TestRepo::diffFileList()
{
    QFETCH(bool, committed);
    QFETCH(bool, withHunks);
    RepoBuilder repo;
    const std::string baseId = buildPatchScenario(repo);
    if (committed)
        repo.commit("agent patch");

    const Repository r = Repository::open(repo.root());
    const Revision base = r.resolve(baseId);
    const Revision head = r.resolve(committed ? "HEAD" : "WORKTREE");
    DiffOptions options;
    options.withHunks = withHunks;
    const PatchDiff diff = r.diff(base, head, options);

    QCOMPARE(fileSummary(diff), QStringList({"A add.py", "M blob.dat", "D del.py", "M logo.png",
                                             "M mod.py", "R pkg/new_name.py", "M run.sh"}));
    QVERIFY(findFile(diff, "blob.dat")->binary); // by .gitattributes, not by content

    const FileDiff *added = findFile(diff, "add.py");
    QVERIFY(added->oldPath.empty() && added->oldBlob.empty() && added->oldMode == 0);
    QCOMPARE(qs(added->newBlob), qs(blobId("NEW = 1\n"))); // the real id, even untracked
    QCOMPARE(added->newMode, uint32_t(0100644));

    const FileDiff *deleted = findFile(diff, "del.py");
    QVERIFY(deleted->newPath.empty() && deleted->newBlob.empty() && deleted->newMode == 0);
    QCOMPARE(qs(deleted->oldBlob), qs(blobId("GONE = 1\n")));

    const FileDiff *renamed = findFile(diff, "pkg/new_name.py");
    QCOMPARE(qs(renamed->oldPath), QStringLiteral("old_name.py"));
    QVERIFY2(renamed->similarity > 50, qPrintable(QString::number(renamed->similarity)));
    QVERIFY(renamed->similarity < 100);
    QCOMPARE(qs(renamed->oldBlob), qs(blobId(kRenamedBase)));
    QCOMPARE(qs(renamed->newBlob), qs(blobId(kRenamedHead)));

    const FileDiff *png = findFile(diff, "logo.png");
    QVERIFY(png->binary);
    QVERIFY(png->hunks.empty());
    QCOMPARE(qs(png->newBlob), qs(blobId(kPngHead)));

    const FileDiff *script = findFile(diff, "run.sh");
    QVERIFY(script->modeChanged());
    QCOMPARE(script->oldMode, uint32_t(0100644));
    QCOMPARE(script->newMode, uint32_t(0100755));
    QVERIFY(script->hunks.empty()); // only the mode changed
    QCOMPARE(qs(script->newBlob), qs(blobId(kScript)));

    const FileDiff *mod = findFile(diff, "mod.py");
    QVERIFY(!mod->binary);
    QCOMPARE(qs(mod->oldBlob), qs(blobId(kModBase)));
    QCOMPARE(qs(mod->newBlob), qs(blobId(kModHead)));
    if (withHunks) {
        QCOMPARE(mod->additions, 1);
        QCOMPARE(mod->deletions, 1);
        QCOMPARE(mod->hunks.size(), size_t(1));
        QCOMPARE(added->additions, 1);
        QCOMPARE(deleted->deletions, 1);
        QCOMPARE(renamed->additions, 1);
    } else {
        for (const FileDiff &f : diff.files) {
            QVERIFY2(f.hunks.empty(), f.path().c_str());
            QCOMPARE(f.additions, 0);
            QCOMPARE(f.deletions, 0);
        }
    }

    options.detectRenames = false;
    QCOMPARE(fileSummary(r.diff(base, head, options)),
             QStringList({"A add.py", "M blob.dat", "D del.py", "M logo.png", "M mod.py",
                          "D old_name.py", "A pkg/new_name.py", "M run.sh"}));
}

void TestRepo::diffHunksAndIntraline()
{
    RepoBuilder repo;
    const std::string baseId = buildPatchScenario(repo);
    const Repository r = Repository::open(repo.root());
    const PatchDiff diff = r.diff(r.resolve(baseId), r.resolve("WORKTREE"), DiffOptions{});
    const FileDiff *mod = findFile(diff, "mod.py");
    QVERIFY(mod);
    QCOMPARE(mod->hunks.size(), size_t(1));
    const auto &hunk = mod->hunks.front();
    QCOMPARE(hunk.oldStart, 1);
    QCOMPARE(hunk.oldLines, 4);
    QCOMPARE(hunk.newStart, 1);
    QCOMPARE(hunk.newLines, 4);
    QCOMPARE(qs(hunk.header), QStringLiteral("@@ -1,4 +1,4 @@")); // nothing above line 1
    QCOMPARE(renderLines(hunk), QStringLiteral(" 1,1:def f():| 2,2:    a = 1|-3,0:    b = 2|"
                                               "+0,3:    b = 3| 4,4:    return a + b"));
    QCOMPARE(renderRanges(hunk.lines[2].intraline), QStringLiteral("8+1"));
    QCOMPARE(renderRanges(hunk.lines[3].intraline), QStringLiteral("8+1"));
    QVERIFY(hunk.lines[0].intraline.empty());

    DiffOptions noIntraline;
    noIntraline.intraline = false;
    const PatchDiff plain = r.diff(r.resolve(baseId), r.resolve("WORKTREE"), noIntraline);
    QVERIFY(findFile(plain, "mod.py")->hunks.front().lines[2].intraline.empty());
}

void TestRepo::diffLineNumbersAndMissingNewline_data()
{
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<QString>("lines");
    QTest::newRow("old side lacks the newline")
        << QByteArray("x\ny") << QByteArray("x\nz\n") << " 1,1:x|-2,0:y\\|+0,2:z";
    QTest::newRow("new side lacks the newline")
        << QByteArray("x\ny\n") << QByteArray("x\nz") << " 1,1:x|-2,0:y|+0,2:z\\";
    QTest::newRow("newline added at end")
        << QByteArray("x\ny") << QByteArray("x\ny\n") << " 1,1:x|-2,0:y\\|+0,2:y";
    QTest::newRow("both lack it: context line")
        << QByteArray("a\nb\nc") << QByteArray("A\nb\nc") << "-1,0:a|+0,1:A| 2,2:b| 3,3:c\\";
    QTest::newRow("pairs in a replaced block")
        << QByteArray("k\np1\np2\nk2\n") << QByteArray("k\nq1\nq2\nq3\nk2\n")
        << " 1,1:k|-2,0:p1|-3,0:p2|+0,2:q1|+0,3:q2|+0,4:q3| 4,5:k2";
}

void TestRepo::diffLineNumbersAndMissingNewline()
{
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(QString, lines);
    RepoBuilder repo;
    repo.write("f.txt", before.toStdString());
    const std::string baseId = repo.commit("base");
    repo.write("f.txt", after.toStdString());
    const std::string headId = repo.commit("head");

    const Repository r = Repository::open(repo.root());
    const PatchDiff diff = r.diff(r.resolve(baseId), r.resolve(headId), DiffOptions{});
    QCOMPARE(diff.files.size(), size_t(1));
    QCOMPARE(diff.files[0].hunks.size(), size_t(1));
    QCOMPARE(renderLines(diff.files[0].hunks[0]), lines);
    // Every deleted line paired with an added one carries the pair's intraline ranges —
    // none here: single letters that replace each other share nothing (a replacement).
    const auto &hunkLines = diff.files[0].hunks[0].lines;
    for (size_t i = 0; i + 1 < hunkLines.size(); ++i) {
        if (hunkLines[i].origin == DiffLine::Origin::Deleted &&
            hunkLines[i + 1].origin == DiffLine::Origin::Added &&
            hunkLines[i].text != hunkLines[i + 1].text) {
            const auto expected =
                pw::core::intralineRanges(hunkLines[i].text, hunkLines[i + 1].text);
            QCOMPARE(hunkLines[i].intraline, expected.first);
            QVERIFY(hunkLines[i].intraline.empty());
        }
    }
}

void TestRepo::diffContextLines_data()
{
    QTest::addColumn<int>("context");
    QTest::addColumn<int>("oldStart");
    QTest::addColumn<int>("lineCount");
    QTest::addColumn<QString>("header"); // with the nearest line above as function context
    QTest::newRow("0") << 0 << 10 << 2 << "@@ -10 +10 @@ line 9";
    QTest::newRow("1") << 1 << 9 << 4 << "@@ -9,3 +9,3 @@ line 8";
    QTest::newRow("3 (default)") << 3 << 7 << 8 << "@@ -7,7 +7,7 @@ line 6";
    QTest::newRow("more than the file") << 50 << 1 << 21 << "@@ -1,20 +1,20 @@";
}

void TestRepo::diffContextLines()
{
    QFETCH(int, context);
    QFETCH(int, oldStart);
    QFETCH(int, lineCount);
    QFETCH(QString, header);
    std::string before, after;
    for (int i = 1; i <= 20; ++i) {
        before += "line " + std::to_string(i) + "\n";
        after += (i == 10 ? std::string("changed") : "line " + std::to_string(i)) + "\n";
    }
    RepoBuilder repo;
    repo.write("f.txt", before);
    const std::string baseId = repo.commit("base");
    repo.write("f.txt", after);

    const Repository r = Repository::open(repo.root());
    DiffOptions options;
    options.contextLines = context;
    const PatchDiff diff = r.diff(r.resolve(baseId), r.resolve("WORKTREE"), options);
    QCOMPARE(diff.files.size(), size_t(1));
    QCOMPARE(diff.files[0].hunks.size(), size_t(1));
    const auto &hunk = diff.files[0].hunks[0];
    QCOMPARE(hunk.oldStart, oldStart);
    QCOMPARE(int(hunk.lines.size()), lineCount);
    QCOMPARE(qs(hunk.header), header);
}

void TestRepo::diffIgnoreWhitespace_data()
{
    QTest::addColumn<bool>("ignoreWhitespace");
    QTest::addColumn<bool>("withHunks");
    QTest::addColumn<QStringList>("files");
    const QStringList both = {"M mixed.py", "M ws.py"};
    const QStringList real = {"M mixed.py"};
    QTest::newRow("shown") << false << true << both;
    QTest::newRow("shown, file list") << false << false << both;
    QTest::newRow("ignored") << true << true << real;
    QTest::newRow("ignored, file list") << true << false << real;
}

void TestRepo::diffIgnoreWhitespace()
{
    QFETCH(bool, ignoreWhitespace);
    QFETCH(bool, withHunks);
    QFETCH(QStringList, files);
    RepoBuilder repo;
    repo.write("ws.py", "def f():\n    return 1\n");
    repo.write("mixed.py", "a = 1\nb = 2\n");
    const std::string baseId = repo.commit("base");
    repo.write("ws.py", "def f():\n        return  1\n");
    repo.write("mixed.py", "a  =  1\nb = 3\n");

    const Repository r = Repository::open(repo.root());
    DiffOptions options;
    options.ignoreWhitespace = ignoreWhitespace;
    options.withHunks = withHunks;
    const PatchDiff diff = r.diff(r.resolve(baseId), r.resolve("WORKTREE"), options);
    QCOMPARE(fileSummary(diff), files);
    if (withHunks) {
        const FileDiff *mixed = findFile(diff, "mixed.py");
        QCOMPARE(mixed->additions, ignoreWhitespace ? 1 : 2);
        QCOMPARE(mixed->deletions, ignoreWhitespace ? 1 : 2);
    }
}

void TestRepo::diffRejectsWorktreeBase()
{
    History h;
    const Repository r = Repository::open(h.repo.root());
    const auto error =
        errorOf([&] { r.diff(r.resolve("WORKTREE"), r.resolve("HEAD"), DiffOptions{}); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    QVERIFY2(QString::fromUtf8(error->what()).contains(QLatin1String("WORKTREE can only be")),
             error->what());
}

// ---------------------------------------------------------------------------------------
// Value helpers

void TestRepo::intralineRanges_data()
{
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<QString>("oldRanges");
    QTest::addColumn<QString>("newRanges");
    QTest::newRow("single word") << QByteArray("x = foo(1)") << QByteArray("x = bar(1)") << "4+3"
                                 << "4+3";
    QTest::newRow("insertion") << QByteArray("assert a == b") << QByteArray("assert a is not b")
                               << "9+2"
                               << "9+6";
    QTest::newRow("pure insertion") << QByteArray("f(a, b)") << QByteArray("f(a, c, b)") << ""
                                    << "5+3";
    QTest::newRow("no change") << QByteArray("same line") << QByteArray("same line") << ""
                               << "";
    // Lines that share less than half their visible text are a replacement: no word ranges
    // (issue 20 item 8: pairing unrelated lines painted confetti).
    QTest::newRow("completely different") << QByteArray("abc") << QByteArray("xyz") << ""
                                          << "";
    QTest::newRow("unrelated lines share a few tokens")
        << QByteArray("    assert total(lines) == expected")
        << QByteArray("    return [x for x in lines if x]") << ""
        << "";
    QTest::newRow("mostly shared")
        << QByteArray("value = compute(a, b)") << QByteArray("value = compute(a, c)") << "19+1"
        << "19+1";
    QTest::newRow("utf-8 stays whole")
        << QByteArray("na\xc3\xafve x") << QByteArray("na\xc3\xafve y") << "7+1"
        << "7+1";
    QTest::newRow("empty side") << QByteArray() << QByteArray("new") << ""
                                << "";

    // 300 differing words per side behind 1,000 common ones: beyond the LCS budget, only the
    // common prefix and suffix are trimmed and the rest is one range.
    QByteArray prefix = "p ";
    for (int i = 0; i < 1000; ++i)
        prefix += "c" + QByteArray::number(i) + " ";
    QByteArray before = prefix;
    QByteArray after = prefix;
    for (int i = 0; i < 300; ++i) {
        before += (i ? " w" : "w") + QByteArray::number(i);
        after += (i ? " w" : "w") + QByteArray::number(299 - i);
    }
    before += " s";
    after += " s";
    const QString middle = QString::number(prefix.size()) + QLatin1Char('+') +
                           QString::number(before.size() - 2 - prefix.size()); // equally long
    QTest::newRow("long line falls back to prefix/suffix") << before << after << middle << middle;
}

void TestRepo::intralineRanges()
{
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(QString, oldRanges);
    QFETCH(QString, newRanges);
    const auto [oldSide, newSide] =
        pw::core::intralineRanges(before.toStdString(), after.toStdString());
    QCOMPARE(renderRanges(oldSide), oldRanges);
    QCOMPARE(renderRanges(newSide), newRanges);
}

void TestRepo::changeStatusNames()
{
    const std::pair<ChangeStatus, const char *> all[] = {
        {ChangeStatus::Added, "A added"},       {ChangeStatus::Deleted, "D deleted"},
        {ChangeStatus::Modified, "M modified"}, {ChangeStatus::Renamed, "R renamed"},
        {ChangeStatus::Copied, "C copied"},     {ChangeStatus::TypeChange, "T type changed"},
    };
    for (const auto &[status, expected] : all) {
        const std::string actual = std::string(pw::core::changeStatusLetter(status)) + ' ' +
                                   pw::core::changeStatusName(status);
        QCOMPARE(qs(actual), QLatin1String(expected));
    }
}

// Issue 19: "no libgit2 call and no process on the GUI thread" is a checked rule. A window
// and its desks each mark their thread and are destroyed in no set order; a fixture lifts
// the mark for its own git work.
void TestRepo::markedThreadsNestInAnyOrder()
{
    using pw::core::blockingWorkAllowed;
    QVERIFY(blockingWorkAllowed());
    auto window = std::make_unique<pw::core::NoBlockingWorkHere>("GUI");
    auto desk = std::make_unique<pw::core::NoBlockingWorkHere>("GUI");
    QVERIFY(!blockingWorkAllowed());
    {
        const pw::core::BlockingWorkAllowed fixture;
        QVERIFY(blockingWorkAllowed());
        RepoBuilder b; // git work on the marked thread, allowed here
        b.write("a.txt", "a\n");
        b.commit("c");
        QCOMPARE(Repository::open(b.root()).workdir(), b.root());
    }
    QVERIFY(!blockingWorkAllowed());
    window.reset(); // the window goes first, its desk after it
    QVERIFY(!blockingWorkAllowed());
    desk.reset();
    QVERIFY(blockingWorkAllowed());
    // Marks that begin or end inside an allowed scope count as any other.
    auto early = std::make_unique<pw::core::NoBlockingWorkHere>("GUI");
    std::unique_ptr<pw::core::NoBlockingWorkHere> late;
    {
        const pw::core::BlockingWorkAllowed fixture;
        early.reset();
        late = std::make_unique<pw::core::NoBlockingWorkHere>("GUI");
        QVERIFY(blockingWorkAllowed());
    }
    QVERIFY(!blockingWorkAllowed());
    late.reset();
    QVERIFY(blockingWorkAllowed());
    // Other threads never carry this thread's mark.
    const pw::core::NoBlockingWorkHere gui("GUI");
    bool otherAllowed = false;
    std::thread([&] { otherAllowed = blockingWorkAllowed(); }).join();
    QVERIFY(otherAllowed);
}

void TestRepo::gitOrAProcessOnAMarkedThreadAborts_data()
{
    QTest::addColumn<QString>("call");
    QTest::newRow("Repository::open") << "open";
    QTest::newRow("Repository::readFile") << "readFile";
    QTest::newRow("ChildProcess") << "process";
}

// In a child process, strict as every test runs: the call aborts (SIGABRT) with its name.
void TestRepo::gitOrAProcessOnAMarkedThreadAborts()
{
    QFETCH(QString, call);
    RepoBuilder b;
    b.write("a.txt", "a\n");
    b.commit("c");
    const Repository repo = Repository::open(b.root());
    const Revision head = repo.resolve("HEAD");
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        ::setenv("PATCHWITNESS_STRICT_THREADS", "1", 1);
        const pw::core::NoBlockingWorkHere gui("GUI");
        if (call == QLatin1String("open"))
            (void)Repository::open(b.root());
        else if (call == QLatin1String("readFile"))
            (void)repo.readFile(head, "a.txt");
        else {
            const pw::core::ChildProcess process(/*ownSession=*/false);
        }
        ::_exit(0); // the rule did not fire
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
             qPrintable(QStringLiteral("status %1").arg(status)));
    // Unmarked, the same calls go ahead.
    QCOMPARE(repo.readFile(head, "a.txt"), std::string("a\n"));
}

QTEST_GUILESS_MAIN(TestRepo)
#include "tst_repo.moc"
