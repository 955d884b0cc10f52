// PATCH:<file> heads: a patch file applied onto a base in memory reads exactly
// like the commit it was made from (files, blobs, modes, diff, audit, CLI), the reviewer's
// repository is left as it was, and every bad patch is refused with a message naming the
// file. Patches are made with libgit2 from real commits, or written by hand.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "audit/Audit.h"
#include "repo/GitHandles.h"
#include "repo/PatchDiff.h"
#include "repo/Repository.h"
#include "util/Error.h"

#include <QCryptographicHash>
#include <QtTest>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

using namespace pw::core;
using pw::test::RepoBuilder;
namespace fs = std::filesystem;

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
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

void check(int rc, const char *what)
{
    if (rc < 0) {
        const git_error *e = git_error_last();
        throw std::runtime_error(std::string(what) + ": " + (e ? e->message : "?"));
    }
}

git::TreePtr treeOf(git_repository *repo, const std::string &commitId)
{
    git_oid id;
    check(git_oid_fromstr(&id, commitId.c_str()), "commit id");
    git_commit *rawCommit = nullptr;
    check(git_commit_lookup(&rawCommit, repo, &id), "commit");
    git::CommitPtr commit(rawCommit);
    git_tree *tree = nullptr;
    check(git_commit_tree(&tree, commit.get()), "tree");
    return git::TreePtr(tree);
}

// `git diff -M [--binary] from to`, made by libgit2.
std::string gitDiff(const RepoBuilder &builder, const std::string &from, const std::string &to,
                    bool binary = false)
{
    git::ensureInit();
    git_repository *rawRepo = nullptr;
    check(git_repository_open(&rawRepo, builder.root().c_str()), "open");
    git::RepositoryPtr repo(rawRepo);
    git_diff_options opts;
    check(git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION), "options");
    if (binary)
        opts.flags |= GIT_DIFF_SHOW_BINARY;
    git_diff *rawDiff = nullptr;
    check(git_diff_tree_to_tree(&rawDiff, repo.get(), treeOf(repo.get(), from).get(),
                                treeOf(repo.get(), to).get(), &opts),
          "diff");
    git::DiffPtr diff(rawDiff);
    git_diff_find_options find;
    check(git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION), "find options");
    find.flags = GIT_DIFF_FIND_RENAMES;
    check(git_diff_find_similar(diff.get(), &find), "renames");
    git::Buf text;
    check(git_diff_to_buf(text.get(), diff.get(), GIT_DIFF_FORMAT_PATCH), "format");
    return text.str();
}

// One mail as `git format-patch` writes it around a diff.
std::string mail(const std::string &commit, const std::string &subjectHeader,
                 const std::string &diff)
{
    return "From " + commit + " Mon Sep 17 00:00:00 2001\n" +
           "From: Agent <agent@example.com>\n"
           "Date: Tue, 14 Nov 2023 22:13:20 +0000\n" +
           subjectHeader +
           "\n"
           "The body explains the change.\n"
           "---\n"
           " a file | 2 +-\n"
           " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
           "\n" +
           diff + "-- \n2.39.2\n\n";
}

// Every file and directory under `dir`: path, size, modification time (ns), content hash.
QStringList fingerprint(const std::string &dir)
{
    QStringList out;
    for (const auto &e : fs::recursive_directory_iterator(dir)) {
        const auto mtime = fs::last_write_time(e.path()).time_since_epoch().count();
        QString row = qs(fs::relative(e.path(), dir).string()) + QLatin1Char(' ') +
                      QString::number(qlonglong(mtime));
        if (e.is_regular_file()) {
            QFile file(qs(e.path().string()));
            if (!file.open(QIODevice::ReadOnly))
                throw std::runtime_error("cannot read " + e.path().string());
            row += QLatin1Char(' ') + QString::number(qlonglong(e.file_size())) + QLatin1Char(' ') +
                   QString::fromLatin1(
                       QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha1).toHex());
        }
        out << row;
    }
    out.sort();
    return out;
}

// Sets every modification time under `dir` to a fixed day in the past, so that any touch
// (libgit2 "freshens" an object it is asked to write again) shows on any file system.
void ageTree(const std::string &dir)
{
    const auto past = fs::file_time_type::clock::now() - std::chrono::hours(24 * 400);
    for (const auto &e : fs::recursive_directory_iterator(dir))
        fs::last_write_time(e.path(), past);
    fs::last_write_time(dir, past);
}

