"""The plugin's core: options, the per-session state and its JSONL rows, the
seeded shuffle and random.seed per test (and the other shufflers they must win against),
the census dump, the run-order log, the `witness_seed` fixture."""

import json
import os
import random
import re
import sys

import pytest

_STATE_KEY = "_pw_state"
# "ModuleNotFoundError: No module named 'x'", "pytest.PytestRemovedIn10Warning: …".
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(: |$)")
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
        self.shuffled = None  # node ids in the order the shuffle left them (seed > 0)
        self.randomly = None  # pytest-randomly's module, when it is loaded (tamed)
        self.shuffler_notes = []  # (plugin, detail) said at session start

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
    # Cells already run (node-major, then seed, then replay) by a server that stopped
    # because a replay wrote into its tree: this one goes on from there.
    skip = int(plan.get("skip", 0))
    if not nodeids or not seeds or replays < 1 or skip < 0:
        raise pytest.UsageError("--pw-replays %s: needs nodeids, seeds, replays >= 1 and "
                                "skip >= 0" % path)
    return nodeids, seeds, replays, skip


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
    for plugin in config.pluginmanager.get_plugins():
        _meet_shuffler(config, state, plugin)


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
        state.shuffled = [item.nodeid for item in items]
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
        # The exception pytest reports is its first "E   Name: message" line (those after it
        # continue the message, e.g. a deprecation's "See https://…"; a SyntaxError's lines
        # before it show the source); else the last line.
        raised = [line[1:].strip() for line in lines
                  if line.startswith("E ") and _EXCEPTION_LINE.match(line[1:].strip())]
        message = raised[0] if raised else (lines[-1] if lines else "collection failure")
        _current.collect_errors.append((report.nodeid, message))


def pytest_collection_finish(session):
    state = _state(session.config)
    _check_order(session, state)
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
    when = report.when
    if report.failed and _timed_out is not None and _timed_out[:2] == (report.nodeid, report.when):
        outcome = "harness_error"  # the per-test timer stopped it: never a failure
        extra["detail"] = _timed_out[2]
    subtest = _subtest(report)
    if subtest is not None:
        extra["subtest"] = subtest
        if not report.failed:
            when = "subtest"  # not a phase: the test's own call row says how it went
    state.row(report.nodeid, when, outcome, **extra)


def _subtest(report):
    """The description of a subtest's report (pytest 9's `subtests` fixture and unittest's
    subTest, the pytest-subtests plugin before it), None for a test's own."""
    context = getattr(report, "context", None)
    if context is None or not hasattr(context, "kwargs"):
        return None
    parts = []
    if getattr(context, "msg", None) is not None:
        parts.append("[%s]" % context.msg)
    if context.kwargs:
        parts.append("(%s)" % ", ".join("%s=%s" % item for item in context.kwargs.items()))
    return " ".join(parts) or "(<subtest>)"


@pytest.fixture
def witness_seed(request):
    """The run's --pw-seed (in a replay: the replay's seed)."""
    return _state(request.config).seed


# --- other shufflers ------------------------------------------------------------------
#
# With plugin autoloading off, a plugin that reorders or reseeds is loaded only when the
# project names it (config `plugins`, or a conftest's pytest_plugins). The order that runs
# must be --pw-seed's, and random.seed(N) what each test sees:
# * pytest-randomly (module pytest_randomly; `-p randomly` by its entry point) reorders the
#   items in a tryfirst wrapper of pytest_collection_modifyitems -- before our shuffle,
#   which would then shuffle its order -- with a seed of its own (a new one every run), and
#   reseeds random (and numpy, Faker, factory_boy, model_bakery, its entry points' seeders)
#   before each test's setup, call and teardown, after our random.seed. Beside it the run
#   gets what its own options --randomly-seed=N --randomly-dont-reorganize
#   --randomly-dont-reset-seed would give: it reorders nothing, reseeds between tests
#   nothing, and its one reseed of all it seeds, at session start, follows --pw-seed (as do
#   its Faker seed fixture and, in the fork server, each replay's). Said in a row
#   {"when": "shuffler", "outcome": "overridden", "plugin": "pytest-randomly", "detail"}
#   and a line on the terminal.
# * pytest-random-order (module random_order.plugin) shuffles when asked to
#   (--random-order, --random-order-bucket, --random-order-seed), with a seed of its own.
#   Asked, the run refuses: a row with outcome "refused", then a usage error (exit 4)
#   naming it and what to do. Loaded and not asked, it reorders nothing -- from 1.2 on;
#   before 1.2 (Debian 12 has 1.1.0) it fails without the cacheprovider our runs turn off,
#   and is refused the same way.
# * Any other plugin that reorders the items after our shuffle (N > 0): the order
#   collection ends with is not the shuffle's, and the run refuses the same way, naming
#   the hook implementations that run after ours.

_RANDOMLY = "pytest_randomly"
_RANDOM_ORDER = "random_order.plugin"
_ITSELF = " -- patchwitness shuffles and seeds with --pw-seed itself"


def _refuse(config, state, plugin, detail):
    state.row("", "shuffler", "refused", plugin=plugin, detail=detail)
    raise pytest.UsageError("patchwitness: " + detail)


