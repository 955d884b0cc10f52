#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""patchwitness fact extractor for Python test files .

Protocol
--------
stdin : {"files": [{"id": str, "path": str, "b64": str}, ...]}
stdout: {"extractor": 2, "python": "3.11.2", "files": [<file facts>, ...]}
        (one object per input file, in input order)

Exit status: 0 whenever the input was readable (a file that does not parse is
reported in its own "error" field and never breaks the batch); 2 when stdin is
not JSON of the shape above (message on stderr).  Nothing but the one JSON
document is ever written to stdout.

The script uses only the standard library and runs on Python 3.8 and later
(no 3.9+ syntax; ast.unparse is used when available, an ast.dump-based text
otherwise).  It is bundled into the patchwitness binaries (core.qrc) and run
with the project's own interpreter, so the grammar always matches the project.
"""

import ast
import binascii
import builtins
import gc
import json
import math
import sys
import warnings

# Start-up time is most of a cold audit's cost: avoid modules that drag in OpenSSL
# (hashlib), `re` (base64) or `platform`. The C sha256 module is enough here.
try:
    from _sha256 import sha256 as _sha256
except ImportError:  # Python 3.12+ moved it; fall back to hashlib elsewhere
    try:
        from _sha2 import sha256 as _sha256
    except ImportError:
        from hashlib import sha256 as _sha256

EXTRACTOR_VERSION = 2

# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

# assert <Compare>: one rank per operator.
COMPARE_OP_RANK = {
    ast.Eq: 0, ast.NotEq: 0, ast.Is: 0, ast.IsNot: 0,
    ast.Lt: 1, ast.LtE: 1, ast.Gt: 1, ast.GtE: 1,
    ast.In: 2, ast.NotIn: 2,
}

# assert <expr> where expr is one of these: a bare truthiness check, rank 3.
TRUTHY_TYPES = (ast.Name, ast.Attribute, ast.UnaryOp, ast.Call, ast.Subscript,
                ast.Constant)

# unittest matcher methods (any receiver: self.assertX, cls.assertX, tc.assertX).
# Deprecated aliases map to the rank of the method they alias.
MATCHER_RANK = {
    # rank 0: identity / equality
    "assertEqual": 0, "assertEquals": 0, "failUnlessEqual": 0,
    "assertNotEqual": 0, "assertNotEquals": 0, "failIfEqual": 0,
    "assertIs": 0, "assertIsNot": 0,
    "assertIsNone": 0,
    "assertIsInstance": 0, "assertNotIsInstance": 0,
    "assertListEqual": 0, "assertDictEqual": 0, "assertTupleEqual": 0,
    "assertSetEqual": 0, "assertSequenceEqual": 0, "assertMultiLineEqual": 0,
    "assertCountEqual": 0, "assertItemsEqual": 0,
    # rank 1: ordering
    "assertGreater": 1, "assertGreaterEqual": 1, "assertLess": 1, "assertLessEqual": 1,
    # rank 2: membership / approximate / pattern
    "assertIn": 2, "assertNotIn": 2,
    "assertAlmostEqual": 2, "assertAlmostEquals": 2, "failUnlessAlmostEqual": 2,
    "assertNotAlmostEqual": 2, "assertNotAlmostEquals": 2, "failIfAlmostEqual": 2,
    "assertRegex": 2, "assertNotRegex": 2,
    "assertRegexpMatches": 2, "assertNotRegexpMatches": 2,
    "assertDictContainsSubset": 2,
    # rank 3: bare truthiness
    "assertTrue": 3, "assertFalse": 3, "assertIsNotNone": 3,
    "assert_": 3, "failUnless": 3, "failIf": 3,
}

# assertAlmostEqual spellings that carry a tolerance (places / delta).
ALMOST_EQUAL_METHODS = frozenset(["assertAlmostEqual", "assertAlmostEquals",
                                  "failUnlessAlmostEqual"])

# unittest methods that are "raises" facts, not assertions.
RAISES_METHODS = frozenset(["assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
                            "failUnlessRaises"])

# Canonical (import-resolved) callables.  The bare spellings are accepted when the
# name is not bound by an import (e.g. `from pytest import *`).
RAISES_FUNCS = frozenset(["pytest.raises", "raises"])
APPROX_FUNCS = frozenset(["pytest.approx", "approx"])
ISCLOSE_FUNCS = frozenset(["math.isclose", "cmath.isclose", "isclose"])
ABS_FUNCS = frozenset(["abs", "builtins.abs", "math.fabs"])

# Last dotted component of every callable analyze_region looks at.
CALL_NAMES_OF_INTEREST = frozenset(["raises", "approx", "isclose", "skip", "xfail",
                                    "importorskip"])

BODY_SKIP_CALLS = {
    "pytest.skip": "pytest.skip()",
    "pytest.xfail": "pytest.xfail()",
    "pytest.importorskip": "pytest.importorskip()",
}

SKIP_MARKS = frozenset([
    "pytest.mark.skip", "pytest.mark.skipif", "pytest.mark.xfail",
    "unittest.skip", "unittest.skipIf", "unittest.skipUnless",
    "unittest.expectedFailure",
])

EXC_RANK0 = frozenset(["ValueError", "KeyError", "TypeError"])
EXC_RANK3 = frozenset(["Exception", "BaseException"])

APPROX_DEFAULT_REL = 1e-6
ISCLOSE_DEFAULT_REL = 1e-9
ALMOST_EQUAL_DEFAULT_PLACES = 7

_MISSING = object()

# parametrize_cases is read into a C++ int: an absurd product is clamped.
PARAMETRIZE_CASES_MAX = 2 ** 31 - 1


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

if hasattr(ast, "unparse"):
    def unparse(node):
        return ast.unparse(node)
else:  # Python 3.8: no ast.unparse; a position-free dump is still a stable text
    def unparse(node):
        return ast.dump(node)


def sort_key(node):
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def dotted_parts(node):
    """['a', 'b', 'c'] for the expression a.b.c, None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        parts.reverse()
        return parts
    return None


def dotted_text(node):
    parts = dotted_parts(node)
    return ".".join(parts) if parts is not None else None


def fold_number(node, depth=0):
    """Constant-fold a numeric literal expression (unary +/-, + - * / ** of
    numeric literals).  Returns a finite float, or None when the expression is
    not a literal ("computed")."""
    try:
        value = _fold(node, depth)
    except (ValueError, TypeError, OverflowError, ZeroDivisionError, RecursionError):
        return None
    if value is None or isinstance(value, complex):
        return None
    try:
        value = float(value)
    except (OverflowError, ValueError, TypeError):
        return None
    if not math.isfinite(value):
        return None
    return value


def _fold(node, depth):
    if depth > 50:
        raise ValueError("too deep")
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError("not a number")
        return float(v)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _fold(node.operand, depth + 1)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        left = _fold(node.left, depth + 1)
        right = _fold(node.right, depth + 1)
        op = node.op
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.Pow):
            result = left ** right  # floats: overflow raises, never a huge int
            if isinstance(result, complex):
                raise ValueError("complex")
            return result
    raise ValueError("not a literal")


_MRO_CACHE = {}


