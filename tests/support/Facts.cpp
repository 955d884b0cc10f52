#include "Facts.h"

#include "TestSupport.h"
#include "python/FactExtractor.h"
#include "util/Files.h"

#include <stdexcept>

namespace pw::test {

core::FileFacts factsFor(const std::string &path, const std::string &source)
{
    core::FactExtractor extractor(testPython(), std::string());
    core::SourceRef ref{path, core::sha256Hex(source), [source] { return source; }};
    return extractor.extract({ref}).front();
}

core::TestFunctionFacts testFacts(const std::string &source, const std::string &name)
{
    const core::FileFacts facts = factsFor("tests/test_x.py", source);
    if (facts.error)
        throw std::runtime_error("fixture source does not parse: " + facts.error->message);
    const core::TestFunctionFacts *t = facts.test(name);
    if (!t)
        throw std::runtime_error("no test named " + name);
    return *t;
}

} // namespace pw::test
