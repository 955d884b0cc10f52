// The patch diff view on hand-built FileDiff values (no git): row layout in both modes,
// navigation, findings in the gutter, file notes, the size cap, a 20,000-line file that
// must not stall the event loop, and (with KSyntaxHighlighting) highlighting per hunk.
#include "diff/DiffOverview.h"
#include "diff/DiffView.h"

#include <QDir>
#include <QFontInfo>
#include <QImage>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

using pw::core::ChangeStatus;
using pw::core::DiffHunk;
using pw::core::DiffLine;
using pw::core::FileDiff;
using pw::core::Finding;
using pw::core::Severity;
using pw::gui::DiffMode;
using pw::gui::DiffOverview;
using pw::gui::DiffRow;
using pw::gui::DiffSide;
using pw::gui::DiffView;

Q_DECLARE_METATYPE(DiffMode)
Q_DECLARE_METATYPE(DiffRow::Kind)

namespace {

DiffLine context(int oldLine, int newLine, std::string text)
{
    DiffLine l;
    l.origin = DiffLine::Origin::Context;
    l.oldLine = oldLine;
    l.newLine = newLine;
    l.text = std::move(text);
    return l;
}

DiffLine deleted(int oldLine, std::string text, std::vector<std::pair<int, int>> intraline = {})
{
    DiffLine l;
    l.origin = DiffLine::Origin::Deleted;
    l.oldLine = oldLine;
    l.text = std::move(text);
    l.intraline = std::move(intraline);
    return l;
}

DiffLine added(int newLine, std::string text, std::vector<std::pair<int, int>> intraline = {})
{
    DiffLine l;
    l.origin = DiffLine::Origin::Added;
    l.newLine = newLine;
    l.text = std::move(text);
    l.intraline = std::move(intraline);
    return l;
}

DiffHunk hunk(int oldStart, int oldLines, int newStart, int newLines, std::vector<DiffLine> lines)
{
    DiffHunk h;
    h.oldStart = oldStart;
    h.oldLines = oldLines;
    h.newStart = newStart;
    h.newLines = newLines;
    h.header = "@@ -" + std::to_string(oldStart) + "," + std::to_string(oldLines) + " +" +
               std::to_string(newStart) + "," + std::to_string(newLines) + " @@";
    h.lines = std::move(lines);
    return h;
}

// Side by side (14 rows):            Unified (17 rows):
//  0 @@ hunk 1                         0 @@        9 ctx 6/7
//  1 ctx 1/1   2 ctx 2/2               1 ctx 1/1  10 @@
//  3 -3 | +3   4 -4 | +4               2 ctx 2/2  11 ctx 20/21
//  5  . | +5   6 ctx 5/6   7 ctx 6/7   3 -3       12 -21
//  8 @@ hunk 2                         4 -4       13 +22
//  9 ctx 20/21                         5 +3       14 ctx 22/23
// 10 -21 | +22                         6 +4       15 -23
// 11 ctx 22/23                         7 +5       16 -24
// 12 -23 | .   13 -24 | .              8 ctx 5/6
FileDiff sampleFile()
{
    FileDiff f;
    f.status = ChangeStatus::Modified;
    f.oldPath = f.newPath = "src/pkg/mod.py";
    f.hunks.push_back(
        hunk(1, 6, 1, 7,
             {context(1, 1, "import os"), context(2, 2, ""), deleted(3, "def f(x):", {{7, 1}}),
              deleted(4, "    return x"), added(3, "def f(x, y=0):", {{7, 6}}),
              added(4, "    z = x + y"), added(5, "    return z"), context(5, 6, ""),
              context(6, 7, "print(f(1))")}));
    f.hunks.push_back(
        hunk(20, 5, 21, 3,
             {context(20, 21, "def g():"), deleted(21, "    assert g() == 1", {{14, 5}}),
              added(22, "    assert g()"), context(22, 23, "    pass"), deleted(23, "# end"),
              deleted(24, "# tail")}));
    f.hunks.back().lines.back().noNewlineAtEnd = true;
    f.additions = 4;
    f.deletions = 5;
    return f;
}

Finding finding(Severity severity, const char *code, int line, const char *message)
{
    Finding f;
    f.gate = "test";
    f.code = code;
    f.severity = severity;
    f.path = "src/pkg/mod.py";
    f.line = line;
    f.message = message;
    return f;
}

// A Python file of `lines` added lines (a new file), for the large-file and bench cases.
FileDiff largeFile(int lines)
{
    FileDiff f;
    f.status = ChangeStatus::Added;
    f.newPath = "tests/test_generated.py";
    DiffHunk h = hunk(0, 0, 1, lines, {});
    h.lines.reserve(size_t(lines));
    for (int i = 1; i <= lines; ++i) {
        std::string text = i % 4 == 1   ? "def test_case_" + std::to_string(i) + "():"
                           : i % 4 == 2 ? "    value = compute(" + std::to_string(i) + ")"
                           : i % 4 == 3 ? "    assert value == \"" + std::to_string(i * 7) + "\""
                                        : "";
        h.lines.push_back(added(i, std::move(text)));
    }
    f.hunks.push_back(std::move(h));
    f.additions = lines;
    return f;
}

[[maybe_unused]] bool hasForeground(const QTextLayout::FormatRange &r)
{
    return r.format.hasProperty(QTextFormat::ForegroundBrush);
}

} // namespace

