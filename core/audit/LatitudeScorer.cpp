#include "audit/LatitudeScorer.h"

#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace pw::core {
namespace {

constexpr int kToleranceWeight = 2;
constexpr int kSkipWeight = 4;

struct Alignment
{
    std::vector<std::pair<int, int>> pairs; // (base index or -1, head index)
    int dropped = 0;                        // base assertions with no head partner
    std::set<int> headOnlyLines;            // lines of head assertions compared against nothing
};

Alignment alignAssertions(const std::vector<AssertionFact> &base,
                          const std::vector<AssertionFact> &head)
{
    Alignment a;
    std::vector<bool> baseUsed(base.size(), false);
    std::vector<int> partner(head.size(), -1);
    // 1. identical normalised text
    for (size_t h = 0; h < head.size(); ++h) {
        for (size_t b = 0; b < base.size(); ++b) {
            if (!baseUsed[b] && base[b].text == head[h].text) {
                baseUsed[b] = true;
                partner[h] = int(b);
                break;
            }
        }
    }
    // 2. the rest by order
    size_t nextBase = 0;
    for (size_t h = 0; h < head.size(); ++h) {
        if (partner[h] >= 0)
            continue;
        while (nextBase < base.size() && baseUsed[nextBase])
            ++nextBase;
        if (nextBase < base.size()) {
            baseUsed[nextBase] = true;
            partner[h] = int(nextBase);
        }
    }
    for (size_t h = 0; h < head.size(); ++h) {
        a.pairs.emplace_back(partner[h], int(h));
        if (partner[h] < 0)
            a.headOnlyLines.insert(head[h].line);
    }
    a.dropped = int(std::count(baseUsed.begin(), baseUsed.end(), false));
    return a;
}

double widthOf(const std::optional<double> &value)
{
    return value ? *value : std::numeric_limits<double>::infinity();
}

bool isBaseClassOf(const RaisesFact &base, const RaisesFact &head)
{
    // Head catches a builtin base class of something base caught (KeyError → LookupError).
    for (const std::string &headName : head.names) {
        for (const std::vector<std::string> &mro : base.mro) {
            if (mro.size() > 1 && std::find(mro.begin() + 1, mro.end(), headName) != mro.end())
                return true;
        }
    }
    return false;
}

std::string joinNames(const std::vector<std::string> &names)
{
    const std::string out = join(names, ",");
    return names.size() > 1 ? "(" + out + ")" : out;
}

} // namespace

std::string LatitudeScorer::formatTolerance(const std::optional<double> &value)
{
    if (!value || std::isinf(*value))
        return "computed";
    std::ostringstream out;
    out << *value;
    return out.str();
}

LatitudeScorer::Score LatitudeScorer::score(const TestFunctionFacts &base,
                                            const TestFunctionFacts &head)
{
    Score s;
    auto add = [&s](int points, std::string signal) {
        s.score += points;
        s.signals.push_back(std::move(signal));
    };

    // Comparison ranks per aligned assertion. An assertion only at head is new checking:
    // it makes no oracle cheaper, however loose it is, so it scores nothing.
    const Alignment al = alignAssertions(base.assertions, head.assertions);
    for (const auto &[b, h] : al.pairs) {
        if (b < 0)
            continue;
        const std::vector<int> &newRanks = head.assertions[size_t(h)].ranks;
        const std::vector<int> &oldRanks = base.assertions[size_t(b)].ranks;
        for (size_t k = 0; k < newRanks.size(); ++k) {
            const int oldRank = k < oldRanks.size() ? oldRanks[k] : 0;
            if (newRanks[k] > oldRank) {
                add(newRanks[k] - oldRank,
                    "compare rank " + std::to_string(oldRank) + "->" + std::to_string(newRanks[k]) +
                        " (line " + std::to_string(head.assertions[size_t(h)].line) + ")");
            }
        }
    }
    if (al.dropped > 0)
        add(al.dropped, std::to_string(al.dropped) + " assertion(s) removed");

    // Expected exceptions, aligned by order.
    const size_t raisesPaired = std::min(base.raises.size(), head.raises.size());
    for (size_t i = 0; i < raisesPaired; ++i) {
        const RaisesFact &o = base.raises[i];
        const RaisesFact &n = head.raises[i];
        const int byRank = std::max(0, n.rank - o.rank);
        const bool toBaseClass = isBaseClassOf(o, n);
        const std::string names = joinNames(o.names) + "->" + joinNames(n.names);
        if (byRank > 0) {
            add(byRank, "exception rank " + std::to_string(o.rank) + "->" + std::to_string(n.rank) +
                            " (" + names + (toBaseClass ? ", base class)" : ")"));
        } else if (toBaseClass) {
            add(1, "exception " + names + " (base class)");
        }
    }
    if (base.raises.size() > head.raises.size()) {
        const int removed = int(base.raises.size() - head.raises.size());
        add(removed, std::to_string(removed) + " raises check(s) removed");
    }

    // Tolerances, aligned by order. A tolerance on an assertion that only exists at head
    // is a new check, not a widened one.
    std::vector<const ToleranceFact *> headTol;
    for (const ToleranceFact &t : head.tolerances) {
        if (!al.headOnlyLines.count(t.line))
            headTol.push_back(&t);
    }
    for (size_t i = 0; i < headTol.size(); ++i) {
        const ToleranceFact &n = *headTol[i];
        if (i < base.tolerances.size()) {
            const ToleranceFact &o = base.tolerances[i];
            if (widthOf(n.value) > widthOf(o.value)) {
                add(kToleranceWeight,
                    "tolerance " + formatTolerance(o.value) + "->" + formatTolerance(n.value));
            }
        } else {
            add(kToleranceWeight, "tolerance exact->" + formatTolerance(n.value));
        }
    }

    if (head.skip.size() > base.skip.size())
        add(kSkipWeight, "skip/xfail added");
    return s;
}

std::string LatitudeScorer::policy(int total, int threshold)
{
    if (total <= 0)
        return "oracle unchanged or stricter";
    if (total < threshold)
        return "small widening: reviewer acknowledgement required";
    return "latitude " + std::to_string(total) + " >= " + std::to_string(threshold) +
           ": block, ask for a replacement assertion";
}

Severity LatitudeScorer::severity(int total, int threshold)
{
    if (total <= 0)
        return Severity::Info;
    return total < threshold ? Severity::Review : Severity::Block;
}

} // namespace pw::core
