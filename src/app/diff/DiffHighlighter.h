#pragma once

#include "DiffRows.h"

#include <QString>
#include <QTextLayout>
#include <QVector>
#include <memory>
#include <optional>

namespace pw::gui {

using LineFormats = QVector<QTextLayout::FormatRange>;

// Syntax formats of the lines of one file diff, computed only for lines that are asked for
// (the ones being painted). Each hunk's old side (context + deleted lines) and new side
// (context + added lines) is highlighted as its own text with the state reset at the
// hunk start, so an unclosed string in one hunk cannot colour the next (Kate's diff
// widget). Formats carry only syntax (foreground, bold, italic...): the diff colours are
// painted separately. Without KSyntaxHighlighting in the build every line is plain.
class DiffHighlighter
{
public:
    DiffHighlighter();
    ~DiffHighlighter();
    DiffHighlighter(const DiffHighlighter &) = delete;
    DiffHighlighter &operator=(const DiffHighlighter &) = delete;

    static bool available();
    // "KSyntaxHighlighting (KF5), 300 definitions" or why highlighting is off.
    static QString description();

    // `file` must outlive the highlighter's use of it (the view owns both). Resets state.
    void setFile(const core::FileDiff *file);
    void setDarkTheme(bool dark);
    void clear();
    // Name of the syntax definition in use ("Python"), empty when none.
    QString definitionName() const;

    // Formats of hunks[hunk].lines[line] as it reads on `side`, in UTF-16 offsets of its
    // text. Highlighting the lines before it in the same hunk side costs one unit of
    // `*budget` each; when the budget runs out the result is empty (paint plain now, ask
    // again later). A null budget means no limit.
    std::optional<LineFormats> formats(int hunk, int line, DiffSide side, int *budget = nullptr);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace pw::gui
