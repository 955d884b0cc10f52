// The static-evidence panels: the three report models, the log, the reusable panel widget
// and the docks helper, driven by object name with hand-built gate reports.
#include "ChangedFilesModel.h"
#include "FindingsModel.h"
#include "TestSupport.h"
#include "audit/GateReport.h"
#include "panels/EvidenceDocks.h"
#include "panels/EvidencePanel.h"
#include "panels/EvidenceProxyModel.h"
#include "panels/EvidenceRoles.h"
#include "panels/LatitudeModel.h"
#include "panels/LogModel.h"
#include "panels/ManifestModel.h"
#include "panels/SeverityStyle.h"
#include "panels/StrengthModel.h"
#include "runs/RunsModel.h"
#include "workspace/AppLook.h"
#include "workspace/ViewedDelegate.h"

#include <QAction>
#include <QApplication>
#include <QBrush>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QSignalSpy>
#include <QStyle>
#include <QStyleFactory>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>
#include <algorithm>
#include <limits>

using namespace pw::gui;
namespace core = pw::core;
using pw::core::Finding;
using pw::core::GateReport;
using pw::core::LatitudeTestScore;
using pw::core::Severity;
using pw::core::StrengthMetrics;
using pw::core::StrengthRow;

namespace {

Finding finding(const char *gate, const char *code, Severity severity, const char *path, int line,
                const char *test, const char *message, const char *evidence)
{
    Finding f;
    f.gate = gate;
    f.code = code;
    f.severity = severity;
    f.path = path;
    f.line = line;
    f.test = test;
    f.message = message;
    f.evidence = evidence;
    return f;
}

LatitudeTestScore latitude(const char *test, int line, int score,
                           std::vector<std::string> signalList)
{
    LatitudeTestScore t;
    t.test = test;
    t.path = std::string(test).substr(0, std::string(test).find("::"));
    t.line = line;
    t.score = score;
    t.signals = std::move(signalList);
    return t;
}

StrengthMetrics metrics(int assertions, int comparisons, int truthy = 0,
                        std::optional<double> tolerance = {}, int broad = 0, int skips = 0)
{
    StrengthMetrics m;
    m.assertions = assertions;
    m.comparisons = comparisons;
    m.truthyOnly = truthy;
    m.widestTolerance = tolerance;
    m.broadRaises = broad;
    m.skipMarkers = skips;
    return m;
}

StrengthRow strength(const char *test, int line, std::optional<StrengthMetrics> base,
                     std::optional<StrengthMetrics> head, std::vector<std::string> flags,
                     Severity action)
{
    StrengthRow r;
    r.test = test;
    r.path = std::string(test).substr(0, std::string(test).find("::"));
    r.line = line;
    r.base = base;
    r.head = head;
    r.flags = std::move(flags);
    r.action = action;
    return r;
}

constexpr double kComputed = std::numeric_limits<double>::infinity();

// Modelled on the demo repository's audit: every gate has findings, the latitude total is
// over the threshold, and the strength rows cover deleted, new, weaker and stronger tests.
GateReport demoReport()
{
    GateReport r;
    r.repo = "/home/reviewer/roundmath";
    r.base = {"main", std::string("0bced9a11dcadd7ea557600d0d30d8322422c8a2")};
    r.head = {"WORKTREE", std::nullopt};
    const char *del = "replacement test id or written rationale (a census waiver)";
    r.findings = {
        finding("manifest", "T-GONE", Severity::Block, "tests/test_builtin_compat.py", 0, "",
                "test file removed with 2 test(s)", del),
        finding("manifest", "T-DEL", Severity::Block, "tests/test_rounding.py", 11,
                "tests/test_rounding.py::test_round_half_ties_to_even",
                "test function test_round_half_ties_to_even disappeared", del),
        finding("manifest", "T-SKIP", Severity::Block, "tests/test_rounding.py", 25,
                "tests/test_rounding.py::test_round_to_cents_half_cent",
                "skip/xfail newly present: pytest.mark.skip", "a freeze record with an expiry"),
        finding("manifest", "T-WEAK", Severity::Review, "tests/test_cache.py", 1, "",
                "assertion count dropped from 6 to 5 with no test lost",
                "reviewer note naming the property still covered"),
        finding("manifest", "T-ADD", Severity::Info, "tests/test_round_half_regression.py", 1, "",
                "new test file with 2 test(s)", "none"),
        finding("manifest", "PARSE_ERROR", Severity::Block, "tests/test_money.py", 7, "",
                "tests/test_money.py:7:5: invalid syntax (the test file does not parse at head)",
                "a test file that parses"),
        finding("latitude", "LATITUDE", Severity::Block, "tests/test_parsing.py", 17,
                "tests/test_parsing.py::test_parse_amount_rejects_garbage",
                "oracle latitude +3: exception rank 0->3", "a replacement assertion"),
        finding("strength", "WEAKER:assertions", Severity::Review, "tests/test_cache.py", 12,
                "tests/test_cache.py::TestRoundingCache::test_hit_and_miss_counts",
                "fewer assertions: 3 -> 2", "reviewer note naming the property still covered"),
        finding("conftest", "CONFTEST-HOOK", Severity::Review, "tests/conftest.py", 21, "",
                "collection logic touched (`pytest_collection_modifyitems` added)",
                "reviewer confirms which tests the hook skips, deselects or marks"),
        finding("conftest", "CONFTEST-HOOK", Severity::Review, "tests/conftest.py", 26, "",
                "collection logic touched (`add_marker` added)",
                "reviewer confirms which tests the hook skips, deselects or marks"),
        finding("fixture", "F-DRIFT", Severity::Block, "tests/fixtures/expected_totals.json", 0, "",
                "fixture changed: sha256 b27a4112a5ee -> f4469ac98a2f",
                "fixture diff plus reason (human note)"),
        finding("fixture", "F-DRIFT", Severity::Block, "tests/fixtures/rates.csv", 0, "",
                "fixture changed: sha256 90403a752769 -> f6afcf01475d",
                "fixture diff plus reason (human note)"),
        finding("ledger", "LEDGER-EDIT", Severity::Review, ".patchwitness/freezes.toml", 0, "",
                "the patch modified a ledger file", "reviewer confirms the ledger change"),
        finding("census", "CENSUS-REMOVED", Severity::Block, "tests/test_rounding.py", 11,
                "tests/test_rounding.py::test_round_half_ties_to_even", "node removed", del),
    };
    r.findings[11].satisfiedBy = "fixture_notes.toml: rates.csv (2024-05-02, J. Reviewer)";

    r.latitude.total = 14;
    r.latitude.threshold = 4;
    r.latitude.policy = "latitude 14 >= 4: block, ask for a replacement assertion";
    r.latitude.tests = {
        latitude("tests/test_cache.py::TestRoundingCache::test_hit_and_miss_counts", 12, 1,
                 {"1 assertion(s) removed"}),
        latitude("tests/test_cache.py::TestRoundingCache::test_miss_raises_key_error", 7, 1,
                 {"exception rank 0->1 (KeyError->LookupError, base class)"}),
        latitude("tests/test_parsing.py::test_decimal_places", 22, 3,
                 {"compare rank 0->3 (line 23)"}),
        latitude("tests/test_parsing.py::test_parse_amount_rejects_garbage", 17, 3,
                 {"exception rank 0->3 (ValueError->Exception, base class)"}),
        latitude("tests/test_rounding.py::test_round_to_cents_half_cent", 25, 4,
                 {"skip/xfail added"}),
        latitude("tests/test_rounding.py::test_total_of_half_cent_lines", 29, 2,
                 {"tolerance 1e-09->0.1"}),
        latitude("tests/test_rounding.py::test_total_rounds_each_line", 40, 0, {}),
    };

    r.strength.action = Severity::Block;
    r.strength.tests = {
        strength("tests/test_builtin_compat.py::test_matches_builtin_round", 9, metrics(1, 1),
                 std::nullopt, {"BLOCKER:deleted"}, Severity::Block),
        strength("tests/test_cache.py::TestRoundingCache::test_hit_and_miss_counts", 12,
                 metrics(3, 3), metrics(2, 2), {"WEAKER:assertions", "WEAKER:comparisons"},
                 Severity::Review),
        strength("tests/test_cache.py::TestRoundingCache::test_miss_raises_key_error", 7,
                 metrics(0, 0), metrics(0, 0), {}, Severity::Info),
        strength("tests/test_parsing.py::test_decimal_places", 22, metrics(1, 1), metrics(1, 0, 1),
                 {"WEAKER:comparisons", "WEAKER:truthiness"}, Severity::Review),
        strength("tests/test_parsing.py::test_parse_amount_rejects_garbage", 17, metrics(0, 0),
                 metrics(0, 0, 0, {}, 1), {"WEAKER:raises-scope"}, Severity::Review),
        strength("tests/test_parsing.py::test_parse_rate", 31, metrics(2, 1, 0, 1e-6),
                 metrics(2, 1, 0, kComputed), {"WEAKER:tolerance"}, Severity::Review),
        strength("tests/test_round_half_regression.py::test_round_half_away_from_zero", 9,
                 std::nullopt, metrics(2, 2), {"NEW:test"}, Severity::Review),
        strength("tests/test_rounding.py::test_round_half_ties_to_even", 11, metrics(2, 2),
                 std::nullopt, {"BLOCKER:deleted"}, Severity::Block),
        strength("tests/test_rounding.py::test_round_to_cents_half_cent", 25, metrics(1, 1),
                 metrics(1, 1, 0, {}, 0, 1), {"BLOCKER:marker"}, Severity::Block),
        strength("tests/test_rounding.py::test_total_of_half_cent_lines", 29,
                 metrics(1, 1, 0, 1e-9), metrics(1, 1, 0, 0.1), {"WEAKER:tolerance"},
                 Severity::Review),
        strength("tests/test_rounding.py::test_totals_match_fixture", 44, metrics(1, 1),
                 metrics(2, 3), {"STRONGER:comparisons"}, Severity::Info),
    };
    r.computeVerdict();
    return r;
}

GateReport latitudeReport(int total, int threshold, std::vector<int> scores)
{
    GateReport r;
    r.latitude.total = total;
    r.latitude.threshold = threshold;
    int line = 10;
    for (int score : scores) {
        const std::string test = "tests/test_l.py::test_" + std::to_string(line);
        r.latitude.tests.push_back(latitude(test.c_str(), line, score,
                                            score ? std::vector<std::string>{"compare rank 1->2"}
                                                  : std::vector<std::string>{}));
        line += 10;
    }
    return r;
}

QColor foreground(const QModelIndex &index)
{
    return index.data(Qt::ForegroundRole).value<QBrush>().color();
}

bool hasColour(const QModelIndex &index)
{
    return index.data(Qt::ForegroundRole).isValid();
}

// The proxy rows of a panel, as the display text of one column.
QStringList columnTexts(const EvidencePanel &panel, int column)
{
    QStringList out;
    for (int row = 0; row < panel.proxy()->rowCount(); ++row)
        out << panel.proxy()->index(row, column).data().toString();
    return out;
}

} // namespace

