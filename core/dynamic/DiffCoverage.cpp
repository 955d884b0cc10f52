#include "dynamic/DiffCoverage.h"

#include "dynamic/Attribution.h"
#include "repo/Repository.h"
#include "util/Documentation.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/JsonText.h"

#include <QDir>
#include <algorithm>

namespace pw::core {

namespace {

using Json = nlohmann::ordered_json;

bool isPython(const std::string &path)
{
    return path.size() > 3 && path.ends_with(".py");
}

// Added lines count themselves; a block of deleted lines with no added line next to it
// counts the head lines it sat between.
void addHunk(const DiffHunk &hunk, std::set<int> &lines)
{
    // The head line before the hunk's first line; a hunk without head lines names the
    // line the deletion follows.
    int prevNew = hunk.newLines == 0 ? hunk.newStart : hunk.newStart - 1;
    size_t i = 0;
    while (i < hunk.lines.size()) {
        const DiffLine &line = hunk.lines[i];
        if (line.origin == DiffLine::Origin::Context) {
            prevNew = line.newLine;
            ++i;
            continue;
        }
        bool added = false;
        for (; i < hunk.lines.size() && hunk.lines[i].origin != DiffLine::Origin::Context; ++i) {
            if (hunk.lines[i].origin == DiffLine::Origin::Added) {
                added = true;
                lines.insert(hunk.lines[i].newLine);
                prevNew = hunk.lines[i].newLine;
            }
        }
        if (!added) {
            if (prevNew >= 1)
                lines.insert(prevNew);
            lines.insert(prevNew + 1);
        }
    }
}

std::map<std::string, std::set<int>> lineMap(const Json &object, const std::string &origin,
                                             const std::string &field)
{
    std::map<std::string, std::set<int>> out;
    if (!object.is_object())
        throw Error::input(origin + ": " + field +
                           ": must be an object of file → line numbers, got " +
                           jsontext::typeName(object));
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!it.value().is_array())
            throw Error::input(origin + ": " + field + "." + it.key() +
                               ": must be an array of line numbers, got " +
                               jsontext::typeName(it.value()));
        std::set<int> &lines = out[it.key()];
        for (const Json &n : it.value()) {
            if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > 1 << 30)
                throw Error::input(origin + ": " + field + "." + it.key() +
                                   ": line numbers must be positive integers, has " + n.dump());
            lines.insert(n.get<int>());
        }
    }
    return out;
}

// "statements": file → [[first, line, …], …] read as file → (line → first line).
std::map<std::string, std::map<int, int>> statementMap(const Json &object,
                                                       const std::string &origin)
{
    std::map<std::string, std::map<int, int>> out;
    if (!object.is_object())
        throw Error::input(origin + ": statements: must be an object of file → statements, got " +
                           jsontext::typeName(object));
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string field = "statements." + it.key();
        if (!it.value().is_array())
            throw Error::input(origin + ": " + field +
                               ": must be an array of statements ([first line, line, …]), got " +
                               jsontext::typeName(it.value()));
        std::map<int, int> &owner = out[it.key()];
        for (size_t i = 0; i < it.value().size(); ++i) {
            const Json &statement = it.value()[i];
            const std::string where = field + "[" + std::to_string(i) + "]";
            if (!statement.is_array() || statement.empty())
                throw Error::input(origin + ": " + where +
                                   ": a statement must be a non-empty array of line numbers, "
                                   "got " +
                                   statement.dump());
            int first = 0;
            for (const Json &n : statement) {
                if (!n.is_number_integer() || n.get<long long>() < 1 ||
                    n.get<long long>() > 1 << 30)
                    throw Error::input(origin + ": " + where +
                                       ": line numbers must be positive integers, has " + n.dump());
                if (!first)
                    first = n.get<int>();
                owner[n.get<int>()] = first;
            }
        }
    }
    return out;
}

