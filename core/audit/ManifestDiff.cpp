#include "audit/ManifestDiff.h"

#include "audit/TestPairing.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace pw::core {
namespace {

const char *kDelEvidence = "replacement test id or written rationale (a census waiver)";
const char *kSkipEvidence = "a freeze record with an expiry";

Finding make(const TestFileChange &c, const char *code, Severity severity, int line,
             std::string test, std::string message, std::string evidence)
{
    Finding f;
    f.gate = "manifest";
    f.code = code;
    f.severity = severity;
    f.path = c.path;
    f.line = line;
    f.test = std::move(test);
    f.message = std::move(message);
    f.evidence = std::move(evidence);
    return f;
}

std::string joined(const std::vector<std::string> &items, size_t max = 8)
{
    return join(items, ", ", max, JoinRest::EllipsisMore);
}

std::string joined(const std::set<std::string> &items)
{
    return joined(std::vector<std::string>(items.begin(), items.end()));
}

void parseErrors(const TestFileChange &c, std::vector<Finding> &out)
{
    // Not parsed because of its size: nothing is known of its tests, so it is not a pass —
    // a person reads it (REVIEW), and it is not the patch's syntax error either.
    auto tooLarge = [&](const FileFacts &facts, const std::string &path, const char *side) {
        Finding f = make(c, "TOO-LARGE", Severity::Review, 0, {},
                         path + ": " + facts.error->message + " at " + side +
                             " (its tests were not compared; read it yourself, or raise "
                             "`test_file_max_bytes`)",
                         "a person who read the file");
        f.path = path;
        out.push_back(std::move(f));
    };
    if (c.head && c.head->error && c.head->error->tooLarge)
        tooLarge(*c.head, c.path, "head");
    if (c.base && c.base->error && c.base->error->tooLarge)
        tooLarge(*c.base, c.basePath, "base");
    if (c.head && c.head->error && !c.head->error->tooLarge) {
        const ParseError &e = *c.head->error;
        out.push_back(make(c, "PARSE_ERROR", Severity::Block, e.line, {},
                           c.path + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) +
                               ": " + e.message + " (the test file does not parse at head)",
                           "a test file that parses"));
    }
    if (c.base && c.base->error && !c.base->error->tooLarge) {
        const ParseError &e = *c.base->error;
        Finding f = make(c, "PARSE_ERROR", Severity::Info, e.line, {},
                         c.basePath + ":" + std::to_string(e.line) + ":" +
                             std::to_string(e.column) + ": " + e.message +
                             " (the test file did not parse at base; its tests are not compared)",
                         "none");
        f.path = c.basePath;
        out.push_back(std::move(f));
    }
}

// The skip details of a test (its own, its classes', its body's), falling back to the bare
// marker names for facts without details.
std::vector<SkipFact> skipDetailsOf(const TestFunctionFacts &t)
{
    if (t.skipDetail.size() == t.skip.size())
        return t.skipDetail;
    std::vector<SkipFact> out;
    for (const std::string &mark : t.skip) {
        const bool always = mark == "pytest.mark.skip" || mark == "unittest.skip" ||
                            mark == "unittest.expectedFailure";
        out.push_back({mark, "function", t.line,
                       always ? std::nullopt : std::optional<std::string>("a condition holds")});
    }
    return out;
}

std::string placeOf(const SkipFact &s)
{
    if (s.scope == "class")
        return " on its class";
    if (s.scope == "module")
        return " (the module's pytestmark)";
    if (s.scope == "body")
        return " in its body";
    if (s.scope == "param")
        return " on some of its parametrize cases";
    return {};
}

std::string describeSkip(const SkipFact &s)
{
    std::string text = s.xfail() ? "expected to fail" : "skipped";
    if (s.when)
        text += " when " + *s.when;
    return text + " (" + s.mark + placeOf(s) + ", line " + std::to_string(s.line) + ")";
}

