// PATCH: files as untrusted input (issue 18): what is not a regular file, what is too
// large, binary hunks damaged in every way a line of base85 can be, and header lines
// libgit2 refuses without a reason — each an input error (exit 3) naming the file's line,
// never a hang, a crash or a silently wrong tree.

#include "RepoBuilder.h"
#include "TestSupport.h"
#include "audit/Audit.h"
#include "audit/ReviewTarget.h"
#include "repo/Repository.h"
#include "util/Error.h"

#include <QProcess>
#include <QtTest>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sys/stat.h>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

std::string randomBytes(size_t n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::string out(n, '\0');
    for (char &c : out)
        c = static_cast<char>(gen() & 0xff);
    return out;
}

std::vector<std::string> linesOf(const std::string &text)
{
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t end = text.find('\n', pos);
        lines.push_back(text.substr(pos, end - pos));
        pos = end == std::string::npos ? text.size() : end + 1;
    }
    return lines;
}

std::string joined(const std::vector<std::string> &lines)
{
    std::string out;
    for (const std::string &l : lines)
        out += l + '\n';
    return out;
}

// Index of the first line equal to `line` at or after `from`; throws when there is none.
size_t find(const std::vector<std::string> &lines, const std::string &line, size_t from = 0)
{
    for (size_t i = from; i < lines.size(); ++i)
        if (lines[i] == line)
            return i;
    throw std::runtime_error("fixture patch has no line '" + line + "'");
}

size_t findPrefix(const std::vector<std::string> &lines, const std::string &prefix, size_t from)
{
    for (size_t i = from; i < lines.size(); ++i)
        if (lines[i].starts_with(prefix))
            return i;
    throw std::runtime_error("fixture patch has no line starting '" + prefix + "'");
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

struct CliResult
{
    bool finished = false;
    int code = -1;
    QString err;
};

// The CLI with a time limit: a hang fails the test instead of stalling it.
CliResult audit(const std::string &repo, const std::string &base, const std::string &head,
                const QStringList &extra = {})
{
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH),
            QStringList{QStringLiteral("audit"), QStringLiteral("--repo"), qs(repo),
                        QStringLiteral("--base"), qs(base), QStringLiteral("--head"), qs(head),
                        QStringLiteral("--python"), qs(pw::test::testPython())} +
                extra);
    CliResult r;
    r.finished = p.waitForFinished(30000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished();
    }
    r.code = p.exitCode();
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

// Damages the patch's lines; returns the line of the file the message must name.
using Mutation = std::function<size_t(std::vector<std::string> &)>;
Q_DECLARE_METATYPE(Mutation)

class TstPatchInput : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void intactBinaryPatchApplies();
    void notARegularFile_data();
    void notARegularFile();
    void tooLarge();
    void tooLargeFromConfig();
    void reopenKeepsTheTargetsCap();
    void binaryDeclaresOverCap();
    void corruptBinary_data();
    void corruptBinary();
    void corruptHeader_data();
    void corruptHeader();
    void nulByteInHunk();
    void binaryWordsInAMessageAreText();

private:
    std::string gitDiff(const std::vector<std::string> &paths = {}) const;

    std::unique_ptr<RepoBuilder> m_repo;
    std::string m_base, m_head;
    std::string m_patch; // git diff --binary base head
    std::unique_ptr<QTemporaryDir> m_files;
};

// `git diff --binary` by git itself: the patches reviewers are handed.
std::string TstPatchInput::gitDiff(const std::vector<std::string> &paths) const
{
    QProcess git;
    QStringList args{QStringLiteral("-C"),       qs(m_repo->root()), QStringLiteral("diff"),
                     QStringLiteral("--binary"), qs(m_base),         qs(m_head)};
    if (!paths.empty()) {
        args << QStringLiteral("--");
        for (const std::string &p : paths)
            args << qs(p);
    }
    git.start(QStringLiteral("git"), args);
    if (!git.waitForFinished(30000) || git.exitCode() != 0)
        throw std::runtime_error("git diff failed: " + git.readAllStandardError().toStdString());
    return git.readAllStandardOutput().toStdString();
}

