#!/usr/bin/env python3
"""patchwitness on real projects, as a new user would try it.

Two well-known public projects are downloaded from PyPI as source distributions (pinned;
nothing of them is kept in this repository): click (a CLI toolkit: src/ layout, flit) and
attrs (a class-definition library: src/ layout, hatchling with hatch-vcs). Each becomes a
git repository with a base commit and an agent-style head commit, and gets what most
developers have: a `.venv` in the checkout with the project's test dependencies and the
project itself installed editable (`pip install -e .`) — pointing at the checkout, which is
at head. Then `census`, `attribute`, `cells` and `shadow` run with their defaults (no
--python: the `.venv` is chosen; the sandbox is on) and every answer is checked: the
interpreter is named, each tree tests its own code (the base's tests pass at base although
the editable install points at head), the verdicts are the ones a careful reviewer gives.

  real_projects.py --cli build/qt6/src/cli/patchwitness-cli [--work DIR] [--keep]

Downloads go to $PATCHWITNESS_TEST_VENVS/acceptance (default
~/.cache/patchwitness-test-venvs): pip's cache makes a second run fast. When PyPI cannot
be reached the run fails with pip's output: a missing registry is a failure, never a skip.
Exit 0 when every check holds, 1 with the failed checks listed. Python 3.8+, stdlib only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

BASE_PYTHON = "/usr/bin/python3"
TEST_DEPS = ["pytest==8.4.2", "pluggy==1.6.0", "iniconfig==2.1.0", "packaging==25.0",
             "Pygments==2.19.2"]

# What each project's head commit does, as an agent's patch would.
CLICK_PATCH = {
    # A behaviour change that breaks one parametrized case.
    "src/click/utils.py": (
        '    """Returns a condensed version of help string."""\n',
        '    """Returns a condensed version of help string."""\n'
        '    if help.startswith("token"):\n        return help.upper()\n'),
    # A test deleted outright.
    "tests/test_utils.py": ("def test_echo_custom_file():", "def _was_test_echo_custom_file():"),
}
ATTRS_PATCH = {
    # A shortcut that makes has(object) true.
    "src/attr/_funcs.py": ('    attrs = getattr(cls, "__attrs_attrs__", None)\n',
                           '    if cls is object:\n        return True\n'
                           '    attrs = getattr(cls, "__attrs_attrs__", None)\n'),
    # A new test beside it.
    "tests/test_funcs.py": ("\nclass TestAsDict:", "\ndef test_pw_new():\n    assert True\n\n\nclass TestAsDict:"),
}

PROJECTS = [
    {
        "name": "click",
        "sdist": "click==8.3.1",
        "deps": TEST_DEPS,
        "patch": CLICK_PATCH,
        "tag": None,
        "failing": "tests/test_utils.py::test_make_default_short_help[-ignore dot in word]",
        "removed": "tests/test_utils.py::test_echo_custom_file",
        "package": "click",
    },
    {
        "name": "attrs",
        "sdist": "attrs==25.3.0",
        "deps": TEST_DEPS + ["hypothesis==6.140.3", "attrs==25.3.0", "sortedcontainers==2.4.0"],
        "patch": ATTRS_PATCH,
        "tag": "25.3.0",
        "failing": "tests/test_funcs.py::TestHas::test_negative",
        "removed": None,
        "package": "attr",
    },
]


class Checks:
    def __init__(self):
        self.failed = []
        self.passed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("  ok   " + what)
        else:
            self.failed.append(what + (": " + detail if detail else ""))
            print("  FAIL " + what + (("\n       " + detail.replace("\n", "\n       ")) if detail else ""))


def run(cmd, cwd=None, env=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise SystemExit("real_projects: %s failed (exit %d):\n%s%s" % (
            " ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-4000:]))
    return p


def git(repo, *args):
    return run(["git", "-c", "user.name=Agent", "-c", "user.email=agent@example.com"] + list(args),
               cwd=repo)


def fetch_sdist(spec, cache):
    dest = os.path.join(cache, "sdists")
    os.makedirs(dest, exist_ok=True)
    name, version = spec.split("==")
    for f in os.listdir(dest):
        if f.startswith(name + "-" + version) and f.endswith(".tar.gz"):
            return os.path.join(dest, f)
    # The project's own sdist only: `--no-binary :all:` would also build every build
    # backend (hatchling, hatch-vcs, setuptools_scm, ...) from source to read its metadata.
    run([BASE_PYTHON, "-m", "pip", "download", "--no-deps", "--no-binary", name, "-d", dest, spec])
    return fetch_sdist(spec, cache)


def make_repo(project, work, cache):
    sdist = fetch_sdist(project["sdist"], cache)
    repo = os.path.join(work, project["name"])
    with tarfile.open(sdist) as t:
        top = t.getnames()[0].split("/")[0]
        t.extractall(work)
    os.rename(os.path.join(work, top), repo)
    os.remove(os.path.join(repo, "PKG-INFO"))
    git(repo, "init", "-q", "-b", "main")
    with open(os.path.join(repo, ".git", "info", "exclude"), "a") as f:
        f.write(".venv/\n.patchwitness/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base: " + project["sdist"])
    git(repo, "tag", "v-base")
    if project["tag"]:
        git(repo, "tag", project["tag"])
    for path, (old, new) in project["patch"].items():
        file = os.path.join(repo, path)
        text = open(file, encoding="utf-8").read()
        if old not in text:
            raise SystemExit("real_projects: %s: the patch's anchor %r is gone" % (path, old))
        open(file, "w", encoding="utf-8").write(text.replace(old, new, 1))
    git(repo, "commit", "-qam", "head: an agent's patch")
    return repo


def make_venv(project, repo, cache):
    venv = os.path.join(repo, ".venv")
    env = dict(os.environ, PIP_CACHE_DIR=os.path.join(cache, "pip-cache"),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    run([BASE_PYTHON, "-m", "venv", venv])
    pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q"]
    run(pip + project["deps"], env=env)
    run(pip + ["-e", "."], cwd=repo, env=env)  # the reviewer's checkout, at head
    return os.path.join(venv, "bin", "python")


def cli(args, command, repo, *extra):
    started = time.monotonic()
    p = subprocess.run([args.cli, command] + list(extra) +
                       ["--repo", repo, "--base", "v-base", "--head", "HEAD", "--format", "json"],
                       capture_output=True, text=True, cwd=repo)
    seconds = time.monotonic() - started
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = None
    return p.returncode, doc, p.stderr, seconds


def try_project(project, args, checks, timings):
    print("%s (%s)" % (project["name"], project["sdist"]))
    repo = make_repo(project, args.work, args.cache)
    venv = make_venv(project, repo, args.cache)
    interpreter = "interpreter %s" % venv

    code, census, err, seconds = cli(args, "census", repo)
    timings.append((project["name"] + " census", seconds))
    checks.check(census is not None and not census.get("harness_error"),
                 "census runs with defaults", (census or {}).get("harness_error") or err[-1500:])
    if census is None:
        return
    checks.check(interpreter in err and "the repository's .venv" in err,
                 "census names the interpreter it chose (the repository's .venv)", err[:600])
    checks.check((census.get("interpreter") or {}).get("pytest") == "8.4.2",
                 "the census report names pytest's version", json.dumps(census.get("interpreter")))
    trees = census.get("trees") or {}
    for arm in ("base", "head"):
        tree = trees.get(arm) or {}
        checks.check(tree.get("imports", "").startswith(project["package"]) and " from src/" in tree.get("imports", ""),
                     "%s tree imports %s from its own src/" % (arm, project["package"]),
                     json.dumps(tree))
        checks.check(any("editable install" in o for o in tree.get("overridden", [])),
                     "%s tree says the editable install was overridden" % arm, json.dumps(tree))
    checks.check(census.get("sandboxed") is True, "census ran in the sandbox")
    for arm in ("base", "head"):
        summary = census["summary"][arm]
        checks.check(summary.get("executed_measured"), "%s suite ran as evidence" % arm,
                     json.dumps(census.get("warnings")))
    codes = {f["code"] for f in census.get("findings", [])}
    if project["removed"]:
        checks.check(any(f["code"] == "C-REMOVED" and f.get("test") == project["removed"]
                         for f in census["findings"]),
                     "the deleted test is C-REMOVED", json.dumps(sorted(codes)))
    else:
        checks.check(census.get("verdict") == "PASS",
                     "the census passes a patch that removes, skips and narrows nothing",
                     json.dumps(census.get("findings"))[:1500])

    if project["failing"]:
        code, attr, err, seconds = cli(args, "attribute", repo, project["failing"])
        timings.append((project["name"] + " attribute", seconds))
        verdict = (attr or {}).get("verdict")
        checks.check(verdict == "PATCH_INDUCED",
                     "attribute blames the patch for the test it broke", "%s %s" % (verdict, err[-800:]))
        checks.check(interpreter in err, "attribute names the interpreter", err[:400])
        code, cells, err, seconds = cli(args, "cells", repo, project["failing"], "--arm", "base")
        timings.append((project["name"] + " cells --arm base", seconds))
        solo = next((c for c in (cells or {}).get("cells", []) if c.get("name") == "solo"), {})
        checks.check(solo.get("status") == "pass",
                     "cells --arm base: the base's test passes at base (the editable install "
                     "points at head)", json.dumps(solo) + err[-800:])
    code, shadow, err, seconds = cli(args, "shadow", repo)
    timings.append((project["name"] + " shadow", seconds))
    checks.check(shadow is not None and not shadow.get("harness_error"),
                 "shadow runs with defaults", (shadow or {}).get("harness_error") or err[-1500:])
    if shadow is not None:
        checks.check((shadow.get("interpreter") or {}).get("path") == venv,
                     "the shadow report names the interpreter", json.dumps(shadow.get("interpreter")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", default=None)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--only", default=None, help="one project by name")
    args = parser.parse_args()
    args.cli = os.path.abspath(args.cli)
    args.cache = os.path.join(os.environ.get("PATCHWITNESS_TEST_VENVS") or
                              os.path.expanduser("~/.cache/patchwitness-test-venvs"), "acceptance")
    os.makedirs(args.cache, exist_ok=True)
    made = args.work is None
    args.work = args.work or tempfile.mkdtemp(prefix="patchwitness-real-")
    checks, timings = Checks(), []
    try:
        for project in PROJECTS:
            if args.only in (None, project["name"]):
                try_project(project, args, checks, timings)
    finally:
        if made and not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)
    for what, seconds in timings:
        print("  %-28s %6.1f s" % (what, seconds))
    print("%d check(s) passed, %d failed" % (checks.passed, len(checks.failed)))
    for f in checks.failed:
        print("FAILED: " + f.splitlines()[0])
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