def builtin_mro(name):
    """Builtin MRO (most derived first, object excluded) of a builtin exception
    class named `name` (optionally spelled builtins.X); [] for anything else."""
    if name in _MRO_CACHE:
        return _MRO_CACHE[name]
    short = name[len("builtins."):] if name.startswith("builtins.") else name
    result = []
    if short and "." not in short:
        cls = getattr(builtins, short, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            result = [c.__name__ for c in cls.__mro__ if c is not object]
    _MRO_CACHE[name] = result
    return result


def exception_rank(name):
    short = name[len("builtins."):] if name.startswith("builtins.") else name
    if short in EXC_RANK0:
        return 0
    if short in EXC_RANK3:
        return 3
    return 1


# ---------------------------------------------------------------------------
# Per-file analysis
# ---------------------------------------------------------------------------

# Fields the walk neither follows nor serialises: expression contexts (implied
# by the position in the tree), type comments (only with type_comments=True) and
# the u"" prefix of string constants (no meaning in Python 3).
_UNHASHED_FIELDS = frozenset(["ctx", "type_comment", "kind"])
_FIELDS = {}  # AST class -> its _fields minus _UNHASHED_FIELDS


_NESTED_TYPES = (ast.stmt, ast.excepthandler) + \
    ((ast.match_case,) if hasattr(ast, "match_case") else ())


def _statement_marks(stmts, records):
    """[open, stmt, close, ...] for statements whose token ranges are recorded: stack
    entries of FileAnalyzer.walk around each statement, (record, True) noting where its
    tokens start, (record, False) where they end (pre-order: a subtree's tokens are
    contiguous).  A record is [start, end, (start, end) of its nested statements]."""
    out = []
    for stmt in stmts:
        record = [0, 0, []]
        records.append(record)
        out.extend(((record, True), stmt, (record, False)))
    return out


def statement_hashes(tokens, records):
    """Sorted first 16 hex digits of the sha256 of every recorded statement's
    tokens without those of the statements nested in it: a compound statement
    contributes its header (`with pytest.raises(E):`, `if x:`), an `except`
    handler or a `match` case counts as a statement of its own.  A line added
    inside a block changes one entry, not the block's, so the multiset says how
    much of a body survives an edit (the similarity that matches a test across a
    rename)."""
    out = []
    for start, end, nested in records:
        parts = []
        pos = start
        for s, e in nested:
            parts.extend(tokens[pos:s])
            pos = e
        parts.extend(tokens[pos:end])
        blob = "\x00".join(parts).encode("utf-8", "surrogatepass")
        out.append(_sha256(blob).hexdigest()[:16])
    out.sort()
    return out


class Region(object):
    """Nodes of interest collected by one walk."""
    __slots__ = ("calls", "compares", "asserts", "attrs")

    def __init__(self):
        self.calls = []
        self.compares = []
        self.asserts = []
        self.attrs = []  # Attribute nodes that may be <pytest>.mark.<name>


class FileAnalyzer(object):
    def __init__(self, tree):
        self.tree = tree
        self.import_alias = {}   # local name -> dotted module/object path
        self.imports = set()     # top-level module names
        self.mark_alias = {}     # module-level NAME = <pytest mark / unittest skip expr>
        self.class_cache = {}
        self.import_nodes = []   # Import / ImportFrom anywhere in the file
        self.regions = []        # every Region walked (their attrs: file markers)
        self.texts = {}          # id(node) -> unparse text

    # -- name resolution -----------------------------------------------------

    def canonical(self, node):
        """Import-resolved dotted name of a Name/Attribute chain, else None."""
        parts = dotted_parts(node)
        if parts is None:
            return None
        return self.canonical_parts(parts)

    def canonical_parts(self, parts):
        """canonical() of a chain already taken apart by dotted_parts."""
        head = parts[0]
        if head in self.mark_alias:
            base = self.mark_alias[head][0]
        else:
            base = self.import_alias.get(head, head)
        if len(parts) == 1:
            name = base
        else:
            name = base + "." + ".".join(parts[1:])
        if name.startswith("unittest.case."):
            name = "unittest." + name[len("unittest.case."):]
        return name

    def text(self, node):
        """Normalised source text of a node (cached: a tolerance often is the
        very expression an assertion tests)."""
        key = id(node)
        text = self.texts.get(key)
        if text is None:
            text = self.texts[key] = unparse(node)
        return text

    def subst(self, expr):
        """Replace a module-level mark alias (requires_db = pytest.mark.skipif(...))
        by its defining expression."""
        if isinstance(expr, ast.Name) and expr.id in self.mark_alias:
            return self.mark_alias[expr.id][1]
        return expr

    def mark_target(self, expr):
        """Canonical name of a decorator / mark expression, call stripped."""
        expr = self.subst(expr)
        target = expr.func if isinstance(expr, ast.Call) else expr
        return self.canonical(target)

    # -- the one walk ------------------------------------------------------------

    def walk(self, roots, stop, tokens, region, records=None):
        """Iterative pre-order walk over `roots` (each node visited once).

        Collects, for the whole file, import statements and candidate
        `<x>.mark.<name>` attributes; collects Call / Compare / Assert nodes into
        `region`; appends to `tokens` a position-free structural serialisation of
        the subtrees (node type, non-node field values, list lengths: the same
        information as ast.dump without attributes).  Nodes whose id is in `stop`
        are skipped with their subtree (the test functions, walked separately).
        With `records` (roots: statements), the token range of every statement,
        nested ones included, is appended to it (see statement_hashes)."""
        AST = ast.AST
        Call, Compare, Assert = ast.Call, ast.Compare, ast.Assert
        Attribute, Name = ast.Attribute, ast.Name
        Import, ImportFrom = ast.Import, ast.ImportFrom
        fields_cache = _FIELDS
        imports = self.import_nodes
        calls, compares, asserts = region.calls, region.compares, region.asserts
        candidates = region.attrs
        emit = tokens.append
        track = records is not None
        nested_types = _NESTED_TYPES
        Mark = tuple  # statement marks (no AST node is a tuple)
        opened = []  # records of the statements being walked, innermost last
        stack = list(reversed(_statement_marks(roots, records) if track else roots))
        pop, extend = stack.pop, stack.extend
        while stack:
            node = pop()
            cls = node.__class__
            if cls is Mark:
                record, opening = node
                if opening:
                    record[0] = len(tokens)
                    opened.append(record)
                else:
                    record[1] = len(tokens)
                    opened.pop()
                    if opened:
                        opened[-1][2].append((record[0], record[1]))
                continue
            if stop and id(node) in stop:
                continue
            if cls is Call:
                calls.append(node)
            elif cls is Attribute:
                value = node.value
                if value.__class__ is Name or (value.__class__ is Attribute
                                               and value.attr == "mark"):
                    candidates.append(node)
            elif cls is Compare:
                compares.append(node)
            elif cls is Assert:
                asserts.append(node)
            elif cls is Import or cls is ImportFrom:
                imports.append(node)
            fields = fields_cache.get(cls)
            if fields is None:
                fields = tuple(f for f in cls._fields if f not in _UNHASHED_FIELDS)
                fields_cache[cls] = fields
            emit(cls.__name__)
            children = []
            for field in fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    emit("[%d" % len(value))
                    if track and value and isinstance(value[0], nested_types):
                        tokens.extend(["^"] * len(value))
                        children.extend(_statement_marks(value, records))
                        continue
                    for item in value:
                        if isinstance(item, AST):
                            if item._fields:
                                emit("^")
                                children.append(item)
                            else:  # operators (Compare.ops)
                                emit(item.__class__.__name__)
                        else:
                            emit(repr(item))
                elif isinstance(value, AST):
                    if value._fields:
                        emit("^")
                        children.append(value)
                    else:  # operators (BinOp.op, ...)
                        emit(value.__class__.__name__)
                else:
                    emit(repr(value))
            if children:
                children.reverse()
                extend(children)

    def resolve_names(self):
        """Import aliases, module-level mark aliases, file-level mark names."""
        self.resolve_aliases(self.import_nodes, self.alias_statements(self.tree.body))
        markers = set()
        for region in self.regions:
            for node in region.attrs:
                if self.canonical(node.value) == "pytest.mark":
                    markers.add(node.attr)
        return markers

    @classmethod
    def alias_statements(cls, body):
        """The module-level assignments that may define a mark alias."""
        out = []
        for stmt in cls.module_level_statements(body):
            if isinstance(stmt, ast.Assign):
                value = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                value = stmt.value
            else:
                continue
            if dotted_parts(value.func if isinstance(value, ast.Call) else value) is not None:
                out.append(stmt)
        return out

    def resolve_aliases(self, import_nodes, alias_statements):
        """Import aliases and module-level mark aliases, from scratch."""
        self.imports, self.import_alias, self.mark_alias = set(), {}, {}
        for node in import_nodes:
            if node.__class__ is ast.Import:
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    self.imports.add(top)
                    if alias.asname:
                        self.import_alias[alias.asname] = alias.name
                    else:
                        self.import_alias[top] = top
            else:
                if node.level or not node.module:
                    continue  # relative import: not a top-level module name
                self.imports.add(node.module.split(".")[0])
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    self.import_alias[alias.asname or alias.name] = \
                        node.module + "." + alias.name
        # module-level mark aliases: slow = pytest.mark.slow,
        # requires_db = pytest.mark.skipif(...), skip_ci = unittest.skipIf(...)
        for stmt in alias_statements:
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            else:
                targets, value = [stmt.target], stmt.value
            fn = value.func if isinstance(value, ast.Call) else value
            name = self.canonical(fn)
            if name is None or not (name.startswith("pytest.mark.") or name in SKIP_MARKS):
                continue
            for target in targets:
                if isinstance(target, ast.Name) and target.id != "pytestmark":
                    self.mark_alias[target.id] = (name, value)

    @staticmethod
    def module_level_statements(body):
        """Statements of a module/class body, descending into if/try/with/for
        blocks but never into function or class definitions."""
        stack = list(reversed(body))
        while stack:
            stmt = stack.pop()
            yield stmt
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            nested = []
            for field in ("body", "orelse", "finalbody"):
                nested.extend(getattr(stmt, field, None) or [])
            for handler in getattr(stmt, "handlers", None) or []:
                nested.extend(handler.body)
            stack.extend(reversed(nested))

    # -- marks -------------------------------------------------------------------

    def pytestmark_exprs(self, body):
        """Mark expressions assigned to `pytestmark` in a module/class body."""
        exprs = []
        for stmt in self.module_level_statements(body):
            if isinstance(stmt, ast.Assign):
                if not any(isinstance(t, ast.Name) and t.id == "pytestmark"
                           for t in stmt.targets):
                    continue
                value = stmt.value
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
                if not (isinstance(stmt.target, ast.Name) and stmt.target.id == "pytestmark"):
                    continue
                value = stmt.value
                if value is None:
                    continue
            else:
                continue
            self._flatten_marks(value, exprs)
        return exprs

    def _flatten_marks(self, value, out):
        if isinstance(value, (ast.List, ast.Tuple)):
            for elt in value.elts:
                self._flatten_marks(elt, out)
        elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            self._flatten_marks(value.left, out)
            self._flatten_marks(value.right, out)
        else:
            out.append(value)

    def mark_skip(self, expr):
        """Skip-family string of one decorator / mark expression, or None."""
        name = self.mark_target(expr)
        if name in SKIP_MARKS:
            return name
        return None

    def skips_of_marks(self, exprs):
        """Skip strings from decorators / pytestmark elements, in order, including
        skip-family marks of pytest.param(..., marks=...) inside parametrize."""
        return [name for name, _ in self.skip_entries(exprs, "function")]

    def skip_entries(self, exprs, scope):
        """(skip string, detail) per skip-family mark of `exprs` (decorators or
        pytestmark elements), in order; the marks of pytest.param(..., marks=...)
        inside a parametrize have scope "param" (they skip some cases only)."""
        out = []
        for expr in exprs:
            s = self.mark_skip(expr)
            if s is not None:
                out.append((s, self.skip_detail(s, self.subst(expr), scope)))
                continue
            expr = self.subst(expr)
            if isinstance(expr, ast.Call) and \
                    self.canonical(expr.func) == "pytest.mark.parametrize":
                params = []
                for arg in list(expr.args) + [k.value for k in expr.keywords]:
                    for node in ast.walk(arg):
                        if isinstance(node, ast.Call) and \
                                self.canonical(node.func) == "pytest.param":
                            params.append(node)
                params.sort(key=sort_key)
                for param in params:
                    for kw in param.keywords:
                        if kw.arg != "marks":
                            continue
                        marks = []
                        self._flatten_marks(kw.value, marks)
                        for mark in marks:
                            s = self.mark_skip(mark)
                            if s is not None:
                                out.append((s, self.skip_detail(s, self.subst(mark), "param")))
        return out

    def skip_detail(self, name, expr, scope):
        """{"mark", "scope", "line", "when"} of one skip-family mark expression:
        `when` is the condition under which it skips (or expects failure) as
        source text, None when it always does (no condition, or a true constant)."""
        when = self.mark_condition(name, expr)
        return {"mark": name, "scope": scope, "line": getattr(expr, "lineno", 0),
                "when": None if when is None else "`%s`" % when}

    def mark_condition(self, name, expr):
        if not isinstance(expr, ast.Call) or name in ("pytest.mark.skip", "unittest.skip",
                                                      "unittest.expectedFailure"):
            return None
        conditions = [a for a in expr.args if not isinstance(a, ast.Starred)]
        if name.startswith("pytest.mark."):  # skipif / xfail: condition(s), or condition=
            for kw in expr.keywords:
                if kw.arg == "condition":
                    conditions = [kw.value]
        else:  # unittest.skipIf(condition, reason) / skipUnless(condition, reason)
            conditions = conditions[:1]
        if not conditions:
            return None
        texts = []
        for cond in conditions:
            if isinstance(cond, ast.Constant):
                if isinstance(cond.value, str):
                    texts.append(cond.value)  # pytest evaluates the string at run time
                    continue
                if bool(cond.value) != (name == "unittest.skipUnless"):
                    return None  # a true constant: always
            texts.append(self.text(cond))
        text = " or ".join(texts)
        return "not (%s)" % text if name == "unittest.skipUnless" else text

    def mark_names(self, exprs, attrs=None):
        """pytest.mark.X names (X) referenced anywhere in the expressions.
        `attrs`: the candidate Attribute nodes the walk already collected for
        exactly these expressions (saves walking them again)."""
        names = set()
        if attrs is not None:
            for node in attrs:
                if self.canonical(node.value) == "pytest.mark":
                    names.add(node.attr)
            if not self.mark_alias:
                return names
        for expr in exprs:
            for node in ast.walk(expr):
                if attrs is None and isinstance(node, ast.Attribute):
                    if self.canonical(node.value) == "pytest.mark":
                        names.add(node.attr)
                elif isinstance(node, ast.Name) and node.id in self.mark_alias:
                    name = self.mark_alias[node.id][0]
                    if name.startswith("pytest.mark."):
                        names.add(name.split(".")[2])
                        names.update(self.mark_names([self.mark_alias[node.id][1]]))
        return names

    def parametrize_factor(self, exprs):
        """(has_parametrize, cases or None) over decorators / pytestmark elements."""
        has = False
        cases = 1
        for expr in exprs:
            expr = self.subst(expr)
            target = expr.func if isinstance(expr, ast.Call) else expr
            if self.canonical(target) != "pytest.mark.parametrize":
                continue
            has = True
            argvalues = _MISSING
            if isinstance(expr, ast.Call):
                if len(expr.args) >= 2 and not any(isinstance(a, ast.Starred)
                                                   for a in expr.args[:2]):
                    argvalues = expr.args[1]
                for kw in expr.keywords:
                    if kw.arg == "argvalues":
                        argvalues = kw.value
            if cases is not None and isinstance(argvalues, (ast.List, ast.Tuple)) and \
                    not any(isinstance(e, ast.Starred) for e in argvalues.elts):
                cases *= len(argvalues.elts)
            else:
                cases = None
        return has, (cases if has else None)

    def class_info(self, cls):
        info = self.class_cache.get(id(cls))
        if info is None:
            exprs = list(cls.decorator_list) + self.pytestmark_exprs(cls.body)
            entries = self.skip_entries(exprs, "class")
            info = {
                "skip": [name for name, _ in entries],
                "skip_detail": [detail for _, detail in entries],
                "markers": self.mark_names(exprs),
                "param": self.parametrize_factor(exprs),
            }
            self.class_cache[id(cls)] = info
        return info

    # -- test discovery -----------------------------------------------------------

    def iter_tests(self):
        """(qualified name, def node, enclosing classes outermost first), in
        source order.  A later definition of the same name in the same scope
        shadows the earlier one (as at runtime), so only the last is kept."""
        out = []
        self._collect(self.tree.body, [], out)
        return out

    def _collect(self, body, chain, out):
        last = {}
        for index, stmt in enumerate(body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                last[stmt.name] = index
        for index, stmt in enumerate(body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if stmt.name.startswith("test") and last[stmt.name] == index:
                    qual = "::".join([c.name for c in chain] + [stmt.name])
                    out.append((qual, stmt, chain))
            elif isinstance(stmt, ast.ClassDef) and last[stmt.name] == index:
                self._collect(stmt.body, chain + [stmt], out)

    # -- per-test facts -------------------------------------------------------------

    def assertion_from_assert(self, node):
        test = node.test
        while isinstance(test, (ast.Await, ast.NamedExpr)):
            test = test.value
        if isinstance(test, ast.Compare):
            ranks = [COMPARE_OP_RANK.get(type(op), 2) for op in test.ops]
            truthy, comparison = False, True
        elif isinstance(test, ast.BoolOp):
            ranks = []
            comparison = self._boolop_ranks(test, ranks)
            truthy = not comparison
        elif isinstance(test, TRUTHY_TYPES):
            ranks, truthy, comparison = [3], True, False
        else:
            ranks, truthy, comparison = [2], False, True
        return {"line": node.lineno, "text": self.text(node.test), "ranks": sorted(ranks),
                "truthy": truthy, "comparison": comparison}

    def _boolop_ranks(self, boolop, ranks):
        found = False
        for value in boolop.values:
            while isinstance(value, (ast.Await, ast.NamedExpr)):
                value = value.value
            if isinstance(value, ast.Compare):
                ranks.extend(COMPARE_OP_RANK.get(type(op), 2) for op in value.ops)
                found = True
            elif isinstance(value, ast.BoolOp):
                found = self._boolop_ranks(value, ranks) or found
            else:
                ranks.append(3)
        return found

    def tolerance(self, node, kind, value_node, default=None):
        if value_node is None:
            value = default
        elif value_node is _MISSING:
            value = None  # **kwargs / *args: unknown → computed
        else:
            value = fold_number(value_node)
        return {"line": node.lineno, "kind": kind, "value": value, "text": self.text(node)}

    def tolerance_from_call(self, call, name, method):
        """Tolerance facts of one call, [] when it carries none."""
        out = []
        star = any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords)
        if method in ALMOST_EQUAL_METHODS:
            places = delta = None
            if len(call.args) >= 3 and not isinstance(call.args[2], ast.Starred):
                places = call.args[2]
            for kw in call.keywords:
                if kw.arg == "places":
                    places = kw.value
                elif kw.arg == "delta":
                    delta = kw.value
            if _is_none(delta):
                delta = None
            if _is_none(places):
                places = None
            if delta is not None:
                out.append(self.tolerance(call, "abs", delta))
            elif places is not None:
                p = fold_number(places)
                value = None
                if p is not None:
                    try:
                        value = 10.0 ** -p
                    except OverflowError:
                        value = None
                    if value is not None and not math.isfinite(value):
                        value = None
                out.append({"line": call.lineno, "kind": "abs", "value": value,
                            "text": self.text(call)})
            elif star:
                out.append(self.tolerance(call, "abs", _MISSING))
            else:
                out.append(self.tolerance(call, "abs", None,
                                          10.0 ** -ALMOST_EQUAL_DEFAULT_PLACES))
            return out
        if name in APPROX_FUNCS:
            given = []  # (position, kind, node)
            positional = [a for a in call.args[1:3]]
            for kind, arg in zip(("rel", "abs"), positional):
                if not isinstance(arg, ast.Starred) and not _is_none(arg):
                    given.append((sort_key(arg), kind, arg))
            for kw in call.keywords:
                if kw.arg in ("rel", "abs") and not _is_none(kw.value):
                    given = [g for g in given if g[1] != kw.arg]
                    given.append((sort_key(kw.value), kw.arg, kw.value))
            given.sort(key=lambda g: g[0])
            for _, kind, arg in given:
                out.append(self.tolerance(call, kind, arg))
            if not given:
                if star:
                    out.append(self.tolerance(call, "rel", _MISSING))
                else:
                    out.append(self.tolerance(call, "rel", None, APPROX_DEFAULT_REL))
            return out
        if name in ISCLOSE_FUNCS:
            given = []
            for kw in call.keywords:
                if kw.arg in ("rel_tol", "abs_tol") and not _is_none(kw.value):
                    given.append((sort_key(kw.value), "rel" if kw.arg == "rel_tol" else "abs",
                                  kw.value))
            given.sort(key=lambda g: g[0])
            for _, kind, arg in given:
                out.append(self.tolerance(call, kind, arg))
            if not given:
                if star:
                    out.append(self.tolerance(call, "rel", _MISSING))
                else:
                    out.append(self.tolerance(call, "rel", None, ISCLOSE_DEFAULT_REL))
            return out
        return out

    def tolerance_from_compare(self, node):
        """abs(a - b) < X, abs(a - b) <= X, X > abs(a - b), X >= abs(a - b)."""
        out = []
        operands = [node.left] + list(node.comparators)
        for i, op in enumerate(node.ops):
            left, right = operands[i], operands[i + 1]
            bound = None
            if isinstance(op, (ast.Lt, ast.LtE)) and self._is_abs_diff(left):
                bound = right
            elif isinstance(op, (ast.Gt, ast.GtE)) and self._is_abs_diff(right):
                bound = left
            if bound is not None:
                out.append(self.tolerance(node, "abs", bound))
        return out

    def _is_abs_diff(self, node):
        return (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.BinOp)
                and isinstance(node.args[0].op, ast.Sub)
                and self.canonical(node.func) in ABS_FUNCS)

    def raises_from_call(self, call):
        expected = _MISSING
        if call.args:
            expected = call.args[0]
        for kw in call.keywords:
            if kw.arg == "expected_exception":
                expected = kw.value
        members = []
        if expected is _MISSING:
            rank = 1  # pytest.raises(**kw) / missing: unknown, treated as computed
        else:
            self._raises_members(expected, members)
            rank = max([m[1] for m in members]) if members else 0
        return {"line": call.lineno, "rank": rank,
                "names": [m[0] for m in members], "mro": [m[2] for m in members],
                "text": self.text(call)}

    def _raises_members(self, expr, out):
        if isinstance(expr, ast.Tuple):
            for elt in expr.elts:
                self._raises_members(elt, out)
            return
        name = dotted_text(expr) if not isinstance(expr, ast.Starred) else None
        if name is not None:
            out.append((name, exception_rank(name), list(builtin_mro(name))))
        else:
            out.append((unparse(expr), 1, []))

    def analyze_region(self, region, in_body, facts):
        """Facts from the nodes one region (decorators: in_body False, or the
        body: True) collected during the walk."""
        canonical = self.canonical
        import_alias = self.import_alias
        for node in region.calls:
            func = node.func
            fcls = func.__class__
            if fcls is ast.Attribute:
                method = last = func.attr
            elif fcls is ast.Name:
                method, last = None, func.id
                if last in import_alias:
                    last = import_alias[last].rpartition(".")[2]
            else:
                method = last = None
            # Only calls whose last name component can matter get resolved.
            name = canonical(func) if last in CALL_NAMES_OF_INTEREST else None
            if in_body and method in MATCHER_RANK:
                rank = MATCHER_RANK[method]
                facts["assertions"].append((sort_key(node), {
                    "line": node.lineno, "text": self.text(node), "ranks": [rank],
                    "truthy": rank == 3, "comparison": rank != 3}))
            if method in RAISES_METHODS or name in RAISES_FUNCS:
                facts["raises"].append((sort_key(node), self.raises_from_call(node)))
            elif method in ALMOST_EQUAL_METHODS or name in APPROX_FUNCS or \
                    name in ISCLOSE_FUNCS:
                for t in self.tolerance_from_call(node, name, method):
                    facts["tolerance"].append((sort_key(node), t))
            if in_body:
                if name in BODY_SKIP_CALLS:
                    facts["skip"].append((sort_key(node), (BODY_SKIP_CALLS[name], node, None)))
                elif method == "skipTest":
                    facts["skip"].append((sort_key(node), ("skipTest()", node, None)))
                elif method in ("applymarker", "add_marker") and node.args:
                    s = self.mark_skip(node.args[0])
                    if s is not None:
                        facts["skip"].append((sort_key(node), (s, node, node.args[0])))
        for node in region.compares:
            for t in self.tolerance_from_compare(node):
                facts["tolerance"].append((sort_key(node), t))
        if in_body:
            for node in region.asserts:
                facts["assertions"].append((sort_key(node), self.assertion_from_assert(node)))

    def body_conditions(self, fn):
        """id(node) -> when a node of the body of `fn` is reached, as a sentence
        fragment (code in backticks), None when always (a statement of the body
        itself, or only inside `with` blocks)."""
        conditions = {}
        stack = [(stmt, None) for stmt in reversed(fn.body)]
        while stack:
            stmt, when = stack.pop()
            nested = []  # (statements, when)
            for field, value in ast.iter_fields(stmt):
                if isinstance(value, list) and value and \
                        isinstance(value[0], (ast.stmt, ast.excepthandler)):
                    continue
                if field == "cases":  # match statement (3.10+)
                    continue
                for child in value if isinstance(value, list) else [value]:
                    if isinstance(child, ast.AST):
                        for node in ast.walk(child):
                            conditions[id(node)] = when
            if isinstance(stmt, ast.If):
                test = "`%s`" % self.text(stmt.test)
                nested.append((stmt.body, test))
                nested.append((stmt.orelse, "not %s" % test))
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                nested.append((stmt.body, "the loop body runs"))
                nested.append((stmt.orelse, "the loop ends without `break`"))
            elif isinstance(stmt, ast.Try) or stmt.__class__.__name__ == "TryStar":
                nested.append((stmt.body, None))
                for handler in stmt.handlers:
                    caught = "`except %s`" % self.text(handler.type) if handler.type \
                        else "a bare `except`"
                    nested.append((handler.body, "an exception is caught (%s)" % caught))
                nested.append((stmt.orelse, "no exception is raised"))
                nested.append((stmt.finalbody, None))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                nested.append((stmt.body, "the nested `%s` is called" % stmt.name))
            elif stmt.__class__.__name__ == "Match":
                for case in stmt.cases:
                    nested.append((case.body, "a `match` case applies"))
            else:  # with, async with: the body always runs
                for field in ("body", "orelse", "finalbody"):
                    nested.append((getattr(stmt, field, None) or [], None))
            for body, inner in reversed(nested):
                combined = inner if when is None else (when if inner is None
                                                       else "%s and %s" % (when, inner))
                stack.extend((child, combined) for child in reversed(body))
        return conditions

    def body_skip_detail(self, name, call, mark, conditions):
        """Detail of an in-body skip call (pytest.skip(), skipTest(), an xfail
        marker applied at run time, pytest.importorskip())."""
        when = conditions.get(id(call))
        own = None
        if mark is not None:
            own = self.mark_condition(self.mark_skip(mark), self.subst(mark))
            own = "`%s`" % own if own is not None else None
        elif name == "pytest.importorskip()":
            module = call.args[0] if call.args else None
            own = "`%s` does not import" % (module.value if isinstance(module, ast.Constant)
                                           else self.text(module) if module else "?")
        if own is not None:
            when = own if when is None else "%s and %s" % (when, own)
        return {"mark": name, "scope": "body", "line": call.lineno, "when": when}

    def walk_test(self, fn):
        """Walk one test function: its decorator and body regions and its hash."""
        decorators, body, args = Region(), Region(), Region()
        self.regions.extend((decorators, body, args))
        tokens = ["async" if isinstance(fn, ast.AsyncFunctionDef) else "def", "A"]
        self.walk([fn.args], None, tokens, args)
        tokens.extend(("D", "[%d" % len(fn.decorator_list)))
        self.walk(fn.decorator_list, None, tokens, decorators)
        tokens.extend(("B", "[%d" % len(fn.body)))
        records = []
        self.walk(fn.body, None, tokens, body, records)
        blob = "\x00".join(tokens).encode("utf-8", "surrogatepass")
        return decorators, body, _sha256(blob).hexdigest(), \
            statement_hashes(tokens, records)

    def test_facts(self, qual, fn, chain, decorators, body, body_hash, stmts):
        facts = {"assertions": [], "tolerance": [], "raises": [], "skip": []}
        self.analyze_region(decorators, False, facts)
        self.analyze_region(body, True, facts)
        for key in facts:
            facts[key].sort(key=lambda item: item[0])
            facts[key] = [item[1] for item in facts[key]]

        assertions = facts["assertions"]
        entries = self.skip_entries(fn.decorator_list, "function")
        skip = [name for name, _ in entries]
        skip_detail = [detail for _, detail in entries]
        markers = self.mark_names(fn.decorator_list, decorators.attrs)
        has_param, cases = self.parametrize_factor(fn.decorator_list)
        for cls in reversed(chain):  # innermost class first
            info = self.class_info(cls)
            skip.extend(info["skip"])
            skip_detail.extend(info["skip_detail"])
            markers |= info["markers"]
            c_has, c_cases = info["param"]
            if c_has:
                if has_param:
                    cases = None if (cases is None or c_cases is None) else cases * c_cases
                else:
                    cases = c_cases
                has_param = True
        if facts["skip"]:
            conditions = self.body_conditions(fn)
            for name, node, mark in facts["skip"]:
                skip.append(name)
                skip_detail.append(self.body_skip_detail(name, node, mark, conditions))

        args = fn.args
        fixtures = [a.arg for a in list(getattr(args, "posonlyargs", [])) + list(args.args)
                    + list(args.kwonlyargs) if a.arg not in ("self", "cls")]

        return {
            "name": qual,
            "line": fn.lineno,
            "end_line": getattr(fn, "end_lineno", None) or fn.lineno,
            "async": isinstance(fn, ast.AsyncFunctionDef),
            "body_hash": body_hash,
            "stmts": stmts,
            "asserts": len(assertions),
            "assertions": assertions,
            "compare": [list(a["ranks"]) for a in assertions],
            "truthy_only": sum(1 for a in assertions if a["truthy"]),
            "comparisons": sum(1 for a in assertions if a["comparison"]),
            "tolerance": facts["tolerance"],
            "raises": facts["raises"],
            "skip": skip,
            "skip_detail": skip_detail,
            "markers": sorted(markers),
            "parametrize_cases": (min(cases, PARAMETRIZE_CASES_MAX)
                                  if has_param and cases is not None else None),
            "fixtures": fixtures,
        }

    def run(self):
        found = self.iter_tests()
        # Walk everything once: the module minus the test functions, then each
        # test function on its own (regions + hash).  Names are resolved after
        # the walk because imports may appear anywhere in the file.
        module = Region()
        self.regions.append(module)
        self.walk(self.tree.body, set(id(fn) for _, fn, _ in found), [], module)
        walked = [(q, fn, chain) + self.walk_test(fn) for q, fn, chain in found]
        file_markers = self.resolve_names()
        module_marks = self.pytestmark_exprs(self.tree.body)
        module_entries = self.skip_entries(module_marks, "module")
        file_markers |= self.mark_names(module_marks)
        tests = [self.test_facts(*item) for item in walked]
        for t in tests:
            file_markers.update(t["markers"])
        return {
            "tests": tests,
            "defs": sorted(t["name"] for t in tests),
            "markers": sorted(file_markers),
            "module_skip": [name for name, _ in module_entries],
            "module_skip_detail": [detail for _, detail in module_entries],
            "imports": sorted(self.imports),
            "asserts": sum(t["asserts"] for t in tests),
        }


# ---------------------------------------------------------------------------
# Large files in pieces.  ast.parse holds about 150 bytes of AST per byte of
# source (a 4 MiB file: over 600 MB), so a file larger than PIECE_BYTES is
# parsed in pieces of whole top-level statements, one piece in memory at a
# time; only the facts and the few nodes that name resolution needs (imports,
# mark aliases, pytestmark) are kept.  A top-level class larger than
# PIECE_BYTES is split too, into pieces of its header (decorators and the
# `class ...:` lines) and a run of whole members of its body, each member at
# its own line and column (blank lines stand in for the rest): a test's facts
# read nothing of its class but the decorators, the class-level pytestmark and
# which names the body defines (shadowing), so a class without pytestmark whose
# members define every name once gives each test the facts it has in the whole
# class.  The result equals one whole-file parse, or the pieces are dropped and
# the file is parsed whole: when a piece does not parse (a cut inside a string
# or brackets, or a real syntax error, which the whole-file parse then
# reports), when the encoding is not plain UTF-8, or when a top-level name is
# defined in two pieces (shadowing decides what a test is).  A big class is
# kept in one piece when its text mentions pytestmark, when two members define
# the same name, when its header or body indentation is unusual, or when one of
# its pieces does not parse on its own (the file is then split again without
# cutting that class).
# ---------------------------------------------------------------------------

PIECE_BYTES = 256 * 1024
_PIECE_BYTES_ENV = "PW_FACTS_PIECE_BYTES"  # tests force tiny pieces with it
_CONTINUATIONS = ("else", "elif", "except", "finally")
_NOT_CODE = ("", " ", "\t", "#", ")", "]", "}", "\x0c", "\r")  # can't begin a statement
_MAX_JOINS = 8
_CLASS_HEADER_LINES = 64  # a longer `class ...:` header keeps its class in one piece


def piece_bytes():
    import os
    try:
        return max(1, int(os.environ.get(_PIECE_BYTES_ENV, "")))
    except ValueError:
        return PIECE_BYTES


def statement_cuts(lines, begin, end, indent):
    """Indices in (begin, end) of the lines that may begin a statement at
    `indent`: the indentation, then code that can begin a statement, not a
    continuation (else, except, ...) and not right after a decorator line.
    Cutting before one of them is right unless the line is inside a string,
    brackets or a backslash continuation, and then the text before the cut
    does not parse."""
    cuts, after_decorator, width = [], False, len(indent)
    for index in range(begin, end):
        line = lines[index]
        first = line[width:width + 1]
        if first in _NOT_CODE or not line.startswith(indent):
            continue
        words = line.split(None, 1)  # empty for a line of one "\x0b"
        word = words[0].rstrip(":") if words else ""
        if index > begin and not after_decorator and word not in _CONTINUATIONS:
            cuts.append(index)
        after_decorator = first == "@"
    return cuts


def split_pieces(text, limit, whole=()):
    """[(first line, source, header)]: pieces of at least `limit` characters
    each (the last one excepted), cut only before a line that starts in column
    0 with code that can begin a statement (header None), and the pieces of
    every top-level class over `limit` characters that class_pieces splits
    (header: the class's), or None when no cut was possible.  `whole`: first
    lines of the classes to keep in one piece."""
    lines = text.split("\n")
    pieces, start, size = [], 0, 0
    bounds = [0] + statement_cuts(lines, 0, len(lines), "") + [len(lines)]
    for begin, end in zip(bounds, bounds[1:]):
        unit = sum(len(line) + 1 for line in lines[begin:end])
        members = class_pieces(lines, begin, end, limit, whole) if unit > limit else None
        if members is not None:
            if start < begin:
                pieces.append((start + 1, "\n".join(lines[start:begin]) + "\n", None))
            pieces.extend(members)
            start, size = end, 0
            continue
        if size >= limit:
            pieces.append((start + 1, "\n".join(lines[start:begin]) + "\n", None))
            start, size = begin, 0
        size += unit
    if not pieces:
        return None
    if start < len(lines):
        pieces.append((start + 1, "\n".join(lines[start:]), None))
    return pieces


def _blank_or_comment(line):
    rest = line.lstrip(" \t\x0c")
    return rest in ("", "\r") or rest[:1] == "#"


def class_pieces(lines, begin, end, limit, whole):
    """The pieces of the top-level statement lines[begin:end] when it is a
    class that can be split: (first line, members, header) with members a run
    of at least `limit` characters of whole members of its body (the last run
    excepted) and header (first line, text) its decorators and `class ...:`
    lines, the same tuple in each; None to keep the statement in one piece."""
    head = None
    for index in range(begin, end):
        line = lines[index]
        if line[:1] in _NOT_CODE:
            if head is None and not _blank_or_comment(line):
                return None
            continue
        if head is None:
            head = index
        if line[:1] != "@":
            break
    else:
        return None
    if not (line.startswith("class") and line[5:6] in (" ", "\t")) or head + 1 in whole:
        return None
    class_line = index
    # pytestmark in a class body marks every test of it: one piece would miss
    # the marks of another.  Any mention keeps the class whole (a nested class's
    # own pytestmark would be safe, but this is cheap and sure).
    for index in range(head, end):
        if "pytestmark" in lines[index]:
            return None
    # Where the header ends: the first line after which the header parses with a
    # body at the indentation of the next code line.  Two statements, so that a
    # header ending in a backslash (`class X: \`, a body on the same logical
    # line) is not taken for one.
    for last in range(class_line, min(class_line + _CLASS_HEADER_LINES, end)):
        body = last + 1
        while body < end and _blank_or_comment(lines[body]):
            body += 1
        if body == end:
            return None
        line = lines[body]
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        if not indent or line[len(indent)] in _NOT_CODE or line[len(indent)] == "\x0b":
            continue
        header = "\n".join(lines[head:last + 1]) + "\n"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(header + indent + "pass\n" + indent + "pass\n")
        except (SyntaxError, ValueError):
            continue
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.ClassDef) and \
                [s.__class__ for s in tree.body[0].body] == [ast.Pass, ast.Pass]:
            break
    else:
        return None
    del tree
    # A name defined twice in the body: the later one shadows the earlier, which
    # a piece holding only one of them cannot tell.  Every member that defines a
    # name starts a line at the body's indentation.
    import re
    definition = re.compile(r"(?:async[ \t\x0c]+)?(?:def|class)[ \t\x0c]+(\w+)")
    names, width = set(), len(indent)
    for index in range(body, end):
        line = lines[index]
        if line.startswith(indent) and line[width:width + 1] not in _NOT_CODE:
            match = definition.match(line, width)
            if match:
                if match.group(1) in names:
                    return None
                names.add(match.group(1))
    header = (head + 1, header)
    pieces, start, size, prev = [], body, 0, body
    for cut in statement_cuts(lines, body, end, indent):
        size += sum(len(line) + 1 for line in lines[prev:cut])
        prev = cut
        if size >= limit:
            pieces.append((start + 1, "\n".join(lines[start:cut]) + "\n", header))
            start, size = cut, 0
    if not pieces:
        return None
    pieces.append((start + 1, "\n".join(lines[start:end]) + "\n", header))
    return pieces