std::string writeFile(const QTemporaryDir &dir, const std::string &name, const std::string &content)
{
    const std::string path = dir.filePath(qs(name)).toStdString();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out)
        throw std::runtime_error("cannot write " + path);
    return path;
}

// What unix2dos does: LF becomes CRLF, an existing CRLF stays.
std::string toCrlf(const std::string &text)
{
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r'))
            out += '\r';
        out += text[i];
    }
    return out;
}

QStringList fileRows(const Repository &r, const Revision &rev)
{
    QStringList rows;
    for (const FileEntry &f : r.listFiles(rev))
        rows << qs(f.path) + QLatin1Char(' ') + QString::number(f.mode, 8) + QLatin1Char(' ') +
                    qs(f.blob);
    return rows;
}

// Everything a reviewer sees of a diff, one row per file and line.
QStringList diffRows(const PatchDiff &diff)
{
    QStringList rows;
    for (const FileDiff &f : diff.files) {
        rows << QStringLiteral("%1 %2 -> %3 %4 %5..%6 %7->%8 bin=%9")
                    .arg(QLatin1String(changeStatusLetter(f.status)), qs(f.oldPath), qs(f.newPath),
                         QString::number(f.similarity), qs(f.oldBlob), qs(f.newBlob),
                         QString::number(f.oldMode, 8), QString::number(f.newMode, 8),
                         QString::number(f.binary));
        for (const DiffHunk &h : f.hunks) {
            rows << qs(h.header);
            for (const DiffLine &l : h.lines)
                rows << QString::number(int(l.origin)) + QLatin1Char(' ') + qs(l.text);
        }
    }
    return rows;
}

QStringList findingRows(const GateReport &r)
{
    QStringList out;
    for (const Finding &f : r.findings)
        out << QStringLiteral("%1 %2 %3")
                   .arg(qs(f.code), QLatin1String(severityName(f.severity)),
                        qs(f.test.empty() ? f.path : f.test));
    return out;
}

QStringList strengthRows(const GateReport &r)
{
    QStringList out;
    for (const StrengthRow &row : r.strength.tests)
        out << qs(row.test);
    return out;
}

const char *kTests = R"(def test_add():
    assert add(1, 2) == 3


def test_sub():
    assert sub(3, 1) == 2
)";

const char *kScript = "#!/bin/sh\necho run\n";

const char *kLongModule = R"(def one():
    return 1


def two():
    return 2


def three():
    return 3
)";

} // namespace

class TstPatchRev : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void appliedPatchReadsLikeTheCommit_data();
    void appliedPatchReadsLikeTheCommit();
    void gitDirectoryIsUntouched();
    void auditOfPatchEqualsAuditOfCommit();
    void auditDefaultBaseOfPatchIsHead();
    void subjects_data();
    void subjects();
    void mailSeriesAppliesInOrder();
    void plainUnifiedDiff();
    void crlfContentSurvives();
    void otherInstanceAppliesAgain();
    void relativePathAndResolveWithoutBase();
    void errors_data();
    void errors();
    void cliAuditsPatchFile();

private:
    std::unique_ptr<RepoBuilder> m_repo;
    std::string m_base, m_head;
    std::unique_ptr<QTemporaryDir> m_files; // patch files of the current test
    QTemporaryDir m_cache;                  // the extractor's fact cache
};

// base: calc, old_name (renamed with an edit), gone (deleted), run.sh (executable, renamed
// as is), tests; head changes every kind of file once.
void TstPatchRev::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    RepoBuilder &r = *m_repo;
    r.write("src/calc.py", "def add(a, b):\n    return a + b\n");
    r.write("src/old_name.py", kLongModule);
    r.write("src/gone.py", "GONE = True\n");
    r.write("tools/run.sh", kScript);
    fs::permissions(fs::path(r.root()) / "tools/run.sh", fs::perms::owner_exec,
                    fs::perm_options::add);
    r.write("tests/test_calc.py", kTests);
    m_base = r.commit("base");

    r.write("src/calc.py",
            "def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    return a - b\n");
    r.rename("src/old_name.py", "src/new_name.py");
    r.write("src/new_name.py", std::string(kLongModule) + "\n\ndef four():\n    return 4\n");
    r.remove("src/gone.py");
    r.rename("tools/run.sh", "tools/launch.sh");
    r.write("src/added.py", "ADDED = 1\n");
    r.write("tests/test_calc.py", "def test_add():\n    assert add(1, 2) == 3\n"); // drops test_sub
    m_head = r.commit("Drop test_sub and reshuffle");
}

