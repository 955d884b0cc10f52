#pragma once

#include <QByteArray>
#include <optional>
#include <string>
#include <vector>

namespace pw::core {

// Outcome of one pytest node. `Error` is a setup/teardown or collection
// error; `NotCollected` a selected node the run never reported; `HarnessError` a node of
// a run that produced no trustworthy result (no JUnit file, crash, timeout).
enum class Outcome
{
    Pass,
    Fail,
    Skipped,
    Error,
    NotCollected,
    HarnessError
};

// "pass", "fail", "skipped", "error", "not_collected", "harness_error".
const char *outcomeName(Outcome outcome);
// The outcome outcomeName gives `name`; nullopt for any other text.
std::optional<Outcome> outcomeFromName(const std::string &name);

struct NodeOutcome
{
    std::string nodeId; // pytest's: "tests/test_x.py::TestC::test_a[1-2]"
    Outcome outcome = Outcome::Pass;
    double seconds = 0;
    std::string message; // the failure/error/skip message attribute (xfail: "xfail …")
    int reruns = 0;      // retried attempts kept as <rerunFailure>/<flakyFailure> etc.
    // Set by a sandboxed run (Sandbox::annotate), never by the reader: the failure is the
    // sandbox refusing network access; the message then says so too.
    bool sandboxBlocked = false;
};

struct JUnitReport
{
    std::vector<NodeOutcome> nodes; // file order, one row per node id
    std::string error;              // non-empty: missing, unreadable or not JUnit XML
    bool ok() const { return error.empty(); }
};

// Reads pytest's JUnit XML (QXmlStreamReader) back into node ids and outcomes.
//
// pytest writes `classname` = the file path dotted without ".py" plus the classes, and
// `name` = the function with its parameters, so `a/b.py::C::f[x.y]` and `a.b.py::C::f`
// cannot be told apart from those two alone. We run pytest with junit_family=xunit1,
// whose <testcase> keeps the `file` attribute: node id = file + the classes left after
// the dotted file + name. When `file` names another file (a test method inherited from a
// base class in another module) or is absent (xunit2), the longest prefix of the class
// name that is a .py file under `rootDir` is the file; without `rootDir`, the leading
// parts up to the first CapWords part are.
class JUnitReader
{
public:
    explicit JUnitReader(std::string rootDir = {}) : m_rootDir(std::move(rootDir)) {}

    JUnitReport read(const QByteArray &xml) const;
    JUnitReport readFile(const std::string &path) const; // missing file → error set

    std::string nodeId(const std::string &classname, const std::string &name,
                       const std::string &file) const;

private:
    std::string m_rootDir;
};

} // namespace pw::core
