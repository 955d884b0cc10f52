// Sharded sweeps (core/execution/Shard and ShardLedger, `--shard i/n` and `merge`): the
// i/n option's errors; ownership dealing every unit to exactly one shard; a real swept
// attribution split into three shards (real pytest) merging to the verdict, tallies and
// failing seeds of the unsharded run; missing, duplicate and foreign shards refused;
// --partial; a garbled ledger named with its line; `merge --record` read back by the
// freeze form; cells sharded and merged; the cells evidence record (never overwritten);
// the CLI's exit codes.

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "dynamic/Attribution.h"
#include "dynamic/CellsRecord.h"
#include "dynamic/ReproCells.h"
#include "dynamic/ShardLedger.h"
#include "dynamic/ShardMerge.h"
#include "execution/Shard.h"
#include "ledger/RunEvidence.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

using pw::core::Attribution;
using pw::core::AttributionRecord;
using pw::core::AttributionRequest;
using pw::core::AttributionResult;
using pw::core::AttributionVerdict;
using pw::core::CellsRequest;
using pw::core::Error;
using pw::core::ReproCells;
using pw::core::ReproCellsResult;
using pw::core::RunContext;
using pw::core::RunPool;
using pw::core::RunRequest;
using pw::core::Shard;
using pw::core::ShardLedger;
using pw::core::ShardSet;
using pw::test::RepoBuilder;

namespace {

const std::string kToday = "2024-05-10";
const std::string kSeeded = "tests/pre/test_pre.py::test_seed_broken";
const std::string kGreen = "tests/green/test_green.py::test_fine";
const std::string kOrder = "tests/order/test_order_b.py::test_b";

// The same seeded failure on both trees (PRE_EXISTING with failing seeds when swept), a
// green test, and an ordering dependence for the cells (test_b fails after test_a).
const char *const kBaseFiles[][2] = {
    {"src/__init__.py", ""},
    {"src/calc.py", "def value():\n    return 1\n"},
    {"tests/pre/test_pre.py",
     "import random\n\n\ndef test_seed_broken():\n    assert random.randrange(3) != 0\n"},
    {"tests/green/test_green.py", "def test_fine():\n    assert True\n"},
    {"tests/order/order_registry.py", "CACHE = {}\n"},
    {"tests/order/test_order_a.py", "import order_registry\n\n\ndef test_a():\n"
                                    "    order_registry.CACHE['mode'] = 'strict'\n"},
    {"tests/order/test_order_b.py", "import order_registry\n\n\ndef test_b():\n"
                                    "    assert order_registry.CACHE.get('mode') != 'strict'\n"},
    {"tests/order/test_order_c.py", "def test_c():\n    pass\n"},
    {"tests/order/test_order_d.py", "def test_d():\n    pass\n"},
};

struct CliResult
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestShard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void parseRefusesWhatIsNotIofN_data();
    void parseRefusesWhatIsNotIofN();
    void parseReadsIofN();
    void everyUnitBelongsToExactlyOneShard_data();
    void everyUnitBelongsToExactlyOneShard();

    void threeShardsMergeToTheUnshardedVerdict();
    void missingShardIsRefusedAndNamed();
    void shardsOfAnotherSweepOrCommitAreRefused();
    void duplicateShardIsRefused();
    void partialMergeSaysSo();
    void garbledLedgerIsNamedWithItsLine();
    void missingFieldIsNamed();
    void runsThatDoNotFitTheirUnitsAreRefused();
    void shardOfAWorktreeIsRefused();
    void mergeRecordIsReadByTheFreezeForm();
    void cellsShardsMergeToTheUnshardedMatrix();
    void cellsRecordIsWrittenAndNeverOverwritten();
    void trialBudgetCountsOnlyTheShardsShare();
    void cliExitCodes();

private:
    RunRequest request() const;
    AttributionResult attribute(const std::string &test, std::optional<Shard> shard = {},
                                const std::string &out = {});
    // The three shard ledgers of the swept attribution of kSeeded (made once).
    const std::vector<std::string> &shardFiles();
    CliResult cli(const QStringList &args, bool withRun = true) const;
    std::string dir() const { return m_scratch->path().toStdString(); }

    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::string m_base, m_head;
    std::unique_ptr<RunContext> m_ctx;
    std::vector<std::string> m_shardFiles;
    std::optional<AttributionResult> m_unsharded;
};

void TestShard::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_cache = std::make_unique<QTemporaryDir>();
    m_scratch = std::make_unique<QTemporaryDir>();
    for (const auto &file : kBaseFiles)
        m_repo->write(file[0], file[1]);
    m_base = m_repo->commit("base");
    m_repo->write("src/calc.py", "def value():\n    return 2\n");
    m_head = m_repo->commit("the patch");
    m_ctx = std::make_unique<RunContext>(RunContext::open(request()));
}

RunRequest TestShard::request() const
{
    RunRequest r;
    r.target.repoPath = m_repo->root();
    r.target.base = m_base;
    r.target.head = m_head;
    r.target.python = pw::test::testPython();
    r.target.today = kToday;
    r.cacheRoot = m_cache->path().toStdString();
    r.workers = 2;
    r.timeoutSeconds = 120;
    r.sandbox = false;
    return r;
}

