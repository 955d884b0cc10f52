// The bundled pytest plugin (the package resources/python/pw_plugin/) run for real
// through PytestRun on each pytest line (Debian's pytest 7.2, pytest 8.x, the newest release:
// every test function is one row a line): seeded order, per-test random seed, witness_seed,
// JSONL rows that survive a killed interpreter, the collect-only census dump, loading from
// the private directory without the project's cooperation, subtests, and the other
// shufflers — pytest-randomly tamed, pytest-random-order and a late reordering refused.

#include "PytestLines.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "execution/OutcomeRows.h"
#include "execution/PytestRun.h"
#include "util/Files.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

using nlohmann::json;
using pw::core::PytestRun;
using pw::core::RunEnvironment;
using pw::core::RunResult;
using pw::core::RunSpec;

namespace {

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty())
            out.push_back(line);
    }
    return out;
}

std::string readText(const std::string &path)
{
    return pw::core::readWholeFile(path).value_or(std::string());
}

struct Witnessed
{
    RunResult result;
    std::vector<std::string> order; // the run-order log
    std::string rowsText;           // the JSONL file as written
    std::vector<json> rows;
};

struct Project
{
    explicit Project(std::string interpreter) : python(std::move(interpreter)) {}

    QTemporaryDir dir;
    std::string python; // the row's pytest line
    int runs = 0;
    std::string tree() const { return dir.path().toStdString() + "/tree"; }
    std::string path(const std::string &name) const
    {
        return dir.path().toStdString() + "/" + name;
    }
    void write(const std::string &file, const std::string &content) const
    {
        pw::test::writeText(tree(), file, content);
    }

    // A run with the plugin enabled, in a fresh run directory.
    RunSpec spec(uint32_t seed)
    {
        const std::string runDir = path("run" + std::to_string(++runs));
        RunSpec spec = pw::test::runSpec(tree(), runDir, python);
        spec.env.witness.enabled = true;
        spec.env.witness.seed = seed;
        spec.env.witness.outFile = runDir + "/outcomes.jsonl";
        spec.env.witness.orderFile = runDir + "/order.txt";
        spec.env.witness.arm = "head";
        spec.env.witness.runId = "r" + std::to_string(runs);
        QDir().mkpath(QString::fromStdString(runDir));
        return spec;
    }

    Witnessed run(const RunSpec &spec) const
    {
        Witnessed w;
        w.result = PytestRun(spec).run();
        w.order = lines(readText(spec.env.witness.orderFile));
        w.rowsText = readText(spec.env.witness.outFile);
        for (const std::string &line : lines(w.rowsText))
            w.rows.push_back(json::parse(line));
        return w;
    }
    Witnessed run(uint32_t seed) { return run(spec(seed)); }

    // pytest's own order, without the plugin: `--collect-only -q` prints one id a line.
    std::vector<std::string> plainOrder()
    {
        RunSpec plain = pw::test::runSpec(tree(), path("plain"), python);
        plain.extraArgs = QStringList{QStringLiteral("--collect-only")};
        const RunResult r = PytestRun(plain).run();
        std::vector<std::string> ids;
        for (const std::string &line : lines(r.stdoutTail)) {
            if (line.find("::") != std::string::npos)
                ids.push_back(line);
        }
        return ids;
    }
};

// Ten tests over two files: enough that a shuffle equal to the identity is implausible.
void writeTenTests(const Project &p)
{
    std::string a, b;
    for (int i = 0; i < 5; ++i) {
        a += "def test_a" + std::to_string(i) + "():\n    pass\n\n";
        b += "def test_b" + std::to_string(i) + "():\n    pass\n\n";
    }
    p.write("tests/test_a.py", a);
    p.write("tests/test_b.py", b);
}

const json *callRow(const std::vector<json> &rows, const std::string &nodeId)
{
    for (const json &row : rows) {
        if (row.value("nodeid", "") == nodeId && row.value("when", "") == "call")
            return &row;
    }
    return nullptr;
}

} // namespace

class TestPlugin : public QObject
{
    Q_OBJECT