def plain_utf8(data):
    """The text of `data` when pieces can be parsed from it exactly as the whole
    file would be: UTF-8 without BOM or coding cookie, no NUL, no lone CR."""
    if data.startswith(b"\xef\xbb\xbf") or b"\x00" in data:
        return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None
    import re
    for line in data.split(b"\n", 2)[:2]:
        if re.match(br"^[ \t\f]*#.*?coding[:=]", line):
            return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _parse_piece(piece, path):
    """The tree of one piece, every node at its line and column in the file."""
    first_line, source, header = piece
    if header is None:
        source = "\n" * (first_line - 1) + source
    else:
        head_line, head = header
        source = "".join(("\n" * (head_line - 1), head,
                          "\n" * (first_line - head_line - head.count("\n")), source))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=path)


def _alias_state(analyzer):
    return (sorted(analyzer.import_alias.items()),
            sorted((k, v[0], id(v[1])) for k, v in analyzer.mark_alias.items()))


class _KeepWhole(Exception):
    """Split the file again with this class (its first line) in one piece."""


def analyze_in_pieces(data, path, limit):
    """FileAnalyzer(ast.parse(data)).run(), one piece at a time, or None."""
    whole = set()
    while len(whole) <= _MAX_JOINS:
        text = plain_utf8(data)
        pieces = split_pieces(text, limit, whole) if text is not None else None
        if pieces is None:
            return None
        del text
        try:
            return _analyze_pieces(pieces, path)
        except _KeepWhole as exc:
            whole.add(exc.args[0])
    return None


