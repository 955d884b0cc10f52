// Which waiver or freeze answers a census row (core/dynamic/CensusClassifier: CensusLedgers),
// from the ledgers as the audit's ledger gate counts them (CountingLedgers) on a real git
// repository, without pytest: the audit's rules for a removed function (a waiver of it or of
// its file), a removed file (a waiver of the file, or one for each of its tests), a test the
// head still defines (no removal a waiver answers), and a freeze for a skip marked at
// collection or seen only by a run.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "audit/LedgerGate.h"
#include "dynamic/CensusClassifier.h"
#include "python/FactExtractor.h"
#include "repo/Repository.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

std::string waiver(const std::string &node)
{
    return "[[waiver]]\nnode = \"" + node +
           "\"\nreason = \"duplicate-coverage\"\nwitness = \"tests/test_w.py::test_w\"\n"
           "approved_by = \"bob\"\napproved_on = 2024-05-02\n\n";
}

std::string freeze(const std::string &test, const std::string &substitute, const std::string &guard)
{
    return "[[quarantine]]\ntest = \"" + test +
           "\"\nowner = \"alice\"\nopened = 2024-05-01\nexpires = 2024-05-14\n"
           "verdict = \"PRE_EXISTING\"\nattribution = \"order\"\nwitness_seed = 7\n"
           "baseline_sha = \"0123456789abcdef\"\nevidence = { base_fail = 3, head_fail = 3, "
           "mode = \"matched\", seeds = [7], env_digest = \"abcd1234abcd1234\" }\n"
           "obligation = \"it still adds\"\nsubstitute = \"" +
           substitute + "\"\nguards = [\"" + guard + "\"]\nreplay = \"pytest " + test + "\"\n\n";
}

std::string twoTests(const char *a, const char *b)
{
    return std::string("def ") + a + "():\n    assert True\n\n\ndef " + b +
           "():\n    assert True\n";
}

} // namespace

class TstCensusLedgers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void waiversAnswerRemovalsAsTheAuditCounts();
};

