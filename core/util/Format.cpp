#include "util/Format.h"

namespace pw::core {

std::string join(const std::vector<std::string> &items, const std::string &separator, size_t limit)
{
    std::string text;
    for (size_t i = 0; i < items.size() && i < limit; ++i)
        text += (i ? separator : std::string()) + items[i];
    if (items.size() > limit)
        text += " and " + std::to_string(items.size() - limit) + " more";
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

} // namespace pw::core
