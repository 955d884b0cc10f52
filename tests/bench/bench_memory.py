#!/usr/bin/env python3
"""Memory of the fact extractor and of an audit on one large generated test file.

    bench_memory.py --python PY --extractor pw_facts.py [--cli patchwitness-cli] [--mib 4]
                    [--one-class]

Prints the peak RSS of each process (os.wait4's ru_maxrss), side by side with the
reference, a bare `ast.parse` of the same file by the same interpreter:
  reference     PY -c "ast.parse(...)"
  whole         the extractor with pieces turned off (one ast.parse of the file)
  pieces        the extractor as shipped (files over 256 KiB in pieces)
  audit cold    patchwitness-cli audit of a commit adding the file, empty fact cache
  audit warm    the same audit again (facts from the cache)
The file is classes of 50 tests with a class pytestmark each; with --one-class it is one
class of all the tests (no pytestmark), which the extractor splits member by member.
Each row is the median of --repeat runs. A benchmark, never a test: it prints, it does not
judge. Standard library only.
"""

import argparse
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def generate(mib, one_class=False):
    out = ["import pytest", "from math import isclose", ""]
    size, i = 0, 0
    while size < mib * 1024 * 1024 - 2000:
        if one_class and i == 0:
            chunk = "class TestAll:\n"
            out.append(chunk)
            size += len(chunk)
        elif i % 50 == 0 and not one_class:
            chunk = "class TestGroup%d:\n    pytestmark = pytest.mark.slow\n" % i
            out.append(chunk)
            size += len(chunk)
        chunk = ("    @pytest.mark.parametrize('x', [1, 2, 3])\n"
                 "    def test_case_%d(self, x, tmp_path):\n"
                 "        value = compute(%d) + x\n"
                 "        assert value == %d + x\n"
                 "        assert isclose(value, %d.5, abs_tol=0.5)\n"
                 "        with pytest.raises(KeyError):\n"
                 "            {}['k']\n\n") % (i, i, i, i)
        out.append(chunk)
        size += len(chunk)
        i += 1
    return "\n".join(out).encode("utf-8"), i


def peak(argv, stdin=None, env=None, cwd=None):
    """(peak RSS in MB, wall seconds) of one child."""
    start = time.monotonic()
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f, \
            tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdin=f, stdout=subprocess.DEVNULL, stderr=err,
                                env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        code = status >> 8 if os.WIFEXITED(status) else -1
        if code not in (0, 1, 2):  # audit verdicts are 0..2
            err.seek(0)
            raise SystemExit("bench_memory: %s failed (%d): %s" % (
                argv[0], code, err.read()[-2000:].decode("utf-8", "replace")))
    return usage.ru_maxrss / 1024.0, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--extractor", required=True)
    parser.add_argument("--cli")
    parser.add_argument("--mib", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one-class", action="store_true")
    args = parser.parse_args()
    args.extractor = os.path.abspath(args.extractor)
    if args.cli:
        args.cli = os.path.abspath(args.cli)

    data, tests = generate(args.mib, args.one_class)
    work = tempfile.mkdtemp(prefix="pw-bench-memory-")
    big = os.path.join(work, "test_big.py")
    with open(big, "wb") as f:
        f.write(data)
    request = os.path.join(work, "request.json")
    with open(request, "w") as f:
        json.dump({"files": [{"id": "1", "path": "tests/test_big.py",
                              "b64": base64.b64encode(data).decode("ascii")}]}, f)

    rows = []

    def measure(label, argv, stdin=None, env=None, cwd=None, before=None):
        runs = []
        for _ in range(args.repeat):
            if before:
                before()
            runs.append(peak(argv, stdin, env, cwd))
        rows.append((label, statistics.median(r[0] for r in runs),
                     statistics.median(r[1] for r in runs)))

    measure("reference: ast.parse", [args.python, "-c",
            "import ast,sys; ast.parse(open(sys.argv[1],'rb').read())", big])
    whole = dict(os.environ, PW_FACTS_PIECE_BYTES=str(1 << 40))
    measure("extractor, whole file", [args.python, "-I", args.extractor], request, whole)
    shipped = dict(os.environ)
    shipped.pop("PW_FACTS_PIECE_BYTES", None)
    measure("extractor, pieces", [args.python, "-I", args.extractor], request, shipped)

    if args.cli:
        repo = os.path.join(work, "repo")
        os.makedirs(os.path.join(repo, "tests"))
        os.makedirs(os.path.join(repo, ".patchwitness"))
        git = ["git", "-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
        subprocess.check_call(git[:3] + ["init", "-q"])
        with open(os.path.join(repo, "tests", "test_ok.py"), "w") as f:
            f.write("def test_ok():\n    assert 1 == 1\n")
        with open(os.path.join(repo, ".patchwitness", "config.toml"), "w") as f:
            f.write("test_file_max_bytes = %d\n" % (len(data) * 2))
        subprocess.check_call(git + ["add", "-A"])
        subprocess.check_call(git + ["commit", "-qm", "base"])
        with open(os.path.join(repo, "tests", "test_big.py"), "wb") as f:
            f.write(data)
        subprocess.check_call(git + ["add", "-A"])
        subprocess.check_call(git + ["commit", "-qm", "head"])
        cache = os.path.join(work, "cache")
        env = dict(shipped, XDG_CACHE_HOME=cache)
        audit = [args.cli, "audit", "--base", "HEAD~1", "--head", "HEAD", "--python", args.python]

        def empty_cache():
            subprocess.call(["rm", "-rf", cache])
        measure("audit, cold", audit, env=env, cwd=repo, before=empty_cache)
        measure("audit, warm", audit, env=env, cwd=repo)

    reference = rows[0][1]
    print("bench_memory: %.1f MiB test file, %d test functions, %s, median of %d" %
          (len(data) / 1048576.0, tests, args.python, args.repeat))
    print("%-24s %10s %12s %10s %8s" % ("", "peak MB", "KB per test", "vs ref", "s"))
    for label, mb, seconds in rows:
        print("%-24s %10.0f %12.1f %9.2fx %8.1f" %
              (label, mb, mb * 1024.0 / tests, mb / reference, seconds))
    subprocess.call(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
