// CODEOWNERS as GitHub reads it (a freeze's owner pre-filled from it): gitignore-
// like patterns, the last matching rule wins, rules without owners, escapes, lines GitHub
// skips reported as warnings instead of thrown, and the file looked up at a revision in
// GitHub's order (.github/, root, docs/).
#include "RepoBuilder.h"
#include "repo/Codeowners.h"
#include "repo/Repository.h"

#include <QtTest>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

QString ownersText(const std::vector<std::string> &owners)
{
    QStringList out;
    for (const std::string &o : owners)
        out << QString::fromStdString(o);
    return out.join(QLatin1Char(' '));
}

QString firstWarning(const Codeowners &co)
{
    return co.warnings().empty() ? QString() : QString::fromStdString(co.warnings().front());
}

} // namespace

class TstCodeowners : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void ownersOf_data();
    void ownersOf();
    void malformedLinesAreSkippedWithWarnings_data();
    void malformedLinesAreSkippedWithWarnings();
    void commentsBlankLinesAndLineEndings();
    void oversizedFileIsNotRead();
    void loadPrefersGithubDirectory();
    void loadFallsBackToRootThenDocs();
    void loadWithoutFile();
    void loadReadsTheRevisionNotTheDisk();
};

void TstCodeowners::ownersOf_data()
{
    QTest::addColumn<QString>("rules"); // CODEOWNERS text
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("owners"); // space-separated; empty: no owner

    const QString docsRules = QStringLiteral("docs/* @docs\n");
    QTest::newRow("* owns everything") << "* @all\n"
                                       << "src/deep/x.py"
                                       << "@all";
    QTest::newRow("* owns root files") << "* @all\n"
                                       << "README.md"
                                       << "@all";
    QTest::newRow("several owners in order") << "* @b @a dev@example.com\n"
                                             << "x"
                                             << "@b @a dev@example.com";
    QTest::newRow("team owner") << "* @octo-org/core_team\n"
                                << "x"
                                << "@octo-org/core_team";
    QTest::newRow("last match wins") << "* @all\n*.py @py\n"
                                     << "src/x.py"
                                     << "@py";
    QTest::newRow("earlier rule when the later does not match") << "* @all\n*.py @py\n"
                                                                << "src/x.js"
                                                                << "@all";
    QTest::newRow("order matters: later general rule overrides") << "*.py @py\n* @all\n"
                                                                 << "src/x.py"
                                                                 << "@all";
    QTest::newRow("no match") << "*.py @py\n"
                              << "src/x.js"
                              << "";
    QTest::newRow("extension at any depth") << "*.js @js\n"
                                            << "a/b/c/d.js"
                                            << "@js";
    QTest::newRow("name without slash at any depth") << "conftest.py @qa\n"
                                                     << "tests/unit/conftest.py"
                                                     << "@qa";
    QTest::newRow("name without slash matches a directory anywhere") << "build @b\n"
                                                                     << "src/build/out.txt"
                                                                     << "@b";
    QTest::newRow("anchored at root") << "/build @b\n"
                                      << "build/out.txt"
                                      << "@b";
    QTest::newRow("anchored at root: not deeper") << "/build @b\n"
                                                  << "src/build/out.txt"
                                                  << "";
    QTest::newRow("anchored file at root") << "/setup.py @rel\n"
                                           << "setup.py"
                                           << "@rel";
    QTest::newRow("anchored file: not the same name deeper") << "/setup.py @rel\n"
                                                             << "pkg/setup.py"
                                                             << "";
    QTest::newRow("trailing slash: directory anywhere") << "apps/ @apps\n"
                                                        << "x/apps/a.js"
                                                        << "@apps";
    QTest::newRow("trailing slash: directory at root") << "apps/ @apps\n"
                                                       << "apps/a.js"
                                                       << "@apps";
    QTest::newRow("trailing slash: nested below") << "apps/ @apps\n"
                                                  << "apps/a/b/c.js"
                                                  << "@apps";
    QTest::newRow("trailing slash: not a file of that name") << "apps/ @apps\n"
                                                             << "x/apps"
                                                             << "";
    QTest::newRow("leading and trailing slash") << "/build/logs/ @logs\n"
                                                << "build/logs/a/b.log"
                                                << "@logs";
    QTest::newRow("leading and trailing slash: not elsewhere") << "/build/logs/ @logs\n"
                                                               << "x/build/logs/b.log"
                                                               << "";
    QTest::newRow("middle slash anchors") << "docs/build @d\n"
                                          << "docs/build/x.html"
                                          << "@d";
    QTest::newRow("middle slash anchors: not deeper") << "docs/build @d\n"
                                                      << "a/docs/build/x.html"
                                                      << "";
    QTest::newRow("docs/* owns direct files") << docsRules << "docs/getting-started.md"
                                              << "@docs";
    QTest::newRow("docs/* does not own nested files")
        << docsRules << "docs/build-app/troubleshooting.md"
        << "";
    QTest::newRow("docs/* is anchored") << docsRules << "x/docs/a.md"
                                        << "";
    QTest::newRow("/* owns root files only") << "/* @root\n"
                                             << "setup.py"
                                             << "@root";
    QTest::newRow("/* not nested files") << "/* @root\n"
                                         << "src/setup.py"
                                         << "";
    QTest::newRow("star does not cross a slash") << "/src/*.py @s\n"
                                                 << "src/a/b.py"
                                                 << "";
    QTest::newRow("star within a segment") << "/src/*.py @s\n"
                                           << "src/b.py"
                                           << "@s";
    QTest::newRow("double star crosses directories") << "/src/**/*.py @s\n"
                                                     << "src/a/b/c.py"
                                                     << "@s";
    QTest::newRow("double star matches zero directories") << "/src/**/*.py @s\n"
                                                          << "src/c.py"
                                                          << "@s";
    QTest::newRow("leading double star") << "**/logs @l\n"
                                         << "deep/er/logs/x.log"
                                         << "@l";
    QTest::newRow("trailing double star") << "docs/** @d\n"
                                          << "docs/a/b/c.md"
                                          << "@d";
    QTest::newRow("trailing double star: not the sibling") << "docs/** @d\n"
                                                           << "docsx/a.md"
                                                           << "";
    QTest::newRow("question mark") << "/v?.txt @v\n"
                                   << "v1.txt"
                                   << "@v";
    QTest::newRow("question mark is one character") << "/v?.txt @v\n"
                                                    << "v10.txt"
                                                    << "";
    QTest::newRow("directory pattern owns everything under it") << "/src/pkg @p\n"
                                                                << "src/pkg/a/b/c.py"
                                                                << "@p";
    QTest::newRow("a prefix is not a directory") << "/src/pkg @p\n"
                                                 << "src/pkgx/a.py"
                                                 << "";
    QTest::newRow("rule without owners: nobody") << "* @all\n/vendor/ \n"
                                                 << "vendor/lib.py"
                                                 << "";
    QTest::newRow("rule without owners: others keep theirs") << "* @all\n/vendor/\n"
                                                             << "src/lib.py"
                                                             << "@all";
    QTest::newRow("owners after a rule without owners") << "* @all\n/vendor/\n/vendor/ours/ @us\n"
                                                        << "vendor/ours/x.py"
                                                        << "@us";
    QTest::newRow("escaped # starts a pattern") << "\\#notes.md @n\n"
                                                << "#notes.md"
                                                << "@n";
    QTest::newRow("escaped # at any depth") << "\\#notes.md @n\n"
                                            << "a/#notes.md"
                                            << "@n";
    QTest::newRow("escaped space in a pattern") << "/my\\ file.txt @s\n"
                                                << "my file.txt"
                                                << "@s";
    QTest::newRow("escaped star is literal") << "/a\\*.txt @s\n"
                                             << "a*.txt"
                                             << "@s";
    QTest::newRow("escaped star matches only itself") << "/a\\*.txt @s\n"
                                                      << "ab.txt"
                                                      << "";
    QTest::newRow("trailing comment after owners") << "*.py @py # python\n"
                                                   << "a.py"
                                                   << "@py";
    QTest::newRow("tabs between fields") << "*.py\t@py\t@qa\n"
                                         << "a.py"
                                         << "@py @qa";
    QTest::newRow("indented rule") << "   *.py @py\n"
                                   << "a.py"
                                   << "@py";
    QTest::newRow("matching is case-sensitive") << "*.PY @py\n"
                                                << "a.py"
                                                << "";
    QTest::newRow("dot files") << "/.github/ @ops\n"
                               << ".github/workflows/ci.yml"
                               << "@ops";
    QTest::newRow("path given with ./") << "/src/ @s\n"
                                        << "./src/a.py"
                                        << "@s";
    QTest::newRow("bare slash owns everything") << "/ @root\n"
                                                << "a/b.py"
                                                << "@root";
}

