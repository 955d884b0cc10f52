"""patchwitness' bundled pytest plugin (SPEC 5.1), loaded with ``-p pw_plugin``.

patchwitness stages this module into a private directory and puts only that directory
on PYTHONPATH, so the project under test needs no conftest or entry point (plugin
autoloading is off in the pinned environment). Python 3.8+, stdlib and pytest only.

Options:
  --pw-seed N        0 (default) keeps pytest's own order; N > 0 shuffles the collected
                     items with random.Random(N), so a seed gives the same order on any
                     machine. Every test starts with random.seed(N): once before its
                     setup (fixtures) and again right before its body.
  --pw-out PATH      JSONL outcome rows, one per test phase:
                     {"run", "arm", "nodeid", "when", "outcome", "duration", "seed"}
                     (plus "xfail": true for an expected failure). Appended with one
                     write(2) per line on an O_APPEND descriptor, so a run killed midway
                     leaves only complete lines.
  --pw-order PATH    run-order log: each node id on its own line as the test starts.
  --pw-collect PATH  census dump (JSON) written when collection finishes; use with
                     --collect-only. Node ids in collection order (before the shuffle),
                     count, sha256 of the sorted ids (each followed by a newline; "digest"
                     is its first 16 hex), and per node whether a skip/skipif marker skips
                     it at collection time and its marker names.
  --pw-arm A         "base" or "head", copied into rows; --pw-run ID likewise.

Fixture ``witness_seed``: the run's seed.

Hypothesis: its pytest plugin is only present when named with -p (autoload is off). When
it is registered and the user did not pass --hypothesis-seed, the seed is put into that
option before the Hypothesis plugin reads it (tryfirst pytest_configure), which sets
Hypothesis' global seed. Without the plugin, Hypothesis is left alone.
"""

import hashlib
import json
import os
import random

import pytest

_STATE_KEY = "_pw_state"
_current = None  # the state of the configured session: logstart/logreport get no config


def pytest_addoption(parser):
    group = parser.getgroup("patchwitness")
    group.addoption("--pw-seed", type=int, default=0, help="shuffle/random seed (0: pytest order)")
    group.addoption("--pw-out", default=None, help="JSONL outcome rows")
    group.addoption("--pw-order", default=None, help="run-order log")
    group.addoption("--pw-collect", default=None, help="collect-only census dump (JSON)")
    group.addoption("--pw-arm", default=None, help="base or head")
    group.addoption("--pw-run", default=None, help="run id copied into rows")


class _State:
    def __init__(self, config):
        opt = config.option
        self.seed = opt.pw_seed
        self.arm = opt.pw_arm
        self.run = opt.pw_run
        self.collect_path = opt.pw_collect
        self.out_fd = _open_append(opt.pw_out)
        self.order_fd = _open_append(opt.pw_order)
        self.collected = []  # items in collection order, before the shuffle

    def close(self):
        for fd in (self.out_fd, self.order_fd):
            if fd is not None:
                os.close(fd)
        self.out_fd = self.order_fd = None


def _open_append(path):
    if not path:
        return None
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)


def _write_line(fd, text):
    if fd is not None:
        os.write(fd, (text + "\n").encode("utf-8"))


def _state(config):
    return getattr(config, _STATE_KEY)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    global _current
    state = _State(config)
    setattr(config, _STATE_KEY, state)
    _current = state
    if hasattr(config.option, "hypothesis_seed") and config.option.hypothesis_seed is None:
        config.option.hypothesis_seed = str(state.seed)


def pytest_unconfigure(config):
    global _current
    state = getattr(config, _STATE_KEY, None)
    if state is not None:
        state.close()
    if _current is state:
        _current = None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    state = _state(config)
    state.collected = list(items)
    if state.seed > 0:
        shuffled = list(items)
        random.Random(state.seed).shuffle(shuffled)
        items[:] = shuffled


def _skipped_at_collection(item):
    try:
        from _pytest.skipping import evaluate_skip_marks
    except ImportError:  # pragma: no cover - pytest < 6
        return any(m.name == "skip" for m in item.iter_markers())
    try:
        return evaluate_skip_marks(item) is not None
    except Exception:  # a broken condition fails at setup, not here
        return False


def pytest_collection_finish(session):
    state = _state(session.config)
    if not state.collect_path:
        return
    items = state.collected if state.collected else list(session.items)
    ids = [item.nodeid for item in items]
    sha = hashlib.sha256("".join(i + "\n" for i in sorted(ids)).encode("utf-8")).hexdigest()
    nodes = [
        {
            "nodeid": item.nodeid,
            "skipped": _skipped_at_collection(item),
            "markers": sorted({m.name for m in item.iter_markers()}),
        }
        for item in items
    ]
    dump = {
        "schema": "patchwitness.census/1",
        "run": state.run,
        "arm": state.arm,
        "count": len(ids),
        "sha256": sha,
        "digest": sha[:16],
        "nodes": nodes,
    }
    tmp = state.collect_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(dump, f, indent=1)
    os.replace(tmp, state.collect_path)


def pytest_runtest_logstart(nodeid, location):
    if _current is not None:
        _write_line(_current.order_fd, nodeid)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    random.seed(_state(item.config).seed)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    random.seed(_state(item.config).seed)


def pytest_runtest_logreport(report):
    state = _current
    if state is None or state.out_fd is None:
        return
    row = {
        "run": state.run,
        "arm": state.arm,
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": round(report.duration, 6),
        "seed": state.seed,
    }
    if hasattr(report, "wasxfail"):
        row["xfail"] = True
    _write_line(state.out_fd, json.dumps(row))


@pytest.fixture
def witness_seed(request):
    """The run's --pw-seed."""
    return _state(request.config).seed
