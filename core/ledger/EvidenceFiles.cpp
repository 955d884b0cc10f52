#include "ledger/EvidenceFiles.h"

#include "ledger/RunEvidence.h"
#include "util/Error.h"
#include "util/Files.h"

#include <filesystem>
#include <map>
#include <memory>

namespace pw::core {

EvidenceCopy EvidenceFiles::plan(const std::string &ledgerDir, const std::string &source)
{
    const std::optional<std::string> bytes = readWholeFile(source);
    if (!bytes)
        throw Error::input(source + ": cannot read the record the freeze rests on");
    EvidenceCopy copy;
    copy.source = source;
    copy.bytes = *bytes;
    copy.sha256 = sha256Hex(copy.bytes);
    const std::filesystem::path name = std::filesystem::path(source).filename();
    const std::filesystem::path dir = std::filesystem::path(ledgerDir) / FreezeEvidence::kDir;
    // The record's own name when it is free or holds these bytes; else one that names
    // them (a record of the same name with other content is another run's evidence).
    // Another file is never overwritten: past the hashed name, a counter.
    for (int n = 0;; ++n) {
        const std::string candidate = n == 0
                                          ? name.string()
                                          : name.stem().string() + "-" + copy.sha256.substr(0, 12) +
                                                (n == 1 ? std::string() : "-" + std::to_string(n)) +
                                                name.extension().string();
        const std::optional<std::string> there = readWholeFile((dir / candidate).string());
        std::error_code ec;
        const bool taken = there || std::filesystem::exists(dir / candidate, ec);
        copy.path = std::string(FreezeEvidence::kDir) + "/" + candidate;
        copy.present = there && *there == copy.bytes;
        if (!taken || copy.present)
            return copy;
    }
}

std::vector<EvidenceCopy> EvidenceFiles::planFor(const std::string &ledgerDir,
                                                 const FreezeCase &evidence, QuarantineEntry &e)
{
    std::vector<EvidenceCopy> copies;
    const std::optional<AttributionRecord> &record = evidence.attribution();
    if (!record)
        return copies;
    if (record->file.empty())
        throw Error::input("the run behind the freeze of " + evidence.test() +
                           " was not recorded: its record is the freeze's evidence (run it "
                           "again with recording on)");
    FreezeEvidence &ev = e.evidence ? *e.evidence : e.evidence.emplace();
    copies.push_back(plan(ledgerDir, record->file));
    ev.record = copies.back().path;
    ev.recordSha256 = copies.back().sha256;
    if (evidence.cells() && !evidence.cells()->file.empty()) {
        copies.push_back(plan(ledgerDir, evidence.cells()->file));
        ev.cells = copies.back().path;
        ev.cellsSha256 = copies.back().sha256;
    }
    return copies;
}

void EvidenceFiles::writeBefore(const std::string &ledgerDir,
                                const std::vector<EvidenceCopy> &copies,
                                const std::function<void()> &writeLedger)
{
    std::vector<std::string> created;
    const auto removeCreated = [&created] {
        for (const std::string &file : created) {
            std::error_code ec;
            std::filesystem::remove(file, ec);
        }
    };
    for (const EvidenceCopy &copy : copies) {
        const std::string target = (std::filesystem::path(ledgerDir) / copy.path).string();
        // As it is now, not as it was when planned: a copy deleted since is written again.
        const std::optional<std::string> there = readWholeFile(target);
        if (there && *there == copy.bytes)
            continue;
        if (there) {
            removeCreated();
            throw Error::input(target + ": another file took the evidence's name since the "
                                        "freeze was planned: nothing was written, try again");
        }
        std::string why;
        if (!writeFileAtomically(target, copy.bytes, /*createDirs=*/true, &why)) {
            removeCreated();
            throw Error::input(target + ": cannot write the freeze's evidence: " + why);
        }
        created.push_back(target);
    }
    try {
        writeLedger();
    } catch (...) {
        removeCreated(); // no entry points to them
        throw;
    }
}

bool EvidenceFiles::isEvidencePath(const std::string &path)
{
    const std::string prefix = std::string(FreezeEvidence::kDir) + "/";
    if (!path.starts_with(prefix) || path.size() == prefix.size() ||
        path.find('\\') != std::string::npos || path.find('\0') != std::string::npos)
        return false;
    for (const std::filesystem::path &part : std::filesystem::path(path))
        if (part == ".." || part == ".")
            return false;
    return true;
}

std::function<std::optional<std::string>(const std::string &)> EvidenceFiles::pinnedReader(
    const QuarantineLedger *ledger,
    const std::function<std::optional<std::string>(const std::string &)> &read)
{
    auto files = std::make_shared<std::map<std::string, std::optional<std::string>>>();
    if (ledger)
        for (const QuarantineEntry &e : ledger->entries) {
            if (!e.evidence)
                continue;
            for (const std::optional<std::string> &file : {e.evidence->record, e.evidence->cells}) {
                if (!file || files->count(*file) || !isEvidencePath(*file))
                    continue; // any other path is the validator's to name, never read
                try {
                    (*files)[*file] = read(*file);
                } catch (const Error &) {
                    (*files)[*file] = std::nullopt;
                }
            }
        }
    return [files](const std::string &file) -> std::optional<std::string> {
        const auto it = files->find(file);
        return it == files->end() ? std::nullopt : it->second;
    };
}

std::function<std::optional<std::string>(const std::string &)>
EvidenceFiles::reader(const std::string &ledgerDir, std::vector<EvidenceCopy> pending)
{
    auto waiting = std::make_shared<std::map<std::string, std::string>>();
    for (EvidenceCopy &copy : pending)
        (*waiting)[copy.path] = std::move(copy.bytes);
    return [ledgerDir, waiting](const std::string &path) -> std::optional<std::string> {
        if (const auto it = waiting->find(path); it != waiting->end())
            return it->second;
        if (!isEvidencePath(path))
            return std::nullopt;
        return readWholeFile((std::filesystem::path(ledgerDir) / path).string());
    };
}

} // namespace pw::core
