#include "repo/GitError.h"

#include <git2.h>

namespace pw::core {

namespace {

// Codes a user causes by naming something that is not there or not unique (a revision,
// a path, an object id); everything else is the harness's (or libgit2's) problem.
Error::Kind kindForCode(int code)
{
    switch (code) {
    case GIT_ENOTFOUND:
    case GIT_EAMBIGUOUS:
    case GIT_EINVALIDSPEC:
        return Error::Kind::Input;
    default:
        return Error::Kind::Harness;
    }
}

std::string joined(const std::string &context, const std::string &gitMessage)
{
    if (context.empty())
        return gitMessage;
    return context + ": " + gitMessage;
}

} // namespace

GitError::GitError(int code, const std::string &context, const std::string &gitMessage)
    : Error(kindForCode(code), joined(context, gitMessage)), m_code(code), m_gitMessage(gitMessage)
{
}

void gitCheck(int code, const std::string &context)
{
    if (code >= 0)
        return;
    // Copy now: the next libgit2 call on this thread overwrites the last error.
    const git_error *last = git_error_last();
    std::string message = last && last->message && *last->message
                              ? std::string(last->message)
                              : "libgit2 error " + std::to_string(code);
    git_error_clear();
    throw GitError(code, context, message);
}

} // namespace pw::core
