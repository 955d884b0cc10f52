#!/usr/bin/env python3
"""Golden-corpus check for the bundled fact extractor (resources/python/pw_facts.py).

    check.py [--python PY] [--extractor PATH]        compare against reference/
    check.py [--python PY] [--extractor PATH] --regenerate

Check mode runs the extractor ONCE over every input/*.py (one batch, so state leaking
from one file into the next shows up) and compares each file object with
reference/<name>.json, printing a unified diff per mismatch; exit 1 on any mismatch.
Regenerate mode (used by regenerate.sh) runs one batch per file and rewrites the
references plus reference/PYTHON (the interpreter's major.minor).

When the interpreter's major.minor differs from reference/PYTHON, fields whose
spelling depends on the Python version (body_hash, stmts, parse-error message/column, and
without ast.unparse the normalised texts) are not compared; the body-hash invariants
below and the protocol checks still are.

Standard library only; the checking interpreter may differ from PY.
"""

import argparse
import base64
import copy
import difflib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT_DIR = os.path.join(HERE, "input")
REFERENCE_DIR = os.path.join(HERE, "reference")
DEFAULT_EXTRACTOR = os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "resources", "python", "pw_facts.py"))

# body_hash.py: which tests must share a hash, which must all differ.
HASH_EQUAL = [("test_original", "test_renamed_copy", "test_reformatted_copy")]
HASH_DISTINCT = ["test_original", "test_changed_literal", "test_changed_argument",
                 "test_added_decorator", "test_async_twin"]

# stmt_hashes.py: (test, other, entries only in test, entries only in other) of the
# statement-hash multisets: formatting changes nothing, an added assertion adds one entry,
# an edit inside a `with` block replaces one entry (not the block's header).
STMT_DIFFERENCES = [("test_original", "test_reformatted", 0, 0),
                    ("test_original", "test_extended", 0, 1),
                    ("test_original", "test_block_edited", 1, 1)]
# statements per test (nested ones and except handlers included)
STMT_COUNTS = {"test_original": 5, "test_compound_headers": 9}


def input_names():
    return sorted(n for n in os.listdir(INPUT_DIR) if n.endswith(".py"))


def request_for(names):
    files = []
    for name in names:
        with open(os.path.join(INPUT_DIR, name), "rb") as f:
            data = f.read()
        files.append({"id": name, "path": "tests/" + name,
                      "b64": base64.b64encode(data).decode("ascii")})
    return {"files": files}


