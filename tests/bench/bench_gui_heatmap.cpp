// bench_gui_heatmap: the seed-matrix heatmap at 500 tests × 200 seeds (both trees: 200,000
// cells), one 1280×800 frame at successive scroll positions, at two zooms (cells of 18 px
// with their counts, and 4 px), against two references in the same run:
//  - every cell painted each frame (the heatmap without its viewport culling: what a
//    frame costs when painting is not virtualised);
//  - a QTableView on a QStandardItemModel of the same cells (background colour and count
//    per item), the item-view way, scrolled the same way.
// Prints the median per frame and the ratios. Target: a frame under 16 ms (frame rate).
#include "runs/HeatmapView.h"
#include "runs/MatrixHeat.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QImage>
#include <QPainter>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTableView>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

constexpr int kTests = 500;
constexpr int kSeeds = 200;
constexpr int kReplays = 5;
constexpr int kFrames = 40;
const QSize kWindow(1280, 800);

pw::core::MatrixResult matrix()
{
    pw::core::MatrixResult result;
    result.replays = kReplays;
    for (uint32_t s = 0; s < kSeeds; ++s)
        result.seeds.push_back(s);
    unsigned state = 7;
    auto next = [&state] { return (state = state * 1103515245u + 12345u) >> 8; };
    for (int t = 0; t < kTests; ++t) {
        pw::core::MatrixTest test;
        test.test = "tests/test_module_" + std::to_string(t % 40) + ".py::test_property_" +
                    std::to_string(t);
        for (pw::core::MatrixTree *tree : {&test.base, &test.head}) {
            tree->errors.assign(kSeeds, 0);
            tree->runs.assign(kSeeds, -1);
            for (int s = 0; s < kSeeds; ++s)
                tree->fails.push_back(next() % 4 == 0 ? int(next() % (kReplays + 1)) : 0);
        }
        test.triage.triage = pw::core::Triage(t % 5);
        result.tests.push_back(std::move(test));
    }
    return result;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// ms per frame over kFrames scroll positions from top to bottom (and across).
std::vector<double> frames(QAbstractScrollArea &area, const std::function<void(QImage &)> &paint)
{
    std::vector<double> out;
    QImage image(area.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    QScrollBar *v = area.verticalScrollBar();
    QScrollBar *h = area.horizontalScrollBar();
    for (int f = 0; f < kFrames; ++f) {
        v->setValue(v->maximum() * f / (kFrames - 1));
        h->setValue(h->maximum() * (f % 5) / 4);
        QElapsedTimer clock;
        clock.start();
        paint(image);
        out.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    pw::gui::MatrixHeat heat;
    heat.setResult(matrix());

    std::printf("heatmap %d tests x %d seeds x 2 trees (%d cells), frame %dx%d, %d frames\n",
                kTests, kSeeds, kTests * kSeeds * 2, kWindow.width(), kWindow.height(), kFrames);
    for (int cell : {18, 4}) {
        pw::gui::HeatmapView view(&heat);
        view.resize(kWindow);
        view.show();
        view.setCellSize(cell);
        QApplication::processEvents();
        const double culled = median(frames(view, [&view](QImage &image) {
            QPainter p(&image);
            view.paintFrame(p);
        }));

        // Every cell, every frame: the same painter on a viewport as large as the matrix.
        pw::gui::HeatmapView whole(&heat);
        whole.setCellSize(cell);
        const QSize all(view.width() + 2 * kSeeds * cell + 200, kTests * cell + 200);
        whole.resize(all);
        whole.setAttribute(Qt::WA_DontShowOnScreen);
        whole.show();
        QApplication::processEvents();
        std::vector<double> full;
        QImage big(whole.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
        for (int f = 0; f < 5; ++f) {
            QElapsedTimer clock;
            clock.start();
            QPainter p(&big);
            whole.paintFrame(p);
            p.end();
            full.push_back(double(clock.nsecsElapsed()) / 1e6);
        }
        const double everything = median(full);

        // The item-view way: one item per cell, its background and count.
        QStandardItemModel model(kTests, 2 * kSeeds);
        const pw::core::MatrixResult *r = heat.result();
        for (int t = 0; t < kTests; ++t)
            for (int c = 0; c < 2 * kSeeds; ++c) {
                const pw::core::MatrixTree &tree =
                    c < kSeeds ? r->tests[size_t(t)].base : r->tests[size_t(t)].head;
                const int fails = tree.fails[size_t(c % kSeeds)];
                auto *item = new QStandardItem(QString::number(fails));
                item->setBackground(
                    pw::gui::HeatmapView::cellColour(fails, kReplays, view.palette()));
                model.setItem(t, c, item);
            }
        QTableView table;
        table.setModel(&model);
        table.horizontalHeader()->setMinimumSectionSize(1);
        table.verticalHeader()->setMinimumSectionSize(1);
        table.horizontalHeader()->setDefaultSectionSize(cell);
        table.verticalHeader()->setDefaultSectionSize(cell);
        table.resize(kWindow);
        table.show();
        QApplication::processEvents();
        const double items =
            median(frames(table, [&table](QImage &image) { table.viewport()->render(&image); }));

        std::printf("cells of %2d px: heatmap %7.2f ms/frame | every cell painted %8.2f ms "
                    "(%.0fx) | QTableView %7.2f ms (%.1fx)%s\n",
                    cell, culled, everything, everything / culled, items, items / culled,
                    culled <= 16.0 ? "" : "  ABOVE 16 ms");
    }
    return 0;
}
