#include "CensusModel.h"

#include "panels/EvidenceRoles.h"
#include "panels/PanelText.h"

namespace pw::gui {

namespace {

QString side(bool present, bool skipped, const std::optional<core::Outcome> &outcome)
{
    if (!present)
        return QStringLiteral("—");
    if (outcome)
        return QString::fromLatin1(core::outcomeName(*outcome));
    return skipped ? QStringLiteral("skipped") : QStringLiteral("collected");
}

core::Severity severityOf(const core::CensusRow &row)
{
    if (row.code.empty() || row.satisfiedBy)
        return core::Severity::Info;
    return row.severity;
}

} // namespace

CensusModel::CensusModel(QObject *parent) : QAbstractTableModel(parent) {}

void CensusModel::setReport(const core::CensusReport &report)
{
    beginResetModel();
    m_report = report;
    m_hasReport = true;
    m_rows.clear();
    for (const core::CensusRow &row : m_report.rows) {
        if (row.change != "kept")
            m_rows.push_back(&row);
    }
    endResetModel();
}

void CensusModel::clear()
{
    beginResetModel();
    m_report = {};
    m_rows.clear();
    m_hasReport = false;
    endResetModel();
}

QString CensusModel::summary() const
{
    if (!m_hasReport)
        return tr("No census yet: Runs ▸ Run census (Ctrl+Alt+C) collects both trees.");
    const core::CensusReport &r = m_report;
    if (!r.harnessError.empty())
        return tr("No census: %1").arg(qs(r.harnessError));
    QString text = tr("base %1 · head %2 collected · %3 removed · %4 added · %5 narrowed · "
                      "%6 skip added · %7 renamed · assertion density %8 → %9")
                       .arg(r.baseSummary.collected)
                       .arg(r.headSummary.collected)
                       .arg(r.count("removed") + r.count("collect-error"))
                       .arg(r.count("added"))
                       .arg(r.count("narrowed"))
                       .arg(r.count("skip-added"))
                       .arg(r.count("renamed"))
                       .arg(r.baseSummary.assertionDensity(), 0, 'f', 2)
                       .arg(r.headSummary.assertionDensity(), 0, 'f', 2);
    if (r.unstable)
        text += tr(" · UNSTABLE baseline (%1)").arg(qs(r.unstableDetail));
    if (r.interrupted)
        text += tr(" · interrupted");
    return text + QStringLiteral(" · ") + QString::fromLatin1(core::verdictName(r.verdict()));
}

std::optional<core::Severity> CensusModel::summarySeverity() const
{
    if (!m_hasReport)
        return std::nullopt;
    if (!m_report.harnessError.empty())
        return core::Severity::Review;
    switch (m_report.verdict()) {
    case core::Verdict::Block:
        return core::Severity::Block;
    case core::Verdict::Review:
        return core::Severity::Review;
    case core::Verdict::Pass:
        return core::Severity::Info;
    }
    return core::Severity::Info;
}

int CensusModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CensusModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CensusModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const core::CensusRow &row = *m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NodeColumn:
            return qs(row.nodeId);
        case ChangeColumn:
            return qs(row.change);
        case BaseColumn:
            return side(row.atBase, row.skippedBase, row.outcomeBase);
        case HeadColumn:
            return side(row.atHead, row.skippedHead, row.outcomeHead);
        case CodeColumn:
            return qs(row.code);
        case DetailColumn:
            return qs(row.detail);
        case SatisfiedColumn:
            return row.satisfiedBy ? qs(*row.satisfiedBy) : QString();
        }
        return {};
    case Qt::ToolTipRole:
        return QString(qs(row.nodeId) + QLatin1Char('\n') + qs(row.detail));
    case PathRole:
        return qs(core::fileOf(row.nodeId));
    case TestRole:
        return qs(core::functionIdOf(row.nodeId));
    case CodeRole:
        return qs(row.code);
    case SeverityRole:
        return int(severityOf(row));
    case SortRole:
        if (index.column() == CodeColumn)
            return int(severityOf(row));
        return data(index, Qt::DisplayRole);
    }
    return {};
}

QVariant CensusModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NodeColumn:
        return tr("Node");
    case ChangeColumn:
        return tr("Change");
    case BaseColumn:
        return tr("Base");
    case HeadColumn:
        return tr("Head");
    case CodeColumn:
        return tr("Finding");
    case DetailColumn:
        return tr("Why");
    case SatisfiedColumn:
        return tr("Answered by");
    }
    return {};
}

} // namespace pw::gui
