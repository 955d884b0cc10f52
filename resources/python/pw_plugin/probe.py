"""State probe (--pw-probe, --pw-watch): leak rows for what a test leaves behind."""

import os
import sys
import tempfile

import pytest

from .session import _state

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
