"""patchwitness' bundled pytest plugin, loaded with ``PYTEST_PLUGINS=pw_plugin``.

patchwitness stages this package into a private directory and puts only that directory
on PYTHONPATH, so the project under test needs no conftest or entry point (plugin
autoloading is off in the pinned environment). It is named in PYTEST_PLUGINS rather
than with ``-p pw_plugin``, which loads it the same way but first searches every
installed distribution's entry points for the name. Once imported it takes itself out
of PYTEST_PLUGINS, so a pytest the tests start in a subprocess does not load it. Under
pytest-xdist the controller puts it back before it starts its workers, which load it from
there, run the tests and write their rows and order lines; the controller writes none and
retires its seams at session start. The fork server (--pw-replays) refuses to run under
xdist, and coverage (--pw-cover) is reported unavailable there.
The core (session.py: options, rows, shuffle, order log, census dump) is always loaded;
the seams -- the state probe, the fork server, the frozen clock, the per-test timer, skip
witnesses and coverage -- are imported and registered only when their options are given.
Before the plugin imports anything else it keeps the tree under test first on the import
path (layout.py: its import roots ahead of .pth entries, editable-install finders behind
the path finder, a tree package imported early from elsewhere forgotten).
Python 3.8+, stdlib and pytest only.

Options:
  --pw-seed N        0 (default) keeps pytest's own order; N > 0 shuffles the collected
                     items with random.Random(N), so a seed gives the same order on any
                     machine. Every test starts with random.seed(N): once before its
                     setup (fixtures) and again right before its body.
  --pw-out PATH      JSONL outcome rows, one per test phase:
                     {"run", "arm", "nodeid", "when", "outcome", "duration", "seed"}
                     (plus "xfail": true for an expected failure). Appended with one
                     write(2) per line on an O_APPEND descriptor, so a run killed midway
                     leaves only complete lines. A subtest's report (pytest 9's `subtests`
                     fixture and unittest's subTest) has "subtest": its description; a
                     failed one is a "call" row of its test (it fails the test), a passed
                     or skipped one has "when": "subtest" (its test's own rows say how the
                     test went). Beside another shuffler: one row {"when": "shuffler",
                     "outcome": "overridden" | "refused", "plugin", "detail"} (session.py).
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
  --pw-budget N      trial budget: at most N tests (or N replays) run; the rest
                     are deselected and one row {"when": "budget", "outcome":
                     "budget_exhausted", "nodeid": <first not run>} says the run was capped.
  --pw-replays PLAN  fork server (isolated replays): PLAN is a JSON file (or,
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
  --pw-witness PATH  skip witnesses: one JSONL row per test -- the project
                     files it touched, its fixtures and their source fingerprints, the
                     ambient fingerprint, and whether it is complete (no subprocess or
                     network use); see the "skip witnesses" section below.
  --pw-precompile    import every module of the package without using it: patchwitness
                     runs this once before sandboxed runs, which cannot write the bytecode
                     cache of the read-only plugin directory themselves.
  --pw-test-timeout S  seconds per test, setup to teardown (0: none); an expired test
                     fails with "patchwitness: per-test timeout", which the harness reads
                     as harness_error (see the per-test timeout section).

Fixture ``witness_seed``: the run's seed.

Hypothesis: its pytest plugin is only present when named with -p (autoload is off). When
it is registered and the user did not pass --hypothesis-seed, the seed is put into that
option before the Hypothesis plugin reads it (tryfirst pytest_configure), which sets
Hypothesis' global seed. Without the plugin, Hypothesis is left alone.

Other shufflers (loaded only when the project names them): beside pytest-randomly the run
is as with --randomly-seed=N --randomly-dont-reorganize --randomly-dont-reset-seed, said in
a row and on the terminal; pytest-random-order asked to shuffle, or any plugin reordering
the items after the shuffle, is refused with a usage error naming it (session.py).
"""

import importlib
import os

# Before anything of the project can be imported: the tree under test ahead of whatever
# the interpreter has installed (layout.py).
from . import layout as _layout

_layout.apply()

import pytest  # noqa: E402 (pytest is running already; the order above is for the tree)


def _rewritten_code_at_its_path():
    """A run's copy starts with pytest's rewritten bytecode of the pristine tree
    (patchwitness' TreeBytecode), compiled at the pristine tree's path. The import system
    puts a module's own path into the code of a plain pyc it loads; pytest executes the
    code of its rewritten pyc as it was compiled. Without the sandbox the copy has a path of
    its own, so do for pytest what the import system does (_imp._fix_co_filename, which
    changes nothing when the path is already the module's): tracebacks, their cut at the
    test's own file and coverage then name the file that runs."""
    try:
        import _imp
        from _pytest.assertion import rewrite
        read = rewrite._read_pyc
    except (ImportError, AttributeError):
        return

    def _read_pyc(source, pyc, trace=lambda x: None):
        code = read(source, pyc, trace)
        if code is not None:
            _imp._fix_co_filename(code, os.fspath(source))
        return code

    rewrite._read_pyc = _read_pyc


_rewritten_code_at_its_path()

from . import session  # noqa: E402
from .session import (
    pytest_addoption,
    pytest_collection_finish,
    pytest_collection_modifyitems,
    pytest_collectreport,
    pytest_runtest_call,
    pytest_runtest_logreport,
    pytest_runtest_logstart,
    pytest_runtest_setup,
    witness_seed,
)

