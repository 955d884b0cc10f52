#include "dynamic/FrozenRun.h"

#include "ledger/LedgerDate.h"
#include "util/Format.h"

#include <QString>
#include <QXmlStreamWriter>
#include <algorithm>
#include <map>

namespace pw::core {

namespace {

// The node id a freeze names covers its parametrisations too.
bool covers(const std::string &frozen, const std::string &nodeId)
{
    return nodeId == frozen ||
           (nodeId.size() > frozen.size() && nodeId.compare(0, frozen.size(), frozen) == 0 &&
            nodeId[frozen.size()] == '[');
}

std::string where(const QuarantineLedger &ledger, const QuarantineEntry &e)
{
    return ledger.file + ":" + std::to_string(e.info.line);
}

// Text for XML: what QXmlStreamWriter cannot write (control characters) is dropped.
QString xml(const std::string &text)
{
    QString out;
    for (const QChar c : QString::fromStdString(text))
        if (c.unicode() >= 0x20 || c == QLatin1Char('\n') || c == QLatin1Char('\t'))
            out += c;
    return out;
}

// "tests/pkg/test_x.py::TestC::test_a[1]" → classname "tests.pkg.test_x.TestC", name
// "test_a[1]", as pytest's own JUnit names them.
std::pair<std::string, std::string> junitNames(const std::string &nodeId)
{
    const size_t last = nodeId.rfind("::");
    if (last == std::string::npos)
        return {"", nodeId};
    std::string cls = nodeId.substr(0, last);
    const size_t file = cls.find("::");
    std::string path = cls.substr(0, file);
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0)
        path.resize(path.size() - 3);
    for (char &c : path)
        c = c == '/' ? '.' : c;
    std::string rest = file == std::string::npos ? "" : cls.substr(file);
    for (size_t at = rest.find("::"); at != std::string::npos; at = rest.find("::"))
        rest.replace(at, 2, ".");
    return {path + rest, nodeId.substr(last + 2)};
}

} // namespace

int FrozenRunResult::count(const std::string &outcome) const
{
    int n = 0;
    for (const FrozenOutcome &o : outcomes)
        n += o.outcome == outcome ? 1 : 0;
    return n;
}

FrozenRunResult FrozenRun::apply(const RunResult &run, const QuarantineLedger &ledger,
                                 const QDate &today, int infraFailPct, int infraMinTests)
{
    FrozenRunResult r;
    r.run = run;
    r.ledgerFile = ledger.file;
    // The freezes that hold today, and the ones that expired.
    std::vector<const QuarantineEntry *> active, lapsed;
    for (const QuarantineEntry &e : ledger.entries) {
        if (!e.test || e.test->empty() || !e.expires || !e.opened) {
            r.notes.push_back(e.id() + " (" + where(ledger, e) +
                              "): not a freeze without its test, opened and expires; its "
                              "test is not frozen");
            continue;
        }
        if (today >= *e.expires) {
            r.expired.push_back(*e.test + ": the freeze expired on " + ledgerDateText(*e.expires) +
                                " (" + where(ledger, e) +
                                "): renew it with a fresh reproduction, or fix the test");
            lapsed.push_back(&e);
            continue;
        }
        if (today < *e.opened) {
            r.notes.push_back(*e.test + " (" + where(ledger, e) + "): the freeze opens on " +
                              ledgerDateText(*e.opened) + "; not frozen yet");
            continue;
        }
        active.push_back(&e);
    }
    auto freezeOf = [&](const std::string &nodeId) -> const QuarantineEntry * {
        for (const QuarantineEntry *e : active)
            if (covers(*e->test, nodeId))
                return e;
        return nullptr;
    };
    for (const NodeOutcome &node : run.outcomes) {
        FrozenOutcome &o = r.outcomes.emplace_back();
        o.test = node.nodeId;
        o.message = node.message;
        o.seconds = node.seconds;
        const QuarantineEntry *e = freezeOf(node.nodeId);
        if (e)
            o.freeze = "frozen until " + ledgerDateText(*e->expires) +
                       (e->owner ? " (owner " + *e->owner + ")" : std::string()) + ", " +
                       where(ledger, *e);
        if (run.harnessError) {
            o.outcome = "harness_error";
        } else {
            switch (node.outcome) {
            case Outcome::Pass:
                o.outcome = e ? "thaw-candidate" : "pass";
                break;
            case Outcome::Fail:
            case Outcome::Error:
                o.outcome = e ? "frozen" : "fail";
                break;
            case Outcome::Skipped:
                o.outcome = "skipped";
                break;
            case Outcome::NotCollected:
            case Outcome::HarnessError:
                o.outcome = "harness_error";
                break;
            }
        }
    }
    // Failures of tests a lapsed freeze names are known failures too (the expiry fails the
    // run on its own): not a sign of a broken environment.
    const int total = int(r.outcomes.size());
    int failing = 0;
    for (const FrozenOutcome &o : r.outcomes)
        failing += o.outcome == "fail" && std::none_of(lapsed.begin(), lapsed.end(),
                                                       [&o](const QuarantineEntry *e) {
                                                           return covers(*e->test, o.test);
                                                       })
                       ? 1
                       : 0;
    if (!run.harnessError && total >= infraMinTests && failing * 100 > infraFailPct * total) {
        r.run.harnessError = true;
        r.run.harnessReason = std::to_string(failing) + " of " + std::to_string(total) +
                              " tests failed that no freeze covers (more than infra_fail_pct " +
                              std::to_string(infraFailPct) + "%): no evidence";
    }
    if (r.run.harnessError)
        r.verdict = "harness_error";
    else
        r.verdict = r.count("fail") == 0 && r.count("harness_error") == 0 && r.expired.empty()
                        ? "pass"
                        : "fail";
    return r;
}