// The changed lines that count, each → the first line of its statement (`owners`, the
// report's statements of the file): without statements, every changed line as itself.
std::map<int, int> countedLines(const std::set<int> &lines, const std::map<int, int> *owners)
{
    std::map<int, int> out;
    for (const int line : lines) {
        if (!owners)
            out[line] = line;
        else if (const auto owner = owners->find(line); owner != owners->end())
            out[line] = owner->second;
    }
    return out;
}

// Executed lines as statements: the tracer may report any line of a multi-line statement
// (Python 3.11 reports the argument lines of a call), so each counts as its statement.
std::set<int> statementsRun(const std::set<int> &lines, const std::map<int, int> *owners)
{
    if (!owners)
        return lines;
    std::set<int> out;
    for (const int line : lines) {
        const auto owner = owners->find(line);
        out.insert(owner == owners->end() ? line : owner->second);
    }
    return out;
}

// Summaries name at most five files.
std::string joined(const std::vector<std::string> &items)
{
    return join(items, ", ", 5);
}

} // namespace

PatchDiff withoutLedgerDir(PatchDiff diff, const RunContext &ctx)
{
    const QString relative = QDir(QString::fromStdString(ctx.repoRoot()))
                                 .relativeFilePath(QString::fromStdString(ctx.ledgerDir()));
    if (relative.isEmpty() || relative == QStringLiteral(".") ||
        relative.startsWith(QStringLiteral("..")) || QDir::isAbsolutePath(relative))
        return diff;
    const std::string prefix = relative.toStdString() + "/";
    const auto inLedger = [&](const std::string &path) { return path.starts_with(prefix); };
    diff.files.erase(std::remove_if(diff.files.begin(), diff.files.end(),
                                    [&](const FileDiff &f) {
                                        return (f.oldPath.empty() || inLedger(f.oldPath)) &&
                                               (f.newPath.empty() || inLedger(f.newPath));
                                    }),
                     diff.files.end());
    return diff;
}

ChangedLines ChangedLines::fromDiff(const PatchDiff &diff)
{
    ChangedLines out;
    for (const FileDiff &file : diff.files) {
        const std::string &path = file.path();
        if (const std::string why = neverExecutedWhy(path); !why.empty()) {
            out.neverExecuted.push_back(path + " (" + why + ")");
        } else if (!isPython(path) && isDocumentation(path)) {
            out.documentation.push_back(path);
        } else if (!isPython(path)) {
            out.unmeasured.push_back(path + " (not Python)");
        } else if (file.status == ChangeStatus::Deleted) {
            out.unmeasured.push_back(path + " (deleted)");
        } else if (file.binary) {
            out.unmeasured.push_back(path + " (binary)");
        } else {
            std::set<int> lines;
            for (const DiffHunk &hunk : file.hunks)
                addHunk(hunk, lines);
            const bool moved = file.status == ChangeStatus::Renamed ||
                               file.status == ChangeStatus::Copied ||
                               (file.oldPath != file.newPath && !file.oldPath.empty());
            if (!lines.empty())
                out.python[path] = std::move(lines);
            else if (moved)
                out.wholeFiles.insert(path);
            // else: only the file mode changed, which no import sees.
        }
    }
    return out;
}

std::string ChangedLines::neverExecutedWhy(const std::string &path)
{
    const size_t slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    // A stub is read by type checkers only: the import system never loads a .pyi.
    if (name.size() > 4 && name.ends_with(".pyi"))
        return "type stub, never executed";
    if (name == "py.typed")
        return "typing marker (PEP 561), never executed";
    return {};
}

std::vector<std::string> ChangedLines::leftOut() const
{
    std::vector<std::string> out = neverExecuted;
    for (const std::string &path : documentation)
        out.push_back(path + " (documentation)");
    return out;
}

int ChangedLines::lineCount() const
{
    int n = 0;
    for (const auto &[path, lines] : python)
        n += int(lines.size());
    return n;
}