class TstDiffView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowLayout_data();
    void rowLayout();
    void rowCounts();
    void intralineAndNoNewline();
    void toggleModeKeepsCurrentLine_data();
    void toggleModeKeepsCurrentLine();
    void nextAndPreviousHunk();
    void findingsMarkTheGutterAndNavigate();
    void scrollToLineSelectsAndCentres();
    void keyboardAndClick();
    void fileNotes_data();
    void fileNotes();
    void sizeCapShowsSummaryAndLoadsAnyway();
    void largeFileKeepsEventLoopTurning();
    void paletteChangeRethemes();
    void rendersBothModes();
    void pythonKeywordFormat();
    void highlightingStateResetsAtHunks();
    void addedOrDeletedFileIsOneColumn();
    void overviewRulerShowsChangesAndFindings();
    void jumpBringsTheChangedTextIntoView();
};

void TstDiffView::rowLayout_data()
{
    QTest::addColumn<DiffMode>("mode");
    QTest::addColumn<int>("row");
    QTest::addColumn<DiffRow::Kind>("kind");
    QTest::addColumn<QString>("oldText");
    QTest::addColumn<QString>("newText");
    QTest::addColumn<int>("oldLine");
    QTest::addColumn<int>("newLine");
    const auto sbs = DiffMode::SideBySide;
    const auto uni = DiffMode::Unified;
    const auto line = DiffRow::Kind::Line;
    const auto header = DiffRow::Kind::HunkHeader;
    QTest::newRow("sbs hunk header") << sbs << 0 << header << "@@ -1,6 +1,7 @@"
                                     << "@@ -1,6 +1,7 @@" << 0 << 0;
    QTest::newRow("sbs context") << sbs << 1 << line << "import os"
                                 << "import os" << 1 << 1;
    QTest::newRow("sbs 1st deleted faces 1st added") << sbs << 3 << line << "def f(x):"
                                                     << "def f(x, y=0):" << 3 << 3;
    QTest::newRow("sbs 2nd pair") << sbs << 4 << line << "    return x"
                                  << "    z = x + y" << 4 << 4;
    QTest::newRow("sbs extra added has an old filler") << sbs << 5 << line << ""
                                                       << "    return z" << 0 << 5;
    QTest::newRow("sbs context after the block") << sbs << 7 << line << "print(f(1))"
                                                 << "print(f(1))" << 6 << 7;
    QTest::newRow("sbs 2nd hunk header") << sbs << 8 << header << "@@ -20,5 +21,3 @@"
                                         << "@@ -20,5 +21,3 @@" << 0 << 0;
    QTest::newRow("sbs extra deleted has a new filler") << sbs << 12 << line << "# end"
                                                        << "" << 23 << 0;
    QTest::newRow("unified deleted") << uni << 3 << line << "def f(x):"
                                     << "" << 3 << 0;
    QTest::newRow("unified deleted before added") << uni << 4 << line << "    return x"
                                                  << "" << 4 << 0;
    QTest::newRow("unified added") << uni << 5 << line << ""
                                   << "def f(x, y=0):" << 0 << 3;
    QTest::newRow("unified context numbers") << uni << 8 << line << ""
                                             << "" << 5 << 6;
    QTest::newRow("unified 2nd hunk header") << uni << 10 << header << "@@ -20,5 +21,3 @@"
                                             << "@@ -20,5 +21,3 @@" << 0 << 0;
    QTest::newRow("unified last deleted") << uni << 16 << line << "# tail"
                                          << "" << 24 << 0;
}

void TstDiffView::rowLayout()
{
    QFETCH(DiffMode, mode);
    QFETCH(int, row);
    QFETCH(DiffRow::Kind, kind);
    QFETCH(QString, oldText);
    QFETCH(QString, newText);
    QFETCH(int, oldLine);
    QFETCH(int, newLine);
    DiffView view;
    view.setMode(mode);
    view.setFile(sampleFile());
    QCOMPARE(view.rowKind(row), kind);
    QCOMPARE(view.rowText(row, DiffSide::Old), oldText);
    QCOMPARE(view.rowText(row, DiffSide::New), newText);
    QCOMPARE(view.rowLineNumber(row, DiffSide::Old), oldLine);
    QCOMPARE(view.rowLineNumber(row, DiffSide::New), newLine);
}

void TstDiffView::rowCounts()
{
    DiffView view;
    QVERIFY(QFontInfo(view.font()).fixedPitch());
    view.setFile(sampleFile());
    QCOMPARE(view.mode(), DiffMode::SideBySide);
    QCOMPARE(view.rowCount(), 14);
    view.setMode(DiffMode::Unified);
    QCOMPARE(view.rowCount(), 17);
    view.clear();
    QCOMPARE(view.rowCount(), 0);
    QCOMPARE(view.currentLine(), 0);
}

void TstDiffView::intralineAndNoNewline()
{
    DiffView view;
    view.setFile(sampleFile());
    QVERIFY(view.rowHasNoNewlineAtEnd(13, DiffSide::Old));
    QVERIFY(!view.rowHasNoNewlineAtEnd(12, DiffSide::Old));
    QVERIFY(!view.rowHasNoNewlineAtEnd(13, DiffSide::New));
}

void TstDiffView::toggleModeKeepsCurrentLine_data()
{
    QTest::addColumn<int>("line");
    QTest::addColumn<bool>("oldSide");
    QTest::newRow("added line") << 5 << false;
    QTest::newRow("paired added line") << 3 << false;
    QTest::newRow("deleted line paired with an added one") << 4 << true;
    QTest::newRow("deleted line facing a filler") << 24 << true;
    QTest::newRow("context line") << 23 << false;
}

