#include "util/Format.h"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace pw::core {

std::string join(const std::vector<std::string> &items, const std::string &separator, size_t limit,
                 JoinRest rest)
{
    std::string text;
    for (size_t i = 0; i < items.size() && i < limit; ++i)
        text += (i ? separator : std::string()) + items[i];
    if (items.size() > limit) {
        const std::string more = std::to_string(items.size() - limit) + " more";
        text += rest == JoinRest::AndMore ? " and " + more : separator + "… (" + more + ")";
    }
    return text;
}

std::string seedList(const std::set<uint32_t> &seeds)
{
    std::string out = "{";
    for (const uint32_t s : seeds)
        out += (out.size() > 1 ? ", " : "") + std::to_string(s);
    return out + "}";
}

double wholeMillis(double seconds)
{
    return double(int64_t(seconds * 1000)) / 1000.0;
}

std::string formatSeconds(double seconds)
{
    if (std::isnan(seconds))
        return "? s";
    if (seconds <= 0)
        return "0 ms";
    if (seconds >= 1e15) // no clock measures this: not a duration (also infinity)
        return "? s";
    const double ms = std::round(seconds * 1000);
    if (ms < 1)
        return "< 1 ms";
    if (ms < 1000)
        return std::to_string(int64_t(ms)) + " ms";
    if (std::round(seconds * 10) < 100) { // 1.0 … 9.9: one decimal
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.1f s", std::round(seconds * 10) / 10);
        return buf;
    }
    const int64_t whole = int64_t(std::round(seconds));
    if (whole < 60)
        return std::to_string(whole) + " s";
    if (whole < 3600) {
        const int64_t s = whole % 60;
        return std::to_string(whole / 60) + " min" + (s ? " " + std::to_string(s) + " s" : "");
    }
    const int64_t minutes = int64_t(std::round(double(whole) / 60));
    const int64_t m = minutes % 60;
    return std::to_string(minutes / 60) + " h" + (m ? " " + std::to_string(m) + " min" : "");
}

std::string formatBytes(long long bytes)
{
    if (bytes < 1024)
        return std::to_string(bytes < 0 ? 0 : bytes) + " bytes";
    static const char *const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes) / 1024;
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(kUnits)) {
        value /= 1024;
        ++unit;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", value, kUnits[unit]);
    return buf;
}

} // namespace pw::core