void TstPatchRev::init()
{
    m_files = std::make_unique<QTemporaryDir>();
    QVERIFY(m_files->isValid());
}

void TstPatchRev::appliedPatchReadsLikeTheCommit_data()
{
    QTest::addColumn<bool>("asMail");
    QTest::newRow("git diff") << false;
    QTest::newRow("git format-patch mail") << true;
}

void TstPatchRev::appliedPatchReadsLikeTheCommit()
{
    QFETCH(bool, asMail);
    const std::string diff = gitDiff(*m_repo, m_base, m_head);
    QVERIFY(diff.find("rename from src/old_name.py") != std::string::npos);
    QVERIFY(diff.find("rename from tools/run.sh") != std::string::npos);
    const std::string file = writeFile(
        *m_files, "change.patch",
        asMail ? mail(m_head, "Subject: [PATCH] Drop test_sub and reshuffle\n", diff) : diff);

    const Repository r = Repository::open(m_repo->root());
    const Revision base = r.resolve(m_base);
    const Revision patch = r.resolvePatch("PATCH:" + file, base);
    const Revision commit = r.resolve(m_head);

    QVERIFY(patch.isPatch());
    QCOMPARE(patch.spec, "PATCH:" + file);
    QCOMPARE(patch.patchFile, file);
    QCOMPARE(patch.commit, m_base); // what it applies onto
    // Same blobs, same modes (the executable kept through a rename without a mode line).
    QCOMPARE(patch.tree, commit.tree);
    QCOMPARE(fileRows(r, patch), fileRows(r, commit));
    for (const FileEntry &f : r.listFiles(commit)) {
        QCOMPARE(r.readFile(patch, f.path), r.readFile(commit, f.path));
        QCOMPARE(r.entry(patch, f.path)->blob, f.blob);
    }
    QVERIFY(!r.entry(patch, "src/gone.py"));
    QCOMPARE(diffRows(r.diff(base, patch, DiffOptions())),
             diffRows(r.diff(base, commit, DiffOptions())));
    QCOMPARE(r.defaultBase(patch).commit, m_base);
}

void TstPatchRev::gitDirectoryIsUntouched()
{
    // One patch recreates objects the repository already has (libgit2 would "freshen"
    // them: touch their files), the other makes objects it has never seen.
    const std::string known = writeFile(*m_files, "known.diff", gitDiff(*m_repo, m_base, m_head));
    const std::string novel = writeFile(*m_files, "novel.diff",
                                        "diff --git a/src/calc.py b/src/calc.py\n"
                                        "--- a/src/calc.py\n"
                                        "+++ b/src/calc.py\n"
                                        "@@ -1,2 +1,2 @@\n"
                                        " def add(a, b):\n"
                                        "-    return a + b\n"
                                        "+    return a + b + 0  # never committed\n"
                                        "diff --git a/brand/new.py b/brand/new.py\n"
                                        "new file mode 100644\n"
                                        "--- /dev/null\n"
                                        "+++ b/brand/new.py\n"
                                        "@@ -0,0 +1 @@\n"
                                        "+NEVER_SEEN = 42\n");
    const std::string gitDir = m_repo->root() + "/.git";
    ageTree(gitDir);
    const QStringList before = fingerprint(gitDir);
    {
        const Repository r = Repository::open(m_repo->root());
        const Revision base = r.resolve(m_base);
        for (const std::string &file : {known, novel}) {
            const Revision patch = r.resolvePatch("PATCH:" + file, base);
            r.listFiles(patch);
            r.diff(base, patch, DiffOptions());
        }
        const Revision novelRev = r.resolvePatch("PATCH:" + novel, base);
        QCOMPARE(r.readFile(novelRev, "brand/new.py"), std::string("NEVER_SEEN = 42\n"));
        QVERIFY(r.readFile(novelRev, "src/calc.py").find("never committed") != std::string::npos);
        // A second instance does not have the new blob: it only ever lived in memory.
        const std::string blob = r.entry(novelRev, "brand/new.py")->blob;
        QCOMPARE(r.readBlob(blob), std::string("NEVER_SEEN = 42\n"));
        const Repository other = Repository::open(m_repo->root());
        QVERIFY(errorOf([&] { other.readBlob(blob); }));

        AuditRequest request;
        request.repoPath = m_repo->root();
        request.base = m_base;
        request.head = "PATCH:" + novel;
        request.python = pw::test::testPython();
        request.cacheDir = m_cache.path().toStdString();
        Audit::run(request);
    }
    QCOMPARE(fingerprint(gitDir), before);
}

