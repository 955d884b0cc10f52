// Issue 18, item 4: a run cannot change the evidence of a later run, nor of one running
// beside it. Every run works in its own copy of the pristine cached tree (TreeCopy), which
// the sandbox binds at the pristine path; the cache checks a tree by content. Real pytest
// runs on a fixture repository, each scenario with and without the sandbox:
// - a test rewrites a module of its tree with the size kept and the mtime restored: the
//   next attribute of the same commits still sees the original code (no PRE_EXISTING);
// - a test drops poisoned bytecode into __pycache__: the next run does not use it;
// - two runs of one commit at once, whose test writes a file into its tree and asserts it
//   was not there: both pass;
// - the copy is gone after a run, also after a timeout;
// - the copy starts with patchwitness' own bytecode of the pristine tree (TreeBytecode):
//   used when it matches its manifest, dropped (and written again) when something wrote
//   into the store.

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/Attribution.h"
#include "execution/PytestRun.h"
#include "execution/RunPool.h"
#include "execution/Sandbox.h"
#include "util/Files.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <sys/stat.h>

using pw::core::Arm;
using pw::core::Attribution;
using pw::core::AttributionRequest;
using pw::core::AttributionResult;
using pw::core::AttributionVerdict;
using pw::core::Outcome;
using pw::core::RunContext;
using pw::core::RunPool;
using pw::core::RunRequest;
using pw::core::RunResult;
using pw::core::RunSpec;
using pw::core::RunStatus;
using pw::test::RepoBuilder;

namespace fs = std::filesystem;

namespace {

const char *const kFiles[][2] = {
    {"src/__init__.py", ""},
    {"src/mod.py", "def value():\n    return 1\n"},
    {"tests/test_value.py", "from src.mod import value\n\n\ndef test_value():\n"
                            "    assert value() == 1\n"},
    // Rewrites src/mod.py as long as it was, puts its mtime back, and drops the bytecode
    // (which would otherwise still hold the original code): what issue 18 saw.
    {"tests/test_poison.py",
     "import os\nimport shutil\n\nimport src.mod\n\n\ndef test_poisons():\n"
     "    path = src.mod.__file__\n"
     "    st = os.stat(path)\n"
     "    with open(path, 'w') as f:\n"
     "        f.write('def value():\\n    return 0\\n')\n"
     "    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))\n"
     "    shutil.rmtree(os.path.join(os.path.dirname(path), '__pycache__'), True)\n"},
    // Bytecode of `return 0` under src/mod.py's own name, valid for its size and mtime.
    {"tests/test_pyc.py",
     "import importlib._bootstrap_external as ext\nimport importlib.util\nimport os\n\n"
     "import src.mod\n\n\ndef test_drops_bytecode():\n"
     "    path = src.mod.__file__\n"
     "    st = os.stat(path)\n"
     "    code = compile('def value():\\n    return 0\\n', path, 'exec')\n"
     "    data = ext._code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size)\n"
     "    pyc = importlib.util.cache_from_source(path)\n"
     "    os.makedirs(os.path.dirname(pyc), exist_ok=True)\n"
     "    with open(pyc, 'wb') as f:\n"
     "        f.write(data)\n"},
    // A real suite's habit: a file written next to the test, expected not to be there.
    {"tests/test_writes.py", "import os\nimport time\n\n\ndef test_writes_its_file():\n"
                             "    path = os.path.join(os.path.dirname(__file__), 'written.txt')\n"
                             "    assert not os.path.exists(path), 'another run wrote ' + path\n"
                             "    with open(path, 'w') as f:\n"
                             "        f.write(str(os.getpid()))\n"
                             "    time.sleep(1.5)\n"
                             "    with open(path) as f:\n"
                             "        assert f.read() == str(os.getpid())\n"},
    // Its code names the file it runs from (in a copy seeded with bytecode compiled at the
    // pristine path, too).
    {"tests/test_where.py",
     "def test_code_is_at_its_file():\n"
     "    assert test_code_is_at_its_file.__code__.co_filename == __file__\n"},
    // Leaves a file in its tree, then hangs until the run's timeout.
    {"tests/test_hangs.py", "import os\nimport time\n\n\ndef test_hangs():\n"
                            "    open(os.path.join(os.path.dirname(__file__), 'left.txt'), 'w')"
                            ".close()\n"
                            "    time.sleep(600)\n"},
};

// `<tree>.run-*` directories next to `tree`: the runs' copies still on disk.
std::vector<std::string> copiesOf(const std::string &tree)
{
    std::vector<std::string> out;
    const fs::path path(tree);
    const std::string prefix = path.filename().string() + ".run-";
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(path.parent_path(), ec)) {
        if (e.path().filename().string().starts_with(prefix))
            out.push_back(e.path().string());
    }
    return out;
}

