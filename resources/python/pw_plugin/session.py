"""The plugin's core (SPEC 5.1): options, the per-session state and its JSONL rows, the
seeded shuffle and random.seed per test, the census dump, the run-order log, the
`witness_seed` fixture."""

import json
import os
import random

import pytest

_STATE_KEY = "_pw_state"
_current = None  # the state of the configured session: logstart/logreport get no config
# (nodeid, phase, message) of the phase the per-test timer stopped (cells.py sets it),
# for pytest_runtest_logreport.
_timed_out = None


def pytest_addoption(parser):
    group = parser.getgroup("patchwitness")
    group.addoption("--pw-seed", type=int, default=0, help="shuffle/random seed (0: pytest order)")
    group.addoption("--pw-out", default=None, help="JSONL outcome rows")
    group.addoption("--pw-order", default=None, help="run-order log")
    group.addoption("--pw-collect", default=None, help="collect-only census dump (JSON)")
    group.addoption("--pw-arm", default=None, help="base or head")
    group.addoption("--pw-run", default=None, help="run id copied into rows")
    group.addoption("--pw-probe", action="store_true", default=False, help="state probe: leak rows")
    group.addoption("--pw-watch", default="", help="modules the state probe watches (a,b)")
    group.addoption("--pw-budget", type=int, default=0, help="trial budget (0: no cap)")
    group.addoption("--pw-replays", default=None, help="fork server: JSON replay plan")
    group.addoption("--pw-replay-timeout", type=float, default=0.0, help="seconds per replay")
    group.addoption("--pw-replay-nofork", action="store_true", default=False,
                    help="replays in this process (diagnostics)")
    # The seams' options (cells.py, witness.py, cover.py): declared here, so a seam's
    # module is imported and its hooks registered only when its option is given.
    group.addoption("--pw-freeze-time", default=None,
                    help="freeze the clock at this ISO 8601 instant in every test (freezegun or "
                         "time_machine)")
    group.addoption("--pw-test-timeout", type=float, default=0.0,
                    help="seconds per test, setup to teardown (0: none)")
    group.addoption("--pw-witness", default=None, help="skip witnesses: JSONL row per test")
    group.addoption("--pw-precompile", action="store_true", default=False,
                    help="import every module of the plugin, so pytest caches their bytecode")
    group.addoption("--pw-cover", default=None,
                    help="measure with coverage.py; write executed lines per file (JSON) to this "
                         "path")


class _State:
    def __init__(self, config):
        opt = config.option
        self.seed = opt.pw_seed
        self.outer = None  # the session this one interrupted (configure)
        # pytest-xdist's controller hears of every test from the worker that ran it, which
        # writes its rows and order lines itself: set at session start (__init__.py).
        self.relayed = False
        self.replay = None  # the replay index while a replay runs
        self.arm = opt.pw_arm
        self.run = opt.pw_run
        self.collect_path = opt.pw_collect
        self.out_fd = _open_append(opt.pw_out)
        self.order_fd = _open_append(opt.pw_order)
        self.collected = []  # items in collection order, before the shuffle
        self.collect_errors = []  # (nodeid, message) of collectors that failed
        self.probe = opt.pw_probe
        self.watch = [m.strip() for m in (opt.pw_watch or "").split(",") if m.strip()]
        self.budget = max(0, opt.pw_budget or 0)
        self.plan = _read_plan(opt.pw_replays) if opt.pw_replays else None
        self.replay_timeout = max(0.0, opt.pw_replay_timeout or 0.0)
        self.nofork = opt.pw_replay_nofork
        self.hypothesis_seeded = False  # we set --hypothesis-seed (the user did not)
        self.trial_failed = False  # a report of the current replay child failed
        self.trial_timed_out = False  # ... because the per-test timer stopped it

    def close(self):
        for fd in (self.out_fd, self.order_fd):
            if fd is not None:
                os.close(fd)
        self.out_fd = self.order_fd = None

    def row(self, nodeid, when, outcome, **extra):
        row = {
            "run": self.run,
            "arm": self.arm,
            "nodeid": nodeid,
            "when": when,
            "outcome": outcome,
        }
        row.update(extra)
        row["seed"] = self.seed
        if self.replay is not None:
            row["replay"] = self.replay
        _write_line(self.out_fd, json.dumps(row))


