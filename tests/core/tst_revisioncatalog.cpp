// The revisions the base/head pickers offer: WORKTREE, branches, remote
// branches, tags and recent commits, with the default base and head.
#include "RepoBuilder.h"
#include "repo/Repository.h"
#include "repo/RevisionCatalog.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

std::vector<RevisionChoice> ofKind(const std::vector<RevisionChoice> &all,
                                   RevisionChoice::Kind kind)
{
    std::vector<RevisionChoice> out;
    for (const RevisionChoice &c : all) {
        if (c.kind == kind)
            out.push_back(c);
    }
    return out;
}

// A remote-tracking branch as `git fetch` leaves it: a loose ref under refs/remotes.
void addRemoteBranch(const RepoBuilder &repo, const std::string &name, const std::string &commit)
{
    const QString path = QString::fromStdString(repo.root() + "/.git/refs/remotes/" + name);
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(commit + "\n"));
}

} // namespace

class TstRevisionCatalog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void groupsInPickerOrder();
    void branchesRemotesAndTags();
    void recentCommitsNewestFirstWithSubjectAndAuthor();
    void recentCommitsAreCapped();
    void worktreeDetailSaysDirtyOrClean();
    void defaultsFollowSpec();
    void rootCommitHasNoDefaultBase();
    void unbornRepositoryOffersOnlyTheWorktree();
    void describeAge_data();
    void describeAge();

private:
    std::unique_ptr<RepoBuilder> m_repo;
    std::string m_c1, m_c2, m_c3;
};

void TstRevisionCatalog::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_repo->write("pkg/calc.py", "def f():\n    return 1\n");
    m_c1 = m_repo->commit("Add calc");
    m_repo->tag("v1.0");
    m_repo->branch("feature/agent");
    m_repo->checkout("feature/agent");
    m_repo->write("tests/test_calc.py", "def test_f():\n    assert True\n");
    m_c2 = m_repo->commit("Add a test\n\nwith a body that is not the subject");
    m_repo->annotatedTag("v2.0-rc", "release candidate");
    m_repo->write("pkg/calc.py", "def f():\n    return 2\n");
    m_c3 = m_repo->commit("Change f");
    addRemoteBranch(*m_repo, "origin/main", m_c1);
}

void TstRevisionCatalog::groupsInPickerOrder()
{
    const Repository repo = Repository::open(m_repo->root());
    const std::vector<RevisionChoice> all = revisionChoices(repo);
    QVERIFY(!all.empty());
    QCOMPARE(all.front().kind, RevisionChoice::Worktree);
    QCOMPARE(all.front().spec, std::string("WORKTREE"));
    QCOMPARE(all.front().label, std::string("WORKTREE"));
    // Kinds never go back: worktree, branches, remote branches, tags, commits.
    for (size_t i = 1; i < all.size(); ++i)
        QVERIFY2(all[i - 1].kind <= all[i].kind, all[i].label.c_str());
}

void TstRevisionCatalog::branchesRemotesAndTags()
{
    const Repository repo = Repository::open(m_repo->root());
    const std::vector<RevisionChoice> all = revisionChoices(repo);

    const auto branches = ofKind(all, RevisionChoice::Branch);
    QCOMPARE(branches.size(), size_t(2));
    QCOMPARE(branches[0].spec, std::string("feature/agent"));
    QCOMPARE(branches[0].label, std::string("feature/agent"));
    QCOMPARE(branches[0].detail, m_c3.substr(0, 7) + " · Change f");
    QCOMPARE(branches[1].spec, std::string("main"));
    QCOMPARE(branches[1].detail, m_c1.substr(0, 7) + " · Add calc");

    const auto remotes = ofKind(all, RevisionChoice::RemoteBranch);
    QCOMPARE(remotes.size(), size_t(1));
    QCOMPARE(remotes[0].spec, std::string("origin/main"));

    const auto tags = ofKind(all, RevisionChoice::Tag);
    QCOMPARE(tags.size(), size_t(2));
    QCOMPARE(tags[0].spec, std::string("v1.0"));
    QCOMPARE(tags[1].spec, std::string("v2.0-rc"));
    // An annotated tag is shown by the commit it points at.
    QCOMPARE(tags[1].detail, m_c2.substr(0, 7) + " · Add a test");
    // Every spec resolves.
    for (const RevisionChoice &c : all)
        QVERIFY2(!repo.resolve(c.spec).spec.empty(), c.spec.c_str());
}

void TstRevisionCatalog::recentCommitsNewestFirstWithSubjectAndAuthor()
{
    const Repository repo = Repository::open(m_repo->root());
    const auto commits = ofKind(revisionChoices(repo), RevisionChoice::Commit);
    QCOMPARE(commits.size(), size_t(3));
    const std::vector<std::string> ids = {m_c3, m_c2, m_c1};
    const std::vector<std::string> subjects = {"Change f", "Add a test", "Add calc"};
    for (size_t i = 0; i < commits.size(); ++i) {
        QCOMPARE(commits[i].spec, ids[i]); // the full id: unambiguous forever
        QCOMPARE(commits[i].label, ids[i].substr(0, 7) + " " + subjects[i]);
        QVERIFY2(commits[i].detail.starts_with("Test · "), commits[i].detail.c_str());
        // RepoBuilder dates its commits in the past: old enough for a date.
        const QString age =
            QString::fromStdString(commits[i].detail).section(QStringLiteral(" · "), 1);
        QVERIFY2(QRegularExpression(QStringLiteral("^(\\d{4}-\\d\\d-\\d\\d|.* ago|just now)$"))
                     .match(age)
                     .hasMatch(),
                 commits[i].detail.c_str());
    }
}