void TstDiffView::toggleModeKeepsCurrentLine()
{
    QFETCH(int, line);
    QFETCH(bool, oldSide);
    DiffView view;
    view.resize(800, 300);
    view.setFile(sampleFile());
    QVERIFY(view.scrollToLine(line, oldSide));
    QCOMPARE(view.currentLine(), line);
    QCOMPARE(view.currentLineIsOldSide(), oldSide);
    QSignalSpy spy(&view, &DiffView::currentLineChanged);
    view.setMode(DiffMode::Unified);
    QCOMPARE(view.currentLine(), line);
    QCOMPARE(view.currentLineIsOldSide(), oldSide);
    QCOMPARE(view.rowLineNumber(view.currentRow(), oldSide ? DiffSide::Old : DiffSide::New), line);
    view.setMode(DiffMode::SideBySide);
    QCOMPARE(view.currentLine(), line);
    QCOMPARE(view.currentLineIsOldSide(), oldSide);
    QCOMPARE(spy.count(), 0); // the line did not change
}

void TstDiffView::nextAndPreviousHunk()
{
    DiffView view;
    view.setFile(sampleFile());
    QSignalSpy spy(&view, &DiffView::currentLineChanged);
    QVERIFY(!view.previousHunk());
    QVERIFY(view.nextHunk());
    QCOMPARE(view.currentRow(), 3); // first change of hunk 1
    QCOMPARE(view.currentLine(), 3);
    QVERIFY(view.nextHunk());
    QCOMPARE(view.currentRow(), 10); // first change of hunk 2
    QCOMPARE(view.currentLine(), 22);
    QVERIFY(!view.nextHunk());
    QCOMPARE(view.currentRow(), 10);
    QVERIFY(view.previousHunk());
    QCOMPARE(view.currentRow(), 3);
    QVERIFY(!view.previousHunk());
    QCOMPARE(spy.count(), 3);
    QCOMPARE(spy.at(1).at(0).toInt(), 22);

    view.setMode(DiffMode::Unified);
    QCOMPARE(view.currentRow(), 5); // +3 (row 3 is -3 in unified)
    QCOMPARE(view.currentLine(), 3);
    QVERIFY(view.nextHunk());
    QCOMPARE(view.currentRow(), 12);
    QCOMPARE(view.currentLine(), 21); // a deleted line: old side
    QVERIFY(view.currentLineIsOldSide());
}

void TstDiffView::findingsMarkTheGutterAndNavigate()
{
    DiffView view;
    view.setFile(sampleFile());
    view.setFindings({finding(Severity::Block, "WEAKER:assertions", 22, "assertion loosened"),
                      finding(Severity::Review, "LATITUDE", 5, "oracle latitude +2"),
                      finding(Severity::Info, "T-ADD", 0, "file-level note"),
                      finding(Severity::Block, "T-DEL", 23, "test function test_end disappeared"),
                      finding(Severity::Info, "NOTE", 22, "second finding on a line")});
    QCOMPARE(view.rowMarker(0), std::optional<Severity>(Severity::Info)); // file level: 1st row
    QCOMPARE(view.rowMarker(5), std::optional<Severity>(Severity::Review));
    QCOMPARE(view.rowMarker(10), std::optional<Severity>(Severity::Block)); // worst wins
    QCOMPARE(view.rowMarker(12), std::optional<Severity>(Severity::Block)); // base line of T-DEL
    QCOMPARE(view.rowMarker(1), std::optional<Severity>());
    const QString tip = view.rowToolTip(10);
    QVERIFY2(tip.contains(QLatin1String("WEAKER:assertions: assertion loosened")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("NOTE: second finding on a line")), qPrintable(tip));
    QVERIFY(view.rowToolTip(1).isEmpty());

    QVERIFY(!view.previousFinding());
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentRow(), 0);
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentLine(), 5);
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentLine(), 22);
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentLine(), 23);
    QVERIFY(view.currentLineIsOldSide());
    QVERIFY(!view.nextFinding());
    QVERIFY(view.previousFinding());
    QCOMPARE(view.currentLine(), 22);

    // Markers follow the rows into unified mode.
    view.setMode(DiffMode::Unified);
    QCOMPARE(view.rowMarker(13), std::optional<Severity>(Severity::Block)); // +22
    QCOMPARE(view.rowMarker(7), std::optional<Severity>(Severity::Review)); // +5
    QCOMPARE(view.rowMarker(15), std::optional<Severity>(Severity::Block)); // -23

    // A new file drops the old findings.
    view.setFile(sampleFile());
    QCOMPARE(view.rowMarker(10), std::optional<Severity>());

    // A renamed file: a finding on its old path (the base's census of it) names a base line.
    // Line 23 is "# end" at base (row 13, after the "renamed from" row) and "    pass" at
    // head (row 12).
    FileDiff renamed = sampleFile();
    renamed.status = ChangeStatus::Renamed;
    renamed.oldPath = "src/pkg/old_mod.py";
    view.setMode(DiffMode::SideBySide);
    view.setFile(renamed);
    Finding removed = finding(Severity::Block, "C-REMOVED", 23, "collected at base only");
    removed.path = renamed.oldPath;
    view.setFindings({removed, finding(Severity::Review, "LATITUDE", 23, "head line 23")});
    QCOMPARE(view.rowMarker(13), std::optional<Severity>(Severity::Block));
    QCOMPARE(view.rowMarker(12), std::optional<Severity>(Severity::Review));
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentRow(), 12);
    QVERIFY(!view.currentLineIsOldSide());
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentRow(), 13);
    QVERIFY(view.currentLineIsOldSide());
    QCOMPARE(view.currentLine(), 23);

    // Issue 20 item 9: every finding about a deleted test names its base line — the strength
    // gate's BLOCKER:deleted and any other finding on that test — never the head line that
    // shares the number (head line 23 is row 11, base line 23 row 12).
    Finding deleted = finding(Severity::Block, "BLOCKER:deleted", 23, "test deleted by the patch");
    deleted.test = "src/pkg/mod.py::test_end";
    Finding tdel = finding(Severity::Block, "T-DEL", 23, "test function test_end disappeared");
    tdel.test = deleted.test;
    Finding latitude = finding(Severity::Review, "LATITUDE", 23, "its latitude");
    latitude.test = deleted.test;
    for (const std::vector<Finding> &set :
         {std::vector<Finding>{deleted}, std::vector<Finding>{tdel, latitude}}) {
        view.setFile(sampleFile());
        view.setFindings(set);
        QCOMPARE(view.rowMarker(12), std::optional<Severity>(Severity::Block));
        QCOMPARE(view.rowMarker(11), std::optional<Severity>());
        QVERIFY(view.nextFinding());
        QCOMPARE(view.currentRow(), 12);
        QVERIFY(view.currentLineIsOldSide());
    }
}

