#include "EvidencePanel.h"

#include "EvidenceProxyModel.h"
#include "EvidenceRoles.h"
#include "SeverityStyle.h"

#include <QAction>
#include <QClipboard>
#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace pw::gui {

namespace {

constexpr int kMaxFittedColumnWidth = 420;
constexpr int kMinFittedColumnWidth = 90;
constexpr int kMinShrunkColumnWidth = 60;
constexpr int kFitPrecisionRows = 200; // rows sampled when fitting columns (5,000-row logs)
constexpr int kFitGrowingRows = 50;    // a growing model is refitted up to this many rows

// Identifiers (paths, test ids, codes) keep both ends when elided; prose keeps its start.
class ElidingDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode =
            option->text.contains(QLatin1Char(' ')) ? Qt::ElideRight : Qt::ElideMiddle;
    }
};

QString cellText(const QVariant &v)
{
    QString s = v.toString();
    s.replace(QLatin1Char('\t'), QLatin1Char(' '));
    s.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return s;
}

QString summaryStyle(std::optional<core::Severity> severity)
{
    const QString common = QStringLiteral("QLabel#summary { padding: 4px 8px; font-weight: bold;");
    if (!severity || *severity == core::Severity::Info)
        return common + QStringLiteral(" }");
    const auto tone = severity_style::toneForSeverity(severity);
    return common + QStringLiteral(" color: %1; background: %2; border-left: 4px solid %1; }")
                        .arg(severity_style::foreground(tone).name(),
                             severity_style::background(tone).name());
}

} // namespace