std::string describe(const RunResult &r)
{
    std::string text = std::string(pw::core::runStatusName(r.status)) + " exit " +
                       std::to_string(r.exitCode) + " " + r.harnessReason;
    for (const auto &o : r.outcomes)
        text += "\n  " + o.nodeId + " " + pw::core::outcomeName(o.outcome) + " " + o.message;
    return text + "\n" +
           r.stdoutTail.substr(r.stdoutTail.size() > 1500 ? r.stdoutTail.size() - 1500 : 0);
}

// The store's one variant (`<tree>.pyc/<tag>-pytest-<version>`), empty when there is none.
std::string bytecodeVariant(const std::string &tree)
{
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(tree + ".pyc", ec)) {
        if (fs::exists(e.path() / "MANIFEST"))
            return e.path().string();
    }
    return {};
}

std::vector<std::string> manifestLines(const std::string &variant)
{
    std::vector<std::string> lines;
    const std::optional<std::string> text = pw::core::readWholeFile(variant + "/MANIFEST");
    std::string line;
    for (char c : text.value_or(std::string())) {
        if (c != '\n') {
            line += c;
        } else {
            lines.push_back(line);
            line.clear();
        }
    }
    return lines;
}

// Bytecode of `def value(): return 7` for src/mod.py of `tree`, valid for its size and
// mtime (the run's copy keeps both): what the store's plain pyc of it becomes.
std::string forgedModPyc(const std::string &tree)
{
    QProcess python;
    python.start(QString::fromStdString(pw::test::testPython()),
                 {QStringLiteral("-c"),
                  QStringLiteral("import importlib._bootstrap_external as ext, os, sys\n"
                                 "st = os.stat(sys.argv[1])\n"
                                 "code = compile('def value():\\n    return 7\\n', sys.argv[1], "
                                 "'exec')\n"
                                 "sys.stdout.buffer.write(ext._code_to_timestamp_pyc(code, "
                                 "int(st.st_mtime), st.st_size))\n"),
                  QString::fromStdString(tree + "/src/mod.py")});
    python.waitForFinished(60000);
    return python.readAllStandardOutput().toStdString();
}

} // namespace

class TestTreeIsolation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void rewrittenSourceDoesNotReachTheNextAttribute_data() { sandboxRows(); }
    void rewrittenSourceDoesNotReachTheNextAttribute();
    void poisonedBytecodeIsNotUsedByTheNextRun_data() { sandboxRows(); }
    void poisonedBytecodeIsNotUsedByTheNextRun();
    void twoRunsAtOnceNeverShareATree_data() { sandboxRows(); }
    void twoRunsAtOnceNeverShareATree();
    void theCopyIsGoneAfterATimeout_data() { sandboxRows(); }
    void theCopyIsGoneAfterATimeout();
    void aReplayByHandLeavesTheTreeIntact();
    void aTreeWrittenAfterItsAcquireIsNotRun();
    void theCopyStartsWithTrustedBytecode_data() { sandboxRows(); }
    void theCopyStartsWithTrustedBytecode();
    void bytecodeWrittenIntoTheStoreIsNotUsed_data() { sandboxRows(); }
    void bytecodeWrittenIntoTheStoreIsNotUsed();

private:
    void sandboxRows();
    RunContext open(bool sandbox, double timeoutSeconds = 120) const;
    RunResult runOne(const RunContext &ctx, const std::string &node) const;

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::string m_base, m_head;
};

void TestTreeIsolation::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    for (const auto &file : kFiles)
        m_repo->write(file[0], file[1]);
    m_base = m_repo->commit("base");
    m_repo->write("README.md", "the patch touches nothing the tests import\n");
    m_head = m_repo->commit("head");
}

// A fresh cache for every scenario: what one leaves must not hide what another tests.
void TestTreeIsolation::init()
{
    m_cache = std::make_unique<QTemporaryDir>();
}

