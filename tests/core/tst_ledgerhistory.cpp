// Ledger history: the commits that changed a ledger (libgit2 revwalk with a path
// filter), followed across a rename and a deletion of the file, turned into per-entry
// events — added, renewed, edited, expired, removed — with commit, author and date.
#include "RepoBuilder.h"
#include "ledger/LedgerHistory.h"
#include "repo/FileHistory.h"

#include <QtTest>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

std::string freeze(const std::string &test, const std::string &expires,
                   const std::string &extra = {})
{
    return "[[quarantine]]\ntest = \"" + test + "\"\nowner = \"alice\"\nopened = 2023-11-01\n" +
           "expires = " + expires + "\n" + extra + "\n";
}

// "kind entry" rows of the events, e.g. "added tests/t.py::test_a".
QStringList describe(const std::vector<LedgerEvent> &events)
{
    QStringList out;
    for (const LedgerEvent &e : events)
        out << QStringLiteral("%1 %2").arg(QLatin1String(ledgerEventName(e.kind)),
                                           QString::fromStdString(e.entry));
    return out;
}

} // namespace

class TstLedgerHistory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fileHistoryFollowsRenamesAndDeletions();
    void eventsPerEntry();
    void historyAcrossARenameAndADeletion();
    void unreadableVersionsDoNotBreakTheHistory();
    void branchesAreWalkedFromTheGivenRevision();
    void otherLedgers();
};

void TstLedgerHistory::fileHistoryFollowsRenamesAndDeletions()
{
    RepoBuilder repo;
    repo.write("README", "x\n");
    repo.commit("no ledger yet");
    repo.write("ledgers/quarantine.toml", freeze("tests/t.py::test_a", "2023-11-10"));
    const std::string added = repo.commit("add");
    repo.write("src/a.py", "a = 1\n");
    repo.commit("unrelated");
    repo.rename("ledgers/quarantine.toml", ".patchwitness/quarantine.toml");
    const std::string moved = repo.commit("move the ledger");
    repo.write(".patchwitness/quarantine.toml", freeze("tests/t.py::test_a", "2023-11-12") +
                                                    freeze("tests/t.py::test_b", "2023-11-13"));
    const std::string edited = repo.commit("edit");
    repo.remove(".patchwitness/quarantine.toml");
    const std::string removed = repo.commit("delete");
    repo.write("src/a.py", "a = 2\n");
    repo.commit("later");

    const std::vector<FileVersion> v =
        FileHistory::walk(repo.root(), ".patchwitness/quarantine.toml");
    QCOMPARE(int(v.size()), 4);
    QCOMPARE(v[0].commit, removed);
    QVERIFY(v[0].blob.empty()); // deleted
    QCOMPARE(v[1].commit, edited);
    QCOMPARE(v[2].commit, moved);
    QCOMPARE(v[2].path, std::string(".patchwitness/quarantine.toml"));
    QCOMPARE(v[3].commit, added);
    QCOMPARE(v[3].path, std::string("ledgers/quarantine.toml")); // followed the rename
    QCOMPARE(v[3].author, std::string("Test"));
    QCOMPARE(v[3].subject, std::string("add"));
    QVERIFY(v[3].time > 0 && v[3].time < v[2].time);
    // Unborn repositories and unknown paths have no history.
    RepoBuilder empty;
    QVERIFY(FileHistory::walk(empty.root(), ".patchwitness/quarantine.toml").empty());
    QVERIFY(FileHistory::walk(repo.root(), "no/such/file").empty());
}

