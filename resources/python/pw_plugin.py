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
  --pw-probe         state probe: before and after each test (setup, call and teardown
                     as one unit) snapshot os.environ, the temp dir's entries (pytest's
                     own pytest-of-* left out), sys.modules and the --pw-watch modules;
                     each kind that differs is a row {"when": "leak", "outcome": "leak",
                     "kind": "env|tmp|modules|watched", "detail": ...}. Modules of the
                     standard library and of pytest's own stack do not count (pytest
                     imports some lazily); PYTEST_CURRENT_TEST does not either.
  --pw-watch M1,M2   modules the probe watches: the module object's id and a summary of
                     its globals (names, types, lengths of containers, small scalars), so
                     a list a test appends to is seen.
  --pw-budget N      trial budget (SPEC 5.7): at most N tests (or N replays) run; the rest
                     are deselected and one row {"when": "budget", "outcome":
                     "budget_exhausted", "nodeid": <first not run>} says the run was capped.
  --pw-replays PLAN  fork server (SPEC 5.1 isolated replays): PLAN is a JSON file (or,
                     starting with "{", the JSON itself)
                     {"nodeids": [...], "seeds": [...], "replays": K}. Collection happens
                     once; then, instead of pytest's run loop, every (node, seed, replay)
                     runs in a child forked for it, seeded as a fresh `--pw-seed seed` run
                     would be, so no replay sees state another left. Rows carry "replay".
                     A child that dies (signal, exit, or --pw-replay-timeout) before the
                     test protocol returned gets a row {"when": "replay", "outcome":
                     "harness_error", "detail": ...}. A node the plan names but collection
                     did not produce gets {"when": "collect", "outcome": "not_collected"}.
                     Grandchildren a test starts stay in the run's process group, which
                     the caller kills when the run ends.
  --pw-replay-timeout S  seconds per replay child (0: none); the child is SIGKILLed.
  --pw-replay-nofork     run the plan's replays one after another in this process
                     (diagnostics: shows what the fork isolates; no timeout).
  --pw-witness PATH  skip witnesses (SPEC 5.10): one JSONL row per test -- the project
                     files it touched, its fixtures and their source fingerprints, the
                     ambient fingerprint, and whether it is complete (no subprocess or
                     network use); see the "skip witnesses" section below.
  --pw-test-timeout S  seconds per test, setup to teardown (0: none); an expired test
                     fails with "patchwitness: per-test timeout", which the harness reads
                     as harness_error (see the per-test timeout section).

Fixture ``witness_seed``: the run's seed.

