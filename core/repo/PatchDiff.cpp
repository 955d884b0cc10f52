#include "repo/PatchDiff.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pw::core {

const char *changeStatusLetter(ChangeStatus status)
{
    switch (status) {
    case ChangeStatus::Added:
        return "A";
    case ChangeStatus::Deleted:
        return "D";
    case ChangeStatus::Modified:
        return "M";
    case ChangeStatus::Renamed:
        return "R";
    case ChangeStatus::Copied:
        return "C";
    case ChangeStatus::TypeChange:
        return "T";
    }
    return "?";
}

const char *changeStatusName(ChangeStatus status)
{
    switch (status) {
    case ChangeStatus::Added:
        return "added";
    case ChangeStatus::Deleted:
        return "deleted";
    case ChangeStatus::Modified:
        return "modified";
    case ChangeStatus::Renamed:
        return "renamed";
    case ChangeStatus::Copied:
        return "copied";
    case ChangeStatus::TypeChange:
        return "type changed";
    }
    return "unknown";
}

namespace {

using Ranges = std::vector<std::pair<int, int>>;

// Above this many differing tokens on a side the O(n·m) LCS is skipped and the whole
// middle (after common prefix/suffix trimming) is reported as changed.
constexpr size_t kMaxLcsTokens = 400;
constexpr double kMinIntralineSimilarity = 0.5;

struct Token
{
    int offset = 0;
    int length = 0;
};

// Bytes ≥ 0x80 count as word characters so a UTF-8 sequence is never split.
bool isWordByte(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c >= 0x80;
}

bool isSpaceByte(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::vector<Token> tokenize(const std::string &text)
{
    std::vector<Token> tokens;
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
        const auto c = static_cast<unsigned char>(text[i]);
        size_t j = i + 1;
        if (isWordByte(c)) {
            while (j < n && isWordByte(static_cast<unsigned char>(text[j])))
                ++j;
        } else if (isSpaceByte(c)) {
            while (j < n && isSpaceByte(static_cast<unsigned char>(text[j])))
                ++j;
        }
        tokens.push_back({static_cast<int>(i), static_cast<int>(j - i)});
        i = j;
    }
    return tokens;
}

struct Side
{
    const std::string &text;
    std::vector<Token> tokens;
    std::vector<bool> matched;

    std::string_view at(size_t i) const
    {
        return std::string_view(text).substr(tokens[i].offset, tokens[i].length);
    }
};

// Marks the longest common subsequence of a[lo, aHi) and b[lo, bHi) as matched.
void matchLcs(Side &a, Side &b, size_t lo, size_t aHi, size_t bHi)
{
    const size_t n = aHi - lo;
    const size_t m = bHi - lo;
    // table[i][j] = LCS length of a[lo+i, aHi) and b[lo+j, bHi).
    std::vector<uint16_t> table((n + 1) * (m + 1), 0);
    auto cell = [&](size_t i, size_t j) -> uint16_t & { return table[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;) {
        for (size_t j = m; j-- > 0;) {
            if (a.at(lo + i) == b.at(lo + j))
                cell(i, j) = static_cast<uint16_t>(cell(i + 1, j + 1) + 1);
            else
                cell(i, j) = std::max(cell(i + 1, j), cell(i, j + 1));
        }
    }
    size_t i = 0;
    size_t j = 0;
    while (i < n && j < m) {
        if (a.at(lo + i) == b.at(lo + j)) {
            a.matched[lo + i++] = true;
            b.matched[lo + j++] = true;
        } else if (cell(i + 1, j) >= cell(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
}

// Dice over the visible bytes: the matched bytes of both lines over all of their bytes,
// white space not counted.
double similarity(const Side &a, const Side &b)
{
    const auto count = [](const Side &side, bool matchedOnly) {
        size_t bytes = 0;
        for (size_t i = 0; i < side.tokens.size(); ++i) {
            const std::string_view t = side.at(i);
            if (t.find_first_not_of(" \t") == std::string_view::npos)
                continue;
            if (!matchedOnly || side.matched[i])
                bytes += t.size();
        }
        return bytes;
    };
    const size_t total = count(a, false) + count(b, false);
    return total == 0 ? 1.0 : double(count(a, true) + count(b, true)) / double(total);
}

// Adjacent unmatched tokens merge into one byte range.
Ranges unmatchedRanges(const Side &side)
{
    Ranges ranges;
    for (size_t i = 0; i < side.tokens.size(); ++i) {
        if (side.matched[i])
            continue;
        const Token &t = side.tokens[i];
        if (!ranges.empty() && ranges.back().first + ranges.back().second == t.offset)
            ranges.back().second += t.length;
        else
            ranges.emplace_back(t.offset, t.length);
    }
    return ranges;
}

} // namespace

std::pair<std::vector<std::pair<int, int>>, std::vector<std::pair<int, int>>>
intralineRanges(const std::string &oldText, const std::string &newText)
{
    if (oldText == newText)
        return {};
    Side a{oldText, tokenize(oldText), {}};
    Side b{newText, tokenize(newText), {}};
    a.matched.assign(a.tokens.size(), false);
    b.matched.assign(b.tokens.size(), false);

    const size_t na = a.tokens.size();
    const size_t nb = b.tokens.size();
    size_t prefix = 0;
    while (prefix < na && prefix < nb && a.at(prefix) == b.at(prefix)) {
        a.matched[prefix] = b.matched[prefix] = true;
        ++prefix;
    }
    size_t suffix = 0;
    while (suffix < na - prefix && suffix < nb - prefix &&
           a.at(na - 1 - suffix) == b.at(nb - 1 - suffix)) {
        a.matched[na - 1 - suffix] = b.matched[nb - 1 - suffix] = true;
        ++suffix;
    }
    const size_t aHi = na - suffix;
    const size_t bHi = nb - suffix;
    if (aHi - prefix <= kMaxLcsTokens && bHi - prefix <= kMaxLcsTokens)
        matchLcs(a, b, prefix, aHi, bHi);
    // Two lines that share little are a replacement, not an edit: marking the few tokens
    // they happen to share would be confetti. Word ranges only when at least half of the
    // two lines' visible text (white space aside) is common to both.
    if (similarity(a, b) < kMinIntralineSimilarity)
        return {};
    return {unmatchedRanges(a), unmatchedRanges(b)};
}

} // namespace pw::core