    std::string m_python; // the current row's interpreter (init)
    pw::test::PytestLine m_line = pw::test::PytestLine::V7;

private Q_SLOTS:
    void initTestCase_data() { pw::test::addPytestLineRows(); }
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // stage under ~/.qttest, not the user cache
        QVERIFY(!RunEnvironment::pluginFiles().empty());
    }
    // Every test function on each line; a line without its venv fails (pip's words), never
    // skips.
    void init()
    {
        QFETCH_GLOBAL(pw::test::PytestLine, line);
        const pw::test::PinnedPython pinned = pw::test::pytestPython(line);
        QVERIFY2(pinned.ok(), pinned.error.c_str());
        m_python = pinned.python;
        m_line = line;
    }

    void seedZeroKeepsPytestsOrder()
    {
        Project p(m_python);
        writeTenTests(p);
        const std::vector<std::string> plain = p.plainOrder();
        QCOMPARE(plain.size(), size_t(10));
        const Witnessed w = p.run(0);
        QCOMPARE(w.result.exitCode, 0);
        QCOMPARE(w.order, plain);
    }

    void seedShufflesDeterministically()
    {
        Project p(m_python);
        writeTenTests(p);
        const Witnessed zero = p.run(0);
        const Witnessed first = p.run(7);
        const Witnessed second = p.run(7);
        QCOMPARE(first.result.exitCode, 0);
        QCOMPARE(first.order.size(), size_t(10));
        QCOMPARE(first.order, second.order);
        QVERIFY(first.order != zero.order);
        std::vector<std::string> a = first.order, b = zero.order;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        QCOMPARE(a, b); // a permutation: nothing lost or repeated
        QVERIFY(p.run(8).order != first.order);
    }

    void randomIsSeededPerTestAndWitnessSeedIsTheSeed()
    {
        Project p(m_python);
        // Each test writes random.random() and witness_seed to <values>/<name>.
        const std::string values = p.path("values");
        QDir().mkpath(QString::fromStdString(values));
        p.write("tests/test_rand.py",
                "import random\n\n"
                "def record(name, seed):\n"
                "    with open('" +
                    values +
                    "/' + name, 'w') as f:\n"
                    "        f.write('%r %d' % (random.random(), seed))\n\n"
                    "def test_one(witness_seed):\n"
                    "    random.random()  # consumes; the next test is reseeded\n"
                    "    record('one', witness_seed)\n\n"
                    "def test_two(witness_seed):\n"
                    "    random.random()\n"
                    "    record('two', witness_seed)\n");
        auto valuesOf = [&](uint32_t seed) {
            const Witnessed w = p.run(seed);
            if (w.result.exitCode != 0)
                qWarning("%s", w.result.stdoutTail.c_str());
            return std::make_pair(readText(values + "/one"), readText(values + "/two"));
        };
        const auto three = valuesOf(3);
        QVERIFY(!three.first.empty());
        QCOMPARE(three.first, three.second); // both tests start from random.seed(3)
        QVERIFY(three.first.size() > 2 && three.first.substr(three.first.size() - 2) == " 3");
        QCOMPARE(valuesOf(3), three);
        const auto four = valuesOf(4);
        QVERIFY(four.first != three.first);
        QVERIFY(four.first.substr(four.first.size() - 2) == " 4");
        const auto zero = valuesOf(0);
        QVERIFY(zero.first.substr(zero.first.size() - 2) == " 0");
    }

    void outcomeRowsAreCompleteAndParseable()
    {
        Project p(m_python);
        p.write("tests/test_mixed.py", "import pytest\n\n"
                                       "def test_pass():\n    pass\n\n"
                                       "def test_fail():\n    assert 1 == 2\n\n"
                                       "@pytest.mark.skip(reason='no')\n"
                                       "def test_skip():\n    pass\n\n"
                                       "def test_inline_skip():\n    pytest.skip('later')\n");
        const Witnessed w = p.run(5);
        QCOMPARE(w.result.exitCode, 1);
        const std::string file = "tests/test_mixed.py::";
        QCOMPARE(callRow(w.rows, file + "test_pass")->value("outcome", ""), std::string("passed"));
        QCOMPARE(callRow(w.rows, file + "test_fail")->value("outcome", ""), std::string("failed"));
        QCOMPARE(callRow(w.rows, file + "test_inline_skip")->value("outcome", ""),
                 std::string("skipped"));
        QVERIFY(!callRow(w.rows, file + "test_skip")); // skipped in setup: no call phase
        int calls = 0;
        for (const json &row : w.rows) {
            for (const char *key : {"run", "arm", "nodeid", "when", "outcome", "duration", "seed"})
                QVERIFY2(row.contains(key), key);
            QCOMPARE(row["run"].get<std::string>(), std::string("r1"));
            QCOMPARE(row["arm"].get<std::string>(), std::string("head"));
            QCOMPARE(row["seed"].get<int>(), 5);
            QVERIFY(row["duration"].is_number() && row["duration"].get<double>() >= 0);
            calls += row["when"] == "call";
            if (row["nodeid"] == file + "test_skip" && row["when"] == "setup")
                QCOMPARE(row["outcome"].get<std::string>(), std::string("skipped"));
        }
        QCOMPARE(calls, 3);
        QCOMPARE(w.rows.size(), size_t(4 * 2 + 3)); // setup + teardown each, 3 calls
    }

    // The state probe: one leak row per kind of state a test leaves changed.
    void probeWritesLeakRows()
    {
        Project p(m_python);
        p.write("tests/helper_fresh.py", "VALUE = 1\n");
        p.write("tests/watched.py", "CACHE = []\n");
        p.write("tests/test_leaks.py",
                "import os, tempfile\n"
                "import watched\n\n"
                "def test_clean(tmp_path):\n"
                "    (tmp_path / 'inside_pytests_own_dir').write_text('ok')\n\n"
                "def test_env():\n    os.environ['PW_LEAKED_KEY'] = '1'\n\n"
                "def test_tmp():\n"
                "    with open(os.path.join(tempfile.gettempdir(), 'left-behind'), 'w'):\n"
                "        pass\n\n"
                "def test_import():\n    import helper_fresh\n\n"
                "def test_watched():\n    watched.CACHE.append(1)\n\n"
                "def test_restores(monkeypatch):\n"
                "    monkeypatch.setenv('PW_RESTORED', '1')\n");
        RunSpec spec = p.spec(0);
        spec.env.witness.probe = true;
        spec.env.witness.watch = {"watched"};
        const Witnessed w = p.run(spec);
        QVERIFY2(w.result.exitCode == 0, w.result.stdoutTail.c_str());
        std::map<std::string, std::vector<json>> leaks; // test name → its leak rows
        for (const json &row : w.rows) {
            if (row["when"] != "leak")
                continue;
            QCOMPARE(row["outcome"].get<std::string>(), std::string("leak"));
            QCOMPARE(row["seed"].get<int>(), 0);
            QCOMPARE(row["arm"].get<std::string>(), std::string("head"));
            const std::string id = row["nodeid"].get<std::string>();
            leaks[id.substr(id.rfind(':') + 1)].push_back(row);
        }
        // Empty when `test` has exactly one leak row, of `kind`, whose detail mentions
        // `mentions`; else what differs.
        auto only = [&](const std::string &test, const std::string &kind,
                        const std::string &mentions) -> std::string {
            const auto it = leaks.find(test);
            if (it == leaks.end() || it->second.size() != 1)
                return test + ": not exactly one leak row";
            const json &row = it->second[0];
            const std::string detail = row["detail"].get<std::string>();
            if (row["kind"] != kind || detail.find(mentions) == std::string::npos)
                return test + ": " + row.dump();
            return {};
        };
        for (const auto &[test, kind, mentions] :
             {std::make_tuple("test_env", "env", "added PW_LEAKED_KEY"),
              std::make_tuple("test_tmp", "tmp", "added left-behind"),
              std::make_tuple("test_import", "modules", "added helper_fresh"),
              std::make_tuple("test_watched", "watched", "watched: changed CACHE")}) {
            const std::string problem = only(test, kind, mentions);
            QVERIFY2(problem.empty(), problem.c_str());
        }
        QVERIFY(!leaks.count("test_clean"));    // pytest's own tmp_path is not a leak
        QVERIFY(!leaks.count("test_restores")); // monkeypatch undid it
        QCOMPARE(leaks.size(), size_t(4));

        const Witnessed off = p.run(p.spec(0)); // off by default
        for (const json &row : off.rows)
            QVERIFY(row["when"] != "leak");
    }

    // The trial budget caps the run; the rest is deselected and said to be.
    void budgetCapsTheRun()
    {
        Project p(m_python);
        std::string tests;
        for (int i = 0; i < 5; ++i)
            tests += "def test_" + std::to_string(i) + "():\n    pass\n\n";
        p.write("tests/test_five.py", tests);
        RunSpec spec = p.spec(0);
        spec.env.witness.budget = 2;
        const Witnessed w = p.run(spec);
        QVERIFY2(w.result.exitCode == 0, w.result.stdoutTail.c_str());
        QCOMPARE(w.order, (std::vector<std::string>{"tests/test_five.py::test_0",
                                                    "tests/test_five.py::test_1"}));
        QCOMPARE(w.result.outcomes.size(), size_t(2));
        int budgetRows = 0;
        for (const json &row : w.rows) {
            if (row["when"] != "budget")
                continue;
            ++budgetRows;
            QCOMPARE(row["outcome"].get<std::string>(), std::string("budget_exhausted"));
            QCOMPARE(row["nodeid"].get<std::string>(), std::string("tests/test_five.py::test_2"));
            QCOMPARE(row["not_run"].get<int>(), 3);
        }
        QCOMPARE(budgetRows, 1);
        QVERIFY(w.result.stdoutTail.find("3 deselected") != std::string::npos);

        RunSpec roomy = p.spec(0); // a budget the run stays within: no row
        roomy.env.witness.budget = 5;
        const Witnessed all = p.run(roomy);
        QCOMPARE(all.order.size(), size_t(5));
        for (const json &row : all.rows)
            QVERIFY(row["when"] != "budget");
    }

    void killedInterpreterLeavesOnlyCompleteLines()
    {
        Project p(m_python);
        p.write("tests/test_die.py",
                "import os, signal\n\n"
                "def test_ok():\n    pass\n\n"
                "def test_dies():\n    os.kill(os.getpid(), signal.SIGKILL)\n\n"
                "def test_never():\n    pass\n");
        const Witnessed w = p.run(0);
        QCOMPARE(w.result.status, pw::core::RunStatus::Crashed);
        QVERIFY(!w.rowsText.empty() && w.rowsText.back() == '\n');
        QCOMPARE(size_t(std::count(w.rowsText.begin(), w.rowsText.end(), '\n')), w.rows.size());
        QCOMPARE(callRow(w.rows, "tests/test_die.py::test_ok")->value("outcome", ""),
                 std::string("passed"));
        QVERIFY(!callRow(w.rows, "tests/test_die.py::test_dies"));
        QCOMPARE(w.rows.back().value("nodeid", ""), std::string("tests/test_die.py::test_dies"));
        QCOMPARE(w.rows.back().value("when", ""), std::string("setup"));
        QCOMPARE(w.order.back(), std::string("tests/test_die.py::test_dies")); // the culprit
    }

    void collectOnlyCensusDump()
    {
        Project p(m_python);
        p.write("tests/test_census.py",
                "import sys\nimport pytest\n\n"
                "@pytest.mark.parametrize('x', ['a[1]', 'b c', 3])\n"
                "def test_param(x):\n    pass\n\n"
                "@pytest.mark.skipif(sys.version_info > (3,), reason='always at collection')\n"
                "def test_skipped():\n    pass\n\n"
                "@pytest.mark.skipif(sys.version_info < (3,), reason='never')\n"
                "@pytest.mark.slow\n"
                "def test_kept():\n    pass\n");
        RunSpec spec = p.spec(0);
        spec.env.witness.collectFile = p.path("census.json");
        spec.extraArgs = QStringList{QStringLiteral("--collect-only")};
        const Witnessed w = p.run(spec);
        QCOMPARE(w.result.exitCode, 0);
        QVERIFY(w.rows.empty()); // nothing ran
        const json dump = json::parse(readText(p.path("census.json")));
        const std::vector<std::string> expected = {
            "tests/test_census.py::test_param[a[1]]", "tests/test_census.py::test_param[b c]",
            "tests/test_census.py::test_param[3]", "tests/test_census.py::test_skipped",
            "tests/test_census.py::test_kept"};
        QCOMPARE(dump["count"].get<int>(), 5);
        std::vector<std::string> ids;
        for (const json &node : dump["nodes"])
            ids.push_back(node["nodeid"].get<std::string>());
        QCOMPARE(ids, expected);
        QCOMPARE(ids, p.plainOrder());
        std::vector<std::string> sorted = ids;
        std::sort(sorted.begin(), sorted.end());
        std::string joined;
        for (const std::string &id : sorted)
            joined += id + "\n";
        QCOMPARE(dump["sha256"].get<std::string>(), pw::core::sha256Hex(joined));
        QCOMPARE(dump["digest"].get<std::string>(), pw::core::sha256Hex(joined, 16));
        QCOMPARE(dump["arm"].get<std::string>(), std::string("head"));
        auto node = [&](int i) { return dump["nodes"][size_t(i)]; };
        QCOMPARE(node(0)["skipped"].get<bool>(), false);
        QCOMPARE(node(0)["markers"].dump(), json::array({"parametrize"}).dump());
        QCOMPARE(node(3)["skipped"].get<bool>(), true);
        QCOMPARE(node(3)["markers"].dump(), json::array({"skipif"}).dump());
        QCOMPARE(node(4)["skipped"].get<bool>(), false);
        QCOMPARE(node(4)["markers"].dump(), json::array({"skipif", "slow"}).dump());

        // A seeded run shuffles execution, never the census's collection order.
        RunSpec seeded = p.spec(7);
        seeded.env.witness.collectFile = p.path("census7.json");
        seeded.extraArgs = QStringList{QStringLiteral("--collect-only")};
        p.run(seeded);
        QCOMPARE(json::parse(readText(p.path("census7.json")))["nodes"].dump(),
                 dump["nodes"].dump());
    }

    void loadsFromThePrivateDirectoryWithoutTheProjectsHelp()
    {
        Project p(m_python); // no conftest, no setup.cfg, no entry point; autoload off
        p.write("tests/test_env.py",
                "import os, sys\n\n"
                "def test_loaded(request):\n"
                "    assert os.environ['PYTEST_DISABLE_PLUGIN_AUTOLOAD'] == '1'\n"
                "    assert os.environ['PYTHONPATH'] == '" +
                    RunEnvironment::pluginDir() +
                    "'\n"
                    "    assert request.config.pluginmanager.has_plugin('pw_plugin')\n"
                    "    assert "
                    "sys.modules['pw_plugin'].__file__.startswith(os.environ['PYTHONPATH'])\n"
                    // Out of the environment once loaded: a pytest the test starts in a
                    // subprocess runs without it.
                    "    assert 'PYTEST_PLUGINS' not in os.environ\n"
                    // Seams whose options were not given are not in the hooks' way.
                    "    for seam in ('pw_clock', 'pw_test_timer', 'pw_witness', 'pw_cover',\n"
                    "                 'pw_probe', 'pw_replays'):\n"
                    "        assert not request.config.pluginmanager.has_plugin(seam), seam\n");
        const Witnessed w = p.run(2);
        QVERIFY2(w.result.exitCode == 0, w.result.stdoutTail.c_str());
        QCOMPARE(w.rows.size(), size_t(3));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(p.tree() + "/conftest.py")));
        // The directory holds the package and nothing else (its bytecode cache aside).
        const QDir dir(QString::fromStdString(RunEnvironment::pluginDir()));
        QCOMPARE(dir.entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("pw_plugin")});
        QStringList staged = dir.entryList(QStringList{QStringLiteral("*")}, QDir::Files);
        for (const QString &file :
             QDir(dir.filePath(QStringLiteral("pw_plugin"))).entryList(QDir::Files, QDir::Name))
            staged << QStringLiteral("pw_plugin/") + file;
        QStringList expected;
        for (const auto &file : RunEnvironment::pluginFiles())
            expected << QString::fromStdString(file.first);
        QCOMPARE(staged, expected);
        QVERIFY(expected.contains(QStringLiteral("pw_plugin/__init__.py")));
        QVERIFY(w.result.command.find(" PYTEST_PLUGINS=pw_plugin ") != std::string::npos);
        QVERIFY(w.result.command.find("no:cacheprovider --pw-seed 2") != std::string::npos);
    }

    void stagingRepairsADamagedCopy()
    {
        const std::string dir = RunEnvironment::pluginDir();
        QVERIFY(dir.find(RunEnvironment::pluginHash()) != std::string::npos);
        const auto &[path, text] = RunEnvironment::pluginFiles().back();
        pw::test::writeText(dir, path, "raise SystemExit('damaged')\n");
        QFile::remove(QString::fromStdString(dir + "/pw_plugin/__init__.py"));
        QCOMPARE(RunEnvironment::pluginDir(), dir);
        QCOMPARE(readText(dir + "/" + path), text);
        for (const auto &file : RunEnvironment::pluginFiles())
            QCOMPARE(readText(dir + "/" + file.first), file.second);
    }

    void argumentsAndEnvironment()
    {
        RunEnvironment env;
        env.witness.enabled = true;
        env.witness.seed = 9;
        env.witness.outFile = "/r/o.jsonl";
        env.witness.arm = "base";
        const QStringList args = env.pytestArguments("/r/junit.xml");
        // Named in the environment, not with `-p` (whose entry-point search costs more).
        QVERIFY(!args.contains(QStringLiteral("pw_plugin")));
        const int at = int(args.indexOf(QStringLiteral("--pw-seed"))) - 1;
        QVERIFY(at > 0 && args[at] == QStringLiteral("no:cacheprovider"));
        // Path-valued options as one token: pytest's first pass would take a separate,
        // existing path for a test path and move the rootdir (node ids "tree/tests/…").
        QCOMPARE(args.mid(at + 1, 4),
                 (QStringList{"--pw-seed", "9", "--pw-out=/r/o.jsonl", "--pw-arm=base"}));
        for (const QString &arg : args) // empty or off: not passed
            QVERIFY2(!arg.startsWith(QLatin1String("--pw-order")) &&
                         !arg.startsWith(QLatin1String("--pw-probe")) &&
                         !arg.startsWith(QLatin1String("--pw-budget")) &&
                         !arg.startsWith(QLatin1String("--pw-replay")),
                     qPrintable(arg));
        env.witness.probe = true;
        env.witness.watch = {"a", "b.c"};
        env.witness.budget = 2000;
        env.witness.replayPlan = "/r/plan.json";
        env.witness.replayTimeoutMs = 2500;
        const QStringList more = env.pytestArguments("/r/junit.xml");
        const int probe = int(more.indexOf(QStringLiteral("--pw-probe")));
        QVERIFY(probe > at);
        QCOMPARE(more.mid(probe, 5),
                 (QStringList{"--pw-probe", "--pw-watch=a,b.c", "--pw-budget=2000",
                              "--pw-replays=/r/plan.json", "--pw-replay-timeout=2.5"}));
        QCOMPARE(env.environment().value(QStringLiteral("PYTHONPATH")),
                 QString::fromStdString(RunEnvironment::pluginDir()));
        QCOMPARE(env.environment().value(QStringLiteral("PYTEST_PLUGINS")),
                 QStringLiteral("pw_plugin"));
        env.extraVariables["PYTEST_PLUGINS"] = "theirs"; // a run's own plugin list keeps ours
        QCOMPARE(env.environment().value(QStringLiteral("PYTEST_PLUGINS")),
                 QStringLiteral("pw_plugin,theirs"));
        env.extraVariables["PYTEST_PLUGINS"] = ""; // an empty list: ours alone, not "pw_plugin,"
        QCOMPARE(env.environment().value(QStringLiteral("PYTEST_PLUGINS")),
                 QStringLiteral("pw_plugin"));
        env.extraVariables.clear();
        env.witness.enabled = false;
        QVERIFY(!env.pytestArguments("/r/junit.xml").contains(QStringLiteral("--pw-seed")));
        QVERIFY(!env.environment().contains(QStringLiteral("PYTHONPATH")));
        QVERIFY(!env.environment().contains(QStringLiteral("PYTEST_PLUGINS")));
    }

    void digestCoversThePluginButNotTheSeed()
    {
        pw::core::InterpreterProbe probe;
        probe.pythonVersion = "3.11.2";
        probe.pytestVersion = "7.2.1";
        probe.platform = "Linux-x86_64";
        RunEnvironment plain;
        RunEnvironment witnessed;
        witnessed.witness.enabled = true;
        const std::string digest = pw::core::envDigest(probe, witnessed);
        QVERIFY(digest != pw::core::envDigest(probe, plain));
        RunEnvironment reseeded = witnessed;
        reseeded.witness.seed = 11;
        reseeded.witness.outFile = "/elsewhere.jsonl";
        QCOMPARE(pw::core::envDigest(probe, reseeded), digest);
    }

    // pytest-xdist's workers are interpreters of their own that get the run's --pw-*
    // arguments: they load the plugin and write the rows, the controller none (no test's
    // rows twice).
    void xdistWorkersLoadThePluginAndWriteTheRows()
    {
        if (!pw::test::pythonImports(m_python, "xdist"))
            QSKIP("pytest-xdist is not importable by the test interpreter");
        Project p(m_python);
        writeTenTests(p);
        // The workers take the plugin out of their environment, as a plain run does.
        p.write("tests/test_env.py",
                "import os\n\ndef test_env():\n    assert 'PYTEST_PLUGINS' not in os.environ\n");
        RunSpec spec = p.spec(4);
        spec.env.plugins = {"xdist.plugin"};
        spec.extraArgs = QStringList{QStringLiteral("-n"), QStringLiteral("2")};
        spec.env.witness.coverFile = p.path("cover.json");
        const Witnessed w = p.run(spec);
        QVERIFY2(w.result.exitCode == 0, (w.result.stdoutTail + w.result.stderrTail).c_str());
        QCOMPARE(w.result.outcomes.size(), size_t(11));
        QCOMPARE(w.rows.size(), size_t(33)); // setup, call, teardown of each test, once
        const std::set<std::string> started(w.order.begin(), w.order.end());
        QCOMPARE(w.order.size(), size_t(11));
        QCOMPARE(started.size(), size_t(11));
        for (const json &row : w.rows)
            QCOMPARE(row.value("seed", 0), 4);
        // Each worker would write its own coverage over the others': not measured, said so.
        const json cover = json::parse(readText(p.path("cover.json")));
        QVERIFY2(cover.contains("unavailable"), cover.dump().c_str());

        // The fork server runs replays itself: refused under xdist, with the reason.
        RunSpec replays = p.spec(4);
        replays.env.plugins = {"xdist.plugin"};
        replays.extraArgs = spec.extraArgs;
        replays.env.witness.replayPlan =
            R"({"nodeids": ["tests/test_a.py::test_a0"], "seeds": [1], "replays": 1})";
        const RunResult refused = PytestRun(replays).run();
        QCOMPARE(refused.exitCode, 4);
        QVERIFY2(refused.errorDetail.find("pytest-xdist") != std::string::npos ||
                     refused.stderrTail.find("pytest-xdist") != std::string::npos,
                 refused.harnessReason.c_str());
    }

    // A pytest the test runs in-process (pytester) that loads the plugin too has its own
    // session; the outer run's rows go on after it.
    void anInnerPytestSessionGivesTheOuterOneBack()
    {
        Project p(m_python);
        p.write("tests/test_inner.py",
                "pytest_plugins = ['pytester']\n\n"
                "def test_before():\n    pass\n\n"
                "def test_inner(pytester):\n"
                "    pytester.makepyfile(test_x='def test_x():\\n    pass\\n')\n"
                "    pytester.runpytest('-p', 'pw_plugin').assert_outcomes(passed=1)\n\n"
                "def test_after():\n    pass\n");
        const Witnessed w = p.run(0);
        QVERIFY2(w.result.exitCode == 0, w.result.stdoutTail.c_str());
        QCOMPARE(w.rows.size(), size_t(9));
        QCOMPARE(w.order.size(), size_t(3));
    }

    // The probe is the innermost wrapper: what the frozen clock imports around the test is
    // not the test's leak.
    void probeSeesTheTestNotTheSeamsAroundIt()
    {
        if (!pw::test::pythonImports(m_python, "freezegun"))
            QSKIP("freezegun is not importable by the test interpreter");
        Project p(m_python);
        p.write("tests/test_plain.py", "def test_one():\n    pass\n\ndef test_two():\n    pass\n");
        RunSpec spec = p.spec(0);
        spec.env.witness.probe = true;
        spec.env.witness.freezeTime = "2020-01-02T03:04:05Z";
        const Witnessed w = p.run(spec);
        QVERIFY2(w.result.exitCode == 0, w.result.stdoutTail.c_str());
        for (const json &row : w.rows)
            QVERIFY2(row["when"] != "leak", row.dump().c_str());
        QCOMPARE(w.rows.size(), size_t(6));
    }

    void hypothesisSeedPassthrough()
    {
        Project p(m_python);
        p.write("tests/test_hyp.py",
                "from hypothesis import core, given, strategies as st\n\n"
                "def test_seed(request):\n"
                "    assert request.config.getoption('hypothesis_seed') == '6'\n"
                "    assert core.global_force_seed == 6\n\n"
                "@given(st.integers())\n"
                "def test_prop(x):\n    assert isinstance(x, int)\n");
        RunSpec spec = p.spec(6);
        spec.env.plugins = {"_hypothesis_pytestplugin"};
        const Witnessed w = p.run(spec);
        QVERIFY2(w.result.exitCode == 0, w.result.stdoutTail.c_str());

        RunSpec own = p.spec(6); // the user's --hypothesis-seed wins
        own.env.plugins = {"_hypothesis_pytestplugin"};
        own.extraArgs = QStringList{QStringLiteral("--hypothesis-seed=5")};
        QCOMPARE(p.run(own).result.exitCode, 1);
    }

    // A subtest's report (pytest 9 reports every one; 7 and 8 report a unittest subTest's
    // failure as its test's) folds into its test: a failing subtest fails it, a passing or
    // skipped one leaves the outcome to the test's own rows.
    void subtestsFoldIntoTheirTest()
    {
        Project p(m_python);
        const bool fixture = m_line == pw::test::PytestLine::Newest; // pytest 9's `subtests`
        std::string tests = "import unittest\nimport pytest\n\n"
                            "class T(unittest.TestCase):\n"
                            "    def test_one_fails(self):\n"
                            "        for i in range(3):\n"
                            "            with self.subTest(i=i):\n"
                            "                self.assertNotEqual(i, 2)\n\n"
                            "    def test_all_pass(self):\n"
                            "        for i in range(2):\n"
                            "            with self.subTest(i=i):\n"
                            "                pass\n";
        if (fixture)
            tests += "\n\ndef test_skips_one(subtests):\n"
                     "    for i in range(2):\n"
                     "        with subtests.test(i=i):\n"
                     "            if i:\n"
                     "                pytest.skip('later')\n";
        p.write("tests/test_sub.py", tests);
        const Witnessed w = p.run(0);
        QVERIFY2(w.result.exitCode == 1, w.result.stdoutTail.c_str());
        const auto file = pw::core::parseOutcomeRows(w.rowsText, "outcomes.jsonl");
        QVERIFY2(file.ok(), file.error.c_str());
        std::map<std::string, pw::core::Outcome> outcome;
        for (const pw::core::Trial &trial : pw::core::foldTrials(file.rows))
            outcome[trial.nodeId] = trial.outcome;
        const std::string cls = "tests/test_sub.py::T::";
        QCOMPARE(outcome.size(), size_t(fixture ? 3 : 2));
        QCOMPARE(outcome[cls + "test_one_fails"], pw::core::Outcome::Fail);
        QCOMPARE(outcome[cls + "test_all_pass"], pw::core::Outcome::Pass);
        if (!fixture)
            return;
        QCOMPARE(outcome["tests/test_sub.py::test_skips_one"], pw::core::Outcome::Pass);
        std::set<std::string> named; // nodeid, when, outcome, subtest of the subtests' rows
        for (const json &row : w.rows) {
            if (row.contains("subtest"))
                named.insert(
                    row["nodeid"].get<std::string>() + " " + row["when"].get<std::string>() + " " +
                    row["outcome"].get<std::string>() + " " + row["subtest"].get<std::string>());
        }
        QCOMPARE(named, (std::set<std::string>{
                            cls + "test_one_fails subtest passed (i=0)",
                            cls + "test_one_fails subtest passed (i=1)",
                            cls + "test_one_fails call failed (i=2)",
                            cls + "test_all_pass subtest passed (i=0)",
                            cls + "test_all_pass subtest passed (i=1)",
                            "tests/test_sub.py::test_skips_one subtest passed (i=0)",
                            "tests/test_sub.py::test_skips_one subtest skipped (i=1)"}));
    }

    // pytest-randomly, named in config `plugins`, would shuffle the items before our
    // shuffle with a seed of its own and reseed random after ours: beside it the order and
    // the random values are those of the same seed without it, its seed is ours, and the
    // run says so in a row and on the terminal.
    void pytestRandomlyIsTamed()
    {
        if (!pw::test::pythonImports(m_python, "pytest_randomly"))
            QSKIP("pytest-randomly is installed in the pytest8 and newest venvs only");
        Project p(m_python);
        writeTenTests(p);
        const std::string values = p.path("values.txt");
        p.write("tests/test_value.py",
                "import random\n\n"
                "def test_value(request):\n"
                "    with open('" +
                    values +
                    "', 'a') as f:\n"
                    "        f.write('%r %r\\n' % (random.random(),\n"
                    "                request.config.getoption('randomly_seed', None)))\n");
        const Witnessed plain = p.run(7);
        QCOMPARE(plain.result.exitCode, 0);
        const std::string plainValue = readText(values);
        QVERIFY(plainValue.find(" None\n") != std::string::npos);
        // Named by its module, by its entry point, and by the top conftest's pytest_plugins.
        for (const char *plugin : {"pytest_randomly", "randomly", ""}) {
            QFile::remove(QString::fromStdString(values));
            RunSpec spec = p.spec(7);
            if (*plugin)
                spec.env.plugins = {plugin};
            else
                p.write("conftest.py", "pytest_plugins = ['pytest_randomly']\n");
            const Witnessed w = p.run(spec);
            QVERIFY2(w.result.exitCode == 0, (w.result.stdoutTail + w.result.stderrTail).c_str());
            QCOMPARE(w.order, plain.order);
            const std::string value = readText(values);
            QCOMPARE(value.substr(0, value.find(' ')), plainValue.substr(0, plainValue.find(' ')));
            QVERIFY2(value.find(" 7\n") != std::string::npos, value.c_str()); // its seed is ours
            int notes = 0;
            for (const json &row : w.rows) {
                if (row["when"] != "shuffler")
                    continue;
                ++notes;
                QCOMPARE(row["outcome"].get<std::string>(), std::string("overridden"));
                QCOMPARE(row["plugin"].get<std::string>(), std::string("pytest-randomly"));
                QVERIFY(row["detail"].get<std::string>().find("--randomly-seed=7") !=
                        std::string::npos);
            }
            QCOMPARE(notes, 1);
            QVERIFY2(w.result.stdoutTail.find("patchwitness: pytest-randomly's reordering and "
                                              "reseeding between tests are off") !=
                         std::string::npos,
                     w.result.stdoutTail.c_str());
        }
    }

    // Under pytest-xdist (`-p xdist.plugin`, which pytest-randomly does not recognise by that
    // name) its workers get our seed too; in the fork server every replay gets the replay's.
    void pytestRandomlyUnderXdistAndInReplays()
    {
        if (!pw::test::pythonImports(m_python, "pytest_randomly"))
            QSKIP("pytest-randomly is installed in the pytest8 and newest venvs only");
        Project p(m_python);
        writeTenTests(p);
        p.write("tests/test_seed.py", "def test_seed(request, witness_seed):\n"
                                      "    assert request.config.getoption('randomly_seed') == "
                                      "witness_seed\n");
        RunSpec spread = p.spec(5);
        spread.env.plugins = {"xdist.plugin", "pytest_randomly"};
        spread.extraArgs = QStringList{QStringLiteral("-n"), QStringLiteral("2")};
        const Witnessed w = p.run(spread);
        QVERIFY2(w.result.exitCode == 0, (w.result.stdoutTail + w.result.stderrTail).c_str());
        QCOMPARE(w.result.outcomes.size(), size_t(11));
        std::vector<std::string> ran = w.order, alone = p.run(5).order;
        std::sort(ran.begin(), ran.end());
        std::sort(alone.begin(), alone.end());
        QCOMPARE(ran, alone);

        RunSpec replays = p.spec(5);
        replays.env.plugins = {"pytest_randomly"};
        replays.env.witness.replayPlan =
            R"({"nodeids": ["tests/test_seed.py::test_seed"], "seeds": [2, 9], "replays": 2})";
        const Witnessed forked = p.run(replays);
        QVERIFY2(forked.result.exitCode == 0, forked.result.stdoutTail.c_str());
        std::set<int> seeds;
        for (const json &row : forked.rows) {
            if (row["when"] == "call") {
                QCOMPARE(row["outcome"].get<std::string>(), std::string("passed"));
                seeds.insert(row["seed"].get<int>());
            }
        }
        QCOMPARE(seeds, (std::set<int>{2, 9}));
    }

    // pytest-random-order reorders only when asked; asked, it would shuffle by a seed of its
    // own before ours: the run refuses, naming it and what to do. Before 1.2 (Debian 12 has
    // 1.1.0) it cannot run without the cacheprovider our runs turn off: refused as loaded.
    void pytestRandomOrderAskedToShuffleIsRefused()
    {
        QProcess version;
        version.start(QString::fromStdString(m_python),
                      {QStringLiteral("-c"),
                       QStringLiteral("from importlib import metadata\n"
                                      "print(metadata.version('pytest-random-order'))")});
        QVERIFY(version.waitForFinished(30 * 1000));
        const QString installed = QString::fromUtf8(version.readAllStandardOutput()).trimmed();
        if (version.exitCode() != 0)
            QSKIP("pytest-random-order is installed in the venvs only (1.1.0 beside pytest 8, the "
                  "current release beside the newest)");
        const bool old = installed.startsWith(QLatin1String("0.")) ||
                         installed.startsWith(QLatin1String("1.0")) ||
                         installed.startsWith(QLatin1String("1.1"));
        Project p(m_python);
        writeTenTests(p);
        RunSpec loaded = p.spec(7);
        loaded.env.plugins = {"random_order.plugin"};
        const Witnessed quiet = p.run(loaded);
        if (old) {
            QCOMPARE(quiet.result.exitCode, 4);
            QVERIFY2(quiet.result.stderrTail.find("ERROR: patchwitness: pytest-random-order "
                                                  "before 1.2 cannot run without pytest's "
                                                  "cacheprovider") != std::string::npos,
                     quiet.result.stderrTail.c_str());
        } else {
            QVERIFY2(quiet.result.exitCode == 0, quiet.result.stderrTail.c_str());
            QCOMPARE(quiet.order, p.run(7).order);
        }

        RunSpec asked = p.spec(7);
        asked.env.plugins = {"random_order.plugin"};
        asked.extraArgs = QStringList{QStringLiteral("--random-order")};
        const Witnessed refused = p.run(asked);
        QCOMPARE(refused.result.exitCode, 4);
        QVERIFY(refused.order.empty());
        QVERIFY2(refused.result.stderrTail.find(
                     old ? "ERROR: patchwitness: pytest-random-order before 1.2"
                         : "ERROR: patchwitness: pytest-random-order is asked to shuffle") !=
                     std::string::npos,
                 refused.result.stderrTail.c_str());
        QVERIFY(refused.result.stderrTail.find(
                    "take random_order.plugin out of config `plugins`") != std::string::npos);
        // The run's reason is the refusal itself, not pytest's generic usage error.
        QVERIFY2(refused.result.harnessReason.find("pytest exit 4: patchwitness: "
                                                   "pytest-random-order") == 0,
                 refused.result.harnessReason.c_str());
        QCOMPARE(refused.rows.size(), size_t(1));
        QCOMPARE(refused.rows[0]["when"].get<std::string>(), std::string("shuffler"));
        QCOMPARE(refused.rows[0]["outcome"].get<std::string>(), std::string("refused"));
        QCOMPARE(refused.rows[0]["plugin"].get<std::string>(), std::string("pytest-random-order"));
    }

    // A hook that reorders the items after our shuffle (a wrapper, here a conftest's) would
    // make the order that runs not --pw-seed's: refused, naming it. Seed 0 shuffles nothing,
    // so the project's own order stands.
    void aHookReorderingAfterTheShuffleIsRefused()
    {
        Project p(m_python);
        writeTenTests(p);
        p.write("tests/conftest.py", "import pytest\n\n"
                                     "@pytest.hookimpl(hookwrapper=True)\n"
                                     "def pytest_collection_modifyitems(items):\n"
                                     "    yield\n"
                                     "    items.reverse()\n");
        const Witnessed refused = p.run(3);
        QCOMPARE(refused.result.exitCode, 4);
        QVERIFY(refused.order.empty());
        QVERIFY2(refused.result.stderrTail.find("ERROR: patchwitness: the tests were reordered "
                                                "after the --pw-seed 3 shuffle") !=
                     std::string::npos,
                 refused.result.stderrTail.c_str());
        QVERIFY(refused.result.stderrTail.find("tests/conftest.py") != std::string::npos);
        const Witnessed zero = p.run(0);
        QCOMPARE(zero.result.exitCode, 0);
        QCOMPARE(zero.order.front(), std::string("tests/test_b.py::test_b4"));
    }
};

QTEST_GUILESS_MAIN(TestPlugin)
#include "tst_plugin.moc"