CoverageReport CoverageReport::parse(const std::string &text, const std::string &origin)
{
    const Json root = jsontext::parse(text, origin);
    if (!root.is_object())
        throw Error::input(origin + ":1:1: a coverage report must be a JSON object, got " +
                           jsontext::typeName(root));
    CoverageReport report;
    if (const auto it = root.find("unavailable"); it != root.end()) {
        if (!it->is_string())
            throw Error::input(origin + ": unavailable: must be a string, got " +
                               jsontext::typeName(*it));
        report.unavailable = it->get<std::string>();
        return report;
    }
    const auto files = root.find("files");
    if (files == root.end())
        throw Error::input(origin + ": files: missing (neither \"files\" nor \"unavailable\")");
    report.inTests = lineMap(*files, origin, "files");
    if (const auto it = root.find("imported"); it != root.end())
        report.atImport = lineMap(*it, origin, "imported");
    if (const auto it = root.find("statements"); it != root.end())
        report.statements = statementMap(*it, origin);
    return report;
}

const char *coverageVerdictName(CoverageVerdict verdict)
{
    switch (verdict) {
    case CoverageVerdict::Touched:
        return "touched";
    case CoverageVerdict::Untouched:
        return "untouched";
    case CoverageVerdict::Unknown:
        return "unknown";
    }
    return "?";
}

DiffCoverageResult DiffCoverageResult::unknown(const std::string &reason)
{
    DiffCoverageResult r;
    r.reason = reason;
    return r;
}

std::string DiffCoverageResult::summary() const
{
    switch (verdict) {
    case CoverageVerdict::Untouched:
        return "did not touch the change (executed none of its " + std::to_string(changedLines) +
               " changed line" + (changedLines == 1 ? "" : "s") + ")";
    case CoverageVerdict::Touched:
        return "touched " + std::to_string(touchedLines) + " changed line" +
               (touchedLines == 1 ? "" : "s") + " in " + joined(touchedFiles);
    case CoverageVerdict::Unknown:
        break;
    }
    return "unknown: " + reason;
}

std::string DiffCoverageResult::leftOutText() const
{
    return leftOut.empty() ? std::string() : "left out: " + joined(leftOut);
}

DiffCoverageResult DiffCoverage::judge(const ChangedLines &changed, const CoverageReport &report)
{
    if (report.unavailable) {
        DiffCoverageResult r = DiffCoverageResult::unknown("coverage is not importable by the "
                                                           "project's interpreter (" +
                                                           *report.unavailable + ")");
        r.leftOut = changed.leftOut();
        return r;
    }
    DiffCoverageResult r;
    r.leftOut = changed.leftOut();
    static const std::set<int> none;
    auto linesOf = [](const std::map<std::string, std::set<int>> &map, const std::string &path) {
        const auto it = map.find(path);
        return it == map.end() ? &none : &it->second;
    };
    std::vector<std::string> atImport, noCode;
    for (const auto &[path, lines] : changed.python) {
        const auto found = report.statements.find(path);
        const std::map<int, int> *owners =
            found == report.statements.end() ? nullptr : &found->second;
        const std::set<int> ran = statementsRun(*linesOf(report.inTests, path), owners);
        const std::set<int> imported = statementsRun(*linesOf(report.atImport, path), owners);
        const std::map<int, int> counted = countedLines(lines, owners);
        if (counted.empty()) // only blank lines, comments, docstrings: no changed code
            noCode.push_back(path);
        r.changedLines += int(counted.size());
        int hits = 0;
        for (const auto &[line, statement] : counted) {
            if (ran.count(statement))
                ++hits;
            else if (imported.count(statement))
                atImport.push_back(path + ":" + std::to_string(line));
        }
        if (hits > 0) {
            r.touchedLines += hits;
            r.touchedFiles.push_back(path);
        }
    }
    for (const std::string &path : changed.wholeFiles) {
        const std::set<int> *ran = linesOf(report.inTests, path);
        if (!ran->empty()) {
            r.touchedLines += int(ran->size());
            r.touchedFiles.push_back(path + " (moved)");
        } else if (!linesOf(report.atImport, path)->empty()) {
            atImport.push_back(path + " (moved)");
        }
    }
    if (r.touchedLines > 0) {
        r.verdict = CoverageVerdict::Touched;
        return r;
    }
    if (changed.empty()) {
        r.reason = "the patch changes no file";
        return r;
    }
    if (!changed.unmeasured.empty()) {
        r.reason = "the patch changes files coverage cannot measure but a test could read: " +
                   joined(changed.unmeasured);
        return r;
    }
    if (!atImport.empty()) {
        r.reason = "changed lines ran only at import (module-level code such as a def header "
                   "or a constant), which does not show whether the test used them: " +
                   joined(atImport);
        return r;
    }
    if (changed.python.empty() && changed.wholeFiles.empty()) {
        r.reason = changed.neverExecuted.empty()
                       ? "the patch changes only documentation, which no test reads: " +
                             joined(changed.documentation)
                       : "the patch changes only files no test executes: " + joined(r.leftOut);
        return r;
    }
    if (r.changedLines == 0 && changed.wholeFiles.empty()) {
        r.reason = "the patch changes no executable Python line (only blank lines, comments or "
                   "docstrings: " +
                   joined(noCode) + ")";
        return r;
    }
    r.verdict = CoverageVerdict::Untouched;
    return r;
}