// base: a text file, an incompressible binary (a literal of many base85 lines), a
// compressible one; head: the first binary replaced (literal), the second edited (git
// writes a delta), a new binary and a new file of zeros (a tiny literal of 100 000 bytes).
void TstPatchInput::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    RepoBuilder &r = *m_repo;
    r.write("a.txt", "one\ntwo\n");
    r.write("blob.bin", randomBytes(3000, 1));
    std::string picture;
    for (int i = 0; i < 2000; ++i)
        picture += std::string("\0pixel row ", 11) + std::to_string(i) + '\n';
    r.write("pic.bin", picture);
    m_base = r.commit("base");
    r.write("a.txt", "one\nTWO\n");
    r.write("blob.bin", randomBytes(3000, 2));
    picture.replace(5000, 5, "PIXEL");
    r.write("pic.bin", picture);
    r.write("new.bin", randomBytes(500, 3));
    r.write("zeros.bin", std::string(100000, '\0'));
    m_head = r.commit("head");
    m_patch = gitDiff();
    QVERIFY(m_patch.find("\ndelta ") != std::string::npos); // pic.bin
    QVERIFY(m_patch.find("\nliteral 3000\n") != std::string::npos);
}

void TstPatchInput::init()
{
    m_files = std::make_unique<QTemporaryDir>();
    QVERIFY(m_files->isValid());
}

// The checks refuse nothing git wrote: literals, a delta, an empty reverse side.
void TstPatchInput::intactBinaryPatchApplies()
{
    const std::string file = writeFile(*m_files, "intact.patch", m_patch);
    const Repository r = Repository::open(m_repo->root());
    const Revision patched = r.resolvePatch("PATCH:" + file, r.resolve(m_base));
    QCOMPARE(patched.tree, r.resolve(m_head).tree);
}

void TstPatchInput::notARegularFile_data()
{
    QTest::addColumn<QString>("path"); // "<fifo>": a FIFO made in the temporary directory
    QTest::addColumn<QString>("fragment");
    QTest::newRow("FIFO (blocked for ever)") << "<fifo>"
                                             << "is a FIFO (named pipe), not a regular file";
    QTest::newRow("/dev/zero (read without end)") << "/dev/zero"
                                                  << "is a character device";
    QTest::newRow("/dev/null") << "/dev/null"
                               << "is a character device";
}

void TstPatchInput::notARegularFile()
{
    QFETCH(QString, path);
    QFETCH(QString, fragment);
    if (path == QLatin1String("<fifo>")) {
        path = m_files->filePath(QStringLiteral("fix.patch"));
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    }
    const CliResult r = audit(m_repo->root(), m_base, "PATCH:" + path.toStdString());
    QVERIFY2(r.finished, "patchwitness-cli did not finish within 30 s");
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains(path + QStringLiteral(": ") + fragment), qPrintable(r.err));
}

void TstPatchInput::tooLarge()
{
    const std::string file = writeFile(*m_files, "big.patch", m_patch);
    const Repository r = Repository::open(m_repo->root());
    try {
        r.resolvePatch("PATCH:" + file, r.resolve(m_base), 4096);
        QFAIL("a patch over the cap was read");
    } catch (const Error &e) {
        QCOMPARE(e.kind(), Error::Kind::Input);
        QVERIFY2(qs(e.what()).contains(qs(file +
                                          ": the patch file is larger than "
                                          "`patch_max_bytes` (4096 bytes): " +
                                          std::to_string(m_patch.size()) + " bytes")),
                 e.what());
    }
}

// The cap comes from the configuration, so CI can raise it for a repository of large
// assets (and the audit refuses with exit 3 over it).
void TstPatchInput::tooLargeFromConfig()
{
    const std::string file = writeFile(*m_files, "big.patch", m_patch);
    const std::string config = writeFile(*m_files, "config.toml", "patch_max_bytes = 4096\n");
    const CliResult r =
        audit(m_repo->root(), m_base, "PATCH:" + file, {QStringLiteral("--config"), qs(config)});
    QVERIFY(r.finished);
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains(qs(file) + QStringLiteral(": the patch file is larger than "
                                                      "`patch_max_bytes` (4096 bytes)")),
             qPrintable(r.err));
}

// A review target opened again on another thread (the runs, the ledger desk's lookups)
// applies a PATCH head again with the target's cap, not the default one: a cap raised for a
// repository of large assets holds there too, and a lower one refuses there too.
void TstPatchInput::reopenKeepsTheTargetsCap()
{
    const std::string file = writeFile(*m_files, "big.patch", m_patch);
    pw::core::AuditRequest request;
    request.repoPath = m_repo->root();
    request.base = m_base;
    request.head = "PATCH:" + file;
    request.python = pw::test::testPython();
    const pw::core::PreparedReview review = pw::core::PreparedReview::prepare(request);
    QCOMPARE(pw::core::PreparedReview::reopen(review.target()).head().tree, review.head().tree);

    pw::core::ReviewTarget capped = review.target();
    capped.config.patchMaxBytes = 4096;
    try {
        (void)pw::core::PreparedReview::reopen(capped);
        QFAIL("a patch over the target's cap was applied again");
    } catch (const Error &e) {
        QCOMPARE(e.kind(), Error::Kind::Input);
        QVERIFY2(qs(e.what()).contains(qs(file + ": the patch file is larger than "
                                                 "`patch_max_bytes` (4096 bytes)")),
                 e.what());
    }
}

