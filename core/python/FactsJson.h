#pragma once

#include "python/TestFacts.h"

#include <nlohmann/json.hpp>

namespace pw::core {

// The extractor's JSON (resources/python/pw_facts.py, protocol "extractor": 1) to facts
// and back; the same text is what the on-disk fact cache stores. Throws
// nlohmann::json::exception on a shape mismatch (the caller turns it into a harness error).
FileFacts fileFactsFromJson(const nlohmann::json &j);
nlohmann::json fileFactsToJson(const FileFacts &facts);

// Parses JSON text whose file-facts objects sit at `fileDepth` (0: one file, as the fact
// cache stores it; 2: the extractor's answer {"files": [...]}) and converts each test as
// soon as it is read, so no JSON tree of a file's tests is ever held (a 4 MiB file has
// about 16,000). The tree returned has every "tests" array emptied; `tests` receives each
// file's tests, in file order. It is_discarded() when the text is not JSON; a test of the
// wrong shape throws nlohmann::json::exception.
nlohmann::json parseFactsText(const char *begin, const char *end, int fileDepth,
                              std::vector<std::vector<TestFunctionFacts>> *tests);
// fileFactsToJson(facts).dump(), one test at a time.
std::string fileFactsToJsonText(const FileFacts &facts);

} // namespace pw::core
