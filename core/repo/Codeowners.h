#pragma once

#include "util/Glob.h"

#include <string>
#include <vector>

namespace pw::core {

class Repository;
struct Revision;

// A repository's CODEOWNERS file (a freeze's owner is pre-filled from it), read
// the way GitHub reads it: one rule per line, `pattern owner...`; `#` starts a comment; the
// LAST rule whose pattern matches a path decides its owners (a rule without owners means
// "nobody"). Patterns are gitignore-like: a leading `/` anchors at the root, a pattern with
// no other `/` than a trailing one matches at any depth, a trailing `/` means a directory
// and everything under it, `*` stays within a directory, `**` crosses them, a final `/*`
// (as in `docs/*`) owns only the files directly in that directory, and a pattern that
// matches a directory owns everything under it. `\` escapes the next character (`\#` for a
// file whose name starts with `#`).
//
// What GitHub rejects is skipped and remembered in warnings() ("origin:line: message"),
// never thrown: negation (`!`), character ranges (`[ ]`), owners that are neither `@user`,
// `@org/team` nor an e-mail address, a file over GitHub's 3 MB limit (not read at all).
class Codeowners
{
public:
    // The first of .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS present at `rev`
    // (GitHub's order); none: an empty Codeowners.
    static Codeowners load(const Repository &repo, const Revision &rev);
    static Codeowners parse(const std::string &text, const std::string &origin);

    // Owners of a repository-relative path ('/'-separated): the last matching rule's owners,
    // in the order written; empty when no rule matches or that rule names no owner.
    std::vector<std::string> ownersOf(const std::string &path) const;
    const std::string &file() const { return m_file; } // which file was read ("" when none)
    const std::vector<std::string> &warnings() const { return m_warnings; }
    bool empty() const { return m_rules.empty(); }

    static constexpr size_t kMaxFileSize = 3 * 1024 * 1024; // GitHub ignores larger files

private:
    struct Rule
    {
        Glob glob;
        enum class Target
        {
            PathOrAncestor, // the file itself or any directory above it
            AncestorOnly,   // trailing `/`: directories only
            PathOnly        // final `/*`: files directly in the directory
        } target = Target::PathOrAncestor;
        std::vector<std::string> owners;
        int line = 0;
    };

    static bool matches(const Rule &rule, const std::string &path,
                        const std::vector<std::string> &ancestors);

    std::vector<Rule> m_rules; // file order
    std::string m_file;
    std::vector<std::string> m_warnings;
};

} // namespace pw::core
