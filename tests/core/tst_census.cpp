// The dynamic census on real git repositories and real pytest runs: collect-only
// on both trees (the base twice), both suites executed, and every class of the table
// produced for real — removed with and without a waiver (witness collected and passed,
// failing, missing), skip added with and without a freeze, assertion density down,
// parametrize narrowed (literal list and data), pure rename, a collection error, an empty
// census (exit 5), an unstable baseline — plus the CLI's text, JSON and exit codes.
#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/Census.h"
#include "execution/RunPool.h"
#include "execution/Sandbox.h"
#include "util/Error.h"

#include <QProcess>
#include <QRegularExpression>
#include <QtTest>
#include <algorithm>
#include <nlohmann/json.hpp>

using pw::test::RepoBuilder;
using namespace pw::core;

namespace {

const char *kCalc = "def add(a, b):\n    return a + b\n";

const char *kBaseTests = R"(from calc import add
import pytest


def test_add():
    assert add(1, 2) == 3
    assert add(0, 0) == 0


def test_keep():
    assert add(2, 2) == 4


def test_gone():
    assert add(5, 5) == 10


@pytest.mark.parametrize("a", [1, 2, 3, 4])
def test_cases(a):
    assert add(a, 0) == a


def test_old_name():
    assert add(-1, 1) == 0
)";

// Head: test_add checks less, test_keep skipped, test_gone removed, cases narrowed, the
// last test renamed with the same body.
const char *kHeadTests = R"(from calc import add
import pytest


def test_add():
    assert add(1, 2) == 3


@pytest.mark.skip(reason="flaky")
def test_keep():
    assert add(2, 2) == 4


@pytest.mark.parametrize("a", [1, 2])
def test_cases(a):
    assert add(a, 0) == a


def test_new_name():
    assert add(-1, 1) == 0
)";

std::string waiver(const std::string &node, const std::string &witness)
{
    return "[[waiver]]\nnode = \"" + node + "\"\nreason = \"duplicate-coverage\"\nwitness = \"" +
           witness + "\"\napproved_by = \"bob\"\napproved_on = 2024-05-02\n\n";
}

std::string freeze(const std::string &test)
{
    return "[[quarantine]]\ntest = \"" + test +
           "\"\nowner = \"alice\"\nopened = 2024-05-01\nexpires = 2024-05-14\n"
           "verdict = \"PRE_EXISTING\"\nattribution = \"order\"\nwitness_seed = 7\n"
           "baseline_sha = \"0123456789abcdef\"\nevidence = { base_fail = 3, head_fail = 3, "
           "mode = \"matched\", seeds = [7], env_digest = \"abcd1234abcd1234\" }\n"
           "obligation = \"adding four works\"\nsubstitute = \"tests/test_other.py::test_w\"\n"
           "guards = [\"calc.py\"]\nreplay = \"pytest " +
           test + "\"\n\n";
}

const CensusRow *row(const CensusReport &r, const std::string &node)
{
    for (const CensusRow &x : r.rows) {
        if (x.nodeId == node)
            return &x;
    }
    return nullptr;
}

const Finding *findingOf(const CensusReport &r, const std::string &code, const std::string &test)
{
    for (const Finding &f : r.findings) {
        if (f.code == code && (test.empty() || f.test == test || f.path == test))
            return &f;
    }
    return nullptr;
}

QString dump(const CensusReport &r)
{
    return QString::fromStdString(formatCensusText(r));
}

} // namespace

