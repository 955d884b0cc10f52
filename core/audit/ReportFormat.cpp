#include "audit/ReportFormat.h"

#include "util/Format.h"

#include <QString>
#include <QXmlStreamWriter>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace pw::core {
namespace {

using nlohmann::json;

json optionalString(const std::optional<std::string> &s)
{
    return s ? json(*s) : json(nullptr);
}

json toleranceJson(const std::optional<double> &v)
{
    if (!v)
        return nullptr;
    if (std::isinf(*v))
        return "computed";
    return *v;
}

json metricsJson(const std::optional<StrengthMetrics> &m)
{
    if (!m)
        return nullptr;
    return {{"assertions", m->assertions},    {"comparisons", m->comparisons},
            {"truthy_only", m->truthyOnly},   {"widest_rel", toleranceJson(m->widestTolerance)},
            {"broad_raises", m->broadRaises}, {"skip_markers", m->skipMarkers}};
}

// File names, test ids and messages come from the repository under review: bytes that are
// not UTF-8 (a Latin-1 file name) or control characters (an escape sequence that clears a
// terminal or hides the lines before it). Each invalid byte becomes U+FFFD, as JSON's
// dump(replace) does, and so does a control character other than tab and newline.
std::string displayText(const std::string &s)
{
    static const std::string kReplacement = "\xEF\xBF\xBD";
    std::string out;
    out.reserve(s.size());
    const auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = byte(i);
        if (c < 0x80) {
            out += (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ? kReplacement
                                                                     : std::string(1, char(c));
            ++i;
            continue;
        }
        // The length of the sequence and the range of its second byte (which refuses
        // overlong forms, surrogates and code points past U+10FFFF).
        size_t length = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        }
        bool valid = length > 0 && i + length <= s.size() && byte(i + 1) >= lo && byte(i + 1) <= hi;
        for (size_t k = 2; valid && k < length; ++k)
            valid = byte(i + k) >= 0x80 && byte(i + k) <= 0xBF;
        // C1 controls (U+0080 … U+009F) act as escapes on some terminals too.
        if (valid && c == 0xC2 && byte(i + 1) <= 0x9F)
            valid = false;
        if (!valid) {
            out += kReplacement;
            ++i;
            continue;
        }
        out.append(s, i, length);
        i += length;
    }
    return out;
}

// A QString for the XML writer: valid UTF-8 only, and no character XML 1.0 forbids.
QString xmlText(const std::string &s)
{
    return QString::fromStdString(displayText(s));
}

std::string location(const Finding &f)
{
    if (!f.test.empty())
        return f.test;
    if (f.line > 0)
        return f.path + ":" + std::to_string(f.line);
    return f.path;
}

std::string revisionLine(const RevisionRef &r)
{
    return r.rev + (r.commit ? " (" + shortId(*r.commit) + ")" : std::string());
}

std::string toText(const GateReport &r)
{
    std::ostringstream out;
    out << "patchwitness audit: " << verdictName(r.verdict) << "\n";
    out << "repo: " << r.repo << "\n";
    out << "base: " << revisionLine(r.base) << "\nhead: " << revisionLine(r.head) << "\n";
    out << "findings: " << r.count(Severity::Block) << " block, " << r.count(Severity::Review)
        << " review, " << r.count(Severity::Info, false) << " info\n";
    for (const std::string &w : r.warnings)
        out << "warning: " << w << "\n";
    for (Severity s : {Severity::Block, Severity::Review, Severity::Info}) {
        for (const Finding &f : r.findings) {
            if (f.severity != s)
                continue;
            out << "  [" << severityName(f.severity) << "] " << f.code << "  " << location(f)
                << "\n      " << f.message << "\n";
            if (f.evidence != "none" && !f.evidence.empty())
                out << "      evidence: " << f.evidence << "\n";
            if (f.satisfiedBy)
                out << "      satisfied by: " << *f.satisfiedBy << "\n";
        }
    }
    out << "latitude: total " << r.latitude.total << " (threshold " << r.latitude.threshold
        << "): " << r.latitude.policy << "\n";
    for (const LatitudeTestScore &t : r.latitude.tests) {
        if (t.score == 0)
            continue;
        out << "  +" << t.score << "  " << t.test << "\n";
        for (const std::string &s : t.signals)
            out << "      " << s << "\n";
    }
    return out.str();
}

