#pragma once

// Small formatting helpers shared by the reports, the JSON records and the CLI, so the
// same value reads the same everywhere.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace pw::core {

// How join counts the items past its limit: "a, b and 3 more" (the reports' sentences) or
// "a, b, … (3 more)" (the manifest's lists of names).
enum class JoinRest
{
    AndMore,
    EllipsisMore
};

// "a, b, c" (with `separator`); past `limit` items the rest are counted as `rest` says.
std::string join(const std::vector<std::string> &items, const std::string &separator = ", ",
                 size_t limit = std::numeric_limits<size_t>::max(),
                 JoinRest rest = JoinRest::AndMore);

// The first hex digits of an object id, as reports and panels show a commit or a digest: 12
// in reports, 10 in the attribute and shard lines and the ledger history ("" stays "").
inline std::string shortId(const std::string &hex, size_t digits = 12)
{
    return hex.substr(0, digits);
}

// "{0, 3, 7}": seeds in ascending order, braces even when empty ("{}").
std::string seedList(const std::set<uint32_t> &seeds);

// `seconds` cut (not rounded) to whole milliseconds, as records store durations: 1.23456 →
// 1.234.
double wholeMillis(double seconds);

// A duration for people, the one way every line, report and panel shows one: "0 ms",
// "< 1 ms", "4 ms", "500 ms" under a second; "1.0 s" … "9.9 s" with one decimal; "10 s" …
// "59 s"; "2 min 23 s" (whole minutes: "5 min"); "1 h", "1 h 5 min". Rounded to the
// nearest unit shown, so 9.96 s is "10 s" and 59.6 s is "1 min". A negative duration is
// "0 ms"; one that is not a number (or beyond any clock) "? s". Records and JSON keep
// seconds as numbers (wholeMillis).
std::string formatSeconds(double seconds);

// A size for people: "512 bytes", "1.5 KiB", "4.0 MiB", "1.2 GiB" (one decimal from KiB on).
std::string formatBytes(long long bytes);

} // namespace pw::core
