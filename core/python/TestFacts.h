#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// Facts about Python test files, as produced by the bundled extractor
// (resources/python/pw_facts.py) and cached on disk by blob id. Plain values.

// Comparison ranks: == != is is-not → 0; < <= > >= → 1; in / not in / other → 2;
// bare truthiness → 3.
struct AssertionFact
{
    int line = 0;
    std::string text;       // normalised: ast.unparse of the test (or of the matcher call)
    std::vector<int> ranks; // sorted comparison ranks of this assertion
    bool truthy = false;    // a bare name/attribute/unary/call (no comparison)
    bool comparison = false;
};

struct ToleranceFact
{
    int line = 0;
    std::string kind;            // "abs", "rel", "places" (already converted to 10^-P, kind "abs")
    std::optional<double> value; // nullopt: computed (not a literal) → infinitely wide
    std::string text;
};

struct RaisesFact
{
    int line = 0;
    int rank = 0;                   // widest member for tuples
    std::vector<std::string> names; // exception class names as written ("KeyError", "exc.Foo")
    // For each name that is a builtin exception: its builtin MRO, most derived first
    // ("KeyError", "LookupError", "Exception", "BaseException"); empty for others.
    std::vector<std::vector<std::string>> mro;
    std::string text;
};

// One skip-family mark or call behind an entry of `skip` (same order), with when it
// applies: the difference between a test that never runs here and one gated on a version.
struct SkipFact
{
    std::string mark;  // as in `skip`: "pytest.mark.skipif", "unittest.skip", "pytest.skip()"
    std::string scope; // "function", "class", "module" (pytestmark), "body", "param" (a case)
    int line = 0;
    // nullopt: always (no condition, a true constant, a call the body always reaches);
    // else when, as a sentence fragment with code in backticks ("`not PY_3_8_PLUS`").
    std::optional<std::string> when;

    // An expected failure (xfail, expectedFailure): the test runs, its outcome does not count.
    bool xfail() const;
};

struct TestFunctionFacts
{
    std::string name; // "test_x" or "TestClass::test_x"
    int line = 0;     // of the def (decorators excluded)
    int endLine = 0;
    bool isAsync = false;
    std::string bodyHash; // sha256 hex of the position-free ast dump (name excluded)
    // Sorted hashes of every statement of the body (nested ones included, each without the
    // statements nested in it): how much of a body survives an edit (TestPairing).
    std::vector<std::string> statements;
    int asserts = 0;                       // assert statements + unittest matcher calls
    std::vector<AssertionFact> assertions; // in source order
    int truthyOnly = 0;
    int comparisons = 0;
    std::vector<ToleranceFact> tolerances;
    std::vector<RaisesFact> raises;
    std::vector<std::string> skip;    // "pytest.mark.skip", "pytest.mark.xfail", "unittest.skip",
                                      // "pytest.skip()", "pytest.xfail()" ... (decorators on the
                                      // function or its class, then in-body calls)
    std::vector<SkipFact> skipDetail; // one per `skip` entry, same order
    std::vector<std::string> markers; // every pytest.mark.X name (function + class)
    std::optional<int> parametrizeCases; // product of literal parametrize lists; nullopt unknown
    std::vector<std::string> fixtures;   // argument names (self excluded)

    // The "compare" metric: per assertion its sorted ranks.
    std::vector<std::vector<int>> compare() const;
};

struct ParseError
{
    int line = 0;
    int column = 0;
    std::string message;
    // Not parsed at all: the file is over `test_file_max_bytes` (message says by how much).
    bool tooLarge = false;
};

struct FileFacts
{
    std::string path;
    std::string blob;                       // blob id the facts were computed for
    std::optional<ParseError> error;        // set: the file did not parse; tests are empty
    std::vector<TestFunctionFacts> tests;   // source order
    std::vector<std::string> defs;          // sorted test names (TestFunctionFacts::name)
    std::vector<std::string> markers;       // sorted, unique: every pytest.mark.X in the file
    std::vector<std::string> moduleSkip;    // module-level `pytestmark` skip-family markers
    std::vector<SkipFact> moduleSkipDetail; // one per `moduleSkip` entry
    std::vector<std::string> imports;       // sorted, unique top-level module names imported
    int asserts = 0;                        // sum over the file's test functions

    const TestFunctionFacts *test(const std::string &name) const;
};

} // namespace pw::core