void TestTreeIsolation::sandboxRows()
{
    QTest::addColumn<bool>("sandbox");
    QTest::newRow("no sandbox") << false;
    QTest::newRow("sandbox") << true;
}

RunContext TestTreeIsolation::open(bool sandbox, double timeoutSeconds) const
{
    RunRequest r;
    r.target.repoPath = m_repo->root();
    r.target.base = m_base;
    r.target.head = m_head;
    r.target.python = pw::test::testPython();
    r.target.today = "2024-05-10";
    r.cacheRoot = m_cache->path().toStdString();
    r.workers = 2;
    r.timeoutSeconds = timeoutSeconds;
    r.sandbox = sandbox;
    return RunContext::open(r);
}

RunResult TestTreeIsolation::runOne(const RunContext &ctx, const std::string &node) const
{
    RunPool pool(1);
    return pool.run({ctx.spec(Arm::Base, {node}, 0)}).front();
}

#define SKIP_WITHOUT_SANDBOX(sandbox)                                                              \
    do {                                                                                           \
        if (sandbox)                                                                               \
            PW_REQUIRE_SANDBOX();                                                                  \
    } while (false)

void TestTreeIsolation::rewrittenSourceDoesNotReachTheNextAttribute()
{
    QFETCH(bool, sandbox);
    SKIP_WITHOUT_SANDBOX(sandbox);
    AttributionRequest req;
    req.runs = 2;
    req.record = false;
    {
        const RunContext first = open(sandbox);
        req.test = "tests/test_poison.py::test_poisons";
        RunPool pool(2);
        const AttributionResult poisoner = Attribution::run(first, req, pool);
        QCOMPARE(poisoner.base.fails + poisoner.head.fails, 0);
    }
    // The next attribute of the same commits: the trees are reused (intact), and the code
    // they hold is the commit's.
    const RunContext second = open(sandbox);
    req.test = "tests/test_value.py::test_value";
    RunPool pool(2);
    const AttributionResult r = Attribution::run(second, req, pool);
    QVERIFY2(r.verdict && *r.verdict == AttributionVerdict::NoRepro, r.sentence.c_str());
    QCOMPARE(r.base.fails, 0);
    QCOMPARE(r.head.fails, 0);
    QVERIFY(!r.freezeAllowed());
    QVERIFY(copiesOf(second.treeDir(Arm::Base)).empty());
}

void TestTreeIsolation::poisonedBytecodeIsNotUsedByTheNextRun()
{
    QFETCH(bool, sandbox);
    SKIP_WITHOUT_SANDBOX(sandbox);
    const RunContext ctx = open(sandbox);
    const RunResult dropped = runOne(ctx, "tests/test_pyc.py::test_drops_bytecode");
    QVERIFY2(dropped.status == RunStatus::Completed && dropped.exitCode == 0,
             describe(dropped).c_str());
    // In the same context (the tree held) and in the next one (acquired again).
    const RunResult next = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(next.exitCode == 0 && next.count(Outcome::Pass) == 1, describe(next).c_str());
    QVERIFY(!fs::exists(ctx.treeDir(Arm::Base) + "/src/__pycache__"));
    const RunContext later = open(sandbox);
    const RunResult again = runOne(later, "tests/test_value.py::test_value");
    QVERIFY2(again.exitCode == 0 && again.count(Outcome::Pass) == 1, describe(again).c_str());
}

void TestTreeIsolation::twoRunsAtOnceNeverShareATree()
{
    QFETCH(bool, sandbox);
    SKIP_WITHOUT_SANDBOX(sandbox);
    const RunContext ctx = open(sandbox);
    const std::string node = "tests/test_writes.py::test_writes_its_file";
    RunPool pool(2);
    const std::vector<RunResult> results =
        pool.run({ctx.spec(Arm::Base, {node}, 0), ctx.spec(Arm::Base, {node}, 1)});
    QCOMPARE(results.size(), size_t(2));
    for (const RunResult &r : results)
        QVERIFY2(r.exitCode == 0 && r.count(Outcome::Pass) == 1, describe(r).c_str());
    // They did overlap: each slept 1.5 s after writing, and the pool ran both at once.
    QVERIFY(!fs::exists(ctx.treeDir(Arm::Base) + "/tests/written.txt"));
    const RunResult later = runOne(ctx, node);
    QVERIFY2(later.exitCode == 0, describe(later).c_str());
    QVERIFY(copiesOf(ctx.treeDir(Arm::Base)).empty());
}

