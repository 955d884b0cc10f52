#pragma once

#include "python/FactExtractor.h"
#include "repo/Repository.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// Which tests a revision holds, statically: a test exists when the facts of its file list it
// (read through the fact cache). Only existing `.py` files are read, each once. The one
// answer to "does this test exist at head": the ledger checks and the census read the files
// a list of ids names up front (read(), then listed()); the ledger desk asks one file at a
// time while a reviewer types (load(), contains()). Not thread-safe: one owner.
class TestsAtRevision
{
public:
    struct FileTests
    {
        std::vector<std::string> ids; // "path::name", in file order
        std::vector<std::string> imports;
        std::string problem; // why the file's tests are unknown ("" when they are known)
    };

    // Reads through `repo` and `extractor`, which must outlive every read (listed() and
    // copies that only ask it need neither).
    TestsAtRevision(const Repository &repo, Revision rev, FactExtractor &extractor);
    // With a repository handle and an extractor of its own (the desk's lookup thread).
    TestsAtRevision(std::shared_ptr<const Repository> repo, Revision rev, FactExtractor extractor);

    // The files `testIds` name, read now with one extractor call; what the extractor throws
    // (no interpreter, stopped) is thrown — the caller reports the lookup as not done.
    static TestsAtRevision read(const Repository &repo, const Revision &rev,
                                const std::vector<std::string> &testIds, FactExtractor &extractor);

    // Among the tests read so far: `path::name` or `path::Class::name` (a parameter suffix
    // is ignored). A file not read, missing or that does not parse lists none. Never reads.
    bool listed(const std::string &testId) const;
    // The same, reading the file now when it was not: a missing file holds no tests; a file
    // that does not parse, or whose facts cannot be extracted (no interpreter, a crash),
    // throws Error::harness naming the file (and line) and why — "not there" and "cannot
    // tell" are different answers.
    bool contains(const std::string &testId);
    // The test ids of one file, in file order; empty when it has none or does not exist.
    std::vector<std::string> testsIn(const std::string &file);
    // What a freeze of a test in `testFile` should guard: the conftest.py files above it and
    // the repository code its imports name — a top-level module `m` as `m.py`, a package as
    // its directory `m/` (also under `src/`). Not the test file: the patch that adds the
    // skip edits it.
    std::vector<std::string> guardsFor(const std::string &testFile);

    // What is known of one file, read now when it was not (each file once).
    const FileTests &load(const std::string &file);
    // Reads the files not read yet with one extractor call (a batch of cache hits costs no
    // interpreter start); a failure is left for load() to say file by file.
    void preload(const std::vector<std::string> &files);
    // How the files are read (its limits, start timeout, stop token).
    FactExtractor &extractor() { return *m_extractor; }

    // "tests/t.py::C::test_a[1]" → "tests/t.py" and "C::test_a".
    static std::string fileOf(const std::string &testId);
    static std::string nameOf(const std::string &testId);

private:
    std::optional<FileEntry> entryOf(const std::string &file) const;
    void readFiles(const std::vector<std::string> &files, bool rethrow);
    static std::string parseProblem(const FileFacts &facts);

    std::shared_ptr<const Repository> m_ownedRepo; // null when borrowed
    const Repository *m_repo;
    Revision m_rev;
    std::shared_ptr<FactExtractor> m_ownedExtractor; // null when borrowed
    FactExtractor *m_extractor;
    std::map<std::string, FileTests> m_files;
};

} // namespace pw::core