std::string mdEscape(const std::string &s)
{
    std::string out;
    for (char c : s) {
        if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>')
            out += '\\';
        if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}

// A Markdown code span that shows `s` as it is: a backtick in it takes a longer fence, a
// pipe is escaped (GitHub's tables split on it even inside code), a newline would end
// the table row.
std::string mdCode(const std::string &s)
{
    std::string text;
    size_t run = 0, longest = 0;
    for (char c : s) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
        if (c == '|')
            text += "\\|";
        else
            text += c == '\n' ? ' ' : c;
    }
    const std::string fence(longest + 1, '`');
    const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
    return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

std::string toMarkdown(const GateReport &r)
{
    std::ostringstream out;
    out << "### patchwitness: **" << verdictName(r.verdict) << "**\n\n";
    out << mdCode(revisionLine(r.base)) << " → " << mdCode(revisionLine(r.head)) << " · "
        << r.count(Severity::Block) << " blocking, " << r.count(Severity::Review) << " to review, "
        << r.count(Severity::Info, false) << " info\n\n";
    if (!r.findings.empty()) {
        out << "| severity | code | where | finding | evidence needed |\n";
        out << "|---|---|---|---|---|\n";
        for (Severity s : {Severity::Block, Severity::Review, Severity::Info}) {
            for (const Finding &f : r.findings) {
                if (f.severity != s)
                    continue;
                out << "| " << severityName(f.severity) << (f.satisfiedBy ? " (satisfied)" : "")
                    << " | " << mdCode(f.code) << " | " << mdCode(location(f)) << " | "
                    << mdEscape(f.message) << " | " << mdEscape(f.evidence) << " |\n";
            }
        }
        out << "\n";
    }
    out << "**Oracle latitude:** " << r.latitude.total << " (threshold " << r.latitude.threshold
        << ") — " << mdEscape(r.latitude.policy) << "\n";
    for (const LatitudeTestScore &t : r.latitude.tests) {
        if (t.score == 0)
            continue;
        out << "- " << mdCode(t.test) << " +" << t.score << ": ";
        for (size_t i = 0; i < t.signals.size(); ++i)
            out << (i ? "; " : "") << mdEscape(t.signals[i]);
        out << "\n";
    }
    for (const std::string &w : r.warnings)
        out << "\n> warning: " << mdEscape(w) << "\n";
    return out.str();
}

std::string toJUnit(const GateReport &r)
{
    QString xml;
    QXmlStreamWriter w(&xml);
    w.setAutoFormatting(true);
    w.writeStartDocument();
    w.writeStartElement(QStringLiteral("testsuites"));
    w.writeAttribute(QStringLiteral("name"), QStringLiteral("patchwitness"));
    w.writeStartElement(QStringLiteral("testsuite"));
    w.writeAttribute(QStringLiteral("name"), QStringLiteral("patchwitness.audit"));
    int failures = 0;
    for (const Finding &f : r.findings)
        failures += (f.severity != Severity::Info && !f.satisfiedBy) ? 1 : 0;
    w.writeAttribute(QStringLiteral("tests"), QString::number(r.findings.size()));
    w.writeAttribute(QStringLiteral("failures"), QString::number(failures));
    w.writeAttribute(QStringLiteral("errors"), QStringLiteral("0"));
    for (const Finding &f : r.findings) {
        w.writeStartElement(QStringLiteral("testcase"));
        w.writeAttribute(QStringLiteral("classname"), xmlText("patchwitness." + f.gate));
        w.writeAttribute(QStringLiteral("name"), xmlText(f.code + " " + location(f)));
        w.writeAttribute(QStringLiteral("file"), xmlText(f.path));
        w.writeAttribute(QStringLiteral("line"), QString::number(f.line));
        const QString body = xmlText(f.message + "\nevidence: " + f.evidence);
        if (f.severity != Severity::Info && !f.satisfiedBy) {
            w.writeStartElement(QStringLiteral("failure"));
            w.writeAttribute(QStringLiteral("type"), QString::fromLatin1(severityName(f.severity)));
            w.writeAttribute(QStringLiteral("message"), xmlText(f.message));
            w.writeCharacters(body);
            w.writeEndElement();
        } else {
            w.writeTextElement(QStringLiteral("system-out"),
                               f.satisfiedBy ? body + QStringLiteral("\nsatisfied by: ") +
                                                   xmlText(*f.satisfiedBy)
                                             : body);
        }
        w.writeEndElement();
    }
    w.writeEndElement();
    w.writeEndElement();
    w.writeEndDocument();
    return xml.toStdString();
}

std::string htmlEscape(const std::string &s)
{
    return QString::fromStdString(displayText(s)).toHtmlEscaped().toStdString();
}

std::string toHtml(const GateReport &r)
{
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>patchwitness report</title>"
           "<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}"
           ".block{color:#b00020}.review{color:#a15c00}.info{color:#555}</style></head><body>\n";
    out << "<h2>patchwitness: " << verdictName(r.verdict) << "</h2>\n<p>"
        << htmlEscape(revisionLine(r.base)) << " &rarr; " << htmlEscape(revisionLine(r.head))
        << "</p>\n<table><tr><th>severity</th><th>code</th><th>where</th><th>finding</th>"
           "<th>evidence needed</th></tr>\n";
    for (const Finding &f : r.findings) {
        out << "<tr class=\"" << severityName(f.severity) << "\"><td>" << severityName(f.severity)
            << (f.satisfiedBy ? " (satisfied)" : "") << "</td><td>" << htmlEscape(f.code)
            << "</td><td>" << htmlEscape(location(f)) << "</td><td>" << htmlEscape(f.message)
            << "</td><td>" << htmlEscape(f.evidence) << "</td></tr>\n";
    }
    out << "</table>\n<p>Oracle latitude: " << r.latitude.total << " (threshold "
        << r.latitude.threshold << ") &mdash; " << htmlEscape(r.latitude.policy)
        << "</p>\n</body></html>\n";
    return out.str();
}

} // namespace

