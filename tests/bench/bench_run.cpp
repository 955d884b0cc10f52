// bench_run: the run engine against references, in one run:
// (a) a patchwitness PytestRun (bundled plugin on) vs bare `python3 -m pytest -q` on the
//     same generated 40-test suite, interleaved, medians (target: overhead <= 10 %);
// (b) RunPool with 2 workers vs 1 worker on 40 independent runs (target: >= 1.7x), beside
//     bare pytest on the same files 2 vs 1 at a time (how far the machine itself scales);
// (c) a 200-seed x 5-replay isolated matrix of a fast test with the fork server vs one
//     interpreter per replay, both on one worker (the cost of a replay; (b) measures
//     how the machine scales), every cell compared (target: >= 10x, outcomes identical),
//     beside what one copy-on-write fault costs on this machine (a replay child's price).
// (d) issue 18: what a run's own copy of its tree costs: bare pytest in a fresh copy
//     (TreeCopy, no bytecode: everything compiled again) against bare pytest in the
//     pristine tree with its bytecode warm (how every run but the first worked before),
//     as a ratio, and the same with the copy seeded with the trusted bytecode
//     (TreeBytecode: plain pycs, plus pytest's rewritten ones); and TreeCache's content check of a
//     2,000-file tree (each file read and hashed) against a stat walk of it (the check it
//     replaced).
// `--quick`: fewer repetitions and a 20 x 2 matrix, for a smoke run; `--overhead`: (a)
// alone, with 21 repetitions (to take the overhead apart without the long matrix);
// `--tree`: (d) alone.
#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "execution/Interpreter.h"
#include "execution/PytestRun.h"
#include "execution/ReplayServer.h"
#include "execution/RunPool.h"
#include "execution/Sandbox.h"
#include "execution/TreeBytecode.h"
#include "execution/TreeCache.h"
#include "execution/TreeCopy.h"
#include "repo/Repository.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace pw::core;

