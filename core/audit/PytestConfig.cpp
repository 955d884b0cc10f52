#include "audit/PytestConfig.h"

#include <array>
#include <sstream>
#include <toml++/toml.h>

namespace pw::core {
namespace {

std::string baseName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string trimmed(const std::string &s)
{
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos)
        return {};
    const size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

// The section pytest reads in an ini-format file.
std::string iniSection(const std::string &name)
{
    return name == "setup.cfg" ? "tool:pytest" : "pytest";
}

// pytest's ini reader (iniconfig): `#`/`;` comment lines, `[section]`, `key = value` or
// `key: value` at column 0, indented lines continuing the last value.
void parseIni(const std::string &text, const std::string &section, PytestConfig &config)
{
    std::istringstream in(text);
    std::string line, current;
    int number = 0;
    PytestOption *open = nullptr;
    std::string value; // of `open`, continuation lines joined with '\n'
    auto close = [&] {
        if (open)
            open->args = splitArgs(value);
        open = nullptr;
    };
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::string t = trimmed(line);
        if (t.empty() || t[0] == '#' || t[0] == ';')
            continue;
        if (line[0] == '[') {
            close();
            std::string header = line;
            for (const char c : {'#', ';'})
                header = header.substr(0, header.find(c));
            header = trimmed(header);
            current = header.size() > 1 && header.back() == ']'
                          ? header.substr(1, header.size() - 2)
                          : std::string();
            continue;
        }
        if (line[0] == ' ' || line[0] == '\t') {
            if (open)
                value += "\n" + t;
            continue;
        }
        close();
        if (current != section)
            continue;
        size_t eq = line.find('=');
        size_t colon = line.find(": ");
        size_t split = eq;
        size_t width = 1;
        if (eq == std::string::npos || line.substr(0, eq).find(':') != std::string::npos) {
            split = colon;
            width = 2;
        }
        if (split == std::string::npos)
            continue; // pytest refuses the file; the run says so
        config.options.push_back({"[" + section + "]", trimmed(line.substr(0, split)), number, {}});
        open = &config.options.back();
        value = trimmed(line.substr(split + width));
    }
    close();
}

std::vector<std::string> tomlArgs(const toml::node &node)
{
    if (const auto *s = node.as_string())
        return splitArgs(s->get());
    std::vector<std::string> out;
    if (const auto *array = node.as_array()) {
        for (const toml::node &item : *array) {
            if (const auto *s = item.as_string()) {
                out.push_back(s->get());
            } else {
                std::ostringstream text;
                item.visit([&text](const auto &v) { text << v; });
                out.push_back(text.str());
            }
        }
        return out;
    }
    std::ostringstream text;
    node.visit([&text](const auto &v) { text << v; });
    out.push_back(text.str());
    return out;
}

void tomlTable(const toml::table &table, const std::string &section, PytestConfig &config)
{
    for (const auto &[key, value] : table) {
        if (section == "[tool.pytest]" && key.str() == "ini_options")
            continue; // its own section
        const int line =
            key.source().begin.line ? int(key.source().begin.line) : int(value.source().begin.line);
        config.options.push_back({section, std::string(key.str()), line, tomlArgs(value)});
    }
}

} // namespace

std::vector<std::string> splitArgs(const std::string &text)
{
    std::vector<std::string> out;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                word += c;
        } else if (quote == '"') {
            if (c == '"')
                quote = 0;
            else if (c == '\\' && i + 1 < text.size() &&
                     std::string("\\\"$`\n").find(text[i + 1]) != std::string::npos)
                word += text[++i];
            else
                word += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            word += text[++i];
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord)
                out.push_back(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        out.push_back(word);
    return out;
}

std::vector<std::string> collectionArgs(const std::vector<std::string> &args)
{
    static const std::array<const char *, 6> kFlags = {
        "-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-p"};
    std::vector<std::string> out;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        for (const char *flag : kFlags) {
            const std::string f = flag;
            if (a == f) {
                out.push_back(f + " " + (i + 1 < args.size() ? args[++i] : std::string()));
                break;
            }
            if (f.size() > 2 && a.starts_with(f + "=")) { // --deselect=x
                out.push_back(f + " " + a.substr(f.size() + 1));
                break;
            }
            if (f.size() == 2 && a.size() > 2 && a.starts_with(f)) { // -knot, -pno:x
                out.push_back(f + " " + a.substr(2));
                break;
            }
        }
    }
    return out;
}

bool PytestConfig::isConfigFile(const std::string &path)
{
    const std::string name = baseName(path);
    return name == "pytest.ini" || name == ".pytest.ini" || name == "pyproject.toml" ||
           name == "tox.ini" || name == "setup.cfg";
}

PytestConfig PytestConfig::parse(const std::string &path, const std::string &text)
{
    PytestConfig config;
    const std::string name = baseName(path);
    if (text.empty() || !isConfigFile(path))
        return config;
    if (name != "pyproject.toml") {
        parseIni(text, iniSection(name), config);
        return config;
    }
    try {
        const toml::table root = toml::parse(std::string_view(text), std::string_view(path));
        if (const toml::table *pytest = root["tool"]["pytest"].as_table()) {
            if (const toml::table *ini = (*pytest)["ini_options"].as_table())
                tomlTable(*ini, "[tool.pytest.ini_options]", config);
            tomlTable(*pytest, "[tool.pytest]", config);
        }
    } catch (const toml::parse_error &e) {
        std::ostringstream why;
        why << e.description() << " (line " << e.source().begin.line << ")";
        config.error = why.str();
    }
    return config;
}

const PytestOption *PytestConfig::find(const std::string &section, const std::string &key) const
{
    for (const PytestOption &o : options) {
        if (o.section == section && o.key == key)
            return &o;
    }
    return nullptr;
}

std::vector<std::string> PytestConfig::plugins() const
{
    std::vector<std::string> out;
    for (const PytestOption &o : options) {
        if (o.key != "addopts")
            continue;
        for (const std::string &arg : collectionArgs(o.args)) {
            if (arg.starts_with("-p ") && !arg.starts_with("-p no:") && arg.size() > 3)
                out.push_back(arg.substr(3));
        }
    }
    return out;
}

} // namespace pw::core