Hypothesis: its pytest plugin is only present when named with -p (autoload is off). When
it is registered and the user did not pass --hypothesis-seed, the seed is put into that
option before the Hypothesis plugin reads it (tryfirst pytest_configure), which sets
Hypothesis' global seed. Without the plugin, Hypothesis is left alone.
"""

import gc
import json
import os
import random
import select
import signal
import sys
import tempfile
import time

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
    group.addoption("--pw-probe", action="store_true", default=False, help="state probe: leak rows")
    group.addoption("--pw-watch", default="", help="modules the state probe watches (a,b)")
    group.addoption("--pw-budget", type=int, default=0, help="trial budget (0: no cap)")
    group.addoption("--pw-replays", default=None, help="fork server: JSON replay plan")
    group.addoption("--pw-replay-timeout", type=float, default=0.0, help="seconds per replay")
    group.addoption("--pw-replay-nofork", action="store_true", default=False,
                    help="replays in this process (diagnostics)")


class _State:
    def __init__(self, config):
        opt = config.option
        self.seed = opt.pw_seed
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
        state.hypothesis_seeded = True


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
        message = lines[-1] if lines else "collection failure"
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
    if state is None:
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


# --- state probe ----------------------------------------------------------------------

# Set by pytest itself while a test runs; a leftover would be pytest's bug, not the test's.
_ENV_IGNORED = frozenset({"PYTEST_CURRENT_TEST"})

# New modules of these top-level packages are not a test's leak: pytest imports some of
# the standard library lazily (tmp_path imports getpass on first use), and a standard
# module holds no state a neighbour could trip on the way a project module does.
_PYTEST_STACK = frozenset({
    "_pytest", "pytest", "pluggy", "py", "iniconfig", "packaging", "exceptiongroup",
    "tomli", "pygments", "colorama", "_hypothesis_pytestplugin", "hypothesis",
})


def _stdlib_names():
    names = getattr(sys, "stdlib_module_names", None)  # Python 3.10+
    if names is not None:
        return frozenset(names)
    import sysconfig

    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    found = set(sys.builtin_module_names)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and os.path.realpath(path).startswith(stdlib) and "-packages" not in path:
            found.add(name.partition(".")[0])
    return frozenset(found)


_STDLIB = None


def _project_modules(names):
    global _STDLIB
    if _STDLIB is None:
        _STDLIB = _stdlib_names()
    return {n for n in names
            if n.partition(".")[0] not in _STDLIB and n.partition(".")[0] not in _PYTEST_STACK}


def _summary(value):
    """What the probe remembers of a module global: enough to see it change."""
    kind = type(value).__name__
    if value is None or isinstance(value, (bool, int, float)):
        return kind + ":" + repr(value)
    if isinstance(value, (str, bytes)):
        return kind + ":" + (repr(value) if len(value) <= 64 else "len=%d" % len(value))
    if isinstance(value, (list, dict, set, frozenset, tuple, bytearray)):
        return kind + ":len=%d" % len(value)
    return kind + ":id=%x" % id(value)


def _watched(name):
    module = sys.modules.get(name)
    if module is None:
        return None
    try:
        names = dict(vars(module))
    except TypeError:
        names = {}
    return id(module), {k: _summary(v) for k, v in names.items() if not k.startswith("__")}


def _tmp_entries():
    try:
        return set(n for n in os.listdir(tempfile.gettempdir()) if not n.startswith("pytest-of-"))
    except OSError:
        return set()


def _snapshot(state):
    env = {k: v for k, v in os.environ.items() if k not in _ENV_IGNORED}
    return {
        "env": env,
        "tmp": _tmp_entries(),
        "modules": set(sys.modules),
        "watched": {name: _watched(name) for name in state.watch},
    }


def _names(label, names, limit=20):
    names = sorted(names)
    text = ", ".join(names[:limit]) + (", ..." if len(names) > limit else "")
    return "%s %s" % (label, text)


def _set_change(before, after):
    parts = []
    if after - before:
        parts.append(_names("added", after - before))
    if before - after:
        parts.append(_names("removed", before - after))
    return "; ".join(parts)


def _leaks(state, before, after):
    leaks = []
    env_b, env_a = before["env"], after["env"]
    if env_b != env_a:
        detail = _set_change(set(env_b), set(env_a))
        changed = [k for k in env_b if k in env_a and env_b[k] != env_a[k]]
        if changed:
            detail = "; ".join(p for p in (detail, _names("changed", changed)) if p)
        leaks.append(("env", detail))
    if before["tmp"] != after["tmp"]:
        leaks.append(("tmp", tempfile.gettempdir() + ": " + _set_change(before["tmp"], after["tmp"])))
    added = _project_modules(after["modules"] - before["modules"])
    removed = _project_modules(before["modules"] - after["modules"])
    if added or removed:
        leaks.append(("modules", "sys.modules %d -> %d: %s" % (
            len(before["modules"]), len(after["modules"]),
            _set_change(before["modules"] & after["modules"] | removed,
                        before["modules"] & after["modules"] | added))))
    for name in state.watch:
        b, a = before["watched"][name], after["watched"][name]
        if b == a:
            continue
        if b is None or a is None:
            detail = "%s: %s" % (name, "imported" if b is None else "removed from sys.modules")
        elif b[0] != a[0]:
            detail = "%s: replaced by another module object" % name
        else:
            gb, ga = b[1], a[1]
            changed = [k for k in gb if k in ga and gb[k] != ga[k]]
            parts = [p for p in (_set_change(set(gb), set(ga)),
                                 _names("changed", changed) if changed else "") if p]
            detail = "%s: %s" % (name, "; ".join(parts))
        leaks.append(("watched", detail))
    return leaks


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    state = _state(item.config)
    if not state.probe:
        yield
        return
    before = _snapshot(state)
    yield
    after = _snapshot(state)
    for kind, detail in _leaks(state, before, after):
        state.row(item.nodeid, "leak", "leak", kind=kind, detail=detail)


# --- fork server ----------------------------------------------------------------------


def _flush(config):
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        config.get_terminal_writer().flush()
    except Exception:
        pass


def _reseed(state, config, seed):
    """What a fresh `--pw-seed seed` interpreter would have: the seed everywhere we put it."""
    state.seed = seed
    random.seed(seed)
    if state.hypothesis_seeded:
        config.option.hypothesis_seed = str(seed)
        core = sys.modules.get("hypothesis.core")
        if core is not None:
            core.global_force_seed = seed
    state.trial_failed = state.trial_timed_out = False


def _verdict(state):
    """Of the replay that just ran: "h" stopped by the per-test timer, "f" failed, "p"."""
    return "h" if state.trial_timed_out else "f" if state.trial_failed else "p"


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # Python < 3.9, Linux < 5.3: poll instead
        return None


def _read_verdict(fd):
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 1).decode("ascii")
    except BlockingIOError:
        return ""


def _await_child(pid, verdict_fd, timeout):
    """Waits for a replay child's verdict byte, its end, or the timeout (0: none).

    Returns (verdict, status, timed_out): verdict "p"/"f" once the test protocol returned
    (status None: the child is still exiting); "" with the wait status when it ended
    without one. A grandchild holding the pipe cannot stall this: the child's own end
    is watched through a pidfd (or polled)."""
    deadline = time.monotonic() + timeout if timeout > 0 else None
    pidfd = _pidfd(pid)
    delay = 0.0005
    try:
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return "", None, True
            watched = [verdict_fd] if pidfd is None else [verdict_fd, pidfd]
            wait = left if pidfd is not None else min(delay, 0.02 if left is None else left)
            ready = select.select(watched, [], [], wait)[0]
            delay = min(delay * 2, 0.02)
            if verdict_fd in ready:
                verdict = os.read(verdict_fd, 1).decode("ascii")
                if verdict:
                    return verdict, None, False
                return "", os.waitpid(pid, 0)[1], False  # EOF: every writer is gone
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return _read_verdict(verdict_fd), status, False
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _run_child(item, state, seed, replay, verdict_fd):
    """In the forked child: never returns."""
    code = 0
    try:
        _reseed(state, item.config, seed)
        item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        _flush(item.config)
        os.write(verdict_fd, _verdict(state).encode("ascii"))
    except BaseException:  # an Exit, KeyboardInterrupt or internal error: no verdict
        import traceback

        traceback.print_exc()
        code = 3
    finally:
        _flush(item.config)
        os._exit(code)


def _fork_replay(session, item, state, seed, replay):
    """One replay in a child; returns its _verdict or None (harness error, row written)."""
    config = session.config
    _flush(config)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _run_child(item, state, seed, replay, write_fd)
    os.close(write_fd)
    try:
        verdict, status, timed_out = _await_child(pid, read_fd, state.replay_timeout)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    finally:
        os.close(read_fd)
    if verdict:
        # The protocol returned and every row is written; how the exit goes is no
        # concern of the replay's. Reaped before the next fork: an exit overlapping the
        # next child's start measured slower, not faster, on a loaded 2-core VM.
        os.waitpid(pid, 0)
        return verdict
    if timed_out:
        detail = "timed out after %g s; killed" % state.replay_timeout
    elif os.WIFSIGNALED(status):
        detail = "killed by %s" % _signal_name(os.WTERMSIG(status))
    elif os.WIFEXITED(status) and os.WEXITSTATUS(status) != 0:
        detail = "exit status %d" % os.WEXITSTATUS(status)
    else:
        detail = "ended before the test protocol returned"
    _discard_capture(config)
    state.row(item.nodeid, "replay", "harness_error", detail=detail)
    return None


def _discard_capture(config):
    # A child killed while capturing leaves its output in the capture files this process
    # shares with the next child; read it away so it does not land in that child's report.
    capman = config.pluginmanager.getplugin("capturemanager")
    if capman is not None:
        try:
            capman.read_global_capture()
        except Exception:
            pass


def _matching(session, nodeid):
    for item in session.items:
        if item.nodeid == nodeid:
            return item
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    state = _state(session.config)
    if state.plan is None or session.config.option.collectonly:
        return None  # pytest's own loop (which also handles collection errors)
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        return None
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is not None:
        factory.getbasetemp()  # once here, so children do not each make (and leak) one
    items = {nodeid: _matching(session, nodeid) for nodeid in state.plan[0]}
    for item in items.values():
        if item is not None:
            item.location  # cached: computed once here, not again in every child
    # Garbage of the collection goes now, once; the children's collections then start
    # from live objects only (every page a child writes is a copy-on-write fault).
    gc.collect()
    junit = _junit_reporter(session.config)
    if junit is not None:
        # What a child records for JUnit dies with it (the replays' results are the JSONL
        # rows), and formatting it was a quarter of a replay's cost. Unhooked meanwhile;
        # fixtures that reach it through the config (record_xml_attribute) still do.
        session.config.pluginmanager.unregister(junit)
    try:
        return _replay_all(session, state, items)
    finally:
        if junit is not None:
            session.config.pluginmanager.register(junit)


def _junit_reporter(config):
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pytest < 7: leave it hooked
        return None
    junit = config.stash.get(xml_key, None)
    return junit if junit is not None and config.pluginmanager.is_registered(junit) else None


def _replay_all(session, state, items):
    nodeids, seeds, replays = state.plan
    trials = failed = harness = 0
    original_seed = state.seed
    for nodeid in nodeids:
        item = items[nodeid]
        if item is None:
            state.seed = original_seed
            state.row(nodeid, "collect", "not_collected")
            continue
        for seed in seeds:
            for replay in range(replays):
                if state.budget and trials >= state.budget:
                    state.seed, state.replay = seed, replay
                    state.row(nodeid, "budget", "budget_exhausted", budget=state.budget)
                    state.replay = None
                    return _finish(session, state, original_seed, trials, failed, harness)
                trials += 1
                state.replay = replay
                if state.nofork:
                    _reseed(state, session.config, seed)
                    item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
                    verdict = _verdict(state)
                else:
                    state.seed = seed  # for a harness_error row
                    verdict = _fork_replay(session, item, state, seed, replay)
                state.replay = None
                if verdict is None or verdict == "h":
                    harness += 1
                elif verdict == "f":
                    failed += 1
    return _finish(session, state, original_seed, trials, failed, harness)


def _finish(session, state, seed, trials, failed, harness):
    state.seed = seed
    session.testsfailed += failed
    reporter = session.config.pluginmanager.getplugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("patchwitness replays: %d run, %d failed, %d harness errors"
                            % (trials, failed, harness))
    return True


# --- frozen clock (SPEC 5.4 `clock` cell) ----------------------------------------------
#
# --pw-freeze-time ISO: every test (setup, call and teardown) runs with the clock frozen at
# that instant, through freezegun or else time_machine -- whichever the project can import
# (autoload is off, so neither is active unless we start it). The local zone stays the
# run's TZ: freezegun is given TZ's offset at that instant, time_machine follows TZ by
# itself. With neither importable the run stops with a usage error (exit 4) after writing
# a row {"when": "clock", "outcome": "unsupported", "detail": ...}: a cell that cannot
# freeze the clock is `unknown`, never a pass. A separate plugin object, registered from
# pytest_addhooks, keeps these hooks apart from the module's own.


class _PwClock:
    def __init__(self):
        self.freezer = None  # () -> context manager, when the option is set

    def pytest_addoption(self, parser):
        parser.getgroup("patchwitness").addoption(
            "--pw-freeze-time", default=None,
            help="freeze the clock at this ISO 8601 instant in every test (freezegun or "
                 "time_machine)")

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config):
        text = config.getoption("pw_freeze_time", None)
        if not text:
            return
        import datetime

        try:
            instant = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise pytest.UsageError("--pw-freeze-time %r: not an ISO 8601 instant" % text)
        if instant.tzinfo is None:
            instant = instant.replace(tzinfo=datetime.timezone.utc)
        try:
            import freezegun

            # freezegun ignores TZ for now()/today(): give it the zone's offset at that
            # instant. (Its aware now(tz) then comes out shifted by that offset too -- a
            # freezegun quirk; naive local time is what clock-dependent code mostly reads.)
            offset = instant.astimezone().utcoffset() or datetime.timedelta(0)
            self.freezer = lambda: freezegun.freeze_time(instant, tz_offset=offset)
            return
        except ImportError:
            pass
        try:
            import time_machine

            self.freezer = lambda: time_machine.travel(instant, tick=False)
            return
        except ImportError:
            pass
        detail = "neither freezegun nor time_machine is importable: no clock seam to freeze"
        state = getattr(config, _STATE_KEY, None)
        if state is not None:
            state.row("", "clock", "unsupported", detail=detail)
        raise pytest.UsageError("--pw-freeze-time: " + detail)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if self.freezer is None:
            yield
            return
        with self.freezer():
            yield


# --- per-test timeout (config timeouts.per_test) --------------------------------------
#
# --pw-test-timeout S: a test whose setup, call and teardown together take more than S
# seconds is stopped there and the run goes on: SIGALRM raises PwTestTimeout (a
# BaseException, so `except Exception` in the test cannot swallow it) inside the test. Its
# failure message carries TIMEOUT_MARK and its JSONL row says "harness_error" (detail: the
# message); the harness reads such a test as harness_error, because a timeout is never a
# failure (SPEC 5.1). The timer raises only inside one of the test's phases, where pytest
# turns the exception into that phase's report: when it expires in a reporting hook
# between phases (where an exception would be an INTERNALERROR that loses the run), the
# next phase of the test stops at once instead. Works in the main thread only, and the
# test's own SIGALRM handler is put back afterwards; a test stuck in C code that never
# returns to the interpreter is left to the per-run timeout, which kills the process group.

TIMEOUT_MARK = "patchwitness: per-test timeout"

# (nodeid, phase, message) of the phase the timer stopped, for pytest_runtest_logreport.
_timed_out = None


class PwTestTimeout(BaseException):
    pass


class _PwTestTimer:
    def __init__(self):
        self.seconds = 0.0
        self.nodeid = None  # of the test whose protocol runs
        self.phase = None  # "setup", "call" or "teardown" while one runs
        self.expired = False  # the timer fired between phases: the next phase stops

    def pytest_addoption(self, parser):
        parser.getgroup("patchwitness").addoption(
            "--pw-test-timeout", type=float, default=0.0,
            help="seconds per test, setup to teardown (0: none)")

    def pytest_configure(self, config):
        import threading

        seconds = config.getoption("pw_test_timeout", 0.0) or 0.0
        if seconds < 0:
            raise pytest.UsageError("--pw-test-timeout %g: must be 0 or more" % seconds)
        usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        self.seconds = seconds if usable else 0.0

    def _stop(self):
        global _timed_out
        message = "%s of %g s (config timeouts.per_test) expired" % (TIMEOUT_MARK, self.seconds)
        _timed_out = (self.nodeid, self.phase, message)
        self.expired = False
        raise PwTestTimeout(message)

    def _expire(self, signum, frame):
        if self.phase is not None:
            self._stop()
        self.expired = True

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        global _timed_out
        if self.seconds <= 0:
            yield
            return
        self.nodeid, self.expired, _timed_out = item.nodeid, False, None
        previous = signal.signal(signal.SIGALRM, self._expire)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            self.nodeid, self.phase, self.expired = None, None, False

    def _in_phase(self, when):
        # Outermost wrapper of the phase hook: everything from here to the end of the
        # phase runs inside pytest's CallInfo, which makes a raise the phase's report.
        if self.nodeid is None:
            yield
            return
        self.phase = when
        try:
            if self.expired:
                self._stop()
            yield
        finally:
            self.phase = None

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item):
        yield from self._in_phase("setup")

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item):
        yield from self._in_phase("call")

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item, nextitem):
        yield from self._in_phase("teardown")


# --- diff coverage (SPEC §10 diff-coverage attribution) -------------------------------
#
# --pw-cover PATH: measure the run with coverage.py and write PATH as JSON
#   {"files": {"rel/path.py": [lines]}, "imported": {"rel/path.py": [lines]}}
# paths relative to the rootdir, only files below it (coverage's `source`), the project's
# own coverage config ignored (config_file=False), the data file in PATH's directory.
# "files" are the lines executed during a test's phases (setup, call, teardown);
# "imported" the lines executed only outside them -- module-level code run while pytest
# imported conftest and test modules (a `def` header, a constant). Measuring starts before
# the initial conftests are imported, so no import-time line of the project is missed; the
# two sets are told apart with coverage's dynamic contexts. Without an importable coverage
# (or when it cannot start) PATH is {"unavailable": "<reason>"} and the run goes on.
# When PATH.changed.json exists (a JSON array of .py paths relative to the measured
# directory: the patch's changed Python files, written by DiffCoverage), the report also has
#   "statements": {"rel/path.py": [[first, line, ...], ...]}
# per listed file that exists and coverage can analyse (executed or not): its executable
# statements (coverage's analysis2, so excluded lines are not among them), each as its
# first line followed by its other lines that hold code (the tracer may report any of them
# as executed); a blank or comment-only line, a docstring that is no statement, belongs to
# none. A listed file that is missing or not parsable Python has no entry.


class _PwCover:
    TEST_CONTEXT = "pw-test"

    def __init__(self):
        self.cov = None
        self.path = None
        self.root = None

    def pytest_addoption(self, parser):
        parser.getgroup("patchwitness").addoption(
            "--pw-cover", default=None,
            help="measure with coverage.py; write executed lines per file (JSON) to this path")

    def _write(self, payload):
        with open(self.path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(payload, f, sort_keys=True)
        os.replace(self.path + ".tmp", self.path)

    def _start(self, path, root):
        if self.path is not None or not path:
            return
        self.path = os.path.abspath(path)
        self.root = os.path.realpath(str(root))
        try:
            import coverage

            self.cov = coverage.Coverage(
                data_file=os.path.join(os.path.dirname(self.path), ".pw-coverage"),
                config_file=False, source=[self.root])
            self.cov.start()
        except Exception as e:  # ImportError, or a coverage that cannot start here
            self.cov = None
            self._write({"unavailable": "coverage: %s: %s" % (type(e).__name__, e)})

    # Measured below the invocation directory (the tree: PytestRun starts pytest there, and
    # the diff's paths are relative to it), not pytest's rootpath: an ini file below the
    # tree (tests/pytest.ini) moves rootpath, and pytest < 6.1 has none. Read only when set.
    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config, parser, args):
        path = getattr(early_config.known_args_namespace, "pw_cover", None)
        if path:
            self._start(path, early_config.invocation_params.dir)

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config):
        path = config.getoption("pw_cover", None)
        if path:
            self._start(path, config.invocation_params.dir)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if self.cov is None:
            yield
            return
        self.cov.switch_context(self.TEST_CONTEXT)
        try:
            yield
        finally:
            self.cov.switch_context("pw-between")

    def pytest_unconfigure(self, config):
        if self.cov is None:
            return
        cov, self.cov = self.cov, None
        cov.stop()
        data = cov.get_data()
        files, imported = {}, {}
        for measured in sorted(data.measured_files()):
            real = os.path.realpath(measured)
            if not real.startswith(self.root + os.sep):
                continue
            rel = os.path.relpath(real, self.root).replace(os.sep, "/")
            # Line 0: coverage's mark for a module without statements (an empty __init__).
            contexts = {n: c for n, c in data.contexts_by_lineno(measured).items() if n > 0}
            in_test = sorted(n for n, c in contexts.items() if self.TEST_CONTEXT in c)
            only_import = sorted(n for n, c in contexts.items() if self.TEST_CONTEXT not in c)
            if in_test:
                files[rel] = in_test
            if only_import:
                imported[rel] = only_import
        payload = {"files": files, "imported": imported}
        statements = self._statements(cov)
        if statements is not None:
            payload["statements"] = statements
        self._write(payload)

    def _statements(self, cov):
        try:
            with open(self.path + ".changed.json", encoding="utf-8") as f:
                changed = json.load(f)
        except (OSError, ValueError):
            return None
        out = {}
        for rel in changed if isinstance(changed, list) else []:
            path = os.path.join(self.root, str(rel))
            if not os.path.isfile(path):
                continue
            try:
                out[str(rel)] = _statement_lines(cov, path)
            except Exception:  # not Python coverage can parse: no statements, lines count as is
                pass
        return out


def _statement_lines(cov, path):
    """[[first, line, ...], ...]: `path`'s statements, each with its lines that hold code."""
    import io
    import tokenize
    from coverage.parser import PythonParser

    statements = set(cov.analysis2(path)[1])
    with open(path, "rb") as f:
        source = f.read().decode("utf-8", "replace")
    parser = PythonParser(text=source, filename=path)
    parser.parse_source()
    blank = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
             tokenize.ENDMARKER)
    code = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in blank:  # a multi-line string holds code on all its lines
            code.update(range(token.start[0], token.end[0] + 1))
    owned = {}
    for line in sorted(code):
        first = parser.first_line(line)  # coverage's own multi-line statement map
        if first in statements:
            owned.setdefault(first, []).append(line)
    return [[first] + [n for n in lines if n != first] for first, lines in sorted(owned.items())]


