#!/usr/bin/env python3
"""The pytest lines the plugin and the gates are tested on, as cached virtual environments.

  debian   the distribution's pytest: the base interpreter itself (Debian 12: pytest 7.2)
  pytest8  a venv of the base interpreter with pytest 8.x and the plugins beside it (PINS)
  newest   the same with the newest pytest release
  bare     a venv with nothing installed (this script's own tests: locking, reuse, rebuild)

  pytest_lines.py path LINE      print LINE's interpreter, building its venv when needed
  pytest_lines.py ensure LINE... build the lines' venvs (in parallel), one line each
  pytest_lines.py pins LINE      print LINE's pins

A venv lives in $PATCHWITNESS_TEST_VENVS (default ~/.cache/patchwitness-test-venvs; never
XDG_CACHE_HOME, which CI points at a fresh directory every run) under <line>-<key>, the
key hashing the pins, the base interpreter's real path and version and this layout's
version: new pins make a new venv, the old one is left for `rm -rf`. A cached venv is used
only after it answers for itself (its prefix, and every pinned distribution at its pinned
version); one that does not is rebuilt. Building holds an exclusive flock on
<line>-<key>.lock, so test executables started together wait for one build; the venv is
made in a temporary sibling directory and renamed into place, so nobody sees half of it.
pip downloads from its configured index (PyPI) into <root>/pip-cache unless PIP_CACHE_DIR
says otherwise. When pip cannot install, the build fails with pip's own output and exit
status 1: a missing registry is a failure, never a skip.
Python 3.8+, stdlib only.
"""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time

LAYOUT = 1  # bump when the way a venv is built changes

# Everything either venv installs, pinned (the direct pins and what they pull in), so a
# line is the same venv on every machine. pytest-randomly and pytest-random-order are the
# shufflers the plugin must win against or refuse.
_BESIDE = [
    "pytest-xdist==3.8.0", "execnet==2.1.2",
    "hypothesis==6.170.17", "sortedcontainers==2.4.0",
    "pytest-randomly==5.1.0", "pytest-random-order==1.2.0",
    "coverage==7.17.5",
    "freezegun==1.5.5", "python-dateutil==4.0.0", "tzdata==2026.6",
]
_PYTEST_STACK = ["pluggy==1.7.0", "iniconfig==2.3.1", "packaging==26.4", "Pygments==2.21.0"]
# pytest8 carries the pytest-random-order release before 1.2 (Debian 12 ships 1.1.0: it
# breaks any run without the cacheprovider, so the plugin refuses it), newest the current one.
_OLD_RANDOM_ORDER = [p if not p.startswith("pytest-random-order==") else "pytest-random-order==1.1.0"
                     for p in _BESIDE]
PINS = {
    "pytest8": ["pytest==8.4.2"] + _PYTEST_STACK + _OLD_RANDOM_ORDER,
    "newest": ["pytest==9.2.0"] + _PYTEST_STACK + _BESIDE,
    "bare": [],
}
LINES = ["debian"] + list(PINS)
PIP_TIMEOUT = 600  # seconds for one pip install


class BuildError(Exception):
    pass


def root():
    configured = os.environ.get("PATCHWITNESS_TEST_VENVS")
    if configured:
        return os.path.abspath(configured)
    return os.path.join(os.path.expanduser("~"), ".cache", "patchwitness-test-venvs")


def base_python():
    return os.environ.get("PATCHWITNESS_TEST_BASE_PYTHON") or sys.executable


def _child_env():
    # Nothing of the caller's Python setup reaches the base interpreter or pip.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV",
                        "PIP_REQUIRE_VIRTUALENV", "PIP_USER", "PYTHONUSERBASE")}
    env.setdefault("PIP_CACHE_DIR", os.path.join(root(), "pip-cache"))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def _run(args, timeout=120):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=_child_env(), timeout=timeout)


