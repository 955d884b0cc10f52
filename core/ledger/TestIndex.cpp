#include "ledger/TestIndex.h"

#include "python/FactExtractor.h"
#include "repo/Repository.h"

namespace pw::core {

std::string TestIndex::fileOf(const std::string &testId)
{
    const size_t sep = testId.find("::");
    return sep == std::string::npos ? testId : testId.substr(0, sep);
}

std::string TestIndex::nameOf(const std::string &testId)
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

TestIndex TestIndex::build(const Repository &repo, const Revision &rev,
                           const std::vector<std::string> &testIds, FactExtractor &extractor)
{
    std::set<std::string> files;
    for (const std::string &id : testIds) {
        const std::string file = fileOf(id);
        if (!nameOf(id).empty() && file.size() > 3 && file.ends_with(".py"))
            files.insert(file);
    }
    std::vector<SourceRef> refs;
    for (const std::string &file : files) {
        std::optional<FileEntry> entry;
        try {
            entry = repo.entry(rev, file);
        } catch (const std::exception &) {
            continue; // a path git cannot name ("../x.py") holds no test
        }
        if (!entry)
            continue;
        const Repository *r = &repo;
        const Revision *v = &rev;
        refs.push_back({file, entry->blob, [r, v, file] { return r->readFile(*v, file); }});
    }
    TestIndex index;
    for (const FileFacts &facts : extractor.extract(refs)) {
        for (const std::string &name : facts.defs)
            index.m_tests.insert(facts.path + "::" + name);
    }
    return index;
}

bool TestIndex::contains(const std::string &testId) const
{
    const std::string name = nameOf(testId);
    return !name.empty() && m_tests.count(fileOf(testId) + "::" + name) > 0;
}

} // namespace pw::core
