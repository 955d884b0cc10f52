"""Diff coverage (--pw-cover)."""

import json
import os

import pytest

# --- diff coverage (for attribution) -------------------------------
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

    def discard(self, reason):
        # Measuring stops and the report says why there is none (pytest-xdist's controller).
        if self.cov is not None:
            cov, self.cov = self.cov, None
            cov.stop()
        if self.path is not None:
            self._write({"unavailable": reason})

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