AttributionResult TestShard::attribute(const std::string &test, std::optional<Shard> shard,
                                       const std::string &out)
{
    AttributionRequest req;
    req.test = test;
    req.mode = AttributionRequest::Mode::Swept;
    req.runs = 6;
    req.record = false;
    req.coverage = false;
    req.shard = shard;
    req.shardOut = out;
    RunPool pool(m_ctx->workers());
    return Attribution::run(*m_ctx, req, pool);
}

const std::vector<std::string> &TestShard::shardFiles()
{
    if (m_shardFiles.empty()) {
        for (int i = 1; i <= 3; ++i) {
            const std::string out = dir() + "/seeded-" + std::to_string(i) + ".json";
            const AttributionResult r = attribute(kSeeded, Shard{i, 3}, out);
            if (r.recordPath != out)
                throw std::runtime_error("shard " + std::to_string(i) +
                                         " ledger not written: " + r.recordError);
            m_shardFiles.push_back(out);
        }
    }
    return m_shardFiles;
}

CliResult TestShard::cli(const QStringList &args, bool withRun) const
{
    QStringList all = args;
    all << QStringLiteral("--repo") << QString::fromStdString(m_repo->root());
    if (withRun)
        all << QStringLiteral("--base") << QString::fromStdString(m_base)
            << QStringLiteral("--head") << QString::fromStdString(m_head)
            << QStringLiteral("--python") << QString::fromStdString(pw::test::testPython())
            << QStringLiteral("--cache-dir") << m_cache->path() << QStringLiteral("--workers")
            << QStringLiteral("2") << QStringLiteral("--no-sandbox");
    all << QStringLiteral("--today") << QString::fromStdString(kToday);
    QProcess p;
    p.start(QStringLiteral(PW_CLI_PATH), all);
    if (!p.waitForFinished(180000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

void TestShard::parseRefusesWhatIsNotIofN_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("i past n") << "3/2"
                              << "--shard 3/2: i must be between 1 and n";
    QTest::newRow("i zero") << "0/3"
                            << "--shard 0/3: i must be between 1 and n";
    QTest::newRow("n zero") << "1/0"
                            << "--shard 1/0: n must be at least 1";
    QTest::newRow("no slash") << "2"
                              << "--shard 2: not i/n";
    QTest::newRow("negative") << "-1/3"
                              << "--shard -1/3: i must be a whole number";
    QTest::newRow("letters") << "a/b"
                             << "--shard a/b: i must be a whole number";
    QTest::newRow("empty n") << "1/"
                             << "--shard 1/: n must be a whole number";
}

void TestShard::parseRefusesWhatIsNotIofN()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        Shard::parse(text.toStdString());
        QFAIL("accepted");
    } catch (const Error &e) {
        QCOMPARE(e.kind(), Error::Kind::Input);
        QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
    }
}

void TestShard::parseReadsIofN()
{
    const Shard s = Shard::parse("2/3");
    QCOMPARE(s.index, 2);
    QCOMPARE(s.count, 3);
    QCOMPARE(s.name(), std::string("2/3"));
    QVERIFY((Shard::parse("1/1") == Shard{1, 1}));
}

void TestShard::everyUnitBelongsToExactlyOneShard_data()
{
    QTest::addColumn<int>("units");
    QTest::addColumn<int>("count");
    QTest::newRow("60 runs in 3 jobs") << 60 << 3;
    QTest::newRow("more jobs than units") << 2 << 5;
    QTest::newRow("one job") << 7 << 1;
    QTest::newRow("cells R=8 in 4 jobs") << 11 << 4;
}

void TestShard::everyUnitBelongsToExactlyOneShard()
{
    QFETCH(int, units);
    QFETCH(int, count);
    std::vector<int> owners(size_t(units), 0);
    std::vector<int> perShard(size_t(count), 0);
    for (int i = 1; i <= count; ++i) {
        for (int u = 0; u < units; ++u) {
            if (Shard{i, count}.owns(size_t(u))) {
                ++owners[size_t(u)];
                ++perShard[size_t(i - 1)];
            }
        }
    }
    for (int u = 0; u < units; ++u)
        QCOMPARE(owners[size_t(u)], 1);
    // Round-robin: no shard has more than one unit more than another.
    const auto [lo, hi] = std::minmax_element(perShard.begin(), perShard.end());
    QVERIFY(*hi - *lo <= 1);
}

