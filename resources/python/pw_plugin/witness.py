"""Skip witnesses (--pw-witness)."""

import json
import os
import sys

import pytest

from .session import _open_append, _write_line

# --- skip witnesses --------------------------------------------------------
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
        # pytest 7+ has item.path; fspath (a py.path, from the legacypath plugin) before it.
        path = getattr(item, "path", None)
        test_file = self._relative(str(path if path is not None else getattr(item, "fspath", "")))
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
