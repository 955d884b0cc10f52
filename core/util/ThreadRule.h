#pragma once

namespace pw::core {

// "No libgit2 call and no child process on the GUI thread", as a checked rule rather than
// a comment. The workbench marks its thread for as long as its window lives
// (NoBlockingWorkHere); the repository layer (every Repository, FileHistory and RepoWriter
// entry point) and the process layer (ChildProcess, the fact extractor) call
// checkBlockingWorkAllowed() before they touch git or start a process.
//
// A call on a marked thread is a bug. With PATCHWITNESS_STRICT_THREADS=1 in the environment
// (every test runs so) it aborts with what was called and on which thread, so a GUI test
// that reaches such a call fails; otherwise it is reported once per process on stderr and
// the call goes ahead — a reviewer's workbench does not die of a slow path.

// Marks the calling thread for the object's lifetime. Marks nest and may end in any order
// (a window and its desks each hold one); the thread is marked while any lives. Create and
// destroy it on the thread it marks.
class NoBlockingWorkHere
{
public:
    explicit NoBlockingWorkHere(const char *threadName);
    ~NoBlockingWorkHere();
    NoBlockingWorkHere(const NoBlockingWorkHere &) = delete;
    NoBlockingWorkHere &operator=(const NoBlockingWorkHere &) = delete;
};

// Lifts the mark for the object's lifetime (nests; marks made or ended meanwhile still
// count): for code that blocks on purpose and knows it may (a test's fixture built on the
// test's thread while a window lives).
class BlockingWorkAllowed
{
public:
    BlockingWorkAllowed();
    ~BlockingWorkAllowed();
    BlockingWorkAllowed(const BlockingWorkAllowed &) = delete;
    BlockingWorkAllowed &operator=(const BlockingWorkAllowed &) = delete;
};

// Whether the calling thread may block on git or a child process now.
bool blockingWorkAllowed();
// `what`: the call, as a reader finds it ("Repository::diff", "ChildProcess").
void checkBlockingWorkAllowed(const char *what);

} // namespace pw::core