// A few hundred bytes of patch that inflate to 100 000: the size a literal declares is
// held to the cap too, before anything is inflated into memory.
void TstPatchInput::binaryDeclaresOverCap()
{
    const std::string zeros = gitDiff({"zeros.bin"});
    QVERIFY(zeros.size() < 4096);
    const std::string file = writeFile(*m_files, "zeros.patch", zeros);
    const size_t header = find(linesOf(zeros), "literal 100000") + 1;
    const Repository r = Repository::open(m_repo->root());
    try {
        r.resolvePatch("PATCH:" + file, r.resolve(m_base), 4096);
        QFAIL("a binary hunk over the cap was applied");
    } catch (const Error &e) {
        QVERIFY2(qs(e.what()).contains(qs(file + ": corrupt binary patch at line " +
                                          std::to_string(header) +
                                          ": the binary hunk declares 100000 bytes, over "
                                          "`patch_max_bytes` (4096)")),
                 e.what());
    }
    // Under the default cap it applies.
    QVERIFY(!r.resolvePatch("PATCH:" + file, r.resolve(m_base)).tree.empty());
}

void TstPatchInput::corruptBinary_data()
{
    QTest::addColumn<Mutation>("mutate");
    QTest::addColumn<QString>("fragment");
    // Lines (0-based) of blob.bin's forward literal: its header and its last data line.
    const std::vector<std::string> lines = linesOf(m_patch);
    const size_t blob = find(lines, "diff --git a/blob.bin b/blob.bin");
    const size_t header = find(lines, "literal 3000", blob);
    const size_t last = find(lines, "", header) - 1;
    const size_t pic = find(lines, "diff --git a/pic.bin b/pic.bin");
    const size_t deltaHeader = findPrefix(lines, "delta ", pic);
    QVERIFY(last > header + 8);
    QCOMPARE(lines[header + 2][0], 'z');              // a full line: 52 bytes
    auto at = [](size_t index) { return index + 1; }; // 1-based line of the file

    QTest::newRow("last base85 line dropped (libgit2 hangs)") << Mutation([=](auto &l) {
        l.erase(l.begin() + long(last));
        return at(last - 1);
    }) << "the compressed data stops before its end: a base85 line is missing or cut short";
    // Incompressible data is stored, not coded: zlib sees the stream end early.
    QTest::newRow("middle base85 line dropped") << Mutation([=](auto &l) {
        l.erase(l.begin() + long(header + 4));
        return at(last - 1);
    }) << "the compressed data stops before its end";
    QTest::newRow("a line cut short")
        << Mutation([=](auto &l) {
               l[header + 3].resize(l[header + 3].size() - 5);
               return at(header + 3);
           })
        << "the line has 60 base85 characters where its length character 'z' (52 bytes) "
           "needs 65: the line is cut short";
    QTest::newRow("length character too large for the last line")
        << Mutation([=](auto &l) {
               l[last][0] = 'z';
               return at(last);
           })
        << "the line has 60 base85 characters where its length character 'z' (52 bytes) "
           "needs 65: the line is cut short";
    QTest::newRow("length character one too small") << Mutation([=](auto &l) {
        l[header + 2][0] = 'y'; // 51 bytes: the same 65 characters, one byte dropped
        return at(last);
    }) << "the compressed data stops before its end";
    QTest::newRow("not a length character") << Mutation([=](auto &l) {
        l[header + 2][0] = '7';
        return at(header + 2);
    }) << "a data line must start with a length character (A-Z, a-z), not '7'";
    QTest::newRow("character outside base85") << Mutation([=](auto &l) {
        l[header + 5][10] = '"';
        return at(header + 5);
    }) << "invalid base85 character '\"' at column 11";
    QTest::newRow("base85 group over 32 bits") << Mutation([=](auto &l) {
        l[header + 1].replace(1, 5, "~~~~~");
        return at(header + 1);
    }) << "invalid base85 group at column 2 (more than 32 bits)";
    QTest::newRow("declared size too small") << Mutation([=](auto &l) {
        l[header] = "literal 2999";
        return at(header);
    }) << "the data inflates to more than the 2999 bytes this line declares";
    QTest::newRow("declared size too large") << Mutation([=](auto &l) {
        l[header] = "literal 3001";
        return at(header);
    }) << "the data inflates to 3000 bytes, not the 3001 this line declares";
    QTest::newRow("data after the end of the stream") << Mutation([=](auto &l) {
        l.insert(l.begin() + long(last + 1), l[header + 1]);
        return at(last + 1);
    }) << "data after the end of the compressed stream";
    QTest::newRow("literal relabelled delta") << Mutation([=](auto &l) {
        l[header] = "delta 3000";
        return at(header);
    }) << "the delta";
    // libgit2 applies the reverse side to the result as a check: it fails, and the message
    // names the block.
    QTest::newRow("delta relabelled literal (inflates fine)") << Mutation([=](auto &l) {
        l[deltaHeader].replace(0, 5, "literal");
        return at(deltaHeader - 1);
    }) << "'pic.bin' (binary patch at line %1): failed to apply delta";
    // Valid data of the wrong content: the reverse side agrees, only the index line's id
    // tells (as in git apply).
    QTest::newRow("forward literal replaced by the reverse one") << Mutation([=](auto &l) {
        const size_t reverse = last + 2;
        const size_t end = find(l, "", reverse);
        std::vector<std::string> old(l.begin() + long(reverse), l.begin() + long(end));
        l.erase(l.begin() + long(header), l.begin() + long(last + 1));
        l.insert(l.begin() + long(header), old.begin(), old.end());
        return at(header - 1);
    }) << "@: corrupt binary patch at line %1: applied, it makes 'blob.bin' with id";
    QTest::newRow("reverse side missing") << Mutation([=](auto &l) {
        const size_t reverse = last + 2;
        const size_t end = find(l, "", reverse);
        l.erase(l.begin() + long(reverse), l.begin() + long(end + 1));
        return at(reverse); // the next file's header where 'literal' or 'delta' should be
    }) << "expected 'literal <size>' or 'delta <size>'";
}

