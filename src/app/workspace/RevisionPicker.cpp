#include "workspace/RevisionPicker.h"

#include "workspace/RevisionChoiceModel.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCompleter>
#include <QLineEdit>
#include <QPainter>
#include <QRegularExpression>
#include <QScreen>
#include <QStyledItemDelegate>

namespace pw::gui {
namespace {

constexpr int kGap = 24;    // between label and detail
constexpr int kIndent = 10; // choices sit under their header
constexpr int kMaxPopupWidth = 760;

// Paints a header as a small bold title under a rule, and a choice as its label with the
// detail (short id · subject, author · age) right-aligned in the placeholder colour.
class RevisionItemDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        const QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
        painter->save();
        if (index.data(RevisionChoiceModel::IsHeaderRole).toBool()) {
            painter->setPen(opt.palette.color(QPalette::Mid));
            if (index.row() > 0)
                painter->drawLine(opt.rect.left() + 4, opt.rect.top() + 2, opt.rect.right() - 4,
                                  opt.rect.top() + 2);
            QFont font = opt.font;
            font.setBold(true);
            painter->setFont(font);
            painter->setPen(opt.palette.color(QPalette::PlaceholderText));
            painter->drawText(opt.rect.adjusted(6, 3, -6, 0), Qt::AlignLeft | Qt::AlignVCenter,
                              index.data(RevisionChoiceModel::TitleRole).toString());
            painter->restore();
            return;
        }

        const QString label = opt.text;
        const QString detail = index.data(RevisionChoiceModel::DetailRole).toString();
        opt.text.clear();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

        const bool selected = opt.state & QStyle::State_Selected;
        const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, opt.widget)
                               .adjusted(kIndent, 0, -4, 0);
        const QFontMetrics fm(opt.font);
        // Both in full when they fit; else the label keeps up to 55% and the detail is cut.
        const int labelNeed = fm.horizontalAdvance(label);
        const int detailNeed = detail.isEmpty() ? 0 : fm.horizontalAdvance(detail);
        int detailWidth = detailNeed;
        if (detailNeed > 0 && labelNeed + kGap + detailNeed > text.width()) {
            const int labelKeep = std::min(labelNeed, text.width() * 11 / 20);
            detailWidth = std::max(0, std::min(detailNeed, text.width() - labelKeep - kGap));
        }
        const int labelWidth = text.width() - (detailWidth ? detailWidth + kGap : 0);
        painter->setFont(opt.font);
        painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
        painter->drawText(
            QRect(text.left(), text.top(), labelWidth, text.height()),
            Qt::AlignLeft | Qt::AlignVCenter,
            labelNeed <= labelWidth ? label : fm.elidedText(label, Qt::ElideRight, labelWidth));
        if (detailWidth > 0) {
            painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText
                                                       : QPalette::PlaceholderText));
            painter->drawText(
                QRect(text.right() - detailWidth - 1, text.top(), detailWidth + 2, text.height()),
                Qt::AlignRight | Qt::AlignVCenter,
                detailWidth >= detailNeed ? detail
                                          : fm.elidedText(detail, Qt::ElideRight, detailWidth));
        }
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        const QFontMetrics fm(option.font);
        if (index.data(RevisionChoiceModel::IsHeaderRole).toBool()) {
            size.setWidth(
                fm.horizontalAdvance(index.data(RevisionChoiceModel::TitleRole).toString()) + 24);
            size.setHeight(std::max(size.height(), fm.height()) + 6);
            return size;
        }
        const QString detail = index.data(RevisionChoiceModel::DetailRole).toString();
        if (!detail.isEmpty())
            size.setWidth(size.width() + kIndent + kGap + fm.horizontalAdvance(detail));
        size.setHeight(std::max(size.height(), fm.height() + 6));
        return size;
    }
};

// Matches typed text anywhere in spec, label and detail ("fix" finds a commit by its
// subject, "v1" a tag) and completes to the spec.
class RevisionCompleter : public QCompleter
{
public:
    RevisionCompleter(QAbstractItemModel *model, QObject *parent) : QCompleter(model, parent)
    {
        setCompletionRole(RevisionChoiceModel::SearchRole);
        setCaseSensitivity(Qt::CaseInsensitive);
        setFilterMode(Qt::MatchContains);
        setCompletionMode(QCompleter::PopupCompletion);
        setMaxVisibleItems(12);
    }