def _analyze_pieces(pieces, path):
    """analyze_in_pieces for one split of the file, or None; raises _KeepWhole
    when a class should not have been split."""
    module_imports, test_imports, alias_stmts, module_marks = [], [], [], []
    marker_parts = []  # (dotted parts, attr) of every candidate <x>.mark.<attr>
    owner = {}         # top-level def/class name -> its piece (a split class: its header)
    members = {}       # split class -> {name its body defines -> index of its piece}
    results = []       # per piece: [tests, alias state they were computed with]
    final = FileAnalyzer(None)
    defines = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

    index, failures = 0, {}  # joins: of module-level pieces (None), of each class
    while index < len(pieces):
        first_line, source, header = pieces[index]
        try:
            tree = _parse_piece(pieces[index], path)
        except (SyntaxError, ValueError):
            # A cut inside brackets or a string: join the next piece and try
            # again, a few times; a real syntax error goes to the whole file.
            # Pieces of one class join member runs under the one header (a few
            # times per class, then it is kept in one piece); a join across a
            # class's header would not be the file's text, so that class is
            # kept in one piece instead.
            group = header[0] if header is not None else None
            failures[group] = failures.get(group, 0) + 1
            if index + 1 == len(pieces):
                return None
            following = pieces[index + 1][2]
            if following is not header or failures[group] > _MAX_JOINS:
                if header is not None or following is not None:
                    raise _KeepWhole((header or following)[0])
                return None
            pieces[index:index + 2] = [(first_line, source + pieces[index + 1][1], header)]
            continue
        key = index
        if header is not None:
            # One class statement (its header is the same text in each piece),
            # no pytestmark and no name defined in two of its pieces; a member
            # (a method, a nested class, an if/try block) reads nothing of the
            # others, so each test gets its whole-class facts.
            key = header
            if len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef) or \
                    FileAnalyzer(None).pytestmark_exprs(tree.body[0].body):
                raise _KeepWhole(header[0])
            names = members.setdefault(header[0], {})
            for stmt in tree.body[0].body:
                if isinstance(stmt, defines) and names.setdefault(stmt.name, index) != index:
                    raise _KeepWhole(header[0])
        for stmt in tree.body:
            if index and isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                return None
            if isinstance(stmt, defines):
                if owner.setdefault(stmt.name, key) != key:
                    return None
        analyzer = FileAnalyzer(tree)
        found = analyzer.iter_tests()
        module = Region()
        analyzer.regions.append(module)
        analyzer.walk(tree.body, set(id(fn) for _, fn, _ in found), [], module)
        module_imports.extend(analyzer.import_nodes)
        del analyzer.import_nodes[:]
        walked = [(q, fn, chain) + analyzer.walk_test(fn) for q, fn, chain in found]
        test_imports.extend(analyzer.import_nodes)
        alias_stmts.extend(FileAnalyzer.alias_statements(tree.body))
        module_marks.extend(analyzer.pytestmark_exprs(tree.body))
        for region in analyzer.regions:
            for node in region.attrs:
                parts = dotted_parts(node.value)
                if parts is not None:
                    marker_parts.append((parts, node.attr))
        analyzer.resolve_aliases(module_imports + test_imports, alias_stmts)
        results.append([[_dumps(analyzer.test_facts(*item)) for item in walked],
                        _alias_state(analyzer)])
        del tree, analyzer, found, module, walked
        index += 1

    # Imports and aliases further down apply to the tests above them too: a
    # piece computed before the last one changed them is computed again.
    final.resolve_aliases(module_imports + test_imports, alias_stmts)
    state = _alias_state(final)
    for index, result in enumerate(results):
        if result[1] == state:
            continue
        analyzer = FileAnalyzer(_parse_piece(pieces[index], path))
        analyzer.imports, analyzer.import_alias, analyzer.mark_alias = \
            final.imports, final.import_alias, final.mark_alias
        result[0] = [_dumps(analyzer.test_facts(*((q, fn, chain) + analyzer.walk_test(fn))))
                     for q, fn, chain in analyzer.iter_tests()]
        del analyzer
    # Each test is kept as its JSON text (about a tenth of the dict's memory).
    tests = RawTests(t for result in results for t in result[0])
    del results
    file_markers = set(attr for parts, attr in marker_parts
                       if final.canonical_parts(parts) == "pytest.mark")
    module_entries = final.skip_entries(module_marks, "module")
    file_markers |= final.mark_names(module_marks)
    names, asserts = [], 0
    for text in tests:
        t = json.loads(text)
        file_markers.update(t["markers"])
        names.append(t["name"])
        asserts += t["asserts"]
    return {
        "tests": tests,
        "defs": sorted(names),
        "markers": sorted(file_markers),
        "module_skip": [name for name, _ in module_entries],
        "module_skip_detail": [detail for _, detail in module_entries],
        "imports": sorted(final.imports),
        "asserts": asserts,
    }