void TstPatchInput::corruptBinary()
{
    QFETCH(Mutation, mutate);
    QFETCH(QString, fragment);
    std::vector<std::string> lines = linesOf(m_patch);
    const size_t line = mutate(lines);
    const std::string file = writeFile(*m_files, "corrupt.patch", joined(lines));
    const CliResult r = audit(m_repo->root(), m_base, "PATCH:" + file);
    QVERIFY2(r.finished, "patchwitness-cli did not finish within 30 s");
    QCOMPARE(r.code, 3);
    // "@: corrupt binary patch at line %1: " before the reason, unless the row places the
    // line itself (%1; "@" the file).
    if (!fragment.contains(QLatin1String("%1")))
        fragment = QStringLiteral("@: corrupt binary patch at line %1: ") + fragment;
    fragment = fragment.arg(line).replace(QLatin1Char('@'), qs(file));
    QVERIFY2(r.err.contains(fragment),
             qPrintable(QStringLiteral("'%1' not in: %2").arg(fragment, r.err)));
}

void TstPatchInput::corruptHeader_data()
{
    QTest::addColumn<QString>("index");      // replaces line 2 of a.txt's diff
    QTest::addColumn<QString>("afterPaths"); // inserted after its "+++" line
    QTest::addColumn<QString>("fragment");
    const QString keep = QStringLiteral("index 1234567..89abcde 100644");
    // libgit2 refuses these three without a message.
    QTest::newRow("no '..'") << "index 1234567" << QString()
                             << "the index line 'index 1234567' has no '..' between the old and "
                                "the new id at line 2";
    QTest::newRow("one '.'") << "index 1234567.89abcde 100644" << QString()
                             << "the index line 'index 1234567.89abcde 100644' has no '..' "
                                "between the old and the new id at line 2";
    QTest::newRow("mode not a number") << "index 1234567..89abcde x100644" << QString()
                                       << "invalid file mode at line 2"; // libgit2's reason
    QTest::newRow("id longer than 40 digits")
        << "index " + QString(41, QLatin1Char('a')) + "..89abcde 100644" << QString()
        << "invalid object id '" + QString(41, QLatin1Char('a')) +
               "' in the index line (4 to 40 hex digits) at line 2";
    QTest::newRow("old mode not a number")
        << "old mode abc" << QString() << "invalid file mode at line 2";
    // Refused before libgit2 reads them: it leaked the first path of a repeated rename or
    // copy line (found by fuzzing; tests/fuzz/corpus/fuzz_patchfile). Every line that sets
    // the same property counts, and libgit2 reads header lines after "+++" too.
    QTest::newRow("rename from twice")
        << "rename from a.txt\nrename from b.txt" << QString()
        << "'rename from' appears twice in one file's header (git writes it once) at line 3";
    QTest::newRow("index twice") << keep + "\n" + keep << QString()
                                 << "'index' appears twice in one file's header (git writes it "
                                    "once) at line 3";
    QTest::newRow("copy from after rename from")
        << "similarity index 90%\nrename from a.txt\ncopy from a.txt" << QString()
        << "'copy from' after 'rename from' in one file's header (both set the same; git "
           "writes one of them) at line 4";
    QTest::newRow("rename new after copy to")
        << "copy to b.txt\nrename new b.txt" << QString()
        << "'rename new' after 'copy to' in one file's header (both set the same; git writes "
           "one of them) at line 3";
    QTest::newRow("similarity and dissimilarity")
        << "dissimilarity index 10%\nsimilarity index 90%" << QString()
        << "'similarity index' after 'dissimilarity index' in one file's header (both set the "
           "same; git writes one of them) at line 3";
    QTest::newRow("rename lines after the paths")
        << keep
        << "similarity index 90%\nrename from a.txt\nrename to b.txt\nsimilarity index "
           "90%\nrename from a.txt\nrename to b.txt"
        << "'similarity index' appears twice in one file's header (git writes it once) at line 8";
}