void TestShard::threeShardsMergeToTheUnshardedVerdict()
{
    m_unsharded = attribute(kSeeded);
    const AttributionResult &whole = *m_unsharded;
    QVERIFY(whole.verdict);
    QCOMPARE(*whole.verdict, AttributionVerdict::PreExisting);
    QVERIFY(!whole.head.failingSeeds.empty()); // else the comparison below proves little

    std::vector<ShardLedger> ledgers;
    for (const std::string &file : shardFiles())
        ledgers.push_back(ShardLedger::read(file));
    // Each shard ran its own pairs: both arms of seeds i-1, i-1+3.
    for (size_t i = 0; i < ledgers.size(); ++i) {
        QCOMPARE(ledgers[i].shard.index, int(i) + 1);
        QCOMPARE(ledgers[i].ran, (std::vector<int>{int(i), int(i) + 3}));
        QCOMPARE(ledgers[i].runs.size(), size_t(4));
        QCOMPARE(ledgers[i].baseCommit, m_base);
        QCOMPARE(ledgers[i].headCommit, m_head);
        QVERIFY(!ledgers[i].envDigests().empty());
    }
    const ShardSet set = ShardSet::gather(ledgers);
    QVERIFY(set.complete());
    const AttributionResult merged = pw::core::mergeAttribution(set);
    QVERIFY(merged.verdict);
    QCOMPARE(*merged.verdict, *whole.verdict);
    QCOMPARE(merged.base.fails, whole.base.fails);
    QCOMPARE(merged.head.fails, whole.head.fails);
    QCOMPARE(merged.base.evidence, whole.base.evidence);
    QCOMPARE(merged.head.evidence, whole.head.evidence);
    QCOMPARE(merged.base.failingSeeds, whole.base.failingSeeds);
    QCOMPARE(merged.head.failingSeeds, whole.head.failingSeeds);
    QCOMPARE(merged.witnessSeed, whole.witnessSeed);
    QCOMPARE(merged.sentence, whole.sentence);
    QCOMPARE(merged.envDigest, whole.envDigest);
    QCOMPARE(merged.runsPerArm, 6);
    QCOMPARE(merged.seeds, whole.seeds);
    for (size_t i = 0; i < merged.head.runs.size(); ++i)
        QCOMPARE(merged.head.runs[i].seed, uint32_t(i));
}

void TestShard::missingShardIsRefusedAndNamed()
{
    const std::vector<std::string> &files = shardFiles();
    const ShardSet set =
        ShardSet::gather({ShardLedger::read(files[0]), ShardLedger::read(files[1])});
    QVERIFY(!set.complete());
    QCOMPARE(set.missing, std::vector<int>{3});
    QCOMPARE(set.missingText(), std::string("missing shard 3/3"));

    const CliResult r = cli({QStringLiteral("merge"), QString::fromStdString(files[0]),
                             QString::fromStdString(files[1])},
                            false);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QStringLiteral("missing shard 3/3")), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
}

void TestShard::shardsOfAnotherSweepOrCommitAreRefused()
{
    const std::vector<std::string> &files = shardFiles();
    // A real shard of another test.
    const std::string other = dir() + "/green-2.json";
    const AttributionResult green = attribute(kGreen, Shard{2, 3}, other);
    QCOMPARE(green.recordPath, other);
    try {
        ShardSet::gather({ShardLedger::read(files[0]), ShardLedger::read(other)});
        QFAIL("shards of two tests merged");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).find("parameters") != std::string::npos, e.what());
        QVERIFY2(std::string(e.what()).find(other) != std::string::npos, e.what());
    }
    // The same sweep at another head commit.
    ShardLedger moved = ShardLedger::read(files[1]);
    moved.headCommit = m_base;
    moved.file = dir() + "/moved.json";
    QVERIFY(pw::core::writeFileAtomically(moved.file, moved.format()));
    try {
        ShardSet::gather({ShardLedger::read(files[0]), ShardLedger::read(moved.file)});
        QFAIL("shards of two head commits merged");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).find("head commit") != std::string::npos, e.what());
    }
    // n differs.
    ShardLedger wider = ShardLedger::read(files[2]);
    wider.shard.count = 4;
    try {
        ShardSet::gather({ShardLedger::read(files[0]), wider});
        QFAIL("shards of 3 and of 4 jobs merged");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).find("shard count n") != std::string::npos, e.what());
    }
}

void TestShard::duplicateShardIsRefused()
{
    const std::vector<std::string> &files = shardFiles();
    const std::string copy = dir() + "/seeded-1-again.json";
    QVERIFY(QFile::copy(QString::fromStdString(files[0]), QString::fromStdString(copy)));
    try {
        ShardSet::gather({ShardLedger::read(files[0]), ShardLedger::read(files[1]),
                          ShardLedger::read(files[2]), ShardLedger::read(copy)});
        QFAIL("a shard merged twice");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).find("duplicate shard 1/3") != std::string::npos, e.what());
    }
    const CliResult r = cli({QStringLiteral("merge"), QString::fromStdString(files[0]),
                             QString::fromStdString(files[1]), QString::fromStdString(files[2]),
                             QString::fromStdString(copy)},
                            false);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QStringLiteral("duplicate shard 1/3")), qPrintable(r.err));
}

