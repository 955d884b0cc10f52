#include "execution/JUnitReader.h"

#include "util/Format.h"

#include <QFile>
#include <QFileInfo>
#include <QXmlStreamReader>
#include <map>

namespace pw::core {

namespace {

// What pytest's mangle_test_address does to the path part of a node id.
std::string dottedPath(std::string file)
{
    if (file.size() > 3 && file.ends_with(".py"))
        file.resize(file.size() - 3);
    for (char &c : file) {
        if (c == '/')
            c = '.';
    }
    return file;
}

std::vector<std::string> split(const std::string &text, char sep)
{
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
        const size_t end = text.find(sep, start);
        parts.push_back(text.substr(start, end - start));
        if (end == std::string::npos)
            return parts;
        start = end + 1;
    }
}

std::string joined(const std::vector<std::string> &parts, size_t from, size_t to, const char *sep)
{
    return join(std::vector<std::string>(parts.begin() + long(from), parts.begin() + long(to)),
                sep);
}

// file + "::" + the classes (dotted in `rest`) + "::" + name.
std::string compose(const std::string &file, const std::string &rest, const std::string &name)
{
    std::string id = file;
    if (!rest.empty()) {
        for (const std::string &cls : split(rest, '.'))
            id += "::" + cls;
    }
    return id + "::" + name;
}

int severity(Outcome outcome)
{
    switch (outcome) {
    case Outcome::HarnessError:
        return 5;
    case Outcome::Error:
        return 4;
    case Outcome::Fail:
        return 3;
    case Outcome::Pass:
        return 2;
    case Outcome::Skipped:
        return 1;
    case Outcome::NotCollected:
        return 0;
    }
    return 0;
}

QString attr(const QXmlStreamReader &xml, const char *name)
{
    return xml.attributes().value(QLatin1String(name)).toString();
}

} // namespace

const char *outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Pass:
        return "pass";
    case Outcome::Fail:
        return "fail";
    case Outcome::Skipped:
        return "skipped";
    case Outcome::Error:
        return "error";
    case Outcome::NotCollected:
        return "not_collected";
    case Outcome::HarnessError:
        return "harness_error";
    }
    return "harness_error";
}

std::optional<Outcome> outcomeFromName(const std::string &name)
{
    for (const Outcome o : {Outcome::Pass, Outcome::Fail, Outcome::Skipped, Outcome::Error,
                            Outcome::NotCollected, Outcome::HarnessError}) {
        if (name == outcomeName(o))
            return o;
    }
    return std::nullopt;
}

std::string JUnitReader::nodeId(const std::string &classname, const std::string &name,
                                const std::string &file) const
{
    if (classname.empty()) { // a module-level report: a collection error, a doctest file
        if (file.empty())
            return name;
        return name == dottedPath(file) ? file : file + "::" + name;
    }
    if (!file.empty()) {
        const std::string dotted = dottedPath(file);
        if (classname == dotted)
            return compose(file, {}, name);
        if (classname.size() > dotted.size() && classname.starts_with(dotted) &&
            classname[dotted.size()] == '.')
            return compose(file, classname.substr(dotted.size() + 1), name);
    }
    const std::vector<std::string> parts = split(classname, '.');
    if (!m_rootDir.empty()) {
        for (size_t k = parts.size(); k >= 1; --k) {
            const std::string candidate = joined(parts, 0, k, "/") + ".py";
            if (QFileInfo(QString::fromStdString(m_rootDir + "/" + candidate)).isFile())
                return compose(candidate, joined(parts, k, parts.size(), "."), name);
        }
    }
    size_t k = 0;
    while (k < parts.size() && !(parts[k].size() > 0 && parts[k][0] >= 'A' && parts[k][0] <= 'Z'))
        ++k;
    if (k == 0)
        k = 1;
    return compose(joined(parts, 0, k, "/") + ".py", joined(parts, k, parts.size(), "."), name);
}

JUnitReport JUnitReader::read(const QByteArray &bytes) const
{
    JUnitReport report;
    QXmlStreamReader xml(bytes);
    std::map<std::string, size_t> index; // node id → row
    bool sawRoot = false;
    NodeOutcome *current = nullptr;
    NodeOutcome pending;
    int depthInCase = 0;

    while (!xml.atEnd()) {
        const QXmlStreamReader::TokenType token = xml.readNext();
        if (token == QXmlStreamReader::StartElement) {
            const QString element = xml.name().toString();
            if (!sawRoot) {
                sawRoot = true;
                if (element != QLatin1String("testsuites") &&
                    element != QLatin1String("testsuite")) {
                    report.error =
                        "not JUnit XML: the root element is <" + element.toStdString() + ">";
                    return report;
                }
            }
            if (element == QLatin1String("testcase")) {
                pending = NodeOutcome();
                pending.nodeId =
                    nodeId(attr(xml, "classname").toStdString(), attr(xml, "name").toStdString(),
                           attr(xml, "file").toStdString());
                pending.seconds = attr(xml, "time").toDouble();
                current = &pending;
                depthInCase = 0;
                continue;
            }
            if (!current) {
                continue;
            }
            ++depthInCase;
            if (depthInCase != 1)
                continue;
            Outcome seen = Outcome::Pass;
            if (element == QLatin1String("failure"))
                seen = Outcome::Fail;
            else if (element == QLatin1String("error"))
                seen = Outcome::Error;
            else if (element == QLatin1String("skipped"))
                seen = Outcome::Skipped;
            else if (element.startsWith(QLatin1String("rerun")) ||
                     element.startsWith(QLatin1String("flaky")))
                ++current->reruns;
            if (seen == Outcome::Pass)
                continue;
            // A failed call followed by a teardown error stays a failure of the test.
            const bool replaces =
                current->outcome == Outcome::Pass ||
                (current->outcome == Outcome::Skipped && seen != Outcome::Skipped);
            if (replaces) {
                current->outcome = seen;
                current->message = attr(xml, "message").toStdString();
                if (seen == Outcome::Skipped && attr(xml, "type") == QLatin1String("pytest.xfail"))
                    current->message = "xfail " + current->message;
            }
        } else if (token == QXmlStreamReader::EndElement && current) {
            if (depthInCase > 0) {
                --depthInCase;
                continue;
            }
            // </testcase>: one row per node id, the most severe outcome wins.
            const auto [it, inserted] = index.emplace(pending.nodeId, report.nodes.size());
            if (inserted) {
                report.nodes.push_back(std::move(pending));
            } else {
                NodeOutcome &row = report.nodes[it->second];
                row.seconds += pending.seconds;
                row.reruns += pending.reruns;
                if (severity(pending.outcome) > severity(row.outcome)) {
                    row.outcome = pending.outcome;
                    row.message = pending.message;
                }
            }
            current = nullptr;
        }
    }
    if (xml.hasError()) {
        report.error = "malformed JUnit XML at line " + std::to_string(xml.lineNumber()) +
                       ", column " + std::to_string(xml.columnNumber()) + ": " +
                       xml.errorString().toStdString();
        report.nodes.clear();
    } else if (!sawRoot) {
        report.error = "empty JUnit XML";
    }
    return report;
}

JUnitReport JUnitReader::readFile(const std::string &path) const
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        JUnitReport report;
        report.error = path + ": no JUnit XML (" + file.errorString().toStdString() + ")";
        return report;
    }
    JUnitReport report = read(file.readAll());
    if (!report.ok())
        report.error = path + ": " + report.error;
    return report;
}

} // namespace pw::core