void TstPatchRev::auditOfPatchEqualsAuditOfCommit()
{
    const std::string file = writeFile(*m_files, "agent.diff", gitDiff(*m_repo, m_base, m_head));
    AuditRequest request;
    request.repoPath = m_repo->root();
    request.base = m_base;
    request.python = pw::test::testPython();
    request.cacheDir = m_cache.path().toStdString();
    request.withManifest = true;

    request.head = m_head;
    const GateReport ofCommit = Audit::run(request);
    request.head = "PATCH:" + file;
    const GateReport ofPatch = Audit::run(request);

    QVERIFY(
        findingRows(ofCommit).contains(QStringLiteral("T-DEL block tests/test_calc.py::test_sub")));
    QCOMPARE(findingRows(ofPatch), findingRows(ofCommit));
    QCOMPARE(strengthRows(ofPatch), strengthRows(ofCommit));
    QCOMPARE(ofPatch.verdict, ofCommit.verdict);
    QCOMPARE(ofPatch.changedFiles.size(), ofCommit.changedFiles.size());
    for (size_t i = 0; i < ofPatch.changedFiles.size(); ++i) {
        QCOMPARE(ofPatch.changedFiles[i].path, ofCommit.changedFiles[i].path);
        QCOMPARE(ofPatch.changedFiles[i].status, ofCommit.changedFiles[i].status);
    }
    QVERIFY(ofPatch.manifest);
    QCOMPARE(ofPatch.manifest->tests.size(), ofCommit.manifest->tests.size());
    QCOMPARE(ofPatch.head.rev, "PATCH:" + file);
    QVERIFY(!ofPatch.head.commit); // a patch file has no commit of its own
    QCOMPARE(*ofPatch.base.commit, m_base);
}

void TstPatchRev::auditDefaultBaseOfPatchIsHead()
{
    RepoBuilder repo;
    repo.write("tests/test_a.py", kTests);
    const std::string base = repo.commit("base");
    repo.write("tests/test_a.py", "def test_add():\n    assert add(1, 2) == 3\n");
    const std::string head = repo.commit("drop test_sub");
    const std::string file = writeFile(*m_files, "p.diff", gitDiff(repo, base, head));
    repo.branch("review", base);
    repo.checkout("review"); // HEAD is where the patch applies

    AuditRequest request;
    request.repoPath = repo.root();
    request.head = "PATCH:" + file;
    request.python = pw::test::testPython();
    request.cacheDir = m_cache.path().toStdString();
    const GateReport report = Audit::run(request);
    QCOMPARE(report.base.rev, std::string("HEAD"));
    QCOMPARE(*report.base.commit, base);
    QVERIFY(findingRows(report).contains(QStringLiteral("T-DEL block tests/test_a.py::test_sub")));
    QCOMPARE(Audit::loadConfig(request).latitudeMax, report.latitude.threshold);
}

void TstPatchRev::subjects_data()
{
    QTest::addColumn<QString>("headers"); // mail headers; empty: a bare diff
    QTest::addColumn<QString>("subject");
    QTest::newRow("format-patch") << "Subject: [PATCH] Fix the flaky test\n"
                                  << "Fix the flaky test";
    QTest::newRow("numbered, versioned") << "Subject: [PATCH v2 3/7] Fix it\n"
                                         << "Fix it";
    QTest::newRow("folded and Q-encoded")
        << "Subject: [PATCH] =?UTF-8?q?Caf=C3=A9=20tests=20no?=\n =?UTF-8?q?_longer_flaky?=\n"
        << QStringLiteral("Café tests no longer flaky");
    QTest::newRow("bare diff: the file name") << ""
                                              << "bare.diff";
}