void TestShard::partialMergeSaysSo()
{
    const std::vector<std::string> &files = shardFiles();
    const CliResult r = cli({QStringLiteral("merge"), QString::fromStdString(files[0]),
                             QString::fromStdString(files[2]), QStringLiteral("--partial")},
                            false);
    QVERIFY2(r.exitCode == 2 || r.exitCode == 1, qPrintable(r.err)); // never a pass
    QVERIFY2(r.out.startsWith(QStringLiteral("partial merge (--partial): missing shard 2/3")),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("verdict: ")));

    const CliResult json = cli({QStringLiteral("merge"), QString::fromStdString(files[0]),
                                QString::fromStdString(files[2]), QStringLiteral("--partial"),
                                QStringLiteral("--format"), QStringLiteral("json")},
                               false);
    const nlohmann::json doc = nlohmann::json::parse(json.out.toStdString());
    QCOMPARE(doc["partial"].get<bool>(), true);
    QVERIFY(doc["missing_shards"] == nlohmann::json::array({2}));
    QCOMPARE(doc["base"]["runs"].size(), size_t(4)); // the pairs of shards 1 and 3

    const CliResult recorded = cli({QStringLiteral("merge"), QString::fromStdString(files[0]),
                                    QStringLiteral("--partial"), QStringLiteral("--record")},
                                   false);
    QCOMPARE(recorded.exitCode, 3);
    QVERIFY(recorded.err.contains(QStringLiteral("--record needs every shard")));
}

void TestShard::garbledLedgerIsNamedWithItsLine()
{
    const std::string file = dir() + "/garbled.json";
    QVERIFY(pw::core::writeFileAtomically(
        file, "{\n  \"schema\": \"patchwitness.shard/1\",\n  \"kind\": attribution\n}\n"));
    try {
        ShardLedger::read(file);
        QFAIL("garbled JSON read");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).starts_with(file + ":3:"), e.what());
    }
    const CliResult r = cli({QStringLiteral("merge"), QString::fromStdString(shardFiles()[0]),
                             QString::fromStdString(file)},
                            false);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QString::fromStdString(file + ":3:")), qPrintable(r.err));
}

void TestShard::missingFieldIsNamed()
{
    nlohmann::json doc = nlohmann::json::parse(*pw::core::readWholeFile(shardFiles()[0]));
    doc["runs"][1].erase("outcome");
    const std::string file = dir() + "/no-outcome.json";
    QVERIFY(pw::core::writeFileAtomically(file, doc.dump(2)));
    try {
        ShardLedger::read(file);
        QFAIL("a run without outcome read");
    } catch (const Error &e) {
        QCOMPARE(std::string(e.what()), file + ": runs[1].outcome: missing");
    }
    doc = nlohmann::json::parse(*pw::core::readWholeFile(shardFiles()[0]));
    doc["parameters"].erase("test");
    QVERIFY(pw::core::writeFileAtomically(file, doc.dump(2)));
    const ShardLedger noTest = ShardLedger::read(file);
    try {
        pw::core::mergeAttribution(ShardSet::gather({noTest}));
        QFAIL("a sweep without a test merged");
    } catch (const Error &e) {
        QCOMPARE(std::string(e.what()), file + ": parameters.test: missing");
    }
}

// A ledger listing all its units but not their runs exactly (dropped, repeated, of another
// seed) is refused by merge, naming the file and the run; so are a shard overlapping
// another's units and counts no sweep has.
void TestShard::runsThatDoNotFitTheirUnitsAreRefused()
{
    const std::vector<std::string> &files = shardFiles();
    const std::string file = dir() + "/forged.json";
    auto refused = [&](const std::function<void(nlohmann::ordered_json &)> &edit) -> std::string {
        nlohmann::ordered_json doc =
            nlohmann::ordered_json::parse(*pw::core::readWholeFile(files[0]));
        edit(doc);
        if (!pw::core::writeFileAtomically(file, doc.dump(2)))
            return "cannot write";
        try {
            pw::core::mergeAttribution(
                ShardSet::gather({ShardLedger::read(file), ShardLedger::read(files[1]),
                                  ShardLedger::read(files[2])}));
        } catch (const Error &e) {
            return e.what();
        }
        return "merged";
    };
    auto baseRun = [](const nlohmann::ordered_json &doc) {
        for (size_t i = 0; i < doc["runs"].size(); ++i) {
            if (doc["runs"][i]["label"] == "base")
                return i;
        }
        return size_t(0);
    };
    std::string e = refused([](nlohmann::ordered_json &) {});
    QVERIFY2(e == "merged", e.c_str()); // the real one merges

    e = refused([&](nlohmann::ordered_json &doc) { doc["runs"].erase(baseRun(doc)); });
    QVERIFY2(e.find(file + ": runs: unit 0 has no base run") == 0, e.c_str());

    e = refused([](nlohmann::ordered_json &doc) { doc["runs"].push_back(doc["runs"][0]); });
    QVERIFY2(e.find(file + ": runs[4].unit: a second ") == 0, e.c_str());

    e = refused([](nlohmann::ordered_json &doc) { doc["runs"][1]["seed"] = 4; });
    QVERIFY2(e.find(file + ": runs[1].seed: 4 is not the seed ") == 0, e.c_str());

    // Shard 1 claiming shard 2's unit 1.
    e = refused([](nlohmann::ordered_json &doc) {
        doc["ran"] = nlohmann::ordered_json::array({0, 1, 3});
    });
    QVERIFY2(e.find("unit 1 does not belong to shard 1/3") != std::string::npos, e.c_str());

    e = refused([](nlohmann::ordered_json &doc) { doc["shard"]["count"] = 1000000000000LL; });
    QVERIFY2(e.find(file + ": shard.count: 1000000000000 is more than the sweep's 6 units") == 0,
             e.c_str());
    e = refused([](nlohmann::ordered_json &doc) { doc["units"] = 4000000000LL; });
    QVERIFY2(e.find(file + ": units: 4000000000 is more than 100000") == 0, e.c_str());
}

