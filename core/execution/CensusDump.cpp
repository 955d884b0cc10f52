#include "execution/CensusDump.h"

#include "util/Error.h"
#include "util/Files.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace pw::core {

CensusDump CensusDump::parse(const std::string &text, const std::string &origin)
{
    using nlohmann::json;
    const json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw Error::input(origin + ": not a census dump (JSON object expected)");
    if (doc.value("schema", std::string()) != kSchema)
        throw Error::input(origin + ": schema: expected \"" + kSchema + "\"");
    const auto nodes = doc.find("nodes");
    if (nodes == doc.end() || !nodes->is_array())
        throw Error::input(origin + ": nodes: an array is required");
    CensusDump dump;
    dump.origin = origin;
    std::vector<std::string> ids;
    for (size_t i = 0; i < nodes->size(); ++i) {
        const json &n = (*nodes)[i];
        const auto id = n.is_object() ? n.find("nodeid") : n.end();
        if (id == n.end() || !id->is_string() || id->get<std::string>().empty())
            throw Error::input(origin + ": nodes[" + std::to_string(i) +
                               "]: nodeid: a non-empty string is required");
        CensusNode node;
        node.nodeId = id->get<std::string>();
        node.skipped = n.value("skipped", false);
        if (const auto m = n.find("markers"); m != n.end() && m->is_array()) {
            for (const json &name : *m) {
                if (name.is_string())
                    node.markers.push_back(name.get<std::string>());
            }
            std::sort(node.markers.begin(), node.markers.end());
        }
        ids.push_back(node.nodeId);
        dump.nodes.push_back(std::move(node));
    }
    if (const auto errors = doc.find("errors"); errors != doc.end() && errors->is_array()) {
        for (const json &e : *errors) {
            if (e.is_object() && e.value("nodeid", std::string()) != "")
                dump.errors[e.value("nodeid", std::string())] = e.value("message", std::string());
        }
    }
    dump.digest = digestOf(std::move(ids));
    return dump;
}

std::string CensusDump::digestOf(std::vector<std::string> ids)
{
    std::sort(ids.begin(), ids.end());
    std::string text;
    for (const std::string &id : ids)
        text += id + "\n";
    return sha256Hex(text, 16);
}

const CensusNode *CensusDump::find(const std::string &nodeId) const
{
    const auto it = std::find_if(nodes.begin(), nodes.end(),
                                 [&](const CensusNode &n) { return n.nodeId == nodeId; });
    return it == nodes.end() ? nullptr : &*it;
}

std::string functionIdOf(const std::string &nodeId)
{
    // Parameters come last and may hold "::" or more brackets; paths and names have none.
    const size_t bracket = nodeId.find('[');
    return bracket == std::string::npos ? nodeId : nodeId.substr(0, bracket);
}

std::string fileOf(const std::string &nodeId)
{
    const size_t sep = nodeId.find("::");
    return sep == std::string::npos ? nodeId : nodeId.substr(0, sep);
}

} // namespace pw::core