    QString pathFromIndex(const QModelIndex &index) const override
    {
        return index.data(RevisionChoiceModel::SpecRole).toString();
    }
};

} // namespace

RevisionPicker::RevisionPicker(QWidget *parent)
    : QComboBox(parent), m_model(new RevisionChoiceModel(this))
{
    setEditable(true);
    setInsertPolicy(QComboBox::NoInsert);
    setModel(m_model);
    setItemDelegate(new RevisionItemDelegate(this));
    setMaxVisibleItems(20);
    // The box stays as wide as the layout gives it; the popup is as wide as its content.
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(18);

    auto *completer = new RevisionCompleter(m_model, this);
    completer->popup()->setItemDelegate(new RevisionItemDelegate(completer->popup()));
    setCompleter(completer);
    setDefaultSpec(QString());

    connect(this, qOverload<int>(&QComboBox::activated), this, &RevisionPicker::scheduleChosen);
    connect(lineEdit(), &QLineEdit::returnPressed, this, &RevisionPicker::scheduleChosen);
    connect(completer, qOverload<const QModelIndex &>(&QCompleter::activated), this,
            &RevisionPicker::scheduleChosen);
}

void RevisionPicker::setChoices(const std::vector<core::RevisionChoice> &choices)
{
    const QString keep = spec();
    m_model->setChoices(choices);
    setSpec(keep);
    fitPopupWidth();
}

QString RevisionPicker::spec() const
{
    return currentText().trimmed();
}

void RevisionPicker::setSpec(const QString &spec)
{
    const QString trimmed = spec.trimmed();
    setCurrentIndex(m_model->rowOfSpec(trimmed));
    if (currentText() != trimmed)
        setEditText(trimmed);
}

void RevisionPicker::setDefaultSpec(const QString &spec)
{
    const QString described = describeSpec(spec);
    lineEdit()->setPlaceholderText(described.isEmpty() ? tr("default")
                                                       : tr("default: %1").arg(described));
}

QString RevisionPicker::describeSpec(const QString &spec)
{
    static const QRegularExpression mergeBase(
        QStringLiteral("^merge-base\\(\\s*([^,]+?)\\s*,\\s*([^)]+?)\\s*\\)$"));
    const QRegularExpressionMatch m = mergeBase.match(spec.trimmed());
    if (m.hasMatch())
        return tr("merge-base with %1").arg(m.captured(1));
    if (spec == QLatin1String("WORKTREE"))
        return tr("WORKTREE (uncommitted changes)");
    return spec.trimmed();
}

void RevisionPicker::scheduleChosen()
{
    // Enter on a matching item makes QComboBox emit activated() and the line edit emit
    // returnPressed(); a completion adds its own activated(). One action, one signal.
    if (m_chosenPending)
        return;
    m_chosenPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_chosenPending = false;
            Q_EMIT specChosen(spec());
        },
        Qt::QueuedConnection);
}

void RevisionPicker::fitPopupWidth()
{
    const QAbstractItemView *list = view();
    int width = 0;
    for (int row = 0; row < m_model->rowCount(); ++row)
        width = std::max(width, list->sizeHintForIndex(m_model->index(row, 0)).width());
    width += list->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2 * list->frameWidth() + 8;
    m_popupWidth = std::min(width, kMaxPopupWidth);
}

void RevisionPicker::showPopup()
{
    QComboBox::showPopup();
    // QComboBox makes the popup as wide as the box; subjects and ages want more.
    QWidget *popup = view()->window();
    if (popup == window() || popup->width() >= m_popupWidth)
        return;
    QRect geometry = popup->geometry();
    geometry.setWidth(m_popupWidth);
    if (const QScreen *screen = this->screen()) {
        const QRect available = screen->availableGeometry();
        if (geometry.right() > available.right())
            geometry.moveRight(available.right());
        if (geometry.left() < available.left())
            geometry.moveLeft(available.left());
    }
    popup->setGeometry(geometry);
}

} // namespace pw::gui
