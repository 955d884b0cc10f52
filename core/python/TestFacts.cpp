#include "python/TestFacts.h"

namespace pw::core {

bool SkipFact::xfail() const
{
    return mark.find("xfail") != std::string::npos || mark == "unittest.expectedFailure";
}

std::vector<std::vector<int>> TestFunctionFacts::compare() const
{
    std::vector<std::vector<int>> out;
    out.reserve(assertions.size());
    for (const AssertionFact &a : assertions)
        out.push_back(a.ranks);
    return out;
}

const TestFunctionFacts *FileFacts::test(const std::string &name) const
{
    for (const TestFunctionFacts &t : tests) {
        if (t.name == name)
            return &t;
    }
    return nullptr;
}

} // namespace pw::core