class TstPanels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowCountsPerModel();
    void manifestColumns_data();
    void manifestColumns();
    void verdictCellColouredBySeverity_data();
    void verdictCellColouredBySeverity();
    void evidenceRolesOnEveryModel();
    void latitudeColumnsJoinSignals();
    void latitudeSummary_data();
    void latitudeSummary();
    void latitudeScoreColour_data();
    void latitudeScoreColour();
    void strengthColumns_data();
    void strengthColumns();
    void strengthFlaggedMetricsColoured();
    void filterTextNarrowsRows();
    void ctrlFFocusesTheFilter();
    void fileFilterShowsOnlyThatFileAndChipClearsIt();
    void selectRowSelectsWithoutSignal();
    void userRowChangeEmitsRowActivated();
    void filteringAndResetDoNotEmit();
    void copyPutsTsvOnClipboard();
    void sortingByScoreIsNumeric();
    void logModelCapsRows();
    void runsModelCapsRowsAndLogsTheReplayLine();
    void logPanelKeepsSelectionQuietWhenRowsDrop();
    void docksInstallAndMirror();
    void coloursReadOnLightAndDark_data();
    void coloursReadOnLightAndDark();
    void rendersPanels();
};

void TstPanels::rowCountsPerModel()
{
    const GateReport report = demoReport();
    ManifestModel manifest;
    LatitudeModel latitude;
    StrengthModel strength;
    manifest.setReport(report);
    latitude.setReport(report);
    strength.setReport(report);
    // manifest 5 + PARSE_ERROR + conftest 2 + fixture 2 + ledger 1; not latitude, strength,
    // census.
    QCOMPARE(manifest.rowCount(), 11);
    QCOMPARE(manifest.columnCount(), int(ManifestModel::ColumnCount));
    QCOMPARE(latitude.rowCount(), 7); // the score-0 test too
    QCOMPARE(strength.rowCount(), 11);
    QCOMPARE(strength.columnCount(), 9);

    manifest.setReport(GateReport{});
    QCOMPARE(manifest.rowCount(), 0);
}

