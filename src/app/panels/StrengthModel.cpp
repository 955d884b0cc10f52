#include "StrengthModel.h"

#include "EvidenceRoles.h"
#include "PanelText.h"
#include "SeverityStyle.h"

#include <QFont>
#include <QStringList>
#include <cmath>
#include <limits>

namespace pw::gui {

namespace style = severity_style;

namespace {

const QString kArrow = QStringLiteral("→");
const QString kMissing = QStringLiteral("—");

using Metric = int core::StrengthMetrics::*;

Metric metricOf(int column)
{
    switch (column) {
    case StrengthModel::AssertionsColumn:
        return &core::StrengthMetrics::assertions;
    case StrengthModel::ComparisonsColumn:
        return &core::StrengthMetrics::comparisons;
    case StrengthModel::TruthyColumn:
        return &core::StrengthMetrics::truthyOnly;
    case StrengthModel::BroadRaisesColumn:
        return &core::StrengthMetrics::broadRaises;
    case StrengthModel::SkipMarkersColumn:
        return &core::StrengthMetrics::skipMarkers;
    }
    return nullptr;
}

// The metric column a flag speaks about, or -1 (NEW:test, BLOCKER:deleted: the whole row).
int columnOfFlag(const std::string &flag)
{
    if (flag == "WEAKER:assertions")
        return StrengthModel::AssertionsColumn;
    if (flag == "WEAKER:comparisons" || flag == "STRONGER:comparisons")
        return StrengthModel::ComparisonsColumn;
    if (flag == "WEAKER:truthiness")
        return StrengthModel::TruthyColumn;
    if (flag == "WEAKER:tolerance")
        return StrengthModel::ToleranceColumn;
    if (flag == "WEAKER:raises-scope")
        return StrengthModel::BroadRaisesColumn;
    if (flag == "BLOCKER:marker")
        return StrengthModel::SkipMarkersColumn;
    return -1;
}

style::Tone toneOfFlag(const std::string &flag)
{
    if (flag.starts_with("BLOCKER:"))
        return style::Tone::Block;
    if (flag.starts_with("WEAKER:"))
        return style::Tone::Review;
    if (flag.starts_with("STRONGER:"))
        return style::Tone::Good;
    return style::Tone::Neutral;
}

style::Tone cellTone(const core::StrengthRow &r, int column)
{
    for (const std::string &flag : r.flags) {
        if (columnOfFlag(flag) == column)
            return toneOfFlag(flag);
    }
    return style::Tone::Neutral;
}

QString change(const QString &base, const QString &head)
{
    return base == head ? head : QString(base + kArrow + head);
}

double toleranceKey(const std::optional<core::StrengthMetrics> &m)
{
    if (!m || !m->widestTolerance)
        return -1.0; // none sorts below any tolerance
    return std::isinf(*m->widestTolerance) ? std::numeric_limits<double>::max()
                                           : *m->widestTolerance;
}

} // namespace

QString StrengthModel::formatTolerance(const std::optional<double> &value)
{
    if (!value)
        return tr("none");
    if (std::isinf(*value))
        return tr("computed");
    return QString::number(*value, 'g', 6);
}

void StrengthModel::setReport(const core::GateReport &report)
{
    beginResetModel();
    m_strength = report.strength;
    endResetModel();
}

QString StrengthModel::summary() const
{
    const int n = int(m_strength.tests.size());
    if (n == 0)
        return tr("Oracle strength: no changed tests");
    int blockers = 0, weaker = 0, stronger = 0, fresh = 0;
    for (const core::StrengthRow &r : m_strength.tests) {
        for (const std::string &flag : r.flags) {
            if (flag.starts_with("BLOCKER:"))
                ++blockers;
            else if (flag.starts_with("WEAKER:"))
                ++weaker;
            else if (flag.starts_with("STRONGER:"))
                ++stronger;
            else if (flag == "NEW:test")
                ++fresh;
        }
    }
    QStringList parts;
    if (blockers)
        parts << tr("%1 blocker").arg(blockers);
    if (weaker)
        parts << tr("%1 weaker").arg(weaker);
    if (stronger)
        parts << tr("%1 stronger").arg(stronger);
    if (fresh)
        parts << tr("%1 new").arg(fresh);
    const QString action =
        m_strength.action == core::Severity::Info
            ? QStringLiteral("PASS")
            : QString::fromLatin1(core::severityName(m_strength.action)).toUpper();
    QString text = (n == 1 ? tr("Oracle strength: 1 test, action %1").arg(action)
                           : tr("Oracle strength: %1 tests, action %2").arg(n).arg(action));
    if (!parts.isEmpty())
        text += QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
    return text;
}

int StrengthModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_strength.tests.size());
}

int StrengthModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString StrengthModel::text(const core::StrengthRow &r, int column) const
{
    switch (column) {
    case TestColumn:
        return qs(r.test);
    case FlagsColumn: {
        QStringList flags;
        for (const std::string &f : r.flags)
            flags << qs(f);
        return flags.isEmpty() ? kMissing : flags.join(QStringLiteral(", "));
    }
    case ToleranceColumn: {
        const QString base = r.base ? formatTolerance(r.base->widestTolerance) : kMissing;
        const QString head = r.head ? formatTolerance(r.head->widestTolerance) : kMissing;
        return change(base, head);
    }
    case ActionColumn:
        return r.action == core::Severity::Info ? tr("pass")
                                                : QString::fromLatin1(core::severityName(r.action));
    }
    if (const Metric m = metricOf(column)) {
        const QString base = r.base ? QString::number((*r.base).*m) : kMissing;
        const QString head = r.head ? QString::number((*r.head).*m) : kMissing;
        return change(base, head);
    }
    return {};
}

QVariant StrengthModel::sortKey(const core::StrengthRow &r, int column) const
{
    switch (column) {
    case ToleranceColumn:
        return toleranceKey(r.head ? r.head : r.base);
    case ActionColumn:
        return int(r.action);
    case FlagsColumn:
        return text(r, column);
    }
    if (const Metric m = metricOf(column)) {
        // By the change, so the largest losses gather at one end.
        const int base = r.base ? (*r.base).*m : 0;
        const int head = r.head ? (*r.head).*m : 0;
        return head - base;
    }
    return text(r, column);
}

QVariant StrengthModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const core::StrengthRow &r = m_strength.tests[size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return text(r, column);
    case Qt::ToolTipRole:
        if (column == TestColumn || column == FlagsColumn || column == ActionColumn)
            return text(r, column);
        return tr("base → head: %1").arg(text(r, column));
    case Qt::ForegroundRole:
        if (column == ActionColumn)
            return style::foregroundData(style::toneForSeverity(r.action));
        if (column != TestColumn && column != FlagsColumn)
            return style::textData(cellTone(r, column));
        break;
    case Qt::BackgroundRole:
        if (column == ActionColumn)
            return style::backgroundData(style::toneForSeverity(r.action));
        break;
    case Qt::FontRole:
        if ((column == ActionColumn && r.action == core::Severity::Block) ||
            (column != TestColumn && column != FlagsColumn &&
             cellTone(r, column) != style::Tone::Neutral)) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    case Qt::TextAlignmentRole:
        if (column != TestColumn && column != FlagsColumn && column != ActionColumn)
            return int(Qt::AlignCenter);
        break;
    case PathRole:
        return qs(r.path);
    case LineRole:
        return r.line;
    case TestRole:
        return qs(r.test);
    case SeverityRole:
        return int(r.action);
    case SortRole:
        return sortKey(r, column);
    }
    return {};
}

QString StrengthModel::metricName(int column)
{
    switch (column) {
    case AssertionsColumn:
        return tr("Assertions");
    case ComparisonsColumn:
        return tr("Comparisons");
    case TruthyColumn:
        return tr("Truthy-only assertions");
    case ToleranceColumn:
        return tr("Widest relative tolerance");
    case BroadRaisesColumn:
        return tr("Broad raises (Exception, BaseException)");
    case SkipMarkersColumn:
        return tr("Skip/xfail markers");
    }
    return {};
}

QVariant StrengthModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section != TestColumn && section != FlagsColumn &&
        section != ActionColumn)
        return tr("%1, base → head (one number when unchanged)").arg(metricName(section));
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TestColumn:
        return tr("Test");
    case FlagsColumn:
        return tr("Flags");
    case AssertionsColumn:
        return tr("Asserts");
    case ComparisonsColumn:
        return tr("Compares");
    case TruthyColumn:
        return tr("Truthy\nonly");
    case ToleranceColumn:
        return tr("Widest\ntolerance");
    case BroadRaisesColumn:
        return tr("Broad\nraises");
    case SkipMarkersColumn:
        return tr("Skip\nmarkers");
    case ActionColumn:
        return tr("Action");
    }
    return {};
}

} // namespace pw::gui
