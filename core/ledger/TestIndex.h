#pragma once

#include <set>
#include <string>
#include <vector>

namespace pw::core {

class Repository;
class FactExtractor;
struct Revision;

// Which of a few test ids exist at a revision, statically: a test exists when the facts of
// its file list it. Only the files the ids name are read (through the fact cache),
// so looking up a ledger's substitutes and witnesses costs a handful of files.
class TestIndex
{
public:
    TestIndex() = default;
    static TestIndex build(const Repository &repo, const Revision &rev,
                           const std::vector<std::string> &testIds, FactExtractor &extractor);

    // `path::name` or `path::Class::name`; a parameter suffix ("[1-2]") is ignored.
    bool contains(const std::string &testId) const;

    // "tests/t.py::C::test_a[1]" → "tests/t.py" and "C::test_a".
    static std::string fileOf(const std::string &testId);
    static std::string nameOf(const std::string &testId);

private:
    std::set<std::string> m_tests; // "path::name"
};

} // namespace pw::core
