#pragma once

#include "ledger/Config.h"
#include "python/TestFacts.h"

#include <QStringList>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace pw::core {

// A file to extract facts for: its path, its blob id (the cache key) and a way to read
// its bytes, called only when the cache does not already hold the blob's facts.
struct SourceRef
{
    std::string path;
    std::string blob;
    std::function<std::string()> read;
};

struct ExtractorStats
{
    int cacheHits = 0;
    int parsed = 0;          // files handed to the interpreter
    int interpreterRuns = 0; // processes started
};

// Runs the bundled extractor (resources/python/pw_facts.py, compiled in) with the
// project's interpreter, files over stdin in batches, and caches the facts on disk by
// blob id. A blob seen once is never parsed again by the same
// interpreter and extractor version.
class FactExtractor
{
public:
    // `cacheDir` empty: no disk cache. `python` may be a name on PATH or a path.
    FactExtractor(std::string python, std::string cacheDir);

    // Facts for every ref, in order. The same blob id is parsed once per call.
    // Throws Error::input when the interpreter cannot be started, Error::harness when it
    // crashes, times out or answers with something that is not the protocol.
    std::vector<FileFacts> extract(const std::vector<SourceRef> &refs);

    // A batch may take `ms` (config `timeouts.probe`: the interpreter's start) plus a
    // quarter second per file and 10 ms per KiB: an interpreter that hangs is named after
    // about that long, not after minutes, while a large batch keeps the time it needs.
    void setStartTimeout(int ms) { m_startTimeoutMs = ms; }

    // Once `stop` is requested, a running batch's interpreters are killed and extract()
    // throws Error::interrupted (checked every 100 ms while a batch runs).
    void setStopToken(std::stop_token stop) { m_stop = std::move(stop); }

    const ExtractorStats &stats() const { return m_stats; }

    // Files larger than this are not handed to the interpreter: their facts are a
    // ParseError with `tooLarge` (config `test_file_max_bytes`).
    void setMaxFileBytes(long long bytes) { m_maxFileBytes = bytes; }
    long long maxFileBytes() const { return m_maxFileBytes; }
    const std::string &python() const { return m_python; }

    // The bundled script and the cache namespace (sha256 of script + interpreter).
    static std::string script();
    static std::string defaultCacheDir(); // <user cache dir>/patchwitness/facts

private:
    std::vector<FileFacts> runBatch(const std::vector<const SourceRef *> &refs);
    // The facts of a file over m_maxFileBytes, which is read once and never parsed.
    FileFacts tooLargeFacts(const SourceRef &ref, long long bytes) const;
    QStringList interpreterArguments() const;
    std::string cachePath(const std::string &blob) const;
    bool loadCached(const std::string &blob, FileFacts *out) const;
    void storeCached(const FileFacts &facts) const;

    std::string m_python;
    std::string m_cacheDir;  // already namespaced by script + interpreter
    std::string m_moduleDir; // staged extractor module; empty: run the script with -c
    ExtractorStats m_stats;
    long long m_maxFileBytes = kDefaultTestFileMaxBytes;
    int m_startTimeoutMs = 20 * 1000;
    std::stop_token m_stop;
};

} // namespace pw::core
