#pragma once

#include "python/TestFacts.h"

#include <nlohmann/json.hpp>

namespace pw::core {

// The extractor's JSON (resources/python/pw_facts.py, protocol "extractor": 1) to facts
// and back; the same text is what the on-disk fact cache stores. Throws
// nlohmann::json::exception on a shape mismatch (the caller turns it into a harness error).
FileFacts fileFactsFromJson(const nlohmann::json &j);
nlohmann::json fileFactsToJson(const FileFacts &facts);

} // namespace pw::core
