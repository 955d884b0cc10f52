#include "workspace/VerdictHeader.h"

#include "panels/SeverityStyle.h"

#include <QFileInfo>
#include <algorithm>
#include <map>
#include <set>

namespace pw::gui {
namespace {

// The clause a kind of finding reads as, for `n` findings; `files` names the files of
// fixture edits. Codes of the same deed share a clause (T-SKIP and BLOCKER:marker are one
// skip).
struct Deed
{
    const char *key; // the clause's identity
    QString (*text)(int n, const QStringList &files);
};

QString plural(int n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

const char *deedOf(const std::string &code)
{
    static const std::map<std::string, const char *> deeds = {
        {"T-DEL", "delete"},
        {"BLOCKER:deleted", "delete"},
        {"T-GONE", "gone"},
        {"T-SKIP", "skip"},
        {"BLOCKER:marker", "skip"},
        {"C-SKIP", "skip"},
        {"T-WEAK", "assertions"},
        {"WEAKER:assertions", "assertions"},
        {"WEAKER:comparisons", "comparisons"},
        {"WEAKER:truthiness", "comparisons"},
        {"WEAKER:raises-scope", "raises"},
        {"WEAKER:tolerance", "tolerance"},
        {"LATITUDE", "latitude"},
        {"F-DRIFT", "fixture"},
        {"F-RENAME", "fixture"},
        {"CONFTEST-HOOK", "hook"},
        {"LEDGER-EDIT", "ledger-edit"},
        {"C-REMOVED", "removed"},
        {"T-ADD", "new"},
        {"NEW:test", "new"},
        {"PARSE_ERROR", "parse"},
        {"TOO-LARGE", "too-large"},
    };
    const auto it = deeds.find(code);
    if (it != deeds.end())
        return it->second;
    if (code.rfind("LEDGER:", 0) == 0)
        return "ledger";
    return nullptr;
}

// The order clauses are read in, whatever order the gates reported them in.
int deedRank(const std::string &deed)
{
    static const std::vector<std::string> order = {
        "delete",   "gone",   "removed",   "skip",    "assertions", "comparisons",
        "latitude", "raises", "tolerance", "fixture", "hook",       "ledger-edit",
        "ledger",   "parse",  "too-large", "new"};
    const auto it = std::find(order.begin(), order.end(), deed);
    return int(it - order.begin());
}

QString namedFiles(const QStringList &files, const char *one, const char *many)
{
    if (files.size() == 1)
        return QObject::tr("the %1 %2").arg(QLatin1String(one), files.front());
    if (files.size() == 2)
        return QObject::tr("the %1 %2 and %3").arg(QLatin1String(many), files[0], files[1]);
    return plural(int(files.size()), one, many);
}

QString deedText(const std::string &deed, const std::string &code, int n, int tests,
                 const QStringList &files, int goneTests)
{
    if (deed == "delete")
        return QObject::tr("deletes %1").arg(plural(tests, "test", "tests"));
    if (deed == "gone")
        return QObject::tr("deletes %1").arg(plural(n, "test file", "test files")) +
               (goneTests > 0 ? QObject::tr(" (%1)").arg(plural(goneTests, "test", "tests"))
                              : QString());
    if (deed == "skip")
        return QObject::tr("skips %1").arg(plural(tests, "test", "tests"));
    if (deed == "assertions")
        return QObject::tr("drops assertions from %1").arg(plural(tests, "test", "tests"));
    if (deed == "comparisons")
        return QObject::tr("weakens the comparisons of %1").arg(plural(tests, "test", "tests"));
    if (deed == "raises")
        return QObject::tr("widens %1").arg(plural(n, "expected exception", "expected exceptions"));
    if (deed == "tolerance")
        return QObject::tr("inflates %1").arg(plural(n, "tolerance", "tolerances"));
    if (deed == "latitude")
        return QObject::tr("loosens the oracle of %1").arg(plural(tests, "test", "tests"));
    if (deed == "fixture")
        return QObject::tr("edits %1").arg(namedFiles(files, "fixture", "fixtures"));
    if (deed == "hook")
        return n == 1 || files.size() == 1
                   ? QObject::tr("adds a collection hook")
                   : QObject::tr("adds collection hooks to %1")
                         .arg(plural(int(files.size()), "conftest file", "conftest files"));
    if (deed == "ledger-edit")
        return QObject::tr("edits the ledgers");
    if (deed == "ledger")
        return QObject::tr("has %1").arg(plural(n, "ledger problem", "ledger problems"));
    if (deed == "removed")
        return QObject::tr("stops collecting %1").arg(plural(tests, "test", "tests"));
    if (deed == "new")
        return QObject::tr("adds %1 to review").arg(plural(tests, "new test", "new tests"));
    if (deed == "parse")
        return QObject::tr("has %1 that do not parse").arg(plural(n, "test file", "test files"));
    if (deed == "too-large")
        return QObject::tr("has %1 over the size cap (not compared)")
            .arg(plural(n, "test file", "test files"));
    return QStringLiteral("%1 × %2").arg(QString::fromStdString(code)).arg(n);
}

QString verdictColour(core::Verdict v)
{
    // The chip's colours: white text on them reads at 5:1 or more.
    return v == core::Verdict::Block    ? QStringLiteral("#c62828")
           : v == core::Verdict::Review ? QStringLiteral("#9a5b00")
                                        : QStringLiteral("#2e7d32");
}

} // namespace

VerdictHeader::VerdictHeader(QWidget *parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("verdictHeader"));
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    setFocusPolicy(Qt::TabFocus);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum); // its lines, never more
    setContentsMargins(4, 2, 4, 2);
    connect(this, &QLabel::linkActivated, this, [this](const QString &link) {
        bool ok = false;
        const int index = link.toInt(&ok);
        if (ok && index >= 0 && index < int(m_clauses.size()))
            Q_EMIT clauseActivated(index, m_clauses[size_t(index)].keys);
    });
    showState(tr("Open a repository to see its verdict."));
}