json findingJson(const Finding &f)
{
    json j = {{"gate", f.gate},
              {"code", f.code},
              {"severity", severityName(f.severity)},
              {"path", f.path},
              {"line", f.line},
              {"test", f.test.empty() ? json(nullptr) : json(f.test)},
              {"message", f.message},
              {"evidence", f.evidence},
              {"satisfied_by", optionalString(f.satisfiedBy)}};
    if (f.successor) // only where one was found: reports without one read as before
        j["successor"] = *f.successor;
    return j;
}

std::optional<ReportFormat> reportFormatFromName(const std::string &name)
{
    if (name == "text")
        return ReportFormat::Text;
    if (name == "json")
        return ReportFormat::Json;
    if (name == "md" || name == "markdown")
        return ReportFormat::Markdown;
    if (name == "junit")
        return ReportFormat::JUnit;
    if (name == "html")
        return ReportFormat::Html;
    return std::nullopt;
}

json reportToJson(const GateReport &r)
{
    json findings = json::array();
    for (const Finding &f : r.findings)
        findings.push_back(findingJson(f));

    json latTests = json::object();
    for (const LatitudeTestScore &t : r.latitude.tests)
        latTests[t.test] = {{"score", t.score}, {"signals", t.signals}};

    json strengthTests = json::object();
    for (const StrengthRow &row : r.strength.tests) {
        strengthTests[row.test] = {
            {"base", metricsJson(row.base)},
            {"head", metricsJson(row.head)},
            {"flags", row.flags},
            {"action", row.action == Severity::Info ? "pass" : severityName(row.action)}};
    }
    json fixtures = json::object();
    for (const FixtureChange &c : r.fixtures)
        fixtures[c.path] = {{"base", optionalString(c.base)}, {"head", optionalString(c.head)}};

    json changed = json::array();
    for (const ChangedFile &c : r.changedFiles) {
        json entry = {{"path", c.path},
                      {"status", c.status},
                      {"test", c.testFile},
                      {"fixture", c.fixtureFile},
                      {"binary", c.binary}};
        if (!c.oldPath.empty())
            entry["old_path"] = c.oldPath;
        changed.push_back(entry);
    }

    json j = {
        {"schema", GateReport::kSchema},
        {"repo", r.repo},
        {"base", {{"rev", r.base.rev}, {"commit", optionalString(r.base.commit)}}},
        {"head", {{"rev", r.head.rev}, {"commit", optionalString(r.head.commit)}}},
        {"verdict", verdictName(r.verdict)},
        {"findings", findings},
        {"latitude",
         {{"total", r.latitude.total},
          {"threshold", r.latitude.threshold},
          {"policy", r.latitude.policy},
          {"tests", latTests}}},
        {"strength",
         {{"action",
           r.strength.action == Severity::Info ? "pass" : severityName(r.strength.action)},
          {"tests", strengthTests}}},
        {"fixture_digest", fixtures},
        {"changed_files", changed},
        {"warnings", r.warnings},
        {"stats",
         {{"files_changed", r.stats.filesChanged},
          {"test_files_parsed", r.stats.testFilesParsed},
          {"cache_hits", r.stats.cacheHits},
          {"interpreter_runs", r.stats.interpreterRuns}}},
    };
    if (r.manifest) {
        json tests = json::object();
        for (const auto &[path, mf] : r.manifest->tests) {
            tests[path] = {{"sha", mf.sha},
                           {"defs", mf.defs},
                           {"markers", mf.markers},
                           {"asserts", mf.asserts}};
        }
        j["manifest"] = {{"tests", tests}, {"fixtures", r.manifest->fixtures}};
    }
    return j;
}

std::string formatReport(const GateReport &report, ReportFormat format)
{
    switch (format) {
    case ReportFormat::Text:
        return displayText(toText(report));
    case ReportFormat::Json:
        return reportToJson(report).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    case ReportFormat::Markdown:
        return displayText(toMarkdown(report));
    case ReportFormat::JUnit:
        return toJUnit(report);
    case ReportFormat::Html:
        return toHtml(report);
    }
    return {};
}

} // namespace pw::core