void TstPatchRev::subjects()
{
    QFETCH(QString, headers);
    QFETCH(QString, subject);
    const std::string diff = "diff --git a/src/gone.py b/src/gone.py\n"
                             "--- a/src/gone.py\n"
                             "+++ b/src/gone.py\n"
                             "@@ -1 +1 @@\n"
                             "-GONE = True\n"
                             "+GONE = False\n";
    const std::string text = headers.isEmpty() ? diff : mail(m_head, headers.toStdString(), diff);
    const std::string file =
        writeFile(*m_files, headers.isEmpty() ? "bare.diff" : "mail.patch", text);
    const Repository r = Repository::open(m_repo->root());
    const Revision patch = r.resolvePatch("PATCH:" + file, r.resolve(m_base));
    QCOMPARE(qs(patch.subject), subject);
    QCOMPARE(r.readFile(patch, "src/gone.py"), std::string("GONE = False\n"));
}

void TstPatchRev::mailSeriesAppliesInOrder()
{
    // Three commits, the second changing the first one's lines again: only an in-order
    // application gives the third commit's tree.
    RepoBuilder repo;
    repo.write("m.py", kLongModule);
    const std::string c0 = repo.commit("base");
    repo.write("m.py", std::string(kLongModule) + "\n\ndef four():\n    return 4\n");
    const std::string c1 = repo.commit("add four");
    repo.write("m.py", std::string(kLongModule) + "\n\ndef four():\n    return 4.0\n");
    repo.write("n.py", "N = 1\n");
    const std::string c2 = repo.commit("float four");
    const std::string cover = "From " + std::string(40, '0') +
                              " Mon Sep 17 00:00:00 2001\n"
                              "Subject: [PATCH 0/2] *** SUBJECT HERE ***\n\n*** BLURB HERE ***\n\n";
    const std::string series = cover +
                               mail(c1, "Subject: [PATCH 1/2] add four\n", gitDiff(repo, c0, c1)) +
                               mail(c2, "Subject: [PATCH 2/2] float four\n", gitDiff(repo, c1, c2));
    const std::string file = writeFile(*m_files, "series.mbox", series);

    const Repository r = Repository::open(repo.root());
    const Revision patch = r.resolvePatch("PATCH:" + file, r.resolve(c0));
    QCOMPARE(patch.tree, r.resolve(c2).tree);
    QCOMPARE(patch.subject, std::string("float four (+1 earlier patch)"));

    // Mails in the wrong order: the first to apply is the second mail, which names itself.
    const std::string swapped =
        writeFile(*m_files, "swapped.mbox",
                  mail(c2, "Subject: [PATCH 2/2] float four\n", gitDiff(repo, c1, c2)) +
                      mail(c1, "Subject: [PATCH 1/2] add four\n", gitDiff(repo, c0, c1)));
    const auto error = errorOf([&] { r.resolvePatch("PATCH:" + swapped, r.resolve(c0)); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    const QString message = qs(error->what());
    QVERIFY2(message.contains(qs(swapped + ": patch 1/2 ('float four'): does not apply to '")),
             error->what());
    QVERIFY2(message.contains(QStringLiteral("'m.py'")), error->what());
}

void TstPatchRev::plainUnifiedDiff()
{
    RepoBuilder repo;
    repo.write("calc.py", "def add(a, b):\n    return a + b\n");
    repo.write("src/gone.py", "GONE = True\n");
    repo.write("notes.md", "keep\n-- a\nf3\nf4\nf5\nf6\nf7\nf8\nf9\nx\n");
    repo.write("tools/run.sh", kScript);
    fs::permissions(fs::path(repo.root()) / "tools/run.sh", fs::perms::owner_exec,
                    fs::perm_options::add);
    const std::string base = repo.commit("base");

    // `diff -ruN old new` and `diff -u x.orig x` output: no "diff --git" lines, timestamps,
    // one directory to strip (-p1, as git apply does) or none. In notes.md a removed
    // "-- a" and an added "++ b" line followed by a hunk look like a file header.
    const std::string text = "diff -ruN old/src/gone.py new/src/gone.py\n"
                             "--- old/src/gone.py\t2024-01-01 10:00:00.000000000 +0000\n"
                             "+++ /dev/null\t1970-01-01 00:00:00.000000000 +0000\n"
                             "@@ -1 +0,0 @@\n"
                             "-GONE = True\n"
                             "--- /dev/null\t1970-01-01 00:00:00.000000000 +0000\n"
                             "+++ new/src/fresh.py\t2024-01-02 10:00:00.000000000 +0000\n"
                             "@@ -0,0 +1 @@\n"
                             "+FRESH = 1\n"
                             "\\ No newline at end of file\n"
                             "--- old/notes.md\n"
                             "+++ new/notes.md\n"
                             "@@ -1,2 +1,2 @@\n"
                             " keep\n"
                             "--- a\n"
                             "+++ b\n"
                             "@@ -10 +10 @@\n"
                             "-x\n"
                             "+y\n"
                             "--- old/tools/run.sh\n"
                             "+++ new/tools/run.sh\n"
                             "@@ -2 +2 @@\n"
                             "-echo run\n"
                             "+echo walk\n"
                             "--- calc.py.orig\n"
                             "+++ calc.py\n"
                             "@@ -1,2 +1,2 @@\n"
                             " def add(a, b):\n"
                             "-    return a + b\n"
                             "+    return b + a\n";
    const std::string file = writeFile(*m_files, "plain.diff", text);
    const Repository r = Repository::open(repo.root());
    const Revision patch = r.resolvePatch("PATCH:" + file, r.resolve(base));
    QVERIFY(!r.entry(patch, "src/gone.py"));
    QCOMPARE(r.readFile(patch, "src/fresh.py"), std::string("FRESH = 1"));
    QCOMPARE(r.entry(patch, "src/fresh.py")->mode, 0100644u);
    QCOMPARE(r.readFile(patch, "notes.md"),
             std::string("keep\n++ b\nf3\nf4\nf5\nf6\nf7\nf8\nf9\ny\n"));
    QCOMPARE(r.readFile(patch, "tools/run.sh"), std::string("#!/bin/sh\necho walk\n"));
    QCOMPARE(r.entry(patch, "tools/run.sh")->mode, 0100755u); // a plain diff keeps the mode
    QCOMPARE(r.readFile(patch, "calc.py"), std::string("def add(a, b):\n    return b + a\n"));
    QStringList summary;
    for (const FileDiff &f : r.diff(r.resolve(base), patch, DiffOptions()).files)
        summary << QLatin1String(changeStatusLetter(f.status)) + QLatin1Char(' ') + qs(f.path());
    QCOMPARE(summary,
             QStringList({QStringLiteral("M calc.py"), QStringLiteral("M notes.md"),
                          QStringLiteral("A src/fresh.py"), QStringLiteral("D src/gone.py"),
                          QStringLiteral("M tools/run.sh")}));
}

void TstPatchRev::crlfContentSurvives()
{
    RepoBuilder repo;
    repo.write("win.txt", "one\r\ntwo\r\nthree\r\n");
    repo.write("data.bin", std::string("\x00\x01\x02 binary\n", 10));
    const std::string base = repo.commit("base");
    repo.write("win.txt", "one\r\nTWO\r\nthree\r\nfour\r\n");
    repo.write("data.bin", std::string("\x00\x01\x03 binary!\n", 11));
    const std::string head = repo.commit("crlf and binary");
    const std::string diff = gitDiff(repo, base, head, /*binary=*/true);
    QVERIFY(diff.find("+TWO\r\n") != std::string::npos);
    QVERIFY(diff.find("GIT binary patch") != std::string::npos);
    const std::string file = writeFile(*m_files, "crlf.diff", diff);

    const Repository r = Repository::open(repo.root());
    const Revision patch = r.resolvePatch("PATCH:" + file, r.resolve(base));
    QCOMPARE(r.readFile(patch, "win.txt"), std::string("one\r\nTWO\r\nthree\r\nfour\r\n"));
    QCOMPARE(r.readFile(patch, "data.bin"), std::string("\x00\x01\x03 binary!\n", 11));
    QCOMPARE(patch.tree, r.resolve(head).tree);

    // The whole patch file converted to CRLF (a Windows editor): LF files still come out
    // as committed.
    const std::string lf = writeFile(*m_files, "lf.diff", toCrlf(gitDiff(*m_repo, m_base, m_head)));
    const Repository main = Repository::open(m_repo->root());
    QCOMPARE(main.resolvePatch("PATCH:" + lf, main.resolve(m_base)).tree,
             main.resolve(m_head).tree);
}

void TstPatchRev::otherInstanceAppliesAgain()
{
    const std::string novel = "diff --git a/src/gone.py b/src/gone.py\n--- a/src/gone.py\n"
                              "+++ b/src/gone.py\n@@ -1 +1 @@\n-GONE = True\n+GONE = 0\n";
    const std::string file = writeFile(*m_files, "p.diff", novel);
    Revision patch;
    {
        const Repository first = Repository::open(m_repo->root());
        patch = first.resolvePatch("PATCH:" + file, first.resolve(m_base));
    }
    const Repository second = Repository::open(m_repo->root());
    QCOMPARE(second.readFile(patch, "src/gone.py"), std::string("GONE = 0\n"));

    // The file changes under the revision: another instance refuses rather than show a
    // different patch under the same name.
    writeFile(*m_files, "p.diff", novel.substr(0, novel.size() - 2) + "1\n");
    const Repository third = Repository::open(m_repo->root());
    const auto error = errorOf([&] { third.listFiles(patch); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    QVERIFY2(qs(error->what()).contains(qs(file + ": the patch file changed since")),
             error->what());
    // The instance that has the tree keeps serving it.
    QCOMPARE(second.readFile(patch, "src/gone.py"), std::string("GONE = 0\n"));
}

void TstPatchRev::relativePathAndResolveWithoutBase()
{
    writeFile(*m_files, "rel.diff", gitDiff(*m_repo, m_base, m_head));
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(m_files->path()));
    const Repository r = Repository::open(m_repo->root());
    Revision patch;
    const auto applied =
        errorOf([&] { patch = r.resolvePatch("PATCH:rel.diff", r.resolve(m_base)); });
    const auto withoutBase = errorOf([&] { r.resolve("PATCH:rel.diff"); });
    QDir::setCurrent(cwd);
    QVERIFY2(!applied, applied ? applied->what() : "");
    const std::string absolute =
        QDir(m_files->path()).filePath(QStringLiteral("rel.diff")).toStdString();
    QCOMPARE(patch.spec, "PATCH:" + absolute);
    QCOMPARE(patch.patchFile, absolute);
    QVERIFY(withoutBase);
    QCOMPARE(withoutBase->kind(), Error::Kind::Input);
    QVERIFY2(qs(withoutBase->what()).contains(QStringLiteral("needs a base revision")),
             withoutBase->what());
    QCOMPARE(r.resolveHead(m_head, r.resolve(m_base)).commit, m_head);
}

void TstPatchRev::errors_data()
{
    QTest::addColumn<QString>("name");    // patch file to create in the temporary directory
    QTest::addColumn<QString>("content"); // its content; "<none>" to not create it
    QTest::addColumn<QString>("base");    // "base" (the base commit) or "WORKTREE"
    // All must be in the message; "@" stands for the file's path, "%1" for the base's short id.
    QTest::addColumn<QStringList>("fragments");

    const QString modifyCalc = QStringLiteral("diff --git a/src/calc.py b/src/calc.py\n"
                                              "--- a/src/calc.py\n"
                                              "+++ b/src/calc.py\n"
                                              "@@ -1,2 +1,2 @@\n"
                                              " def add(a, b):\n"
                                              "-    return a * b\n"
                                              "+    return a + b + 1\n");
    QTest::newRow("missing file") << "missing.diff"
                                  << "<none>"
                                  << "base" << QStringList{QStringLiteral("@: no such patch file")};
    QTest::newRow("garbage") << "garbage.diff"
                             << "this is not a patch\njust some text\nover several lines\n"
                             << "base"
                             << QStringList{QStringLiteral("@: not a patch (no patch found)")};
    QTest::newRow("empty file") << "empty.diff"
                                << "\n"
                                << "base"
                                << QStringList{QStringLiteral("@: the patch file is empty")};
    // libgit2 parses a plain diff with a header line added: the message still names the
    // line of the file.
    QTest::newRow("bad hunk: libgit2's message, the file's line")
        << "bad.diff"
        << "Some preamble\n\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,2 +1,2 @@\n"
           " def add(a, b):\n-    return a + b\n?    nonsense\n"
        << "base"
        << QStringList{QStringLiteral("@: not a patch git can read: invalid patch hunk at line 8")};
    QTest::newRow("context mismatch")
        << "stale.diff" << modifyCalc << "base"
        << QStringList{QStringLiteral("@: does not apply to '%1': 'src/calc.py': hunk at line 1 "
                                      "did not apply")};
    QTest::newRow("file to change is missing")
        << "missing-target.diff"
        << "diff --git a/nowhere.py b/nowhere.py\n--- a/nowhere.py\n+++ b/nowhere.py\n"
           "@@ -1 +1 @@\n-a\n+b\n"
        << "base"
        << QStringList{QStringLiteral("@: does not apply to '%1': 'nowhere.py' does not exist "
                                      "there")};
    QTest::newRow("file to add exists")
        << "exists.diff"
        << "diff --git a/src/gone.py b/src/gone.py\nnew file mode 100644\n--- /dev/null\n"
           "+++ b/src/gone.py\n@@ -0,0 +1 @@\n+NEW = 1\n"
        << "base" << QStringList{QStringLiteral("'src/gone.py' already exists there")};
    QTest::newRow("binary patch without data")
        << "nodata.diff"
        << "diff --git a/src/gone.py b/src/gone.py\nindex 1111111..2222222 100644\n"
           "Binary files a/src/gone.py and b/src/gone.py differ\n"
        << "base"
        << QStringList{QStringLiteral("@: the binary change of 'src/gone.py' has no data"),
                       QStringLiteral("git diff --binary")};
    QTest::newRow("WORKTREE base") << "wt.diff" << modifyCalc << "WORKTREE"
                                   << QStringList{QStringLiteral("not onto WORKTREE")};
    QTest::newRow("no file named")
        << ""
        << "<none>"
        << "base" << QStringList{QStringLiteral("'PATCH:' names no file")};
    QTest::newRow("a directory") << "."
                                 << "<none>"
                                 << "base" << QStringList{QStringLiteral("is a directory")};
}

void TstPatchRev::errors()
{
    QFETCH(QString, name);
    QFETCH(QString, content);
    QFETCH(QString, base);
    QFETCH(QStringList, fragments);
    const std::string path = name.isEmpty()               ? std::string()
                             : name == QLatin1String(".") ? m_files->path().toStdString()
                                                          : m_files->filePath(name).toStdString();
    if (content != QLatin1String("<none>"))
        writeFile(*m_files, name.toStdString(), content.toStdString());

    const Repository r = Repository::open(m_repo->root());
    const Revision baseRev = r.resolve(base == QLatin1String("base") ? m_base : "WORKTREE");
    const auto error = errorOf([&] { r.resolvePatch("PATCH:" + path, baseRev); });
    QVERIFY(error);
    QCOMPARE(error->kind(), Error::Kind::Input);
    for (QString fragment : fragments) {
        fragment.replace(QLatin1Char('@'), qs(path));
        fragment.replace(QLatin1String("%1"), qs(m_base.substr(0, 12)));
        QVERIFY2(qs(error->what()).contains(fragment),
                 qPrintable(QStringLiteral("'%1' not in: %2").arg(fragment, qs(error->what()))));
    }
}

void TstPatchRev::cliAuditsPatchFile()
{
    const std::string file = writeFile(*m_files, "cli.diff", gitDiff(*m_repo, m_base, m_head));
    auto run = [&](const std::string &head) {
        QProcess p;
        p.start(QStringLiteral(PW_CLI_PATH),
                {QStringLiteral("audit"), QStringLiteral("--repo"), qs(m_repo->root()),
                 QStringLiteral("--base"), qs(m_base), QStringLiteral("--head"), qs(head),
                 QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--python"),
                 qs(pw::test::testPython()), QStringLiteral("--cache-dir"), m_cache.path()});
        if (!p.waitForFinished(120000))
            p.kill();
        return std::make_tuple(p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError());
    };
    const auto [patchCode, patchOut, patchErr] = run("PATCH:" + file);
    const auto [commitCode, commitOut, commitErr] = run(m_head);
    QVERIFY2(!patchOut.isEmpty(), patchErr.constData());
    QCOMPARE(patchCode, commitCode);
    QCOMPARE(patchCode, 1); // BLOCK: the patch deletes a test
    const auto patch = nlohmann::json::parse(patchOut.toStdString());
    const auto commit = nlohmann::json::parse(commitOut.toStdString());
    QCOMPARE(patch["head"]["rev"].get<std::string>(), "PATCH:" + file);
    QVERIFY(patch["head"]["commit"].is_null());
    QCOMPARE(patch["findings"].dump(), commit["findings"].dump());
    QCOMPARE(patch["verdict"].get<std::string>(), commit["verdict"].get<std::string>());

    const auto [badCode, badOut, badErr] = run("PATCH:" + file + ".missing");
    QCOMPARE(badCode, 3); // input error
    QVERIFY2(badErr.contains(QByteArray::fromStdString(file + ".missing: no such patch file")),
             badErr.constData());
}

QTEST_GUILESS_MAIN(TstPatchRev)
#include "tst_patchrev.moc"
