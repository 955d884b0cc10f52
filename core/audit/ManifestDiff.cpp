#include "audit/ManifestDiff.h"

#include "audit/TestPairing.h"

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
    std::string out;
    for (size_t i = 0; i < items.size() && i < max; ++i)
        out += (i ? ", " : "") + items[i];
    if (items.size() > max)
        out += ", … (" + std::to_string(items.size() - max) + " more)";
    return out;
}

void parseErrors(const TestFileChange &c, std::vector<Finding> &out)
{
    if (c.head && c.head->error) {
        const ParseError &e = *c.head->error;
        out.push_back(make(c, "PARSE_ERROR", Severity::Block, e.line, {},
                           c.path + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) +
                               ": " + e.message + " (the test file does not parse at head)",
                           "a test file that parses"));
    }
    if (c.base && c.base->error) {
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

} // namespace

std::vector<Finding> ManifestDiff::evaluate(const TestFileChange &c)
{
    std::vector<Finding> out;
    parseErrors(c, out);
    const bool baseOk = c.base && !c.base->error;
    const bool headOk = c.head && !c.head->error;

    if (!c.base && headOk) {
        out.push_back(make(
            c, "T-ADD", Severity::Info, 1, {},
            "new test file with " + std::to_string(c.head->tests.size()) + " test(s)", "none"));
    }
    if (baseOk && !c.head) {
        if (!c.base->tests.empty()) {
            Finding f = make(c, "T-GONE", Severity::Block, 0, {},
                             "test file removed with " + std::to_string(c.base->tests.size()) +
                                 " test(s): " + joined(c.base->defs),
                             kDelEvidence);
            out.push_back(std::move(f));
        }
        return out;
    }
    if (c.status == ChangeStatus::Renamed && c.head) {
        out.push_back(make(c, "T-RENAME", Severity::Info, 1, {},
                           "test file renamed from " + c.basePath + " (similarity " +
                               std::to_string(c.similarity) + "%)",
                           "none"));
    }
    if (!headOk)
        return out; // an unparsable head is one PARSE_ERROR, not a list of lost tests

    const FileFacts *base = baseOk ? &*c.base : nullptr;
    const FileFacts &head = *c.head;
    bool lost = false;
    for (const TestPair &p : pairTests(base, &head)) {
        if (p.base && !p.head) {
            lost = true;
            out.push_back(make(c, "T-DEL", Severity::Block, p.base->line, c.testId(p.base->name),
                               "test function " + p.base->name + " disappeared", kDelEvidence));
            continue;
        }
        if (p.renamed) {
            out.push_back(make(
                c, "T-RENAME", Severity::Info, p.head->line, c.testId(p.head->name),
                "pure rename: " + p.base->name + " -> " + p.head->name + " (same body)", "none"));
        }
        const size_t before = p.base ? p.base->skip.size() : 0;
        if (p.head && p.head->skip.size() > before) {
            std::vector<std::string> added(p.head->skip.begin() + long(before), p.head->skip.end());
            out.push_back(make(c, "T-SKIP", Severity::Block, p.head->line, c.testId(p.head->name),
                               "skip/xfail newly present: " + joined(added), kSkipEvidence));
        }
    }
    const size_t moduleBefore = base ? base->moduleSkip.size() : 0;
    if (head.moduleSkip.size() > moduleBefore) {
        out.push_back(
            make(c, "T-SKIP", Severity::Block, 1, {},
                 "module-level skip/xfail newly present (pytestmark): " + joined(head.moduleSkip),
                 kSkipEvidence));
    }
    if (base && !lost && head.asserts < base->asserts) {
        out.push_back(make(c, "T-WEAK", Severity::Review, 1, {},
                           "assertion count dropped from " + std::to_string(base->asserts) +
                               " to " + std::to_string(head.asserts) + " with no test lost",
                           "reviewer note naming the property still covered"));
    }
    return out;
}

} // namespace pw::core