void TstCensusLedgers::waiversAnswerRemovalsAsTheAuditCounts()
{
    QTemporaryDir cache;
    RepoBuilder repo;
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n"); // guarded by a freeze
    repo.write("src/other.py", "x = 1\n");
    repo.write("tests/test_w.py", "def test_w():\n    assert True\n");
    repo.write("tests/test_a.py", twoTests("test_1", "test_2")); // removed, one test waived
    repo.write("tests/test_c.py", twoTests("test_5", "test_6")); // removed, the file waived
    repo.write("tests/test_d.py", twoTests("test_7", "test_8")); // removed, both waived
    repo.write("tests/test_b.py", twoTests("test_3", "test_4")); // test_3 removed
    repo.write(".patchwitness/census_waiver.toml",
               waiver("tests/test_a.py::test_1") + waiver("tests/test_c.py") +
                   waiver("tests/test_d.py::test_7") + waiver("tests/test_d.py::test_8") +
                   waiver("tests/test_b.py::test_3") + waiver("tests/test_b.py::test_4"));
    repo.write(".patchwitness/quarantine.toml",
               freeze("tests/test_b.py::test_4", "tests/test_w.py::test_w", "src/calc.py") +
                   freeze("tests/test_w.py::test_w", "tests/test_b.py::test_4", "src/other.py"));
    const std::string b = repo.commit("base");
    repo.remove("tests/test_a.py");
    repo.remove("tests/test_c.py");
    repo.remove("tests/test_d.py");
    repo.write("tests/test_b.py", "def test_4():\n    assert True\n");
    // The patch edits the guard of test_w's freeze: that freeze no longer counts.
    repo.write("src/other.py", "x = 2\n");
    const std::string h = repo.commit("head");

    const Repository r = Repository::open(repo.root());
    const Revision base = r.resolve(b);
    const Revision head = r.resolve(h);
    DiffOptions options;
    options.contextLines = 0;
    const PatchDiff diff = r.diff(base, head, options);
    const Config config;
    FactExtractor extractor(pw::test::testPython(), cache.path().toStdString());
    CountingLedgers counting = CountingLedgers::compute(
        {r, base, head, diff, config, ".patchwitness/", ".patchwitness", "2024-05-10", extractor});
    std::string problems;
    for (const LedgerProblem &p : counting.problems())
        problems += p.toString() + "\n";
    QVERIFY2(counting.problems().size() == 1, problems.c_str()); // test_w's guard is edited
    QCOMPARE(counting.problems().front().entry, std::string("tests/test_w.py::test_w"));
    QVERIFY(!counting.validFreeze("tests/test_w.py::test_w"));

    CensusRemovals removals;
    for (const char *file : {"tests/test_a.py", "tests/test_c.py", "tests/test_d.py"}) {
        const std::string f = file;
        const std::string n = f == "tests/test_a.py" ? "12" : f == "tests/test_c.py" ? "56" : "78";
        for (const char c : n)
            removals.baseTests[f].insert(f + "::test_" + c);
        for (const std::string &id : removals.baseTests[f])
            removals.goneAtHead.insert(id);
        removals.filesGoneAtHead.insert(f);
    }
    removals.baseTests["tests/test_b.py"] = {"tests/test_b.py::test_3", "tests/test_b.py::test_4"};
    removals.goneAtHead.insert("tests/test_b.py::test_3"); // test_4 is still defined

    const CensusLedgers ledgers(counting, removals,
                                LedgerSet::loadDirectory(repo.root() + "/.patchwitness"),
                                QDate(2024, 5, 10));
    using Answer = std::optional<std::string>;
    // A removed file: its waiver, or a waiver for each of its tests — one is not enough.
    QCOMPARE(ledgers.waiverFor("tests/test_a.py::test_1", "tests/test_a.py"), Answer());
    QCOMPARE(ledgers.waiverFor("tests/test_a.py::test_2", "tests/test_a.py"), Answer());
    QCOMPARE(ledgers.waiverFor("tests/test_c.py::test_5", "tests/test_c.py"),
             Answer("tests/test_c.py"));
    QCOMPARE(ledgers.waiverFor("tests/test_d.py::test_8", "tests/test_d.py"),
             Answer("tests/test_d.py::test_8"));
    // A function its file no longer defines: its own waiver.
    QCOMPARE(ledgers.waiverFor("tests/test_b.py::test_3", "tests/test_b.py"),
             Answer("tests/test_b.py::test_3"));
    // Still defined at head (only not collected): no removal the audit would see.
    QCOMPARE(ledgers.waiverFor("tests/test_b.py::test_4", "tests/test_b.py"), Answer());
    QCOMPARE(ledgers.witnessOf("tests/test_c.py"), Answer("tests/test_w.py::test_w"));

    // A skip marked at collection: the counting freeze, as the audit's T-SKIP names it; a
    // skip only a run sees: the base freeze active today, with its expiry.
    QCOMPARE(ledgers.freezeFor("tests/test_b.py::test_4", true),
             Answer("quarantine.toml: tests/test_b.py::test_4"));
    QCOMPARE(ledgers.freezeFor("tests/test_b.py::test_4", false),
             Answer("quarantine.toml: tests/test_b.py::test_4 (expires 2024-05-14)"));
    // Not counting (its guard is edited) but active at base: the base freeze still answers.
    QCOMPARE(ledgers.freezeFor("tests/test_w.py::test_w", true),
             Answer("quarantine.toml: tests/test_w.py::test_w (expires 2024-05-14)"));
    QCOMPARE(ledgers.freezeFor("tests/test_b.py::test_3", true), Answer());

    // Ledgers that could not be counted: no waiver answers anything.
    const CensusLedgers uncounted(std::nullopt, removals, LedgerSet(), QDate(2024, 5, 10));
    QCOMPARE(uncounted.waiverFor("tests/test_b.py::test_3", "tests/test_b.py"), Answer());
}

QTEST_GUILESS_MAIN(TstCensusLedgers)
#include "tst_censusledgers.moc"