namespace {

// CPU of this process and its reaped descendants (user + system): on a shared machine
// wall-clock time measures the neighbours as much as the code.
double cpuMs()
{
    rusage self{}, children{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    auto ms = [](const timeval &t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
    return ms(self.ru_utime) + ms(self.ru_stime) + ms(children.ru_utime) + ms(children.ru_stime);
}

struct Sample
{
    double wall = 0; // ms
    double cpu = 0;  // ms
};

Sample measure(const std::function<void()> &f)
{
    QElapsedTimer t;
    const double c0 = cpuMs();
    t.start();
    f();
    return {double(t.nsecsElapsed()) / 1e6, cpuMs() - c0};
}

Sample median(std::vector<Sample> samples)
{
    auto mid = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    std::vector<double> wall, cpu;
    for (const Sample &s : samples) {
        wall.push_back(s.wall);
        cpu.push_back(s.cpu);
    }
    return {mid(wall), mid(cpu)};
}

// Four files of ten small tests each.
void writeSuite(const std::string &tree)
{
    for (int f = 0; f < 4; ++f) {
        std::string text = "import random\n\n";
        for (int t = 0; t < 10; ++t)
            text += "def test_case_" + std::to_string(t) +
                    "():\n"
                    "    values = sorted(random.random() for _ in range(200))\n"
                    "    assert values[0] <= values[-1]\n\n";
        pw::test::writeText(tree, "tests/test_suite_" + std::to_string(f) + ".py", text);
    }
    // The matrix's fast test: fails on the seeds whose first draw is below 0.1.
    pw::test::writeText(tree, "fast/test_fast.py",
                        "import random\n\n"
                        "def test_fast():\n"
                        "    assert random.random() >= 0.1\n");
}

RunSpec witnessedSpec(const std::string &tree, const std::string &runDir, uint32_t seed)
{
    RunSpec spec = pw::test::runSpec(tree, runDir);
    spec.arm = "head";
    spec.env.witness.enabled = true;
    spec.env.witness.seed = seed;
    spec.env.witness.outFile = runDir + "/outcomes.jsonl";
    spec.env.witness.orderFile = runDir + "/order.log";
    spec.env.witness.arm = "head";
    spec.env.witness.runId = runDir.substr(runDir.rfind('/') + 1);
    spec.bytecodeDir = tree + ".pyc"; // as RunContext gives a TreeCache tree's runs
    return spec;
}

// `python3 -m pytest -q -p no:cacheprovider tests` in `tree`, in the pinned environment
// (autoload off, as every patchwitness run has it): the least pytest does for the suite
// (no cache, plugin, JUnit file or run directory).
int barePytest(const std::string &tree, const std::string &selection = "tests")
{
    RunEnvironment env;
    env.python = pw::test::testPython();
    QProcess p;
    p.setProcessEnvironment(env.environment());
    p.setWorkingDirectory(QString::fromStdString(tree));
    p.start(QString::fromStdString(env.python),
            {QStringLiteral("-m"), QStringLiteral("pytest"), QStringLiteral("-q"),
             QStringLiteral("-p"), QStringLiteral("no:cacheprovider"),
             QString::fromStdString(selection)});
    p.waitForFinished(300000);
    return p.exitCode();
}

// `runs` bare pytest runs of the pool's files, `parallel` at a time (threads, each running
// its share one after another): how the machine itself scales interpreters, no RunPool.
void barePytestRuns(const std::string &tree, int runs, int parallel)
{
    std::vector<std::thread> threads;
    for (int t = 0; t < parallel; ++t)
        threads.emplace_back([&, t] {
            for (int i = t; i < runs; i += parallel)
                barePytest(tree, "tests/test_suite_" + std::to_string(i % 4) + ".py");
        });
    for (std::thread &t : threads)
        t.join();
}

// What one copy-on-write fault costs here, in microseconds: a forked child writes one byte
// into each page of a 16 MiB buffer the parent filled and times that itself (median of 5
// children). The fork server's children pay this for every page of the interpreter they
// write (reference counts); it differs by an order of magnitude between bare metal and
// virtual machines that trap page-table updates.
double copyOnWriteMicros()
{
    const size_t pageSize = size_t(sysconf(_SC_PAGESIZE));
    const size_t pages = (size_t(16) << 20) / pageSize;
    std::vector<char> buffer(pages * pageSize, 1);
    volatile char *bytes = buffer.data(); // volatile: the child's writes are not dead stores
    std::vector<double> perPage;
    for (int round = 0; round < 5; ++round) {
        int pipeFds[2];
        if (pipe(pipeFds) != 0)
            return -1;
        const pid_t child = fork();
        if (child == 0) {
            QElapsedTimer t;
            t.start();
            for (size_t i = 0; i < pages; ++i)
                bytes[i * pageSize] = char(bytes[i * pageSize] + 1);
            const double micros = double(t.nsecsElapsed()) / 1e3 / double(pages);
            _exit(write(pipeFds[1], &micros, sizeof micros) == sizeof micros ? 0 : 1);
        }
        double micros = -1;
        if (child < 0 || read(pipeFds[0], &micros, sizeof micros) != sizeof micros)
            micros = -1;
        if (child > 0)
            waitpid(child, nullptr, 0);
        close(pipeFds[0]);
        close(pipeFds[1]);
        perPage.push_back(micros);
    }
    std::sort(perPage.begin(), perPage.end());
    return perPage[perPage.size() / 2];
}

int g_misses = 0;

void verdict(const char *what, double value, const char *unit, double target, bool atMost)
{
    const bool pass = atMost ? value <= target : value >= target;
    g_misses += pass ? 0 : 1;
    std::printf("  %-58s %8.2f%-2s target %s %.2f%s  %s\n", what, value, unit,
                atMost ? "<=" : ">=", target, unit, pass ? "PASS" : "MISS");
}

void line(const char *what, const Sample &s)
{
    std::printf("    %-56s wall %9.1f ms   cpu %9.1f ms\n", what, s.wall, s.cpu);
}

// (d): the per-run copy and the content check.
void treeCosts(const std::string &tree, int reps)
{
    barePytest(tree); // the pristine tree's bytecode warm, as runs after the first had it
    const std::string python = pw::test::testPython();
    const InterpreterProbe probe = probeInterpreter(python);
    TreeBytecode bytecode;
    const Sample compile =
        measure([&] { bytecode = ensureTreeBytecode(python, probe, tree, tree + ".pyc", 120000); });
    std::vector<Sample> warm, copied, seededPlain, seededAll, copyOnly;
    for (int i = 0; i < reps; ++i) {
        warm.push_back(measure([&] { barePytest(tree); }));
        copied.push_back(measure([&] {
            const TreeCopy copy = TreeCopy::make(tree);
            barePytest(copy.path());
        }));
        seededPlain.push_back(measure([&] {
            const TreeCopy copy = TreeCopy::make(tree);
            seedTreeBytecode(bytecode, copy.path(), false);
            barePytest(copy.path());
        }));
        seededAll.push_back(measure([&] {
            const TreeCopy copy = TreeCopy::make(tree);
            seedTreeBytecode(bytecode, copy.path(), true);
            barePytest(copy.path());
        }));
        copyOnly.push_back(measure([&] { TreeCopy::make(tree); }));
    }
    const Sample w = median(warm), c = median(copied), k = median(copyOnly);
    const Sample sp = median(seededPlain), sa = median(seededAll);
    std::printf("(d) the run's own tree: %d interleaved repetitions on the 40-test suite\n", reps);
    line("reference: bare pytest in the pristine tree, bytecode warm", w);
    line("bare pytest in a fresh copy (copy + compile + run + remove)", c);
    line("same, copy seeded with plain pycs (no sandbox)", sp);
    line("same, copy seeded with plain + rewritten pycs (sandbox)", sa);
    line("the copy alone (make + remove)", k);
    line("the trusted bytecode, written once per tree (pw_bytecode.py)", compile);
    std::printf("  %-58s %8.2fx  (CPU %.2fx)\n", "per-run cost, copy over warm (wall)",
                c.wall / w.wall, c.cpu / w.cpu);
    std::printf("  %-58s %8.2fx  (CPU %.2fx)\n", "seeded, no sandbox, over warm (wall)",
                sp.wall / w.wall, sp.cpu / w.cpu);
    std::printf("  %-58s %8.2fx  (CPU %.2fx)\n", "seeded, sandbox, over warm (wall)",
                sa.wall / w.wall, sa.cpu / w.cpu);

    // A 2,000-file repository (40 packages of 50 modules, ~1.5 KB each).
    pw::test::RepoBuilder builder;
    std::string body;
    for (int l = 0; l < 40; ++l)
        body += "def f" + std::to_string(l) + "(x):\n    return x * " + std::to_string(l) +
                "  # padding to a realistic line length\n";
    for (int p = 0; p < 40; ++p)
        for (int m = 0; m < 50; ++m)
            builder.write("pkg" + std::to_string(p) + "/mod" + std::to_string(m) + ".py",
                          "# module " + std::to_string(m) + "\n" + body);
    builder.commit("2000 files");
    QTemporaryDir cacheDir;
    const TreeCache cache(cacheDir.path().toStdString());
    const Repository repo = Repository::open(builder.root());
    const Revision rev = repo.resolve("HEAD");
    std::string dir;
    const Sample build = measure([&] { dir = cache.acquire(repo, rev).path(); });
    std::vector<Sample> check, statWalk, bigCopy, copyCheck;
    for (int i = 0; i < std::max(5, reps); ++i) {
        check.push_back(measure([&] { cache.acquire(repo, rev); }));
        statWalk.push_back(measure([&] {
            size_t n = 0;
            for (const auto &e : std::filesystem::recursive_directory_iterator(dir)) {
                struct stat st;
                n += ::lstat(e.path().c_str(), &st) == 0 ? 1 : 0;
            }
        }));
        bigCopy.push_back(measure([&] { TreeCopy::make(dir); }));
        const TreeCopy copy = TreeCopy::make(dir);
        copyCheck.push_back(measure([&] {
            if (copyDiffersFromTree(dir, copy.path()))
                std::abort(); // the bench's own copy must be the revision
        }));
    }
    const Sample a = median(check), s = median(statWalk), b = median(bigCopy),
                 cc = median(copyCheck);
    std::printf("    2,000-file tree: materialised in %.1f ms\n", build.wall);
    line("reference: a stat walk of it (the old intact check)", s);
    line("TreeCache::acquire of it, reused (listing + content check)", a);
    line("a run's copy of it (make + remove)", b);
    line("the check of that copy before its run (content)", cc);
    std::printf("  %-58s %8.2fx\n", "content check over stat walk (wall)", a.wall / s.wall);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const bool overheadOnly = argc > 1 && std::strcmp(argv[1], "--overhead") == 0;
    const bool treeOnly = argc > 1 && std::strcmp(argv[1], "--tree") == 0;
    const int reps = quick ? 3 : overheadOnly ? 21 : 11; // (a)
    const int poolReps = quick ? 1 : 3;                  // (b)
    const int poolRuns = quick ? 10 : 40;                // (b)
    const int seeds = quick ? 20 : 200;                  // (c)
    const int replays = quick ? 2 : 5;                   // (c)

    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    const std::string tree = root + "/tree";
    writeSuite(tree);
    int runNo = 0;
    auto nextDir = [&] { return root + "/runs/" + std::to_string(++runNo); };

    std::printf("bench_run%s: %d cores (medians; CPU = user + system, descendants included)\n",
                quick ? " --quick" : "", QThread::idealThreadCount());

    if (treeOnly) {
        treeCosts(tree, 11);
        return 0;
    }

    // (a) overhead, interleaved: bare, patchwitness, bare, … after one warm-up each (the
    // interpreter probe, the staged plugin and the suite's bytecode are then cached).
    barePytest(tree);
    auto suiteSpec = [&] {
        RunSpec spec = witnessedSpec(tree, nextDir(), 1);
        spec.selection = {"tests"};
        return spec;
    };
    PytestRun(suiteSpec()).run();
    // The default configuration runs in the sandbox (config `sandbox = true`): measured
    // too when bubblewrap works here, as information beside the target.
    const bool boxable = Sandbox::status().available;
    auto boxedSpec = [&] {
        RunSpec spec = suiteSpec();
        spec.sandbox = true;
        return spec;
    };
    if (boxable)
        PytestRun(boxedSpec()).run();
    // The engine without the plugin: what PytestRun itself (process group, pinned
    // environment, JUnit file and its reading) adds to bare pytest.
    auto plainSpec = [&] {
        RunSpec spec = pw::test::runSpec(tree, nextDir());
        spec.arm = "head";
        spec.selection = {"tests"};
        spec.bytecodeDir = tree + ".pyc";
        return spec;
    };
    std::vector<Sample> bare, plain, witnessed, probed, boxed;
    int bareExit = -1;
    RunResult last;
    for (int i = 0; i < reps; ++i) {
        bare.push_back(measure([&] { bareExit = barePytest(tree); }));
        const RunSpec engine = plainSpec();
        plain.push_back(measure([&] { PytestRun(engine).run(); }));
        const RunSpec spec = suiteSpec();
        witnessed.push_back(measure([&] { last = PytestRun(spec).run(); }));
        RunSpec probe = suiteSpec();
        probe.env.witness.probe = true;
        probed.push_back(measure([&] { PytestRun(probe).run(); }));
        if (boxable) {
            const RunSpec box = boxedSpec();
            boxed.push_back(measure([&] { PytestRun(box).run(); }));
        }
    }
    const Sample b = median(bare), e = median(plain), w = median(witnessed), p = median(probed);
    std::printf("(a) 40-test suite, %d interleaved repetitions (bare exit %d, patchwitness exit "
                "%d, %zu outcomes)\n",
                reps, bareExit, last.exitCode, last.outcomes.size());
    line("reference: python3 -m pytest -q -p no:cacheprovider", b);
    line("PytestRun, plugin off (process group, pinned env, JUnit)", e);
    line("PytestRun, plugin on (seed 1: shuffled, JSONL, order log)", w);
    line("PytestRun, plugin on + state probe", p);
    verdict("overhead of PytestRun + plugin over bare pytest (wall)", (w.wall / b.wall - 1) * 100,
            " %", 10, true);
    std::printf("  %-58s %8.2f %%\n", "same, CPU", (w.cpu / b.cpu - 1) * 100);
    std::printf("  %-58s %8.2f %%\n", "of which the engine, plugin off (wall)",
                (e.wall / b.wall - 1) * 100);
    std::printf("  %-58s %8.2f %%\n", "with the state probe (wall)", (p.wall / b.wall - 1) * 100);
    if (boxable) {
        const Sample x = median(boxed);
        std::printf("  %-58s %8.2f %%  (%.1f ms)\n", "in the sandbox (wall)",
                    (x.wall / b.wall - 1) * 100, x.wall);
    } else {
        std::printf("  %-58s %s\n", "in the sandbox", Sandbox::status().reason.c_str());
    }
    if (overheadOnly)
        return 0;

    // (b) RunPool speed-up: the same 40 runs (one 10-test file each) on 1 and on 2 workers.
    auto poolSpecs = [&] {
        std::vector<RunSpec> specs;
        for (int i = 0; i < poolRuns; ++i) {
            RunSpec spec = witnessedSpec(tree, nextDir(), uint32_t(i + 1));
            spec.selection = {"tests/test_suite_" + std::to_string(i % 4) + ".py"};
            specs.push_back(spec);
        }
        return specs;
    };
    std::vector<Sample> one, two, bareOne, bareTwo;
    int evidence = 0;
    for (int i = 0; i < poolReps; ++i) {
        RunPool single(1), pair(2);
        one.push_back(measure([&] { single.run(poolSpecs()); }));
        two.push_back(measure([&] {
            for (const RunResult &r : pair.run(poolSpecs()))
                evidence += r.evidence() ? 1 : 0;
        }));
        bareOne.push_back(measure([&] { barePytestRuns(tree, poolRuns, 1); }));
        bareTwo.push_back(measure([&] { barePytestRuns(tree, poolRuns, 2); }));
    }
    const Sample s1 = median(one), s2 = median(two);
    const Sample m1 = median(bareOne), m2 = median(bareTwo);
    std::printf("(b) %d independent runs, %d repetition(s), %d/%d runs evidence\n", poolRuns,
                poolReps, evidence, poolRuns * poolReps);
    line("reference: RunPool, 1 worker", s1);
    line("RunPool, 2 workers", s2);
    verdict("speed-up, 2 workers over 1 (wall)", s1.wall / s2.wall, "x", 1.7, false);
    line("machine: bare pytest on the same files, 1 at a time", m1);
    line("machine: bare pytest on the same files, 2 at a time", m2);
    std::printf("  %-58s %8.2fx  (the machine's own scaling, no RunPool)\n",
                "bare pytest, 2 at a time over 1 (wall)", m1.wall / m2.wall);

    // (c) the isolated matrix: fork server vs one interpreter per replay, same pool.
    ReplayRequest request;
    request.base = pw::test::runSpec(tree, root + "/fork");
    request.base.arm = "head";
    request.nodeIds = {"fast/test_fast.py::test_fast"};
    for (int s = 1; s <= seeds; ++s)
        request.seeds.push_back(uint32_t(s));
    request.replays = replays;
    request.perReplayTimeoutMs = 60 * 1000;
    request.base.timeoutMs = 3600 * 1000; // a server run holds hundreds of replays
    RunPool pool(1);
    ReplayMatrix forked, fresh;
    // The fork server runs before and after the (much longer) reference, and counts with
    // the mean of both: a neighbour's load then weighs on both sides alike.
    ReplayMatrix forkedAfter;
    request.base.runDir = root + "/fork-before";
    const Sample before = measure([&] { forked = forkReplays(request, pool); });
    request.base.runDir = root + "/fresh";
    const Sample r = measure([&] { fresh = freshReplays(request, pool); });
    request.base.runDir = root + "/fork-after";
    const Sample after = measure([&] { forkedAfter = forkReplays(request, pool); });
    const Sample f = {(before.wall + after.wall) / 2, (before.cpu + after.cpu) / 2};
    int differ = 0, harness = 0;
    for (size_t i = 0; i < forked.cells.size(); ++i) {
        for (const ReplayMatrix *m : {&forked, &forkedAfter})
            differ += m->cells[i].outcome != fresh.cells[i].outcome ? 1 : 0;
        harness += forked.cells[i].outcome == Outcome::HarnessError ? 1 : 0;
    }
    std::printf("(c) %d seeds x %d replays = %zu cells; fork server: %zu run(s), %d failing cells, "
                "%d harness errors\n",
                seeds, replays, forked.cells.size(), forked.runs.size(),
                forked.count(Outcome::Fail), harness);
    line("fork server, before the reference", before);
    line("fork server, after the reference", after);
    line("reference: one interpreter per replay (RunPool, 1 worker)", r);
    line("fork server (RunPool, 1 worker), mean", f);
    std::printf("    per replay: fork server %.1f ms, fresh interpreter %.1f ms (wall)\n",
                f.wall / double(forked.cells.size()), r.wall / double(fresh.cells.size()));
    verdict("speed-up of the fork server (wall)", r.wall / f.wall, "x", 10, false);
    std::printf("  %-58s %8.2fx\n", "same, CPU", r.cpu / f.cpu);
    std::printf("  %-58s %8.2f us  (typically 1-2 us on bare metal)\n",
                "machine: one copy-on-write fault in a forked child", copyOnWriteMicros());
    verdict("cells that differ from the fresh interpreters (both fork runs)", double(differ), "", 0,
            true);
    treeCosts(tree, reps);
    std::printf("%s\n", g_misses ? "bench_run: some targets missed" : "bench_run: all targets met");
    return 0;
}
