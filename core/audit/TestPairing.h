#pragma once

#include "python/TestFacts.h"

#include <vector>

namespace pw::core {

// The tests of one test file at base and at head, paired by name; a test that vanished
// under one name and appeared under another with the same body hash is a pure rename
// and is paired too (`renamed`).
struct TestPair
{
    const TestFunctionFacts *base = nullptr;
    const TestFunctionFacts *head = nullptr;
    bool renamed = false;
};

// `base` or `head` may be null (file only on one side). Pairs keep head order, then the
// base-only tests in base order.
std::vector<TestPair> pairTests(const FileFacts *base, const FileFacts *head);

} // namespace pw::core