class RawTests(list):
    """Tests already serialised by _dumps; main() splices them into the answer."""


def _dumps(value):
    return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def answer_chunks(out):
    """json.dumps of the answer in pieces, with every RawTests list spliced in
    as is: written one by one, the answer is never one string (nor its bytes)
    in memory beside the tests it holds."""
    import os
    token = "\x00pw-raw-tests-" + binascii.hexlify(os.urandom(8)).decode("ascii")
    raw = []
    for result in out["files"]:
        if isinstance(result.get("tests"), RawTests):
            raw.append(result["tests"])
            result["tests"] = token
    if not raw:
        yield _dumps(out)
        return
    # The token is unguessable, so the source's own strings never match it; the
    # placeholders are found in the answer before anything is spliced in.
    chunks = _dumps(out).split(_dumps(token))
    if len(chunks) != len(raw) + 1:
        raise RuntimeError("raw tests placeholder lost")
    yield chunks[0]
    for tests, chunk in zip(raw, chunks[1:]):
        yield "["
        for index, test in enumerate(tests):
            yield "," + test if index else test
        yield "]"
        yield chunk


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


# ---------------------------------------------------------------------------
# Guard for interpreters whose parser crashes (SIGSEGV) on extremely deep
# expressions (Python < 3.11, e.g. `x = a + a + ... ` with ~150k operands).
# ---------------------------------------------------------------------------

