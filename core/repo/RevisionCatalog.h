#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pw::core {

class Repository;

// One revision a reviewer can pick as base or head: what to pass on (`spec`),
// what to show (`label`) and a hint beside it (`detail`).
struct RevisionChoice
{
    enum Kind
    {
        Worktree,
        Branch,
        RemoteBranch,
        Tag,
        Commit
    };
    Kind kind = Commit;
    std::string spec;   // "WORKTREE", "main", "origin/main", "v1.0", a full commit id
    std::string label;  // "WORKTREE", "main", …; commits: short id + subject
    std::string detail; // worktree: "uncommitted changes"/"clean"; refs: short id · subject;
                        // commits: author · age
};

// Everything worth offering, in this order: WORKTREE (not for a bare repository), local
// branches, remote branches, tags, then the `recentCommits` newest commits reachable from
// HEAD. Throws pw::core::Error like the Repository calls it makes.
std::vector<RevisionChoice> revisionChoices(const Repository &repo, int recentCommits = 30);

// The specs the default base and head resolve to ("WORKTREE"/"HEAD"; "merge-base(main,HEAD)"…).
// defaultBaseSpec is empty when there is nothing to compare against (no commit yet, a root
// commit without a main branch): the user has to name a base.
std::string defaultHeadSpec(const Repository &repo);
std::string defaultBaseSpec(const Repository &repo);

// "just now", "5 minutes ago", "3 days ago"; the ISO date (UTC) past about two months or
// for a time in the future (clock skew).
std::string describeAge(int64_t time, int64_t now);

} // namespace pw::core