void TstPanels::manifestColumns_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("text");
    QTest::newRow("verdict is the code") << 1 << int(ManifestModel::VerdictColumn) << "T-DEL";
    QTest::newRow("test id when there is one")
        << 1 << int(ManifestModel::LocationColumn)
        << "tests/test_rounding.py::test_round_half_ties_to_even";
    QTest::newRow("path:line without a test")
        << 5 << int(ManifestModel::LocationColumn) << "tests/test_money.py:7";
    QTest::newRow("path alone without a line")
        << 0 << int(ManifestModel::LocationColumn) << "tests/test_builtin_compat.py";
    QTest::newRow("block blocks") << 0 << int(ManifestModel::BlockingColumn) << "yes";
    QTest::newRow("review is review") << 3 << int(ManifestModel::BlockingColumn) << "review";
    QTest::newRow("info does not block") << 4 << int(ManifestModel::BlockingColumn) << "no";
    QTest::newRow("satisfied does not block")
        << 9 << int(ManifestModel::BlockingColumn) << "no (satisfied)";
    QTest::newRow("evidence") << 2 << int(ManifestModel::EvidenceColumn)
                              << "a freeze record with an expiry";
    QTest::newRow("unsatisfied") << 2 << int(ManifestModel::SatisfiedColumn) << "—";
    QTest::newRow("satisfied by the ledger entry")
        << 9 << int(ManifestModel::SatisfiedColumn)
        << "fixture_notes.toml: rates.csv (2024-05-02, J. Reviewer)";
}

void TstPanels::manifestColumns()
{
    QFETCH(int, row);
    QFETCH(int, column);
    QFETCH(QString, text);
    ManifestModel model;
    model.setReport(demoReport());
    QCOMPARE(model.index(row, column).data().toString(), text);
}

void TstPanels::verdictCellColouredBySeverity_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("severity");
    QTest::addColumn<QString>("colour"); // "red", "amber", "green", "" (palette)
    QTest::newRow("T-GONE block") << 0 << 2 << "red";
    QTest::newRow("T-WEAK review") << 3 << 1 << "amber";
    QTest::newRow("T-ADD info") << 4 << 0 << "";
    QTest::newRow("CONFTEST-HOOK review") << 6 << 1 << "amber";
    QTest::newRow("F-DRIFT satisfied") << 9 << 2 << "green";
}

void TstPanels::verdictCellColouredBySeverity()
{
    QFETCH(int, row);
    QFETCH(int, severity);
    QFETCH(QString, colour);
    ManifestModel model;
    model.setReport(demoReport());
    const QModelIndex cell = model.index(row, ManifestModel::VerdictColumn);
    QCOMPARE(cell.data(SeverityRole).toInt(), severity);
    if (colour.isEmpty()) {
        QVERIFY(!hasColour(cell));
        QVERIFY(!cell.data(Qt::BackgroundRole).isValid());
        return;
    }
    const QColor fg = foreground(cell);
    QVERIFY(cell.data(Qt::BackgroundRole).isValid());
    if (colour == QLatin1String("red"))
        QVERIFY2(fg.red() > 2 * fg.green() && fg.red() > 2 * fg.blue(), qPrintable(fg.name()));
    else if (colour == QLatin1String("amber"))
        QVERIFY2(fg.red() > fg.green() && fg.green() > fg.blue() && fg.green() > 0x30,
                 qPrintable(fg.name()));
    else
        QVERIFY2(fg.green() > fg.red() && fg.green() > fg.blue(), qPrintable(fg.name()));
}

void TstPanels::evidenceRolesOnEveryModel()
{
    const GateReport report = demoReport();
    ManifestModel manifest;
    LatitudeModel latitude;
    StrengthModel strength;
    manifest.setReport(report);
    latitude.setReport(report);
    strength.setReport(report);

    const QModelIndex m = manifest.index(2, ManifestModel::BlockingColumn);
    QCOMPARE(m.data(PathRole).toString(), QStringLiteral("tests/test_rounding.py"));
    QCOMPARE(m.data(LineRole).toInt(), 25);
    QCOMPARE(m.data(TestRole).toString(),
             QStringLiteral("tests/test_rounding.py::test_round_to_cents_half_cent"));
    QCOMPARE(m.data(SeverityRole).toInt(), 2);

    const QModelIndex l = latitude.index(2, LatitudeModel::SignalsColumn);
    QCOMPARE(l.data(PathRole).toString(), QStringLiteral("tests/test_parsing.py"));
    QCOMPARE(l.data(LineRole).toInt(), 22);
    QCOMPARE(l.data(TestRole).toString(),
             QStringLiteral("tests/test_parsing.py::test_decimal_places"));
    QCOMPARE(l.data(SeverityRole).toInt(), 2);
    QCOMPARE(latitude.index(6, 0).data(SeverityRole).toInt(), 0); // score 0

    const QModelIndex s = strength.index(3, StrengthModel::ActionColumn);
    QCOMPARE(s.data(PathRole).toString(), QStringLiteral("tests/test_parsing.py"));
    QCOMPARE(s.data(LineRole).toInt(), 22);
    QCOMPARE(s.data(SeverityRole).toInt(), 1);
    QCOMPARE(s.data().toString(), QStringLiteral("review"));
    QCOMPARE(strength.index(2, StrengthModel::ActionColumn).data().toString(),
             QStringLiteral("pass"));
}