// WORKTREE (and PATCH:) have no commit of their own: shards of two different patches would
// carry the same head commit, so --shard refuses them before running anything.
void TestShard::shardOfAWorktreeIsRefused()
{
    RunRequest req = request();
    req.target.head = "WORKTREE";
    const RunContext ctx = RunContext::open(req);
    AttributionRequest attr;
    attr.test = kSeeded;
    attr.mode = AttributionRequest::Mode::Swept;
    attr.runs = 2;
    attr.record = false;
    attr.shard = Shard{1, 2};
    attr.shardOut = dir() + "/worktree-1.json";
    RunPool pool(ctx.workers());
    try {
        Attribution::run(ctx, attr, pool);
        QFAIL("a WORKTREE head was sharded");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).find("attribute: --shard needs commits, not WORKTREE") == 0,
                 e.what());
        QVERIFY2(std::string(e.what()).find("commit the patch first") != std::string::npos,
                 e.what());
    }
    CellsRequest cells;
    cells.test = kOrder;
    cells.orderSeeds = 1;
    cells.shard = Shard{1, 2};
    cells.shardOut = dir() + "/worktree-cells-1.json";
    try {
        ReproCells::run(ctx, cells, pool);
        QFAIL("a WORKTREE head was sharded (cells)");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).find("cells: --shard needs commits") == 0, e.what());
    }
    QVERIFY(!QFile::exists(QString::fromStdString(attr.shardOut)));
}

void TestShard::mergeRecordIsReadByTheFreezeForm()
{
    QVERIFY(m_unsharded); // threeShardsMergeToTheUnshardedVerdict ran first
    const std::vector<std::string> &files = shardFiles();
    const std::string runsDir = m_repo->root() + "/.patchwitness/runs";
    QDir(QString::fromStdString(runsDir)).removeRecursively();
    const CliResult r = cli({QStringLiteral("merge"), QString::fromStdString(files[2]),
                             QString::fromStdString(files[0]), QString::fromStdString(files[1]),
                             QStringLiteral("--record")},
                            false);
    QCOMPARE(r.exitCode, 0); // PRE_EXISTING, as the unsharded attribute exits
    QVERIFY2(r.out.contains(QStringLiteral("verdict: PRE_EXISTING")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("record: .patchwitness/runs/")), qPrintable(r.out));
    const std::optional<AttributionRecord> rec = AttributionRecord::latestFor(runsDir, kSeeded);
    QVERIFY(rec);
    QCOMPARE(rec->verdict.value_or(""), std::string("PRE_EXISTING"));
    QCOMPARE(rec->mode.value_or(""), std::string("swept"));
    QCOMPARE(rec->runs.value_or(0), 6LL);
    QCOMPARE(rec->baseFail.value_or(-1), (long long)m_unsharded->base.fails);
    QCOMPARE(rec->headFail.value_or(-1), (long long)m_unsharded->head.fails);
    QCOMPARE(rec->witnessSeed.value_or(-1), (long long)*m_unsharded->witnessSeed);
    QCOMPARE(rec->baselineSha.value_or(""), m_base);
    QCOMPARE(rec->recorded.value_or(""), kToday);
}