void TstCodeowners::ownersOf()
{
    QFETCH(QString, rules);
    QFETCH(QString, path);
    QFETCH(QString, owners);
    const Codeowners co = Codeowners::parse(rules.toStdString(), "CODEOWNERS");
    QVERIFY2(co.warnings().empty(), qPrintable(firstWarning(co)));
    QCOMPARE(ownersText(co.ownersOf(path.toStdString())), owners);
}

void TstCodeowners::malformedLinesAreSkippedWithWarnings_data()
{
    QTest::addColumn<QString>("line");    // the second line, between two valid rules
    QTest::addColumn<QString>("warning"); // part of the warning for line 2
    QTest::newRow("negation") << "!/src/keep.py @x"
                              << "negation (!) is not supported";
    QTest::newRow("character range") << "/src/[ab].py @x"
                                     << "character ranges ([ ]) are not supported";
    QTest::newRow("owner without @") << "/src/ octocat"
                                     << "'octocat' is not an owner";
    QTest::newRow("empty team") << "/src/ @org/"
                                << "'@org/' is not an owner";
    QTest::newRow("bare @") << "/src/ @"
                            << "'@' is not an owner";
    QTest::newRow("e-mail without domain") << "/src/ dev@"
                                           << "'dev@' is not an owner";
    QTest::newRow("unfinished escape") << "/src\\"
                                       << "unfinished escape";
}