void TstPanels::latitudeColumnsJoinSignals()
{
    GateReport report = latitudeReport(7, 4, {4, 3, 0});
    report.latitude.tests[0].signals = {"compare rank 1->3 (line 12)", "tolerance 1e-06->computed"};
    LatitudeModel model;
    model.setReport(report);
    QCOMPARE(model.index(0, LatitudeModel::SignalsColumn).data().toString(),
             QStringLiteral("compare rank 1->3 (line 12); tolerance 1e-06->computed"));
    QCOMPARE(model.index(0, LatitudeModel::ScoreColumn).data().toString(), QStringLiteral("+4"));
    QCOMPARE(model.index(0, LatitudeModel::ShareColumn).data().toString(), QStringLiteral("57%"));
    QCOMPARE(model.index(2, LatitudeModel::ScoreColumn).data().toString(), QStringLiteral("0"));
    QCOMPARE(model.index(2, LatitudeModel::SignalsColumn).data().toString(),
             QStringLiteral("unchanged or stricter"));
    QCOMPARE(model.index(0, LatitudeModel::ScoreColumn).data(SortRole).toInt(), 4);
    QCOMPARE(model.headerData(LatitudeModel::ShareColumn, Qt::Horizontal).toString(),
             QStringLiteral("Policy share"));
}

void TstPanels::latitudeSummary_data()
{
    QTest::addColumn<int>("total");
    QTest::addColumn<QString>("policy"); // empty: the model asks the scorer
    QTest::addColumn<QString>("summary");
    QTest::addColumn<int>("severity");
    QTest::newRow("unchanged") << 0 << QString()
                               << "Patch latitude 0 (threshold 4): oracle unchanged or stricter"
                               << 0;
    QTest::newRow("below threshold")
        << 2 << QString()
        << "Patch latitude 2 (threshold 4): small widening: reviewer acknowledgement required" << 1;
    QTest::newRow("at threshold")
        << 4 << QString()
        << "Patch latitude 4 (threshold 4): latitude 4 >= 4: block, ask for a replacement "
           "assertion"
        << 2;
    QTest::newRow("the report's own policy sentence")
        << 7 << "block, ask for a replacement assertion"
        << "Patch latitude 7 (threshold 4): block, ask for a replacement assertion" << 2;
}

void TstPanels::latitudeSummary()
{
    QFETCH(int, total);
    QFETCH(QString, policy);
    QFETCH(QString, summary);
    QFETCH(int, severity);
    GateReport report = latitudeReport(total, 4, {total});
    report.latitude.policy = policy.toStdString();
    LatitudeModel model;
    model.setReport(report);
    QCOMPARE(model.summary(), summary);
    QCOMPARE(int(model.summarySeverity()), severity);
}

void TstPanels::latitudeScoreColour_data()
{
    QTest::addColumn<int>("total");
    QTest::addColumn<int>("score");
    QTest::addColumn<int>("severity");
    QTest::newRow("score 0 is neutral") << 7 << 0 << 0;
    QTest::newRow("below threshold is amber") << 3 << 2 << 1;
    QTest::newRow("at threshold is red") << 4 << 1 << 2;
    QTest::newRow("over threshold is red") << 9 << 5 << 2;
}

void TstPanels::latitudeScoreColour()
{
    QFETCH(int, total);
    QFETCH(int, score);
    QFETCH(int, severity);
    LatitudeModel model;
    model.setReport(latitudeReport(total, 4, {score}));
    const QModelIndex cell = model.index(0, LatitudeModel::ScoreColumn);
    QCOMPARE(cell.data(SeverityRole).toInt(), severity);
    if (severity == 0) {
        QVERIFY(!hasColour(cell));
        return;
    }
    const QColor fg = foreground(cell);
    if (severity == 2)
        QVERIFY2(fg.red() > 2 * fg.green(), qPrintable(fg.name()));
    else
        QVERIFY2(fg.red() > fg.green() && fg.green() > fg.blue() && fg.green() > 0x30,
                 qPrintable(fg.name()));
    // The test column carries no colour: the score is the one coloured cell.
    QVERIFY(!hasColour(model.index(0, LatitudeModel::TestColumn)));
}

void TstPanels::strengthColumns_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("text");
    QTest::newRow("assertions base→head") << 1 << int(StrengthModel::AssertionsColumn) << "3→2";
    QTest::newRow("comparisons base→head") << 1 << int(StrengthModel::ComparisonsColumn) << "3→2";
    QTest::newRow("unchanged is one number") << 3 << int(StrengthModel::AssertionsColumn) << "1";
    QTest::newRow("truthy-only grew") << 3 << int(StrengthModel::TruthyColumn) << "0→1";
    QTest::newRow("computed tolerance")
        << 5 << int(StrengthModel::ToleranceColumn) << "1e-06→computed";
    QTest::newRow("literal tolerance") << 9 << int(StrengthModel::ToleranceColumn) << "1e-09→0.1";
    QTest::newRow("no tolerance") << 1 << int(StrengthModel::ToleranceColumn) << "none";
    QTest::newRow("broad raises") << 4 << int(StrengthModel::BroadRaisesColumn) << "0→1";
    QTest::newRow("skip markers") << 8 << int(StrengthModel::SkipMarkersColumn) << "0→1";
    QTest::newRow("deleted test") << 0 << int(StrengthModel::AssertionsColumn) << "1→—";
    QTest::newRow("new test") << 6 << int(StrengthModel::AssertionsColumn) << "—→2";
    QTest::newRow("flags joined") << 1 << int(StrengthModel::FlagsColumn)
                                  << "WEAKER:assertions, WEAKER:comparisons";
    QTest::newRow("no flags") << 2 << int(StrengthModel::FlagsColumn) << "—";
    QTest::newRow("action block") << 0 << int(StrengthModel::ActionColumn) << "block";
    QTest::newRow("action pass") << 10 << int(StrengthModel::ActionColumn) << "pass";
}

void TstPanels::strengthColumns()
{
    QFETCH(int, row);
    QFETCH(int, column);
    QFETCH(QString, text);
    StrengthModel model;
    model.setReport(demoReport());
    QCOMPARE(model.index(row, column).data().toString(), text);
}

