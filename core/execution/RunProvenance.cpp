#include "execution/RunProvenance.h"

#include <nlohmann/json.hpp>

namespace pw::core {

std::string RunProvenance::interpreterLine() const
{
    std::string line = "interpreter " + interpreter;
    if (!executable.empty() && executable != interpreter)
        line += " → " + executable;
    line += " (Python " + (python.empty() ? std::string("?") : python) + ", pytest " +
            (pytest.empty() ? std::string("?") : pytest);
    if (!chosenBy.empty())
        line += "; " + chosenBy;
    return line + ")";
}

std::string RunProvenance::text(const std::string &indent) const
{
    if (empty())
        return {};
    std::string out = indent + interpreterLine() + "\n";
    for (const auto &[name, tree] : {std::pair<const char *, const Tree *>{"base", &base},
                                     std::pair<const char *, const Tree *>{"head", &head}}) {
        if (tree->imports.empty())
            continue;
        out += indent + name + " tree imports " + tree->imports + "\n";
        for (const std::string &line : tree->overridden)
            out += indent + "  overridden: " + line + "\n";
        for (const std::string &line : tree->notes)
            out += indent + "  note: " + line + "\n";
    }
    return out;
}

nlohmann::json RunProvenance::interpreterJson() const
{
    if (empty())
        return nullptr;
    return {{"path", interpreter},
            {"executable", executable},
            {"python", python},
            {"pytest", pytest},
            {"chosen_by", chosenBy}};
}

nlohmann::json RunProvenance::treesJson() const
{
    if (empty())
        return nullptr;
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[name, tree] : {std::pair<const char *, const Tree *>{"base", &base},
                                     std::pair<const char *, const Tree *>{"head", &head}})
        out[name] = {{"imports", tree->imports},
                     {"import_path", tree->importPath},
                     {"overridden", tree->overridden},
                     {"notes", tree->notes}};
    return out;
}

} // namespace pw::core