void VerdictHeader::showState(const QString &state)
{
    m_clauses.clear();
    m_plain = state;
    setText(state.toHtmlEscaped());
}

QString VerdictHeader::keyOf(const core::Finding &f)
{
    return QString::fromStdString(f.code + '\x1f' + f.path + '\x1f' + std::to_string(f.line) +
                                  '\x1f' + f.test);
}

std::vector<VerdictClause> VerdictHeader::clausesOf(const core::GateReport &report)
{
    struct Group
    {
        std::string deed, code;
        VerdictClause clause;
        std::set<std::string> tests;
        std::set<std::string> goneTests;
        QStringList files;
    };
    // A deleted test file is one clause with its tests: their BLOCKER:deleted rows do not
    // count again as deleted tests (they are still visited through the file's clause).
    std::set<std::string> goneFiles;
    for (const core::Finding &f : report.findings) {
        if (f.code == "T-GONE" && !f.satisfiedBy)
            goneFiles.insert(f.path);
    }
    std::vector<Group> groups;
    for (core::Severity severity : {core::Severity::Block, core::Severity::Review}) {
        const size_t first = groups.size();
        for (const core::Finding &f : report.findings) {
            if (f.severity != severity || f.satisfiedBy)
                continue;
            const char *deed = deedOf(f.code);
            std::string key = deed ? deed : f.code;
            if (key == "delete" && goneFiles.count(f.path))
                key = "gone";
            auto it = std::find_if(groups.begin() + long(first), groups.end(),
                                   [&](const Group &g) { return g.deed == key; });
            if (it == groups.end()) {
                groups.push_back({key, f.code, {}, {}, {}, {}});
                groups.back().clause.severity = severity;
                it = groups.end() - 1;
            }
            const QString code = QString::fromStdString(f.code);
            if (!it->clause.codes.contains(code))
                it->clause.codes << code;
            it->clause.keys << keyOf(f);
            if (f.code == "BLOCKER:deleted" && key == "gone")
                it->goneTests.insert(f.test);
            else
                ++it->clause.findings;
            it->tests.insert(f.test.empty() ? f.path : f.test);
            const QString file = QFileInfo(QString::fromStdString(f.path)).fileName();
            if (!file.isEmpty() && !it->files.contains(file))
                it->files << file;
        }
    }
    // Within a severity, in the order a reviewer reads them (deleted tests first).
    std::stable_sort(groups.begin(), groups.end(), [](const Group &a, const Group &b) {
        if (a.clause.severity != b.clause.severity)
            return a.clause.severity > b.clause.severity;
        return deedRank(a.deed) < deedRank(b.deed);
    });
    std::vector<VerdictClause> out;
    for (Group &g : groups) {
        g.clause.text = deedText(g.deed, g.code, g.clause.findings, int(g.tests.size()), g.files,
                                 int(g.goneTests.size()));
        g.clause.findings += int(g.goneTests.size());
        out.push_back(std::move(g.clause));
    }
    return out;
}

void VerdictHeader::showReport(const core::GateReport &report)
{
    m_clauses = clausesOf(report);
    const QString verdict = QString::fromLatin1(core::verdictName(report.verdict));
    int answered = 0;
    for (const core::Finding &f : report.findings)
        answered += f.satisfiedBy && f.severity != core::Severity::Info ? 1 : 0;
    QStringList html, plain;
    for (size_t i = 0; i < m_clauses.size(); ++i) {
        const VerdictClause &c = m_clauses[i];
        const QString text = c.text.toHtmlEscaped();
        const QString link = QStringLiteral("<a href=\"%1\">%2</a>").arg(i).arg(text);
        html << (c.severity == core::Severity::Block ? QStringLiteral("<b>%1</b>").arg(link)
                                                     : link);
        plain << c.text;
    }
    QString tail;
    if (answered)
        tail = tr("%n answered by the ledgers", nullptr, answered);
    const QString badge = QStringLiteral("<span style=\"color:white; background-color:%1;\">"
                                         "&nbsp;<b>%2</b>&nbsp;</span>")
                              .arg(verdictColour(report.verdict), verdict);
    if (m_clauses.empty()) {
        const QString why = report.verdict == core::Verdict::Pass
                                ? tr("nothing blocks it or asks for review")
                                : tr("no finding says why");
        setText(badge + QStringLiteral("&nbsp; ") + why.toHtmlEscaped() +
                (tail.isEmpty() ? QString() : QStringLiteral(" · ") + tail.toHtmlEscaped()));
        m_plain = verdict + QStringLiteral(": ") + why +
                  (tail.isEmpty() ? QString() : QStringLiteral("; ") + tail);
        return;
    }
    if (!tail.isEmpty()) {
        html << tail.toHtmlEscaped();
        plain << tail;
    }
    setText(badge + tr("&nbsp; the patch ") + html.join(QStringLiteral(" · ")));
    m_plain = verdict + tr(": the patch ") + plain.join(QStringLiteral(", "));
}

} // namespace pw::gui
