#include "LatitudeModel.h"

#include "EvidenceRoles.h"
#include "PanelText.h"
#include "SeverityStyle.h"
#include "audit/LatitudeScorer.h"

#include <QFont>
#include <QStringList>

namespace pw::gui {

namespace style = severity_style;

namespace {

QString joinedSignals(const std::vector<std::string> &signalList)
{
    QStringList parts;
    for (const std::string &s : signalList)
        parts << qs(s);
    return parts.join(QStringLiteral("; "));
}

} // namespace

void LatitudeModel::setReport(const core::GateReport &report)
{
    beginResetModel();
    m_latitude = report.latitude;
    endResetModel();
}

QString LatitudeModel::summary() const
{
    // A hand-made or older report may lack the sentence; the scorer owns its wording.
    const std::string policy =
        m_latitude.policy.empty()
            ? core::LatitudeScorer::policy(m_latitude.total, m_latitude.threshold)
            : m_latitude.policy;
    return tr("Patch latitude %1 (threshold %2): %3")
        .arg(m_latitude.total)
        .arg(m_latitude.threshold)
        .arg(qs(policy));
}

core::Severity LatitudeModel::summarySeverity() const
{
    return core::LatitudeScorer::severity(m_latitude.total, m_latitude.threshold);
}

core::Severity LatitudeModel::severity(const core::LatitudeTestScore &t) const
{
    // Same rule as the LATITUDE findings: every test that widened shares the patch's fate.
    if (t.score <= 0)
        return core::Severity::Info;
    return core::LatitudeScorer::severity(m_latitude.total, m_latitude.threshold);
}

double LatitudeModel::share(const core::LatitudeTestScore &t) const
{
    return m_latitude.total > 0 && t.score > 0 ? double(t.score) / m_latitude.total : 0.0;
}

int LatitudeModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_latitude.tests.size());
}

int LatitudeModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString LatitudeModel::text(const core::LatitudeTestScore &t, int column) const
{
    switch (column) {
    case TestColumn:
        return qs(t.test);
    case ScoreColumn:
        return t.score > 0 ? QString(QLatin1Char('+') + QString::number(t.score))
                           : QString::number(t.score);
    case SignalsColumn:
        return t.signals.empty() ? tr("unchanged or stricter") : joinedSignals(t.signals);
    case ShareColumn:
        return t.score > 0 ? QStringLiteral("%1%").arg(qRound(share(t) * 100))
                           : QStringLiteral("—");
    }
    return {};
}

QVariant LatitudeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const core::LatitudeTestScore &t = m_latitude.tests[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return text(t, index.column());
    case Qt::ToolTipRole:
        switch (index.column()) {
        case ScoreColumn:
        case ShareColumn:
            return tr("+%1 of the patch total %2 (threshold %3)")
                .arg(t.score)
                .arg(m_latitude.total)
                .arg(m_latitude.threshold);
        default:
            return text(t, index.column());
        }
    case Qt::ForegroundRole:
        if (index.column() == ScoreColumn)
            return style::foregroundData(style::toneForSeverity(severity(t)));
        if (index.column() == SignalsColumn && t.signals.empty())
            return QVariant(); // the palette's text; "unchanged" is the good case
        break;
    case Qt::BackgroundRole:
        if (index.column() == ScoreColumn)
            return style::backgroundData(style::toneForSeverity(severity(t)));
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == ScoreColumn || index.column() == ShareColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::FontRole:
        if (index.column() == ScoreColumn && severity(t) == core::Severity::Block) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    case PathRole:
        return qs(t.path);
    case LineRole:
        return t.line;
    case TestRole:
        return qs(t.test);
    case SeverityRole:
        return int(severity(t));
    case SortRole:
        switch (index.column()) {
        case ScoreColumn:
            return t.score;
        case ShareColumn:
            return share(t);
        case SignalsColumn:
            return joinedSignals(t.signals);
        default:
            return text(t, index.column());
        }
    }
    return {};
}

QVariant LatitudeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole && (section == ScoreColumn || section == ShareColumn))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TestColumn:
        return tr("Test");
    case ScoreColumn:
        return tr("Score");
    case SignalsColumn:
        return tr("Signals");
    case ShareColumn:
        return tr("Policy share");
    }
    return {};
}

} // namespace pw::gui
