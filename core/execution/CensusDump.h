#pragma once

#include <map>
#include <string>
#include <vector>

namespace pw::core {

// One collected node of a collect-only run.
struct CensusNode
{
    std::string nodeId;
    bool skipped = false;             // a skip/skipif marker skips it at collection time
    std::vector<std::string> markers; // marker names, sorted
};

// The bundled plugin's collect-only dump (`--pw-collect`, schema `patchwitness.census/1`):
// node ids in collection order, their count and digest (sha256 of the sorted
// ids, first 16 hex).
struct CensusDump
{
    static constexpr const char *kSchema = "patchwitness.census/1";

    std::string origin;
    std::vector<CensusNode> nodes;
    std::string digest; // recomputed from the ids, never trusted from the file
    // Collectors that failed ("errors": [{"nodeid", "message"}]): path → message.
    std::map<std::string, std::string> errors;

    // Throws Error::input "origin: …" for JSON that does not parse, another schema, or a
    // node without an id.
    static CensusDump parse(const std::string &text, const std::string &origin);
    // sha256 over the sorted ids, each followed by '\n'; first 16 hex.
    static std::string digestOf(std::vector<std::string> ids);

    int count() const { return int(nodes.size()); }
    const CensusNode *find(const std::string &nodeId) const;
};

// "tests/t.py::C::f" of "tests/t.py::C::f[1-2]": a node id without its parameters, which
// is how static facts and ledgers name the test.
std::string functionIdOf(const std::string &nodeId);
// "tests/t.py" of a node id.
std::string fileOf(const std::string &nodeId);

} // namespace pw::core
