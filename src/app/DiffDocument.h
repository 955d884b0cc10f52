#pragma once

#include "repo/PatchDiff.h"

#include <QString>
#include <memory>
#include <vector>

class QPlainTextEdit;
class QSyntaxHighlighter;

namespace pw::gui {

// Shows one file of the patch in a QPlainTextEdit: code text only (so the syntax
// highlighter sees real source), red/green line backgrounds painted separately as extra
// selections (Kate's way), hunk headers between hunks.
class DiffDocument
{
public:
    struct Line
    {
        enum class Kind
        {
            HunkHeader,
            Context,
            Added,
            Deleted,
            Note
        };
        Kind kind = Kind::Context;
        int oldLine = 0;
        int newLine = 0;
    };

    explicit DiffDocument(QPlainTextEdit *view);
    ~DiffDocument();

    void show(const core::FileDiff &file);
    void clear();
    // Document block of the new-side line (or old-side when the line was deleted), -1 if
    // the line is not in a hunk.
    int blockOfLine(int line) const;
    const std::vector<Line> &lines() const { return m_lines; }

    // "KSyntaxHighlighting 5.103 (Qt 5)" or a sentence saying highlighting is off.
    static QString highlightingDescription();

private:
    QPlainTextEdit *m_view;
    std::vector<Line> m_lines;
    std::unique_ptr<QSyntaxHighlighter> m_highlighter;
};

} // namespace pw::gui