def _meet_shuffler(config, state, plugin):
    """Tames or refuses `plugin` when it is a shuffler we know. At configure: a plugin
    loads before then, from config `plugins` (-p) or the top conftest's pytest_plugins
    (pytest refuses pytest_plugins anywhere else)."""
    name = getattr(plugin, "__name__", None)
    if name == _RANDOMLY and state.randomly is None:
        _tame_randomly(config, state, plugin)
    elif name == _RANDOM_ORDER:
        _refuse_random_order(config, state)


def _tame_randomly(config, state, module):
    option = config.option
    if not all(hasattr(option, o) for o in ("randomly_seed", "randomly_reorganize",
                                            "randomly_reset_seed")):
        _refuse(config, state, "pytest-randomly",
                "pytest-randomly without --randomly-seed, --randomly-dont-reorganize and "
                "--randomly-dont-reset-seed would reorder and reseed the tests: take "
                "pytest_randomly out of config `plugins` for patchwitness' runs" + _ITSELF)
    state.randomly = module
    option.randomly_seed = state.seed
    option.randomly_reorganize = False
    option.randomly_reset_seed = False
    # An xdist worker's pytest-randomly reads the controller's seed from workerinput, which
    # its controller side fills only when it finds pytest-xdist by its entry-point name
    # ("xdist"; `-p xdist.plugin` registers it as "xdist.plugin").
    workerinput = getattr(config, "workerinput", None)
    if isinstance(workerinput, dict):
        workerinput.setdefault("randomly_seed", state.seed)
    detail = ("pytest-randomly's reordering and reseeding between tests are off, its seed is "
              "--pw-seed %d (as --randomly-seed=%d --randomly-dont-reorganize "
              "--randomly-dont-reset-seed): the order and random.seed are patchwitness'"
              % (state.seed, state.seed))
    state.shuffler_notes.append(("pytest-randomly", detail))


def _refuse_random_order(config, state):
    if not config.pluginmanager.has_plugin("cacheprovider") and _version_below(
            "pytest-random-order", (1, 2)):
        # Before 1.2 its collection hook reads the cacheprovider's --failed-first option,
        # and fails (INTERNALERROR) without it, shuffling or not.
        _refuse(config, state, "pytest-random-order",
                "pytest-random-order before 1.2 cannot run without pytest's cacheprovider, "
                "which patchwitness' runs turn off (-p no:cacheprovider): take "
                "random_order.plugin out of config `plugins`, or install 1.2 or later" +
                _ITSELF)
    try:
        from random_order.config import Config

        shuffles = Config(config).bucket_type != "none"
    except Exception:  # another version: assume it shuffles once asked
        shuffles = any(getattr(config.option, o, None) not in (None, False) and
                       not str(getattr(config.option, o)).startswith("default:")
                       for o in ("random_order_enabled", "random_order_bucket",
                                 "random_order_seed"))
    if shuffles:
        _refuse(config, state, "pytest-random-order",
                "pytest-random-order is asked to shuffle the tests (--random-order, "
                "--random-order-bucket or --random-order-seed) by a seed of its own, so "
                "--pw-seed's order would not be the one that runs: drop those options from "
                "addopts, or take random_order.plugin out of config `plugins`" + _ITSELF)


def _version_below(distribution, version):
    try:
        from importlib import metadata

        found = metadata.version(distribution)
    except Exception:  # no metadata: not known to be old
        return False
    parts = []
    for part in found.split(".")[:len(version)]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts) < version


def sessionstart(config):  # called from the package's pytest_sessionstart (__init__.py)
    # Said once, by the process the user sees (not an xdist worker).
    state = _state(config)
    if xdist_worker():
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    for plugin, detail in state.shuffler_notes:
        state.row("", "shuffler", "overridden", plugin=plugin, detail=detail)
        if reporter is not None:
            reporter.write_line("patchwitness: " + detail)


def reseed_randomly(state, session, seed):
    """In a fork-server replay: pytest-randomly's session-start reseed at the replay's seed,
    as a fresh `--pw-seed seed` run would have had it."""
    if state.randomly is None:
        return
    session.config.option.randomly_seed = seed
    start = getattr(state.randomly, "pytest_sessionstart", None)
    if start is not None:
        start(session)


def _check_order(session, state):
    if state.shuffled is None:
        return
    final = [item.nodeid for item in session.items]
    kept = set(final)
    if final == [nodeid for nodeid in state.shuffled if nodeid in kept]:
        return  # deselecting after the shuffle is fine, reordering is not
    manager = session.config.pluginmanager
    later = sorted({impl.plugin_name for impl in
                    manager.hook.pytest_collection_modifyitems.get_hookimpls()
                    if (impl.trylast or impl.hookwrapper or getattr(impl, "wrapper", False))
                    and impl.plugin not in (sys.modules[__package__], state.randomly) and
                    not getattr(impl.plugin, "__name__", "").startswith("_pytest.")})
    culprits = ", ".join(later) or "a plugin"
    _refuse(session.config, state, culprits,
            "the tests were reordered after the --pw-seed %d shuffle (by a "
            "pytest_collection_modifyitems of: %s), so its order would not be the one that "
            "runs: keep that hook from reordering in patchwitness' runs, or take its plugin "
            "out of config `plugins`%s" % (state.seed, culprits, _ITSELF))
