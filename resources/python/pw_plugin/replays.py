"""Fork server (--pw-replays): collect once, fork a child per (node, seed, replay)."""

import gc
import itertools
import os
import random
import select
import signal
import sys
import tempfile
import time

import pytest

from .session import _state, reseed_randomly
from .treewatch import Watch


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


def _reseed(state, session, seed):
    """What a fresh `--pw-seed seed` interpreter would have: the seed everywhere we put it."""
    config = session.config
    state.seed = seed
    reseed_randomly(state, session, seed)
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


def _private_tmpdir():
    """A TMPDIR of the child's own below the server's: a fresh run's would be empty, and
    what one replay leaves there (a fixed name in gettempdir()) must not meet the next.
    pytest's tmp_path stays below the server's base temp, numbered per child."""
    try:
        own = tempfile.mkdtemp(prefix="replay-", dir=tempfile.gettempdir())
    except OSError:
        return
    os.environ["TMPDIR"] = own
    tempfile.tempdir = None


def _run_child(item, state, seed, replay, verdict_fd):
    """In the forked child: never returns."""
    code = 0
    try:
        # Bytecode a fresh run would write is no part of what it leaves for the next
        # replay, so a child writes none, and neither do the interpreters it starts (the
        # server watches its tree for writes).
        sys.dont_write_bytecode = True
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # nor an interpreter the test starts
        _private_tmpdir()
        _reseed(state, item.session, seed)
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


_PR_SET_PDEATHSIG = 1
_prctl = []  # [] until looked up, then [prctl or None]


def _die_with_server(server):
    """In a replay child: SIGKILL when the server dies (prctl PR_SET_PDEATHSIG), as the
    server dies with patchwitness — a child would otherwise outlive a killed run. Linux
    only; looked up once, in the server, so a fork pays only the call."""
    if not _prctl or _prctl[0] is None:
        return
    try:
        _prctl[0](_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    except Exception:  # never into the replay: it would run in the server's stead
        return
    if os.getppid() != server:  # the server died before the call: no signal comes
        os._exit(3)


def _look_up_prctl():
    if not _prctl:
        try:
            import ctypes

            _prctl.append(ctypes.CDLL(None, use_errno=True).prctl)
        except (ImportError, OSError, AttributeError):
            _prctl.append(None)


def _fork_replay(session, item, state, seed, replay):
    """One replay in a child; returns its _verdict or None (harness error, row written)."""
    config = session.config
    _flush(config)
    _look_up_prctl()
    server = os.getpid()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        _die_with_server(server)
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
    watch = None
    if not state.nofork:
        tree = os.environ.get("PATCHWITNESS_TREE") or str(session.config.rootpath)
        watch = Watch([("", tree), ("HOME", os.environ.get("HOME", ""))])
    try:
        return _replay_all(session, state, items, watch)
    finally:
        if watch is not None:
            watch.close()
        if junit is not None:
            session.config.pluginmanager.register(junit)


def _junit_reporter(config):
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pytest < 7: leave it hooked
        return None
    junit = config.stash.get(xml_key, None)
    return junit if junit is not None and config.pluginmanager.is_registered(junit) else None


def _replay_all(session, state, items, watch):
    nodeids, seeds, replays, skip = state.plan
    trials = failed = harness = 0
    original_seed = state.seed
    cells = ((nodeid, seed, replay) for nodeid in nodeids for seed in seeds
             for replay in range(replays))
    unknown = set()
    wrote = None  # (what the last replay changed, its cell)
    for nodeid, seed, replay in itertools.islice(cells, skip, None):
        item = items[nodeid]
        if item is None:
            if nodeid not in unknown:
                unknown.add(nodeid)
                state.seed = original_seed
                state.row(nodeid, "collect", "not_collected")
            continue
        if state.budget and trials >= state.budget:
            state.seed, state.replay = seed, replay
            state.row(nodeid, "budget", "budget_exhausted", budget=state.budget)
            state.replay = None
            break
        if wrote is not None:
            # The replays left would start from what the last one left behind: this
            # server stops, and patchwitness runs the rest from this cell in a fresh copy.
            path, (last_node, last_seed, last_replay) = wrote
            state.seed, state.replay = seed, replay
            state.row(nodeid, "server", "tree_changed",
                      detail="replay %d of %s at seed %d wrote %s"
                      % (last_replay, last_node, last_seed, path))
            state.replay = None
            break
        trials += 1
        state.replay = replay
        if state.nofork:
            _reseed(state, session, seed)
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
        path = watch.changed() if watch is not None else None
        if path is not None:
            wrote = (path, (nodeid, seed, replay))
    return _finish(session, state, original_seed, trials, failed, harness)


def _finish(session, state, seed, trials, failed, harness):
    state.seed = seed
    session.testsfailed += failed
    reporter = session.config.pluginmanager.getplugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("patchwitness replays: %d run, %d failed, %d harness errors"
                            % (trials, failed, harness))
    return True
