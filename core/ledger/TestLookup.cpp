#include "ledger/TestLookup.h"

#include "ledger/TestIndex.h"
#include "util/Error.h"

#include <set>

namespace pw::core {

TestLookup::TestLookup(std::shared_ptr<const Repository> repo, Revision rev, std::string python,
                       std::string cacheDir)
    : m_repo(std::move(repo)), m_rev(std::move(rev)),
      m_extractor(std::move(python), std::move(cacheDir))
{
}

std::optional<FileEntry> TestLookup::entryOf(const std::string &file) const
{
    if (file.size() < 4 || !file.ends_with(".py"))
        return std::nullopt;
    try {
        return m_repo->entry(m_rev, file);
    } catch (const std::exception &) {
        return std::nullopt; // a path git cannot name holds no tests
    }
}

void TestLookup::preload(const std::vector<std::string> &files)
{
    std::vector<SourceRef> refs;
    std::set<std::string> asked;
    const Repository *repo = m_repo.get();
    const Revision *rev = &m_rev;
    for (const std::string &file : files) {
        if (m_files.count(file) || !asked.insert(file).second)
            continue;
        const std::optional<FileEntry> entry = entryOf(file);
        if (!entry) {
            m_files[file]; // holds no tests
            continue;
        }
        refs.push_back(
            {file, entry->blob, [repo, rev, file] { return repo->readFile(*rev, file); }});
    }
    if (refs.empty())
        return;
    std::vector<FileFacts> facts;
    try {
        facts = m_extractor.extract(refs);
    } catch (const std::exception &) {
        return; // each file is read on its own when asked for, and says why
    }
    for (const FileFacts &f : facts) {
        FileTests &tests = m_files[f.path];
        if (const std::optional<ParseError> &e = f.error) {
            tests.problem = f.path + ":" + std::to_string(e->line) + ":" +
                            std::to_string(e->column) + ": does not parse (" + e->message + ")";
            continue;
        }
        for (const std::string &name : f.defs)
            tests.ids.push_back(f.path + "::" + name);
        tests.imports = f.imports;
    }
}

const TestLookup::FileTests &TestLookup::load(const std::string &file)
{
    const auto found = m_files.find(file);
    if (found != m_files.end())
        return found->second;
    FileTests &tests = m_files[file];
    const std::optional<FileEntry> entry = entryOf(file);
    if (!entry)
        return tests;
    const Repository *repo = m_repo.get();
    const Revision *rev = &m_rev;
    try {
        const std::vector<FileFacts> facts = m_extractor.extract(
            {{file, entry->blob, [repo, rev, file] { return repo->readFile(*rev, file); }}});
        if (facts.empty()) {
            tests.problem = file + ": the fact extractor returned nothing";
        } else if (const std::optional<ParseError> &e = facts.front().error) {
            tests.problem = file + ":" + std::to_string(e->line) + ":" + std::to_string(e->column) +
                            ": does not parse (" + e->message + ")";
        } else {
            for (const std::string &name : facts.front().defs)
                tests.ids.push_back(file + "::" + name);
            tests.imports = facts.front().imports;
        }
    } catch (const std::exception &e) {
        // No interpreter, or it crashed: nothing is known either way.
        tests.problem = file + ": its tests cannot be read (" + e.what() + ")";
    }
    return tests;
}

bool TestLookup::contains(const std::string &testId)
{
    const std::string name = TestIndex::nameOf(testId);
    if (name.empty())
        return false;
    const std::string wanted = TestIndex::fileOf(testId) + "::" + name;
    const FileTests &tests = load(TestIndex::fileOf(testId));
    for (const std::string &id : tests.ids) {
        if (id == wanted)
            return true;
    }
    if (!tests.problem.empty())
        throw Error::harness(tests.problem);
    return false;
}

std::vector<std::string> TestLookup::testsIn(const std::string &file)
{
    return load(file).ids;
}

std::vector<std::string> TestLookup::guardsFor(const std::string &testFile)
{
    std::vector<std::string> guards;
    std::set<std::string> seen;
    const auto exists = [this](const std::string &path) {
        try {
            return m_repo->entry(m_rev, path).has_value();
        } catch (const std::exception &) {
            return false;
        }
    };
    const auto add = [&](const std::string &path) {
        if (exists(path) && seen.insert(path).second)
            guards.push_back(path);
    };
    // Not the test file itself: the patch that adds the skip edits it, and the freeze is
    // what sanctions that skip. The guards are what the test stands on.
    // conftest.py files from the test's directory up to the root shape what it sees.
    for (size_t slash = testFile.rfind('/'); slash != std::string::npos && slash > 0;
         slash = testFile.rfind('/', slash - 1))
        add(testFile.substr(0, slash) + "/conftest.py");
    add("conftest.py");
    // Facts name top-level modules only: a package is guarded as a whole directory
    // (`mypkg/`, see LedgerValidator::editedGuards), a module as its file.
    for (const std::string &module : load(testFile).imports) {
        for (const char *root : {"", "src/"}) {
            add(root + module + ".py");
            if (exists(root + module + "/__init__.py") && seen.insert(root + module + "/").second)
                guards.push_back(root + module + "/");
        }
    }
    return guards;
}

} // namespace pw::core