class TestCensus : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_cache;
    std::string m_baseCommit;

    RunRequest request(const RepoBuilder &repo, const std::string &base, const std::string &head,
                       const std::string &today = "2024-05-10")
    {
        return pw::test::runRequest(repo.root(), m_cache.path().toStdString(), base, head, today);
    }

    CensusReport census(const RepoBuilder &repo, const std::string &base, const std::string &head,
                        bool execute = true, const std::string &today = "2024-05-10")
    {
        const RunContext ctx = RunContext::open(request(repo, base, head, today));
        CensusOptions options;
        options.execute = execute;
        RunPool pool(ctx.workers());
        return Census::run(ctx, options, pool);
    }

    // Base: calc.py, tests/test_calc.py (kBaseTests), tests/test_other.py (a witness that
    // passes and one that fails), plus `ledgers` in .patchwitness/.
    std::string commitBase(RepoBuilder &repo, const std::string &waivers = {},
                           const std::string &freezes = {})
    {
        repo.write("calc.py", kCalc);
        repo.write("tests/test_calc.py", kBaseTests);
        repo.write("tests/checks.py", "def test_w():\n    pass\n");
        repo.write("tests/test_other.py", "from calc import add\n\n\ndef test_w():\n    assert "
                                          "add(5, 5) == 10\n\n\ndef test_broken_witness():\n    "
                                          "assert add(5, 5) == 11\n");
        if (!waivers.empty())
            repo.write(".patchwitness/census_waiver.toml", waivers);
        if (!freezes.empty())
            repo.write(".patchwitness/quarantine.toml", freezes);
        return repo.commit("base");
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_cache.isValid()); }

    void classifiesEveryChange()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.write("tests/test_calc.py", kHeadTests);
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head);
        QVERIFY2(r.harnessError.empty(), r.harnessError.c_str());
        QVERIFY2(!r.unstable, r.unstableDetail.c_str());
        QCOMPARE(r.baseSummary.collected, 10);
        QCOMPARE(r.headSummary.collected, 7);
        QCOMPARE(r.baseSummary.executed, 10);
        QCOMPARE(r.headSummary.skipped, 1);
        QCOMPARE(r.headSummary.executed, 6);

        const Finding *removed = findingOf(r, "C-REMOVED", "tests/test_calc.py::test_gone");
        QVERIFY2(removed, qPrintable(dump(r)));
        QCOMPARE(removed->severity, Severity::Block);
        QVERIFY(!removed->satisfiedBy);
        QVERIFY(removed->message.find("no census waiver") != std::string::npos);

        const Finding *skip = findingOf(r, "C-SKIP", "tests/test_calc.py::test_keep");
        QVERIFY2(skip && !skip->satisfiedBy, qPrintable(dump(r)));
        QCOMPARE(row(r, "tests/test_calc.py::test_keep")->change, std::string("skip-added"));

        const Finding *density = findingOf(r, "C-DENSITY", "tests/test_calc.py::test_add");
        QVERIFY2(density, qPrintable(dump(r)));
        QCOMPARE(density->severity, Severity::Review);

        const Finding *param = findingOf(r, "C-PARAM", "tests/test_calc.py::test_cases");
        QVERIFY2(param, qPrintable(dump(r)));
        QCOMPARE(param->severity, Severity::Block);
        QVERIFY(param->message.find("4 -> 2") != std::string::npos);
        QCOMPARE(row(r, "tests/test_calc.py::test_cases[3]")->change, std::string("narrowed"));
        QCOMPARE(row(r, "tests/test_calc.py::test_cases[1]")->change, std::string("kept"));

        const Finding *rename = findingOf(r, "C-RENAME", "tests/test_calc.py::test_old_name");
        QVERIFY2(rename, qPrintable(dump(r)));
        QCOMPARE(rename->severity, Severity::Info);
        QVERIFY(!findingOf(r, "C-REMOVED", "tests/test_calc.py::test_old_name"));
        // The rename's head id is no addition: counted once, as the base id's "renamed".
        QCOMPARE(row(r, "tests/test_calc.py::test_new_name")->change, std::string("renamed-to"));
        QCOMPARE(row(r, "tests/test_calc.py::test_new_name")->detail,
                 std::string("renamed from tests/test_calc.py::test_old_name"));
        QCOMPARE(r.count("renamed"), 1);
        QCOMPARE(r.count("added"), 0);

        QCOMPARE(r.verdict(), Verdict::Block);
        QCOMPARE(r.collections.size(), size_t(3));
        QCOMPARE(r.collections[0].dump.digest, r.collections[2].dump.digest);
        QVERIFY(r.collections[0].dump.digest != r.collections[1].dump.digest);
    }

    void waiverWithPassingWitnessAllowsRemoval()
    {
        RepoBuilder repo;
        const std::string base = commitBase(
            repo, waiver("tests/test_calc.py::test_gone", "tests/test_other.py::test_w"));
        std::string text = kBaseTests;
        text.erase(text.find("def test_gone"),
                   text.find("@pytest.mark.parametrize") - text.find("def test_gone"));
        repo.write("tests/test_calc.py", text);
        const std::string head = repo.commit("head");
        for (const bool execute : {true, false}) {
            const CensusReport r = census(repo, base, head, execute);
            const Finding *f = findingOf(r, "C-REMOVED", "tests/test_calc.py::test_gone");
            QVERIFY2(f, qPrintable(dump(r)));
            QVERIFY2(f->satisfiedBy, qPrintable(dump(r)));
            QVERIFY(f->satisfiedBy->find("tests/test_other.py::test_w collected and passed at "
                                         "head") != std::string::npos);
            QCOMPARE(r.verdict(), Verdict::Pass);
        }
    }

    void waiverWitnessMustPassAndBeCollected_data()
    {
        QTest::addColumn<QString>("witness");
        QTest::addColumn<QString>("reason");
        QTest::newRow("fails at head") << "tests/test_other.py::test_broken_witness"
                                       << "did not pass at head (fail)";
        // A test function pytest does not collect (checks.py is no test_*.py file).
        QTest::newRow("not collected at head") << "tests/checks.py::test_w"
                                               << "is not collected at head";
    }

    void waiverWitnessMustPassAndBeCollected()
    {
        QFETCH(QString, witness);
        QFETCH(QString, reason);
        RepoBuilder repo;
        const std::string base =
            commitBase(repo, waiver("tests/test_calc.py::test_gone", witness.toStdString()));
        std::string text = kBaseTests;
        text.erase(text.find("def test_gone"),
                   text.find("@pytest.mark.parametrize") - text.find("def test_gone"));
        repo.write("tests/test_calc.py", text);
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        const Finding *f = findingOf(r, "C-REMOVED", "tests/test_calc.py::test_gone");
        QVERIFY2(f && !f->satisfiedBy, qPrintable(dump(r)));
        QVERIFY2(f->message.find(reason.toStdString()) != std::string::npos, f->message.c_str());
        QCOMPARE(r.verdict(), Verdict::Block);
    }

    void freezeAnswersAddedSkip()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo, {}, freeze("tests/test_calc.py::test_keep"));
        std::string text = kBaseTests;
        text.replace(text.find("def test_keep"), 0, "@pytest.mark.skip(reason=\"frozen\")\n");
        repo.write("tests/test_calc.py", text);
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head);
        const Finding *f = findingOf(r, "C-SKIP", "tests/test_calc.py::test_keep");
        QVERIFY2(f && f->satisfiedBy, qPrintable(dump(r)));
        QVERIFY(f->satisfiedBy->find("quarantine.toml") == 0);
    }

    // A runtime skip is answered by a base freeze up to the day before it expires.
    void runtimeSkipFreezeEndsOnItsExpiryDay()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo, {}, freeze("tests/test_calc.py::test_keep"));
        std::string text = kBaseTests;
        text.replace(text.find("    assert add(2, 2) == 4"), 0,
                     "    if add(1, 1) == 2:\n        pytest.skip(\"later\")\n");
        repo.write("tests/test_calc.py", text);
        const std::string head = repo.commit("head");
        const CensusReport before = census(repo, base, head, true, "2024-05-13");
        const Finding *f = findingOf(before, "C-SKIP", "tests/test_calc.py::test_keep");
        QVERIFY2(f && f->satisfiedBy, qPrintable(dump(before)));
        const CensusReport on = census(repo, base, head, true, "2024-05-14");
        f = findingOf(on, "C-SKIP", "tests/test_calc.py::test_keep");
        QVERIFY2(f && !f->satisfiedBy, qPrintable(dump(on)));
    }

    void runtimeSkipIsSeenOnlyByExecution()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        std::string text = kBaseTests;
        // A skip no marker shows: pytest.skip() behind a condition that is always true.
        text.replace(text.find("    assert add(2, 2) == 4"), 0,
                     "    if add(1, 1) == 2:\n        pytest.skip(\"later\")\n");
        repo.write("tests/test_calc.py", text);
        const std::string head = repo.commit("head");
        const CensusReport executed = census(repo, base, head, true);
        const CensusRow *keep = row(executed, "tests/test_calc.py::test_keep");
        QVERIFY(keep && keep->outcomeHead);
        QCOMPARE(*keep->outcomeHead, Outcome::Skipped);
        QVERIFY2(findingOf(executed, "C-SKIP", "tests/test_calc.py::test_keep"),
                 qPrintable(dump(executed)));
        const CensusReport collected = census(repo, base, head, false);
        QVERIFY(!findingOf(collected, "C-SKIP", "tests/test_calc.py::test_keep"));
    }

    void renameIsOneToOne()
    {
        // Two removed tests with one body, one new test with it: one rename, one removal.
        RepoBuilder repo;
        repo.write("tests/test_r.py", "def test_one():\n    assert 1 + 1 == 2\n\n\n"
                                      "def test_two():\n    assert 1 + 1 == 2\n");
        const std::string base = repo.commit("base");
        repo.write("tests/test_r.py", "def test_merged():\n    assert 1 + 1 == 2\n");
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        QCOMPARE(r.count("renamed"), 1);
        QCOMPARE(r.count("removed"), 1);
        QCOMPARE(r.verdict(), Verdict::Block);
    }

    void dataDrivenCasesAreReview()
    {
        RepoBuilder repo;
        repo.write("calc.py", kCalc);
        repo.write("tests/cases.py", "CASES = [1, 2, 3]\n");
        const char *tests = "import pytest\nfrom tests.cases import CASES\n\n\n"
                            "@pytest.mark.parametrize(\"a\", CASES)\ndef test_data(a):\n"
                            "    assert a > 0\n";
        repo.write("tests/__init__.py", "");
        repo.write("tests/test_data.py", tests);
        const std::string base = repo.commit("base");
        repo.write("tests/cases.py", "CASES = [1]\n");
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        const Finding *f = findingOf(r, "C-PARAM", "tests/test_data.py::test_data");
        QVERIFY2(f, qPrintable(dump(r)));
        QCOMPARE(f->severity, Severity::Review);
        QVERIFY(f->message.find("data") != std::string::npos);
    }

    void aCollectionErrorNamesTheExceptionNotTheLinesAroundIt_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("message");
        // A SyntaxError's first lines show the source; a warning turned error continues
        // with "See https://…" lines.
        QTest::newRow("syntax error") << "def test_w(:\n    pass\n"
                                      << "SyntaxError: ";
        QTest::newRow("warning as error, several lines")
            << "import warnings\nwarnings.warn(DeprecationWarning('gone soon\\nSee https://x'))\n"
               "def test_w():\n    pass\n"
            << "DeprecationWarning: gone soon";
    }

    void aCollectionErrorNamesTheExceptionNotTheLinesAroundIt()
    {
        QFETCH(QString, source);
        QFETCH(QString, message);
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.write("pytest.ini", "[pytest]\nfilterwarnings = error\n");
        repo.write("tests/test_other.py", source.toStdString());
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        const Finding *f = findingOf(r, "C-COLLECT", "tests/test_other.py");
        QVERIFY2(f, qPrintable(dump(r)));
        QVERIFY2(QString::fromStdString(f->message).contains(message), f->message.c_str());
        QVERIFY2(!QString::fromStdString(f->message).contains(QLatin1String("See https")),
                 f->message.c_str());
    }

    void collectionErrorAtHeadBlocks()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.write("tests/test_other.py", "import not_a_module_anywhere\n\n\ndef test_w():\n"
                                          "    pass\n");
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        QVERIFY2(r.harnessError.empty(), r.harnessError.c_str());
        const Finding *f = findingOf(r, "C-COLLECT", "tests/test_other.py");
        QVERIFY2(f, qPrintable(dump(r)));
        QCOMPARE(f->severity, Severity::Block);
        QCOMPARE(row(r, "tests/test_other.py::test_w")->change, std::string("collect-error"));
        QVERIFY2(f->message.find("ModuleNotFoundError: No module named "
                                 "'not_a_module_anywhere'") != std::string::npos,
                 f->message.c_str());
        QVERIFY(!findingOf(r, "C-REMOVED", "tests/test_other.py::test_w"));
    }

    // A conftest the patch makes raise breaks the whole head collection (pytest exit 4, no
    // dump) while the base collects: every base test file fails to collect at head — a
    // BLOCK naming the conftest and the exception, not a harness error.
    void headThatDoesNotCollectAtAllBlocks()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.write("tests/conftest.py", "raise RuntimeError('the agent broke conftest')\n");
        repo.remove("tests/test_other.py"); // deleted: its tests are removed, not broken
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, true);
        QVERIFY2(r.harnessError.empty(), r.harnessError.c_str());
        QCOMPARE(r.verdict(), pw::core::Verdict::Block);
        QVERIFY2(findingOf(r, "C-REMOVED", "tests/test_other.py::test_w"), qPrintable(dump(r)));
        QVERIFY(!findingOf(r, "C-COLLECT", "tests/test_other.py"));
        for (const char *file : {"tests/test_calc.py"}) {
            const Finding *f = findingOf(r, "C-COLLECT", file);
            QVERIFY2(f, qPrintable(dump(r)));
            QCOMPARE(f->severity, Severity::Block);
            QVERIFY2(f->message.find("conftest tests/conftest.py failed to load: RuntimeError: "
                                     "the agent broke conftest") != std::string::npos,
                     f->message.c_str());
        }
        QCOMPARE(row(r, "tests/test_calc.py::test_keep")->change, std::string("collect-error"));
        QCOMPARE(r.headSummary.collected, 0);
        QVERIFY2(dump(r).contains(QStringLiteral("does not collect at all")), qPrintable(dump(r)));
        // The base's suite ran fine, but executed counts compare only two runs that are evidence.
        QVERIFY2(dump(r).contains(QStringLiteral("executed not measured (the other tree's suite "
                                                 "run is no evidence)")),
                 qPrintable(dump(r)));
        const nlohmann::json j = nlohmann::json::parse(pw::core::formatCensusJson(r));
        QVERIFY(j["collections"][1]["whole_tree_error"].get<std::string>().starts_with(
            "conftest tests/conftest.py failed to load"));
        QVERIFY(j["collections"][0]["whole_tree_error"].is_null());
        QCOMPARE(j["summary"]["base"]["executed_measured"].get<bool>(), false);
    }

    // A pytest configuration the patch edits that pytest refuses (an addopts option it does
    // not take, a minversion above it) stops the head before collection. No census (exit 4),
    // not a BLOCK: the option may be a plugin's the pinned environment does not load. The
    // message names what pytest refused, the ini file, and what to do.
    void headConfigurationPytestRefusesIsNamed_data()
    {
        QTest::addColumn<QString>("ini");
        QTest::addColumn<QString>("said");
        QTest::addColumn<QString>("hint");
        // The conftest's own ": error: " on stderr comes before pytest's usage block.
        QTest::newRow("addopts") << QStringLiteral("[pytest]\naddopts = --bogus-opt-pw\n")
                                 << QStringLiteral("head collection: pytest exit 4: usage error: "
                                                   "unrecognized arguments: --bogus-opt-pw "
                                                   "(inifile pytest.ini); the base collects")
                                 << QStringLiteral("add the plugin to config `plugins`");
        QTest::newRow("minversion") << QStringLiteral("[pytest]\nminversion = 99\n")
                                    << QStringLiteral("head collection: pytest exit 4: "
                                                      "configuration error: pytest.ini: "
                                                      "'minversion' requires pytest-99")
                                    << QStringLiteral("(a newer pytest)");
        // An ini file that does not parse: named, with no hint blaming the environment.
        QTest::newRow("broken ini") << QStringLiteral("[pytest]\ngarbage line\n")
                                    << QStringLiteral("head collection: pytest exit 4: "
                                                      "configuration error: pytest.ini:2: "
                                                      "unexpected line: 'garbage line'")
                                    << QString();
    }

    void headConfigurationPytestRefusesIsNamed()
    {
        QFETCH(QString, ini);
        QFETCH(QString, said);
        QFETCH(QString, hint);
        RepoBuilder repo;
        repo.write("tests/conftest.py", "import sys\n\nsys.stderr.write('vendored-lib: error: "
                                        "optional speedups missing\\n')\n");
        const std::string base = commitBase(repo);
        repo.write("pytest.ini", ini.toStdString());
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        QVERIFY2(r.harnessError.starts_with(said.toStdString()), r.harnessError.c_str());
        if (hint.isEmpty())
            QVERIFY2(r.harnessError.find("the base collects") == std::string::npos,
                     r.harnessError.c_str());
        else
            QVERIFY2(r.harnessError.find(hint.toStdString()) != std::string::npos,
                     r.harnessError.c_str());
        QVERIFY(r.findings.empty());
    }

    // A head conftest that fails because the sandbox has no network is the sandbox's doing:
    // no census (exit 4), never a BLOCK blamed on the patch.
    void headConftestTheSandboxBreaksIsNoCensus()
    {
        PW_REQUIRE_SANDBOX();
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.write("tests/conftest.py",
                   "import socket\n\nsocket.create_connection(('192.0.2.1', 80), timeout=5)\n");
        const std::string head = repo.commit("head");
        RunRequest req = request(repo, base, head);
        req.sandbox = true;
        const RunContext ctx = RunContext::open(req);
        CensusOptions options;
        options.execute = false;
        RunPool pool(ctx.workers());
        const CensusReport r = Census::run(ctx, options, pool);
        QVERIFY2(r.harnessError.find("Network is unreachable") != std::string::npos,
                 qPrintable(dump(r)));
        QVERIFY(r.findings.empty());
    }

    // A base ledger that does not parse counts nothing; the census says so with its line.
    void unparsableLedgerIsNamedWithItsLine()
    {
        RepoBuilder repo;
        const std::string base =
            commitBase(repo, {}, "[[quarantine]]\ntest = \"x\"\nopened = 2024-13-45\n");
        repo.write("tests/test_calc.py", kHeadTests);
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        const auto named =
            std::find_if(r.warnings.begin(), r.warnings.end(), [](const std::string &w) {
                return w.starts_with("base ledgers: .patchwitness/quarantine.toml:3:");
            });
        QVERIFY2(named != r.warnings.end(), qPrintable(dump(r)));
        QVERIFY(named->find("(its entries not counted)") != std::string::npos);
        QCOMPARE(std::count_if(r.warnings.begin(), r.warnings.end(),
                               [](const std::string &w) {
                                   return w.find("quarantine.toml:3:") != std::string::npos;
                               }),
                 1L);
    }

    // A new test file that fails to collect adds tests that never run: no PASS.
    void collectionErrorOfANewFileBlocks()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.write("tests/test_brand_new.py", "import not_a_module_anywhere\n\n\n"
                                              "def test_new():\n    pass\n");
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head);
        const Finding *f = findingOf(r, "C-COLLECT", "tests/test_brand_new.py");
        QVERIFY2(f, qPrintable(dump(r)));
        QCOMPARE(f->severity, Severity::Block);
        QVERIFY2(f->message.find("none of its tests run") != std::string::npos, f->message.c_str());
        QCOMPARE(r.verdict(), Verdict::Block);
        // The head suite run stops at the collection error (exit 2): no executed count, and
        // the base's is not compared with nothing (not "0 executed" either).
        const QString text = dump(r);
        QVERIFY2(text.contains(QRegularExpression(QStringLiteral(
                     "head: [^\\n]*executed not measured \\(its suite run is no evidence\\)"))),
                 qPrintable(text));
        QVERIFY2(text.contains(QRegularExpression(
                     QStringLiteral("base: [^\\n]*executed not measured \\(the other tree's suite "
                                    "run is no evidence\\)"))),
                 qPrintable(text));
    }

    // Tests moved (same bodies) into a directory whose new conftest hook marks them xfail:
    // each looks harmless alone; together they are an xfail added.
    void xfailGainedAcrossARenameBlocks()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.remove("tests/test_other.py");
        repo.write("tests/legacy/test_other.py", "from calc import add\n\n\ndef test_w():\n"
                                                 "    assert add(5, 5) == 10\n\n\n"
                                                 "def test_broken_witness():\n"
                                                 "    assert add(5, 5) == 11\n");
        repo.write("tests/conftest.py",
                   "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n"
                   "    for item in items:\n"
                   "        if '/legacy/' in item.nodeid:\n"
                   "            item.add_marker(pytest.mark.xfail(reason='legacy'))\n");
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        const CensusRow *moved = row(r, "tests/legacy/test_other.py::test_w");
        QVERIFY2(moved, qPrintable(dump(r)));
        QCOMPARE(moved->change, std::string("skip-added"));
        QVERIFY2(moved->detail.find("xfail added (renamed from tests/test_other.py::test_w)") == 0,
                 moved->detail.c_str());
        const Finding *f = findingOf(r, "C-SKIP", "tests/legacy/test_other.py::test_w");
        QVERIFY2(f, qPrintable(dump(r)));
        QCOMPARE(f->severity, Severity::Block);
    }

    void emptyCensusIsValid()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.remove("tests/test_calc.py");
        repo.remove("tests/test_other.py");
        repo.write("README", "no tests\n");
        const std::string head = repo.commit("head");
        const CensusReport r = census(repo, base, head, false);
        QVERIFY2(r.harnessError.empty(), r.harnessError.c_str());
        QCOMPARE(r.headSummary.collected, 0);
        QCOMPARE(r.collections[1].run.exitCode, 5);
        QCOMPARE(r.count("removed"), 10);
        QCOMPARE(r.verdict(), Verdict::Block);
    }

    void unstableBaselineIsReported()
    {
        // The conftest generates one more test on every collection (a counter outside the
        // tree), so the two base collections differ.
        QTemporaryDir counter;
        RepoBuilder repo;
        repo.write("calc.py", kCalc);
        repo.write("tests/conftest.py",
                   "import os\nPATH = " + ("'" + counter.filePath("n").toStdString() + "'") +
                       "\n\n\ndef pytest_generate_tests(metafunc):\n"
                       "    if 'k' in metafunc.fixturenames:\n"
                       "        n = int(open(PATH).read()) if os.path.exists(PATH) else 0\n"
                       "        open(PATH, 'w').write(str(n + 1))\n"
                       "        metafunc.parametrize('k', range(n + 1))\n");
        repo.write("tests/test_k.py", "def test_k(k):\n    assert k >= 0\n");
        const std::string base = repo.commit("base");
        repo.write("README", "x\n");
        const std::string head = repo.commit("head");
        RunRequest req = request(repo, base, head);
        req.workers = 1; // the counter must count the collections one after the other
        const RunContext ctx = RunContext::open(req);
        CensusOptions options;
        options.execute = false;
        RunPool pool(ctx.workers());
        const CensusReport r = Census::run(ctx, options, pool);
        QVERIFY2(r.unstable, qPrintable(dump(r)));
        QVERIFY(findingOf(r, "C-UNSTABLE", ""));
        QCOMPARE(r.verdict() == Verdict::Pass, false);
        QVERIFY(formatCensusText(r).find("UNSTABLE") != std::string::npos);
    }

    void dumpParsingNamesTheProblem()
    {
        bool threw = false;
        try {
            CensusDump::parse("{", "x.json");
        } catch (const Error &) {
            threw = true;
        }
        QVERIFY(threw);
        try {
            CensusDump::parse(R"({"schema": "patchwitness.census/1", "nodes": [{"x": 1}]})",
                              "x.json");
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(std::string(e.what()), std::string("x.json: nodes[0]: nodeid: a non-empty "
                                                        "string is required"));
        }
        const CensusDump d = CensusDump::parse(
            R"({"schema": "patchwitness.census/1", "digest": "forged", "nodes": [{"nodeid": "b"}, {"nodeid": "a"}]})",
            "x.json");
        QCOMPARE(d.digest, CensusDump::digestOf({"a", "b"}));
        QCOMPARE(functionIdOf("t.py::C::f[a::b[1]]"), std::string("t.py::C::f"));
        QCOMPARE(fileOf("t/x.py::C::f"), std::string("t/x.py"));
    }

    void cliTextJsonAndExitCodes()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        repo.write("tests/test_calc.py", kHeadTests);
        const std::string head = repo.commit("head");
        const QStringList common = {QStringLiteral("census"),
                                    QStringLiteral("--repo"),
                                    QString::fromStdString(repo.root()),
                                    QStringLiteral("--base"),
                                    QString::fromStdString(base),
                                    QStringLiteral("--head"),
                                    QString::fromStdString(head),
                                    QStringLiteral("--python"),
                                    QString::fromStdString(pw::test::testPython()),
                                    QStringLiteral("--cache-dir"),
                                    m_cache.filePath(QStringLiteral("trees")),
                                    QStringLiteral("--no-sandbox"),
                                    QStringLiteral("--collect-only")};
        QProcess cli;
        cli.start(QStringLiteral(PW_CLI_PATH), common);
        QVERIFY(cli.waitForFinished(120000));
        const QByteArray text = cli.readAllStandardOutput();
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY2(text.contains("C-REMOVED") && text.contains("verdict: BLOCK"), text.constData());
        QVERIFY(cli.readAllStandardError().contains("census: 3/3"));

        cli.start(QStringLiteral(PW_CLI_PATH), QStringList(common) << QStringLiteral("--format")
                                                                   << QStringLiteral("json")
                                                                   << QStringLiteral("--quiet"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 1);
        QCOMPARE(cli.readAllStandardError(), QByteArray());
        const nlohmann::json doc = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
        QCOMPARE(doc.at("schema").get<std::string>(), std::string("patchwitness.census-report/1"));
        QCOMPARE(doc.at("verdict").get<std::string>(), std::string("BLOCK"));
        QCOMPARE(doc.at("summary").at("base").at("collected").get<int>(), 10);
        QVERIFY(doc.at("findings").size() >= 4);
        for (const nlohmann::json &finding : doc.at("findings")) // the report's contract
            QVERIFY(finding.at("test").is_null() || !finding.at("test").get<std::string>().empty());

        cli.start(QStringLiteral(PW_CLI_PATH),
                  QStringList(common) << QStringLiteral("--format") << QStringLiteral("xml"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 3);
        QVERIFY(cli.readAllStandardError().contains("unknown --format 'xml'"));

        cli.start(QStringLiteral(PW_CLI_PATH),
                  QStringList(common) << QStringLiteral("--today") << QStringLiteral("2024-13-40"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 3);
        QVERIFY(cli.readAllStandardError().contains("--today"));

        cli.start(QStringLiteral(PW_CLI_PATH),
                  QStringList(common) << QStringLiteral("--head") << QStringLiteral("nope"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 3);
        QVERIFY(cli.readAllStandardError().contains("nope"));

        cli.start(QStringLiteral(PW_CLI_PATH), QStringList(common)
                                                   << QStringLiteral("--python")
                                                   << QStringLiteral("/nonexistent/python3"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 3);
        QVERIFY(cli.readAllStandardError().contains("/nonexistent/python3"));
    }
};

QTEST_GUILESS_MAIN(TestCensus)
#include "tst_census.moc"