void TestShard::cellsShardsMergeToTheUnshardedMatrix()
{
    CellsRequest req;
    req.test = kOrder;
    req.orderSeeds = 3;
    req.record = false;
    RunPool pool(m_ctx->workers());
    const ReproCellsResult whole = ReproCells::run(*m_ctx, req, pool);
    QVERIFY(!whole.findings.empty());
    QVERIFY(whole.reproduced()); // order fails on some seeds

    std::vector<ShardLedger> ledgers;
    for (int i = 1; i <= 2; ++i) {
        CellsRequest part = req;
        part.shard = Shard{i, 2};
        part.shardOut = dir() + "/cells-" + std::to_string(i) + ".json";
        const ReproCellsResult r = ReproCells::run(*m_ctx, part, pool);
        QCOMPARE(r.recordPath, part.shardOut);
        QVERIFY(r.shard);
        QCOMPARE(r.findings.size(), size_t(1));
        QVERIFY(r.findings.front().sentence.find("no attribution until merged") !=
                std::string::npos);
        ledgers.push_back(ShardLedger::read(part.shardOut));
    }
    // Units 0 solo, 1..3 order, 4 isolate, 5 clock: shard 1 has 0, 2, 4.
    QCOMPARE(ledgers[0].ran, (std::vector<int>{0, 2, 4}));
    QCOMPARE(ledgers[1].ran, (std::vector<int>{1, 3, 5}));
    const ReproCellsResult merged = pw::core::mergeCells(ShardSet::gather(ledgers));
    QCOMPARE(merged.cells.size(), whole.cells.size());
    for (size_t i = 0; i < whole.cells.size(); ++i) {
        QCOMPARE(merged.cells[i].name, whole.cells[i].name);
        QCOMPARE(merged.cells[i].status, whole.cells[i].status);
        QCOMPARE(merged.cells[i].runs(), whole.cells[i].runs());
        QCOMPARE(merged.cells[i].failingSeeds, whole.cells[i].failingSeeds);
        QCOMPARE(merged.cells[i].description, whole.cells[i].description);
        QCOMPARE(merged.cells[i].unknownReason, whole.cells[i].unknownReason);
    }
    QCOMPARE(merged.findings.size(), whole.findings.size());
    for (size_t i = 0; i < whole.findings.size(); ++i) {
        QCOMPARE(merged.findings[i].attribution, whole.findings[i].attribution);
        QCOMPARE(merged.findings[i].sentence, whole.findings[i].sentence);
    }
    QCOMPARE(merged.commit, m_head);

    // Shards run under two environments: no attribution, and the digests are named.
    {
        ShardLedger elsewhere = ledgers[1];
        for (auto &run : elsewhere.runs)
            run.run.envDigest = "0123456789abcdef-other-env";
        const ReproCellsResult mixed =
            pw::core::mergeCells(ShardSet::gather({ledgers[0], elsewhere}));
        QCOMPARE(mixed.findings.size(), size_t(1));
        QCOMPARE(mixed.findings.front().attribution, std::string("unknown"));
        const std::string &why = mixed.findings.front().sentence;
        QVERIFY2(why.find("different environments") != std::string::npos, why.c_str());
        QVERIFY2(why.find("0123456789abcdef-other-env") != std::string::npos, why.c_str());
        QVERIFY2(why.find(ledgers[0].runs.front().run.envDigest) != std::string::npos, why.c_str());
    }

    // Order runs have their own env digest per seed (PYTHONHASHSEED is in it) and one
    // seedless digest: the shards above merged although their order seeds differ.
    {
        std::set<std::string> digests, seedless;
        for (const ShardLedger &l : ledgers) {
            for (const auto &run : l.runs) {
                if (run.run.label == "order") {
                    digests.insert(run.run.envDigest);
                    seedless.insert(run.run.seedlessDigest);
                }
            }
        }
        QCOMPARE(digests.size(), size_t(3));
        QCOMPARE(seedless.size(), size_t(1));
        QVERIFY(!seedless.begin()->empty());
    }

    // A shard whose order runs ran under another environment (its JSON's seedless digest
    // edited): no attribution, and the shard file is named.
    const auto rewritten = [&](const std::string &from, const std::string &to,
                               const std::function<void(nlohmann::ordered_json &)> &change) {
        // Ordered: the parameters' order is part of the sweep's identity.
        nlohmann::ordered_json doc = nlohmann::ordered_json::parse(*pw::core::readWholeFile(from));
        for (nlohmann::ordered_json &run : doc["runs"])
            change(run);
        if (!pw::core::writeFileAtomically(to, doc.dump(2)))
            throw std::runtime_error(to + ": not written");
        return ShardLedger::read(to);
    };
    {
        const std::string other = dir() + "/cells-2-elsewhere.json";
        const ShardLedger elsewhere =
            rewritten(dir() + "/cells-2.json", other, [](nlohmann::ordered_json &run) {
                if (run["label"] == "order")
                    run["env_digest_seedless"] = "fedcba9876543210";
            });
        const ReproCellsResult mixed =
            pw::core::mergeCells(ShardSet::gather({ledgers[0], elsewhere}));
        QCOMPARE(mixed.findings.size(), size_t(1));
        QCOMPARE(mixed.findings.front().attribution, std::string("unknown"));
        const std::string &why = mixed.findings.front().sentence;
        QVERIFY2(why.find("different environments") != std::string::npos, why.c_str());
        QVERIFY2(why.find("fedcba9876543210 in " + other) != std::string::npos, why.c_str());
        QVERIFY2(why.find(dir() + "/cells-1.json") != std::string::npos, why.c_str());
    }

    // Shard ledgers written before the seedless digest still merge to the same matrix.
    {
        const auto strip = [](nlohmann::ordered_json &run) { run.erase("env_digest_seedless"); };
        const ShardLedger old1 = rewritten(dir() + "/cells-1.json", dir() + "/old-1.json", strip);
        const ShardLedger old2 = rewritten(dir() + "/cells-2.json", dir() + "/old-2.json", strip);
        QVERIFY(old1.runs.front().run.seedlessDigest.empty());
        const ReproCellsResult merged = pw::core::mergeCells(ShardSet::gather({old1, old2}));
        QCOMPARE(merged.findings.size(), whole.findings.size());
        QCOMPARE(merged.findings.front().sentence, whole.findings.front().sentence);
    }

    // A cells shard that dropped one isolate trial, or ran an order seed twice, is refused.
    {
        ShardLedger dropped = ledgers[0];
        const auto isolate = std::find_if(dropped.runs.begin(), dropped.runs.end(),
                                          [](const auto &r) { return r.run.label == "isolate"; });
        QVERIFY(isolate != dropped.runs.end());
        dropped.runs.erase(isolate);
        try {
            pw::core::mergeCells(ShardSet::gather({dropped, ledgers[1]}));
            QFAIL("a cells shard without all its isolate trials merged");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("runs: unit 4 has 2 run(s), not 3") !=
                         std::string::npos,
                     e.what());
        }
        ShardLedger twice = ledgers[1];
        const auto order = std::find_if(twice.runs.begin(), twice.runs.end(),
                                        [](const auto &r) { return r.run.label == "order"; });
        QVERIFY(order != twice.runs.end());
        twice.runs.push_back(*order);
        try {
            pw::core::mergeCells(ShardSet::gather({ledgers[0], twice}));
            QFAIL("a cells shard with an order run twice merged");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find(".unit: a second order run of unit") !=
                         std::string::npos,
                     e.what());
        }
    }

    // Through the CLI: the merged text is the unsharded command's, exit 1 (a cell fails).
    const CliResult r =
        cli({QStringLiteral("merge"), QString::fromStdString(dir() + "/cells-2.json"),
             QString::fromStdString(dir() + "/cells-1.json")},
            false);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(QStringLiteral("attribution: ")), qPrintable(r.out));
}

