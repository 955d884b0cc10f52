#include "ledger/WaiverLedger.h"

#include "ledger/TomlText.h"

namespace pw::core {

std::string WaiverEntry::id() const
{
    return node && !node->empty() ? *node : "entry " + std::to_string(info.index + 1);
}

WaiverLedger WaiverLedger::parse(const std::string &text, const std::string &origin)
{
    const toml::table root = tomltext::parse(text, origin);
    WaiverLedger ledger;
    ledger.file = origin;
    int index = 0;
    for (const toml::table *t : tomltext::arrayOfTables(root, kTable, origin)) {
        WaiverEntry e;
        e.info.index = index++;
        e.info.line = int(t->source().begin.line);
        tomltext::FieldReader r(*t, origin, &e.info);
        e.node = r.string("node");
        r.setEntry(e.id());
        e.reason = r.string("reason");
        e.witness = r.string("witness");
        e.approvedBy = r.string("approved_by");
        e.approvedOn = r.date("approved_on");
        e.note = r.string("note");
        r.finish({"node", "reason", "witness", "approved_by", "approved_on", "note"});
        ledger.entries.push_back(std::move(e));
    }
    return ledger;
}

const WaiverEntry *WaiverLedger::find(const std::string &node) const
{
    for (const WaiverEntry &e : entries) {
        if (e.node == node)
            return &e;
    }
    return nullptr;
}

std::string WaiverLedger::format(const WaiverEntry &e)
{
    using namespace tomltext;
    std::string out = "[[waiver]]\n";
    auto line = [&out](const char *key, const std::string &value) {
        out += std::string(key) + " = " + value + "\n";
    };
    if (e.node)
        line("node", quoted(*e.node));
    if (e.reason)
        line("reason", quoted(*e.reason));
    if (e.witness)
        line("witness", quoted(*e.witness));
    if (e.approvedBy)
        line("approved_by", quoted(*e.approvedBy));
    if (e.approvedOn)
        line("approved_on", dateText(*e.approvedOn));
    if (e.note)
        line("note", quoted(*e.note));
    return out;
}

std::string WaiverLedger::append(const std::string &text, const WaiverEntry &entry)
{
    return tomltext::appendBlock(text, format(entry));
}

} // namespace pw::core
