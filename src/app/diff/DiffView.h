#pragma once

#include "DiffFindings.h"
#include "DiffHighlighter.h"
#include "DiffPainter.h"
#include "DiffRows.h"
#include "audit/Finding.h"
#include "repo/PatchDiff.h"

#include <QAbstractScrollArea>
#include <QTimer>
#include <map>
#include <optional>
#include <vector>

class QPushButton;

namespace pw::gui {

class DiffOverview;

// The patch diff of one file, painted by hand (no QTextDocument): side by side or unified,
// rows built from the FileDiff as plain indices, text laid out and syntax highlighted
// only for the rows that get painted, findings anchored in a gutter column.
class DiffView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    static constexpr qint64 kDefaultSizeCap = 2'000'000; // bytes of hunk text

    explicit DiffView(QWidget *parent = nullptr);
    ~DiffView() override;

    // Replaces the content (and drops the findings of the previous file); cheap: rows,
    // layout and highlighting happen on first use.
    void setFile(const pw::core::FileDiff &file);
    void setFile(pw::core::FileDiff &&file);
    // No file; `message` is drawn in its place: why there is none or what comes ("Auditing
    // …", "The patch changes no file", "Select an event …"). Empty: nothing is drawn.
    void clear(const QString &message = QString());
    QString message() const { return m_message; } // the text shown without a file
    bool hasFile() const { return m_hasFile; }
    const pw::core::FileDiff &file() const { return m_file; }

    void setMode(DiffMode mode); // keeps the current line selected
    DiffMode mode() const { return m_mode; }
    DiffOverview *overview() const { return m_overview; }
    // How the file is laid out: the mode, except that an added or deleted file is one column
    // in side by side too (the other side would be an empty half of the view).
    DiffMode layoutMode() const
    {
        const bool oneSided = m_file.oldPath.empty() || m_file.newPath.empty();
        return m_mode == DiffMode::SideBySide && m_hasFile && oneSided ? DiffMode::Unified : m_mode;
    }

    // Gutter markers. Findings carry head-side lines (T-DEL: the base line of the deleted
    // test); a line the diff does not show marks the nearest hunk header, a file-level
    // finding (line 0) the first row. Call after setFile.
    void setFindings(const std::vector<pw::core::Finding> &findingsOfThisFile);

    void setSizeCap(qint64 bytes); // 0: no cap
    qint64 sizeCap() const { return m_sizeCap; }
    bool isCapped() const;
    void loadAnyway();

    // Selects the row of `line` (head side, or base side with oldSide) and centres it;
    // false when the diff does not show that line.
    bool scrollToLine(int line, bool oldSide = false);
    // New-side line of the current row (old side when deleted or when the old side was
    // picked in side-by-side mode), 0 if none.
    int currentLine() const;
    bool currentLineIsOldSide() const;

    static QString highlightingDescription();

    // Read-only hooks for tests and the window.
    int rowCount() const;
    DiffRow::Kind rowKind(int row) const;
    QString rowText(int row, DiffSide side = DiffSide::New) const; // cell text / note / header
    int rowLineNumber(int row, DiffSide side) const;               // 0 when that side is empty
    bool rowHasNoNewlineAtEnd(int row, DiffSide side) const;
    std::optional<pw::core::Severity> rowMarker(int row) const;
    QString rowToolTip(int row) const;                       // the findings' "CODE: message" lines
    LineFormats formatsForRow(int row, DiffSide side) const; // syntax formats (computes them)
    int currentRow() const { return m_current; }
    int firstVisibleRow() const;
    int visibleRowCount() const;
    QRect rowRect(int row) const;   // viewport coordinates (may lie outside the viewport)
    QString definitionName() const; // syntax definition in use ("Python"), empty if none

public Q_SLOTS:
    // Move the current row; false (and no move) at the end.
    bool nextHunk();
    bool previousHunk();
    bool nextFinding();
    bool previousFinding();
    // Selects and centres the row `f` (one of setFindings') is anchored at; false if none.
    bool showFinding(const pw::core::Finding &f);
    void showSideBySide() { setMode(DiffMode::SideBySide); }
    void showUnified() { setMode(DiffMode::Unified); }

Q_SIGNALS:
    void currentLineChanged(int line, bool oldSide); // user moved (click/keys) or API moved

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;

private:
    enum class Reveal
    {
        Nearest, // scroll as little as possible
        Centre
    };

    void resetContent();
    void ensureRows() const;
    void mapFindings() const;
    void updateScrollBars();
    void updateLoadButton();
    void applyStyle();
    bool selectable(int row) const;
    int stepSelectable(int from, int direction) const;
    void setCurrent(int row, DiffSide side, Reveal reveal);
    void reveal(int row, Reveal how);
    int rowAt(int y) const;
    int lineNumberOf(int row, DiffSide side) const;
    DiffSide sideFor(int row, DiffSide preferred) const;
    void copyCurrentLine() const;
    // Scrolls sideways so that the current row's first changed word is in view (a finding's
    // decisive text beyond the right edge: `rel=1e-9` → `rel=0.1`).
    void revealChangedText();

    pw::core::FileDiff m_file;
    bool m_hasFile = false;
    QString m_message;
    DiffOverview *m_overview = nullptr;
    DiffMode m_mode = DiffMode::SideBySide;
    qint64 m_sizeCap = kDefaultSizeCap;
    qint64 m_textBytes = 0;
    bool m_loadAnyway = false;

    // Built on first use after the content changes (setFile only stores the file).
    mutable DiffRows m_rows;
    mutable bool m_rowsDirty = false;
    mutable DiffFindings m_findings;
    mutable DiffHighlighter m_highlighter;

    DiffPainter m_painter;
    int m_current = -1;
    DiffSide m_currentSide = DiffSide::New;
    int m_reportedLine = 0;
    bool m_reportedOld = false;
    QPushButton *m_loadButton = nullptr;
    QTimer m_highlightTimer; // repaints while highlighting catches up with a long hunk
    bool m_styling = false;
};

} // namespace pw::gui