_DEEP_GUARD_MIN_BYTES = 100000   # below this a file cannot nest deeply enough
_DEEP_GUARD_MAX_RUN = 50000      # tokens in one comma-free run at one bracket level


def _python_version():
    return "%d.%d.%d" % sys.version_info[:3]


def _b64decode(text):
    raw = text.encode("ascii")
    if sys.version_info >= (3, 11):
        return binascii.a2b_base64(raw, strict_mode=True)
    import base64
    return base64.b64decode(raw, validate=True)


def too_deep_for_parser(data):
    if sys.version_info >= (3, 11) or len(data) < _DEEP_GUARD_MIN_BYTES:
        return False
    import io
    import tokenize
    try:
        runs = [0]
        for tok in tokenize.tokenize(io.BytesIO(data).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                runs = [0]
                continue
            if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.ENCODING):
                continue
            s = tok.string
            if tok.type == tokenize.OP and s in ("(", "[", "{"):
                runs[-1] += 1
                runs.append(0)
                continue
            if tok.type == tokenize.OP and s in (")", "]", "}"):
                if len(runs) > 1:
                    runs.pop()
                continue
            if tok.type == tokenize.OP and s in (",", ";", ":"):
                runs[-1] = 0
                continue
            runs[-1] += 1
            if runs[-1] > _DEEP_GUARD_MAX_RUN:
                return True
    except Exception:  # tokenize errors: let ast.parse report them
        return False
    return False


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def empty_result(entry_id, path):
    return {"id": entry_id, "path": path, "error": None, "tests": [], "defs": [],
            "markers": [], "module_skip": [], "module_skip_detail": [], "imports": [],
            "asserts": 0}


