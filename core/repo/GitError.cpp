#include "repo/GitError.h"

#include <git2.h>
#include <optional>
#include <string_view>

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

// libgit2's words for a file of the user's it may not open ("failed open - '<path>' is
// locked: Permission denied", "could not open '<path>' for reading: Permission denied"):
// the plain sentence every other reader gives, and the user's to fix.
std::optional<std::string> permissionDenied(int klass, const std::string &gitMessage)
{
    static const std::string kDenied = ": Permission denied";
    if (klass != GIT_ERROR_OS || !gitMessage.ends_with(kDenied))
        return std::nullopt;
    const size_t open = gitMessage.find('\'');
    const size_t close = open == std::string::npos ? open : gitMessage.find('\'', open + 1);
    if (close == std::string::npos)
        return std::nullopt;
    return gitMessage.substr(open + 1, close - open - 1) + ": cannot be read: Permission denied";
}

struct LastError
{
    int klass = GIT_ERROR_NONE;
    std::string message;
};

LastError takeLastError()
{
    LastError out;
    const git_error *last = git_error_last();
    // libgit2 1.8 and later answer "no error" (class NONE) instead of null when nothing failed.
    if (last && !(last->klass == GIT_ERROR_NONE && last->message &&
                  std::string_view(last->message) == "no error")) {
        out.klass = last->klass;
        out.message = last->message ? last->message : "";
    }
    git_error_clear();
    return out;
}

} // namespace

GitError::GitError(int code, const std::string &context, const std::string &gitMessage)
    : Error(kindForCode(code), joined(context, gitMessage)), m_code(code), m_gitMessage(gitMessage)
{
}

GitError::GitError(Kind kind, int code, const std::string &message)
    : Error(kind, message), m_code(code), m_gitMessage(message)
{
}

void gitCheck(int code, const std::string &context)
{
    if (code >= 0)
        return;
    LastError last = takeLastError();
    if (last.message.empty())
        last.message = "libgit2 error " + std::to_string(code);
    if (std::optional<std::string> denied = permissionDenied(last.klass, last.message))
        throw GitError(Error::Kind::Input, code, *denied);
    throw GitError(code, context, last.message);
}

std::string takeGitError()
{
    return takeLastError().message;
}

} // namespace pw::core