// The T-ADD note of a new test that does not run here from birth (or nothing): review
// when it never runs or never counts, info naming the condition when one decides.
std::optional<Finding> birthNote(const TestFileChange &c, const TestFunctionFacts &t,
                                 const FileFacts &file)
{
    std::vector<SkipFact> skips = skipDetailsOf(t);
    for (const SkipFact &s : file.moduleSkipDetail)
        skips.push_back(s);
    if (skips.empty())
        return std::nullopt;
    auto always = [](const SkipFact &s) { return !s.when && s.scope != "param"; };
    const auto never = std::find_if(skips.begin(), skips.end(),
                                    [&](const SkipFact &s) { return always(s) && !s.xfail(); });
    const auto uncounted = std::find_if(skips.begin(), skips.end(),
                                        [&](const SkipFact &s) { return always(s) && s.xfail(); });
    const std::string id = c.testId(t.name);
    if (never != skips.end()) {
        return make(c, "T-ADD", Severity::Review, t.line, id,
                    "new test that does not run here: " + describeSkip(*never),
                    "reviewer confirms the new test is meant not to run (or makes it run)");
    }
    if (uncounted != skips.end()) {
        return make(c, "T-ADD", Severity::Review, t.line, id,
                    "new test whose outcome does not count here: " + describeSkip(*uncounted),
                    "reviewer confirms the new test is meant to fail (or makes it pass)");
    }
    std::vector<std::string> conditions;
    for (const SkipFact &s : skips)
        conditions.push_back(describeSkip(s));
    return make(c, "T-ADD", Severity::Info, t.line, id,
                "new test that may not run here: " + joined(conditions, 4) +
                    "; whether the condition holds depends on the environment (the census "
                    "says whether it ran)",
                "none");
}

std::string renameMessage(const TestFileChange &c, const TestPair &p)
{
    const bool sameFile = p.baseFile == c.basePath;
    const std::string from = sameFile ? p.base->name : p.baseFile + "::" + p.base->name;
    if (p.match == TestMatch::Body && sameFile)
        return "pure rename: " + p.base->name + " -> " + p.head->name + " (same body)";
    if (p.match == TestMatch::Body)
        return "moved from " + from + " (same body)";
    return std::string(sameFile ? "renamed" : "moved") + " from " + from + " (" +
           std::to_string(p.similarity) +
           "% of its statements kept): scored by latitude and strength across the match";
}

// The functions a test's assertions call, by their last name ("calc.add(1, 2) == 3" → add),
// leaving out the helpers every test calls (approx, len, isinstance …) and unittest's
// matchers.
std::set<std::string> calledNames(const TestFunctionFacts &t)
{
    static const std::set<std::string> common = {
        "approx", "raises", "warns", "len", "isinstance", "issubclass", "list",
        "dict",   "set",    "tuple", "str", "int",        "float",      "bool",
        "sorted", "repr",   "type",  "all", "any",        "getattr",    "hasattr"};
    std::set<std::string> names;
    for (const AssertionFact &a : t.assertions) {
        const std::string &text = a.text;
        for (size_t i = 0; i < text.size(); ++i) {
            if (text[i] != '(' || i == 0)
                continue;
            size_t start = i;
            while (start > 0 && (std::isalnum(static_cast<unsigned char>(text[start - 1])) ||
                                 text[start - 1] == '_'))
                --start;
            const std::string name = text.substr(start, i - start);
            // unittest's matchers (assertEqual, assertRaisesRegex, fail…) are no code under test
            const bool matcher = name.rfind("assert", 0) == 0 || name.rfind("fail", 0) == 0;
            if (!name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                !common.count(name) && !matcher)
                names.insert(name);
        }
    }
    return names;
}

// Where a deleted test's checks most likely went: a test of the same file that is new or
// changed in the patch, is not skipped, and calls what it called (most shared names first,
// a parametrised one before a plain one); without calls to compare, the only new
// parametrised test there. Two tests folded into one parametrised test are its usual case.
struct Successor
{
    const TestFunctionFacts *test = nullptr;
    std::vector<std::string> shared; // the calls both make
    bool fresh = false;              // new in the patch (else changed)
};

Successor successorOf(const TestFunctionFacts &gone, const std::vector<const TestPair *> &here)
{
    const std::set<std::string> calls = calledNames(gone);
    Successor best;
    int bestScore = 0;
    const TestFunctionFacts *onlyNewCases = nullptr;
    int newCases = 0;
    for (const TestPair *p : here) {
        if (!p->head)
            continue;
        const bool fresh = !p->base;
        if (!fresh && p->base->bodyHash == p->head->bodyHash)
            continue; // unchanged: not where the deleted checks went
        if (!p->head->skip.empty())
            continue; // skipped or xfailed: it checks nothing a waiver could lean on
        const bool cases = p->head->parametrizeCases.value_or(0) > 1;
        if (fresh && cases) {
            onlyNewCases = p->head;
            ++newCases;
        }
        std::vector<std::string> shared;
        for (const std::string &name : calledNames(*p->head)) {
            if (calls.count(name))
                shared.push_back(name);
        }
        const int score = int(shared.size()) * 4 + (cases ? 2 : 0) + (fresh ? 1 : 0);
        if (!shared.empty() && score > bestScore) {
            bestScore = score;
            best = {p->head, shared, fresh};
        }
    }
    if (!best.test && calls.empty() && newCases == 1)
        best = {onlyNewCases, {}, true};
    return best;
}