def run_extractor(python, extractor, payload):
    """(exit code, parsed stdout or None, stderr text) for raw stdin bytes."""
    proc = subprocess.run([python, extractor], input=payload,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out = json.loads(proc.stdout.decode("utf-8")) if proc.stdout.strip() else None
    except ValueError:
        out = "NOT JSON: " + proc.stdout.decode("utf-8", "replace")[:400]
    return proc.returncode, out, proc.stderr.decode("utf-8", "replace")


def extract(python, extractor, names):
    payload = json.dumps(request_for(names)).encode("utf-8")
    rc, out, err = run_extractor(python, extractor, payload)
    if rc != 0 or not isinstance(out, dict):
        sys.stderr.write("extractor failed (exit %d): %s\n%s\n" % (rc, out, err))
        sys.exit(1)
    if err.strip():
        sys.stderr.write("extractor wrote to stderr:\n" + err + "\n")
        sys.exit(1)
    return out


def pretty(obj):
    return json.dumps(obj, indent=2, sort_keys=True) + "\n"


def mask(obj, no_text):
    obj = copy.deepcopy(obj)
    if obj.get("error"):
        obj["error"]["message"] = "<version dependent>"
        obj["error"]["column"] = "<version dependent>"
    for test in obj.get("tests", []):
        test["body_hash"] = "<version dependent>"
        test["stmts"] = "<version dependent>"
        if no_text:
            for key in ("assertions", "tolerance", "raises"):
                for item in test.get(key, []):
                    item["text"] = "<version dependent>"
            for item in test.get("raises", []):  # computed exception expressions
                item["names"] = [n if re.match(r"^[\w.]+$", n) else "<version dependent>"
                                 for n in item["names"]]
    return obj


def regenerate(python, extractor):
    version = None
    for name in input_names():
        out = extract(python, extractor, [name])
        version = ".".join(out["python"].split(".")[:2])
        target = os.path.join(REFERENCE_DIR, name[:-3] + ".json")
        with open(target, "w", encoding="utf-8", newline="\n") as f:
            f.write(pretty(out["files"][0]))
        print("wrote", os.path.relpath(target, HERE))
    with open(os.path.join(REFERENCE_DIR, "PYTHON"), "w", newline="\n") as f:
        f.write(version + "\n")
    return 0


def check_protocol(python, extractor, failures):
    rc, out, _ = run_extractor(python, extractor, b"this is not json")
    if rc != 2 or out is not None:
        failures.append("protocol: invalid JSON must exit 2 with empty stdout "
                        "(got %d, %r)" % (rc, out))
    rc, out, _ = run_extractor(python, extractor, b'{"files": [{"id": 1}]}')
    if rc != 2 or out is not None:
        failures.append("protocol: malformed file entry must exit 2 (got %d)" % rc)
    rc, out, _ = run_extractor(python, extractor, b'{"files": []}')
    if rc != 0 or not isinstance(out, dict) or out.get("files") != [] \
            or out.get("extractor") != 2:
        failures.append("protocol: empty batch must answer {extractor: 2, files: []} "
                        "(got %d, %r)" % (rc, out))
    bad = {"files": [{"id": "x", "path": "tests/x.py", "b64": "!!not base64!!"}]}
    rc, out, _ = run_extractor(python, extractor, json.dumps(bad).encode())
    if rc != 0 or not isinstance(out, dict) or not out["files"][0].get("error"):
        failures.append("protocol: invalid base64 must be a per-file error (got %d)" % rc)


def check_hash_invariants(by_name, failures):
    facts = by_name.get("body_hash.py")
    if facts is None:
        failures.append("body_hash.py missing from the corpus")
        return
    hashes = dict((t["name"], t["body_hash"]) for t in facts["tests"])
    for group in HASH_EQUAL:
        if len(set(hashes.get(n) for n in group)) != 1:
            failures.append("body_hash: %s must share one hash" % ", ".join(group))
    distinct = [hashes.get(n) for n in HASH_DISTINCT]
    if None in distinct or len(set(distinct)) != len(distinct):
        failures.append("body_hash: %s must all differ" % ", ".join(HASH_DISTINCT))


def check_statement_invariants(by_name, failures):
    facts = by_name.get("stmt_hashes.py")
    if facts is None:
        failures.append("stmt_hashes.py missing from the corpus")
        return
    stmts = dict((t["name"], t["stmts"]) for t in facts["tests"])
    wanted = set(n for row in STMT_DIFFERENCES for n in row[:2]) | set(STMT_COUNTS)
    missing = sorted(wanted - set(stmts))
    if missing:
        failures.append("stmts: stmt_hashes.py lacks the tests %s" % ", ".join(missing))
        return

    def only(a, b):
        rest = list(b)
        out = 0
        for h in a:
            if h in rest:
                rest.remove(h)
            else:
                out += 1
        return out

    for a, b, only_a, only_b in STMT_DIFFERENCES:
        got = (only(stmts[a], stmts[b]), only(stmts[b], stmts[a]))
        if got != (only_a, only_b):
            failures.append("stmts: %s vs %s must differ by %s entries, not %s"
                            % (a, b, (only_a, only_b), got))
    for name, count in sorted(STMT_COUNTS.items()):
        if len(stmts[name]) != count:
            failures.append("stmts: %s must have %d entries, not %d"
                            % (name, count, len(stmts[name])))
    for name, hashes in stmts.items():
        if hashes != sorted(hashes):
            failures.append("stmts: %s must be sorted" % name)


def check(python, extractor):
    names = input_names()
    out = extract(python, extractor, names)
    actual_version = ".".join(out["python"].split(".")[:2])
    try:
        with open(os.path.join(REFERENCE_DIR, "PYTHON")) as f:
            reference_version = f.read().strip()
    except OSError:
        reference_version = None
    relaxed = reference_version != actual_version
    no_text = relaxed and tuple(int(x) for x in actual_version.split(".")) < (3, 9)
    if relaxed:
        print("note: references come from Python %s, extractor runs on %s: "
              "version-dependent fields are not compared" % (reference_version,
                                                            out["python"]))
    failures = []
    if [f.get("id") for f in out["files"]] != names:
        failures.append("answer is not one file object per input, in input order")
    by_name = {}
    for name, facts in zip(names, out["files"]):
        by_name[name] = facts
        ref_path = os.path.join(REFERENCE_DIR, name[:-3] + ".json")
        if not os.path.exists(ref_path):
            failures.append("%s: no reference (run regenerate.sh)" % name)
            continue
        with open(ref_path, encoding="utf-8") as f:
            expected = json.load(f)
        got = facts
        if relaxed:
            expected, got = mask(expected, no_text), mask(got, no_text)
        if pretty(got) != pretty(expected):
            diff = difflib.unified_diff(
                pretty(expected).splitlines(True), pretty(got).splitlines(True),
                "reference/" + name[:-3] + ".json", "actual/" + name[:-3] + ".json")
            sys.stdout.write("".join(diff))
            failures.append("%s: facts differ from the reference" % name)
    check_hash_invariants(by_name, failures)
    check_statement_invariants(by_name, failures)
    check_protocol(python, extractor, failures)
    for line in failures:
        print("FAIL:", line)
    if failures:
        return 1
    print("golden facts: %d files OK (Python %s)" % (len(names), out["python"]))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=os.environ.get("PW_PYTHON", "/usr/bin/python3"),
                        help="interpreter that runs the extractor "
                             "(default: $PW_PYTHON or /usr/bin/python3)")
    parser.add_argument("--extractor", default=DEFAULT_EXTRACTOR)
    parser.add_argument("--regenerate", action="store_true",
                        help="rewrite reference/ (one batch per input file)")
    args = parser.parse_args()
    if args.regenerate:
        return regenerate(args.python, args.extractor)
    return check(args.python, args.extractor)


if __name__ == "__main__":
    sys.exit(main())