void TstPatchInput::corruptHeader()
{
    QFETCH(QString, index);
    QFETCH(QString, afterPaths);
    QFETCH(QString, fragment);
    std::vector<std::string> lines = linesOf(gitDiff({"a.txt"}));
    QVERIFY(lines.at(1).starts_with("index "));
    QVERIFY(lines.at(3).starts_with("+++ "));
    if (!afterPaths.isEmpty())
        lines.insert(lines.begin() + 4, afterPaths.toStdString());
    lines[1] = index.toStdString();
    const std::string file = writeFile(*m_files, "header.patch", joined(lines));
    const Repository r = Repository::open(m_repo->root());
    try {
        r.resolvePatch("PATCH:" + file, r.resolve(m_base));
        QFAIL("a corrupt header was accepted");
    } catch (const Error &e) {
        QCOMPARE(e.kind(), Error::Kind::Input);
        QVERIFY2(qs(e.what()).contains(qs(file) + QStringLiteral(": not a patch git can read: ")),
                 e.what());
        QVERIFY2(qs(e.what()).contains(fragment), e.what());
    }
}

// libgit2 read past its copy of a hunk line holding a NUL (ASan, found by fuzzing).
void TstPatchInput::nulByteInHunk()
{
    std::vector<std::string> lines = linesOf(gitDiff({"a.txt"}));
    QCOMPARE(lines.at(7), std::string("+TWO"));
    lines[7] = std::string("+T\0\0WO", 7);
    const std::string file = writeFile(*m_files, "nul.patch", joined(lines));
    const Repository r = Repository::open(m_repo->root());
    try {
        r.resolvePatch("PATCH:" + file, r.resolve(m_base));
        QFAIL("a hunk line with a NUL byte was applied");
    } catch (const Error &e) {
        QCOMPARE(e.kind(), Error::Kind::Input);
        QVERIFY2(qs(e.what()).contains(qs(file + ": a NUL byte at line 8: a patch is text")),
                 e.what());
    }
}

// Only a file's diff holds binary blocks: a mail may quote the words before its diff.
void TstPatchInput::binaryWordsInAMessageAreText()
{
    const std::string mail =
        "From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n"
        "From: Agent <agent@example.com>\n"
        "Subject: [PATCH] Explain\n"
        "\n"
        "The old tool printed\n"
        "GIT binary patch\n"
        "here, and nothing after it.\n"
        "---\n" +
        gitDiff({"a.txt"}) + "-- \n2.39.2\n";
    const std::string file = writeFile(*m_files, "words.mbox", mail);
    const Repository r = Repository::open(m_repo->root());
    const Revision patched = r.resolvePatch("PATCH:" + file, r.resolve(m_base));
    QCOMPARE(r.readFile(patched, "a.txt"), std::string("one\nTWO\n"));
}

QTEST_GUILESS_MAIN(TstPatchInput)
#include "tst_patchinput.moc"