void TstPanels::strengthFlaggedMetricsColoured()
{
    StrengthModel model;
    model.setReport(demoReport());
    // WEAKER:assertions colours the assertions cell amber, not the truthy cell.
    QVERIFY(hasColour(model.index(1, StrengthModel::AssertionsColumn)));
    QVERIFY(!hasColour(model.index(1, StrengthModel::TruthyColumn)));
    // BLOCKER:marker is red; STRONGER:comparisons is green.
    const QColor marker = foreground(model.index(8, StrengthModel::SkipMarkersColumn));
    QVERIFY2(marker.red() > 2 * marker.green(), qPrintable(marker.name()));
    const QColor stronger = foreground(model.index(10, StrengthModel::ComparisonsColumn));
    QVERIFY2(stronger.green() > stronger.red(), qPrintable(stronger.name()));
    // Sorting a metric column sorts by the change: the largest loss first.
    QCOMPARE(model.index(1, StrengthModel::AssertionsColumn).data(SortRole).toInt(), -1);
    QCOMPARE(model.index(10, StrengthModel::ComparisonsColumn).data(SortRole).toInt(), 2);
}

void TstPanels::filterTextNarrowsRows()
{
    ManifestModel model;
    model.setReport(demoReport());
    EvidencePanel panel;
    panel.setModel(&model);
    auto *filter = panel.findChild<QLineEdit *>(QStringLiteral("filter"));
    QVERIFY(filter);
    QCOMPARE(filter->placeholderText(), QStringLiteral("Filter…"));
    QCOMPARE(panel.proxy()->rowCount(), 11);

    filter->setText(QStringLiteral("t-del")); // code column, any case
    QCOMPARE(columnTexts(panel, 0), QStringList{QStringLiteral("T-DEL")});
    filter->setText(QStringLiteral("CENSUS WAIVER")); // evidence column
    QCOMPARE(panel.proxy()->rowCount(), 2);
    filter->setText(QStringLiteral("conftest.py")); // location column
    QCOMPARE(panel.proxy()->rowCount(), 2);
    filter->setText(QStringLiteral("no such text"));
    QCOMPARE(panel.proxy()->rowCount(), 0);
    QCOMPARE(panel.findChild<QLabel *>(QStringLiteral("rowCount"))->text(),
             QStringLiteral("0 of 11 rows"));
    filter->clear();
    QCOMPARE(panel.proxy()->rowCount(), 11);
}

void TstPanels::ctrlFFocusesTheFilter()
{
    ManifestModel model;
    model.setReport(demoReport());
    EvidencePanel panel;
    panel.setModel(&model);
    panel.show();
    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    panel.view()->setFocus();
    QVERIFY(panel.view()->hasFocus());
    QTest::keyClick(panel.view(), Qt::Key_F, Qt::ControlModifier);
    QVERIFY(panel.findChild<QLineEdit *>(QStringLiteral("filter"))->hasFocus());
}

void TstPanels::fileFilterShowsOnlyThatFileAndChipClearsIt()
{
    StrengthModel model;
    model.setReport(demoReport());
    EvidencePanel panel;
    panel.setModel(&model);
    panel.show();
    auto *chip = panel.findChild<QToolButton *>(QStringLiteral("fileFilterChip"));
    QVERIFY(chip);
    QVERIFY(!chip->isVisible());
    QSignalSpy changed(&panel, &EvidencePanel::fileFilterChanged);

    panel.setFileFilter(QStringLiteral("tests/test_parsing.py"));
    QCOMPARE(panel.proxy()->rowCount(), 3);
    for (int row = 0; row < panel.proxy()->rowCount(); ++row)
        QCOMPARE(panel.proxy()->index(row, 0).data(PathRole).toString(),
                 QStringLiteral("tests/test_parsing.py"));
    QVERIFY(chip->isVisible());
    QCOMPARE(chip->text(), QStringLiteral("only tests/test_parsing.py ✕"));
    QCOMPARE(panel.fileFilter(), QStringLiteral("tests/test_parsing.py"));

    // The text filter applies within the file.
    panel.setFilterText(QStringLiteral("truthiness"));
    QCOMPARE(panel.proxy()->rowCount(), 1);
    panel.setFilterText({});

    // Had another file been renamed to this one, the rows of its old path would show too.
    int otherRows = 0;
    for (int row = 0; row < model.rowCount(); ++row)
        otherRows += model.index(row, 0).data(PathRole).toString() ==
                             QStringLiteral("tests/test_rounding.py")
                         ? 1
                         : 0;
    QVERIFY(otherRows > 0);
    panel.proxy()->setRenames(
        {{QStringLiteral("tests/test_parsing.py"), QStringLiteral("tests/test_rounding.py")}});
    QCOMPARE(panel.proxy()->rowCount(), 3 + otherRows);
    panel.proxy()->setRenames({});
    QCOMPARE(panel.proxy()->rowCount(), 3);

    QTest::mouseClick(chip, Qt::LeftButton);
    QVERIFY(!chip->isVisible());
    QVERIFY(panel.fileFilter().isEmpty());
    QCOMPARE(panel.proxy()->rowCount(), 11);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(changed.at(1).at(0).toString(), QString());
}

void TstPanels::selectRowSelectsWithoutSignal()
{
    ManifestModel model;
    model.setReport(demoReport());
    EvidencePanel panel;
    panel.setModel(&model);
    panel.show();
    QSignalSpy activated(&panel, &EvidencePanel::rowActivated);

    QVERIFY(panel.selectRow(QStringLiteral("tests/test_rounding.py"), 25));
    QModelIndex current = panel.view()->currentIndex();
    QCOMPARE(current.data(LineRole).toInt(), 25);
    QCOMPARE(current.siblingAtColumn(0).data().toString(), QStringLiteral("T-SKIP"));
    QCOMPARE(panel.view()->selectionModel()->selectedRows().size(), 1);

    // No row at that line: the first row of the file.
    QVERIFY(panel.selectRow(QStringLiteral("tests/conftest.py"), 99));
    current = panel.view()->currentIndex();
    QCOMPARE(current.data(PathRole).toString(), QStringLiteral("tests/conftest.py"));
    QCOMPARE(current.data(LineRole).toInt(), 21);

    // After sorting, "first" is the first row as shown.
    panel.sortBy(ManifestModel::LocationColumn, Qt::DescendingOrder);
    QVERIFY(panel.selectRow(QStringLiteral("tests/conftest.py"), 99));
    QCOMPARE(panel.view()->currentIndex().data(LineRole).toInt(), 26);

    QVERIFY(!panel.selectRow(QStringLiteral("src/nowhere.py"), 1));
    QCOMPARE(activated.count(), 0);
}

