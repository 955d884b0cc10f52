#include "HeatmapView.h"

#include "panels/SeverityStyle.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QStaticText>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <array>
#include <cmath>

namespace pw::gui {

namespace style = severity_style;

namespace {

bool darkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// The text that reads best on `fill`: black or white.
QColor inkOn(const QColor &fill)
{
    return style::contrast(fill, Qt::black) >= style::contrast(fill, Qt::white) ? QColor(Qt::black)
                                                                                : QColor(Qt::white);
}

// The verdict's short tag in the label column, and its tone.
QString tagOf(const std::optional<core::Triage> &triage, bool running)
{
    if (!triage)
        return running ? HeatmapView::tr("…") : HeatmapView::tr("no triage");
    if (*triage == core::Triage::NeedsManualReview)
        return QStringLiteral("MANUAL_REVIEW");
    return QString::fromLatin1(core::triageName(*triage));
}

style::Tone toneOf(const std::optional<core::Triage> &triage)
{
    return triage ? style::toneForSeverity(core::triageSeverity(*triage)) : style::Tone::Neutral;
}

QString fraction(const MatrixHeat::Cell &c, int replays)
{
    QString text = QStringLiteral("%1/%2").arg(c.fails).arg(replays);
    if (c.errors > 0)
        text += HeatmapView::tr(" (%n replay(s) no evidence)", nullptr, c.errors);
    else if (c.seen < replays)
        text += HeatmapView::tr(" (%1 of %2 reported)").arg(c.seen).arg(replays);
    return text;
}

} // namespace

HeatmapView::HeatmapView(MatrixHeat *heat, QWidget *parent)
    : QAbstractScrollArea(parent), m_heat(heat)
{
    setObjectName(QStringLiteral("heatmapView"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    verticalScrollBar()->setSingleStep(m_cell);
    horizontalScrollBar()->setSingleStep(m_cell);
    connect(m_heat, &MatrixHeat::changed, this, [this] {
        followCurrent();
        m_tiny = QImage();
        updateScrollBars();
        viewport()->update();
    });
    updateScrollBars();
}

void HeatmapView::followCurrent()
{
    const int before = m_current.row;
    const int row = m_currentTest.isEmpty() ? -1 : m_heat->rowOf(m_currentTest);
    const std::vector<int> &shown = m_heat->shown();
    if (row < 0 || std::find(shown.begin(), shown.end(), row) == shown.end()) {
        m_current = Hit();
        m_currentTest.clear();
    } else {
        m_current.row = row;
        if (m_current.seed >= int(m_heat->seeds().size()))
            m_current.seed = -1;
    }
    if (m_current.row != before)
        Q_EMIT currentChanged(m_current.row);
}

int HeatmapView::labelWidth() const
{
    const QFontMetrics fm = fontMetrics();
    const int wanted = fm.horizontalAdvance(QStringLiteral("MANUAL_REVIEW")) +
                       fm.horizontalAdvance(QLatin1Char('x')) * 34 + 16;
    return std::min(wanted, std::max(120, viewport()->width() / 2));
}

int HeatmapView::headerHeight() const
{
    return fontMetrics().height() * 2 + 6;
}

int HeatmapView::blockWidth() const
{
    return int(m_heat->seeds().size()) * m_cell;
}

int HeatmapView::blockGap() const
{
    return std::max(10, m_cell);
}

int HeatmapView::contentX(core::Arm arm, int seed) const
{
    return (arm == core::Arm::Base ? 0 : blockWidth() + blockGap()) + seed * m_cell;
}

bool HeatmapView::drawsCounts() const
{
    return m_cell >= fontMetrics().height();
}

void HeatmapView::setCellSize(int pixels)
{
    const int cell = std::clamp(pixels, kMinCell, kMaxCell);
    if (cell == m_cell)
        return;
    // Keep the row at the top where it is.
    const int topRow = verticalScrollBar()->value() / std::max(1, m_cell);
    m_cell = cell;
    verticalScrollBar()->setSingleStep(m_cell);
    horizontalScrollBar()->setSingleStep(m_cell);
    updateScrollBars();
    verticalScrollBar()->setValue(topRow * m_cell);
    viewport()->update();
    Q_EMIT zoomChanged(m_cell);
}

void HeatmapView::zoomIn()
{
    setCellSize(m_cell + std::max(1, m_cell / 4));
}

void HeatmapView::zoomOut()
{
    setCellSize(m_cell - std::max(1, m_cell / 5));
}

void HeatmapView::updateScrollBars()
{
    const int rows = int(m_heat->shown().size());
    const int visibleH = std::max(0, viewport()->height() - headerHeight());
    verticalScrollBar()->setPageStep(std::max(1, visibleH));
    verticalScrollBar()->setRange(0, std::max(0, rows * rowHeight() - visibleH));
    const int contentW = m_heat->seeds().empty() ? 0 : 2 * blockWidth() + blockGap() + 4;
    const int visibleW = std::max(0, viewport()->width() - labelWidth());
    horizontalScrollBar()->setPageStep(std::max(1, visibleW));
    horizontalScrollBar()->setRange(0, std::max(0, contentW - visibleW));
}

void HeatmapView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

QRect HeatmapView::cellRect(int row, core::Arm arm, int seed) const
{
    const std::vector<int> &shown = m_heat->shown();
    const auto at = std::find(shown.begin(), shown.end(), row);
    if (at == shown.end() || seed < 0 || seed >= int(m_heat->seeds().size()))
        return {};
    const int y =
        headerHeight() + int(at - shown.begin()) * rowHeight() - verticalScrollBar()->value();
    const int x = labelWidth() + contentX(arm, seed) - horizontalScrollBar()->value();
    return QRect(x, y, m_cell, rowHeight());
}

std::optional<HeatmapView::Hit> HeatmapView::hitAt(const QPoint &pos) const
{
    const int top = headerHeight();
    if (pos.y() < top || m_heat->seeds().empty())
        return std::nullopt;
    const int position = (pos.y() - top + verticalScrollBar()->value()) / std::max(1, rowHeight());
    const std::vector<int> &shown = m_heat->shown();
    if (position < 0 || position >= int(shown.size()))
        return std::nullopt;
    Hit hit;
    hit.row = shown[size_t(position)];
    if (pos.x() < labelWidth())
        return hit;
    const int x = pos.x() - labelWidth() + horizontalScrollBar()->value();
    const int n = int(m_heat->seeds().size());
    if (x >= 0 && x < blockWidth()) {
        hit.arm = core::Arm::Base;
        hit.seed = x / m_cell;
    } else if (x >= blockWidth() + blockGap() && x < 2 * blockWidth() + blockGap()) {
        hit.arm = core::Arm::Head;
        hit.seed = (x - blockWidth() - blockGap()) / m_cell;
    } else {
        return std::nullopt;
    }
    if (hit.seed >= n)
        return std::nullopt;
    return hit;
}

std::optional<HeatmapView::Hit> HeatmapView::currentCell() const
{
    if (m_current.row < 0 || m_current.seed < 0)
        return std::nullopt;
    return m_current;
}

void HeatmapView::setCurrent(const Hit &hit)
{
    const bool rowChanged = hit.row != m_current.row;
    m_current = hit;
    m_currentTest =
        hit.row >= 0 && hit.row < m_heat->rowCount() ? m_heat->row(hit.row).test : QString();
    // Into view.
    const std::vector<int> &shown = m_heat->shown();
    const auto at = std::find(shown.begin(), shown.end(), hit.row);
    if (at != shown.end()) {
        const int y = int(at - shown.begin()) * rowHeight();
        const int visibleH = viewport()->height() - headerHeight();
        QScrollBar *v = verticalScrollBar();
        if (y < v->value())
            v->setValue(y);
        else if (y + rowHeight() > v->value() + visibleH)
            v->setValue(y + rowHeight() - visibleH);
        if (hit.seed >= 0) {
            const int x = contentX(hit.arm, hit.seed);
            const int visibleW = viewport()->width() - labelWidth();
            QScrollBar *h = horizontalScrollBar();
            if (x < h->value())
                h->setValue(x);
            else if (x + m_cell > h->value() + visibleW)
                h->setValue(x + m_cell - visibleW);
        }
    }
    viewport()->update();
    if (rowChanged)
        Q_EMIT currentChanged(hit.row);
}

QString HeatmapView::toolTipFor(const Hit &hit) const
{
    if (hit.row < 0 || hit.row >= m_heat->rowCount())
        return {};
    const MatrixHeat::Row &row = m_heat->row(hit.row);
    QString tip = QStringLiteral("<b>%1</b>").arg(row.test.toHtmlEscaped());
    tip += QStringLiteral("<br>") + row.line.toHtmlEscaped();
    if (hit.seed < 0)
        return tip;
    const size_t s = size_t(hit.seed);
    const int k = m_heat->replays();
    tip += QStringLiteral("<br>") + tr("seed %1").arg(m_heat->seeds()[s]);
    for (core::Arm arm : {core::Arm::Base, core::Arm::Head}) {
        const QString tree = arm == core::Arm::Base ? tr("baseline") : tr("patched");
        const QString value =
            row.collected(arm) ? fraction(row.cells(arm)[s], k) : tr("not collected on this tree");
        const QString line = tr("%1: %2").arg(tree, value);
        tip += QStringLiteral("<br>") +
               (arm == hit.arm ? QStringLiteral("<b>%1</b>").arg(line) : line.toHtmlEscaped());
    }
    if (row.witnessSeed && *row.witnessSeed == (long long)m_heat->seeds()[s])
        tip += QStringLiteral("<br>") +
               tr("the witness seed of %1").arg(QString::fromLatin1(core::triageName(*row.triage)));
    const std::vector<QString> &commands = row.commands(hit.arm);
    if (s < commands.size())
        tip += QStringLiteral("<br><br><tt>%1</tt>").arg(commands[s].toHtmlEscaped());
    else if (m_heat->running())
        tip += QStringLiteral("<br>") + tr("(the command is known when the matrix ends)");
    return tip;
}

QColor HeatmapView::cellColour(int fails, int replays, const QPalette &palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    if (fails <= 0 || replays <= 0)
        return style::blend(base, text, 0.10);
    // ColorBrewer's Reds (light) and a dim-to-bright red (dark): one hue, so more fails
    // read as "more" whichever palette draws it.
    static const std::array<QColor, 4> light = {QColor(0xfc, 0xbb, 0xa1), QColor(0xfb, 0x6a, 0x4a),
                                                QColor(0xde, 0x2d, 0x26), QColor(0x99, 0x00, 0x0d)};
    static const std::array<QColor, 4> dark = {QColor(0x5a, 0x24, 0x20), QColor(0x93, 0x30, 0x26),
                                               QColor(0xd6, 0x45, 0x33), QColor(0xff, 0x85, 0x70)};
    const std::array<QColor, 4> &stops = darkPalette(palette) ? dark : light;
    const double t = std::clamp(double(fails) / replays, 0.0, 1.0) * 3.0;
    const int i = std::min(2, int(std::floor(t)));
    return style::blend(stops[size_t(i)], stops[size_t(i) + 1], t - i);
}

void HeatmapView::paintEvent(QPaintEvent *)
{
    QPainter p(viewport());
    paintFrame(p);
}

void HeatmapView::paintFrame(QPainter &p)
{
    const QPalette &pal = palette();
    const QRect all = viewport()->rect();
    p.fillRect(all, pal.color(QPalette::Base));
    if (m_heat->isEmpty()) {
        p.setPen(style::mutedText(pal));
        p.drawText(all.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   m_heat->summary());
        return;
    }
    const int rows = int(m_heat->shown().size());
    const int first = verticalScrollBar()->value() / std::max(1, rowHeight());
    const int visible = (all.height() - headerHeight()) / std::max(1, rowHeight()) + 2;
    const int last = std::min(rows, first + visible);
    paintCells(p, first, last);
    paintHeader(p, all);
    paintLabels(p, first, last);
}

void HeatmapView::paintHeader(QPainter &p, const QRect &area)
{
    const QPalette &pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int lw = labelWidth();
    const QRect header(0, 0, area.width(), headerHeight());
    p.fillRect(header, pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(6, 0, lw - 12, fm.height() + 2), Qt::AlignLeft | Qt::AlignVCenter,
               tr("test · triage"));
    p.save();
    p.setClipRect(QRect(lw, 0, area.width() - lw, header.height()));
    const int dx = lw - horizontalScrollBar()->value();
    const int n = int(m_heat->seeds().size());
    for (core::Arm arm : {core::Arm::Base, core::Arm::Head}) {
        const QRect title(dx + contentX(arm, 0), 0, blockWidth(), fm.height() + 2);
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.drawText(title, Qt::AlignHCenter | Qt::AlignVCenter | Qt::TextSingleLine,
                   arm == core::Arm::Base ? tr("baseline") : tr("patched"));
        p.setFont(font());
        // Seed numbers where they fit, at a round step.
        if (n == 0)
            continue;
        const int widest = fm.horizontalAdvance(QString::number(m_heat->seeds().back())) + 6;
        int step = 1;
        for (int s : {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000})
            if (s * m_cell >= widest) {
                step = s;
                break;
            }
        p.setPen(style::mutedText(pal));
        const int first = std::max(0, (horizontalScrollBar()->value() - contentX(arm, 0)) / m_cell);
        for (int s = first - first % step; s < n; s += step) {
            const int x = dx + contentX(arm, s);
            if (x > area.width())
                break;
            p.drawText(QRect(x, fm.height() + 2, std::max(m_cell, widest), fm.height() + 2),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       QString::number(m_heat->seeds()[size_t(s)]));
        }
        p.setPen(pal.color(QPalette::WindowText));
    }
    p.restore();
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(0, header.bottom(), area.width(), header.bottom());
}

void HeatmapView::paintLabels(QPainter &p, int firstShown, int lastShown)
{
    const QPalette &pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int lw = labelWidth();
    const int top = headerHeight();
    p.save();
    p.setClipRect(QRect(0, top, lw, viewport()->height() - top));
    p.fillRect(QRect(0, top, lw, viewport()->height() - top), pal.color(QPalette::Base));
    const bool text = rowHeight() >= fm.height() - 2;
    const int tagWidth = fm.horizontalAdvance(QStringLiteral("MANUAL_REVIEW")) + 8;
    const QColor background = pal.color(QPalette::Base);
    for (int i = firstShown; i < lastShown; ++i) {
        const int index = m_heat->shown()[size_t(i)];
        const MatrixHeat::Row &row = m_heat->row(index);
        const QRect band(0, top + i * rowHeight() - verticalScrollBar()->value(), lw, rowHeight());
        const bool current = index == m_current.row;
        if (current)
            p.fillRect(band, pal.color(QPalette::Highlight));
        const style::Tone tone = toneOf(row.triage);
        QColor tagColour = style::textOn(tone, background);
        if (!tagColour.isValid())
            tagColour = pal.color(QPalette::Text);
        if (!text) {
            // Too small for words: a strip of the verdict's tone (the tooltip names it).
            const QColor strip = tone == style::Tone::Neutral ? style::mutedText(pal) : tagColour;
            p.fillRect(QRect(band.left() + 2, band.top(), 6, std::max(1, band.height() - 1)),
                       strip);
            continue;
        }
        p.setPen(current ? pal.color(QPalette::HighlightedText) : tagColour);
        QFont tagFont = font();
        tagFont.setBold(row.triage == core::Triage::PatchBug);
        p.setFont(tagFont);
        p.drawText(
            band.adjusted(6, 0, 0, 0).intersected(QRect(6, band.top(), tagWidth, band.height())),
            Qt::AlignLeft | Qt::AlignVCenter, tagOf(row.triage, m_heat->running()));
        p.setFont(font());
        p.setPen(current ? pal.color(QPalette::HighlightedText) : pal.color(QPalette::Text));
        const QRect name(6 + tagWidth, band.top(), lw - tagWidth - 12, band.height());
        p.drawText(name, Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(row.test, Qt::ElideLeft, name.width()));
    }
    p.restore();
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(lw - 1, top, lw - 1, viewport()->height());
}

void HeatmapView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        m_tiny = QImage();
    QAbstractScrollArea::changeEvent(event);
}

const QImage &HeatmapView::tinyImage()
{
    if (!m_tiny.isNull())
        return m_tiny;
    const QPalette &pal = palette();
    const int n = int(m_heat->seeds().size());
    const int k = m_heat->replays();
    const std::vector<int> &shown = m_heat->shown();
    m_tiny = QImage(std::max(1, 2 * n), std::max<int>(1, int(shown.size())), QImage::Format_RGB32);
    const QRgb window = pal.color(QPalette::Window).rgb();
    const QRgb waiting = pal.color(QPalette::Base).rgb();
    // A cell with replays that were no evidence: its count's colour, pulled to grey (too
    // small for the hatching of large cells).
    std::vector<QRgb> scale, noEvidence;
    for (int f = 0; f <= k; ++f) {
        scale.push_back(cellColour(f, k, pal).rgb());
        noEvidence.push_back(
            style::blend(cellColour(f, k, pal), style::mutedText(pal), 0.45).rgb());
    }
    for (size_t i = 0; i < shown.size(); ++i) {
        const MatrixHeat::Row &row = m_heat->row(shown[i]);
        auto *line = reinterpret_cast<QRgb *>(m_tiny.scanLine(int(i)));
        for (core::Arm arm : {core::Arm::Base, core::Arm::Head}) {
            const std::vector<MatrixHeat::Cell> &cells = row.cells(arm);
            QRgb *out = line + (arm == core::Arm::Base ? 0 : n);
            for (int s = 0; s < n; ++s) {
                const MatrixHeat::Cell &c = cells[size_t(s)];
                if (!row.collected(arm))
                    out[s] = window;
                else if (m_heat->running() && c.seen + c.errors < k && c.seen == 0)
                    out[s] = waiting;
                else if (c.errors > 0 && !m_heat->running())
                    out[s] = noEvidence[size_t(std::clamp(c.fails, 0, k))];
                else
                    out[s] = scale[size_t(std::clamp(c.fails, 0, k))];
            }
        }
    }
    return m_tiny;
}

void HeatmapView::paintTinyCells(QPainter &p, int firstShown, int lastShown)
{
    const int n = int(m_heat->seeds().size());
    const int lw = labelWidth();
    const int h = horizontalScrollBar()->value();
    const int y = headerHeight() + firstShown * rowHeight() - verticalScrollBar()->value();
    const int rows = lastShown - firstShown;
    if (rows <= 0 || n == 0)
        return;
    const QImage &image = tinyImage();
    for (core::Arm arm : {core::Arm::Base, core::Arm::Head}) {
        const QRect target(lw + contentX(arm, 0) - h, y, n * m_cell, rows * rowHeight());
        const QRect source(arm == core::Arm::Base ? 0 : n, firstShown, n, rows);
        p.drawImage(target, image, source);
    }
}

const std::vector<QStaticText> &HeatmapView::digits()
{
    const int k = m_heat->replays();
    if (k != m_digitsK || font() != m_digitsFont) {
        m_digits.clear();
        for (int f = 0; f <= k; ++f) {
            QStaticText t(QString::number(f));
            t.setTextFormat(Qt::PlainText);
            t.prepare(QTransform(), font());
            m_digits.push_back(t);
        }
        m_digitsK = k;
        m_digitsFont = font();
    }
    return m_digits;
}

void HeatmapView::paintCells(QPainter &p, int firstShown, int lastShown)
{
    const QPalette &pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int lw = labelWidth();
    const int top = headerHeight();
    const int k = m_heat->replays();
    const int n = int(m_heat->seeds().size());
    const int h = horizontalScrollBar()->value();
    const int visibleW = viewport()->width() - lw;
    const bool counts = drawsCounts();
    const int inset = m_cell >= 6 ? 1 : 0;
    const QColor neutral = cellColour(0, k, pal);
    const QColor muted = style::mutedText(pal);
    const QColor frame = pal.color(QPalette::Text);
    p.save();
    p.setClipRect(QRect(lw, top, visibleW, viewport()->height() - top));
    const bool tiny = m_cell < 8;
    if (tiny)
        paintTinyCells(p, firstShown, lastShown);
    // Up to K = 100 the counts are laid out once (digits()); above, drawn as text.
    const bool staticDigits = counts && k <= 100;
    const std::vector<QStaticText> &laidOut = staticDigits ? digits() : m_digits;
    const auto drawCount = [&](const QRect &r, int f) {
        if (!staticDigits) {
            p.drawText(r, Qt::AlignCenter, QString::number(f));
            return;
        }
        const QStaticText &t = laidOut[size_t(std::clamp(f, 0, k))];
        const QSizeF size = t.size();
        p.drawStaticText(QPointF(r.left() + (r.width() - size.width()) / 2.0,
                                 r.top() + (r.height() - size.height()) / 2.0),
                         t);
    };
    for (int i = firstShown; i < lastShown; ++i) {
        const int index = m_heat->shown()[size_t(i)];
        const MatrixHeat::Row &row = m_heat->row(index);
        const int y = top + i * rowHeight() - verticalScrollBar()->value();
        if (index == m_current.row) {
            QColor band = pal.color(QPalette::Highlight);
            band.setAlpha(50);
            p.fillRect(QRect(lw, y, visibleW, rowHeight()), band);
        }
        if (tiny && n > 0) {
            // Drawn from the image: only the witness and the flaky seed are framed here,
            // on both trees, so that they stay findable at any zoom.
            for (const std::optional<long long> &marked : {row.witnessSeed, row.flakySeed}) {
                if (!marked)
                    continue;
                const auto at =
                    std::find(m_heat->seeds().begin(), m_heat->seeds().end(), uint32_t(*marked));
                if (at == m_heat->seeds().end())
                    continue;
                const int s = int(at - m_heat->seeds().begin());
                p.setPen(QPen(frame, 1, marked == row.witnessSeed ? Qt::SolidLine : Qt::DotLine));
                p.setBrush(Qt::NoBrush);
                for (core::Arm arm : {core::Arm::Base, core::Arm::Head})
                    p.drawRect(
                        QRect(lw + contentX(arm, s) - h - 1, y - 1, m_cell + 1, rowHeight() + 1));
            }
        }
        for (core::Arm arm : {core::Arm::Base, core::Arm::Head}) {
            if (tiny)
                break; // drawn from the image; the current row and cell are framed below
            const std::vector<MatrixHeat::Cell> &cells = row.cells(arm);
            // The seeds in view only.
            const int from = std::clamp((h - contentX(arm, 0)) / std::max(1, m_cell), 0, n);
            const int to =
                std::clamp((h + visibleW - contentX(arm, 0)) / std::max(1, m_cell) + 1, 0, n);
            for (int s = from; s < to && s < int(cells.size()); ++s) {
                const QRect r = QRect(lw + contentX(arm, s) - h, y, m_cell, rowHeight())
                                    .adjusted(0, 0, -inset, -inset);
                const MatrixHeat::Cell &c = cells[size_t(s)];
                const bool waiting = m_heat->running() && c.seen + c.errors < k;
                if (!row.collected(arm)) {
                    p.fillRect(r, pal.color(QPalette::Window));
                    if (counts) {
                        p.setPen(muted);
                        p.drawText(r, Qt::AlignCenter, QStringLiteral("–"));
                    }
                    continue;
                }
                if (waiting && c.seen == 0) {
                    p.fillRect(r, pal.color(QPalette::Base));
                    if (m_cell >= 6) {
                        p.setPen(QPen(muted, 1, Qt::DotLine));
                        p.drawRect(r.adjusted(0, 0, -1, -1));
                    }
                    continue;
                }
                const QColor fill = cellColour(c.fails, k, pal);
                p.fillRect(r, fill);
                if (c.errors > 0 && !waiting)
                    p.fillRect(r, QBrush(muted, Qt::BDiagPattern));
                const long long seed = (long long)m_heat->seeds()[size_t(s)];
                const bool witness = row.witnessSeed && *row.witnessSeed == seed;
                if (witness && row.triage == core::Triage::PatchBug) {
                    p.setPen(QPen(frame, m_cell >= 8 ? 2 : 1));
                    p.drawRect(r.adjusted(1, 1, -1, -1));
                    if (m_cell >= 8) {
                        QPainterPath corner;
                        const int t = std::max(4, m_cell / 3);
                        corner.moveTo(r.topLeft());
                        corner.lineTo(r.left() + t, r.top());
                        corner.lineTo(r.left(), r.top() + t);
                        corner.closeSubpath();
                        p.fillPath(corner, frame);
                    }
                } else if (witness || (row.flakySeed && *row.flakySeed == seed)) {
                    p.setPen(QPen(frame, 1, witness ? Qt::SolidLine : Qt::DashLine));
                    p.drawRect(r.adjusted(0, 0, -1, -1));
                }
                if (counts) {
                    p.setPen(inkOn(c.fails > 0 ? fill : neutral));
                    drawCount(r, c.fails);
                }
            }
        }
        if (index == m_current.row && m_current.seed >= 0) {
            const QRect r(lw + contentX(m_current.arm, m_current.seed) - h, y, m_cell, rowHeight());
            p.setPen(QPen(pal.color(QPalette::Highlight), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(1, 1, -1, -1));
        }
    }
    p.restore();
    Q_UNUSED(fm);
}

void HeatmapView::mousePressEvent(QMouseEvent *event)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    const QPoint pos = event->position().toPoint();
#else
    const QPoint pos = event->pos();
#endif
    const std::optional<Hit> hit = hitAt(pos);
    if (!hit || event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    setCurrent(*hit);
    if (hit->seed >= 0)
        Q_EMIT cellActivated(hit->row, hit->arm, hit->seed);
}

void HeatmapView::keyPressEvent(QKeyEvent *event)
{
    const std::vector<int> &shown = m_heat->shown();
    if (shown.empty() || m_heat->seeds().empty()) {
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    const auto at = std::find(shown.begin(), shown.end(), m_current.row);
    int position = at == shown.end() ? -1 : int(at - shown.begin());
    Hit next = m_current;
    const int n = int(m_heat->seeds().size());
    // Left/right walk the baseline's seeds, then the patched ones.
    int column =
        m_current.seed < 0 ? -1 : (m_current.arm == core::Arm::Base ? 0 : n) + m_current.seed;
    switch (event->key()) {
    case Qt::Key_Up:
        position = std::max(0, position - 1);
        break;
    case Qt::Key_Down:
        position = std::min(int(shown.size()) - 1, position + 1);
        break;
    case Qt::Key_Left:
        column = std::max(0, column - 1);
        break;
    case Qt::Key_Right:
        column = std::min(2 * n - 1, column + 1);
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (m_current.row >= 0 && m_current.seed >= 0)
            Q_EMIT cellActivated(m_current.row, m_current.arm, m_current.seed);
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    next.row = shown[size_t(std::max(0, position))];
    if (column >= 0) {
        next.arm = column < n ? core::Arm::Base : core::Arm::Head;
        next.seed = column % n;
    }
    setCurrent(next);
}

void HeatmapView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        if (event->angleDelta().y() > 0)
            zoomIn();
        else if (event->angleDelta().y() < 0)
            zoomOut();
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

bool HeatmapView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const std::optional<Hit> hit = hitAt(help->pos());
        if (hit)
            QToolTip::showText(help->globalPos(), toolTipFor(*hit), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

// ---- the legend -------------------------------------------------------------------------

HeatmapLegend::HeatmapLegend(MatrixHeat *heat, QWidget *parent) : QWidget(parent), m_heat(heat)
{
    setObjectName(QStringLiteral("heatmapLegend"));
    connect(m_heat, &MatrixHeat::changed, this, qOverload<>(&QWidget::update));
}

QSize HeatmapLegend::sizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    return QSize(fm.horizontalAdvance(QLatin1Char('x')) * 90, fm.height() + 8);
}

void HeatmapLegend::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette &pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int k = std::max(1, m_heat->replays() > 0 ? m_heat->replays() : 5);
    const int box = fm.height() - 2;
    const int y = (height() - box) / 2;
    int x = 2;
    p.setPen(pal.color(QPalette::WindowText));
    const QString lead = tr("fails out of %1:").arg(k);
    p.drawText(QRect(x, 0, fm.horizontalAdvance(lead) + 4, height()), Qt::AlignVCenter, lead);
    x += fm.horizontalAdvance(lead) + 8;
    // At most 6 steps: 0, then evenly up to K.
    std::vector<int> steps;
    const int count = std::min(k, 5);
    steps.push_back(0);
    for (int i = 1; i <= count; ++i)
        steps.push_back(int(std::lround(double(i) * k / count)));
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    for (int f : steps) {
        const QRect r(x, y, box + 6, box);
        const QColor fill = HeatmapView::cellColour(f, k, pal);
        p.fillRect(r, fill);
        p.setPen(inkOn(fill));
        p.drawText(r, Qt::AlignCenter, QString::number(f));
        x += r.width() + 2;
    }
    x += 12;
    auto swatch = [&](const QString &label, auto &&draw) {
        const QRect r(x, y, box, box);
        draw(r);
        x += box + 4;
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QRect(x, 0, fm.horizontalAdvance(label) + 4, height()), Qt::AlignVCenter, label);
        x += fm.horizontalAdvance(label) + 14;
    };
    const QColor muted = style::mutedText(pal);
    swatch(tr("no evidence"), [&](const QRect &r) {
        p.fillRect(r, HeatmapView::cellColour(0, k, pal));
        p.fillRect(r, QBrush(muted, Qt::BDiagPattern));
    });
    swatch(tr("waiting"), [&](const QRect &r) {
        p.fillRect(r, pal.color(QPalette::Base));
        p.setPen(QPen(muted, 1, Qt::DotLine));
        p.drawRect(r.adjusted(0, 0, -1, -1));
    });
    swatch(tr("not collected"), [&](const QRect &r) {
        p.fillRect(r, pal.color(QPalette::Window));
        p.setPen(muted);
        p.drawRect(r.adjusted(0, 0, -1, -1));
        p.drawText(r, Qt::AlignCenter, QStringLiteral("–"));
    });
    swatch(tr("PATCH_BUG witness"), [&](const QRect &r) {
        p.fillRect(r, HeatmapView::cellColour(k, k, pal));
        p.setPen(QPen(pal.color(QPalette::Text), 2));
        p.drawRect(r.adjusted(1, 1, -1, -1));
        QPainterPath corner;
        corner.moveTo(r.topLeft());
        corner.lineTo(r.left() + box / 3 + 1, r.top());
        corner.lineTo(r.left(), r.top() + box / 3 + 1);
        corner.closeSubpath();
        p.fillPath(corner, pal.color(QPalette::Text));
    });
}

} // namespace pw::gui
