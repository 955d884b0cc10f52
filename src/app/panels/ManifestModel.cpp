#include "ManifestModel.h"

#include "EvidenceRoles.h"
#include "PanelText.h"
#include "SeverityStyle.h"

#include <QFont>

namespace pw::gui {

namespace style = severity_style;

bool ManifestModel::accepts(const core::Finding &f)
{
    return f.gate == "manifest" || f.gate == "fixture" || f.gate == "conftest" ||
           f.gate == "ledger" || f.code == "PARSE_ERROR";
}

void ManifestModel::setReport(const core::GateReport &report)
{
    beginResetModel();
    m_findings.clear();
    for (const core::Finding &f : report.findings) {
        if (accepts(f))
            m_findings.push_back(f);
    }
    endResetModel();
}

QString ManifestModel::summary() const
{
    if (m_findings.empty())
        return tr("Manifest, fixtures, conftest and ledgers: no findings");
    int counts[3] = {0, 0, 0};
    int satisfied = 0;
    for (const core::Finding &f : m_findings) {
        if (f.satisfiedBy)
            ++satisfied;
        else
            ++counts[int(f.severity)];
    }
    QStringList parts;
    if (counts[2])
        parts << tr("%1 block").arg(counts[2]);
    if (counts[1])
        parts << tr("%1 review").arg(counts[1]);
    if (counts[0])
        parts << tr("%1 info").arg(counts[0]);
    if (satisfied)
        parts << tr("%1 satisfied by the ledger").arg(satisfied);
    const int n = int(m_findings.size());
    return (n == 1 ? tr("1 manifest finding: ") : tr("%1 manifest findings: ").arg(n)) +
           parts.join(QStringLiteral(", "));
}

core::Severity ManifestModel::summarySeverity() const
{
    core::Severity worst = core::Severity::Info;
    for (const core::Finding &f : m_findings) {
        if (!f.satisfiedBy)
            worst = std::max(worst, f.severity);
    }
    return worst;
}

int ManifestModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_findings.size());
}

int ManifestModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ManifestModel::text(const core::Finding &f, int column) const
{
    switch (column) {
    case VerdictColumn:
        return qs(f.code);
    case LocationColumn:
        if (!f.test.empty())
            return qs(f.test);
        return f.line > 0 ? QString(qs(f.path) + QLatin1Char(':') + QString::number(f.line))
                          : qs(f.path);
    case BlockingColumn:
        if (f.satisfiedBy)
            return tr("no (satisfied)");
        switch (f.severity) {
        case core::Severity::Block:
            return tr("yes");
        case core::Severity::Review:
            return tr("review");
        case core::Severity::Info:
            return tr("no");
        }
        break;
    case EvidenceColumn:
        return f.evidence.empty() ? QStringLiteral("—") : qs(f.evidence);
    case SatisfiedColumn:
        return f.satisfiedBy ? qs(*f.satisfiedBy) : QStringLiteral("—");
    }
    return {};
}

QVariant ManifestModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const core::Finding &f = m_findings[size_t(index.row())];
    const style::Tone tone = f.satisfiedBy ? style::Tone::Good : style::toneForSeverity(f.severity);
    switch (role) {
    case Qt::DisplayRole:
        return text(f, index.column());
    case Qt::ToolTipRole:
        // The message is the "why" of every row; the columns are the "what".
        return QString(qs(f.message) + QStringLiteral("\n") + tr("Evidence: ") + qs(f.evidence));
    case Qt::ForegroundRole:
        if (index.column() == VerdictColumn) // on its tint
            return style::foregroundData(tone);
        if (index.column() == BlockingColumn)
            return style::textData(tone);
        break;
    case Qt::BackgroundRole:
        if (index.column() == VerdictColumn)
            return style::backgroundData(tone);
        break;
    case Qt::FontRole:
        if (index.column() == VerdictColumn && tone == style::Tone::Block) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    case PathRole:
        return qs(f.path);
    case LineRole:
        return f.line;
    case TestRole:
        return qs(f.test);
    case SeverityRole:
        return int(f.severity);
    case CodeRole:
        return qs(f.code);
    case SortRole:
        switch (index.column()) {
        case VerdictColumn:
        case BlockingColumn:
            // Unsatisfied blockers sort above satisfied ones of the same severity.
            return int(f.severity) * 2 + (f.satisfiedBy ? 0 : 1);
        case LocationColumn:
            return QString(qs(f.path) + QLatin1Char(':') +
                           QStringLiteral("%1").arg(f.line, 8, 10, QLatin1Char('0')) + qs(f.test));
        default:
            return text(f, index.column());
        }
    }
    return {};
}

QVariant ManifestModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case VerdictColumn:
        return tr("Verdict");
    case LocationColumn:
        return tr("Path / test");
    case BlockingColumn:
        return tr("Blocking");
    case EvidenceColumn:
        return tr("Evidence required");
    case SatisfiedColumn:
        return tr("Satisfied by");
    }
    return {};
}

} // namespace pw::gui
