#include "python/FactExtractor.h"

#include "python/FactsJson.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/ThreadRule.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

static void initCoreResources()
{
    Q_INIT_RESOURCE(core);
}

namespace pw::core {
namespace {

using nlohmann::json;

constexpr int kPerFileTimeoutMs = 250;
// Large files take their time too: a 4 MiB file of 15,700 tests takes about 14 s on a
// loaded 2-core machine, so each KiB adds 10 ms (a 4 MiB file: 41 s more).
constexpr qint64 kPerKiBTimeoutMs = 10;
// The cached facts' JSON as fileFactsToJson writes it: bump on any change of what is stored
// or how it is read, so that no audit reads facts cached by another build as if complete
// (2: statement hashes, skip details).
constexpr int kFactsSchema = 2;
constexpr size_t kMinFilesPerWorker = 64;

QByteArray sha256Hex(const QByteArray &data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

std::string tail(const QByteArray &bytes, int max = 800)
{
    QByteArray t = bytes.size() > max ? bytes.right(max) : bytes;
    return t.trimmed().toStdString();
}

} // namespace

std::string FactExtractor::script()
{
    static const std::string text = [] {
        initCoreResources();
        QFile f(QStringLiteral(":/patchwitness/pw_facts.py"));
        if (!f.open(QIODevice::ReadOnly))
            return std::string();
        return f.readAll().toStdString();
    }();
    return text;
}

std::string FactExtractor::defaultCacheDir()
{
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    return QDir(base).filePath(QStringLiteral("patchwitness/facts")).toStdString();
}

FactExtractor::FactExtractor(std::string python, std::string cacheDir) : m_python(std::move(python))
{
    if (script().empty())
        throw Error::harness("the bundled fact extractor is missing from this build");
    if (!cacheDir.empty()) {
        // Facts depend on the extractor and on the interpreter's ast (its version): key
        // the cache by the script, the interpreter's resolved file, its size and mtime,
        // so an upgraded Python never reads another version's facts.
        QByteArray key = QByteArray::fromStdString(script());
        key += '\0' + QByteArray::number(kFactsSchema) + '\0';
        key += QByteArray::fromStdString(m_python);
        const QString program = QStandardPaths::findExecutable(QString::fromStdString(m_python));
        const QFileInfo info(program.isEmpty() ? QString::fromStdString(m_python) : program);
        if (info.exists()) {
            key += '\0' + info.canonicalFilePath().toUtf8() + '\0' +
                   QByteArray::number(info.size()) + '\0' +
                   QByteArray::number(info.lastModified().toMSecsSinceEpoch());
        }
        const std::string name = sha256Hex(key).left(16).toStdString();
        m_cacheDir = cacheDir + "/" + name;
        // The staged extractor module (and CPython's bytecode of it) is not a fact: it
        // lives in the user cache whichever fact cache an audit uses.
        m_moduleDir = QDir(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation))
                          .filePath(QStringLiteral("patchwitness/extractor/"))
                          .toStdString() +
                      name;
    }
}

std::string FactExtractor::cachePath(const std::string &blob) const
{
    return m_cacheDir + "/" + blob.substr(0, 2) + "/" + blob + ".json";
}

bool FactExtractor::loadCached(const std::string &blob, FileFacts *out) const
{
    if (m_cacheDir.empty() || blob.size() < 4)
        return false;
    QFile f(QString::fromStdString(cachePath(blob)));
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const QByteArray bytes = f.readAll();
    try {
        std::vector<std::vector<TestFunctionFacts>> tests;
        json j = parseFactsText(bytes.constData(), bytes.constData() + bytes.size(), 0, &tests);
        if (j.is_discarded() || !j.is_object() || tests.size() != 1)
            return false; // a damaged cache entry is simply parsed again
        *out = fileFactsFromJson(j);
        out->tests = std::move(tests.front());
    } catch (const json::exception &) {
        return false;
    }
    return out->blob == blob;
}

void FactExtractor::storeCached(const FileFacts &facts) const
{
    if (m_cacheDir.empty() || facts.blob.size() < 4)
        return;
    const std::string text = fileFactsToJsonText(facts);
    // A cache that cannot be written only costs speed; the audit goes on.
    writeFileReplacing(cachePath(facts.blob), text, /*createDirs=*/true);
}

std::vector<FileFacts> FactExtractor::extract(const std::vector<SourceRef> &refs)
{
    std::map<std::string, FileFacts> byBlob; // facts per blob id, path filled later
    std::vector<const SourceRef *> misses;
    std::map<std::string, bool> queued;
    for (const SourceRef &ref : refs) {
        if (byBlob.count(ref.blob) || queued.count(ref.blob))
            continue;
        FileFacts cached;
        if (loadCached(ref.blob, &cached)) {
            ++m_stats.cacheHits;
            byBlob.emplace(ref.blob, std::move(cached));
        } else {
            queued[ref.blob] = true;
            misses.push_back(&ref);
        }
    }

    if (!misses.empty()) {
        for (FileFacts &facts : runBatch(misses)) {
            // A file over the cap is not cached: the cap is configuration, not a fact.
            if (!(facts.error && facts.error->tooLarge))
                storeCached(facts);
            std::string blob = facts.blob;
            byBlob.emplace(std::move(blob), std::move(facts));
        }
    }

    // A blob's facts are copied only for its repeated paths; the last one takes them.
    std::map<std::string, int> uses;
    for (const SourceRef &ref : refs)
        ++uses[ref.blob];
    std::vector<FileFacts> out;
    out.reserve(refs.size());
    for (const SourceRef &ref : refs) {
        FileFacts &held = byBlob.at(ref.blob);
        FileFacts facts = --uses[ref.blob] == 0 ? std::move(held) : held;
        facts.path = ref.path;
        out.push_back(std::move(facts));
    }
    return out;
}

QStringList FactExtractor::interpreterArguments() const
{
    // -I: no user site or PYTHON* variables; -S: no site-packages (stdlib only).
    const QStringList isolated = {QStringLiteral("-I"), QStringLiteral("-S")};
    if (!m_moduleDir.empty()) {
        // Run the script as an imported module from the cache directory so that CPython
        // keeps its bytecode in __pycache__: compiling it costs more than parsing a
        // small patch's test files.
        const std::string &dir = m_moduleDir;
        const std::string module = dir + "/pw_facts.py";
        const std::optional<std::string> staged = readWholeFile(module);
        if (staged == script() || writeFileReplacing(module, script(), /*createDirs=*/true)) {
            return isolated +
                   QStringList{QStringLiteral("-c"),
                               QStringLiteral("import sys; sys.path.insert(0, sys.argv[1]); "
                                              "import pw_facts; sys.exit(pw_facts.main())"),
                               QString::fromStdString(dir)};
        }
    }
    return isolated + QStringList{QStringLiteral("-c"), QString::fromStdString(script())};
}

FileFacts FactExtractor::tooLargeFacts(const SourceRef &ref, long long bytes) const
{
    FileFacts facts;
    facts.blob = ref.blob;
    facts.path = ref.path;
    ParseError e;
    e.tooLarge = true;
    e.message = formatBytes(bytes) + ", over `test_file_max_bytes` (" +
                formatBytes(m_maxFileBytes) + "): too large to judge";
    facts.error = e;
    return facts;
}

std::vector<FileFacts> FactExtractor::runBatch(const std::vector<const SourceRef *> &refs)
{
    // Split into one chunk per core when there is enough work to pay for the extra
    // interpreter start-up.
    const size_t cores = static_cast<size_t>(std::max(1, QThread::idealThreadCount()));
    const size_t workers = std::clamp(refs.size() / kMinFilesPerWorker, size_t(1), cores);
    const size_t chunk = (refs.size() + workers - 1) / workers;

    struct Job
    {
        std::unique_ptr<QProcess> process;
        std::vector<const SourceRef *> refs;
        qint64 bytes = 0;
    };
    std::vector<Job> jobs;
    const QStringList args = interpreterArguments();
    std::vector<FileFacts> out;
    out.reserve(refs.size());

    // A stop request is seen within one slice of any wait below.
    constexpr qint64 kStopSliceMs = 100;
    const auto killAll = [&jobs] {
        for (Job &other : jobs)
            other.process->kill();
        for (Job &other : jobs)
            other.process->waitForFinished(5000);
    };
    QElapsedTimer clock; // the chunks' time limits count from here
    clock.start();
    for (size_t start = 0; start < refs.size(); start += chunk) {
        Job job;
        json files = json::array();
        for (size_t i = start; i < std::min(refs.size(), start + chunk); ++i) {
            const SourceRef *ref = refs[i];
            const std::string bytes = ref->read();
            // A file over the cap is never handed to the interpreter.
            if (static_cast<long long>(bytes.size()) > m_maxFileBytes) {
                out.push_back(tooLargeFacts(*ref, static_cast<long long>(bytes.size())));
                continue;
            }
            job.refs.push_back(ref);
            job.bytes += qint64(bytes.size());
            const QByteArray b64 =
                QByteArray::fromRawData(bytes.data(), int(bytes.size())).toBase64();
            files.push_back({{"id", ref->blob}, {"path", ref->path}, {"b64", b64.toStdString()}});
        }
        if (job.refs.empty())
            continue;
        const std::string input =
            json{{"files", files}}.dump(-1, ' ', false, json::error_handler_t::replace);

        if (m_stop.stop_requested()) { // asked before this chunk's interpreter starts
            killAll();
            throw Error::interrupted("fact extraction stopped");
        }
        checkBlockingWorkAllowed("FactExtractor (the Python extractor)");
        job.process = std::make_unique<QProcess>();
        job.process->setProgram(QString::fromStdString(m_python));
        job.process->setArguments(args);
        job.process->start();
        if (!job.process->waitForStarted(30000)) {
            throw Error::input("cannot run the Python interpreter '" + m_python +
                               "': " + job.process->errorString().toStdString() +
                               " (set `python` in config.toml or pass --python)");
        }
        job.process->write(input.data(), qint64(input.size()));
        job.process->closeWriteChannel();
        ++m_stats.interpreterRuns;
        jobs.push_back(std::move(job));
        // Without an event loop QProcess writes only inside its waits: feed this chunk its
        // files now, so that the chunks really run at once instead of each getting its
        // input when its own wait below begins (the interpreter reads all of stdin first).
        QProcess &fed = *jobs.back().process;
        QElapsedTimer feeding;
        feeding.start();
        while (fed.bytesToWrite() > 0 && fed.state() != QProcess::NotRunning &&
               feeding.elapsed() < m_startTimeoutMs) {
            if (m_stop.stop_requested()) {
                killAll();
                throw Error::interrupted("fact extraction stopped");
            }
            fed.waitForBytesWritten(int(kStopSliceMs));
        }
    }

    // The chunks run at once: each is given the time from the start of the first chunk
    // (feeding included). The wait is cut in slices so that a stop request is seen within
    // one.
    for (Job &job : jobs) {
        QProcess &p = *job.process;
        const qint64 allowed = qint64(m_startTimeoutMs) +
                               qint64(kPerFileTimeoutMs) * qint64(job.refs.size()) +
                               job.bytes / 1024 * kPerKiBTimeoutMs;
        bool finished = false;
        for (;;) {
            if (m_stop.stop_requested()) {
                killAll();
                throw Error::interrupted("fact extraction stopped");
            }
            finished = p.state() == QProcess::NotRunning ||
                       p.waitForFinished(
                           int(std::clamp<qint64>(allowed - clock.elapsed(), 1, kStopSliceMs)));
            if (finished || clock.elapsed() >= allowed)
                break;
        }
        if (!finished) {
            killAll();
            throw Error::harness(
                "the Python interpreter '" + m_python + "' did not finish extracting facts from " +
                std::to_string(job.refs.size()) + " file(s) within " +
                formatSeconds(allowed / 1000.0) +
                " (config timeouts.probe for its start, plus 0.25 s a file and 10 ms a KiB): "
                "it hangs, or starts that slowly; raise timeouts.probe if it "
                "is only slow");
        }
        const QByteArray stdoutBytes = p.readAllStandardOutput();
        const QByteArray stderrBytes = p.readAllStandardError();
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
            throw Error::harness("the fact extractor ('" + m_python + "') failed with exit code " +
                                 std::to_string(p.exitCode()) + ": " + tail(stderrBytes));
        }
        std::vector<std::vector<TestFunctionFacts>> tests;
        json answer;
        try {
            answer = parseFactsText(stdoutBytes.constData(),
                                    stdoutBytes.constData() + stdoutBytes.size(), 2, &tests);
        } catch (const json::exception &e) {
            throw Error::harness(std::string("the fact extractor answered malformed facts: ") +
                                 e.what());
        }
        if (answer.is_discarded() || tests.size() != job.refs.size() || !answer.is_object() ||
            !answer.contains("files") || !answer["files"].is_array() ||
            answer["files"].size() != job.refs.size()) {
            throw Error::harness("the interpreter '" + m_python +
                                 "' did not answer with extractor facts (is it Python 3.8+?): " +
                                 tail(stderrBytes.isEmpty() ? stdoutBytes : stderrBytes));
        }
        try {
            for (size_t i = 0; i < job.refs.size(); ++i) {
                const json &file = answer["files"][i];
                // Out of memory is the machine's limit, not the file's fault: a harness
                // error (exit 4), never the patch's PARSE_ERROR.
                if (file.contains("error") && file["error"].is_object() &&
                    file["error"].value("resource", false))
                    throw Error::harness("the fact extractor ('" + m_python +
                                         "') ran out of memory on " + job.refs[i]->path +
                                         " (MemoryError); nothing was judged");
                FileFacts facts = fileFactsFromJson(file);
                facts.tests = std::move(tests[i]);
                facts.blob = job.refs[i]->blob;
                facts.path = job.refs[i]->path;
                out.push_back(std::move(facts));
            }
        } catch (const json::exception &e) {
            throw Error::harness(std::string("the fact extractor answered malformed facts: ") +
                                 e.what());
        }
        m_stats.parsed += int(job.refs.size());
    }
    return out;
}

} // namespace pw::core