void TstPanels::userRowChangeEmitsRowActivated()
{
    LatitudeModel model;
    model.setReport(demoReport());
    EvidencePanel panel;
    panel.setModel(&model);
    panel.resize(900, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy activated(&panel, &EvidencePanel::rowActivated);

    QTreeView *view = panel.view();
    const QModelIndex second = panel.proxy()->index(1, LatitudeModel::SignalsColumn);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(second).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toString(), QStringLiteral("tests/test_cache.py"));
    QCOMPARE(activated.at(0).at(1).toInt(), 7);
    QCOMPARE(activated.at(0).at(2).toString(),
             QStringLiteral("tests/test_cache.py::TestRoundingCache::test_miss_raises_key_error"));

    view->setFocus();
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(activated.count(), 2);
    QCOMPARE(activated.at(1).at(1).toInt(), 22);
    QCOMPARE(activated.at(1).at(2).toString(),
             QStringLiteral("tests/test_parsing.py::test_decimal_places"));
}

void TstPanels::filteringAndResetDoNotEmit()
{
    LatitudeModel model;
    model.setReport(demoReport());
    EvidencePanel panel;
    panel.setModel(&model);
    panel.show();
    panel.view()->setCurrentIndex(panel.proxy()->index(2, 0)); // as a user would
    QSignalSpy activated(&panel, &EvidencePanel::rowActivated);

    panel.setFilterText(QStringLiteral("test_cache")); // removes the current row
    panel.setFilterText({});
    panel.setFileFilter(QStringLiteral("tests/test_rounding.py"));
    panel.setFileFilter({});
    panel.sortBy(LatitudeModel::ScoreColumn, Qt::DescendingOrder);
    model.setReport(demoReport());
    QCOMPARE(activated.count(), 0);
}

void TstPanels::copyPutsTsvOnClipboard()
{
    LatitudeModel model;
    model.setReport(latitudeReport(7, 4, {4, 3, 0}));
    EvidencePanel panel;
    panel.setModel(&model);
    panel.show();
    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    QItemSelectionModel *selection = panel.view()->selectionModel();
    selection->select(panel.proxy()->index(2, 0),
                      QItemSelectionModel::Select | QItemSelectionModel::Rows);
    selection->select(panel.proxy()->index(0, 0),
                      QItemSelectionModel::Select | QItemSelectionModel::Rows);
    panel.view()->setFocus();
    QGuiApplication::clipboard()->clear();

    QTest::keyClick(panel.view(), Qt::Key_C, Qt::ControlModifier);
    const QString expected =
        QStringLiteral("Test\tScore\tSignals\tPolicy share\n"
                       "tests/test_l.py::test_10\t+4\tcompare rank 1->2\t57%\n"
                       "tests/test_l.py::test_30\t0\tunchanged or stricter\t—\n");
    QCOMPARE(QGuiApplication::clipboard()->text(), expected);

    // The same through the context menu's action.
    QGuiApplication::clipboard()->clear();
    QAction *copy = nullptr;
    const auto actions = panel.view()->actions();
    for (QAction *a : actions) {
        if (a->objectName() == QLatin1String("copyAction"))
            copy = a;
    }
    QVERIFY(copy);
    QCOMPARE(panel.view()->contextMenuPolicy(), Qt::ActionsContextMenu);
    copy->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), expected);
}

void TstPanels::sortingByScoreIsNumeric()
{
    LatitudeModel model;
    model.setReport(latitudeReport(21, 4, {10, 2, 9, 0}));
    EvidencePanel panel;
    panel.setModel(&model);
    panel.show();
    QVERIFY(panel.view()->isSortingEnabled());
    QCOMPARE(columnTexts(panel, LatitudeModel::ScoreColumn),
             (QStringList{QStringLiteral("+10"), QStringLiteral("+2"), QStringLiteral("+9"),
                          QStringLiteral("0")})); // the model's order until asked

    // A click on the header, as a reviewer sorts.
    QHeaderView *header = panel.view()->header();
    const int x = header->sectionViewportPosition(LatitudeModel::ScoreColumn) + 5;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
    const QStringList sorted = columnTexts(panel, LatitudeModel::ScoreColumn);
    QStringList ascending{QStringLiteral("0"), QStringLiteral("+2"), QStringLiteral("+9"),
                          QStringLiteral("+10")};
    QStringList descending = ascending;
    std::reverse(descending.begin(), descending.end());
    QVERIFY2(sorted == ascending || sorted == descending,
             qPrintable(sorted.join(QLatin1Char(' '))));

    panel.sortBy(LatitudeModel::ScoreColumn, Qt::DescendingOrder);
    QCOMPARE(columnTexts(panel, LatitudeModel::ScoreColumn), descending);
    panel.sortBy(LatitudeModel::ShareColumn, Qt::AscendingOrder);
    QCOMPARE(columnTexts(panel, LatitudeModel::ScoreColumn), ascending);
}

