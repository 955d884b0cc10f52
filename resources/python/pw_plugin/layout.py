"""Keeps the tree under test first on the import path (imported before anything else).

patchwitness runs each tree (base, head) with the tree's own import roots (a src/ layout's
src/, the directory holding the tree's generated <name>-<version>.dist-info) on PYTHONPATH,
ahead of site-packages. That alone does not win against everything an interpreter may
carry: an old-style editable install's easy-install.pth puts its checkout *in front* of
PYTHONPATH, an editable install's import finder may sit before the path finder, and a
plugin or a .pth file may already have imported the package from elsewhere. `apply()`
undoes each of these for the packages the tree provides and returns what it overrode;
`describe()` reports where every such package and the tree's distribution now come from,
what else would have provided them, and which of pytest's own packages the running pytest
took from the tree (a tree that is attrs, pluggy or iniconfig: PYTHONPATH puts it ahead of
site-packages for pytest too).

Environment (set by patchwitness; absent = nothing to do):
  PATCHWITNESS_TREE           the tree's directory
  PATCHWITNESS_IMPORT_PATH    the tree's import roots and metadata directory (":"-joined)
  PATCHWITNESS_TREE_PACKAGES  the top-level packages the tree provides (","-joined)
  PATCHWITNESS_GENERATED      module=file pairs (":"-joined): modules the tree's build writes
                              from git (a version file) that a tree taken from git lacks

Run as `python -c "import pw_plugin.layout as l; l.main()"` it prints describe() as JSON:
patchwitness' preflight of each tree, with the environment of its runs.
"""

import importlib
import importlib.machinery
import importlib.util
import os
import sys

# What the running pytest itself is made of: a tree cannot replace these under it.
_RUNNER = ("pytest", "_pytest", "pluggy", "py")
# Packages pytest imports at start-up (some versions only): from the tree, the patch's code
# runs in the test runner too, and describe() says so.
_RUNNER_STACK = _RUNNER + ("iniconfig", "packaging", "attr", "attrs", "exceptiongroup", "tomli",
                           "pygments")
_applied = None  # apply()'s answer, once per process


def _env_list(name, sep):
    return [part for part in os.environ.get(name, "").split(sep) if part]


def _real(path):
    return os.path.realpath(path or os.getcwd())


def _inside(path, tree):
    if not path:
        return False
    real = _real(path)
    return real == tree or real.startswith(tree + os.sep)


def _module_path(module):
    path = getattr(module, "__file__", None)
    if path:
        return path
    locations = getattr(module, "__path__", None)
    return next(iter(locations), None) if locations is not None else None


def _spec_path(spec):
    if spec is None:
        return None
    if spec.origin and spec.origin not in ("namespace", "built-in", "frozen"):
        return spec.origin
    locations = spec.submodule_search_locations
    return next(iter(locations), None) if locations else None


def _is_path_finder(finder):
    return finder is importlib.machinery.PathFinder or isinstance(
        finder, type) and issubclass(finder, importlib.machinery.PathFinder)


def _path_finder_index():
    return next((i for i, f in enumerate(sys.meta_path) if _is_path_finder(f)), None)


def _finder_name(finder):
    kind = finder if isinstance(finder, type) else type(finder)
    return "%s.%s" % (kind.__module__, kind.__qualname__)


class _Generated:
    """Serves the modules a tree's build would have written (PATCHWITNESS_GENERATED)."""

    def __init__(self, files):
        self.files = files

    def find_spec(self, name, path=None, target=None):
        file = self.files.get(name)
        return importlib.util.spec_from_file_location(name, file) if file else None


def _generated():
    files = {}
    for pair in _env_list("PATCHWITNESS_GENERATED", ":"):
        module, _, file = pair.partition("=")
        if module and file:
            files[module] = file
    return files