void TstLedgerHistory::eventsPerEntry()
{
    RepoBuilder repo; // commits are dated 2023-11-14 onwards, a minute apart
    const std::string path = ".patchwitness/quarantine.toml";
    repo.write(path, freeze("tests/t.py::test_a", "2023-11-20") +
                         freeze("tests/t.py::test_b", "2023-11-10"));
    const std::string first = repo.commit("grant two freezes");
    repo.write(path, freeze("tests/t.py::test_a", "2023-11-28",
                            "renewed = 2023-11-14\nlast_reproduced = 2023-11-14") +
                         freeze("tests/t.py::test_b", "2023-11-10", "note = \"owner on leave\""));
    const std::string second = repo.commit("renew a, note on b");
    repo.write(path, freeze("tests/t.py::test_a", "2023-11-28",
                            "renewed = 2023-11-14\nlast_reproduced = 2023-11-14"));
    const std::string third = repo.commit("drop b");

    const std::vector<LedgerEvent> events =
        LedgerHistory::of(repo.root(), path, QDate(2023, 12, 1));
    QCOMPARE(
        describe(events),
        (QStringList{QStringLiteral("expired tests/t.py::test_b"), // 2023-11-10, before the commits
                     QStringLiteral("added tests/t.py::test_a"),
                     QStringLiteral("added tests/t.py::test_b"),
                     QStringLiteral("renewed tests/t.py::test_a"),
                     QStringLiteral("edited tests/t.py::test_b"),
                     QStringLiteral("removed tests/t.py::test_b"),
                     QStringLiteral("expired tests/t.py::test_a")}));
    const LedgerEvent &renewed = events[3];
    QCOMPARE(renewed.commit, second);
    QCOMPARE(renewed.author, std::string("Test"));
    QVERIFY2(QString::fromStdString(renewed.detail)
                 .contains(QLatin1String("expires 2023-11-20 -> 2023-11-28")),
             renewed.detail.c_str());
    QCOMPARE(events[4].detail, std::string("note (none) -> \"owner on leave\""));
    QCOMPARE(events[5].commit, third);
    QCOMPARE(events[0].commit, first); // the version that set the expiry
    QCOMPARE(events[0].detail, std::string("expired on 2023-11-10"));
    QCOMPARE(events[6].detail, std::string("expired on 2023-11-28"));
    QCOMPARE(events[6].commit, second);

    // Before its expiry day nothing has expired yet; one entry's events only.
    const std::vector<LedgerEvent> early =
        LedgerHistory::of(repo.root(), path, QDate(2023, 11, 27));
    QVERIFY(!describe(early).contains(QStringLiteral("expired tests/t.py::test_a")));
    QCOMPARE(describe(LedgerHistory::forEntry(events, "tests/t.py::test_a")),
             (QStringList{QStringLiteral("added tests/t.py::test_a"),
                          QStringLiteral("renewed tests/t.py::test_a"),
                          QStringLiteral("expired tests/t.py::test_a")}));
}

void TstLedgerHistory::historyAcrossARenameAndADeletion()
{
    RepoBuilder repo;
    repo.write("old/quarantine.toml", freeze("tests/t.py::test_a", "2030-01-01"));
    repo.commit("add under old/");
    repo.rename("old/quarantine.toml", ".patchwitness/quarantine.toml");
    repo.commit("move");
    repo.write(".patchwitness/quarantine.toml", freeze("tests/t.py::test_a", "2030-01-01") +
                                                    freeze("tests/t.py::test_c", "2030-01-02"));
    repo.commit("add c");
    repo.remove(".patchwitness/quarantine.toml");
    const std::string deleted = repo.commit("delete the ledger");

    const std::vector<LedgerEvent> events =
        LedgerHistory::of(repo.root(), ".patchwitness/quarantine.toml", QDate(2024, 1, 1));
    QCOMPARE(describe(events),
             (QStringList{QStringLiteral("added tests/t.py::test_a"), // the rename adds nothing
                          QStringLiteral("added tests/t.py::test_c"),
                          QStringLiteral("removed tests/t.py::test_a"),
                          QStringLiteral("removed tests/t.py::test_c")}));
    QCOMPARE(events[0].file, std::string("old/quarantine.toml"));
    QCOMPARE(events[2].commit, deleted);
    QCOMPARE(events[2].file, std::string(".patchwitness/quarantine.toml"));
}

