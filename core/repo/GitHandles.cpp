#include "repo/GitHandles.h"

namespace pw::core::git {

namespace {

// Function-static: initialised once, thread-safe (C++11 magic statics), and destroyed
// after every later-constructed static that might still hold a handle.
struct LibGit2Guard
{
    LibGit2Guard() { git_libgit2_init(); }
    ~LibGit2Guard() { git_libgit2_shutdown(); }
    LibGit2Guard(const LibGit2Guard &) = delete;
    LibGit2Guard &operator=(const LibGit2Guard &) = delete;
};

} // namespace

void ensureInit()
{
    static LibGit2Guard guard;
}

} // namespace pw::core::git