FrozenRunResult FrozenRun::run(const RunContext &ctx, const std::vector<std::string> &args,
                               const QuarantineLedger &ledger, const QDate &today, RunPool &pool)
{
    RunSpec spec = ctx.spec(Arm::Head, {}, 0);
    // The infrastructure check is apply()'s, over the failures no freeze covers.
    spec.infraFailPct = 100;
    for (const std::string &arg : args)
        spec.extraArgs << QString::fromStdString(arg);
    // The whole suite is one run: the pinned per-run timeout holds, the infrastructure
    // check needs its usual share.
    std::vector<RunResult> results = pool.run({spec});
    return apply(results.front(), ledger, today, ctx.config().infraFailPct);
}

std::string FrozenRun::junit(const FrozenRunResult &r)
{
    QString text;
    QXmlStreamWriter w(&text);
    w.setAutoFormatting(true);
    w.writeStartDocument();
    w.writeStartElement(QStringLiteral("testsuites"));
    w.writeAttribute(QStringLiteral("name"), QStringLiteral("patchwitness"));
    w.writeStartElement(QStringLiteral("testsuite"));
    w.writeAttribute(QStringLiteral("name"), QStringLiteral("patchwitness.test"));
    const int failures = r.count("fail") + int(r.expired.size());
    w.writeAttribute(QStringLiteral("tests"),
                     QString::number(r.outcomes.size() + r.expired.size()));
    w.writeAttribute(QStringLiteral("failures"), QString::number(failures));
    w.writeAttribute(QStringLiteral("errors"), QString::number(r.count("harness_error")));
    w.writeAttribute(QStringLiteral("skipped"), QString::number(r.count("skipped")));
    for (const FrozenOutcome &o : r.outcomes) {
        const auto [classname, name] = junitNames(o.test);
        w.writeStartElement(QStringLiteral("testcase"));
        w.writeAttribute(QStringLiteral("classname"), xml(classname));
        w.writeAttribute(QStringLiteral("name"), xml(name));
        w.writeAttribute(QStringLiteral("time"), QString::number(o.seconds, 'f', 3));
        if (!o.freeze.empty()) {
            w.writeStartElement(QStringLiteral("properties"));
            for (const auto &[key, value] :
                 {std::pair<std::string, std::string>{"patchwitness.outcome", o.outcome},
                  {"patchwitness.freeze", o.freeze}}) {
                w.writeStartElement(QStringLiteral("property"));
                w.writeAttribute(QStringLiteral("name"), xml(key));
                w.writeAttribute(QStringLiteral("value"), xml(value));
                w.writeEndElement();
            }
            w.writeEndElement();
        }
        if (o.outcome == "fail") {
            w.writeStartElement(QStringLiteral("failure"));
            w.writeAttribute(QStringLiteral("message"), xml(o.message));
            w.writeEndElement();
        } else if (o.outcome == "harness_error") {
            w.writeStartElement(QStringLiteral("error"));
            w.writeAttribute(QStringLiteral("message"),
                             xml(r.run.harnessReason.empty() ? o.message : r.run.harnessReason));
            w.writeEndElement();
        } else if (o.outcome == "skipped") {
            w.writeStartElement(QStringLiteral("skipped"));
            w.writeAttribute(QStringLiteral("message"), xml(o.message));
            w.writeEndElement();
        } else if (o.outcome == "frozen") {
            w.writeTextElement(QStringLiteral("system-out"),
                               xml("frozen failure (" + o.freeze + "): " + o.message));
        } else if (o.outcome == "thaw-candidate") {
            w.writeTextElement(QStringLiteral("system-out"),
                               xml("passed while frozen (" + o.freeze +
                                   "): a thaw candidate — the freeze may go"));
        }
        w.writeEndElement();
    }
    for (const std::string &line : r.expired) {
        w.writeStartElement(QStringLiteral("testcase"));
        w.writeAttribute(QStringLiteral("classname"), QStringLiteral("patchwitness.freezes"));
        w.writeAttribute(QStringLiteral("name"), xml(line.substr(0, line.find(": "))));
        w.writeStartElement(QStringLiteral("failure"));
        w.writeAttribute(QStringLiteral("message"), xml(line));
        w.writeEndElement();
        w.writeEndElement();
    }
    w.writeEndElement();
    w.writeEndElement();
    w.writeEndDocument();
    return text.toStdString();
}

} // namespace pw::core
