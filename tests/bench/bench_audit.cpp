// bench_audit: the static audit of a 20-file patch in a large repository (≥ 1,500 test
// files, ≥ 10,000 test functions), cold and warm fact cache, against the reference a
// naive gate would be: parse every test file of both trees with Python's ast, one
// Python process per tree. Prints medians, ratios and peak RSS.
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "python/FactExtractor.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {

constexpr int kFiles = 1500;
constexpr int kTestsPerFile = 7;
constexpr int kPatchedFiles = 20;

std::string testFile(int file, bool patched)
{
    std::string s = "import pytest\nfrom pkg import mod" + std::to_string(file % 50) + " as m\n\n";
    for (int t = 0; t < kTestsPerFile; ++t) {
        const std::string n = std::to_string(t);
        s += "\n\ndef test_case_" + n + "():\n";
        s += "    value = m.compute(" + n + ", " + std::to_string(file) + ")\n";
        if (patched && t == 2)
            s += "    assert value\n"; // the agent's loosened oracle
        else
            s += "    assert value == " + std::to_string(file * 10 + t) + "\n";
        s += "    assert isinstance(value, int)\n";
        if (t % 3 == 0)
            s += "    with pytest.raises(ValueError):\n        m.compute(-1, " + n + ")\n";
    }
    s +=
        "\n\nclass TestGroup:\n    def test_method(self):\n        assert m.name() in {'a', 'b'}\n";
    return s;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double runCli(const QStringList &args, int *exitCode, const QString &userCache = {})
{
    QProcess p;
    if (!userCache.isEmpty()) { // a machine that never ran patchwitness: no staged extractor
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CACHE_HOME"), userCache);
        p.setProcessEnvironment(env);
    }
    QElapsedTimer timer;
    timer.start();
    p.start(QStringLiteral(PW_CLI_PATH), args);
    p.waitForFinished(600000);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    *exitCode = p.exitCode();
    if (p.exitCode() > 2)
        std::fprintf(stderr, "cli failed: %s\n", p.readAllStandardError().constData());
    return seconds;
}

long peakChildRssKiB()
{
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_maxrss;
}

const char *kReference = R"(
import ast, os, sys
root = sys.argv[1]
tests = asserts = 0
for dirpath, _, names in os.walk(root):
    for name in names:
        if name.startswith('test_') and name.endswith('.py'):
            with open(os.path.join(dirpath, name), 'rb') as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith('test'):
                    tests += 1
                elif isinstance(node, ast.Assert):
                    asserts += 1
print(tests, asserts)
)";

// The naive gate that computes the same facts: the bundled extractor over every test
// file of the tree in one process (input prepared beforehand, not timed).
double runFactsReference(const QByteArray &input)
{
    QProcess p;
    QElapsedTimer timer;
    timer.start();
    p.start(QString::fromStdString(pw::test::testPython()),
            {QStringLiteral("-I"), QStringLiteral("-S"), QStringLiteral("-c"),
             QString::fromStdString(pw::core::FactExtractor::script())});
    p.waitForStarted();
    p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(600000);
    return double(timer.nsecsElapsed()) / 1e9;
}

QByteArray extractorInput(bool patched)
{
    QByteArray json = "{\"files\": [";
    for (int f = 0; f < kFiles; ++f) {
        const std::string text = testFile(f, patched && f < kPatchedFiles);
        json += (f ? "," : "") + QByteArray("{\"id\": \"") + QByteArray::number(f) +
                "\", \"path\": \"tests/test_f" + QByteArray::number(f) + ".py\", \"b64\": \"" +
                QByteArray::fromStdString(text).toBase64() + "\"}";
    }
    return json + "]}";
}

double runReference(const QString &tree)
{
    QProcess p;
    QElapsedTimer timer;
    timer.start();
    p.start(QString::fromStdString(pw::test::testPython()),
            {QStringLiteral("-c"), QString::fromLatin1(kReference), tree});
    p.waitForFinished(600000);
    return double(timer.nsecsElapsed()) / 1e9;
}