void TstDiffView::scrollToLineSelectsAndCentres()
{
    FileDiff file = largeFile(3000);
    file.status = ChangeStatus::Modified;
    file.oldPath = file.newPath;
    // Line 1500 becomes a deletion (old 1500) followed by its replacement (new 1500).
    DiffHunk &h = file.hunks.front();
    h.oldStart = 1;
    h.oldLines = 3000;
    for (DiffLine &l : h.lines) {
        l.origin = DiffLine::Origin::Context;
        l.oldLine = l.newLine;
    }
    h.lines.insert(h.lines.begin() + 1499, deleted(1500, "    old_value = 1"));
    h.lines[1500].origin = DiffLine::Origin::Added;
    h.lines[1500].oldLine = 0;
    for (size_t i = 1501; i < h.lines.size(); ++i)
        h.lines[i].oldLine = h.lines[i].newLine;

    DiffView view;
    view.resize(900, 400);
    view.show();
    view.setFile(file);
    QSignalSpy spy(&view, &DiffView::currentLineChanged);

    QVERIFY(view.scrollToLine(2500));
    QCOMPARE(view.currentLine(), 2500);
    QVERIFY(!view.currentLineIsOldSide());
    const int row = view.currentRow();
    QVERIFY(row >= view.firstVisibleRow() && row < view.firstVisibleRow() + view.visibleRowCount());
    QVERIFY(qAbs(row - view.firstVisibleRow() - view.visibleRowCount() / 2) <= 1); // centred
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 2500);
    QCOMPARE(spy.at(0).at(1).toBool(), false);

    QVERIFY(view.scrollToLine(1500, true)); // the deleted line
    QCOMPARE(view.currentLine(), 1500);
    QVERIFY(view.currentLineIsOldSide());
    QCOMPARE(view.rowText(view.currentRow(), DiffSide::Old), QStringLiteral("    old_value = 1"));
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(1).toBool(), true);

    QVERIFY(!view.scrollToLine(3001));
    QVERIFY(!view.scrollToLine(0));
    QCOMPARE(view.currentLine(), 1500); // unchanged by the misses
    QCOMPARE(spy.count(), 2);
    QVERIFY(view.scrollToLine(1500, true)); // same line again: no signal (no loops)
    QCOMPARE(spy.count(), 2);
}

void TstDiffView::keyboardAndClick()
{
    DiffView view;
    view.resize(800, 400);
    view.setFile(sampleFile());
    view.setFindings({finding(Severity::Review, "LATITUDE", 22, "widened")});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &DiffView::currentLineChanged);

    // A click focuses the view and selects the clicked side of the row.
    QWidget *viewport = view.viewport();
    const QRect r = view.rowRect(3);
    QTest::mouseClick(viewport, Qt::LeftButton, {}, QPoint(r.width() * 3 / 4, r.center().y()));
    QVERIFY(view.hasFocus());
    QCOMPARE(view.currentRow(), 3);
    QCOMPARE(view.currentLine(), 3);
    QVERIFY(!view.currentLineIsOldSide());
    QTest::mouseClick(viewport, Qt::LeftButton, {}, QPoint(r.width() / 4, r.center().y()));
    QCOMPARE(view.currentLine(), 3);
    QVERIFY(view.currentLineIsOldSide());
    QCOMPARE(spy.count(), 2);

    QTest::keyClick(&view, Qt::Key_Down); // row 4, old side kept
    QCOMPARE(view.currentRow(), 4);
    QCOMPARE(view.currentLine(), 4);
    QVERIFY(view.currentLineIsOldSide());
    QTest::keyClick(&view, Qt::Key_Down); // row 5 has no old side: the new one
    QCOMPARE(view.currentLine(), 5);
    QVERIFY(!view.currentLineIsOldSide());
    QTest::keyClick(&view, Qt::Key_Down);
    QTest::keyClick(&view, Qt::Key_Down);
    QTest::keyClick(&view, Qt::Key_Down); // skips the hunk header
    QCOMPARE(view.currentRow(), 9);
    QTest::keyClick(&view, Qt::Key_Up);
    QCOMPARE(view.currentRow(), 7);
    QTest::keyClick(&view, Qt::Key_Home);
    QCOMPARE(view.currentRow(), 1);
    QTest::keyClick(&view, Qt::Key_End);
    QCOMPARE(view.currentRow(), 13);
    QTest::keyClick(&view, Qt::Key_PageUp);
    QCOMPARE(view.currentRow(), 1);
    QTest::keyClick(&view, Qt::Key_PageDown);
    QCOMPARE(view.currentRow(), 13);
    QTest::keyClick(&view, 'p');
    QCOMPARE(view.currentRow(), 10);
    QTest::keyClick(&view, 'p');
    QCOMPARE(view.currentRow(), 3);
    QTest::keyClick(&view, 'n');
    QCOMPARE(view.currentRow(), 10);
    QTest::keyClick(&view, Qt::Key_Home);
    QTest::keyClick(&view, ']');
    QCOMPARE(view.currentLine(), 22);
    QTest::keyClick(&view, Qt::Key_End);
    QTest::keyClick(&view, '[');
    QCOMPARE(view.currentLine(), 22);
    QTest::keyClick(&view, Qt::Key_Left);
    QCOMPARE(view.currentLine(), 21); // the old side of the same row
    QVERIFY(view.currentLineIsOldSide());
}

