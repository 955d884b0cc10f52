#include "ledger/LedgerHistory.h"

#include "ledger/LedgerDate.h"
#include "ledger/LedgerSet.h"
#include "ledger/LedgerSnapshot.h"
#include "repo/FileHistory.h"
#include "repo/Repository.h"
#include "util/Error.h"

#include <QDateTime>
#include <algorithm>
#include <map>

namespace pw::core {
namespace {

std::string baseName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

int64_t dayStart(const QDate &d)
{
    return QDateTime(d, QTime(0, 0), Qt::UTC).toSecsSinceEpoch();
}

QDate dayOf(int64_t time)
{
    return QDateTime::fromSecsSinceEpoch(time, Qt::UTC).date();
}

std::optional<QDate> expiresOf(const SnapshotEntry &e)
{
    const auto it = e.fields.find("expires");
    if (it == e.fields.end())
        return std::nullopt;
    std::string text = it->second;
    if (text.size() >= 2 && text.front() == '"')
        text = text.substr(1, text.size() - 2);
    return parseLedgerDate(text);
}

LedgerEvent::Kind eventKind(EntryChange::Kind kind)
{
    switch (kind) {
    case EntryChange::Kind::Added:
        return LedgerEvent::Kind::Added;
    case EntryChange::Kind::Removed:
        return LedgerEvent::Kind::Removed;
    case EntryChange::Kind::Renewed:
        return LedgerEvent::Kind::Renewed;
    case EntryChange::Kind::Edited:
        break;
    }
    return LedgerEvent::Kind::Edited;
}

// The expiry a freeze had and the version that set it.
struct Expiry
{
    QDate day;
    std::string file;
    std::string commit;
    std::string author;
};

} // namespace

const char *ledgerEventName(LedgerEvent::Kind kind)
{
    switch (kind) {
    case LedgerEvent::Kind::Added:
        return "added";
    case LedgerEvent::Kind::Renewed:
        return "renewed";
    case LedgerEvent::Kind::Edited:
        return "edited";
    case LedgerEvent::Kind::Expired:
        return "expired";
    case LedgerEvent::Kind::Removed:
        return "removed";
    case LedgerEvent::Kind::Unreadable:
        return "unreadable";
    }
    return "edited";
}

std::vector<LedgerEvent> LedgerHistory::of(const std::string &repoPath,
                                           const std::string &ledgerPath, const QDate &today,
                                           const std::string &rev)
{
    std::vector<FileVersion> versions = FileHistory::walk(repoPath, ledgerPath, rev);
    std::reverse(versions.begin(), versions.end());
    const Repository repo = Repository::open(repoPath);

    std::vector<LedgerEvent> events;
    LedgerSnapshot previous;
    std::map<std::string, Expiry> expiries; // entry → expiry of the version in force

    auto expireUpTo = [&](const std::string &id, const QDate &until) {
        const auto it = expiries.find(id);
        if (it == expiries.end())
            return;
        if (it->second.day <= until) {
            events.push_back({LedgerEvent::Kind::Expired, it->second.file, id, it->second.commit,
                              it->second.author, dayStart(it->second.day),
                              "expired on " + ledgerDateText(it->second.day)});
        }
        expiries.erase(it);
    };

    for (const FileVersion &v : versions) {
        LedgerSnapshot current;
        current.file = v.path;
        if (!v.blob.empty()) {
            try {
                current = LedgerSnapshot::parse(baseName(v.path), repo.readBlob(v.blob), v.path);
            } catch (const Error &e) {
                events.push_back({LedgerEvent::Kind::Unreadable,
                                  v.path,
                                  {},
                                  v.commit,
                                  v.author,
                                  v.time,
                                  e.what()});
                continue; // the next readable version is compared with the last readable one
            }
        }
        const QDate day = dayOf(v.time);
        for (const EntryChange &c : compareSnapshots(previous, current)) {
            const bool expiryChanged =
                c.kind == EntryChange::Kind::Removed ||
                std::find(c.fields.begin(), c.fields.end(), "expires") != c.fields.end();
            if (expiryChanged)
                expireUpTo(c.id, day);
            events.push_back(
                {eventKind(c.kind), v.path, c.id, v.commit, v.author, v.time, c.detail});
        }
        for (const SnapshotEntry &e : current.entries) {
            if (expiries.count(e.id))
                continue;
            if (const std::optional<QDate> expires = expiresOf(e))
                expiries[e.id] = {*expires, v.path, v.commit, v.author};
        }
        previous = std::move(current);
    }
    std::vector<std::string> open;
    for (const auto &[id, expiry] : expiries)
        open.push_back(id);
    for (const std::string &id : open)
        expireUpTo(id, today);

    std::stable_sort(events.begin(), events.end(),
                     [](const LedgerEvent &a, const LedgerEvent &b) { return a.time < b.time; });
    return events;
}

std::vector<LedgerEvent> LedgerHistory::ofDirectory(const std::string &repoPath,
                                                    const std::string &ledgerDir,
                                                    const QDate &today, const std::string &rev)
{
    std::vector<LedgerEvent> all;
    std::string dir = ledgerDir;
    while (!dir.empty() && dir.back() == '/')
        dir.pop_back();
    for (const std::string &name : LedgerSet::fileNames()) {
        std::vector<LedgerEvent> events =
            of(repoPath, dir.empty() ? name : dir + "/" + name, today, rev);
        all.insert(all.end(), events.begin(), events.end());
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const LedgerEvent &a, const LedgerEvent &b) { return a.time < b.time; });
    return all;
}

std::vector<LedgerEvent> LedgerHistory::forEntry(const std::vector<LedgerEvent> &events,
                                                 const std::string &entry)
{
    std::vector<LedgerEvent> out;
    for (const LedgerEvent &e : events) {
        if (e.entry == entry ||
            (entry.find('[') == std::string::npos && e.entry.starts_with(entry + "[")))
            out.push_back(e);
    }
    return out;
}

} // namespace pw::core
