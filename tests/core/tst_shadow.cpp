// Skip witnesses and the patch-keyed shadow sample on real git repositories
// and real pytest runs: a test touching only unchanged code is skip-witnessed; a changed
// module a test calls, a changed module-level constant it imports, a changed conftest
// fixture, subprocess use, a freeze and a new test each make it run; the shadow pick is
// Python's hashlib formula; a data file a test reads and code run in a thread it starts
// are witnessed; a witness row that cannot be built is incomplete; a witness that misses a
// module read by a name built at run time is caught by the sample and reported; pytest
// configuration, non-Python fixture files and a conftest.py on the path make tests run;
// a test that failed in the witness run runs; a freeze ends on its expiry day; a WORKTREE
// head's patch leaves the ledger directory out; the stored witness is kept in our cache,
// reused and retaken (a damaged one named by file:line); a witness planted in the
// worktree's ledger directory is never read; garbled witness files are named with their
// line; the CLI's exit codes and JSON.
#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/DiffCoverage.h"
#include "dynamic/Shadow.h"
#include "execution/RunPool.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>
#include <nlohmann/json.hpp>

using pw::test::RepoBuilder;
using namespace pw::core;

namespace {

const ShadowDecision *decision(const ShadowReport &r, const std::string &node)
{
    for (const ShadowDecision &d : r.decisions) {
        if (d.nodeId == node)
            return &d;
    }
    return nullptr;
}

QString dump(const ShadowReport &r)
{
    return QString::fromStdString(formatShadowText(r));
}

std::string freeze(const std::string &test)
{
    return "[[quarantine]]\ntest = \"" + test +
           "\"\nowner = \"alice\"\nopened = 2024-05-01\nexpires = 2024-05-14\n"
           "verdict = \"PRE_EXISTING\"\nattribution = \"order\"\nwitness_seed = 7\n"
           "baseline_sha = \"0123456789abcdef\"\nevidence = { base_fail = 3, head_fail = 3, "
           "mode = \"matched\", seeds = [7], env_digest = \"abcd1234abcd1234\" }\n"
           "obligation = \"it works\"\nsubstitute = \"tests/test_plain.py::test_plain\"\n"
           "guards = [\"pkg/calc.py\"]\nreplay = \"pytest " +
           test + "\"\n\n";
}

// Python's own answer: int.from_bytes(sha256((P + ":" + node).encode())[:4], "big") % 100.
int pythonPick(const std::string &p, const std::string &node)
{
    QProcess py;
    py.start(QString::fromStdString(pw::test::testPython()),
             QStringList{QStringLiteral("-c"),
                         QStringLiteral("import hashlib, sys\n"
                                        "P, node = sys.argv[1], sys.argv[2]\n"
                                        "print(int.from_bytes(hashlib.sha256((P + ':' + "
                                        "node).encode()).digest()[:4], 'big') % 100)"),
                         QString::fromStdString(p), QString::fromStdString(node)});
    if (!py.waitForFinished(30000) || py.exitCode() != 0)
        return -1;
    return py.readAllStandardOutput().trimmed().toInt();
}

} // namespace