void TstDiffView::fileNotes_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("note");
    QTest::addColumn<int>("rows");
    QTest::newRow("binary") << 0 << "binary file changed, contents not shown" << 1;
    QTest::newRow("pure rename") << 1 << "renamed from tests/test_old.py, similarity 100%" << 1;
    QTest::newRow("rename with edits")
        << 2 << "renamed from tests/test_old.py, similarity 87%" << 1 + 14;
    QTest::newRow("mode change") << 3 << "mode changed 100644 \u2192 100755 (now executable)" << 1;
    QTest::newRow("new empty file") << 4 << "new empty file" << 1;
}

void TstDiffView::fileNotes()
{
    QFETCH(int, kind);
    QFETCH(QString, note);
    QFETCH(int, rows);
    FileDiff f;
    f.oldPath = "tests/test_old.py";
    f.newPath = "tests/test_new.py";
    switch (kind) {
    case 0:
        f.binary = true;
        f.oldPath = f.newPath = "assets/logo.png";
        break;
    case 1:
        f.status = ChangeStatus::Renamed;
        f.similarity = 100;
        break;
    case 2:
        f.status = ChangeStatus::Renamed;
        f.similarity = 87;
        f.hunks = sampleFile().hunks;
        break;
    case 3:
        f.oldPath = f.newPath = "scripts/run.sh";
        f.oldMode = 0100644;
        f.newMode = 0100755;
        break;
    case 4:
        f.status = ChangeStatus::Added;
        f.oldPath.clear();
        break;
    }
    DiffView view;
    view.setFile(f);
    QCOMPARE(view.rowCount(), rows);
    QCOMPARE(view.rowKind(0), DiffRow::Kind::Note);
    QCOMPARE(view.rowText(0), note);
    view.setMode(DiffMode::Unified);
    QCOMPARE(view.rowText(0), note);
    QVERIFY(!view.grab().isNull()); // paints without hunks
}

void TstDiffView::sizeCapShowsSummaryAndLoadsAnyway()
{
    DiffView view;
    view.resize(800, 400);
    view.setSizeCap(1000);
    view.setFile(largeFile(200));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.isCapped());
    QCOMPARE(view.rowCount(), 1);
    QCOMPARE(view.rowKind(0), DiffRow::Kind::SizeCap);
    QVERIFY2(view.rowText(0).contains(QLatin1String("200 lines")), qPrintable(view.rowText(0)));
    QVERIFY(!view.scrollToLine(10));
    auto *button = view.findChild<QPushButton *>(QStringLiteral("loadAnywayButton"));
    QVERIFY(button);
    QVERIFY(button->isVisible());
    QCOMPARE(button->text(), QStringLiteral("Load anyway"));

    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(!view.isCapped());
    QVERIFY(!button->isVisible());
    QCOMPARE(view.rowCount(), 201);
    QVERIFY(view.scrollToLine(10));

    // Another file over the cap is capped again; raising the cap shows it.
    view.setFile(largeFile(300));
    QVERIFY(view.isCapped());
    view.setSizeCap(0);
    QVERIFY(!view.isCapped());
    QCOMPARE(view.rowCount(), 301);
}