// The findings of one changed test file, given the patch's pairs.
class FileVerdicts
{
public:
    FileVerdicts(const TestFileChange &c, const std::vector<TestPair> &pairs,
                 const std::vector<TestFileChange> &changes, std::vector<Finding> &out)
        : m_c(c), m_changes(changes), m_out(out)
    {
        for (const TestPair &p : pairs) {
            const bool headHere = p.head && c.head && p.headFile == c.path;
            const bool baseHere = p.base && c.base && p.baseFile == c.basePath;
            if (headHere)
                m_here.push_back(&p);
            else if (baseHere && !p.head)
                m_here.push_back(&p);
            else if (baseHere)
                m_movedOut.push_back(&p);
        }
    }

    void evaluate()
    {
        parseErrors(m_c, m_out);
        const bool baseOk = m_c.base && !m_c.base->error;
        const bool headOk = m_c.head && !m_c.head->error;
        if (!m_c.base && headOk)
            added();
        if (baseOk && !m_c.head) {
            gone();
            return;
        }
        const bool hasTests =
            (baseOk && !m_c.base->tests.empty()) || (headOk && !m_c.head->tests.empty());
        if (m_c.status == ChangeStatus::Renamed && m_c.head && !m_c.basePath.empty() &&
            hasTests) { // a conftest or helper moved is the fixture gate's to report
            m_out.push_back(make(m_c, "T-RENAME", Severity::Info, 1, {},
                                 "test file renamed from " + m_c.basePath + " (similarity " +
                                     std::to_string(m_c.similarity) + "%)",
                                 "none"));
        }
        if (!headOk)
            return; // an unparsable head is one PARSE_ERROR, not a list of lost tests
        tests(baseOk ? &*m_c.base : nullptr, *m_c.head);
    }

private:
    // The base files of the pairs whose base side is in another file.
    std::set<std::string> movedInFrom() const
    {
        std::set<std::string> files;
        for (const TestPair *p : m_here) {
            if (p->base && p->baseFile != m_c.basePath)
                files.insert(p->baseFile);
        }
        return files;
    }

    void added()
    {
        const FileFacts &head = *m_c.head;
        if (head.tests.empty())
            return; // a helper or conftest under the test globs adds no tests
        const std::set<std::string> from = movedInFrom();
        size_t moved = 0;
        for (const TestPair *p : m_here)
            moved += p->base ? 1 : 0;
        const std::string count = std::to_string(head.tests.size()) + " test(s)";
        std::string message;
        if (!m_c.outsidePath.empty())
            message = "test file moved in from " + m_c.outsidePath +
                      " (outside the test globs there) with " + count;
        else
            message = "new test file with " + count;
        if (moved == head.tests.size())
            message += ", all moved from " + joined(from);
        else if (moved > 0)
            message += ", " + std::to_string(moved) + " of them moved from " + joined(from);
        m_out.push_back(make(m_c, "T-ADD", Severity::Info, 1, {}, message, "none"));
    }

    void gone()
    {
        const FileFacts &base = *m_c.base;
        if (base.tests.empty())
            return;
        std::set<std::string> to;
        for (const TestPair *p : m_movedOut)
            to.insert(p->headFile);
        std::vector<const TestPair *> lost;
        for (const TestPair *p : m_here)
            lost.push_back(p);
        const std::string movedOut =
            m_c.status == ChangeStatus::Renamed && !m_c.outsidePath.empty()
                ? "renamed to " + m_c.outsidePath + ", outside the test globs"
                : "removed";
        if (m_movedOut.empty()) {
            std::string message = "test file " + movedOut + " with " +
                                  std::to_string(base.tests.size()) +
                                  " test(s): " + joined(base.defs);
            if (!m_c.outsidePath.empty())
                message += " (they are no longer collected)";
            m_out.push_back(make(m_c, "T-GONE", Severity::Block, 0, {}, message, kDelEvidence));
            return;
        }
        m_out.push_back(make(m_c, "T-RENAME", Severity::Info, 0, {},
                             "test file " + movedOut + "; " +
                                 (lost.empty() ? std::string("its ")
                                               : std::to_string(m_movedOut.size()) + " of its ") +
                                 std::to_string(base.tests.size()) + " test(s) moved to " +
                                 joined(to),
                             "none"));
        for (const TestPair *p : lost) {
            m_out.push_back(
                make(m_c, "T-DEL", Severity::Block, p->base->line, m_c.testId(p->base->name),
                     "test function " + p->base->name +
                         " disappeared with its file (its other tests moved to " + joined(to) + ")",
                     kDelEvidence));
        }
    }

