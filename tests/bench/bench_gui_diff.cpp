// bench_gui_diff: the diff view on a synthetic 5,000-line patch across 50 Python files
// (plus one 20,000-line file), against QPlainTextEdit showing the same text (and, when
// KSyntaxHighlighting is in the build, QPlainTextEdit + KSyntaxHighlighting's
// SyntaxHighlighter, the QTextDocument way). Prints medians and ratios:
//  (a) setFile + show until the first paint has completed, first file of the patch;
//  (b) one screen painted at successive scroll positions (viewport()->render).
// Targets: (a) <= 300 ms, (b) <= 16 ms per frame.
#include "diff/DiffView.h"
#include "repo/PatchDiff.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

namespace {

using pw::core::DiffHunk;
using pw::core::DiffLine;
using pw::core::FileDiff;

constexpr int kFiles = 50;
constexpr int kLinesPerFile = 100; // 5,000 diff lines in all
constexpr int kRuns = 9;
const QSize kWindow(1280, 800);

struct Rng
{
    unsigned state;
    unsigned next() { return state = state * 1103515245u + 12345u; }
    int below(int n) { return int((next() >> 8) % unsigned(n)); }
};

std::string pythonLine(Rng &rng, int n)
{
    const std::string k = std::to_string(n);
    switch (rng.below(8)) {
    case 0:
        return "def test_case_" + k + "(tmp_path, monkeypatch):";
    case 1:
        return "    value = compute(" + k + ", scale=" + std::to_string(rng.below(100)) + ")";
    case 2:
        return "    assert value == pytest.approx(" + k + ".5, rel=1e-9)";
    case 3:
        return "    # check the " + k + "th case against the reference table";
    case 4:
        return "    with pytest.raises(ValueError, match=\"bad input " + k + "\"):";
    case 5:
        return "        parse(\"" + k + "\", strict=True)  # noqa: E501";
    case 6:
        return "";
    default:
        return "@pytest.mark.parametrize(\"n\", [" + k + ", " + std::to_string(n * 3) + "])";
    }
}

// Hunks of 25 lines: 3 context, 4 deleted / 5 added, 6 context, 2 / 2, 3 context.
FileDiff makeFile(int index, int lines)
{
    Rng rng{unsigned(index * 7919 + 17)};
    FileDiff f;
    f.oldPath = f.newPath = "tests/unit/test_module_" + std::to_string(index) + ".py";
    int oldLine = 1, newLine = 1;
    const int pattern[] = {3, 4, 5, 6, 2, 2, 3};
    while (lines > 0) {
        const int gap = 10 + rng.below(30); // unchanged lines between hunks
        oldLine += gap;
        newLine += gap;
        DiffHunk h;
        h.oldStart = oldLine;
        h.newStart = newLine;
        std::vector<DiffLine> block;
        for (size_t p = 0; p < std::size(pattern) && lines > 0; ++p) {
            const int count = std::min(pattern[p], lines);
            lines -= count;
            const bool change = p == 1 || p == 2 || p == 4 || p == 5;
            const bool del = p == 1 || p == 4;
            for (int i = 0; i < count; ++i) {
                DiffLine l;
                l.text = pythonLine(rng, newLine);
                if (!change) {
                    l.origin = DiffLine::Origin::Context;
                    l.oldLine = oldLine++;
                    l.newLine = newLine++;
                } else if (del) {
                    l.origin = DiffLine::Origin::Deleted;
                    l.oldLine = oldLine++;
                } else {
                    l.origin = DiffLine::Origin::Added;
                    l.newLine = newLine++;
                }
                h.lines.push_back(std::move(l));
            }
        }
        // Intraline ranges between the k-th deleted and k-th added line of each block.
        for (size_t i = 0; i < h.lines.size();) {
            std::vector<size_t> d, a;
            for (; i < h.lines.size() && h.lines[i].origin == DiffLine::Origin::Deleted; ++i)
                d.push_back(i);
            for (; i < h.lines.size() && h.lines[i].origin == DiffLine::Origin::Added; ++i)
                a.push_back(i);
            for (size_t k = 0; k < std::min(d.size(), a.size()); ++k) {
                auto [o, n] = pw::core::intralineRanges(h.lines[d[k]].text, h.lines[a[k]].text);
                h.lines[d[k]].intraline = std::move(o);
                h.lines[a[k]].intraline = std::move(n);
            }
            if (d.empty() && a.empty())
                ++i;
        }
        h.oldLines = oldLine - h.oldStart;
        h.newLines = newLine - h.newStart;
        h.header = "@@ -" + std::to_string(h.oldStart) + "," + std::to_string(h.oldLines) + " +" +
                   std::to_string(h.newStart) + "," + std::to_string(h.newLines) +
                   " @@ class Test" + std::to_string(index) + ":";
        f.hunks.push_back(std::move(h));
    }
    return f;
}

QString unifiedText(const FileDiff &f)
{
    QString text;
    for (const DiffHunk &h : f.hunks) {
        text += QString::fromStdString(h.header) + QLatin1Char('\n');
        for (const DiffLine &l : h.lines) {
            const char sign = l.origin == DiffLine::Origin::Added     ? '+'
                              : l.origin == DiffLine::Origin::Deleted ? '-'
                                                                      : ' ';
            text += QLatin1Char(sign) + QString::fromStdString(l.text) + QLatin1Char('\n');
        }
    }
    return text;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double msSince(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1e6;
}

// Runs `prepare` (setFile / setPlainText) and show(), then spins the event loop until the
// viewport's first paint has completed. Returns milliseconds.
struct PaintWatch : QObject
{
    int paints = 0;
    bool eventFilter(QObject *, QEvent *e) override
    {
        if (e->type() == QEvent::Paint)
            ++paints;
        return false;
    }
};

double firstPaint(QAbstractScrollArea *area, const std::function<void()> &prepare)
{
    PaintWatch watch;
    area->resize(kWindow);
    area->viewport()->installEventFilter(&watch);
    QElapsedTimer t;
    t.start();
    prepare();
    area->show();
    while (watch.paints == 0)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    const double ms = msSince(t);
    area->viewport()->removeEventFilter(&watch);
    return ms;
}

// Paints one screen at successive scroll positions (a page apart); per-frame milliseconds.
std::vector<double> scrolledFrames(QAbstractScrollArea *area, int maxFrames)
{
    std::vector<double> frames;
    QImage image(area->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    QScrollBar *bar = area->verticalScrollBar();
    const int step = std::max(1, bar->pageStep());
    area->viewport()->render(&image); // untimed: sets up the image's paint engine and glyphs
    for (int value = step, n = 0; value <= bar->maximum() && n < maxFrames; value += step, ++n) {
        QElapsedTimer t;
        t.start();
        bar->setValue(value);
        area->viewport()->render(&image);
        frames.push_back(msSince(t));
    }
    return frames;
}

struct Figures
{
    double first = 0, firstCold = 0, frame = 0, frameWorst = 0, bigFirst = 0, bigFrame = 0;
};

void print(const char *label, double value, double reference, const char *unit = "ms")
{
    std::printf("  %-44s %9.2f %s   reference %9.2f %s   ratio %5.2fx\n", label, value, unit,
                reference, unit, reference > 0 ? value / reference : 0.0);
}

template <typename MakeArea, typename Load>
Figures measure(const std::vector<FileDiff> &files, const FileDiff &big, MakeArea makeArea,
                Load load)
{
    Figures fig;
    std::vector<double> firsts;
    for (int run = 0; run < kRuns + 1; ++run) {
        auto area = makeArea();
        const double ms = firstPaint(area.get(), [&] { load(area.get(), files.front()); });
        if (run == 0)
            fig.firstCold = ms; // first in the process: loads fonts (and syntax definitions)
        else
            firsts.push_back(ms);
    }
    fig.first = median(firsts);

    auto area = makeArea();
    firstPaint(area.get(), [&] { load(area.get(), files.front()); });
    std::vector<double> frames;
    for (const FileDiff &f : files) {
        load(area.get(), f);
        QCoreApplication::processEvents();
        const auto some = scrolledFrames(area.get(), 1000);
        frames.insert(frames.end(), some.begin(), some.end());
    }
    // A short file fits one screen: also scroll the 20,000-line file.
    std::vector<double> bigFirsts;
    for (int run = 0; run < 3; ++run) {
        auto a = makeArea();
        bigFirsts.push_back(firstPaint(a.get(), [&] { load(a.get(), big); }));
    }
    fig.bigFirst = median(bigFirsts);
    auto bigArea = makeArea();
    firstPaint(bigArea.get(), [&] { load(bigArea.get(), big); });
    const auto bigFrames = scrolledFrames(bigArea.get(), 200);
    frames.insert(frames.end(), bigFrames.begin(), bigFrames.end());
    fig.frame = median(frames);
    fig.frameWorst = frames.empty() ? 0 : *std::max_element(frames.begin(), frames.end());
    fig.bigFrame = median(bigFrames);
    return fig;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    std::vector<FileDiff> files;
    for (int i = 0; i < kFiles; ++i)
        files.push_back(makeFile(i, kLinesPerFile));
    FileDiff big = makeFile(999, 20000);
    big.oldPath = big.newPath = "tests/unit/test_generated_big.py";
    int lines = 0;
    for (const FileDiff &f : files)
        for (const DiffHunk &h : f.hunks)
            lines += int(h.lines.size());

    std::printf("bench_gui_diff: %d files, %d diff lines, window %dx%d, Qt %s\n", kFiles, lines,
                kWindow.width(), kWindow.height(), qVersion());
    std::printf("highlighting: %s\n", qPrintable(pw::gui::DiffView::highlightingDescription()));

    auto makeView = [] { return std::make_unique<pw::gui::DiffView>(); };
    const Figures view =
        measure(files, big, makeView, [](QAbstractScrollArea *a, const FileDiff &f) {
            static_cast<pw::gui::DiffView *>(a)->setFile(f);
        });

    const QFont font = pw::gui::DiffView().font(); // the same fixed-pitch font
    auto makeEdit = [&font] {
        auto e = std::make_unique<QPlainTextEdit>();
        e->setReadOnly(true);
        e->setLineWrapMode(QPlainTextEdit::NoWrap);
        e->setFont(font);
        return e;
    };
    const Figures plain =
        measure(files, big, makeEdit, [](QAbstractScrollArea *a, const FileDiff &f) {
            static_cast<QPlainTextEdit *>(a)->setPlainText(unifiedText(f));
        });

    std::printf("\nDiffView (side by side, lazy highlighting) vs QPlainTextEdit (plain text):\n");
    print("(a) first paint, first file (median of 9)", view.first, plain.first);
    print("    first paint, first in process (cold)", view.firstCold, plain.firstCold);
    print("(b) scrolled frame, one screen (median)", view.frame, plain.frame);
    print("    scrolled frame, worst", view.frameWorst, plain.frameWorst);
    print("    20,000-line file: first paint (median)", view.bigFirst, plain.bigFirst);
    print("    20,000-line file: scrolled frame (median)", view.bigFrame, plain.bigFrame);

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
    static KSyntaxHighlighting::Repository repository;
    struct Highlighted : QPlainTextEdit
    {
        KSyntaxHighlighting::SyntaxHighlighter *highlighter = nullptr;
    };
    auto makeHighlighted = [&] {
        auto e = std::make_unique<Highlighted>();
        e->setReadOnly(true);
        e->setLineWrapMode(QPlainTextEdit::NoWrap);
        e->setFont(font);
        e->highlighter = new KSyntaxHighlighting::SyntaxHighlighter(e->document());
        e->highlighter->setTheme(
            repository.defaultTheme(KSyntaxHighlighting::Repository::LightTheme));
        return e;
    };
    const Figures ksh =
        measure(files, big, makeHighlighted, [&](QAbstractScrollArea *a, const FileDiff &f) {
            auto *e = static_cast<Highlighted *>(a);
            e->highlighter->setDefinition(
                repository.definitionForFileName(QString::fromStdString(f.path())));
            e->setPlainText(unifiedText(f));
        });
    std::printf("\nDiffView vs QPlainTextEdit + KSyntaxHighlighting::SyntaxHighlighter "
                "(whole document highlighted):\n");
    print("(a) first paint, first file (median of 9)", view.first, ksh.first);
    print("(b) scrolled frame, one screen (median)", view.frame, ksh.frame);
    print("    20,000-line file: first paint (median)", view.bigFirst, ksh.bigFirst);
    print("    20,000-line file: scrolled frame (median)", view.bigFrame, ksh.bigFrame);
#endif

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
    {
        // What the last line of a 20,000-line hunk costs when nothing above it was painted:
        // the view spreads this over paints (a budget of lines per paint).
        FileDiff added; // the big file as one new file: a single 20,000-line hunk
        added.status = pw::core::ChangeStatus::Added;
        added.newPath = big.newPath;
        DiffHunk one;
        for (const DiffHunk &h : big.hunks)
            for (DiffLine l : h.lines) {
                if (l.origin == DiffLine::Origin::Deleted)
                    continue;
                l.origin = DiffLine::Origin::Added;
                l.oldLine = 0;
                l.newLine = int(one.lines.size()) + 1;
                l.intraline.clear();
                one.lines.push_back(std::move(l));
            }
        one.newStart = 1;
        one.newLines = int(one.lines.size());
        added.hunks.push_back(std::move(one));
        pw::gui::DiffView v;
        v.setFile(added);
        const int last = v.rowCount() - 1;
        QElapsedTimer t;
        t.start();
        const auto formats = v.formatsForRow(last, pw::gui::DiffSide::New);
        const double ms = msSince(t);
        std::printf("\nhighlighting catch-up to the end of a %d-line hunk: %.1f ms "
                    "(%.1f us per line, %d format ranges on the last line)\n",
                    last, ms, ms * 1000 / last, int(formats.size()));
    }
#endif

    const bool ok = view.first <= 300 && view.frame <= 16;
    std::printf(
        "\ntargets: first paint <= 300 ms: %s (%.1f ms); scrolled frame <= 16 ms: %s (%.2f ms)\n",
        view.first <= 300 ? "met" : "MISSED", view.first, view.frame <= 16 ? "met" : "MISSED",
        view.frame);
    return ok ? 0 : 1;
}