EvidencePanel::EvidencePanel(QWidget *parent)
    : QWidget(parent), m_proxy(new EvidenceProxyModel(this)), m_summary(new QLabel(this)),
      m_filter(new QLineEdit(this)), m_fileChip(new QToolButton(this)),
      m_followButton(new QToolButton(this)), m_rowCount(new QLabel(this)),
      m_view(new QTreeView(this)), m_copyAction(new QAction(tr("&Copy"), this))
{
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setStyleSheet(summaryStyle(std::nullopt));
    m_summary->hide();

    m_filter->setObjectName(QStringLiteral("filter"));
    m_filter->setPlaceholderText(tr("Filter…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(tr("Show rows containing this text in any column (Ctrl+F)"));

    m_fileChip->setObjectName(QStringLiteral("fileFilterChip"));
    m_fileChip->setToolTip(tr("Show the rows of every file"));
    m_fileChip->setCursor(Qt::PointingHandCursor);
    m_fileChip->setStyleSheet(QStringLiteral(
        "QToolButton#fileFilterChip { border: 1px solid palette(mid); border-radius: 9px;"
        " padding: 1px 8px; background: palette(alternate-base); }"));
    m_fileChip->hide();

    m_followButton->setObjectName(QStringLiteral("followFileButton"));
    m_followButton->setText(tr("only current file"));
    m_followButton->setToolTip(
        tr("Show only the rows of the file shown in the diff, and follow it"));
    m_followButton->setAutoRaise(true);
    m_followButton->hide();

    m_rowCount->setObjectName(QStringLiteral("rowCount"));
    // Muted like a placeholder; Qt 5's palette leaves PlaceholderText unset, so take the
    // disabled text colour, which both versions define.
    QPalette muted = m_rowCount->palette();
    muted.setColor(QPalette::WindowText, muted.color(QPalette::Disabled, QPalette::WindowText));
    m_rowCount->setPalette(muted);

    m_view->setObjectName(QStringLiteral("view"));
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setItemDelegate(new ElidingDelegate(m_view));
    m_view->header()->setStretchLastSection(true);
    // The stretched last section never gets narrower than this; fitColumns() counts on it.
    m_view->header()->setDefaultSectionSize(kMinShrunkColumnWidth);
    m_view->header()->setResizeContentsPrecision(kFitPrecisionRows);
    m_view->header()->setSortIndicator(-1, Qt::AscendingOrder);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_fileChip);
    bar->addWidget(m_followButton);
    bar->addWidget(m_rowCount);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(3);
    layout->addWidget(m_summary);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    // Moves of the current row caused by the model (reset, filter, sort, rows dropped) are
    // not the user's: these connections come before the view's, so they run first.
    connect(m_proxy, &QAbstractItemModel::modelAboutToBeReset, this, [this] { beginQuiet(); });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
        endQuiet();
        m_userSizedColumns = false;
        m_fittedWithRows = false;
        fitColumns();
        // This runs before the view has laid out the new rows (its connection comes
        // later), so fit once more when it has.
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (!m_userSizedColumns)
                    fitColumns();
            },
            Qt::QueuedConnection);
    });
    connect(m_proxy, &QAbstractItemModel::layoutAboutToBeChanged, this, [this] { beginQuiet(); });
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, [this] { endQuiet(); });
    connect(m_proxy, &QAbstractItemModel::rowsAboutToBeRemoved, this, [this] { beginQuiet(); });
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, [this] { endQuiet(); });
    connect(m_proxy, &QAbstractItemModel::rowsAboutToBeMoved, this, [this] { beginQuiet(); });
    connect(m_proxy, &QAbstractItemModel::rowsMoved, this, [this] { endQuiet(); });
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex &, int first, int last) {
                // Models that grow a row at a time (the log, the Runs panel) refit while
                // their first rows arrive: the first row alone may leave a column empty.
                // Not while a filter brings rows back, once the columns were fitted to
                // rows: a column that changed width with every file would jump.
                const int rows = m_proxy->rowCount();
                if ((m_refiltering == 0 || !m_fittedWithRows) &&
                    (rows == last - first + 1 || (!m_userSizedColumns && rows <= kFitGrowingRows)))
                    fitColumns();
            });
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_proxy, signal, this, [this] { updateRowCount(); });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] { updateRowCount(); });
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, [this] { updateRowCount(); });

    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->viewport()->installEventFilter(this);
    connect(m_view->header(), &QHeaderView::sortIndicatorChanged, this, [this] {
        if (!m_userSizedColumns)
            fitColumns(); // room for the arrow
    });
    connect(m_view->header(), &QHeaderView::sectionResized, this, [this](int logical) {
        // The last section stretches with the view; only the others are sized by hand.
        if (!m_fitting && logical + 1 < m_proxy->columnCount())
            m_userSizedColumns = true;
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { currentRowChanged(current); });
    connect(m_view, &QAbstractItemView::activated, this,
            [this](const QModelIndex &index) { emitActivated(index); });

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        ++m_refiltering;
        m_proxy->setFilterText(text);
        --m_refiltering;
        updateRowCount();
    });
    connect(m_filter, &QLineEdit::returnPressed, this, [this] {
        m_view->setFocus(Qt::ShortcutFocusReason);
        if (!m_view->currentIndex().isValid() && m_proxy->rowCount() > 0)
            m_view->setCurrentIndex(m_proxy->index(0, 0));
    });
    connect(m_fileChip, &QToolButton::clicked, this, [this] {
        setFollowsFile(false); // shows every row
        Q_EMIT followsFileChanged(false);
    });
    connect(m_followButton, &QToolButton::clicked, this, [this] {
        setFollowsFile(true);
        Q_EMIT followsFileChanged(true);
    });

    m_copyAction->setObjectName(QStringLiteral("copyAction"));
    m_copyAction->setShortcut(QKeySequence::Copy);
    m_copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_copyAction, &QAction::triggered, this, [this] { copy(); });
    m_view->addAction(m_copyAction);
    auto *selectAll = new QAction(tr("Select &All"), this);
    selectAll->setShortcut(QKeySequence::SelectAll);
    selectAll->setShortcutContext(Qt::WidgetShortcut);
    connect(selectAll, &QAction::triggered, m_view, [this] { m_view->selectAll(); });
    m_view->addAction(selectAll);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

    auto *find = new QAction(tr("&Find"), this);
    find->setObjectName(QStringLiteral("findAction"));
    find->setShortcut(QKeySequence::Find);
    find->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QAction::triggered, this, [this] {
        m_filter->setFocus(Qt::ShortcutFocusReason);
        m_filter->selectAll();
    });
    addAction(find);

    updateRowCount();
}

