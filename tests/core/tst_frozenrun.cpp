// Frozen tests keep running (core/dynamic/FrozenRun, the seeds' FREEZE_GATE): the
// freezes applied to a run's outcomes — an active freeze's failure is frozen, its pass a
// thaw candidate, an expired freeze fails the run, a freeze covers its parametrisations, a
// freeze that is none freezes nothing — the JUnit it writes, and `patchwitness-cli test`
// on a real suite: exit codes, JSON, the JUnit file, nothing skipped.

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/FrozenRun.h"
#include "ledger/QuarantineLedger.h"
#include "util/Files.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using pw::core::FrozenRun;
using pw::core::FrozenRunResult;
using pw::core::NodeOutcome;
using pw::core::Outcome;
using pw::core::QuarantineLedger;
using pw::core::RunResult;
using pw::test::RepoBuilder;

namespace {

// A freeze as quarantine.toml holds it (only what the gate reads matters here).
std::string freeze(const std::string &test, const std::string &opened, const std::string &expires)
{
    return "[[quarantine]]\ntest = \"" + test + "\"\nowner = \"sam\"\nopened = " + opened +
           "\nexpires = " + expires + "\nverdict = \"PRE_EXISTING\"\n\n";
}

RunResult runOf(const std::vector<std::pair<std::string, Outcome>> &nodes)
{
    RunResult r;
    r.status = pw::core::RunStatus::Completed;
    r.exitCode = 1;
    r.harnessError = false;
    for (const auto &[id, outcome] : nodes) {
        NodeOutcome n;
        n.nodeId = id;
        n.outcome = outcome;
        n.message = outcome == Outcome::Fail ? "assert 1 == 2" : "";
        r.outcomes.push_back(n);
    }
    return r;
}

std::string outcomeOf(const FrozenRunResult &r, const std::string &test)
{
    for (const auto &o : r.outcomes)
        if (o.test == test)
            return o.outcome;
    return "(none)";
}

struct Shell
{
    int exitCode = -1;
    QString out, err;
};

Shell cli(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH), args);
    if (!p.waitForFinished(240000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestFrozenRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void freezesApplyToOutcomes();
    void expiredFreezeFailsTheRun();
    void freezesThatAreNoneFreezeNothing();
    void harnessErrorIsNoVerdict();
    void infrastructureCheckCountsUnfrozenFailures();
    void junitKeepsTheFrozenFailuresMessage();
    void cliRunsTheWholeSuite();
};

void TestFrozenRun::freezesApplyToOutcomes()
{
    const QuarantineLedger ledger =
        QuarantineLedger::parse(freeze("t.py::test_broken", "2024-05-01", "2024-05-15") +
                                    freeze("t.py::test_fixed", "2024-05-01", "2024-05-15") +
                                    freeze("t.py::test_param", "2024-05-01", "2024-05-15"),
                                "quarantine.toml");
    const RunResult run = runOf({{"t.py::test_broken", Outcome::Fail},
                                 {"t.py::test_fixed", Outcome::Pass},
                                 {"t.py::test_param[1]", Outcome::Error},
                                 {"t.py::test_parameter", Outcome::Fail}, // not test_param's
                                 {"t.py::test_fine", Outcome::Pass},
                                 {"t.py::test_skip", Outcome::Skipped}});
    const FrozenRunResult r = FrozenRun::apply(run, ledger, QDate(2024, 5, 10));
    QCOMPARE(outcomeOf(r, "t.py::test_broken"), std::string("frozen"));
    QCOMPARE(outcomeOf(r, "t.py::test_fixed"), std::string("thaw-candidate"));
    QCOMPARE(outcomeOf(r, "t.py::test_param[1]"), std::string("frozen"));
    QCOMPARE(outcomeOf(r, "t.py::test_parameter"), std::string("fail"));
    QCOMPARE(outcomeOf(r, "t.py::test_fine"), std::string("pass"));
    QCOMPARE(outcomeOf(r, "t.py::test_skip"), std::string("skipped"));
    QCOMPARE(r.verdict, std::string("fail")); // test_parameter is not frozen
    QVERIFY2(r.outcomes[0].freeze.find("frozen until 2024-05-15 (owner sam), quarantine.toml:1") !=
                 std::string::npos,
             r.outcomes[0].freeze.c_str());

    const FrozenRunResult green = FrozenRun::apply(
        runOf({{"t.py::test_broken", Outcome::Fail}, {"t.py::test_fine", Outcome::Pass}}), ledger,
        QDate(2024, 5, 10));
    QCOMPARE(green.verdict, std::string("pass")); // a frozen failure does not fail the run
    QCOMPARE(green.count("frozen"), 1);
}

void TestFrozenRun::expiredFreezeFailsTheRun()
{
    const QuarantineLedger ledger =
        QuarantineLedger::parse(freeze("t.py::test_broken", "2024-05-01", "2024-05-10") +
                                    freeze("t.py::gone", "2024-04-01", "2024-04-10"),
                                "q.toml");
    // On the day it expires the freeze no longer holds (active: opened <= today < expires).
    const FrozenRunResult r =
        FrozenRun::apply(runOf({{"t.py::test_broken", Outcome::Pass}}), ledger, QDate(2024, 5, 10));
    QCOMPARE(r.verdict, std::string("fail"));
    QCOMPARE(r.expired.size(), size_t(2)); // also the one whose test did not run
    QVERIFY2(r.expired[0].find("t.py::test_broken: the freeze expired on 2024-05-10 (q.toml:1)") ==
                 0,
             r.expired[0].c_str());
    QCOMPARE(outcomeOf(r, "t.py::test_broken"), std::string("pass")); // not frozen any more
    const FrozenRunResult failing =
        FrozenRun::apply(runOf({{"t.py::test_broken", Outcome::Fail}}), ledger, QDate(2024, 5, 10));
    QCOMPARE(outcomeOf(failing, "t.py::test_broken"), std::string("fail"));
}

void TestFrozenRun::freezesThatAreNoneFreezeNothing()
{
    const QuarantineLedger ledger =
        QuarantineLedger::parse("[[quarantine]]\ntest = \"t.py::a\"\nowner = \"sam\"\n\n" +
                                    freeze("t.py::b", "2024-06-01", "2024-06-10"),
                                "q.toml");
    const FrozenRunResult r =
        FrozenRun::apply(runOf({{"t.py::a", Outcome::Fail}, {"t.py::b", Outcome::Fail}}), ledger,
                         QDate(2024, 5, 10));
    QCOMPARE(outcomeOf(r, "t.py::a"), std::string("fail"));
    QCOMPARE(outcomeOf(r, "t.py::b"), std::string("fail")); // opens later
    QCOMPARE(r.notes.size(), size_t(2));
    QCOMPARE(r.verdict, std::string("fail"));
}

void TestFrozenRun::harnessErrorIsNoVerdict()
{
    RunResult run = runOf({{"t.py::a", Outcome::Pass}});
    run.harnessError = true;
    run.harnessReason = "run timed_out";
    const FrozenRunResult r = FrozenRun::apply(run, QuarantineLedger(), QDate(2024, 5, 10));
    QCOMPARE(r.verdict, std::string("harness_error"));
    QCOMPARE(outcomeOf(r, "t.py::a"), std::string("harness_error"));
    QVERIFY(FrozenRun::junit(r).find("<error message=\"run timed_out\"") != std::string::npos);
}

void TestFrozenRun::infrastructureCheckCountsUnfrozenFailures()
{
    const QuarantineLedger ledger =
        QuarantineLedger::parse(freeze("t.py::a", "2024-05-01", "2024-05-15") +
                                    freeze("t.py::b", "2024-05-01", "2024-05-15"),
                                "q.toml");
    std::vector<std::pair<std::string, Outcome>> nodes = {{"t.py::a", Outcome::Fail},
                                                          {"t.py::b", Outcome::Fail},
                                                          {"t.py::c", Outcome::Fail},
                                                          {"t.py::d", Outcome::Pass},
                                                          {"t.py::e", Outcome::Pass}};
    FrozenRunResult r = FrozenRun::apply(runOf(nodes), ledger, QDate(2024, 5, 10));
    QCOMPARE(r.verdict, std::string("fail")); // 1 of 5 unfrozen failures: a result
    nodes[3].second = Outcome::Fail;
    nodes[4].second = Outcome::Fail;
    r = FrozenRun::apply(runOf(nodes), ledger, QDate(2024, 5, 10));
    QCOMPARE(r.verdict, std::string("harness_error")); // 3 of 5: the environment is broken
    QVERIFY2(r.run.harnessReason.find("3 of 5 tests failed that no freeze covers") == 0,
             r.run.harnessReason.c_str());
}

void TestFrozenRun::junitKeepsTheFrozenFailuresMessage()
{
    const QuarantineLedger ledger = QuarantineLedger::parse(
        freeze("tests/t.py::TestC::test_broken", "2024-05-01", "2024-05-15") +
            freeze("tests/t.py::old", "2024-04-01", "2024-04-10"),
        "quarantine.toml");
    const FrozenRunResult r =
        FrozenRun::apply(runOf({{"tests/t.py::TestC::test_broken", Outcome::Fail},
                                {"tests/t.py::test_new", Outcome::Fail}}),
                         ledger, QDate(2024, 5, 10));
    const std::string xml = FrozenRun::junit(r);
    QVERIFY2(xml.find("classname=\"tests.t.TestC\" name=\"test_broken\"") != std::string::npos,
             xml.c_str());
    QVERIFY(xml.find("<property name=\"patchwitness.outcome\" value=\"frozen\"/>") !=
            std::string::npos);
    QVERIFY(xml.find("frozen failure (frozen until 2024-05-15 (owner sam), quarantine.toml:1): "
                     "assert 1 == 2") != std::string::npos);
    QVERIFY(xml.find("<failure message=\"assert 1 == 2\"/>") != std::string::npos); // test_new
    QVERIFY(xml.find("classname=\"patchwitness.freezes\" name=\"tests/t.py::old\"") !=
            std::string::npos);
    QVERIFY2(xml.find("failures=\"2\"") != std::string::npos, xml.c_str()); // test_new + expired
}

void TestFrozenRun::cliRunsTheWholeSuite()
{
    RepoBuilder repo;
    QTemporaryDir cache;
    repo.write("tests/test_suite.py", "import pytest\n\n\n"
                                      "def test_broken():\n    assert 1 + 1 == 3\n\n\n"
                                      "def test_fixed():\n    assert True\n\n\n"
                                      "@pytest.mark.parametrize('n', [1, 2])\n"
                                      "def test_param(n):\n    assert n == 3\n\n\n"
                                      "def test_fine():\n    assert True\n");
    repo.write(".patchwitness/quarantine.toml",
               freeze("tests/test_suite.py::test_broken", "2024-05-01", "2024-05-15") +
                   freeze("tests/test_suite.py::test_fixed", "2024-05-01", "2024-05-15") +
                   freeze("tests/test_suite.py::test_param", "2024-05-01", "2024-05-15"));
    repo.commit("suite");
    const QString junit = cache.path() + QStringLiteral("/out/junit.xml");
    const QStringList common = {
        QStringLiteral("--repo"),      QString::fromStdString(repo.root()),
        QStringLiteral("--python"),    QString::fromStdString(pw::test::testPython()),
        QStringLiteral("--cache-dir"), cache.path(),
        QStringLiteral("--no-sandbox")};
    Shell r = cli(QStringList{QStringLiteral("test"), QStringLiteral("--today"),
                              QStringLiteral("2024-05-10"), QStringLiteral("--junit"), junit} +
                  common);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err)); // every failure frozen
    QVERIFY2(r.out.contains(QLatin1String("frozen          tests/test_suite.py::test_broken")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("thaw-candidate  tests/test_suite.py::test_fixed")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("1 passed, 0 failed, 3 frozen, 1 thaw candidate(s)")),
             qPrintable(r.out));
    const std::string xml = pw::core::readWholeFile(junit.toStdString()).value_or("");
    QVERIFY2(xml.find("frozen failure (") != std::string::npos, xml.c_str());

    // The freeze expired: the run fails and names it.
    r = cli(QStringList{QStringLiteral("test"), QStringLiteral("--today"),
                        QStringLiteral("2024-05-20"), QStringLiteral("--format"),
                        QStringLiteral("json")} +
            common);
    QCOMPARE(r.exitCode, 1);
    const nlohmann::json doc = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    QVERIFY2(doc.is_object(), qPrintable(r.out));
    QCOMPARE(doc["schema"].get<std::string>(), std::string("patchwitness.test-run/1"));
    QCOMPARE(doc["verdict"].get<std::string>(), std::string("fail"));
    QCOMPARE(doc["expired"].size(), size_t(3));
    QVERIFY(doc["expired"][0].get<std::string>().find("expired on 2024-05-15") !=
            std::string::npos);
    QCOMPARE(doc["outcomes"].size(), size_t(5)); // nothing skipped, the params too
    QCOMPARE(doc["counts"]["fail"].get<int>(), 3);

    // Pytest arguments pass through after --.
    r = cli(QStringList{QStringLiteral("test"), QStringLiteral("--today"),
                        QStringLiteral("2024-05-10")} +
            common +
            QStringList{QStringLiteral("--"), QStringLiteral("-k"), QStringLiteral("fine")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QLatin1String("1 passed, 0 failed, 0 frozen")), qPrintable(r.out));

    // A ledger that does not parse: exit 3 naming it.
    repo.write(".patchwitness/quarantine.toml", "[[quarantine]\n");
    r = cli(QStringList{QStringLiteral("test")} + common);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QLatin1String("quarantine.toml:1:")), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestFrozenRun)
#include "tst_frozenrun.moc"