void TestTreeIsolation::theCopyIsGoneAfterATimeout()
{
    QFETCH(bool, sandbox);
    SKIP_WITHOUT_SANDBOX(sandbox);
    const RunContext ctx = open(sandbox, 4);
    const std::string tree = ctx.treeDir(Arm::Base);
    const RunResult r = runOne(ctx, "tests/test_hangs.py::test_hangs");
    QVERIFY2(r.status == RunStatus::TimedOut, describe(r).c_str());
    QVERIFY2(!fs::exists(tree + "/tests/left.txt"), "the run wrote into the pristine tree");
    const std::vector<std::string> left = copiesOf(tree);
    QVERIFY2(left.empty(), left.empty() ? "" : left.front().c_str());
    // And after a run that completed.
    const RunResult done = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(done.exitCode == 0, describe(done).c_str());
    QVERIFY(copiesOf(tree).empty());
}

// The copyable replay runs in the pristine tree itself (it outlives the run's copy): it
// writes no bytecode there, so a later acquire in this process still finds the tree
// intact instead of refusing a tree that runs still hold.
void TestTreeIsolation::aReplayByHandLeavesTheTreeIntact()
{
    const RunContext ctx = open(false);
    const std::string tree = ctx.treeDir(Arm::Base);
    const RunResult r = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(r.exitCode == 0, describe(r).c_str());
    QProcess shell;
    shell.start(QStringLiteral("/bin/sh"),
                QStringList{QStringLiteral("-c"), QString::fromStdString(r.replay)});
    QVERIFY(shell.waitForFinished(120000));
    QVERIFY2(shell.exitCode() == 0, shell.readAllStandardOutput().constData());
    QVERIFY(!fs::exists(tree + "/src/__pycache__"));
    QVERIFY(!fs::exists(tree + "/tests/__pycache__"));
    const RunContext again = open(false); // throws when the held tree was changed
    QCOMPARE(again.treeDir(Arm::Base), tree);
}

// Without the sandbox a test can reach the cached tree of another run (the acquire checked
// it, the copy is made later): every run's copy is checked by content before the run
// starts, so a module rewritten with its size and mtime kept, or a file added, is a run
// that never started — never evidence from code the revision does not hold.
void TestTreeIsolation::aTreeWrittenAfterItsAcquireIsNotRun()
{
    const RunContext ctx = open(false);
    const std::string tree = ctx.treeDir(Arm::Base);
    const std::string mod = tree + "/src/mod.py";
    const std::string original = *pw::core::readWholeFile(mod);
    const auto rewrite = [&](const std::string &text) {
        struct stat st;
        QVERIFY(::stat(mod.c_str(), &st) == 0);
        QVERIFY(pw::core::writeFileReplacing(mod, text));
        const struct timespec times[2] = {st.st_atim, st.st_mtim};
        QVERIFY(::utimensat(AT_FDCWD, mod.c_str(), times, 0) == 0);
    };
    rewrite("def value():\n    return 0\n");
    const RunResult poisoned = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(poisoned.status == RunStatus::FailedToStart && poisoned.outcomes.empty(),
             describe(poisoned).c_str());
    QVERIFY2(poisoned.harnessReason.find("src/mod.py: its content differs") != std::string::npos,
             poisoned.harnessReason.c_str());
    rewrite(original);
    QVERIFY(pw::core::writeFileReplacing(tree + "/src/extra.py", "VALUE = 0\n"));
    const RunResult extra = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(extra.status == RunStatus::FailedToStart &&
                 extra.harnessReason.find("src/extra.py: a file the revision does not have") !=
                     std::string::npos,
             describe(extra).c_str());
    QVERIFY(fs::remove(tree + "/src/extra.py"));
    const RunResult clean = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(clean.exitCode == 0 && clean.count(Outcome::Pass) == 1, describe(clean).c_str());
    QVERIFY(copiesOf(tree).empty());
}