EvidencePanel::~EvidencePanel() = default;

void EvidencePanel::setModel(QAbstractItemModel *source)
{
    beginQuiet();
    m_proxy->setSourceModel(source);
    endQuiet();
    sortBy(-1);
    m_userSizedColumns = false;
    fitColumns();
    updateRowCount();
}

QAbstractItemModel *EvidencePanel::model() const
{
    return m_proxy->sourceModel();
}

void EvidencePanel::setSummary(const QString &text)
{
    m_summary->setText(text);
    m_summary->setVisible(!text.isEmpty());
}

void EvidencePanel::setSummarySeverity(std::optional<core::Severity> severity)
{
    m_summary->setStyleSheet(summaryStyle(severity));
}

QString EvidencePanel::summary() const
{
    return m_summary->text();
}

void EvidencePanel::setFileFilter(const QString &path)
{
    if (path == m_proxy->fileFilter())
        return;
    beginQuiet();
    ++m_refiltering;
    m_proxy->setFileFilter(path);
    --m_refiltering;
    endQuiet();
    const QString oldPath = m_proxy->renamedFrom(path);
    m_fileChip->setText(oldPath.isEmpty() ? tr("only %1 ✕").arg(path)
                                          : tr("only %1 (renamed from %2) ✕").arg(path, oldPath));
    m_fileChip->setVisible(!path.isEmpty());
    updateRowCount();
    Q_EMIT fileFilterChanged(path);
}

void EvidencePanel::setCurrentFile(const QString &path)
{
    m_currentFile = path;
    if (m_followsFile)
        setFileFilter(path);
    m_followButton->setVisible(!m_followsFile && !m_currentFile.isEmpty());
}

void EvidencePanel::setFollowsFile(bool follow)
{
    m_followsFile = follow;
    setFileFilter(follow ? m_currentFile : QString());
    m_followButton->setVisible(!m_followsFile && !m_currentFile.isEmpty());
}

QString EvidencePanel::fileFilter() const
{
    return m_proxy->fileFilter();
}

void EvidencePanel::setFilterText(const QString &text)
{
    m_filter->setText(text); // textChanged applies it
}

void EvidencePanel::setPrimaryColumn(int column)
{
    m_primaryColumn = column;
    fitColumns();
}

void EvidencePanel::sortBy(int column, Qt::SortOrder order)
{
    beginQuiet();
    m_view->sortByColumn(column, order);
    endQuiet();
}

bool EvidencePanel::selectRow(const QString &path, int line)
{
    QModelIndex match;
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        const QModelIndex index = m_proxy->index(row, 0);
        if (index.data(PathRole).toString() != path)
            continue;
        if (index.data(LineRole).toInt() == line) {
            match = index;
            break;
        }
        if (!match.isValid())
            match = index;
    }
    return selectQuietly(match);
}

bool EvidencePanel::selectSourceRow(int sourceRow)
{
    if (!m_proxy->sourceModel())
        return false;
    return selectQuietly(m_proxy->mapFromSource(m_proxy->sourceModel()->index(sourceRow, 0)));
}

