"""patchwitness' trusted bytecode for a pristine tree (issue 18, TreeBytecode.cpp).

    python -s -E -c <this file> TREE OUT

Compiles every ``*.py`` under TREE without running any of it, writing into OUT the
``__pycache__`` directories the runs' copies of TREE are seeded with:

- ``<dir>/__pycache__/<name>.<cache_tag>.pyc``: what the import system would write
  (timestamp-validated, like ``py_compile``), for every module;
- ``<dir>/__pycache__/<name>.<cache_tag>-pytest-<version>.pyc``: what pytest's assertion
  rewriting would write, for the files pytest rewrites -- ``conftest.py`` and the test
  files (``python_files``: the defaults and any pattern an ini file of the tree names).
  Left out when pytest cannot be imported, when an ini file turns on
  ``enable_assertion_pass_hook`` (the rewrite would depend on it), or when pytest's own
  reader does not accept what was written (a pytest whose private format changed).

A file that does not compile is skipped: the run then reports it as it always did.
Nothing of the tree is imported; only the standard library and pytest are. Python 3.8+.
Prints one line: ``<plain> <rewritten>``, the number of files of each kind written.
"""

import fnmatch
import importlib.util
import os
import py_compile
import re
import sys

_INI_NAMES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_DEFAULT_PATTERNS = ["test_*.py", "*_test.py"]


def ini_settings(tree):
    """(python_files patterns, assertion pass hook mentioned) over every ini file."""
    patterns = list(_DEFAULT_PATTERNS)
    pass_hook = False
    for dirpath, dirnames, filenames in os.walk(tree):
        for name in filenames:
            if name not in _INI_NAMES:
                continue
            try:
                with open(os.path.join(dirpath, name), "rb") as handle:
                    text = handle.read().decode("utf-8", "replace")
            except OSError:
                continue
            if "enable_assertion_pass_hook" in text:
                pass_hook = True
            # Rewriting a file pytest would not rewrite only costs time, missing one only
            # costs the run its compile: a loose reading is enough.
            for match in re.finditer(r"python_files\s*=\s*(.*)", text):
                patterns.extend(re.findall(r"[\w*?.\[\]-]+\.py\b", match.group(1)))
    return patterns, pass_hook


def rewriter():
    """pytest's rewrite-and-write pair, or None."""
    try:
        from pathlib import Path
        from _pytest.assertion import rewrite
        tail = rewrite.PYC_TAIL
        rewrite_test = rewrite._rewrite_test
        write_fp = rewrite._write_pyc_fp
        read_pyc = rewrite._read_pyc
    except Exception:
        return None

    def write(source, pyc):
        try:
            stat, code = rewrite_test(Path(source), None)
        except Exception:
            return False
        temporary = pyc + ".tmp"
        with open(temporary, "wb") as handle:
            write_fp(handle, stat, code)
        # pytest's own reader must take it, or the format is not what this pytest expects.
        if read_pyc(Path(source), Path(temporary)) is None:
            os.unlink(temporary)
            return False
        os.replace(temporary, pyc)
        return True

    return tail, write


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: pw_bytecode.py TREE OUT\n")
        return 2
    tree, out = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    tag = sys.implementation.cache_tag
    if not tag:
        print("0 0")
        return 0
    patterns, pass_hook = ini_settings(tree)
    rewrite = None if pass_hook else rewriter()
    plain = rewritten = 0
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        rel = os.path.relpath(dirpath, tree)
        cache = os.path.join(out, rel, "__pycache__") if rel != "." else \
            os.path.join(out, "__pycache__")
        for name in sorted(filenames):
            source = os.path.join(dirpath, name)
            if not name.endswith(".py") or os.path.islink(source):
                continue
            os.makedirs(cache, exist_ok=True)
            stem = name[:-3]
            try:
                py_compile.compile(source, cfile=os.path.join(cache, "%s.%s.pyc" % (stem, tag)),
                                   doraise=True,
                                   invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
                plain += 1
            except (py_compile.PyCompileError, SyntaxError, ValueError, OSError):
                continue
            if rewrite is not None and (name == "conftest.py" or any(
                    fnmatch.fnmatch(name, p) for p in patterns)):
                tail, write = rewrite
                if write(source, os.path.join(cache, stem + tail)):
                    rewritten += 1
    print("%d %d" % (plain, rewritten))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
