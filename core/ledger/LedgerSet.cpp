#include "ledger/LedgerSet.h"

#include "util/Error.h"
#include "util/Files.h"

#include <QDir>

namespace pw::core {

const std::vector<std::string> &LedgerSet::fileNames()
{
    static const std::vector<std::string> names = {
        QuarantineLedger::kFileName, WaiverLedger::kFileName, SeedJournal::kFileName,
        FixtureDigestLedger::kFileName, PropertyBudget::kFileName};
    return names;
}

LedgerProblem parseProblem(const std::string &file, const std::string &errorText)
{
    LedgerProblem p;
    p.file = file;
    p.rule = "parse";
    p.message = errorText;
    // "origin:line:column: message" → line, column, message (origin may contain ':').
    if (errorText.starts_with(file + ':')) {
        const std::string rest = errorText.substr(file.size() + 1);
        size_t a = 0;
        const int line = std::atoi(rest.c_str());
        a = rest.find(':');
        if (line > 0 && a != std::string::npos) {
            const int column = std::atoi(rest.c_str() + a + 1);
            const size_t b = rest.find(": ", a + 1);
            p.line = line;
            p.column = column;
            if (b != std::string::npos)
                p.message = rest.substr(b + 2);
        } else if (rest.starts_with(" ")) {
            p.message = rest.substr(1);
        }
    }
    return p;
}

void LedgerSet::add(const std::string &name, const std::string &text, const std::string &origin)
{
    try {
        if (name == QuarantineLedger::kFileName)
            quarantine = QuarantineLedger::parse(text, origin);
        else if (name == WaiverLedger::kFileName)
            waivers = WaiverLedger::parse(text, origin);
        else if (name == SeedJournal::kFileName)
            journal = SeedJournal::parse(text, origin);
        else if (name == FixtureDigestLedger::kFileName)
            fixtureDigest = FixtureDigestLedger::parse(text, origin);
        else if (name == PropertyBudget::kFileName)
            propertyBudget = PropertyBudget::parse(text, origin);
    } catch (const Error &e) {
        loadProblems.push_back(parseProblem(origin, e.what()));
    }
}

LedgerSet
LedgerSet::load(const std::function<std::optional<std::string>(const std::string &)> &read,
                const std::string &prefix)
{
    LedgerSet set;
    for (const std::string &name : fileNames()) {
        if (const std::optional<std::string> text = read(name))
            set.add(name, *text, prefix + name);
    }
    return set;
}

LedgerSet LedgerSet::loadDirectory(const std::string &dir)
{
    const QDir d(QString::fromStdString(dir));
    LedgerSet set;
    for (const std::string &name : fileNames()) {
        const std::string path = d.filePath(QString::fromStdString(name)).toStdString();
        // A file (or directory) that cannot be read fails the command: an unreadable ledger
        // never reads as an empty one.
        if (const std::optional<std::string> text = readFileOrAbsent(path))
            set.add(name, *text, path);
    }
    return set;
}

std::vector<std::string> LedgerSet::referencedTests() const
{
    std::vector<std::string> ids;
    if (quarantine) {
        for (const QuarantineEntry &e : quarantine->entries) {
            if (e.substitute)
                ids.push_back(*e.substitute);
        }
    }
    if (waivers) {
        for (const WaiverEntry &e : waivers->entries) {
            if (e.witness)
                ids.push_back(*e.witness);
        }
    }
    return ids;
}

} // namespace pw::core
