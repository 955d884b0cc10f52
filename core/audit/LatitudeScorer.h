#pragma once

#include "audit/GateReport.h"
#include "python/TestFacts.h"

#include <string>

namespace pw::core {

// Oracle latitude: how much cheaper a test's oracle got from base to head.
// Positive = looser. Assertions are aligned by normalised text first, then by order, so
// an inserted assertion does not shift the rest.
class LatitudeScorer
{
public:
    struct Score
    {
        int score = 0;
        std::vector<std::string> signals;
    };

    static Score score(const TestFunctionFacts &base, const TestFunctionFacts &head);

    // "oracle unchanged or stricter" / "small widening: ..." / "... ask for a replacement
    // assertion" for a patch total against the threshold.
    static std::string policy(int total, int threshold);
    static Severity severity(int total, int threshold);

    static std::string formatTolerance(const std::optional<double> &value);
};

} // namespace pw::core
