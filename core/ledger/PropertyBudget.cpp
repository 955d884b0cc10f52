#include "ledger/PropertyBudget.h"

#include "ledger/TomlText.h"

namespace pw::core {

PropertyBudget PropertyBudget::parse(const std::string &text, const std::string &origin)
{
    const toml::table root = tomltext::parse(text, origin);
    PropertyBudget b;
    b.file = origin;
    b.info.line = 1;
    tomltext::FieldReader r(root, origin, &b.info);
    r.setEntry("property_budget");
    b.maxExamples = r.integer("max_examples");
    b.deadlineMs = r.integer("deadline_ms");
    b.maxWorkers = r.integer("max_workers");
    r.finish({"max_examples", "deadline_ms", "max_workers"});
    return b;
}

std::string PropertyBudget::setValues(const std::string &text, const std::string &origin,
                                      const std::map<std::string, long long> &values)
{
    const toml::table root = tomltext::parse(text, origin);
    std::vector<tomltext::KeyEdit> edits;
    for (const auto &[key, value] : values)
        edits.push_back({key, std::to_string(value)});
    // New top-level keys must precede any [section]: setKeys places them after the last
    // plain key, which for the root table is before the first section only when one
    // exists; a budget file has no sections.
    return tomltext::setKeys(text, root, edits, origin);
}

} // namespace pw::core