void TstDiffView::largeFileKeepsEventLoopTurning()
{
    DiffView view;
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    int ticks = 0;
    QTimer timer;
    timer.setInterval(0);
    connect(&timer, &QTimer::timeout, this, [&ticks] { ++ticks; });
    struct PaintCounter : QObject
    {
        int paints = 0;
        bool eventFilter(QObject *, QEvent *e) override
        {
            if (e->type() == QEvent::Paint)
                ++paints;
            return false;
        }
    } counter;
    view.viewport()->installEventFilter(&counter);
    timer.start();

    view.setFile(largeFile(20000));
    QCoreApplication::processEvents();
    QCOMPARE(view.rowCount(), 20001);
    QScrollBar *bar = view.verticalScrollBar();
    QVERIFY(bar->maximum() > 19000);
    int steps = 0;
    for (int value = 0; value <= bar->maximum(); value += bar->maximum() / 40, ++steps) {
        bar->setValue(value);
        QCoreApplication::processEvents();
    }
    bar->setValue(bar->maximum()); // the very end of one 20,000-line hunk
    for (int i = 0; i < 20; ++i)
        QCoreApplication::processEvents();
    view.setMode(DiffMode::Unified);
    QCoreApplication::processEvents();
    QVERIFY(view.scrollToLine(19999));
    QCoreApplication::processEvents();
    timer.stop();
    QVERIFY2(ticks >= steps / 2,
             qPrintable(QStringLiteral("%1 ticks over %2 steps").arg(ticks).arg(steps)));
    QVERIFY2(counter.paints >= steps / 2,
             qPrintable(QStringLiteral("%1 paints").arg(counter.paints)));
}

void TstDiffView::paletteChangeRethemes()
{
    DiffView view;
    view.resize(600, 200);
    view.setFile(sampleFile());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint contextPixel(view.rowRect(1).right() - 5, view.rowRect(1).center().y());
    const QColor light = view.viewport()->grab().toImage().pixelColor(contextPixel);
    QPalette dark = view.palette();
    dark.setColor(QPalette::Base, QColor(0x0d, 0x11, 0x17));
    dark.setColor(QPalette::Text, QColor(0xe6, 0xed, 0xf3));
    view.setPalette(dark);
    const QColor now = view.viewport()->grab().toImage().pixelColor(contextPixel);
    QVERIFY2(now.lightness() < 64, qPrintable(now.name()));
    QVERIFY(light != now);
}

void TstDiffView::rendersBothModes()
{
    // Renders a realistic diff; with PW_DIFFVIEW_SCREENSHOTS=DIR the images are kept there.
    FileDiff f;
    f.oldPath = f.newPath = "tests/test_parser.py";
    f.hunks.push_back(hunk(
        10, 9, 10, 10,
        {context(10, 10, "def test_parse_number():"), context(11, 11, "    result = parse(\"42\")"),
         deleted(12, "    assert result == Number(42)", {{17, 14}}),
         added(12, "    assert result", {}), context(13, 13, ""), context(14, 14, ""),
         deleted(15, "@pytest.mark.parametrize(\"text\", [\"1e3\", \"0x1F\"])"),
         deleted(16, "def test_parse_literals(text):"),
         deleted(17, "    assert parse(text).value == eval(text)"),
         added(15, "@pytest.mark.skip(reason=\"flaky on CI\")  # TODO"),
         added(16, "def test_parse_literals():"),
         added(17, "    with pytest.raises(Exception):", {}), added(18, "        parse('\\t')"),
         context(18, 19, ""), context(19, 20, "")}));
    f.hunks.push_back(hunk(
        40, 4, 41, 4,
        {context(40, 41, "class TestTolerance:"), context(41, 42, "    def test_close(self):"),
         deleted(42, "        assert approx(1.0, rel=1e-9) == measure()", {{31, 4}}),
         added(43, "        assert approx(1.0, rel=0.5) == measure()", {{31, 3}}),
         context(43, 44,
                 "        \"\"\"Docstring with a long tail that goes past the column width of a "
                 "half pane in side-by-side mode\"\"\"")}));
    f.hunks.back().lines.back().noNewlineAtEnd = true;
    DiffView view;
    view.resize(1200, 560);
    view.setFile(f);
    view.setFindings({finding(Severity::Block, "T-SKIP", 15, "skip/xfail newly present: skip"),
                      finding(Severity::Review, "WEAKER:assertions", 12, "assertion loosened"),
                      finding(Severity::Info, "TOLERANCE", 43, "tolerance widened 1e-9 -> 0.5")});
    QVERIFY(view.scrollToLine(16));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setFocus();
    const QString dir = qEnvironmentVariable("PW_DIFFVIEW_SCREENSHOTS");
    auto shoot = [&](const QString &name) {
        QCoreApplication::processEvents();
        const QImage image = view.grab().toImage();
        QVERIFY(!image.isNull());
        QCOMPARE(view.currentLine(), 16);
        if (!dir.isEmpty())
            QVERIFY(image.save(QDir(dir).filePath(name)));
    };
    shoot(QStringLiteral("diffview-side-by-side.png"));
    view.setMode(DiffMode::Unified);
    shoot(QStringLiteral("diffview-unified.png"));
    QPalette dark = view.palette();
    dark.setColor(QPalette::Base, QColor(0x0d, 0x11, 0x17));
    dark.setColor(QPalette::Window, QColor(0x16, 0x1b, 0x22));
    dark.setColor(QPalette::Text, QColor(0xe6, 0xed, 0xf3));
    dark.setColor(QPalette::Highlight, QColor(0x38, 0x8b, 0xfd));
    view.setPalette(dark);
    view.setMode(DiffMode::SideBySide);
    shoot(QStringLiteral("diffview-dark.png"));

    // File notes above the size-cap summary and its button.
    FileDiff capped = largeFile(400);
    capped.status = ChangeStatus::Renamed;
    capped.oldPath = "tests/test_old_generated.py";
    capped.similarity = 64;
    capped.oldMode = 0100644;
    capped.newMode = 0100755;
    DiffView cappedView;
    cappedView.resize(900, 200);
    cappedView.setSizeCap(4000);
    cappedView.setFile(capped);
    cappedView.show();
    QVERIFY(QTest::qWaitForWindowExposed(&cappedView));
    QCOMPARE(cappedView.rowCount(), 3);
    if (!dir.isEmpty())
        QVERIFY(cappedView.grab().save(QDir(dir).filePath(QStringLiteral("diffview-capped.png"))));
}