    const FileFacts *fileFacts(const std::string &path, bool headSide) const
    {
        for (const TestFileChange &c : m_changes) {
            if (headSide ? (c.path == path && c.head) : (c.basePath == path && c.base))
                return headSide ? &*c.head : &*c.base;
        }
        return nullptr;
    }

    void tests(const FileFacts *base, const FileFacts &head)
    {
        bool lost = false;
        bool existingTests = false; // a head test of this file exists at base
        int baseAsserts = base ? base->asserts : 0;
        int headAsserts = head.asserts;
        for (const TestPair *p : m_movedOut)
            baseAsserts -= p->base->asserts; // their assertions went with them
        for (const TestPair *p : m_here) {
            if (p->base && !p->head) {
                lost = true;
                std::string message = "test function " + p->base->name + " disappeared";
                const Successor next = successorOf(*p->base, m_here);
                Finding f = make(m_c, "T-DEL", Severity::Block, p->base->line,
                                 m_c.testId(p->base->name), std::string(), kDelEvidence);
                if (next.test) {
                    f.successor = m_c.testId(next.test->name);
                    const int cases = next.test->parametrizeCases.value_or(0);
                    message +=
                        "; likely successor: " + next.test->name + " (" +
                        (next.fresh ? "new" : "changed") + " in this file" +
                        (cases > 1 ? ", " + std::to_string(cases) + " parametrised cases"
                                   : std::string()) +
                        (next.shared.empty() ? std::string()
                                             : ", calls " + joined(next.shared, 3) + " as it did") +
                        ") — check that it covers what " + p->base->name + " checked";
                }
                f.message = std::move(message);
                m_out.push_back(std::move(f));
                continue;
            }
            const std::string id = m_c.testId(p->head->name);
            if (!p->base) {
                if (std::optional<Finding> note = birthNote(m_c, *p->head, head))
                    m_out.push_back(std::move(*note));
                continue;
            }
            existingTests = existingTests || p->baseFile == m_c.basePath;
            if (p->baseFile != m_c.basePath)
                headAsserts -= p->head->asserts; // moved in: not this file's base checks
            if (p->renamed())
                m_out.push_back(make(m_c, "T-RENAME", Severity::Info, p->head->line, id,
                                     renameMessage(m_c, *p), "none"));
            const size_t before = p->base->skip.size();
            if (p->head->skip.size() > before) {
                std::vector<std::string> gained(p->head->skip.begin() + long(before),
                                                p->head->skip.end());
                m_out.push_back(make(m_c, "T-SKIP", Severity::Block, p->head->line, id,
                                     "skip/xfail newly present: " + joined(gained), kSkipEvidence));
            }
            if (p->baseFile != m_c.basePath) {
                // Moved from another module: a pytestmark skip it did not have there.
                const FileFacts *from = fileFacts(p->baseFile, false);
                const size_t had = from ? from->moduleSkip.size() : 0;
                if (head.moduleSkip.size() > had)
                    m_out.push_back(make(m_c, "T-SKIP", Severity::Block, p->head->line, id,
                                         "moved into a module whose pytestmark skips it: " +
                                             joined(head.moduleSkip),
                                         kSkipEvidence));
            }
        }
        const size_t moduleBefore = base ? base->moduleSkip.size() : 0;
        if (head.moduleSkip.size() > moduleBefore && existingTests && base) {
            m_out.push_back(make(m_c, "T-SKIP", Severity::Block, 1, {},
                                 "module-level skip/xfail newly present (pytestmark): " +
                                     joined(head.moduleSkip),
                                 kSkipEvidence));
        }
        if (base && !lost && headAsserts < baseAsserts) {
            m_out.push_back(make(m_c, "T-WEAK", Severity::Review, 1, {},
                                 "assertion count dropped from " + std::to_string(baseAsserts) +
                                     " to " + std::to_string(headAsserts) + " with no test lost",
                                 "reviewer note naming the property still covered"));
        }
    }

    const TestFileChange &m_c;
    const std::vector<TestFileChange> &m_changes;
    std::vector<Finding> &m_out;
    std::vector<const TestPair *> m_here;     // pairs this file reports (its head tests, its lost)
    std::vector<const TestPair *> m_movedOut; // its base tests matched in another file
};

} // namespace

std::vector<Finding> ManifestDiff::evaluate(const std::vector<TestFileChange> &changes,
                                            const std::vector<TestPair> &pairs)
{
    std::vector<Finding> out;
    for (const TestFileChange &c : changes)
        FileVerdicts(c, pairs, changes, out).evaluate();
    return out;
}

} // namespace pw::core