void TstCodeowners::malformedLinesAreSkippedWithWarnings()
{
    QFETCH(QString, line);
    QFETCH(QString, warning);
    const std::string text = "* @all\n" + line.toStdString() + "\n/docs/ @docs\n";
    Codeowners co;
    try {
        co = Codeowners::parse(text, ".github/CODEOWNERS");
    } catch (...) {
        QFAIL("a malformed line must never throw");
    }
    QCOMPARE(co.warnings().size(), size_t(1));
    const QString w = QString::fromStdString(co.warnings().front());
    QVERIFY2(w.startsWith(QLatin1String(".github/CODEOWNERS:2: ")), qPrintable(w));
    QVERIFY2(w.contains(warning), qPrintable(w));
    // The skipped line owns nothing; the lines around it still work.
    QCOMPARE(ownersText(co.ownersOf("src/keep.py")), QStringLiteral("@all"));
    QCOMPARE(ownersText(co.ownersOf("src/a.py")), QStringLiteral("@all"));
    QCOMPARE(ownersText(co.ownersOf("docs/x.md")), QStringLiteral("@docs"));
}

void TstCodeowners::commentsBlankLinesAndLineEndings()
{
    const std::string text = "# Owners of this repository\r\n"
                             "\r\n"
                             "   # indented comment @nobody\r\n"
                             "*.py @py\r\n"
                             "\t\r\n"
                             "/docs/ @docs";
    const Codeowners co = Codeowners::parse(text, "CODEOWNERS");
    QVERIFY(co.warnings().empty());
    QCOMPARE(co.file(), std::string("CODEOWNERS"));
    QCOMPARE(ownersText(co.ownersOf("a.py")), QStringLiteral("@py"));
    QCOMPARE(ownersText(co.ownersOf("docs/a.md")), QStringLiteral("@docs"));
    QCOMPARE(ownersText(co.ownersOf("README")), QString());
}