void TstDiffView::pythonKeywordFormat()
{
#ifndef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
    QVERIFY(DiffView::highlightingDescription().startsWith(QLatin1String("not available")));
    QSKIP("built without KSyntaxHighlighting: plain diff colouring");
#else
    QVERIFY2(DiffView::highlightingDescription().startsWith(QLatin1String("KSyntaxHighlighting")),
             qPrintable(DiffView::highlightingDescription()));
    FileDiff f;
    f.status = ChangeStatus::Added;
    f.newPath = "pkg/m.py";
    f.hunks.push_back(hunk(0, 0, 1, 1, {added(1, "def f(x): return \"s\"")}));
    DiffView view;
    view.setFile(f);
    QCOMPARE(view.definitionName(), QStringLiteral("Python"));
    const auto formats = view.formatsForRow(1, DiffSide::New);
    QVERIFY(!formats.isEmpty());
    auto at = [&](int offset) -> const QTextLayout::FormatRange * {
        for (const auto &r : formats)
            if (offset >= r.start && offset < r.start + r.length)
                return &r;
        return nullptr;
    };
    const auto *def = at(0);
    QVERIFY2(def && def->start == 0 && def->length == 3, "`def` is one format range");
    QVERIFY(hasForeground(*def) || def->format.fontWeight() == QFont::Bold);
    const QColor text = view.palette().color(QPalette::Text);
    QVERIFY(!hasForeground(*def) || def->format.foreground().color() != text);
    const auto *ret = at(10); // `return`
    QVERIFY(ret);
    QCOMPARE(ret->format, def->format); // both keywords
    const auto *str = at(17);           // "s"
    QVERIFY(str && hasForeground(*str));
    QVERIFY(str->format.foreground().color() != def->format.foreground().color());
    QVERIFY(!at(4) || !hasForeground(*at(4)) || at(4)->format != str->format); // `f`
#endif
}

void TstDiffView::highlightingStateResetsAtHunks()
{
#ifndef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
    QSKIP("built without KSyntaxHighlighting: plain diff colouring");
#else
    FileDiff f;
    f.oldPath = f.newPath = "pkg/m.py";
    // Hunk 1 opens a triple-quoted string and never closes it.
    f.hunks.push_back(hunk(1, 1, 1, 3,
                           {context(1, 1, "a = 1"), added(2, "doc = \"\"\"unclosed"),
                            added(3, "still inside the string")}));
    // Hunk 2 is ordinary code.
    f.hunks.push_back(
        hunk(30, 2, 32, 2, {context(30, 32, "value = 10"), context(31, 33, "x = 2")}));
    DiffView view;
    view.setFile(f);
    // Rows: 0 @@, 1 a = 1, 2 doc = """, 3 still inside, 4 @@, 5 value = 10, 6 x = 2.
    const auto opening = view.formatsForRow(2, DiffSide::New);
    QTextCharFormat stringFormat;
    for (const auto &r : opening)
        if (r.start <= 6 && 6 < r.start + r.length)
            stringFormat = r.format;
    QVERIFY2(stringFormat.hasProperty(QTextFormat::ForegroundBrush), "the string has a colour");
    // Control: inside hunk 1 the next line is still string-coloured.
    const auto inside = view.formatsForRow(3, DiffSide::New);
    QVERIFY(!inside.isEmpty());
    QCOMPARE(inside.front().start, 0);
    QCOMPARE(inside.front().format, stringFormat);
    // Hunk 2 starts from a fresh state on both sides.
    for (const DiffSide side : {DiffSide::Old, DiffSide::New}) {
        for (int row : {5, 6}) {
            for (const auto &r : view.formatsForRow(row, side))
                QVERIFY2(r.format != stringFormat,
                         qPrintable(QStringLiteral("row %1 offset %2 coloured as a string")
                                        .arg(row)
                                        .arg(r.start)));
        }
    }
    // The number in hunk 2 has a (non-string) number format.
    bool numberFormatted = false;
    for (const auto &r : view.formatsForRow(5, DiffSide::New))
        numberFormatted = numberFormatted || (r.start == 8 && hasForeground(r));
    QVERIFY(numberFormatted);
#endif
}

QTEST_MAIN(TstDiffView)
// Issue 20 item 8: an added (or deleted) file spends no half of a side-by-side view on an
// empty column: it is laid out as one column, and the mode the reviewer chose stays.
void TstDiffView::addedOrDeletedFileIsOneColumn()
{
    DiffView view;
    view.resize(900, 400);
    QCOMPARE(view.mode(), DiffMode::SideBySide);
    view.setFile(largeFile(20));
    QCOMPARE(view.layoutMode(), DiffMode::Unified);
    QCOMPARE(view.mode(), DiffMode::SideBySide);
    QCOMPARE(view.rowCount(), 21); // its hunk header and 20 lines
    FileDiff gone = largeFile(5);
    gone.status = ChangeStatus::Deleted;
    gone.oldPath = gone.newPath;
    gone.newPath.clear();
    for (DiffLine &l : gone.hunks.front().lines) {
        l.origin = DiffLine::Origin::Deleted;
        l.oldLine = std::exchange(l.newLine, -1);
    }
    view.setFile(gone);
    QCOMPARE(view.layoutMode(), DiffMode::Unified);
    view.setFile(sampleFile());
    QCOMPARE(view.layoutMode(), DiffMode::SideBySide);
    QCOMPARE(view.rowCount(), 14);

    // Drawn as one column: the left half of an added line's row is the added line's own
    // background, not the hatched filler of a missing old side.
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setFile(largeFile(20));
    const QImage shot = view.viewport()->grab().toImage();
    const int rowHeight = qCeil(QFontMetricsF(view.font()).height() * 1.35); // DiffMetrics
    const int y = rowHeight * 4 + rowHeight / 2; // line 4 is empty: background only
    const QColor left = shot.pixelColor(shot.width() / 3, y);
    const QColor right = shot.pixelColor(shot.width() * 5 / 6, y);
    QCOMPARE(left, right);
}

