#include "repo/RevisionCatalog.h"

#include "ledger/LedgerDate.h"
#include "repo/Repository.h"
#include "util/Error.h"

#include <QDateTime>

namespace pw::core {
namespace {

constexpr size_t kShortId = 7;

std::string refDetail(const Repository &repo, const RefInfo &ref)
{
    std::string detail = ref.commit.substr(0, kShortId);
    // By id, not by name: a tag and a branch may share a name.
    const std::string subject = repo.resolve(ref.commit).subject;
    if (!subject.empty())
        detail += " · " + subject;
    return detail;
}

RevisionChoice::Kind choiceKind(RefInfo::Kind kind)
{
    switch (kind) {
    case RefInfo::Kind::Branch:
        return RevisionChoice::Branch;
    case RefInfo::Kind::RemoteBranch:
        return RevisionChoice::RemoteBranch;
    case RefInfo::Kind::Tag:
        return RevisionChoice::Tag;
    }
    return RevisionChoice::Branch;
}

} // namespace

std::string describeAge(int64_t time, int64_t now)
{
    const int64_t age = now - time;
    auto ago = [](int64_t n, const char *unit) {
        return std::to_string(n) + ' ' + unit + (n == 1 ? "" : "s") + " ago";
    };
    constexpr int64_t minute = 60, hour = 60 * minute, day = 24 * hour, week = 7 * day;
    if (age >= 0 && age < minute)
        return "just now";
    if (age >= 0 && age < hour)
        return ago(age / minute, "minute");
    if (age >= 0 && age < day)
        return ago(age / hour, "hour");
    if (age >= 0 && age < 2 * week)
        return ago(age / day, "day");
    if (age >= 0 && age < 9 * week)
        return ago(age / week, "week");
    return ledgerDateText(QDateTime::fromSecsSinceEpoch(time, Qt::UTC).date());
}

std::vector<RevisionChoice> revisionChoices(const Repository &repo, int recentCommits)
{
    std::vector<RevisionChoice> choices;
    if (!repo.workdir().empty()) {
        choices.push_back({RevisionChoice::Worktree, "WORKTREE", "WORKTREE",
                           repo.isDirty() ? "uncommitted changes" : "clean"});
    }
    // refs() is sorted by kind (branches, remote branches, tags), then by name.
    for (const RefInfo &ref : repo.refs())
        choices.push_back({choiceKind(ref.kind), ref.name, ref.name, refDetail(repo, ref)});

    const int64_t now = QDateTime::currentSecsSinceEpoch();
    for (const CommitInfo &c : repo.recentCommits(recentCommits)) {
        std::string label = c.commit.substr(0, kShortId);
        if (!c.subject.empty())
            label += ' ' + c.subject;
        std::string detail = c.author.empty() ? std::string() : c.author + " · ";
        detail += describeAge(c.time, now);
        choices.push_back({RevisionChoice::Commit, c.commit, std::move(label), std::move(detail)});
    }
    return choices;
}

std::string defaultHeadSpec(const Repository &repo)
{
    return repo.defaultHead().spec;
}

std::string defaultBaseSpec(const Repository &repo)
{
    try {
        return repo.defaultBase(repo.defaultHead()).spec;
    } catch (const Error &e) {
        if (e.kind() != Error::Kind::Input)
            throw;
        return {}; // nothing to compare against: the reviewer names a base
    }
}

} // namespace pw::core