# The hooks and the fixture pytest finds on this module (the plugin PYTEST_PLUGINS names).
__all__ = [
    "pytest_addoption",
    "pytest_collection_finish",
    "pytest_collection_modifyitems",
    "pytest_collectreport",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "pytest_runtest_call",
    "pytest_runtest_logreport",
    "pytest_runtest_logstart",
    "pytest_runtest_setup",
    "pytest_sessionstart",
    "pytest_unconfigure",
    "witness_seed",
]


def _listed_plugins():
    return [name.strip() for name in os.environ.get("PYTEST_PLUGINS", "").split(",")]


def _set_plugins(names):
    # The list without empty names; an empty list unsets the variable.
    value = ",".join(name for name in names if name)
    if value:
        os.environ["PYTEST_PLUGINS"] = value
    else:
        os.environ.pop("PYTEST_PLUGINS", None)


# pytest has read the variable before it imports the plugins it names.
_set_plugins(name for name in _listed_plugins() if name != __name__)


_XDIST_NOTE = "under pytest-xdist (-n)"
_PLUGINS_BEFORE = "_pw_plugins_before"  # a config attribute: PYTEST_PLUGINS before the workers


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    # pytest-xdist's controller (its `dsession`, registered at configure when it will start
    # workers) runs no test: its workers, started in its trylast sessionstart, run them and
    # write their rows. They are new interpreters given the run's --pw-* arguments, which
    # load the plugin from the PYTEST_PLUGINS they inherit (and take it out of theirs).
    config = session.config
    _started(config)
    if not config.pluginmanager.has_plugin("dsession"):
        return
    _refuse_replays(config)
    _relay(config)
    _retire_seams(config)
    setattr(config, _PLUGINS_BEFORE, _listed_plugins())
    _set_plugins([__name__] + _listed_plugins())


def _relay(config):
    # (A function of its own: in pytest_sessionstart, `session` is pytest's, not the module.)
    session._state(config).relayed = True


def _started(config):
    session.sessionstart(config)  # says how another shuffler was tamed (session.py)


def _refuse_replays(config):
    # In xdist's controller or one of its workers.
    if config.option.pw_replays:
        raise pytest.UsageError("--pw-replays: the fork server runs the replays itself; it "
                                "cannot run " + _XDIST_NOTE)


def _retire_seams(config):
    # The controller's seams have nothing to do. Coverage of tests spread over workers is
    # not measured (each would write the report over the others'): the report says so, diff
    # coverage is then unknown, and the run goes on.
    manager = config.pluginmanager
    cover = manager.get_plugin("pw_cover")
    if cover is not None:
        cover.discard("coverage is not measured " + _XDIST_NOTE)
    witness = manager.get_plugin("pw_witness")
    if witness is not None:
        witness.pytest_unconfigure(config)
    for name, _, _, _ in _SEAMS:
        seam = manager.get_plugin(name)
        if seam is not None:
            manager.unregister(seam, name)


def pytest_unconfigure(config):
    session.unconfigure(config)
    if hasattr(config, _PLUGINS_BEFORE):  # the workers are gone
        _set_plugins(getattr(config, _PLUGINS_BEFORE))


# The seams: registered name -> (option attribute, module, plugin). A seam's module is
# imported and its hooks registered only when its option is given, so a plain run pays
# for none of them (their import, pytest's scan of them for hooks and fixtures, and the
# wrappers they would put around every test); an xdist controller, which runs no test,
# retires them once it knows it is one (pytest_sessionstart). A plugin of None registers
# the module. Registered in this order, so that (pluggy calls the wrappers of later ones
# first) coverage's context switch is outermost, then the witness, the per-test timer, the
# frozen clock and, innermost, the probe's snapshots -- which then see the test alone, not
# what the seams around it import.
_SEAMS = (
    ("pw_probe", "pw_probe", "probe", None),
    ("pw_clock", "pw_freeze_time", "cells", "_PwClock"),
    ("pw_test_timer", "pw_test_timeout", "cells", "_PwTestTimer"),
    ("pw_witness", "pw_witness", "witness", "_PwWitness"),
    ("pw_cover", "pw_cover", "cover", "_PwCover"),
    ("pw_replays", "pw_replays", "replays", None),
)
_SEAMS_REGISTERED = "_pw_seams_registered"  # a config attribute


def _register_seams(config, options):
    setattr(config, _SEAMS_REGISTERED, True)
    manager = config.pluginmanager
    for name, option, module, plugin in _SEAMS:
        if not getattr(options, option, None) or manager.has_plugin(name):
            continue
        if name == "pw_cover" and session.xdist_worker():
            continue  # each would write the report over the others' (_retire_seams)
        loaded = importlib.import_module("." + module, __name__)
        manager.register(getattr(loaded, plugin)() if plugin else loaded, name)


# Every --pw-* option is parsed by now, and the seams registered here take part in
# pytest_configure like any plugin (registering them during that historic hook instead
# skips another plugin's pytest_configure on pluggy 1.1-1.3).
@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    _register_seams(early_config, early_config.known_args_namespace)
    # Coverage must be measuring before the project's conftests are imported; the seam
    # registered just now misses this very hook call.
    cover = early_config.pluginmanager.get_plugin("pw_cover")
    if cover is not None:
        cover.pytest_load_initial_conftests(early_config, parser, args)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    session.configure(config)
    if session.xdist_worker():
        _refuse_replays(config)
    if not getattr(config, _SEAMS_REGISTERED, False):
        # Loaded after the initial conftests (from a conftest's pytest_plugins): too late
        # for coverage of the conftests, in time for the rest.
        _register_seams(config, config.option)
    if config.option.pw_precompile:  # imported (and so rewritten and cached), not registered
        for module in sorted({seam[2] for seam in _SEAMS}):
            importlib.import_module("." + module, __name__)