# --- skip witnesses (SPEC 5.10) --------------------------------------------------------
#
# --pw-witness PATH: one JSON line per test, appended like --pw-out rows:
#   {"nodeid", "files", "fixtures", "fixture_fps", "fixture_fp", "ambient_fp", "complete",
#    "escapes"}
# `files`: project files (relative to the invocation directory, inside it only) the test
# depends on: its test file, the conftest.py files on its path, every file whose Python
# code ran during its setup, call and teardown (a sys.setprofile hook, on only while this
# option is set; fixture setups are remembered per fixture, so a test reusing a module or
# session fixture set up by an earlier test still lists the fixture's files), and the
# project modules its test module imports or references (a module-level constant import
# counts). `fixtures`: the fixture closure; `fixture_fps`: per fixture, sha256 (16 hex) of
# its name and the source of the fixture function(s) serving it; `fixture_fp` over those;
# `ambient_fp` over TZ, LANG, LC_ALL, PYTHONHASHSEED and SOURCE_DATE_EPOCH. `complete` is
# false (and `escapes` names why) when the test ran code of, or its module references,
# a module that reaches outside the files (processes, the network): pytest imports some
# of them itself, so presence in sys.modules means nothing. With --collect-only the rows
# have no `files`, `complete` or `escapes`: what the head side of a patch needs.

