#include "ledger/QuarantineLedger.h"

#include "ledger/TomlText.h"
#include "util/Error.h"

namespace pw::core {

std::string QuarantineEntry::id() const
{
    return test && !test->empty() ? *test : "entry " + std::to_string(info.index + 1);
}

QuarantineLedger QuarantineLedger::parse(const std::string &text, const std::string &origin)
{
    const toml::table root = tomltext::parse(text, origin);
    QuarantineLedger ledger;
    ledger.file = origin;
    int index = 0;
    for (const toml::table *t : tomltext::arrayOfTables(root, kTable, origin)) {
        QuarantineEntry e;
        e.info.index = index++;
        e.info.line = int(t->source().begin.line);
        tomltext::FieldReader r(*t, origin, &e.info);
        e.test = r.string("test");
        r.setEntry(e.id());
        e.owner = r.string("owner");
        e.opened = r.date("opened");
        e.expires = r.date("expires");
        e.verdict = r.string("verdict");
        e.attribution = r.string("attribution");
        e.witnessSeed = r.integer("witness_seed");
        e.baselineSha = r.string("baseline_sha");
        if (const toml::table *ev = r.table("evidence")) {
            tomltext::FieldReader er = r.nested(*ev, "evidence");
            FreezeEvidence evidence;
            evidence.baseFail = er.integer("base_fail");
            evidence.headFail = er.integer("head_fail");
            evidence.mode = er.string("mode");
            evidence.seeds = er.integers("seeds");
            evidence.envDigest = er.string("env_digest");
            evidence.record = er.string("record");
            evidence.recordSha256 = er.string("record_sha256");
            evidence.cells = er.string("cells");
            evidence.cellsSha256 = er.string("cells_sha256");
            er.finish({"base_fail", "head_fail", "mode", "seeds", "env_digest", "record",
                       "record_sha256", "cells", "cells_sha256"});
            e.evidence = std::move(evidence);
        }
        e.obligation = r.string("obligation");
        e.substitute = r.string("substitute");
        e.guards = r.strings("guards");
        e.replay = r.string("replay");
        e.lastReproduced = r.date("last_reproduced");
        e.note = r.string("note");
        e.grantedBy = r.string("granted_by");
        e.renewed = r.date("renewed");
        e.renewedBy = r.string("renewed_by");
        r.finish({"test", "owner", "opened", "expires", "verdict", "attribution", "witness_seed",
                  "baseline_sha", "evidence", "obligation", "substitute", "guards", "replay",
                  "last_reproduced", "note", "granted_by", "renewed", "renewed_by"});
        ledger.entries.push_back(std::move(e));
    }
    return ledger;
}

const QuarantineEntry *QuarantineLedger::find(const std::string &test) const
{
    for (const QuarantineEntry &e : entries) {
        if (e.test == test)
            return &e;
    }
    return nullptr;
}

std::string QuarantineLedger::evidenceText(const FreezeEvidence &ev)
{
    using namespace tomltext;
    std::string parts;
    auto part = [&parts](const char *key, const std::string &value) {
        parts += (parts.empty() ? "" : ", ") + std::string(key) + " = " + value;
    };
    if (ev.baseFail)
        part("base_fail", std::to_string(*ev.baseFail));
    if (ev.headFail)
        part("head_fail", std::to_string(*ev.headFail));
    if (ev.mode)
        part("mode", quoted(*ev.mode));
    if (ev.seeds)
        part("seeds", integersText(*ev.seeds));
    if (ev.envDigest)
        part("env_digest", quoted(*ev.envDigest));
    if (ev.record)
        part("record", quoted(*ev.record));
    if (ev.recordSha256)
        part("record_sha256", quoted(*ev.recordSha256));
    if (ev.cells)
        part("cells", quoted(*ev.cells));
    if (ev.cellsSha256)
        part("cells_sha256", quoted(*ev.cellsSha256));
    return parts.empty() ? "{}" : "{ " + parts + " }";
}

std::string QuarantineLedger::format(const QuarantineEntry &e)
{
    using namespace tomltext;
    std::string out = "[[quarantine]]\n";
    auto line = [&out](const char *key, const std::string &value) {
        out += std::string(key) + " = " + value + "\n";
    };
    if (e.test)
        line("test", quoted(*e.test));
    if (e.owner)
        line("owner", quoted(*e.owner));
    if (e.opened)
        line("opened", dateText(*e.opened));
    if (e.expires)
        line("expires", dateText(*e.expires));
    if (e.verdict)
        line("verdict", quoted(*e.verdict));
    if (e.attribution)
        line("attribution", quoted(*e.attribution));
    if (e.witnessSeed)
        line("witness_seed", std::to_string(*e.witnessSeed));
    if (e.baselineSha)
        line("baseline_sha", quoted(*e.baselineSha));
    if (e.evidence)
        line("evidence", evidenceText(*e.evidence));
    if (e.obligation)
        line("obligation", quoted(*e.obligation));
    if (e.substitute)
        line("substitute", quoted(*e.substitute));
    if (e.guards)
        line("guards", stringsText(*e.guards));
    if (e.replay)
        line("replay", quoted(*e.replay));
    if (e.lastReproduced)
        line("last_reproduced", dateText(*e.lastReproduced));
    if (e.note)
        line("note", quoted(*e.note));
    if (e.grantedBy)
        line("granted_by", quoted(*e.grantedBy));
    if (e.renewed)
        line("renewed", dateText(*e.renewed));
    if (e.renewedBy)
        line("renewed_by", quoted(*e.renewedBy));
    return out;
}

std::string QuarantineLedger::append(const std::string &text, const QuarantineEntry &entry)
{
    return tomltext::appendBlock(text, format(entry));
}

namespace {

// The [[quarantine]] table of `test` in `root`: refused when it is an inline table (edited
// by hand only), nullptr when there is none.
const toml::table *freezeTable(const toml::table &root, const std::string &origin,
                               const std::string &test)
{
    for (const toml::table *t : tomltext::arrayOfTables(root, QuarantineLedger::kTable, origin)) {
        const toml::node *name = t->get("test");
        if (!name || !name->is_string() || name->as_string()->get() != test)
            continue;
        if (t->is_inline())
            throw Error::input(tomltext::where(origin, t->source().begin) + ": the freeze of " +
                               test + " is an inline table; edit it by hand");
        return t;
    }
    return nullptr;
}

} // namespace

std::string QuarantineLedger::renew(const std::string &text, const std::string &origin,
                                    const std::string &test, const Renewal &renewal)
{
    const toml::table root = tomltext::parse(text, origin);
    const toml::table *t = freezeTable(root, origin, test);
    if (!t)
        throw Error::input(origin + ": no freeze for " + test + " to renew");
    using namespace tomltext;
    return setKeys(text, *t,
                   {{"expires", dateText(renewal.expires)},
                    {"last_reproduced", dateText(renewal.lastReproduced)},
                    {"renewed", dateText(renewal.renewed)},
                    {"renewed_by", quoted(renewal.by)}},
                   origin);
}

std::string QuarantineLedger::pinEvidence(const std::string &text, const std::string &origin,
                                          const std::string &test, const FreezeEvidence &pins)
{
    const QuarantineLedger ledger = parse(text, origin);
    const QuarantineEntry *entry = ledger.find(test);
    const toml::table root = tomltext::parse(text, origin);
    const toml::table *t = entry ? freezeTable(root, origin, test) : nullptr;
    if (!t)
        throw Error::input(origin + ": no freeze for " + test + " to back with evidence");
    using namespace tomltext;
    std::vector<KeyEdit> edits;
    const auto pin = [&edits](const char *key, const std::optional<std::string> &value) {
        if (value)
            edits.push_back({key, quoted(*value)});
    };
    const toml::table *evidence = t->get_as<toml::table>("evidence");
    if (evidence && !evidence->is_inline()) { // [quarantine.evidence]: its own keys
        pin("record", pins.record);
        pin("record_sha256", pins.recordSha256);
        pin("cells", pins.cells);
        pin("cells_sha256", pins.cellsSha256);
        return setKeys(text, *evidence, edits, origin);
    }
    FreezeEvidence merged = entry->evidence.value_or(FreezeEvidence());
    merged.record = pins.record;
    merged.recordSha256 = pins.recordSha256;
    merged.cells = pins.cells;
    merged.cellsSha256 = pins.cellsSha256;
    return setKeys(text, *t, {{"evidence", evidenceText(merged)}}, origin);
}

} // namespace pw::core