def apply():
    """Puts the tree first for its packages; returns the overrides, one dict each."""
    global _applied
    if _applied is not None:
        return _applied
    _applied = []
    tree = os.environ.get("PATCHWITNESS_TREE")
    if not tree:
        return _applied
    tree = _real(tree)
    roots = _env_list("PATCHWITNESS_IMPORT_PATH", ":")
    names = _env_list("PATCHWITNESS_TREE_PACKAGES", ",")
    # 1. The tree's roots in front of whatever a .pth file put there.
    placed = [sys.path.index(root) for root in roots if root in sys.path]
    for entry in sys.path[: min(placed)] if placed else []:
        if entry and not _inside(entry, tree):
            for name in names:
                if _provides(entry, name):
                    _applied.append({"kind": "path", "package": name, "path": entry})
    for root in reversed(roots):
        while root in sys.path:
            sys.path.remove(root)
        sys.path.insert(0, root)
    # 2. Import finders ahead of the path finder that answer for a tree package from
    # elsewhere (editable installs) go behind it.
    index = _path_finder_index()
    if index is not None:
        for finder in list(sys.meta_path[:index]):
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None or finder in (importlib.machinery.BuiltinImporter,
                                               importlib.machinery.FrozenImporter):
                continue
            for name in names:
                try:
                    spec = find_spec(name, None)
                except Exception:
                    continue
                path = _spec_path(spec)
                if path and not _inside(path, tree):
                    path_finder = sys.meta_path[index]
                    sys.meta_path.remove(finder)
                    sys.meta_path.insert(sys.meta_path.index(path_finder) + 1, finder)
                    index -= 1
                    _applied.append({"kind": "finder", "package": name, "path": path,
                                     "finder": _finder_name(finder)})
                    break
    generated = _generated()
    if generated:
        sys.meta_path.insert(0, _Generated(generated))
    # 3. A tree package imported already from elsewhere is forgotten, so the next import
    # takes the tree's (what imported it keeps its own copy).
    for name in names:
        module = sys.modules.get(name)
        path = _module_path(module) if module is not None else None
        if module is None or not path or _inside(path, tree):
            continue
        if name in _RUNNER:
            _applied.append({"kind": "runner", "package": name, "path": path})
            continue
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
        _applied.append({"kind": "imported", "package": name, "path": path})
    importlib.invalidate_caches()
    return _applied


def _provides(entry, name):
    """The file or package directory that sys.path entry `entry` has for `name`, or None."""
    package = os.path.join(entry, name)
    if os.path.isfile(os.path.join(package, "__init__.py")):
        return package
    module = package + ".py"
    return module if os.path.isfile(module) else None


def _elsewhere(name, tree):
    """Other places that would provide package `name`: sys.path entries outside the tree,
    and import finders behind the path finder (editable installs)."""
    found = []
    import sysconfig

    stdlib = {_real(sysconfig.get_paths()[key]) for key in ("stdlib", "platstdlib")}
    for entry in sys.path:
        if entry and not _inside(entry, tree) and _real(entry) not in stdlib:
            path = _provides(entry, name)
            if path:
                found.append({"kind": "path", "path": path})
    index = _path_finder_index()
    for finder in sys.meta_path[index + 1:] if index is not None else []:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            path = _spec_path(find_spec(name, None))
        except Exception:
            continue
        if path and not _inside(path, tree):
            found.append({"kind": "finder", "path": path, "finder": _finder_name(finder)})
    return found


def _distributions(tree):
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python < 3.8
        return []
    out = []
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:
            continue
        location = getattr(dist, "_path", None)
        entry = {"name": name or "", "version": dist.version or "",
                 "path": str(location) if location is not None else ""}
        try:
            direct = dist.read_text("direct_url.json")
        except Exception:
            direct = None
        if direct:
            import json

            try:
                url = json.loads(direct)
            except ValueError:
                url = {}
            if (url.get("dir_info") or {}).get("editable"):
                entry["editable"] = url.get("url", "")
        out.append(entry)
    return out


def _normal(name):
    import re

    return re.sub(r"[-_.]+", "-", name or "").lower()


def describe(distribution=""):
    applied = apply()
    tree = _real(os.environ.get("PATCHWITNESS_TREE", os.getcwd()))
    packages = {}
    for name in _env_list("PATCHWITNESS_TREE_PACKAGES", ","):
        module = sys.modules.get(name)
        if module is not None:
            path = _module_path(module)
        else:
            try:
                path = _spec_path(importlib.util.find_spec(name))
            except (ImportError, ValueError):
                path = None
        packages[name] = {"path": path or "", "in_tree": _inside(path, tree),
                          "elsewhere": _elsewhere(name, tree)}
    dists = []
    if distribution:
        wanted = _normal(distribution)
        dists = [d for d in _distributions(tree) if _normal(d["name"]) == wanted]
        roots = [_real(root) for root in _env_list("PATCHWITNESS_IMPORT_PATH", ":")]
        for d in dists:
            d["in_tree"] = bool(d["path"]) and (
                _inside(d["path"], tree) or any(_inside(d["path"], root) for root in roots))
    import platform

    runner = []
    for name in _RUNNER_STACK:
        module = sys.modules.get(name)
        path = _module_path(module) if module is not None else None
        if path and _inside(path, tree):
            runner.append({"package": name, "path": path})
    return {
        "executable": sys.executable,
        "version": platform.python_version(),
        "runner_from_tree": runner,
        "overrides": applied,
        "packages": packages,
        "distributions": dists,  # in sys.path order: the first is what importlib.metadata gives
    }


def main():
    import json

    print(json.dumps(describe(os.environ.get("PATCHWITNESS_DISTRIBUTION", ""))))