void TstCodeowners::oversizedFileIsNotRead()
{
    std::string text = "* @all\n";
    text += std::string(Codeowners::kMaxFileSize, '#');
    const Codeowners co = Codeowners::parse(text, "CODEOWNERS");
    QVERIFY(co.empty());
    QCOMPARE(co.warnings().size(), size_t(1));
    QVERIFY(co.warnings().front().find("3 MB") != std::string::npos);
    QVERIFY(co.ownersOf("a.py").empty());
}

void TstCodeowners::loadPrefersGithubDirectory()
{
    RepoBuilder repo;
    repo.write("CODEOWNERS", "* @root-file\n");
    repo.write("docs/CODEOWNERS", "* @docs-file\n");
    repo.write(".github/CODEOWNERS", "* @github-file\n/src/ @src\n");
    repo.write("src/a.py", "a = 1\n");
    repo.commit("owners");
    const Repository r = Repository::open(repo.root());
    const Codeowners co = Codeowners::load(r, r.resolve("HEAD"));
    QCOMPARE(co.file(), std::string(".github/CODEOWNERS"));
    QCOMPARE(ownersText(co.ownersOf("src/a.py")), QStringLiteral("@src"));
    QCOMPARE(ownersText(co.ownersOf("README")), QStringLiteral("@github-file"));
}

void TstCodeowners::loadFallsBackToRootThenDocs()
{
    RepoBuilder repo;
    repo.write("docs/CODEOWNERS", "* @docs-file\n");
    repo.write("CODEOWNERS", "* @root-file\n!bad @x\n");
    const std::string both = repo.commit("root and docs");
    repo.remove("CODEOWNERS");
    const std::string docsOnly = repo.commit("docs only");
    const Repository r = Repository::open(repo.root());

    const Codeowners root = Codeowners::load(r, r.resolve(both));
    QCOMPARE(root.file(), std::string("CODEOWNERS"));
    QCOMPARE(ownersText(root.ownersOf("x.py")), QStringLiteral("@root-file"));
    QCOMPARE(root.warnings().size(), size_t(1));
    QVERIFY2(root.warnings().front().starts_with("CODEOWNERS:2: "),
             root.warnings().front().c_str());

    const Codeowners docs = Codeowners::load(r, r.resolve(docsOnly));
    QCOMPARE(docs.file(), std::string("docs/CODEOWNERS"));
    QCOMPARE(ownersText(docs.ownersOf("x.py")), QStringLiteral("@docs-file"));
}

void TstCodeowners::loadWithoutFile()
{
    RepoBuilder repo;
    repo.write("src/a.py", "a = 1\n");
    repo.commit("no owners");
    const Repository r = Repository::open(repo.root());
    const Codeowners co = Codeowners::load(r, r.resolve("HEAD"));
    QVERIFY(co.file().empty());
    QVERIFY(co.empty());
    QVERIFY(co.warnings().empty());
    QVERIFY(co.ownersOf("src/a.py").empty());

    RepoBuilder unborn;
    const Repository u = Repository::open(unborn.root());
    QVERIFY(Codeowners::load(u, u.defaultHead()).file().empty());
}

void TstCodeowners::loadReadsTheRevisionNotTheDisk()
{
    RepoBuilder repo;
    repo.write("CODEOWNERS", "* @committed\n");
    const std::string base = repo.commit("owners");
    repo.write(".github/CODEOWNERS", "* @uncommitted\n");
    const Repository r = Repository::open(repo.root());
    QCOMPARE(ownersText(Codeowners::load(r, r.resolve(base)).ownersOf("a")),
             QStringLiteral("@committed"));
    const Codeowners worktree = Codeowners::load(r, r.resolve("WORKTREE"));
    QCOMPARE(worktree.file(), std::string(".github/CODEOWNERS"));
    QCOMPARE(ownersText(worktree.ownersOf("a")), QStringLiteral("@uncommitted"));
}

QTEST_GUILESS_MAIN(TstCodeowners)
#include "tst_codeowners.moc"