def process_file(entry):
    result = empty_result(entry["id"], entry["path"])

    def fail(line, column, message):
        result["error"] = {"line": int(line or 0), "column": int(column or 0),
                           "message": message}
        return result

    try:
        data = _b64decode(entry["b64"])
    except (binascii.Error, ValueError, UnicodeError) as exc:
        return fail(0, 0, "invalid base64 content: %s" % (exc,))

    try:
        if too_deep_for_parser(data):
            return fail(0, 0, "expression nesting too deep for the Python %s parser"
                        % _python_version())
        path = entry["path"] or "<unknown>"
        limit = piece_bytes()
        facts = analyze_in_pieces(data, path, limit) if len(data) > limit else None
        if facts is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(data, filename=path)
            facts = FileAnalyzer(tree).run()
            del tree
    except SyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else 0
        col = exc.offset if isinstance(exc.offset, int) and exc.offset > 0 else 0
        return fail(line, col, exc.msg or type(exc).__name__)
    except ValueError as exc:  # e.g. NUL bytes on Python < 3.11.x/3.12
        return fail(0, 0, str(exc) or type(exc).__name__)
    except MemoryError:
        # Not the file's fault: the caller reports a harness error, never PARSE_ERROR.
        result = fail(0, 0, "MemoryError")
        result["error"]["resource"] = True
        return result
    except RecursionError as exc:
        text = str(exc)
        return fail(0, 0, type(exc).__name__ + (": " + text if text else ""))
    except Exception as exc:  # never let one file break the batch
        text = str(exc)
        return fail(0, 0, "extractor failure: " + type(exc).__name__ +
                    (": " + text if text else ""))
    result.update(facts)
    return result