void TstRevisionCatalog::recentCommitsAreCapped()
{
    const Repository repo = Repository::open(m_repo->root());
    QCOMPARE(ofKind(revisionChoices(repo, 2), RevisionChoice::Commit).size(), size_t(2));
    QCOMPARE(ofKind(revisionChoices(repo, 0), RevisionChoice::Commit).size(), size_t(0));
}

void TstRevisionCatalog::worktreeDetailSaysDirtyOrClean()
{
    RepoBuilder b;
    b.write("a.py", "x = 1\n");
    b.commit("one");
    QCOMPARE(revisionChoices(Repository::open(b.root())).front().detail, std::string("clean"));
    b.write("a.py", "x = 2\n");
    QCOMPARE(revisionChoices(Repository::open(b.root())).front().detail,
             std::string("uncommitted changes"));
    b.write("a.py", "x = 1\n");
    b.write("new_untracked.py", "");
    QCOMPARE(revisionChoices(Repository::open(b.root())).front().detail,
             std::string("uncommitted changes"));
}

void TstRevisionCatalog::defaultsFollowSpec()
{
    const Repository repo = Repository::open(m_repo->root());
    QCOMPARE(defaultHeadSpec(repo), std::string("HEAD"));
    // The upstream is unset; origin/main exists and differs from HEAD.
    QCOMPARE(defaultBaseSpec(repo), std::string("merge-base(origin/main,HEAD)"));

    RepoBuilder b;
    b.write("a.py", "x = 1\n");
    b.commit("one");
    b.branch("agent");
    b.checkout("agent");
    b.write("a.py", "x = 2\n");
    {
        // The agent's uncommitted work on the commit main points at: base is HEAD.
        const Repository dirty = Repository::open(b.root());
        QCOMPARE(defaultHeadSpec(dirty), std::string("WORKTREE"));
        QCOMPARE(defaultBaseSpec(dirty), std::string("HEAD"));
    }
    b.commit("agent's first step");
    b.write("a.py", "x = 3\n");
    const Repository dirty = Repository::open(b.root());
    QCOMPARE(defaultHeadSpec(dirty), std::string("WORKTREE"));
    QCOMPARE(defaultBaseSpec(dirty), std::string("merge-base(main,HEAD)"));
}

void TstRevisionCatalog::rootCommitHasNoDefaultBase()
{
    RepoBuilder b;
    b.write("a.py", "x = 1\n");
    b.commit("only");
    const Repository repo = Repository::open(b.root());
    QCOMPARE(defaultHeadSpec(repo), std::string("HEAD"));
    QCOMPARE(defaultBaseSpec(repo), std::string());
}

void TstRevisionCatalog::unbornRepositoryOffersOnlyTheWorktree()
{
    RepoBuilder b;
    b.write("a.py", "x = 1\n");
    const Repository repo = Repository::open(b.root());
    const std::vector<RevisionChoice> all = revisionChoices(repo);
    QCOMPARE(all.size(), size_t(1));
    QCOMPARE(all.front().kind, RevisionChoice::Worktree);
    QCOMPARE(all.front().detail, std::string("uncommitted changes"));
    QCOMPARE(defaultHeadSpec(repo), std::string("WORKTREE"));
    QCOMPARE(defaultBaseSpec(repo), std::string());
}

void TstRevisionCatalog::describeAge_data()
{
    QTest::addColumn<qint64>("age");
    QTest::addColumn<QString>("expected");
    QTest::newRow("seconds") << qint64(30) << QStringLiteral("just now");
    QTest::newRow("one minute") << qint64(61) << QStringLiteral("1 minute ago");
    QTest::newRow("minutes") << qint64(59 * 60) << QStringLiteral("59 minutes ago");
    QTest::newRow("hours") << qint64(5 * 3600 + 7) << QStringLiteral("5 hours ago");
    QTest::newRow("one day") << qint64(86400) << QStringLiteral("1 day ago");
    QTest::newRow("days") << qint64(13 * 86400) << QStringLiteral("13 days ago");
    QTest::newRow("weeks") << qint64(3 * 7 * 86400) << QStringLiteral("3 weeks ago");
    QTest::newRow("months: a date") << qint64(100 * 86400) << QStringLiteral("2023-09-24");
    QTest::newRow("future: a date") << qint64(-3600) << QStringLiteral("2024-01-02");
}

void TstRevisionCatalog::describeAge()
{
    QFETCH(qint64, age);
    QFETCH(QString, expected);
    const int64_t now = 1704153600; // 2024-01-02T00:00:00Z
    QCOMPARE(QString::fromStdString(pw::core::describeAge(now - age, now)), expected);
}

QTEST_GUILESS_MAIN(TstRevisionCatalog)
#include "tst_revisioncatalog.moc"
