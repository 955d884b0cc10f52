"""patchwitness' bundled pytest plugin (SPEC 5.1), loaded with ``-p pw_plugin``.

patchwitness stages this package into a private directory and puts only that directory
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

from .cells import _PwClock, _PwTestTimer
from .cover import _PwCover
from .probe import pytest_runtest_protocol
from .replays import pytest_runtestloop
from .session import (
    pytest_addoption,
    pytest_collection_finish,
    pytest_collection_modifyitems,
    pytest_collectreport,
    pytest_configure,
    pytest_runtest_call,
    pytest_runtest_logreport,
    pytest_runtest_logstart,
    pytest_runtest_setup,
    pytest_unconfigure,
    witness_seed,
)
from .witness import _PwWitness

# The hooks and the fixture pytest finds on this module (the plugin `-p pw_plugin` names).
__all__ = [
    "pytest_addhooks",
    "pytest_addoption",
    "pytest_collection_finish",
    "pytest_collection_modifyitems",
    "pytest_collectreport",
    "pytest_configure",
    "pytest_runtest_call",
    "pytest_runtest_logreport",
    "pytest_runtest_logstart",
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtestloop",
    "pytest_unconfigure",
    "witness_seed",
]


def pytest_addhooks(pluginmanager):
    if not pluginmanager.has_plugin("pw_clock"):
        pluginmanager.register(_PwClock(), "pw_clock")
    if not pluginmanager.has_plugin("pw_test_timer"):
        pluginmanager.register(_PwTestTimer(), "pw_test_timer")
    if not pluginmanager.has_plugin("pw_witness"):
        pluginmanager.register(_PwWitness(), "pw_witness")
    if not pluginmanager.has_plugin("pw_cover"):
        pluginmanager.register(_PwCover(), "pw_cover")