import ast
import importlib.util
import inspect
import threading

_AMBIENT = ("TZ", "LANG", "LC_ALL", "PYTHONHASHSEED", "SOURCE_DATE_EPOCH")
# A name matches itself and its submodules.
_ESCAPES = ("subprocess", "socket", "ssl", "http", "urllib.request", "asyncio.subprocess",
            "multiprocessing", "requests", "httpx", "urllib3", "aiohttp")


def _escape_of(name):
    for escape in _ESCAPES:
        if name == escape or name.startswith(escape + "."):
            return escape
    return None


def _sha16(text):
    import hashlib  # here: loading OpenSSL costs every other run ~8 ms
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


_AUDIT = [None, False]  # [the recording _PwWitness or None, hook installed]


def _audit_open(event, args):
    """Files opened for reading during a test phase (an audit hook cannot be removed: it
    does nothing unless a witness is recording and a test phase is active)."""
    witness = _AUDIT[0]
    if event != "open" or witness is None:
        return
    seen = witness.seen
    if seen is None:
        return
    path, mode = args[0], args[1]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str) or path.endswith(".pyc"):
        return
    if mode is None:  # os.open: the flags say
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        if flags & (os.O_WRONLY | os.O_RDWR) == os.O_WRONLY:
            return
    elif "r" not in mode and "+" not in mode:
        return
    seen.add(os.path.abspath(path))