DiffCoverageResult DiffCoverage::measure(const RunContext &ctx, const std::string &test,
                                         uint32_t seed, RunPool &pool,
                                         const std::function<void(Arm, RunSpec &)> &adjust,
                                         const RunPool::Progress &progress)
{
    ChangedLines changed;
    try {
        DiffOptions options;
        options.contextLines = 0;
        options.intraline = false;
        changed = ChangedLines::fromDiff(withoutLedgerDir(
            Repository::open(ctx.repoRoot()).diff(ctx.base(), ctx.head(), options), ctx));
    } catch (const Error &e) {
        return DiffCoverageResult::unknown(std::string("cannot read the patch's changed lines: ") +
                                           e.what());
    }

    RunSpec spec = ctx.spec(Arm::Head, {test}, seed);
    const std::string reportPath = spec.runDir + "/coverage.json";
    spec.env.witness.coverFile = reportPath;
    // The files the plugin reports statements of. Not written: no statements, every
    // changed line counts as it is (the judgement before statements existed).
    Json files = Json::array();
    for (const auto &[path, lines] : changed.python)
        files.push_back(path);
    writeFileReplacing(reportPath + ".changed.json", files.dump() + "\n", true);
    if (adjust)
        adjust(Arm::Head, spec);
    std::vector<RunResult> results;
    try {
        results = pool.run({spec}, progress);
    } catch (const Error &e) {
        return DiffCoverageResult::unknown(std::string("the coverage run did not start: ") +
                                           e.what());
    }
    const NodeRun run = nodeRun(results.front(), test);
    std::optional<CoverageReport> report;
    std::string reportError = "the coverage run wrote no report (" + reportPath + ")";
    if (const std::optional<std::string> text = readWholeFile(reportPath)) {
        try {
            report = CoverageReport::parse(*text, reportPath);
        } catch (const Error &e) {
            reportError = e.what();
        }
    }
    DiffCoverageResult r;
    if (results.front().status == RunStatus::Cancelled)
        r = DiffCoverageResult::unknown("the coverage run was cancelled");
    else if (report && report->unavailable)
        r = judge(changed, *report); // whatever the run did: the reason that stays
    else if (!run.evidence())
        r = DiffCoverageResult::unknown("the coverage run was no evidence (" +
                                        std::string(outcomeName(run.outcome)) + ": " + run.reason +
                                        ")");
    else if (!run.failed())
        r = DiffCoverageResult::unknown("the test did not fail in the coverage run (head seed " +
                                        std::to_string(seed) + ": " + outcomeName(run.outcome) +
                                        ")");
    else if (!report)
        r = DiffCoverageResult::unknown(reportError);
    else
        r = judge(changed, *report);
    r.seed = seed;
    r.leftOut = changed.leftOut();
    return r;
}

} // namespace pw::core
