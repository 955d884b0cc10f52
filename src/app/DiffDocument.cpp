#include "DiffDocument.h"

#include <QApplication>
#include <QPalette>
#include <QPlainTextEdit>
#include <QSyntaxHighlighter>
#include <QTextBlock>

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

namespace pw::gui {
namespace {

bool darkPalette()
{
    return QApplication::palette().color(QPalette::Base).lightness() < 128;
}

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
KSyntaxHighlighting::Repository &syntaxRepository()
{
    static KSyntaxHighlighting::Repository repository;
    return repository;
}
#endif

} // namespace

DiffDocument::DiffDocument(QPlainTextEdit *view) : m_view(view) {}

DiffDocument::~DiffDocument() = default;

QString DiffDocument::highlightingDescription()
{
#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
    return QStringLiteral("KSyntaxHighlighting (KF%1), %2 syntax definitions")
        .arg(PATCHWITNESS_QT_MAJOR)
        .arg(syntaxRepository().definitions().size());
#else
    return QStringLiteral("not available in this build: KF%1SyntaxHighlighting was not found, "
                          "the diff uses plain diff colouring")
        .arg(PATCHWITNESS_QT_MAJOR);
#endif
}

void DiffDocument::clear()
{
    m_highlighter.reset();
    m_lines.clear();
    m_view->clear();
    m_view->setExtraSelections({});
}

void DiffDocument::show(const core::FileDiff &file)
{
    clear();
    QString text;
    auto append = [&](const QString &line, Line meta) {
        if (!m_lines.empty())
            text += QLatin1Char('\n');
        text += line;
        m_lines.push_back(meta);
    };
    if (file.binary) {
        append(QStringLiteral("binary file %1 (%2)")
                   .arg(QString::fromStdString(file.path()),
                        QString::fromLatin1(core::changeStatusName(file.status))),
               {Line::Kind::Note});
    } else if (file.hunks.empty()) {
        append(QStringLiteral("no textual change (%1)")
                   .arg(QString::fromLatin1(core::changeStatusName(file.status))),
               {Line::Kind::Note});
    }
    for (const core::DiffHunk &h : file.hunks) {
        append(QString::fromStdString(h.header), {Line::Kind::HunkHeader, h.oldStart, h.newStart});
        for (const core::DiffLine &l : h.lines) {
            const Line::Kind kind = l.origin == core::DiffLine::Origin::Added ? Line::Kind::Added
                                    : l.origin == core::DiffLine::Origin::Deleted
                                        ? Line::Kind::Deleted
                                        : Line::Kind::Context;
            append(QString::fromUtf8(l.text.data(), int(l.text.size())),
                   {kind, l.oldLine, l.newLine});
        }
    }
    m_view->setPlainText(text);

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
    auto *highlighter = new KSyntaxHighlighting::SyntaxHighlighter();
    highlighter->setTheme(syntaxRepository().defaultTheme(
        darkPalette() ? KSyntaxHighlighting::Repository::DarkTheme
                      : KSyntaxHighlighting::Repository::LightTheme));
    highlighter->setDefinition(
        syntaxRepository().definitionForFileName(QString::fromStdString(file.path())));
    highlighter->setDocument(m_view->document());
    highlighter->rehighlight(); // needed after setTheme with KF6
    m_highlighter.reset(highlighter);
#endif

    const bool dark = darkPalette();
    const QColor added = dark ? QColor(0x1f, 0x3d, 0x2a) : QColor(0xe6, 0xff, 0xec);
    const QColor deleted = dark ? QColor(0x4b, 0x1f, 0x24) : QColor(0xff, 0xeb, 0xe9);
    const QColor header = dark ? QColor(0x26, 0x32, 0x4a) : QColor(0xe8, 0xf0, 0xfe);
    QList<QTextEdit::ExtraSelection> selections;
    QTextBlock block = m_view->document()->firstBlock();
    for (const Line &line : m_lines) {
        if (!block.isValid())
            break;
        QColor colour;
        if (line.kind == Line::Kind::Added)
            colour = added;
        else if (line.kind == Line::Kind::Deleted)
            colour = deleted;
        else if (line.kind == Line::Kind::HunkHeader || line.kind == Line::Kind::Note)
            colour = header;
        if (colour.isValid()) {
            QTextEdit::ExtraSelection sel;
            sel.cursor = QTextCursor(block);
            sel.format.setBackground(colour);
            sel.format.setProperty(QTextFormat::FullWidthSelection, true);
            selections.append(sel);
        }
        block = block.next();
    }
    m_view->setExtraSelections(selections);
}

int DiffDocument::blockOfLine(int line) const
{
    for (size_t i = 0; i < m_lines.size(); ++i) {
        const Line &l = m_lines[i];
        if ((l.kind == Line::Kind::Added || l.kind == Line::Kind::Context) && l.newLine == line)
            return int(i);
    }
    for (size_t i = 0; i < m_lines.size(); ++i) {
        if (m_lines[i].kind == Line::Kind::Deleted && m_lines[i].oldLine == line)
            return int(i);
    }
    return -1;
}

} // namespace pw::gui
