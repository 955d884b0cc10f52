#pragma once

#include <string>

namespace pw::core {

struct InterpreterProbe;

// Trusted bytecode for a pristine tree (TreeCache), so that a run's own copy (TreeCopy)
// does not compile every module and rewrite every test file again: the price of issue 18's
// per-run copies. Written once per tree and interpreter by patchwitness itself — the
// bundled resources/python/pw_bytecode.py compiles the pristine files without running any
// of them, outside every run — never taken from a run's copy, whose tests could have left
// anything there.
//
// Layout: `<tree>.pyc/<cache tag>-pytest-<version>/` mirrors the tree's directories with
// only their `__pycache__` (plain `<name>.<tag>.pyc`, and pytest's rewritten
// `<name>.<tag>-pytest-<version>.pyc` for conftest and test files), plus `MANIFEST`: the
// sha256 of every file in it, computed here when it was written. Made in a temporary
// directory and renamed into place, so it is complete or absent. TreeCache removes it with
// its tree (a rebuilt tree has new mtimes, which the pycs are checked against).
struct TreeBytecode
{
    std::string dir; // the variant for one interpreter; empty: none (runs compile as before)

    bool isNull() const { return dir.empty(); }
};

// The variant of `store` for the interpreter `probe` describes, written first when it is
// missing (or was dropped by seedTreeBytecode). Empty when the interpreter writes no
// bytecode (no cache tag) or compiling failed (not tried again by this process; the runs
// then compile their own, as before). Never throws: bytecode is a speed-up, not evidence.
TreeBytecode ensureTreeBytecode(const std::string &python, const InterpreterProbe &probe,
                                const std::string &tree, const std::string &store, int timeoutMs);

// Seeds `copy` (a TreeCopy of the tree `bytecode` was made for) with its `__pycache__`
// files, each checked against MANIFEST first. `rewritten`: pytest's rewritten pycs too —
// only where the copy is seen at the pristine path (the sandbox binds it there) or the
// bundled plugin runs (it gives their code the copy's path): pytest executes their code
// objects as they are, with the path they were compiled at, unlike the import system,
// which puts the module's own path into a plain pyc's code. A file that does
// not match its MANIFEST line (something wrote into the store) is not copied, and the whole
// variant is removed, to be written again by the next run. Returns the files seeded.
int seedTreeBytecode(const TreeBytecode &bytecode, const std::string &copy, bool rewritten);

} // namespace pw::core
