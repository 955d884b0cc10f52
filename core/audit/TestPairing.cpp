#include "audit/TestPairing.h"

#include <map>
#include <set>

namespace pw::core {

std::vector<TestPair> pairTests(const FileFacts *base, const FileFacts *head)
{
    std::vector<TestPair> pairs;
    std::map<std::string, const TestFunctionFacts *> baseByName;
    if (base) {
        for (const TestFunctionFacts &t : base->tests)
            baseByName.emplace(t.name, &t);
    }
    std::set<std::string> pairedBase;
    std::vector<size_t> headOnly;
    if (head) {
        for (const TestFunctionFacts &t : head->tests) {
            auto it = baseByName.find(t.name);
            if (it != baseByName.end() && !pairedBase.count(t.name)) {
                pairs.push_back({it->second, &t, false});
                pairedBase.insert(t.name);
            } else {
                headOnly.push_back(pairs.size());
                pairs.push_back({nullptr, &t, false});
            }
        }
    }
    std::vector<const TestFunctionFacts *> baseOnly;
    if (base) {
        for (const TestFunctionFacts &t : base->tests) {
            if (!pairedBase.count(t.name))
                baseOnly.push_back(&t);
        }
    }
    // Pure renames: same body hash, one side each.
    std::vector<const TestFunctionFacts *> unmatched;
    for (const TestFunctionFacts *b : baseOnly) {
        bool matched = false;
        for (size_t index : headOnly) {
            TestPair &p = pairs[index];
            if (!p.base && !b->bodyHash.empty() && p.head->bodyHash == b->bodyHash) {
                p.base = b;
                p.renamed = true;
                matched = true;
                break;
            }
        }
        if (!matched)
            unmatched.push_back(b);
    }
    for (const TestFunctionFacts *b : unmatched)
        pairs.push_back({b, nullptr, false});
    return pairs;
}

} // namespace pw::core
