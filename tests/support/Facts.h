#pragma once

#include "python/TestFacts.h"

#include <string>

namespace pw::test {

// Facts of one Python source through the real bundled extractor and the test
// interpreter (no cache). Fails the calling test (throws) on a harness error.
core::FileFacts factsFor(const std::string &path, const std::string &source);

// The single test function of `source` named `name` (QVERIFY-friendly: throws if absent).
core::TestFunctionFacts testFacts(const std::string &source, const std::string &name);

} // namespace pw::test