// The overview ruler: every change as a band of its kind, every finding as a tick of its
// severity, scaled to the view's height; a click there scrolls the diff to it.
void TstDiffView::overviewRulerShowsChangesAndFindings()
{
    DiffView view;
    view.resize(900, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // 400 context lines, one added line at 100, one changed pair at 300.
    FileDiff f;
    f.status = ChangeStatus::Modified;
    f.oldPath = f.newPath = "src/big.py";
    std::vector<DiffLine> lines;
    for (int i = 1; i <= 400; ++i) {
        if (i == 100)
            lines.push_back(added(100, "added = 1"));
        if (i == 300) {
            lines.push_back(deleted(300, "x = 1"));
            lines.push_back(added(301, "x = 2"));
            continue;
        }
        lines.push_back(context(i, i + (i > 100 ? 1 : 0), "line " + std::to_string(i)));
    }
    f.hunks.push_back(hunk(1, 400, 1, 401, std::move(lines)));
    view.setFile(f);
    Finding skip = finding(Severity::Block, "T-SKIP", 301, "skip added");
    view.setFindings({skip});
    DiffOverview *ruler = view.overview();
    QVERIFY(ruler);
    QVERIFY(ruler->isVisible());
    QCOMPARE(ruler->height(), view.viewport()->height());
    const int rows = view.rowCount(); // the header and 401 rows
    auto yOf = [&](int row) { return int(qint64(row) * ruler->height() / rows); };
    // Row 0 is the hunk header, row 100 the added line, row 301 the changed pair.
    QCOMPARE(ruler->bandAt(yOf(100)), DiffOverview::Band::Added);
    QCOMPARE(ruler->bandAt(yOf(301)), DiffOverview::Band::Changed);
    QCOMPARE(ruler->bandAt(yOf(200)), DiffOverview::Band::None);
    QCOMPARE(ruler->markerAt(yOf(301)), std::optional<Severity>(Severity::Block));
    QCOMPARE(ruler->markerAt(yOf(50)), std::optional<Severity>());

    QCOMPARE(view.verticalScrollBar()->value(), 0);
    QTest::mouseClick(ruler, Qt::LeftButton, {}, QPoint(DiffOverview::kWidth / 2, yOf(301)));
    const int first = view.verticalScrollBar()->value();
    QVERIFY2(first > 200 && first < 300, qPrintable(QString::number(first)));
}

// A jump to a finding brings its changed words into view sideways: `rel=1e-9` → `rel=0.1`
// at the end of a long line is on screen, not cut off at the right edge.
void TstDiffView::jumpBringsTheChangedTextIntoView()
{
    DiffView view;
    view.resize(700, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const std::string prefix = "    assert total(invoice_lines_with_many_descriptive_words) == "
                               "pytest.approx(0.96, ";
    const std::string padding(120, 'x');
    const std::string before = prefix + padding + "rel=1e-9)";
    const std::string after = prefix + padding + "rel=0.1)";
    const int at = int(before.size() - 5); // "1e-9"
    FileDiff f;
    f.status = ChangeStatus::Modified;
    f.oldPath = f.newPath = "tests/test_totals.py";
    f.hunks.push_back(hunk(1, 3, 1, 3,
                           {context(1, 1, "def test_total():"), deleted(2, before, {{at, 4}}),
                            added(2, after, {{at, 3}}), context(3, 3, "")}));
    view.setFile(f);
    view.setFindings({finding(Severity::Review, "WEAKER:tolerance", 2, "tolerance widened"),
                      finding(Severity::Info, "NOTE", 3, "the blank line")});
    QCOMPARE(view.horizontalScrollBar()->value(), 0);
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentLine(), 2);
    const int scrolled = view.horizontalScrollBar()->value();
    QVERIFY2(scrolled > 0, "the changed words stayed beyond the right edge");
    // Where the words are drawn now lies inside the new side's text column (about half of
    // the viewport, less its numbers): the text's x of "0.1" minus the scroll.
    const qreal charWidth = QFontMetricsF(view.font()).horizontalAdvance(QLatin1Char('0'));
    const int wordX = qRound(at * charWidth) - scrolled;
    QVERIFY2(wordX >= 0 && wordX + qRound(3 * charWidth) < view.viewport()->width() / 2,
             qPrintable(QStringLiteral("x %1 of %2").arg(wordX).arg(view.viewport()->width())));
    QVERIFY(view.nextFinding());
    QCOMPARE(view.currentLine(), 3);
    QCOMPARE(view.horizontalScrollBar()->value(), 0); // an empty line: back to its start
}

#include "tst_diffview.moc"