// The first run writes the store; every run's copy starts with its files (pytest's
// rewritten ones too: without the sandbox the plugin gives their code the copy's path), and
// they are what the run imports: a store pyc that says `return 7` (its manifest line made to match,
// as if patchwitness had written it) is what test_value sees.
void TestTreeIsolation::theCopyStartsWithTrustedBytecode()
{
    QFETCH(bool, sandbox);
    SKIP_WITHOUT_SANDBOX(sandbox);
    const RunContext ctx = open(sandbox);
    const std::string tree = ctx.treeDir(Arm::Base);
    const RunResult first = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(first.exitCode == 0, describe(first).c_str());
    const std::string variant = bytecodeVariant(tree);
    QVERIFY2(!variant.empty(), "no trusted bytecode was written");
    const std::vector<std::string> lines = manifestLines(variant);
    int plain = 0, rewritten = 0;
    for (const std::string &line : lines)
        (line.find("-pytest-") != std::string::npos ? rewritten : plain) += 1;
    QCOMPARE(plain, 8);     // every module of the fixture
    QCOMPARE(rewritten, 6); // its test files (it has no conftest)
    QCOMPARE(first.bytecodeSeeded, plain + rewritten);
    const RunResult where = runOne(ctx, "tests/test_where.py::test_code_is_at_its_file");
    QVERIFY2(where.exitCode == 0 && where.count(Outcome::Pass) == 1, describe(where).c_str());
    QVERIFY(!fs::exists(tree + "/src/__pycache__")); // the pristine tree holds none

    const std::string pycRel = "src/__pycache__/mod." +
                               fs::path(variant).filename().string().substr(
                                   0, fs::path(variant).filename().string().find("-pytest-")) +
                               ".pyc";
    const std::string forged = forgedModPyc(tree);
    QVERIFY(!forged.empty());
    std::string manifest;
    for (const std::string &line : lines)
        manifest +=
            (line.substr(65) == pycRel ? pw::core::sha256Hex(forged) + ' ' + pycRel : line) + '\n';
    QVERIFY(pw::core::writeFileReplacing(variant + "/" + pycRel, forged));
    QVERIFY(pw::core::writeFileReplacing(variant + "/MANIFEST", manifest));
    const RunResult used = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(used.count(Outcome::Fail) == 1, describe(used).c_str());
    QVERIFY2(used.outcomes.front().message.find('7') != std::string::npos, describe(used).c_str());
}

// A pyc changed in the store after patchwitness wrote it (an unsandboxed test that found
// the store): not seeded, the variant dropped and written again by the next run.
void TestTreeIsolation::bytecodeWrittenIntoTheStoreIsNotUsed()
{
    QFETCH(bool, sandbox);
    SKIP_WITHOUT_SANDBOX(sandbox);
    const RunContext ctx = open(sandbox);
    const std::string tree = ctx.treeDir(Arm::Base);
    QVERIFY(runOne(ctx, "tests/test_value.py::test_value").exitCode == 0);
    const std::string variant = bytecodeVariant(tree);
    QVERIFY(!variant.empty());
    std::string pycRel;
    for (const std::string &line : manifestLines(variant)) {
        if (line.find("src/__pycache__/mod.") != std::string::npos &&
            line.find("-pytest-") == std::string::npos)
            pycRel = line.substr(65);
    }
    QVERIFY(!pycRel.empty());
    QVERIFY(pw::core::writeFileReplacing(variant + "/" + pycRel, forgedModPyc(tree)));
    const RunResult r = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(r.exitCode == 0 && r.count(Outcome::Pass) == 1, describe(r).c_str());
    QVERIFY2(!fs::exists(variant + "/" + pycRel) ||
                 pw::core::sha256Hex(*pw::core::readWholeFile(variant + "/" + pycRel)) !=
                     pw::core::sha256Hex(forgedModPyc(tree)),
             "the written pyc is still in the store");
    // The next run writes the store again, from the pristine tree.
    const RunResult again = runOne(ctx, "tests/test_value.py::test_value");
    QVERIFY2(again.exitCode == 0 && again.count(Outcome::Pass) == 1, describe(again).c_str());
    std::string store;
    std::error_code ec;
    for (const auto &e : fs::recursive_directory_iterator(tree + ".pyc", ec))
        store += e.path().string() + "\n";
    QVERIFY2(bytecodeVariant(tree) == variant,
             ("not written again (" + describe(again) + ")\n" + store).c_str());
    QVERIFY(pw::core::sha256Hex(*pw::core::readWholeFile(variant + "/" + pycRel)) !=
            pw::core::sha256Hex(forgedModPyc(tree)));
    QVERIFY(again.bytecodeSeeded > 0);
}

QTEST_GUILESS_MAIN(TestTreeIsolation)
#include "tst_treeisolation.moc"
