#include "util/ThreadRule.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pw::core {

namespace {

// A count, not a stack: a window and the desks it owns are destroyed in no set order.
thread_local int t_marks = 0;
thread_local int t_allowed = 0; // BlockingWorkAllowed scopes open on this thread
thread_local const char *t_name = "";

// Read on each violation (there are none when all is well).
bool strict()
{
    const char *env = std::getenv("PATCHWITNESS_STRICT_THREADS");
    return env && std::strcmp(env, "1") == 0;
}

} // namespace

NoBlockingWorkHere::NoBlockingWorkHere(const char *threadName)
{
    if (t_marks++ == 0)
        t_name = threadName;
}

NoBlockingWorkHere::~NoBlockingWorkHere()
{
    --t_marks;
}

BlockingWorkAllowed::BlockingWorkAllowed()
{
    ++t_allowed;
}

BlockingWorkAllowed::~BlockingWorkAllowed()
{
    --t_allowed;
}

bool blockingWorkAllowed()
{
    return t_marks == 0 || t_allowed > 0;
}

void checkBlockingWorkAllowed(const char *what)
{
    if (blockingWorkAllowed())
        return;
    if (strict()) {
        std::fprintf(stderr,
                     "patchwitness: %s called on the %s thread, which must never wait on "
                     "git or a child process\n",
                     what, t_name);
        std::abort();
    }
    static std::atomic<bool> reported{false};
    if (!reported.exchange(true))
        std::fprintf(stderr, "patchwitness: warning: %s called on the %s thread (reported once)\n",
                     what, t_name);
}

} // namespace pw::core
