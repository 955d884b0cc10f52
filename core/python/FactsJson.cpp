#include "python/FactsJson.h"

#include <stdexcept>
#include <string>

namespace pw::core {
namespace {

using nlohmann::json;

template <typename T> T valueOr(const json &j, const char *key, T fallback)
{
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    return it->get<T>();
}

std::vector<std::string> strings(const json &j, const char *key)
{
    return valueOr<std::vector<std::string>>(j, key, {});
}

AssertionFact assertionFromJson(const json &j)
{
    AssertionFact a;
    a.line = valueOr(j, "line", 0);
    a.text = valueOr<std::string>(j, "text", {});
    a.ranks = valueOr<std::vector<int>>(j, "ranks", {});
    a.truthy = valueOr(j, "truthy", false);
    a.comparison = valueOr(j, "comparison", false);
    return a;
}

ToleranceFact toleranceFromJson(const json &j)
{
    ToleranceFact t;
    t.line = valueOr(j, "line", 0);
    t.kind = valueOr<std::string>(j, "kind", "abs");
    auto it = j.find("value");
    if (it != j.end() && it->is_number())
        t.value = it->get<double>();
    t.text = valueOr<std::string>(j, "text", {});
    return t;
}

RaisesFact raisesFromJson(const json &j)
{
    RaisesFact r;
    r.line = valueOr(j, "line", 0);
    r.rank = valueOr(j, "rank", 1);
    r.names = strings(j, "names");
    r.mro = valueOr<std::vector<std::vector<std::string>>>(j, "mro", {});
    r.text = valueOr<std::string>(j, "text", {});
    return r;
}

SkipFact skipFromJson(const json &j)
{
    SkipFact s;
    s.mark = valueOr<std::string>(j, "mark", {});
    s.scope = valueOr<std::string>(j, "scope", {});
    s.line = valueOr(j, "line", 0);
    auto when = j.find("when");
    if (when != j.end() && when->is_string())
        s.when = when->get<std::string>();
    return s;
}

std::vector<SkipFact> skipsFromJson(const json &j, const char *key)
{
    std::vector<SkipFact> out;
    for (const json &x : valueOr<json>(j, key, json::array()))
        out.push_back(skipFromJson(x));
    return out;
}

json skipsToJson(const std::vector<SkipFact> &skips)
{
    json out = json::array();
    for (const SkipFact &s : skips) {
        out.push_back({{"mark", s.mark},
                       {"scope", s.scope},
                       {"line", s.line},
                       {"when", s.when ? json(*s.when) : json(nullptr)}});
    }
    return out;
}

TestFunctionFacts testFromJson(const json &j)
{
    TestFunctionFacts t;
    t.name = j.at("name").get<std::string>();
    t.line = valueOr(j, "line", 0);
    t.endLine = valueOr(j, "end_line", t.line);
    t.isAsync = valueOr(j, "async", false);
    t.bodyHash = valueOr<std::string>(j, "body_hash", {});
    t.statements = strings(j, "stmts");
    t.asserts = valueOr(j, "asserts", 0);
    for (const json &a : valueOr<json>(j, "assertions", json::array()))
        t.assertions.push_back(assertionFromJson(a));
    t.truthyOnly = valueOr(j, "truthy_only", 0);
    t.comparisons = valueOr(j, "comparisons", 0);
    for (const json &x : valueOr<json>(j, "tolerance", json::array()))
        t.tolerances.push_back(toleranceFromJson(x));
    for (const json &x : valueOr<json>(j, "raises", json::array()))
        t.raises.push_back(raisesFromJson(x));
    t.skip = strings(j, "skip");
    t.skipDetail = skipsFromJson(j, "skip_detail");
    t.markers = strings(j, "markers");
    auto pc = j.find("parametrize_cases");
    if (pc != j.end() && pc->is_number_integer())
        t.parametrizeCases = pc->get<int>();
    t.fixtures = strings(j, "fixtures");
    return t;
}

json testToJson(const TestFunctionFacts &t)
{
    json assertions = json::array();
    for (const AssertionFact &a : t.assertions) {
        assertions.push_back({{"line", a.line},
                              {"text", a.text},
                              {"ranks", a.ranks},
                              {"truthy", a.truthy},
                              {"comparison", a.comparison}});
    }
    json tolerances = json::array();
    for (const ToleranceFact &x : t.tolerances) {
        tolerances.push_back({{"line", x.line},
                              {"kind", x.kind},
                              {"value", x.value ? json(*x.value) : json(nullptr)},
                              {"text", x.text}});
    }
    json raises = json::array();
    for (const RaisesFact &r : t.raises) {
        raises.push_back({{"line", r.line},
                          {"rank", r.rank},
                          {"names", r.names},
                          {"mro", r.mro},
                          {"text", r.text}});
    }
    return {{"name", t.name},
            {"line", t.line},
            {"end_line", t.endLine},
            {"async", t.isAsync},
            {"body_hash", t.bodyHash},
            {"stmts", t.statements},
            {"asserts", t.asserts},
            {"assertions", assertions},
            {"compare", t.compare()},
            {"truthy_only", t.truthyOnly},
            {"comparisons", t.comparisons},
            {"tolerance", tolerances},
            {"raises", raises},
            {"skip", t.skip},
            {"skip_detail", skipsToJson(t.skipDetail)},
            {"markers", t.markers},
            {"parametrize_cases", t.parametrizeCases ? json(*t.parametrizeCases) : json(nullptr)},
            {"fixtures", t.fixtures}};
}

} // namespace

FileFacts fileFactsFromJson(const json &j)
{
    FileFacts f;
    f.path = valueOr<std::string>(j, "path", {});
    f.blob = valueOr<std::string>(j, "blob", {});
    auto err = j.find("error");
    if (err != j.end() && err->is_object()) {
        ParseError e;
        e.line = valueOr(*err, "line", 0);
        e.column = valueOr(*err, "column", 0);
        e.message = valueOr<std::string>(*err, "message", "syntax error");
        f.error = e;
    }
    for (const json &t : valueOr<json>(j, "tests", json::array()))
        f.tests.push_back(testFromJson(t));
    f.defs = strings(j, "defs");
    f.markers = strings(j, "markers");
    f.moduleSkip = strings(j, "module_skip");
    f.moduleSkipDetail = skipsFromJson(j, "module_skip_detail");
    f.imports = strings(j, "imports");
    f.asserts = valueOr(j, "asserts", 0);
    return f;
}

namespace {

// A file's facts with `tests` as the value of its "tests" key.
json fileJson(const FileFacts &f, json tests)
{
    json error = nullptr;
    if (f.error)
        error = {
            {"line", f.error->line}, {"column", f.error->column}, {"message", f.error->message}};
    return {{"path", f.path},
            {"blob", f.blob},
            {"error", error},
            {"tests", std::move(tests)},
            {"defs", f.defs},
            {"markers", f.markers},
            {"module_skip", f.moduleSkip},
            {"module_skip_detail", skipsToJson(f.moduleSkipDetail)},
            {"imports", f.imports},
            {"asserts", f.asserts}};
}

} // namespace

json fileFactsToJson(const FileFacts &f)
{
    json tests = json::array();
    for (const TestFunctionFacts &t : f.tests)
        tests.push_back(testToJson(t));
    return fileJson(f, std::move(tests));
}

json parseFactsText(const char *begin, const char *end, int fileDepth,
                    std::vector<std::vector<TestFunctionFacts>> *tests)
{
    bool inTests = false; // the file's current key is "tests"
    std::vector<TestFunctionFacts> current;
    const json::parser_callback_t take = [&](int depth, json::parse_event_t event, json &parsed) {
        if (event == json::parse_event_t::key && depth == fileDepth + 1) {
            inTests = parsed == "tests";
        } else if (event == json::parse_event_t::object_end && depth == fileDepth + 2 && inTests) {
            current.push_back(testFromJson(parsed));
            return false; // converted: not kept in the tree
        } else if (event == json::parse_event_t::object_end && depth == fileDepth) {
            tests->push_back(std::move(current));
            current.clear();
            inTests = false;
        }
        return true;
    };
    return json::parse(begin, end, take, /*allow_exceptions=*/false);
}

std::string fileFactsToJsonText(const FileFacts &facts)
{
    std::string text =
        fileJson(facts, json::array()).dump(-1, ' ', false, json::error_handler_t::replace);
    // Keys are sorted and every quote inside a string value is escaped, so the first
    // unescaped `"tests":[]` is the key itself.
    const std::string empty = "\"tests\":[]";
    const size_t at = text.find(empty);
    if (at == std::string::npos)
        throw std::logic_error("fileFactsToJsonText: no tests key");
    std::string tests = "\"tests\":[";
    for (size_t i = 0; i < facts.tests.size(); ++i) {
        if (i)
            tests += ',';
        tests += testToJson(facts.tests[i]).dump(-1, ' ', false, json::error_handler_t::replace);
    }
    tests += ']';
    text.replace(at, empty.size(), tests);
    return text;
}

} // namespace pw::core
