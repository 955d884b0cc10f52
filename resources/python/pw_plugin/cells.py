"""The clock and timeout seams of the reproduction cells: --pw-freeze-time (the `clock`
cell of the reproduction matrix) and --pw-test-timeout (config timeouts.per_test)."""

import signal

import pytest

from . import session
from .session import _STATE_KEY

# --- frozen clock (the `clock` cell) ----------------------------------------------
#
# --pw-freeze-time ISO: every test (setup, call and teardown) runs with the clock frozen at
# that instant, through freezegun or else time_machine -- whichever the project can import
# (autoload is off, so neither is active unless we start it). The local zone stays the
# run's TZ: freezegun is given TZ's offset at that instant, time_machine follows TZ by
# itself. With neither importable the run stops with a usage error (exit 4) after writing
# a row {"when": "clock", "outcome": "unsupported", "detail": ...}: a cell that cannot
# freeze the clock is `unknown`, never a pass. A separate plugin object, registered (by
# __init__.py) only when the option is given.


class _PwClock:
    def __init__(self):
        self.freezer = None  # () -> context manager, when the option is set

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
# failure. The timer raises only inside one of the test's phases, where pytest
# turns the exception into that phase's report: when it expires in a reporting hook
# between phases (where an exception would be an INTERNALERROR that loses the run), the
# next phase of the test stops at once instead. Works in the main thread only, and the
# test's own SIGALRM handler is put back afterwards; a test stuck in C code that never
# returns to the interpreter is left to the per-run timeout, which kills the process group.

TIMEOUT_MARK = "patchwitness: per-test timeout"


class PwTestTimeout(BaseException):
    pass


class _PwTestTimer:
    def __init__(self):
        self.seconds = 0.0
        self.nodeid = None  # of the test whose protocol runs
        self.phase = None  # "setup", "call" or "teardown" while one runs
        self.expired = False  # the timer fired between phases: the next phase stops

    def pytest_configure(self, config):
        import threading

        seconds = config.getoption("pw_test_timeout", 0.0) or 0.0
        if seconds < 0:
            raise pytest.UsageError("--pw-test-timeout %g: must be 0 or more" % seconds)
        usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        self.seconds = seconds if usable else 0.0

    def _stop(self):
        message = "%s of %g s (config timeouts.per_test) expired" % (TIMEOUT_MARK, self.seconds)
        session._timed_out = (self.nodeid, self.phase, message)
        self.expired = False
        raise PwTestTimeout(message)

    def _expire(self, signum, frame):
        if self.phase is not None:
            self._stop()
        self.expired = True

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if self.seconds <= 0:
            yield
            return
        self.nodeid, self.expired, session._timed_out = item.nodeid, False, None
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