def _read_plan(path):
    if path.lstrip().startswith("{"):  # the plan itself, as a copyable command gives it
        plan = json.loads(path)
        path = "(inline plan)"
    else:
        with open(path, encoding="utf-8") as f:
            plan = json.load(f)
    nodeids = [str(n) for n in plan.get("nodeids", [])]
    seeds = [int(s) for s in plan.get("seeds", [])]
    replays = int(plan.get("replays", 1))
    if not nodeids or not seeds or replays < 1:
        raise pytest.UsageError("--pw-replays %s: needs nodeids, seeds and replays >= 1" % path)
    return nodeids, seeds, replays


def _open_append(path):
    if not path:
        return None
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)


def _write_line(fd, text):
    if fd is not None:
        os.write(fd, (text + "\n").encode("utf-8"))


def xdist_worker():
    # Set by pytest-xdist in a worker before it parses its arguments.
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def _state(config):
    return getattr(config, _STATE_KEY)


def configure(config):  # called from the package's tryfirst pytest_configure (__init__.py)
    global _current
    state = _State(config)
    # A pytest run in-process inside a test (pytester) configures its own session, which
    # has its turn and then gives the outer one back at its unconfigure.
    state.outer = _current
    setattr(config, _STATE_KEY, state)
    _current = state
    if hasattr(config.option, "hypothesis_seed") and config.option.hypothesis_seed is None:
        config.option.hypothesis_seed = str(state.seed)
        state.hypothesis_seeded = True


def unconfigure(config):  # called from the package's pytest_unconfigure (__init__.py)
    global _current
    state = getattr(config, _STATE_KEY, None)
    if state is not None:
        state.close()
    if state is not None and _current is state:
        _current = state.outer


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    state = _state(config)
    state.collected = list(items)
    if state.seed > 0:
        shuffled = list(items)
        random.Random(state.seed).shuffle(shuffled)
        items[:] = shuffled
    # The budget of a replay plan counts replays (the run loop applies it); a census
    # lists everything.
    if state.budget and state.plan is None and not config.option.collectonly:
        if len(items) > state.budget:
            rest = items[state.budget:]
            items[:] = items[: state.budget]
            config.hook.pytest_deselected(items=rest)
            state.row(rest[0].nodeid, "budget", "budget_exhausted", budget=state.budget,
                      not_run=len(rest))


def _skipped_at_collection(item):
    try:
        from _pytest.skipping import evaluate_skip_marks
    except ImportError:  # pragma: no cover - pytest < 6
        return any(m.name == "skip" for m in item.iter_markers())
    try:
        return evaluate_skip_marks(item) is not None
    except Exception:  # a broken condition fails at setup, not here
        return False


def pytest_collectreport(report):
    if _current is not None and report.failed:
        text = str(report.longrepr) if report.longrepr is not None else ""
        lines = [line for line in text.splitlines() if line.strip()]
        # The exception pytest reports is its first "E   " line (the ones after it are the
        # message's continuation, e.g. a deprecation's "See https://…"); else the last line.
        raised = [line[1:].strip() for line in lines if line.startswith("E ")]
        message = raised[0] if raised else (lines[-1] if lines else "collection failure")
        _current.collect_errors.append((report.nodeid, message))


def pytest_collection_finish(session):
    state = _state(session.config)
    if not state.collect_path:
        return
    import hashlib  # here: loading OpenSSL costs every other run ~8 ms

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
        # Files (or other collectors) that failed to collect, with pytest's last line.
        "errors": [{"nodeid": n, "message": m} for n, m in state.collect_errors],
    }
    tmp = state.collect_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(dump, f, indent=1)
    os.replace(tmp, state.collect_path)


def pytest_runtest_logstart(nodeid, location):
    if _current is not None and not _current.relayed:
        _write_line(_current.order_fd, nodeid)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    random.seed(_state(item.config).seed)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    random.seed(_state(item.config).seed)


def pytest_runtest_logreport(report):
    state = _current
    if state is None or state.relayed:
        return
    if report.failed:
        state.trial_failed = True
        if _timed_out is not None and _timed_out[:2] == (report.nodeid, report.when):
            state.trial_timed_out = True
    if state.out_fd is None:
        return
    extra = {"duration": round(report.duration, 6)}
    if hasattr(report, "wasxfail"):
        extra["xfail"] = True
    outcome = report.outcome
    if report.failed and _timed_out is not None and _timed_out[:2] == (report.nodeid, report.when):
        outcome = "harness_error"  # the per-test timer stopped it: never a failure
        extra["detail"] = _timed_out[2]
    state.row(report.nodeid, report.when, outcome, **extra)


@pytest.fixture
def witness_seed(request):
    """The run's --pw-seed (in a replay: the replay's seed)."""
    return _state(request.config).seed
