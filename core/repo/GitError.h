#pragma once

#include "util/Error.h"

#include <string>

namespace pw::core {

// A libgit2 failure. The message is libgit2's own, copied the moment the call failed
// because git_error_last() is thread-local and overwritten by the next call.
class GitError : public Error
{
public:
    GitError(int code, const std::string &context, const std::string &gitMessage);
    // A failure whose kind and message are already decided (a file the user may not read).
    GitError(Kind kind, int code, const std::string &message);

    int code() const { return m_code; }
    const std::string &gitMessage() const { return m_gitMessage; }

private:
    int m_code;
    std::string m_gitMessage;
};

// Throws GitError (with libgit2's last message) when `code` < 0.
void gitCheck(int code, const std::string &context);

// libgit2's last error message on this thread (empty when none), cleared so that it cannot
// be reported twice. The one way the repository layer reads libgit2's errors (gitCheck
// too): copy at once, since the next call overwrites it.
std::string takeGitError();

} // namespace pw::core
