#include "python/TestsAtRevision.h"

#include "util/Error.h"

#include <set>

namespace pw::core {

TestsAtRevision::TestsAtRevision(const Repository &repo, Revision rev, FactExtractor &extractor)
    : m_repo(&repo), m_rev(std::move(rev)), m_extractor(&extractor)
{
}

TestsAtRevision::TestsAtRevision(std::shared_ptr<const Repository> repo, Revision rev,
                                 FactExtractor extractor)
    : m_ownedRepo(std::move(repo)), m_repo(m_ownedRepo.get()), m_rev(std::move(rev)),
      m_ownedExtractor(std::make_shared<FactExtractor>(std::move(extractor))),
      m_extractor(m_ownedExtractor.get())
{
}

TestsAtRevision TestsAtRevision::read(const Repository &repo, const Revision &rev,
                                      const std::vector<std::string> &testIds,
                                      FactExtractor &extractor)
{
    TestsAtRevision tests(repo, rev, extractor);
    std::vector<std::string> files;
    for (const std::string &id : testIds) {
        if (!nameOf(id).empty())
            files.push_back(fileOf(id));
    }
    tests.readFiles(files, /*rethrow=*/true);
    return tests;
}

std::string TestsAtRevision::fileOf(const std::string &testId)
{
    const size_t sep = testId.find("::");
    return sep == std::string::npos ? testId : testId.substr(0, sep);
}

std::string TestsAtRevision::nameOf(const std::string &testId)
{
    const size_t sep = testId.find("::");
    if (sep == std::string::npos)
        return {};
    std::string name = testId.substr(sep + 2);
    const size_t bracket = name.find('[');
    if (bracket != std::string::npos)
        name.resize(bracket);
    return name;
}

std::optional<FileEntry> TestsAtRevision::entryOf(const std::string &file) const
{
    if (file.size() < 4 || !file.ends_with(".py"))
        return std::nullopt;
    try {
        return m_repo->entry(m_rev, file);
    } catch (const std::exception &) {
        return std::nullopt; // a path git cannot name ("../x.py") holds no tests
    }
}

std::string TestsAtRevision::parseProblem(const FileFacts &facts)
{
    const ParseError &e = *facts.error;
    return facts.path + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) +
           ": does not parse (" + e.message + ")";
}

void TestsAtRevision::readFiles(const std::vector<std::string> &files, bool rethrow)
{
    std::vector<SourceRef> refs;
    std::set<std::string> asked;
    const Repository *repo = m_repo;
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
        facts = m_extractor->extract(refs);
    } catch (const std::exception &) {
        if (rethrow)
            throw;
        return; // each file is read on its own when asked for, and says why
    }
    for (const FileFacts &f : facts) {
        FileTests &tests = m_files[f.path];
        if (f.error) {
            tests.problem = parseProblem(f);
            continue;
        }
        for (const std::string &name : f.defs)
            tests.ids.push_back(f.path + "::" + name);
        tests.imports = f.imports;
    }
}

void TestsAtRevision::preload(const std::vector<std::string> &files)
{
    readFiles(files, /*rethrow=*/false);
}

const TestsAtRevision::FileTests &TestsAtRevision::load(const std::string &file)
{
    const auto found = m_files.find(file);
    if (found != m_files.end())
        return found->second;
    FileTests &tests = m_files[file];
    const std::optional<FileEntry> entry = entryOf(file);
    if (!entry)
        return tests;
    const Repository *repo = m_repo;
    const Revision *rev = &m_rev;
    try {
        const std::vector<FileFacts> facts = m_extractor->extract(
            {{file, entry->blob, [repo, rev, file] { return repo->readFile(*rev, file); }}});
        if (facts.empty()) {
            tests.problem = file + ": the fact extractor returned nothing";
        } else if (facts.front().error) {
            tests.problem = parseProblem(facts.front());
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

bool TestsAtRevision::listed(const std::string &testId) const
{
    const std::string name = nameOf(testId);
    if (name.empty())
        return false;
    const auto found = m_files.find(fileOf(testId));
    if (found == m_files.end())
        return false;
    const std::string wanted = found->first + "::" + name;
    for (const std::string &id : found->second.ids) {
        if (id == wanted)
            return true;
    }
    return false;
}

bool TestsAtRevision::contains(const std::string &testId)
{
    const std::string name = nameOf(testId);
    if (name.empty())
        return false;
    const FileTests &tests = load(fileOf(testId));
    if (listed(testId))
        return true;
    if (!tests.problem.empty())
        throw Error::harness(tests.problem);
    return false;
}

std::vector<std::string> TestsAtRevision::testsIn(const std::string &file)
{
    return load(file).ids;
}
std::vector<std::string> TestsAtRevision::guardsFor(const std::string &testFile)
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