def key(line):
    base = base_python()
    probe = _run([base, "-c", "import sys; print(sys.version)"])
    if probe.returncode != 0:
        raise BuildError("base interpreter %s does not run:\n%s" % (base, probe.stdout))
    text = json.dumps({"layout": LAYOUT, "base": os.path.realpath(base),
                       "version": probe.stdout.strip(), "pins": sorted(PINS[line])},
                      sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_VERIFY = r"""
import json, os, sys
from importlib import metadata
pins, prefix = json.loads(sys.argv[1]), sys.argv[2]
if prefix and os.path.realpath(sys.prefix) != os.path.realpath(prefix):
    sys.exit("sys.prefix is %s, not %s" % (sys.prefix, prefix))
for pin in pins:
    name, version = pin.split("==")
    try:
        found = metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit("%s is not installed" % name)
    if found != version:
        sys.exit("%s is %s, not %s" % (name, found, version))
if pins:
    import pytest  # the pinned pytest imports, not just its metadata
"""


def _problem(venv, line, prefix):
    """Why the venv at `venv` cannot serve `line`, or None when it can."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        return "no %s" % python
    try:
        check = _run([python, "-c", _VERIFY, json.dumps(PINS[line]), prefix], timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "%s: %s" % (python, e)
    return None if check.returncode == 0 else check.stdout.strip() or "exit %d" % check.returncode


def _remove(path):
    shutil.rmtree(path, ignore_errors=True)


def _build(line, final, log):
    parent, name = os.path.split(final)
    tmp = os.path.join(parent, ".%s.tmp-%d" % (name, os.getpid()))
    for entry in os.listdir(parent):  # what a killed build left (we hold the lock)
        if entry.startswith("." + name + ".tmp-") or entry.startswith("." + name + ".old-"):
            _remove(os.path.join(parent, entry))
    started = time.monotonic()
    args = [base_python(), "-m", "venv"] + ([] if PINS[line] else ["--without-pip"]) + [tmp]
    made = _run(args)
    if made.returncode != 0:
        _remove(tmp)
        raise BuildError("%s failed (exit %d):\n%s" % (" ".join(args), made.returncode,
                                                       made.stdout))
    if PINS[line]:
        pip = [os.path.join(tmp, "bin", "python"), "-m", "pip", "install", "--no-input",
               "--progress-bar", "off", "--timeout", "30", "--retries", "2"] + PINS[line]
        try:
            installed = _run(pip, timeout=PIP_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            _remove(tmp)
            raise BuildError("pip install timed out after %d s:\n%s" % (PIP_TIMEOUT, e.output))
        if installed.returncode != 0:
            _remove(tmp)
            raise BuildError(
                "pip install %s failed (exit %d) -- the %s line needs the package registry "
                "(PyPI, or the index PIP_INDEX_URL / PIP_FIND_LINKS name):\n%s"
                % (" ".join(PINS[line]), installed.returncode, line, installed.stdout))
    problem = _problem(tmp, line, "")
    if problem:
        _remove(tmp)
        raise BuildError("the new venv does not answer for the pins: " + problem)
    if os.path.lexists(final):  # a cached venv that failed its check
        old = os.path.join(parent, ".%s.old-%d" % (name, os.getpid()))
        os.rename(final, old)
        _remove(old)
    os.rename(tmp, final)
    problem = _problem(final, line, final)
    if problem:
        raise BuildError("the venv does not work where it was moved: " + problem)
    log("%s: built %s in %.1f s" % (line, final, time.monotonic() - started))


def ensure(line, log=lambda text: None):
    """LINE's interpreter, its venv built first when there is none that works."""
    if line not in LINES:
        raise BuildError("unknown line %r (one of %s)" % (line, ", ".join(LINES)))
    if line == "debian":
        return base_python()
    directory = root()
    final = os.path.join(directory, "%s-%s" % (line, key(line)))
    python = os.path.join(final, "bin", "python")
    if _problem(final, line, final) is None:  # a venv is never changed in place
        return python
    os.makedirs(directory, exist_ok=True)
    with open(final + ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("%s: waiting for another process building %s" % (line, final))
            fcntl.flock(lock, fcntl.LOCK_EX)
        problem = _problem(final, line, final)  # built meanwhile, or still broken?
        if problem is not None:
            if os.path.lexists(final):
                log("%s: rebuilding %s: %s" % (line, final, problem))
            _build(line, final, log)
    return python


def _say(text):
    sys.stderr.write("pytest_lines: %s\n" % text)
    sys.stderr.flush()


def main(argv):
    if len(argv) >= 2 and argv[0] == "path" and len(argv) == 2:
        try:
            print(ensure(argv[1], _say))
        except BuildError as e:
            _say("cannot provide %s: %s" % (argv[1], e))
            return 1
        return 0
    if len(argv) >= 2 and argv[0] == "pins":
        print("\n".join(PINS.get(argv[1], [])))
        return 0 if argv[1] in LINES else 1
    if len(argv) >= 2 and argv[0] == "ensure":
        results = {}

        def one(line):
            started = time.monotonic()
            try:
                results[line] = (ensure(line, _say), None, time.monotonic() - started)
            except Exception as e:  # BuildError, OSError: reported below, never a skip
                results[line] = (None, e, time.monotonic() - started)

        threads = [threading.Thread(target=one, args=(line,)) for line in argv[1:]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        failed = 0
        for line in argv[1:]:
            python, error, seconds = results[line]
            if error is not None:
                failed += 1
                _say("cannot provide %s: %s" % (line, error))
            else:
                print("%s: %s (%.1f s)" % (line, python, seconds))
        return 1 if failed else 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