void TestShard::cellsRecordIsWrittenAndNeverOverwritten()
{
    const std::string runsDir = m_repo->root() + "/.patchwitness/runs";
    QDir(QString::fromStdString(runsDir)).removeRecursively();
    CellsRequest req;
    req.test = kGreen;
    req.orderSeeds = 1;
    RunPool pool(m_ctx->workers());
    const ReproCellsResult first = ReproCells::run(*m_ctx, req, pool);
    const ReproCellsResult second = ReproCells::run(*m_ctx, req, pool);
    const std::string stem = runsDir + "/" + kToday + "-tests_green_test_green.py_test_fine-cells";
    QCOMPARE(first.recordPath, stem + ".json");
    QCOMPARE(second.recordPath, stem + "_02.json");
    const nlohmann::json doc = nlohmann::json::parse(*pw::core::readWholeFile(first.recordPath));
    QCOMPARE(doc["schema"].get<std::string>(), std::string("patchwitness.cells/1"));
    QCOMPARE(doc["test"].get<std::string>(), kGreen);
    QCOMPARE(doc["attribution"].get<std::string>(), first.findings.front().attribution);
    QCOMPARE(doc["sentence"].get<std::string>(), first.findings.front().sentence);
    QCOMPARE(doc["commit"].get<std::string>(), m_head);
    QCOMPARE(doc["recorded"].get<std::string>(), kToday);
    QCOMPARE(doc["cells"].size(), size_t(4));
    QCOMPARE(doc["cells"][0]["status"].get<std::string>(), std::string("pass"));
    QVERIFY(doc["cells"][0]["passing_seeds"] == nlohmann::json::array({0}));
    // The freeze form's reader skips it: not an attribution record.
    QVERIFY(!AttributionRecord::latestFor(runsDir, kGreen));

    // --no-record writes nothing.
    const CliResult r = cli({QStringLiteral("cells"), QString::fromStdString(kGreen),
                             QStringLiteral("--order-seeds"), QStringLiteral("1"),
                             QStringLiteral("--no-record"), QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QStringLiteral("record: not written (--no-record)")),
             qPrintable(r.out));
    QCOMPARE(QDir(QString::fromStdString(runsDir)).entryList(QDir::Files).size(), 2);
}