void materialise(const QString &dir, bool patched)
{
    for (int f = 0; f < kFiles; ++f) {
        const QString path =
            QStringLiteral("%1/tests/d%2/test_f%3.py").arg(dir).arg(f / 100).arg(f);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile out(path);
        out.open(QIODevice::WriteOnly);
        const std::string text = testFile(f, patched && f < kPatchedFiles);
        out.write(text.data(), qint64(text.size()));
    }
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::printf("bench_audit: generating %d test files x %d functions (+1 method), patch touching "
                "%d files...\n",
                kFiles, kTestsPerFile, kPatchedFiles);
    std::fflush(stdout);

    pw::test::RepoBuilder repo;
    for (int f = 0; f < kFiles; ++f)
        repo.write("tests/d" + std::to_string(f / 100) + "/test_f" + std::to_string(f) + ".py",
                   testFile(f, false));
    for (int m = 0; m < 50; ++m)
        repo.write("pkg/mod" + std::to_string(m) + ".py", "def compute(a, b):\n    return a * b\n");
    const std::string base = repo.commit("base");
    for (int f = 0; f < kPatchedFiles; ++f)
        repo.write("tests/d" + std::to_string(f / 100) + "/test_f" + std::to_string(f) + ".py",
                   testFile(f, true));
    const std::string head = repo.commit("agent patch");

    const QStringList common = {QStringLiteral("audit"),
                                QStringLiteral("--repo"),
                                QString::fromStdString(repo.root()),
                                QStringLiteral("--base"),
                                QString::fromStdString(base),
                                QStringLiteral("--head"),
                                QString::fromStdString(head),
                                QStringLiteral("--python"),
                                QString::fromStdString(pw::test::testPython()),
                                QStringLiteral("--quiet"),
                                QStringLiteral("--format"),
                                QStringLiteral("json")};
    int exitCode = 0;
    std::vector<double> cold, warm, first;
    for (int i = 0; i < 3; ++i) {
        QTemporaryDir cache, userCache;
        first.push_back(runCli(common + QStringList{QStringLiteral("--cache-dir"), cache.path()},
                               &exitCode, userCache.path()));
    }
    for (int i = 0; i < 7; ++i) {
        QTemporaryDir cache;
        cold.push_back(
            runCli(common + QStringList{QStringLiteral("--cache-dir"), cache.path()}, &exitCode));
        if (i == 0) {
            for (int w = 0; w < 7; ++w)
                warm.push_back(runCli(
                    common + QStringList{QStringLiteral("--cache-dir"), cache.path()}, &exitCode));
        }
    }
    const long rssKiB = peakChildRssKiB();
    if (exitCode != 2 && exitCode != 1) {
        std::fprintf(stderr, "bench_audit: unexpected audit exit code %d\n", exitCode);
        return 1;
    }

    QTemporaryDir trees;
    materialise(trees.filePath(QStringLiteral("base")), false);
    materialise(trees.filePath(QStringLiteral("head")), true);
    std::vector<double> reference;
    for (int i = 0; i < 3; ++i)
        reference.push_back(runReference(trees.filePath(QStringLiteral("base"))) +
                            runReference(trees.filePath(QStringLiteral("head"))));

    const QByteArray baseInput = extractorInput(false), headInput = extractorInput(true);
    std::vector<double> factsReference;
    for (int i = 0; i < 3; ++i)
        factsReference.push_back(runFactsReference(baseInput) + runFactsReference(headInput));

    const double c = median(cold), w = median(warm), r = median(reference),
                 rf = median(factsReference);
    std::printf("\n%-44s %10s %10s\n", "", "median s", "target");
    std::printf("%-44s %10.3f %10s\n", "patchwitness-cli audit, cold fact cache", c, "<= 2.0");
    std::printf("%-44s %10.3f %10s\n", "patchwitness-cli audit, warm fact cache", w, "<= 0.3");
    std::printf("%-44s %10.3f\n", "  first run on a machine (extractor unstaged)", median(first));
    std::printf("%-44s %10.3f\n", "reference 1: ast.parse both trees (2 procs)", r);
    std::printf("%-44s %9.1fx %10s\n", "reference 1 / cold", r / c, ">= 20x");
    std::printf("%-44s %9.1fx\n", "reference 1 / warm", r / w);
    std::printf("%-44s %10.3f\n", "reference 2: same facts, both trees (2 procs)", rf);
    std::printf("%-44s %9.1fx\n", "reference 2 / cold", rf / c);
    std::printf("%-44s %9.1fx\n", "reference 2 / warm", rf / w);
    std::printf("%-44s %7.1f MB %10s\n", "peak RSS (largest audit process)",
                double(rssKiB) / 1024.0, "<= 200 MB");
    std::printf("\n%s\n", (c <= 2.0 && w <= 0.3 && r / c >= 20.0 && rssKiB <= 200 * 1024)
                              ? "all targets met"
                              : "TARGET MISSED");
    return 0;
}