void TstLedgerHistory::unreadableVersionsDoNotBreakTheHistory()
{
    RepoBuilder repo;
    const std::string path = ".patchwitness/quarantine.toml";
    repo.write(path, freeze("tests/t.py::test_a", "2030-01-01"));
    repo.commit("ok");
    repo.write(path, "[[quarantine]\nbroken");
    const std::string broken = repo.commit("broken");
    repo.write(path, freeze("tests/t.py::test_a", "2030-01-01") +
                         freeze("tests/t.py::test_b", "2030-01-01"));
    repo.commit("fixed");
    const std::vector<LedgerEvent> events = LedgerHistory::of(repo.root(), path, QDate(2024, 1, 1));
    QCOMPARE(describe(events),
             (QStringList{QStringLiteral("added tests/t.py::test_a"), QStringLiteral("unreadable "),
                          QStringLiteral("added tests/t.py::test_b")}));
    QCOMPARE(events[1].commit, broken);
    QVERIFY2(QString::fromStdString(events[1].detail)
                 .startsWith(QLatin1String(".patchwitness/quarantine.toml:1:")),
             events[1].detail.c_str());
}

void TstLedgerHistory::branchesAreWalkedFromTheGivenRevision()
{
    RepoBuilder repo;
    const std::string path = ".patchwitness/census_waiver.toml";
    repo.write(path, "[[waiver]]\nnode = \"tests/t.py::test_a\"\n");
    repo.commit("base");
    repo.branch("side");
    repo.write("src/x.py", "x = 1\n");
    repo.commit("main work");
    repo.checkout("side");
    repo.write(
        path,
        "[[waiver]]\nnode = \"tests/t.py::test_a\"\n\n[[waiver]]\nnode = \"tests/t.py::test_b\"\n");
    const std::string sideCommit = repo.commit("waive b on a side branch");
    const std::vector<FileVersion> v = FileHistory::walk(repo.root(), path, "side");
    QCOMPARE(int(v.size()), 2);
    QCOMPARE(v[0].commit, sideCommit);
    const std::vector<LedgerEvent> events =
        LedgerHistory::of(repo.root(), path, QDate(2024, 1, 1), "side");
    QCOMPARE(describe(events), (QStringList{QStringLiteral("added tests/t.py::test_a"),
                                            QStringLiteral("added tests/t.py::test_b")}));
    // Walking main does not see the side branch's change.
    QCOMPARE(int(FileHistory::walk(repo.root(), path, "main").size()), 1);
}

void TstLedgerHistory::otherLedgers()
{
    RepoBuilder repo;
    repo.write(".patchwitness/seed_journal.jsonl",
               "{\"id\": \"j1\", \"seed\": 1, \"env\": \"e\", \"status\": \"open\", \"opened\": "
               "\"2023-11-01\"}\n");
    repo.write(".patchwitness/fixture_digest.json",
               "{\"tests/fixtures/a.json\": \"" + std::string(64, 'a') + "\"}\n");
    repo.commit("journal and digests");
    repo.write(".patchwitness/seed_journal.jsonl",
               "{\"id\": \"j1\", \"seed\": 1, \"env\": \"e\", \"status\": \"closed\", \"opened\": "
               "\"2023-11-01\"}\n");
    repo.commit("close j1");
    const std::vector<LedgerEvent> events =
        LedgerHistory::ofDirectory(repo.root(), ".patchwitness", QDate(2024, 1, 1));
    QCOMPARE(describe(events),
             (QStringList{QStringLiteral("added j1"), QStringLiteral("added tests/fixtures/a.json"),
                          QStringLiteral("edited j1")}));
    QCOMPARE(events[2].detail, std::string("status \"open\" -> \"closed\""));
}

QTEST_GUILESS_MAIN(TstLedgerHistory)
#include "tst_ledgerhistory.moc"