// The trial budget with shards: each shard is its own run, so only its units count against the
// budget; a sweep over the budget runs as shards whose shares fit, and a share over the
// budget is refused, naming the share, before anything runs.
void TestShard::trialBudgetCountsOnlyTheShardsShare()
{
    const std::string config = dir() + "/budget-4.toml";
    QVERIFY(pw::core::writeFileAtomically(config, "trial_budget = 4\n"));
    RunRequest budgeted = request();
    budgeted.target.configPath = config;
    const RunContext ctx = RunContext::open(budgeted);
    QCOMPARE(ctx.config().trialBudget, 4);
    RunPool pool(ctx.workers());
    int runs = 0;
    const auto count = [&](const pw::core::NodeRunProgress &) { ++runs; };
    // Why `sweep` was refused, flagged when it was not or started runs first.
    const auto refusal = [&](const std::function<void()> &sweep) -> std::string {
        runs = 0;
        std::string why = "<not refused>";
        try {
            sweep();
        } catch (const Error &e) {
            why = e.what();
        }
        return runs == 0 ? why : "<" + std::to_string(runs) + " runs first> " + why;
    };

    // Attribution: 3 pairs = 6 trials; shard 1/2 owns pairs 0 and 2 (4), shard 2/2 pair 1.
    AttributionRequest attr;
    attr.test = kGreen;
    attr.mode = AttributionRequest::Mode::Swept;
    attr.runs = 3;
    attr.record = false;
    attr.coverage = false;
    std::string why = refusal([&] { Attribution::run(ctx, attr, pool, count); });
    QVERIFY2(why.find("attribute: 2 × 3 runs exceed the trial budget of 4") == 0, why.c_str());
    for (int i = 1; i <= 2; ++i) {
        AttributionRequest part = attr;
        part.shard = Shard{i, 2};
        part.shardOut = dir() + "/budget-attr-" + std::to_string(i) + ".json";
        const AttributionResult r = Attribution::run(ctx, part, pool, count);
        QCOMPARE(r.recordPath, part.shardOut);
        QCOMPARE(r.base.runs.size() + r.head.runs.size(), size_t(i == 1 ? 4 : 2));
    }
    QCOMPARE(runs, 6);
    // More shards than pairs: refused before anything runs, not only at merge.
    AttributionRequest over = attr;
    over.runs = 2;
    over.shard = Shard{3, 3};
    over.shardOut = dir() + "/budget-over.json";
    why = refusal([&] { Attribution::run(ctx, over, pool, count); });
    QVERIFY2(why.find("attribute: --shard 3/3: 2 × 2 runs make only 2 unit(s) to share; use at "
                      "most 2 shards") == 0,
             why.c_str());
    QVERIFY(!QFileInfo::exists(QString::fromStdString(over.shardOut)));
    // 5 pairs: shard 1/2's share is pairs 0, 2, 4 = 6 trials.
    attr.runs = 5;
    attr.shard = Shard{1, 2};
    why = refusal([&] { Attribution::run(ctx, attr, pool, count); });
    QVERIFY2(why.find("attribute: shard 1/2's share of 2 × 5 runs: 6 of 10 trials exceed the "
                      "trial budget of 4") == 0,
             why.c_str());

    // Cells, R = 2: units solo, order 1, order 2, isolate (2 replays), clock = 6 trials;
    // shard 1/2 owns solo, order 2 and clock (3), shard 2/2 order 1 and isolate (3).
    CellsRequest cells;
    cells.test = kGreen;
    cells.orderSeeds = 2;
    cells.record = false;
    why = refusal([&] { ReproCells::run(ctx, cells, pool, count); });
    QVERIFY2(why.find("cells: 2 + 2 × 2 trials exceed the trial budget of 4") == 0, why.c_str());
    cells.shard = Shard{2, 2};
    cells.shardOut = dir() + "/budget-cells-2.json";
    const ReproCellsResult r = ReproCells::run(ctx, cells, pool, count);
    QCOMPARE(r.recordPath, cells.shardOut);
    QCOMPARE(ShardLedger::read(cells.shardOut).ran, (std::vector<int>{1, 3}));
    QVERIFY(runs > 0);
    // R = 3: shard 1/2 owns solo, order 2 and isolate (3 replays) = 5 trials.
    cells.orderSeeds = 3;
    cells.shard = Shard{1, 2};
    why = refusal([&] { ReproCells::run(ctx, cells, pool, count); });
    QVERIFY2(why.find("cells: shard 1/2's share of 2 + 2 × 3 trials: 5 of 8 trials exceed the "
                      "trial budget of 4") == 0,
             why.c_str());
}

void TestShard::cliExitCodes()
{
    const QString runsDir = QString::fromStdString(m_repo->root() + "/.patchwitness/runs");
    QDir(runsDir).removeRecursively();
    const QString out = QString::fromStdString(dir() + "/cli-1.json");
    CliResult r = cli({QStringLiteral("attribute"), QString::fromStdString(kSeeded),
                       QStringLiteral("--mode"), QStringLiteral("swept"), QStringLiteral("--runs"),
                       QStringLiteral("4"), QStringLiteral("--shard"), QStringLiteral("1/2"),
                       QStringLiteral("--out"), out, QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QStringLiteral("shard 1/2: no verdict until merged")),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("shard ledger: ")));
    QVERIFY(!r.out.contains(QStringLiteral("verdict:")));
    const ShardLedger ledger = ShardLedger::read(out.toStdString());
    QCOMPARE(ledger.ran, (std::vector<int>{0, 2}));
    QCOMPARE(ledger.kind, std::string("attribution"));
    QVERIFY(QDir(runsDir).entryList(QDir::Files).isEmpty()); // a shard records no verdict

    r = cli({QStringLiteral("attribute"), QString::fromStdString(kSeeded),
             QStringLiteral("--shard"), QStringLiteral("3/2")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QStringLiteral("--shard 3/2: i must be between 1 and n")),
             qPrintable(r.err));
    r = cli(
        {QStringLiteral("cells"), QString::fromStdString(kSeeded), QStringLiteral("--out"), out});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.err.contains(QStringLiteral("--out")));
    r = cli({QStringLiteral("merge")}, false);
    QCOMPARE(r.exitCode, 3);
    r = cli({QStringLiteral("merge"), QString::fromStdString(dir() + "/nonexistent.json")}, false);
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.err.contains(QStringLiteral("nonexistent.json")));
}

QTEST_GUILESS_MAIN(TestShard)
#include "tst_shard.moc"
