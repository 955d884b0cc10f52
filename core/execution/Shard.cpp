#include "execution/Shard.h"

#include "util/Error.h"

#include <algorithm>

namespace pw::core {

Shard Shard::parse(const std::string &text, const std::string &option)
{
    auto refuse = [&](const std::string &why) -> Shard {
        throw Error::input(option + " " + text + ": " + why);
    };
    const size_t slash = text.find('/');
    if (slash == std::string::npos)
        return refuse("not i/n (this job's number i of n jobs, from 1: 2/3)");
    auto number = [&](const std::string &part, const char *what) {
        if (part.empty() || part.size() > 6 ||
            !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
            refuse(std::string(what) + " must be a whole number, not '" + part + "'");
        return std::stoi(part);
    };
    Shard s;
    s.index = number(text.substr(0, slash), "i");
    s.count = number(text.substr(slash + 1), "n");
    if (s.count < 1)
        return refuse("n must be at least 1");
    if (s.index < 1 || s.index > s.count)
        return refuse("i must be between 1 and n (jobs are numbered from 1)");
    return s;
}

std::string Shard::name() const
{
    return std::to_string(index) + "/" + std::to_string(count);
}

} // namespace pw::core
