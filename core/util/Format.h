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

// "a, b, c" (with `separator`); past `limit` items the rest are counted: "a, b and 3 more".
std::string join(const std::vector<std::string> &items, const std::string &separator = ", ",
                 size_t limit = std::numeric_limits<size_t>::max());

// "{0, 3, 7}": seeds in ascending order, braces even when empty ("{}").
std::string seedList(const std::set<uint32_t> &seeds);

// `seconds` cut (not rounded) to whole milliseconds, as records store durations: 1.23456 →
// 1.234.
double wholeMillis(double seconds);

} // namespace pw::core