class TestShadow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_cache;
    int m_test = 0; // each test function its own cache: fixture repos repeat commit ids

    std::string cacheDir() const
    {
        return m_cache.filePath(QStringLiteral("t%1").arg(m_test)).toStdString();
    }

    RunRequest request(const RepoBuilder &repo, const std::string &base, const std::string &head,
                       const std::string &today = "2024-05-10")
    {
        return pw::test::runRequest(repo.root(), cacheDir(), base, head, today);
    }

    ShadowReport shadow(const RepoBuilder &repo, const std::string &base, const std::string &head,
                        ShadowOptions options, const std::string &today = "2024-05-10")
    {
        const RunContext ctx = RunContext::open(request(repo, base, head, today));
        RunPool pool(ctx.workers());
        return Shadow::run(ctx, options, pool);
    }

    // A project where every case of the shadow table has its own test.
    std::string commitBase(RepoBuilder &repo)
    {
        repo.write("pkg/__init__.py", "");
        repo.write("pkg/calc.py", "def add(a, b):\n    return a + b\n");
        repo.write("pkg/const.py", "LIMIT = 10\n");
        // Loads pkg.lazy and pkg.threaded at collection, for the tests below.
        repo.write("pkg/util.py", "from pkg import lazy, threaded  # noqa: F401\n\n\n"
                                  "def double(x):\n    return 2 * x\n");
        repo.write("pkg/lazy.py", "VALUE = 4\n");
        repo.write("pkg/threaded.py", "def value():\n    return 7\n");
        // Reads a module already loaded, by a name built at run time: no code of it runs
        // and no file is opened, so no witness can see it; the shadow sample catches it.
        repo.write("tests/test_lazy.py", "import importlib\n\n\ndef test_lazy():\n"
                                         "    name = 'pkg.' + 'la' + 'zy'\n"
                                         "    assert importlib.import_module(name).VALUE == 4\n");
        // Runs project code only in a thread it starts (threading.setprofile sees it).
        repo.write("tests/test_thread.py",
                   "import importlib\nimport threading\n\n\ndef test_thread():\n"
                   "    out = []\n    mod = importlib.import_module('pkg.' + 'threaded')\n"
                   "    t = threading.Thread(target=lambda: out.append(mod.value()))\n"
                   "    t.start()\n    t.join()\n    assert out == [7]\n");
        // A module-level value whose __module__ raises: the witness row cannot be built.
        repo.write("tests/test_proxy.py",
                   "class _Proxy:\n    def __getattribute__(self, name):\n"
                   "        if name == '__module__':\n"
                   "            raise RuntimeError('no module')\n"
                   "        return object.__getattribute__(self, name)\n\n\n"
                   "PROXY = _Proxy()\n\n\ndef test_proxy():\n    assert PROXY is not None\n");
        repo.write("data/expected.txt", "4\n");
        // Reached only by running: the test module imports pkg.api, never pkg.helper.
        repo.write("pkg/helper.py", "def scale(x):\n    return 3 * x\n");
        repo.write("pkg/api.py", "def triple(x):\n    from pkg import helper\n\n"
                                 "    return helper.scale(x)\n");
        repo.write("tests/test_api.py", "from pkg.api import triple\n\n\ndef test_triple():\n"
                                        "    assert triple(2) == 6\n");
        repo.write("tests/test_calc.py",
                   "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n");
        repo.write("tests/test_const.py",
                   "from pkg.const import LIMIT\n\n\ndef test_limit():\n    assert LIMIT > 5\n");
        repo.write("tests/test_util.py", "from pkg.util import double\n\n\ndef test_double():\n"
                                         "    assert double(2) == 4\n");
        repo.write("tests/test_plain.py", "def test_plain():\n    assert 1 + 1 == 2\n");
        repo.write("tests/test_sub.py", "import subprocess\n\n\ndef test_echo():\n"
                                        "    assert subprocess.run(['true']).returncode == 0\n");
        repo.write("tests/test_frozen.py", "def test_frozen():\n    assert 1 == 2\n");
        // Reads a data file at run time: the witness records the files a test opens.
        repo.write("tests/test_data.py",
                   "import pathlib\n\n\ndef test_data():\n"
                   "    root = pathlib.Path(__file__).parent.parent\n"
                   "    assert (root / 'data' / 'expected.txt').read_text().strip() == '4'\n");
        repo.write("tests/cfg/conftest.py", "import pytest\n\n\n@pytest.fixture\n"
                                            "def tmp_config():\n    return {'v': 1}\n");
        repo.write("tests/cfg/test_cfg.py", "def test_cfg(tmp_config):\n    assert "
                                            "tmp_config['v'] > 0\n");
        repo.write(".patchwitness/quarantine.toml", freeze("tests/test_frozen.py::test_frozen"));
        return repo.commit("base");
    }

    std::string commitHead(RepoBuilder &repo)
    {
        repo.write("pkg/calc.py", "def add(a, b):\n    return b + a\n");
        repo.write("pkg/const.py", "LIMIT = 11\n");
        repo.write("pkg/helper.py", "def scale(x):\n    return x * 3\n");
        repo.write("data/expected.txt", "4\n\n"); // changed, still passes
        repo.write("pkg/lazy.py", "VALUE = 5\n");
        repo.write("pkg/threaded.py", "def value():\n    return 3 + 4\n");
        repo.write("tests/cfg/conftest.py", "import pytest\n\n\n@pytest.fixture\n"
                                            "def tmp_config():\n    return {'v': 2}\n");
        repo.write("tests/test_new.py", "def test_new():\n    assert True\n");
        return repo.commit("head");
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_cache.isValid()); }
    void init() { ++m_test; }

    void decidesEveryCaseAndCatchesAWitnessBug()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        const std::string head = commitHead(repo);
        ShadowOptions options;
        options.pct = 100; // every skipped test is shadow-sampled
        const ShadowReport r = shadow(repo, base, head, options);
        QVERIFY2(r.harnessError.empty(), qPrintable(dump(r)));
        QCOMPARE(r.witnessState, std::string("recorded"));
        QVERIFY(!r.ambientDrift);
        QCOMPARE(r.decisions.size(), size_t(13));

        const auto reason = [&](const std::string &node) {
            const ShadowDecision *d = decision(r, node);
            return d ? d->reason : std::string("<missing>");
        };
        QCOMPARE(reason("tests/test_calc.py::test_add"),
                 std::string("witnessed import pkg/calc.py changed"));
        QCOMPARE(reason("tests/test_api.py::test_triple"),
                 std::string("witnessed import pkg/helper.py changed"));
        QCOMPARE(reason("tests/test_const.py::test_limit"),
                 std::string("witnessed import pkg/const.py changed"));
        QCOMPARE(reason("tests/cfg/test_cfg.py::test_cfg"),
                 std::string("fixture drift: tmp_config"));
        QCOMPARE(reason("tests/test_sub.py::test_echo"),
                 std::string("incomplete: uses subprocess"));
        QCOMPARE(reason("tests/test_frozen.py::test_frozen"),
                 std::string("frozen until 2024-05-14"));
        QCOMPARE(reason("tests/test_new.py::test_new"), std::string("new test: no witness"));
        QCOMPARE(reason("tests/test_data.py::test_data"),
                 std::string("witnessed file data/expected.txt changed"));
        QCOMPARE(reason("tests/test_thread.py::test_thread"),
                 std::string("witnessed import pkg/threaded.py changed"));
        QCOMPARE(reason("tests/test_proxy.py::test_proxy"),
                 std::string("incomplete: uses witness error: RuntimeError: no module"));
        for (const char *skipped :
             {"tests/test_util.py::test_double", "tests/test_plain.py::test_plain",
              "tests/test_lazy.py::test_lazy"}) {
            const ShadowDecision *d = decision(r, skipped);
            QVERIFY2(d && !d->run && d->reason == "witnessed" && d->sampled, skipped);
        }
        const ShadowDecision *frozen = decision(r, "tests/test_frozen.py::test_frozen");
        QVERIFY(frozen->run && frozen->frozen && !frozen->sampled);
        QCOMPARE(frozen->outcome, std::optional<Outcome>(Outcome::Fail));
        QVERIFY(r.failures().empty()); // the frozen failure is the freeze's, not the patch's

        QVERIFY(r.headRan);
        QCOMPARE(decision(r, "tests/test_plain.py::test_plain")->outcome,
                 std::optional<Outcome>(Outcome::Pass));
        QCOMPARE(r.bugs.size(), size_t(1));
        QCOMPARE(r.bugs.front().nodeId, std::string("tests/test_lazy.py::test_lazy"));
        const std::vector<std::string> &files = r.bugs.front().files;
        QVERIFY(std::find(files.begin(), files.end(), "tests/test_lazy.py") != files.end());
        QVERIFY(std::find(files.begin(), files.end(), "pkg/lazy.py") == files.end());
        QVERIFY2(dump(r).contains(QStringLiteral("witness bug: tests/test_lazy.py::test_lazy")),
                 qPrintable(dump(r)));
        // The window's report: the witness bug blocks, once; the frozen
        // failure is no finding.
        const std::vector<pw::core::Finding> found = r.findings();
        QCOMPARE(found.size(), size_t(1));
        QCOMPARE(found.front().code, std::string("S-WITNESS-BUG"));
        QCOMPARE(found.front().severity, pw::core::Severity::Block);
        QCOMPARE(found.front().path, std::string("tests/test_lazy.py"));
        const std::vector<std::string> &read =
            decision(r, "tests/test_data.py::test_data")->witness->files;
        QVERIFY(std::find(read.begin(), read.end(), "data/expected.txt") != read.end());
    }

    void sampleIsKeyedByThePatchAndNeverTakesFrozenTests()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        const std::string head = commitHead(repo);
        ShadowOptions options;
        options.dryRun = true;
        const ShadowReport r = shadow(repo, base, head, options);
        QVERIFY2(r.harnessError.empty(), qPrintable(dump(r)));
        QVERIFY(!r.headRan);
        QCOMPARE(r.pct, 10); // config shadow_pct's default
        QCOMPARE(r.patchDigest.size(), size_t(64));
        for (const ShadowDecision &d : r.decisions) {
            QVERIFY(!d.outcome);
            if (d.run)
                QVERIFY(!d.sampled);
            else
                QCOMPARE(d.sampled, Shadow::pickValue(r.patchDigest, d.nodeId) < 10);
        }
        QCOMPARE(r.witnessState, std::string("recorded"));
    }

    void pickFormulaEqualsPythonHashlib_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("node");
        QTest::newRow("plain") << QStringLiteral("diff --git a/x b/x\n")
                               << QStringLiteral("tests/test_a.py::test_one");
        QTest::newRow("param") << QString() << QStringLiteral("tests/test_b.py::test_p[1-2]");
        QTest::newRow("class") << QStringLiteral("@@ -1 +1 @@\n-a\n+b\n")
                               << QStringLiteral("tests/t.py::TestC::test_m");
        QTest::newRow("unicode") << QStringLiteral("é\n") << QStringLiteral("tests/t.py::test_ü");
    }

    void pickFormulaEqualsPythonHashlib()
    {
        QFETCH(QString, text);
        QFETCH(QString, node);
        const std::string p = Shadow::patchDigest(text.toStdString());
        const int expected = pythonPick(p, node.toStdString());
        QVERIFY(expected >= 0);
        QCOMPARE(Shadow::pickValue(p, node.toStdString()), expected);
        QCOMPARE(Shadow::picked(p, node.toStdString(), expected + 1), true);
        QCOMPARE(Shadow::picked(p, node.toStdString(), expected), false);
    }

    void witnessLedgerReusedAndRetaken()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        const std::string head = commitHead(repo);
        ShadowOptions options;
        options.dryRun = true;
        const ShadowReport first = shadow(repo, base, head, options);
        QCOMPARE(first.witnessState, std::string("recorded"));
        QCOMPARE(first.runs.size(), size_t(2)); // witness + head collection
        const std::string path = first.witnessPath;
        // In our cache (beside the trees), keyed by the whole base commit and the plugin.
        const std::string cached = cacheDir() + "/trees/witness/witness-" + base + "-";
        QVERIFY2(path.compare(0, cached.size(), cached) == 0, path.c_str());
        QVERIFY2(path.find("-" + RunEnvironment::pluginHash() + ".json") != std::string::npos,
                 path.c_str());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(repo.root() + "/.patchwitness/runs")));
        const std::optional<std::string> stored = readWholeFile(path);
        QVERIFY(stored);
        QCOMPARE(WitnessLedger::parse(*stored, path).rows.size(), size_t(12));

        const ShadowReport second = shadow(repo, base, head, options);
        QCOMPARE(second.witnessState, std::string("reused"));
        QCOMPARE(second.runs.size(), size_t(1)); // the head collection only
        QCOMPARE(second.decisions.size(), first.decisions.size());
        QCOMPARE(second.patchDigest, first.patchDigest);

        options.rewitness = true;
        const ShadowReport third = shadow(repo, base, head, options);
        QCOMPARE(third.witnessState, std::string("recorded"));
        QCOMPARE(third.runs.size(), size_t(2));

        // A damaged ledger is not trusted: a new witness is taken (the cache is ours) and
        // the damage named by file:line.
        options.rewitness = false;
        QVERIFY(writeFileAtomically(path, stored->substr(0, stored->size() / 2)));
        const ShadowReport fourth = shadow(repo, base, head, options);
        QCOMPARE(fourth.witnessState, std::string("recorded"));
        QCOMPARE(fourth.runs.size(), size_t(2));
        QVERIFY(!fourth.warnings.empty());
        const QString warning = QString::fromStdString(fourth.warnings.front());
        QVERIFY2(QRegularExpression(QRegularExpression::escape(QString::fromStdString(
                                        "taking a new base witness: " + path + ":")) +
                                    QStringLiteral("[0-9]+:[0-9]+: "))
                     .match(warning)
                     .hasMatch(),
                 qPrintable(warning));
        QCOMPARE(WitnessLedger::parse(*readWholeFile(path), path).rows.size(), size_t(12));
    }

    // The ledger directory is the reviewed worktree's: a witness planted there (by a
    // WORKTREE head's author) that lists no files would skip every test. It is never read.
    void witnessPlantedInTheWorktreeIsIgnored()
    {
        RepoBuilder repo;
        repo.write("pkg/__init__.py", "");
        repo.write("pkg/calc.py", "def add(a, b):\n    return a + b\n");
        repo.write("tests/test_calc.py",
                   "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n");
        repo.write("tests/test_plain.py", "def test_plain():\n    assert True\n");
        const std::string base = repo.commit("base");
        repo.write("pkg/calc.py", "def add(a, b):\n    return b + a\n");
        ShadowOptions options;
        options.dryRun = true;
        const std::string node = "tests/test_calc.py::test_add";
        const ShadowReport honest = shadow(repo, base, "WORKTREE", options);
        QVERIFY2(honest.harnessError.empty(), qPrintable(dump(honest)));
        QCOMPARE(decision(honest, node)->reason,
                 std::string("witnessed import pkg/calc.py changed"));

        // The forgery: the real witness with every file list emptied, under the old and the
        // new names, in the worktree's ledger directory; our cached witness is gone.
        WitnessLedger forged = honest.witness;
        for (WitnessRow &row : forged.rows)
            row.files.clear();
        const std::string runs = repo.root() + "/.patchwitness/runs/";
        const std::string name =
            QFileInfo(QString::fromStdString(honest.witnessPath)).fileName().toStdString();
        forged.write(runs +
                     WitnessLedger::fileName(base, honest.envDigest, RunEnvironment::pluginHash()));
        forged.write(runs + "witness-" + base.substr(0, 12) + "-" + honest.envDigest + ".json");
        forged.write(runs + name);
        QVERIFY(QFile::remove(QString::fromStdString(honest.witnessPath)));
        const ShadowReport planted = shadow(repo, base, "WORKTREE", options);
        QVERIFY2(planted.harnessError.empty(), qPrintable(dump(planted)));
        QCOMPARE(planted.witnessState, std::string("recorded")); // a fresh witness
        QCOMPARE(planted.runs.size(), size_t(2));
        QVERIFY(decision(planted, node)->run);
        QCOMPARE(decision(planted, node)->reason,
                 std::string("witnessed import pkg/calc.py changed"));

        // Control: the same forgery where the witness is kept would skip the test.
        forged.write(planted.witnessPath);
        const ShadowReport fooled = shadow(repo, base, "WORKTREE", options);
        QCOMPARE(fooled.witnessState, std::string("reused"));
        QVERIFY(!decision(fooled, node)->run);
        QCOMPARE(decision(fooled, node)->reason, std::string("witnessed"));
    }

    void ambientDriftRunsTheWholeSuite()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        const std::string head = commitHead(repo);
        ShadowOptions options;
        options.dryRun = true;
        const ShadowReport first = shadow(repo, base, head, options);
        // The stored witness as if taken under another TZ/LANG: its ambient fingerprint.
        WitnessLedger ledger = first.witness;
        for (WitnessRow &row : ledger.rows)
            row.ambientFp = "0000000000000000";
        ledger.write(first.witnessPath);
        const ShadowReport r = shadow(repo, base, head, options);
        QCOMPARE(r.witnessState, std::string("reused"));
        QVERIFY(r.ambientDrift);
        QCOMPARE(r.skipped(), 0);
        QCOMPARE(decision(r, "tests/test_plain.py::test_plain")->reason,
                 std::string("ambient drift"));
    }

    // Files no witness can list: pytest configuration and non-Python fixture files run the
    // whole suite, a conftest.py on a test's path runs the test, anything else is a warning.
    void configFixtureAndConftestChangesRun()
    {
        RepoBuilder repo;
        repo.write("pytest.ini", "[pytest]\n");
        repo.write("README.md", "# demo\n");
        repo.write("notes.txt", "a\n");
        repo.write("tests/fixtures/input.json", "{}\n");
        repo.write("tests/test_top.py", "def test_top():\n    assert True\n");
        repo.write("tests/sub/test_low.py", "def test_low():\n    assert True\n");
        const std::string base = repo.commit("base");
        ShadowOptions options;
        options.dryRun = true;

        repo.write("tests/sub/conftest.py", "X = 1\n");
        repo.write("README.md", "# demo, changed\n");
        repo.write("notes.txt", "b\n");
        ShadowReport r = shadow(repo, base, repo.commit("conftest"), options);
        QVERIFY2(r.harnessError.empty(), qPrintable(dump(r)));
        QVERIFY(r.suiteChange.empty());
        QCOMPARE(decision(r, "tests/sub/test_low.py::test_low")->reason,
                 std::string("conftest.py on its path changed: tests/sub/conftest.py"));
        QCOMPARE(decision(r, "tests/test_top.py::test_top")->reason, std::string("witnessed"));
        const std::string warnings = [&] {
            std::string all;
            for (const std::string &w : r.warnings)
                all += w + "\n";
            return all;
        }();
        QVERIFY2(warnings.find("notes.txt changed and no witness lists it") != std::string::npos,
                 warnings.c_str());
        QVERIFY2(warnings.find("README.md") == std::string::npos, warnings.c_str());

        repo.write("tests/fixtures/input.json", "{\"a\": 1}\n");
        r = shadow(repo, base, repo.commit("fixture"), options);
        QCOMPARE(r.suiteChange, std::string("fixture file changed: tests/fixtures/input.json"));
        QCOMPARE(r.skipped(), 0);

        repo.write("pytest.ini", "[pytest]\naddopts = -q\n");
        r = shadow(repo, base, repo.commit("config"), options);
        QCOMPARE(r.suiteChange, std::string("pytest configuration changed: pytest.ini"));
        QCOMPARE(decision(r, "tests/test_top.py::test_top")->reason,
                 std::string("pytest configuration changed: pytest.ini"));
        QVERIFY(dump(r).contains(QStringLiteral("pytest configuration changed: pytest.ini: "
                                                "whole suite")));
    }

    // A test that failed in the witness run stopped early: its files are partial. A freeze
    // is active up to the day before it expires.
    void failedWitnessRunsAndFreezeEndsOnItsExpiry()
    {
        RepoBuilder repo;
        repo.write("tests/test_broken.py", "def test_broken():\n    assert 1 == 2\n");
        repo.write("tests/test_ok.py", "def test_ok():\n    assert True\n");
        repo.write(".patchwitness/quarantine.toml", freeze("tests/test_broken.py::test_broken"));
        const std::string base = repo.commit("base");
        repo.write("notes.txt", "a\n");
        const std::string head = repo.commit("head");
        ShadowOptions options;
        options.dryRun = true;
        ShadowReport r = shadow(repo, base, head, options, "2024-05-13");
        QVERIFY2(r.harnessError.empty(), qPrintable(dump(r)));
        QCOMPARE(decision(r, "tests/test_broken.py::test_broken")->reason,
                 std::string("frozen until 2024-05-14"));
        r = shadow(repo, base, head, options, "2024-05-14"); // the expiry day: not frozen
        QCOMPARE(r.witnessState, std::string("reused"));
        QCOMPARE(decision(r, "tests/test_broken.py::test_broken")->reason,
                 std::string("witness run did not pass: fail"));
        QCOMPARE(decision(r, "tests/test_ok.py::test_ok")->reason, std::string("witnessed"));
    }

    // The witness ledger written under .patchwitness/ is untracked in the worktree: it is
    // no part of a WORKTREE head's patch.
    void worktreeHeadIgnoresTheLedgerDirectory()
    {
        RepoBuilder repo;
        repo.write("tests/test_ok.py", "def test_ok():\n    assert True\n");
        const std::string base = repo.commit("base");
        repo.write("notes.txt", "a\n");
        ShadowOptions options;
        options.dryRun = true;
        // An attribution record written there earlier: untracked, like everything we write.
        QVERIFY(writeFileAtomically(repo.root() + "/.patchwitness/runs/2024-05-09-x.json", "{}",
                                    /*createDirs=*/true));
        const ShadowReport first = shadow(repo, base, "WORKTREE", options);
        QVERIFY2(first.harnessError.empty(), qPrintable(dump(first)));
        QVERIFY(QFileInfo::exists(QString::fromStdString(first.witnessPath)));
        const ShadowReport second = shadow(repo, base, "WORKTREE", options);
        QCOMPARE(second.witnessState, std::string("reused"));
        QCOMPARE(second.changedPaths, 1);
        QCOMPARE(second.patchDigest, first.patchDigest);
        // Diff coverage's changed lines leave it out too.
        const RunContext ctx = RunContext::open(request(repo, base, "WORKTREE"));
        DiffOptions diffOptions;
        diffOptions.contextLines = 0;
        diffOptions.intraline = false;
        const PatchDiff all =
            Repository::open(ctx.repoRoot()).diff(ctx.base(), ctx.head(), diffOptions);
        QVERIFY(all.files.size() > 1); // the raw diff has the untracked record
        const ChangedLines lines = ChangedLines::fromDiff(withoutLedgerDir(all, ctx));
        QCOMPARE(lines.unmeasured, std::vector<std::string>{"notes.txt (not Python)"});
    }

    // Selected tests that gave no evidence at head (a per-test timeout, not collected)
    // make the report no result, naming them.
    void noEvidenceIsNoResult()
    {
        ShadowReport r;
        r.headRan = true;
        ShadowDecision ok;
        ok.nodeId = "t.py::ok";
        ok.outcome = Outcome::Pass;
        ShadowDecision slow = ok;
        slow.nodeId = "t.py::slow";
        slow.outcome = Outcome::HarnessError;
        ShadowDecision gone = ok;
        gone.nodeId = "t.py::gone";
        gone.run = false;
        gone.sampled = true;
        gone.outcome = Outcome::NotCollected;
        r.decisions = {ok, slow, gone};
        QCOMPARE(r.noEvidence().size(), size_t(2));
        QVERIFY2(dump(r).contains(QStringLiteral(
                     "no result: 2 selected test(s) gave no evidence at head: t.py::slow "
                     "(harness_error), t.py::gone (not_collected)")),
                 qPrintable(dump(r)));
        const nlohmann::json j = nlohmann::json::parse(formatShadowJson(r));
        QCOMPARE(j["counts"]["no_evidence"].get<int>(), 2);
        const std::vector<pw::core::Finding> found = r.findings();
        QCOMPARE(found.size(), size_t(2));
        QCOMPARE(found.front().code, std::string("S-NO-EVIDENCE"));
        QCOMPARE(found.front().severity, pw::core::Severity::Review);
        QVERIFY2(found.back().message.find("(not collected)") != std::string::npos,
                 found.back().message.c_str());
        ShadowDecision broken = ok;
        broken.nodeId = "t.py::broken";
        broken.outcome = Outcome::Fail;
        r.decisions = {ok, broken};
        QCOMPARE(r.findings().size(), size_t(1));
        QCOMPARE(r.findings().front().code, std::string("S-FAIL"));
        QCOMPARE(r.findings().front().severity, pw::core::Severity::Block);
        r.dryRun = true; // a dry run decides; it finds nothing
        QVERIFY(r.findings().empty());
        r.dryRun = false;
        r.decisions = {ok};
        QVERIFY(dump(r).contains(QStringLiteral("OK: every selected and sampled test passed")));
    }

    void garbledWitnessRowsNameTheLine()
    {
        const std::string good =
            R"({"nodeid": "t.py::a", "fixture_fp": "x", "ambient_fp": "y", "files": ["t.py"]})";
        WitnessRowsFile f = parseWitnessRows(good + "\n{not json\n" + good + "\n", "w.jsonl");
        QCOMPARE(f.error, std::string("w.jsonl:2: not JSON"));
        f = parseWitnessRows(
            good + "\n" + R"({"nodeid": "t.py::b", "fixture_fp": 3, "ambient_fp": "y"})" + "\n",
            "w.jsonl");
        QCOMPARE(f.error, std::string("w.jsonl:2: \"fixture_fp\" missing or not a string"));
        f = parseWitnessRows(
            good + "\n" +
                R"({"nodeid": "t.py::b", "fixture_fp": "x", "ambient_fp": "y", "files": "t.py"})" +
                "\n",
            "w.jsonl");
        QCOMPARE(f.error, std::string("w.jsonl:2: \"files\" is not a list"));
        f = parseWitnessRows(good + "\n{\"nodeid\": \"t.py::b\", \"fix", "w.jsonl");
        QVERIFY(f.ok());
        QVERIFY(f.tornTail);
        QCOMPARE(f.rows.size(), size_t(1));
        QVERIFY(f.rows.front().hasFiles);
        // A garbled line leaves no rows: nothing acts on part of a damaged file.
        f = parseWitnessRows(good + "\n{not json\n", "w.jsonl");
        QVERIFY(!f.ok());
        QVERIFY(f.rows.empty());
        QVERIFY(!readWitnessRows("/nonexistent/w.jsonl").ok());
        try {
            WitnessLedger::parse("{\"schema\": \"patchwitness.witness/1\", \"rows\": []}",
                                 "l.json");
            QFAIL("a ledger without base_commit parsed");
        } catch (const Error &e) {
            QCOMPARE(std::string(e.what()),
                     std::string("l.json: \"base_commit\" missing or not a string"));
        }
    }

    void cliExitCodesAndJson()
    {
        RepoBuilder repo;
        const std::string base = commitBase(repo);
        const std::string head = commitHead(repo);
        const QStringList common{QStringLiteral("shadow"),
                                 QStringLiteral("--repo"),
                                 QString::fromStdString(repo.root()),
                                 QStringLiteral("--base"),
                                 QString::fromStdString(base),
                                 QStringLiteral("--head"),
                                 QString::fromStdString(head),
                                 QStringLiteral("--python"),
                                 QString::fromStdString(pw::test::testPython()),
                                 QStringLiteral("--cache-dir"),
                                 QString::fromStdString(cacheDir() + "/trees"),
                                 QStringLiteral("--today"),
                                 QStringLiteral("2024-05-10"),
                                 QStringLiteral("--no-sandbox")};
        QProcess cli;
        cli.start(QStringLiteral(PW_CLI_PATH), QStringList(common) << QStringLiteral("--dry-run")
                                                                   << QStringLiteral("--format")
                                                                   << QStringLiteral("json"));
        QVERIFY(cli.waitForFinished(120000));
        const QByteArray err = cli.readAllStandardError();
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY2(err.contains("taking the base witness"), err.constData());
        const nlohmann::json doc = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
        QCOMPARE(doc.at("schema").get<std::string>(), std::string("patchwitness.shadow-report/1"));
        QCOMPARE(doc.at("dry_run").get<bool>(), true);
        QCOMPARE(doc.at("decisions").size(), size_t(13));
        QCOMPARE(doc.at("counts").at("run").get<int>(), 10);
        QCOMPARE(doc.at("witness").at("state").get<std::string>(), std::string("recorded"));

        cli.start(QStringLiteral(PW_CLI_PATH),
                  QStringList(common) << QStringLiteral("--pct") << QStringLiteral("100"));
        QVERIFY(cli.waitForFinished(120000));
        const QByteArray text = cli.readAllStandardOutput();
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY2(text.contains("witness bug: tests/test_lazy.py::test_lazy") &&
                     text.contains("witness: reused"),
                 text.constData());

        cli.start(QStringLiteral(PW_CLI_PATH),
                  QStringList(common) << QStringLiteral("--pct") << QStringLiteral("0"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0); // the selected tests pass; nothing sampled
        QVERIFY(cli.readAllStandardOutput().contains("OK: every selected"));

        cli.start(QStringLiteral(PW_CLI_PATH),
                  QStringList(common) << QStringLiteral("--pct") << QStringLiteral("200"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 3);
        QVERIFY(cli.readAllStandardError().contains("--pct"));

        cli.start(QStringLiteral(PW_CLI_PATH),
                  QStringList(common) << QStringLiteral("--head") << QStringLiteral("nope"));
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 3);
        QVERIFY(cli.readAllStandardError().contains("nope"));
    }
};

QTEST_GUILESS_MAIN(TestShadow)
#include "tst_shadow.moc"
