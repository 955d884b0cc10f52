#pragma once

#include "python/FactExtractor.h"
#include "repo/Repository.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// The tests of one revision, looked up file by file as they are asked for (facts through
// the fact cache) — what a form needs while a reviewer types a witness or a substitute one
// key at a time. Only existing `.py` files are read, each once. Not thread-safe: one owner.
class TestLookup
{
public:
    TestLookup(std::shared_ptr<const Repository> repo, Revision rev, std::string python,
               std::string cacheDir);

    // `path::name` or `path::Class::name` (a parameter suffix is ignored). A missing file
    // holds no tests; a file that does not parse, or whose facts cannot be extracted (no
    // interpreter, a crash), throws Error::harness naming the file (and line) and why —
    // "not there" and "cannot tell" are different answers.
    bool contains(const std::string &testId);
    // The test ids of one file, in file order; empty when it has none or does not exist.
    std::vector<std::string> testsIn(const std::string &file);
    // What a freeze of a test in `testFile` should guard: the conftest.py files above it and
    // the repository code its imports name — a top-level module `m` as `m.py`, a package as
    // its directory `m/` (also under `src/`). Not the test file: the patch that adds the
    // skip edits it.
    std::vector<std::string> guardsFor(const std::string &testFile);

    struct FileTests
    {
        std::vector<std::string> ids;
        std::vector<std::string> imports;
        std::string problem; // why the file's tests are unknown ("" when they are known)
    };
    // What is known of one file, read now when it was not (each file once).
    const FileTests &load(const std::string &file);
    // Reads the files not read yet with one extractor call (a batch of cache hits costs no
    // interpreter start): what a caller that knows which files it will ask for does first.
    void preload(const std::vector<std::string> &files);
    // How the files are read (its limits, start timeout, stop token).
    FactExtractor &extractor() { return m_extractor; }

private:
    std::optional<FileEntry> entryOf(const std::string &file) const;

    std::shared_ptr<const Repository> m_repo;
    Revision m_rev;
    FactExtractor m_extractor;
    std::map<std::string, FileTests> m_files;
};

} // namespace pw::core