def read_request(raw):
    """Parsed request, or an error string."""
    try:
        request = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        return None, "stdin is not valid JSON: %s" % (exc,)
    if not isinstance(request, dict) or not isinstance(request.get("files"), list):
        return None, 'stdin must be a JSON object {"files": [...]}'
    for index, entry in enumerate(request["files"]):
        if not isinstance(entry, dict):
            return None, "files[%d] is not an object" % index
        for key in ("id", "path", "b64"):
            if not isinstance(entry.get(key), str):
                return None, "files[%d].%s must be a string" % (index, key)
    return request, None


def main():
    warnings.simplefilter("ignore")
    # Deep (but legitimate) expressions: ast.dump / ast.unparse recurse in Python.
    if sys.getrecursionlimit() < 6000:
        sys.setrecursionlimit(6000)
    raw = sys.stdin.buffer.read()
    request, error = read_request(raw)
    if error is not None:
        sys.stderr.write("pw_facts.py: " + error + "\n")
        return 2
    # ASTs and facts are acyclic: the cyclic GC would only rescan the growing
    # answer again and again (quadratic on big batches).  Collect now and then,
    # and freeze what survived so it is never scanned again.
    gc.disable()
    files = []
    for index, entry in enumerate(request["files"]):
        if index % 64 == 63:
            gc.collect()
            if hasattr(gc, "freeze"):
                gc.freeze()
        try:
            files.append(process_file(entry))
        except Exception as exc:  # belt and braces: still one object per file
            result = empty_result(entry["id"], entry["path"])
            result["error"] = {"line": 0, "column": 0,
                               "message": "extractor failure: %s" % type(exc).__name__}
            if isinstance(exc, MemoryError):
                result["error"]["resource"] = True
            files.append(result)
    out = {"extractor": EXTRACTOR_VERSION, "python": _python_version(),
           "files": files}
    try:
        write = sys.stdout.buffer.write
        for chunk in answer_chunks(out):
            write(chunk.encode("ascii"))
        write(b"\n")
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