bool EvidencePanel::selectQuietly(const QModelIndex &match)
{
    if (!match.isValid())
        return false;
    beginQuiet();
    m_view->selectionModel()->setCurrentIndex(match, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    endQuiet();
    m_view->scrollTo(match);
    return true;
}

int EvidencePanel::currentSourceRow() const
{
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
    return current.isValid() ? current.row() : -1;
}

QString EvidencePanel::selectedRowsAsText() const
{
    QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty() && m_view->currentIndex().isValid())
        rows << m_view->currentIndex().siblingAtColumn(0);
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });

    const QHeaderView *header = m_view->header();
    QList<int> columns;
    for (int visual = 0; visual < header->count(); ++visual) {
        const int logical = header->logicalIndex(visual);
        if (!header->isSectionHidden(logical))
            columns << logical;
    }
    QStringList lines;
    QStringList cells;
    for (int column : columns)
        cells << cellText(m_proxy->headerData(column, Qt::Horizontal));
    lines << cells.join(QLatin1Char('\t'));
    for (const QModelIndex &row : rows) {
        cells.clear();
        for (int column : columns)
            cells << cellText(row.siblingAtColumn(column).data());
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void EvidencePanel::copy()
{
    if (m_view->selectionModel()->selectedRows().isEmpty() && !m_view->currentIndex().isValid())
        return;
    QGuiApplication::clipboard()->setText(selectedRowsAsText());
}

void EvidencePanel::currentRowChanged(const QModelIndex &current)
{
    if (m_quiet == 0)
        emitActivated(current);
}

void EvidencePanel::emitActivated(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    Q_EMIT rowActivated(index.data(PathRole).toString(), index.data(LineRole).toInt(),
                        index.data(TestRole).toString());
}

void EvidencePanel::updateRowCount()
{
    const int shown = m_proxy->rowCount();
    const int total = m_proxy->sourceModel() ? m_proxy->sourceModel()->rowCount() : 0;
    m_rowCount->setText(shown == total ? (total == 1 ? tr("1 row") : tr("%1 rows").arg(total))
                                       : tr("%1 of %2 rows").arg(shown).arg(total));
}

void EvidencePanel::fitColumns()
{
    const int columns = m_proxy->columnCount();
    if (columns == 0 || m_fitting)
        return;
    const QAbstractItemView *view = m_view; // sizeHintForColumn is public there
    const QHeaderView *header = m_view->header();
    // The header's own hint reserves room for a sort arrow in every section, which makes
    // short numeric columns twice as wide as their numbers; the label itself is enough.
    const int headerMargin = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin) + 8;
    QList<int> widths;
    for (int column = 0; column < columns; ++column) {
        const QString label = m_proxy->headerData(column, Qt::Horizontal).toString();
        int labelWidth = header->fontMetrics().size(0, label).width() + headerMargin;
        if (column == header->sortIndicatorSection())
            labelWidth += header->height(); // the arrow
        const int natural = std::max(view->sizeHintForColumn(column), labelWidth);
        widths << std::min(natural, kMaxFittedColumnWidth);
    }
    const int available = m_view->viewport()->width();
    if (m_view->isVisible() && available > kMinFittedColumnWidth * 2)
        shareWidth(widths, available, m_primaryColumn);

    m_fitting = true;
    for (int column = 0; column + 1 < columns; ++column)
        m_view->setColumnWidth(column, widths.at(column));
    m_fitting = false;
    m_fittedWithRows = m_fittedWithRows || m_proxy->rowCount() > 0;
}

void EvidencePanel::shareWidth(QList<int> &widths, int available, int primary)
{
    const int last = int(widths.size()) - 1;
    // The last section stretches into whatever is left; it only needs a floor.
    widths[last] =
        std::max(std::min(widths.at(last), kMinFittedColumnWidth), kMinShrunkColumnWidth);
    const QList<int> natural = widths;
    // Water-filling: every column gets its natural width up to a common cap, the primary
    // column (test id, path) up to twice the cap; the largest cap that fits wins.
    auto fill = [&](int cap) {
        int sum = 0;
        for (int i = 0; i <= last; ++i) {
            const int limit = i == last ? natural.at(i) : (i == primary ? 2 * cap : cap);
            widths[i] = std::min(natural.at(i), std::max(limit, kMinShrunkColumnWidth));
            sum += widths.at(i);
        }
        return sum;
    };
    int cap = 0;
    for (int w : natural)
        cap = std::max(cap, w);
    while (fill(cap) > available && cap > kMinShrunkColumnWidth)
        cap -= 2;
}

bool EvidencePanel::eventFilter(QObject *watched, QEvent *event)
{
    // Fit the columns to the width the view really has, until a reviewer sizes one by hand.
    if (watched == m_view->viewport() && event->type() == QEvent::Resize && !m_userSizedColumns)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

} // namespace pw::gui