void TstPanels::logModelCapsRows()
{
    LogModel log;
    QCOMPARE(log.maxRows(), 5000);
    const QDateTime when(QDate(2024, 5, 2), QTime(14, 3, 9));
    for (int i = 0; i < 5010; ++i)
        log.append(i % 3 == 0 ? LogModel::Level::Error : LogModel::Level::Info,
                   QStringLiteral("message %1").arg(i), when);
    QCOMPARE(log.rowCount(), 5000);
    QCOMPARE(log.index(0, LogModel::MessageColumn).data().toString(), QStringLiteral("message 10"));
    QCOMPARE(log.index(4999, LogModel::MessageColumn).data().toString(),
             QStringLiteral("message 5009"));
    QCOMPARE(log.index(0, LogModel::TimeColumn).data().toString(), QStringLiteral("14:03:09"));
    QCOMPARE(log.index(2, LogModel::LevelColumn).data().toString(), QStringLiteral("error"));
    QCOMPARE(log.index(2, 0).data(SeverityRole).toInt(), 2);

    log.setMaxRows(3);
    QCOMPARE(log.rowCount(), 3);
    QCOMPARE(log.index(0, LogModel::MessageColumn).data().toString(),
             QStringLiteral("message 5007"));
    log.append(LogModel::Level::Warning, QStringLiteral("Traceback (most recent call last):\n  x"));
    QCOMPARE(log.rowCount(), 3);
    QCOMPARE(log.index(2, LogModel::MessageColumn).data().toString(),
             QStringLiteral("Traceback (most recent call last): …"));
    QCOMPARE(log.index(2, LogModel::MessageColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("Traceback (most recent call last):\n  x"));
    log.clear();
    QCOMPARE(log.rowCount(), 0);
}

void TstPanels::logPanelKeepsSelectionQuietWhenRowsDrop()
{
    LogModel log;
    log.setMaxRows(3);
    EvidencePanel panel;
    panel.setModel(&log);
    panel.show();
    for (int i = 0; i < 3; ++i)
        log.append(LogModel::Level::Info, QStringLiteral("line %1").arg(i));
    panel.view()->setCurrentIndex(panel.proxy()->index(0, 0));
    QSignalSpy activated(&panel, &EvidencePanel::rowActivated);
    log.append(LogModel::Level::Error, QStringLiteral("bad revision 'nope'")); // drops row 0
    QCOMPARE(activated.count(), 0);
    QCOMPARE(panel.proxy()->rowCount(), 3);
}

void TstPanels::docksInstallAndMirror()
{
    QMainWindow window;
    EvidenceDocks *docks = EvidenceDocks::install(&window);
    QVERIFY(docks);
    const QStringList names{QStringLiteral("manifestDock"), QStringLiteral("latitudeDock"),
                            QStringLiteral("strengthDock"), QStringLiteral("logDock")};
    const QStringList titles{QStringLiteral("Manifest diff"), QStringLiteral("Oracle latitude"),
                             QStringLiteral("Oracle strength"), QStringLiteral("Log")};
    for (int i = 0; i < names.size(); ++i) {
        auto *dock = window.findChild<QDockWidget *>(names.at(i));
        QVERIFY2(dock, qPrintable(names.at(i)));
        QCOMPARE(dock->windowTitle(), titles.at(i));
        QVERIFY(qobject_cast<EvidencePanel *>(dock->widget()));
    }
    QCOMPARE(docks->toggleViewActions().size(), 4);

    docks->setReport(demoReport());
    auto *latitudePanel = window.findChild<EvidencePanel *>(QStringLiteral("latitudePanel"));
    QVERIFY(latitudePanel);
    QCOMPARE(latitudePanel->summary(),
             QStringLiteral("Patch latitude 14 (threshold 4): latitude 14 >= 4: block, ask for "
                            "a replacement assertion"));
    QCOMPARE(latitudePanel->proxy()->rowCount(), 7);
    QCOMPARE(latitudePanel->proxy()->index(0, LatitudeModel::ScoreColumn).data().toString(),
             QStringLiteral("+4")); // worst first
    QVERIFY(docks->manifestPanel()->summary().startsWith(QLatin1String("11 manifest findings")));
    QCOMPARE(docks->manifestPanel()->proxy()->index(0, 0).data(SeverityRole).toInt(), 2);

    QSignalSpy activated(docks, &EvidenceDocks::rowActivated);
    docks->strengthPanel()->show();
    docks->strengthPanel()->view()->setCurrentIndex(docks->strengthPanel()->proxy()->index(0, 0));
    QCOMPARE(activated.count(), 1);
    docks->selectRow(QStringLiteral("tests/test_rounding.py"), 25);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(docks->manifestPanel()->view()->currentIndex().data(LineRole).toInt(), 25);

    // The file filter applies everywhere, and a chip cleared in one panel clears all.
    docks->setFileFilter(QStringLiteral("tests/test_cache.py"));
    QCOMPARE(docks->manifestPanel()->proxy()->rowCount(), 1);
    QCOMPARE(docks->latitudePanel()->proxy()->rowCount(), 2);
    QCOMPARE(docks->strengthPanel()->proxy()->rowCount(), 2);
    docks->latitudePanel()->setFileFilter({});
    QCOMPARE(docks->strengthPanel()->proxy()->rowCount(), 11);
    QCOMPARE(docks->manifestPanel()->fileFilter(), QString());

    docks->logModel()->append(LogModel::Level::Error, QStringLiteral("bad revision"));
    QCOMPARE(docks->logPanel()->proxy()->rowCount(), 1);
}

void TstPanels::coloursReadOnLightAndDark_data()
{
    QTest::addColumn<QString>("palette");
    QTest::newRow("light") << QStringLiteral("light");
    QTest::newRow("dark") << QStringLiteral("dark");
}

// Issue 20 item 11: severity text, validation text and secondary text read at WCAG AA
// (4.5:1) on the palette they are drawn on, light or dark — never a fixed #c62828 (3.2:1 on
// a dark base) — and the Viewed box's outline at 3:1, a control's minimum.
void TstPanels::coloursReadOnLightAndDark()
{
    QFETCH(QString, palette);
    const QPalette saved = QGuiApplication::palette();
    const QString savedStyle = QApplication::style()->objectName();
    QVERIFY(applyPalette(palette));
    const QPalette p = QGuiApplication::palette();
    namespace style = severity_style;
    const QColor base = p.color(QPalette::Base);
    const QColor window = p.color(QPalette::Window);
    for (style::Tone tone : {style::Tone::Block, style::Tone::Review, style::Tone::Good}) {
        // The tone's own shade for this palette, not a fallback to black or white: red reads
        // as red, amber as amber, green as green.
        const QColor shade = style::textOn(tone, base);
        QVERIFY2(shade != QColor(Qt::black) && shade != QColor(Qt::white), qPrintable(palette));
        const int hue = shade.hue();
        QVERIFY2(tone == style::Tone::Block    ? (hue <= 15 || hue >= 345)
                 : tone == style::Tone::Review ? (hue >= 25 && hue <= 50)
                                               : (hue >= 90 && hue <= 150),
                 qPrintable(shade.name()));
        QVERIFY2(style::contrast(shade, base) >= 4.5, qPrintable(palette));
        QVERIFY(style::contrast(style::textOn(tone, window), window) >= 4.5);
        // Tinted cells: their dark text on their own light tint.
        QVERIFY(style::contrast(style::foreground(tone), style::background(tone)) >= 4.5);
    }
    QVERIFY(style::contrast(style::problemText(p), window) >= 4.5);
    QCOMPARE(style::problemText(p), style::textOn(style::Tone::Block, window));
    // readableOn moves a colour that does not read (the old fixed #c62828 on this base) until
    // it does, and leaves one that reads alone.
    const QColor fixed(0xc6, 0x28, 0x28);
    QVERIFY(style::contrast(style::readableOn(fixed, base), base) >= 4.5);
    if (style::contrast(fixed, base) >= 4.5)
        QCOMPARE(style::readableOn(fixed, base), fixed);
    else
        QVERIFY(style::readableOn(fixed, base) != fixed);
    QVERIFY(style::contrast(style::mutedText(p), window) >= 4.5);
    QVERIFY(style::contrast(ViewedDelegate::outlineColour(p), base) >= 3.0);
    QVERIFY(style::contrast(ViewedDelegate::markColour(p), base) >= 4.5);

    // The models' own text colours follow the palette.
    Finding f;
    f.code = "T-DEL";
    f.severity = Severity::Block;
    f.path = "tests/test_x.py";
    FindingsModel findings;
    findings.setFindings({f});
    const QColor severity = findings.index(0, FindingsModel::SeverityColumn)
                                .data(Qt::ForegroundRole)
                                .value<QBrush>()
                                .color();
    QVERIFY2(style::contrast(severity, base) >= 4.5,
             qPrintable(severity.name() + " on " + base.name()));
    QApplication::setStyle(QStyleFactory::create(savedStyle));
    QGuiApplication::setPalette(saved);
}

void TstPanels::rendersPanels()
{
    const GateReport report = demoReport();
    ManifestModel manifest;
    LatitudeModel latitude;
    StrengthModel strength;
    LogModel log;
    manifest.setReport(report);
    latitude.setReport(report);
    strength.setReport(report);
    const QDateTime t0(QDate(2024, 5, 2), QTime(14, 3, 9));
    log.append(LogModel::Level::Info,
               QStringLiteral("audit: base main (0bced9a11dca), head WORKTREE"), t0);
    log.append(LogModel::Level::Info, QStringLiteral("audit: 13 file(s) changed"), t0.addSecs(1));
    log.append(LogModel::Level::Warning,
               QStringLiteral("tests/test_money.py:7:5: invalid syntax (the test file does not "
                              "parse at head)"),
               t0.addSecs(1));
    log.append(LogModel::Level::Error,
               QStringLiteral("bad revision 'relase-1.2': not found in /home/reviewer/roundmath"),
               t0.addSecs(12));
    log.append(LogModel::Level::Info, QStringLiteral("audit: verdict BLOCK (7 block, 5 review)"),
               t0.addSecs(14));

    struct Shot
    {
        const char *file;
        QAbstractItemModel *model;
        QString summary;
        std::optional<pw::core::Severity> severity;
        int sortColumn;
        int primaryColumn;
    };
    const Shot shots[] = {
        {"manifest.png", &manifest, manifest.summary(), manifest.summarySeverity(),
         ManifestModel::VerdictColumn, ManifestModel::LocationColumn},
        {"latitude.png", &latitude, latitude.summary(), latitude.summarySeverity(),
         LatitudeModel::ScoreColumn, LatitudeModel::TestColumn},
        {"strength.png", &strength, strength.summary(), strength.summarySeverity(),
         StrengthModel::ActionColumn, StrengthModel::TestColumn},
        {"strength-all.png", &strength, strength.summary(), strength.summarySeverity(),
         StrengthModel::ActionColumn, StrengthModel::TestColumn},
        {"log.png", &log, QString(), std::nullopt, -1, LogModel::MessageColumn},
    };
    const QString dir = pw::test::panelShotsDir();
    for (const Shot &shot : shots) {
        EvidencePanel panel;
        panel.setModel(shot.model);
        panel.setPrimaryColumn(shot.primaryColumn);
        panel.setSummary(shot.summary);
        panel.setSummarySeverity(shot.severity);
        panel.sortBy(shot.sortColumn, Qt::DescendingOrder);
        if (qstrcmp(shot.file, "strength.png") == 0)
            panel.setFileFilter(QStringLiteral("tests/test_rounding.py"));
        panel.resize(900, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        if (shot.model == &latitude)
            panel.selectRow(QStringLiteral("tests/test_parsing.py"), 22);
        QCoreApplication::processEvents(); // the view lays out its scroll bars when idle
        const QString path = dir + QLatin1Char('/') + QLatin1String(shot.file);
        const QPixmap pixmap = panel.grab();
        QVERIFY(!pixmap.isNull());
        QVERIFY2(pixmap.save(path), qPrintable(path));
    }
    qInfo("panel screenshots in %s", qPrintable(QDir::toNativeSeparators(dir)));
}

void TstPanels::runsModelCapsRowsAndLogsTheReplayLine()
{
    RunsModel runs;
    QSignalSpy removed(&runs, &QAbstractItemModel::rowsRemoved);
    for (int i = 0; i < RunsModel::kMaxRows + 3; ++i) {
        core::RunResult r;
        r.arm = "head";
        r.seed = uint32_t(i);
        r.status = core::RunStatus::Completed;
        r.exitCode = 0;
        r.harnessError = false;
        r.command = "cd /scratch/run-" + std::to_string(i) + " && pytest";
        r.replay = "cd /tree && pytest # " + std::to_string(i);
        runs.append(QStringLiteral("census"), r);
    }
    QCOMPARE(runs.rowCount(), RunsModel::kMaxRows);
    QCOMPARE(removed.count(), 3);
    QCOMPARE(runs.row(0).seeds, QStringLiteral("3")); // the oldest three went
    const RunsModel::Row &last = runs.row(RunsModel::kMaxRows - 1);
    QCOMPARE(last.command, QStringLiteral("cd /tree && pytest # %1").arg(RunsModel::kMaxRows + 2));
    QVERIFY(last.log.contains(last.command));
    QVERIFY(!last.log.contains(QStringLiteral("/scratch/"))); // not sandboxed: one line
}

QTEST_MAIN(TstPanels)
#include "tst_panels.moc"