class _PwWitness:
    def __init__(self):
        self.fd = None
        self.root = None
        self.ambient = None
        self.seen = None  # co_filename of every code object called: the set being filled
        self.fixture_files = {}  # FixtureDef -> filenames its setups ran
        self.sources = {}  # fixture function -> fingerprint of its source
        self.module_refs = {}  # test module name -> (project files, escapes)
        self.escape_files = ({}, ())  # (file -> escape, (package dir, escape)...)
        self.escape_count = -1  # len(sys.modules) when escape_files was built

    def pytest_addoption(self, parser):
        parser.getgroup("patchwitness").addoption(
            "--pw-witness", default=None, help="skip witnesses: JSONL row per test")

    def pytest_configure(self, config):
        path = config.getoption("pw_witness", None)
        if not path:
            return
        self.fd = _open_append(path)
        self.root = os.path.realpath(str(config.invocation_params.dir))
        if not config.option.collectonly:
            _AUDIT[0] = self
            if not _AUDIT[1]:
                sys.addaudithook(_audit_open)
                _AUDIT[1] = True
        self.ambient = _sha16("".join("%s=%s\n" % (k, os.environ.get(k, "<unset>"))
                                      for k in _AMBIENT))

    def pytest_unconfigure(self, config):
        if _AUDIT[0] is self:
            _AUDIT[0] = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _profile(self, frame, event, arg):
        seen = self.seen  # None once the test is over (a thread it started may outlive it)
        if event == "call" and seen is not None:
            seen.add(frame.f_code.co_filename)

    def _relative(self, filename):
        if not filename or filename.startswith("<"):
            return None
        path = os.path.realpath(filename)
        if not path.startswith(self.root + os.sep):
            return None
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def _fixtures(self, item):
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs if info is not None else {}
        names = sorted(set(getattr(item, "fixturenames", ())))
        fps = {}
        for name in names:
            text = name
            for fixturedef in defs.get(name, ()):
                text += "\n" + self._source_fp(fixturedef.func)
            fps[name] = _sha16(text)
        overall = _sha16("".join("%s:%s\n" % (n, fps[n]) for n in names))
        return names, fps, overall, defs

    def _source_fp(self, func):
        key = getattr(func, "__code__", func)
        if key not in self.sources:
            try:
                text = inspect.getsource(func)
            except (OSError, TypeError):
                code = getattr(func, "__code__", None)
                text = code.co_code.hex() if code is not None else repr(func)
            self.sources[key] = _sha16(text)
        return self.sources[key]

    def _escapes(self):
        """Module files and package directories of the escape modules imported so far."""
        if self.escape_count != len(sys.modules):
            files, dirs = {}, []
            for name, module in list(sys.modules.items()):
                escape = _escape_of(name)
                filename = getattr(module, "__file__", None) if escape else None
                if not filename:
                    continue
                files[os.path.realpath(filename)] = escape
                if getattr(module, "__path__", None) is not None:
                    dirs.append((os.path.dirname(os.path.realpath(filename)) + os.sep, escape))
            self.escape_files = (files, tuple(dirs))
            self.escape_count = len(sys.modules)
        return self.escape_files

    def _module_refs(self, module):
        """Project files and escape modules the test module imports or references."""
        if module is None:
            return set(), set()
        cached = self.module_refs.get(module.__name__)
        if cached is not None:
            return cached
        names = set()
        try:
            tree = ast.parse(inspect.getsource(module))
        except (OSError, TypeError, SyntaxError):
            tree = None
        package = getattr(module, "__package__", None)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                try:
                    base = importlib.util.resolve_name(
                        "." * node.level + (node.module or ""), package) if node.level \
                        else node.module
                except (ImportError, ValueError):
                    continue
                names.add(base)
                names.update(base + "." + alias.name for alias in node.names)
        for value in list(vars(module).values()):
            if inspect.ismodule(value):
                names.add(value.__name__)
            elif isinstance(getattr(value, "__module__", None), str):
                names.add(value.__module__)
        files, escapes = set(), set()
        for name in names:
            escape = _escape_of(name)
            if escape:
                escapes.add(escape)
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # a package's __init__ runs first
                loaded = sys.modules.get(".".join(parts[:i]))
                relative = self._relative(getattr(loaded, "__file__", None))
                if relative:
                    files.add(relative)
        self.module_refs[module.__name__] = (files, escapes)
        return files, escapes

    def _row(self, item, seen):
        names, fps, overall, defs = self._fixtures(item)
        row = {"nodeid": item.nodeid, "fixtures": names, "fixture_fps": fps,
               "fixture_fp": overall, "ambient_fp": self.ambient}
        if seen is None:
            return row
        for name in names:
            for fixturedef in defs.get(name, ()):
                seen |= self.fixture_files.get(fixturedef, set())
                seen.add(getattr(getattr(fixturedef.func, "__code__", None), "co_filename", ""))
        files, escapes = self._module_refs(getattr(item, "module", None))
        files = set(files)
        escape_files, escape_dirs = self._escapes()
        for filename in seen:
            relative = self._relative(filename)
            if relative:
                files.add(relative)
            real = os.path.realpath(filename) if filename and filename[0] != "<" else ""
            escape = escape_files.get(real)
            if escape is None:
                escape = next((e for d, e in escape_dirs if real.startswith(d)), None)
            if escape:
                escapes.add(escape)
        test_file = self._relative(str(getattr(item, "path", getattr(item, "fspath", ""))))
        if test_file:
            files.add(test_file)
            directory = os.path.dirname(os.path.join(self.root, test_file))
            while directory.startswith(self.root):
                if os.path.isfile(os.path.join(directory, "conftest.py")):
                    files.add(self._relative(os.path.join(directory, "conftest.py")))
                if directory == self.root:
                    break
                directory = os.path.dirname(directory)
        row["files"] = sorted(files)
        row["escapes"] = sorted(escapes)
        row["complete"] = not escapes
        return row

    def pytest_collection_finish(self, session):
        if self.fd is None or not session.config.option.collectonly:
            return
        for item in session.items:
            _write_line(self.fd, json.dumps(self._row(item, None), sort_keys=True))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if self.seen is None:
            yield
            return
        outer, mine = self.seen, set()
        self.seen = mine
        try:
            yield
        finally:
            self.seen = outer
            outer |= mine
            self.fixture_files.setdefault(fixturedef, set()).update(mine)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if self.fd is None:
            yield
            return
        seen = set()
        self.seen = seen
        previous = sys.getprofile()
        previous_threads = getattr(threading, "getprofile", lambda: None)()
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)  # code in threads the test starts
        try:
            yield
        finally:
            sys.setprofile(previous)
            threading.setprofile(previous_threads)
            self.seen = None
        try:
            row = self._row(item, seen)
        except Exception as error:  # a witness that cannot be built is incomplete
            row = {"nodeid": item.nodeid, "fixtures": [], "fixture_fps": {}, "fixture_fp": "",
                   "ambient_fp": self.ambient, "files": [], "complete": False,
                   "escapes": ["witness error: %s: %s" % (type(error).__name__, error)]}
        _write_line(self.fd, json.dumps(row, sort_keys=True))


def pytest_addhooks(pluginmanager):
    if not pluginmanager.has_plugin("pw_clock"):
        pluginmanager.register(_PwClock(), "pw_clock")
    if not pluginmanager.has_plugin("pw_test_timer"):
        pluginmanager.register(_PwTestTimer(), "pw_test_timer")
    if not pluginmanager.has_plugin("pw_witness"):
        pluginmanager.register(_PwWitness(), "pw_witness")
    if not pluginmanager.has_plugin("pw_cover"):
        pluginmanager.register(_PwCover(), "pw_cover")
