"""The fork server's write watch (resources/python/pw_plugin/treewatch.py), both ways it
can look: inotify, and the stat comparison used where inotify cannot be had. Every kind
of write a replay can leave is seen and named; reading, listing and stat-ing are not.

Run: python3 check_treewatch.py (exit 0 when every case holds)."""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "resources", "python", "pw_plugin"))

import treewatch  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def rewrite_keeping_mtime(path):
    st = os.stat(path)
    with open(path, "r+") as f:
        f.write("X")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


CASES = [
    # (what the replay does, the label the watch must name; None: no change)
    ("reads a file", lambda t, h: open(os.path.join(t, "pkg", "mod.py")).read(), None),
    ("lists and stats", lambda t, h: [os.listdir(t), os.stat(os.path.join(t, "pkg"))], None),
    ("writes next to a module", lambda t, h: write(os.path.join(t, "pkg", "new.txt"), "1"),
     "pkg/new.txt"),
    ("rewrites a module with its mtime put back",
     lambda t, h: rewrite_keeping_mtime(os.path.join(t, "pkg", "mod.py")), "pkg/mod.py"),
    ("removes a file", lambda t, h: os.remove(os.path.join(t, "data.txt")), "data.txt"),
    ("renames a file", lambda t, h: os.rename(os.path.join(t, "pkg", "mod.py"),
                                              os.path.join(t, "pkg", "moved.py")),
     "pkg/mod.py"),
    ("makes a directory", lambda t, h: os.mkdir(os.path.join(t, "pkg", "sub")), "pkg/sub"),
    ("chmods a file", lambda t, h: os.chmod(os.path.join(t, "data.txt"), 0o600), "data.txt"),
    ("writes into a deep directory",
     lambda t, h: write(os.path.join(t, "pkg", "deep", "er", "x"), "1"), "pkg/deep/er/x"),
    ("writes a cache in HOME", lambda t, h: write(os.path.join(h, ".cache", "c"), "1"),
     "HOME/.cache"),
]


def fresh(root):
    tree, home = os.path.join(root, "tree"), os.path.join(root, "home")
    write(os.path.join(tree, "pkg", "mod.py"), "x = 1\n")
    write(os.path.join(tree, "pkg", "deep", "er", "keep"), "")
    write(os.path.join(tree, "data.txt"), "data\n")
    os.makedirs(home)
    return tree, home


def check(kind):
    failures = []
    for what, act, expected in CASES:
        with tempfile.TemporaryDirectory() as root:
            tree, home = fresh(root)
            watch = treewatch.Watch([("", tree), ("HOME", home)])
            if kind == "stat":
                watch._impl.close()
                watch._impl = treewatch._Snapshot(watch._roots)
            elif watch.kind != "inotify":
                failures.append("inotify was not available here")
                return failures
            try:
                if watch.changed() is not None:
                    failures.append("%s: a change before anything was done" % what)
                act(tree, home)
                seen = watch.changed()
                if expected is None and seen is not None:
                    failures.append("%s: seen as a change (%s)" % (what, seen))
                elif expected is not None and (seen is None or not seen.startswith(expected)):
                    failures.append("%s: expected %r, got %r" % (what, expected, seen))
                if watch.changed() is not None:
                    failures.append("%s: the same change reported twice" % what)
            finally:
                watch.close()
    return failures


def main():
    failures = ["inotify: " + f for f in check("inotify")]
    failures += ["stat: " + f for f in check("stat")]
    for failure in failures:
        print("FAIL", failure)
    print("%d cases x 2 ways, %d failures" % (len(CASES), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
