#include "ShadowModel.h"

#include "execution/CensusDump.h"
#include "panels/EvidenceRoles.h"
#include "panels/PanelText.h"
#include "util/Format.h"

#include <algorithm>

namespace pw::gui {

namespace {

QString decisionText(const core::ShadowDecision &d)
{
    if (d.frozen)
        return QStringLiteral("run (frozen)");
    if (d.run)
        return QStringLiteral("run");
    return d.sampled ? QStringLiteral("shadow sample") : QStringLiteral("skip");
}

QString witnessText(const core::ShadowDecision &d)
{
    if (!d.witness)
        return QStringLiteral("—");
    QStringList files;
    for (const std::string &f : d.witness->files)
        files << qs(f);
    return files.join(QStringLiteral(", "));
}

} // namespace

ShadowModel::ShadowModel(QObject *parent) : QAbstractTableModel(parent) {}

void ShadowModel::setReport(const core::ShadowReport &report)
{
    beginResetModel();
    m_report = report;
    m_hasReport = true;
    m_rows.clear();
    for (const core::ShadowDecision &d : m_report.decisions)
        m_rows.push_back(&d);
    std::stable_sort(m_rows.begin(), m_rows.end(),
                     [this](const core::ShadowDecision *a, const core::ShadowDecision *b) {
                         return severityOf(*a) > severityOf(*b);
                     });
    endResetModel();
}

void ShadowModel::clear()
{
    beginResetModel();
    m_report = {};
    m_rows.clear();
    m_hasReport = false;
    endResetModel();
}

core::Severity ShadowModel::severityOf(const core::ShadowDecision &d) const
{
    for (const core::WitnessBug &bug : m_report.bugs) {
        if (bug.nodeId == d.nodeId)
            return core::Severity::Block;
    }
    // A test the patch can reach that failed at head (not a frozen one: its failure is
    // the freeze's).
    return d.run && !d.frozen && d.failed() ? core::Severity::Review : core::Severity::Info;
}

const core::WitnessBug *ShadowModel::bugAt(int row) const
{
    if (row < 0 || row >= int(m_rows.size()))
        return nullptr;
    for (const core::WitnessBug &bug : m_report.bugs) {
        if (bug.nodeId == m_rows[size_t(row)]->nodeId)
            return &bug;
    }
    return nullptr;
}

QString ShadowModel::summary() const
{
    if (!m_hasReport)
        return tr("No shadow sample yet: Runs ▸ Run shadow sample (Ctrl+Alt+S) runs what the "
                  "patch can reach plus a sample of what its witnesses skip.");
    const core::ShadowReport &r = m_report;
    if (!r.harnessError.empty())
        return tr("No shadow result: %1").arg(qs(r.harnessError));
    QString text = tr("%1 head tests · %2 run · %3 skipped by their witness · %4 sampled (%5 %) "
                      "· witness %6 · P %7")
                       .arg(r.decisions.size())
                       .arg(r.toRun())
                       .arg(r.skipped())
                       .arg(r.sampled())
                       .arg(r.pct)
                       .arg(qs(r.witnessState), qs(core::shortId(r.patchDigest)));
    if (r.ambientDrift)
        text += tr(" · ambient drift: the whole suite ran (%1)").arg(qs(r.ambientDetail));
    else if (!r.suiteChange.empty())
        text += tr(" · %1: the whole suite ran").arg(qs(r.suiteChange));
    if (r.dryRun)
        text += tr(" · dry run: head not run");
    if (r.interrupted)
        text += tr(" · interrupted");
    if (const size_t none = r.noEvidence().size(); none > 0)
        text += tr(" · no result: %1 selected test(s) gave no evidence").arg(none);
    const size_t failures = r.failures().size();
    if (failures > 0)
        text += tr(" · %1 failing at head").arg(failures);
    if (!r.bugs.empty())
        text += tr(" · %1 WITNESS BUG(S)").arg(r.bugs.size());
    return text;
}

std::optional<core::Severity> ShadowModel::summarySeverity() const
{
    if (!m_hasReport)
        return std::nullopt;
    const core::ShadowReport &r = m_report;
    if (!r.bugs.empty() || !r.failures().empty())
        return core::Severity::Block;
    return !r.harnessError.empty() || r.interrupted || !r.noEvidence().empty()
               ? core::Severity::Review
               : core::Severity::Info;
}

int ShadowModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ShadowModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ShadowModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const core::ShadowDecision &d = *m_rows[size_t(index.row())];
    const core::WitnessBug *bug = bugAt(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TestColumn:
            return qs(d.nodeId);
        case DecisionColumn:
            return bug ? QStringLiteral("WITNESS BUG") : decisionText(d);
        case WhyColumn:
            return qs(d.reason);
        case HeadColumn:
            return d.outcome ? QString::fromLatin1(core::outcomeName(*d.outcome)) : QString();
        case WitnessColumn:
            return witnessText(d);
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = qs(d.nodeId) + QLatin1Char('\n') + qs(d.reason);
        if (bug)
            tip += tr("\nThe witness skipped this test, and the shadow sample ran it: it "
                      "failed, so the witness missed a dependency (%1)")
                       .arg(qs(bug->message));
        else if (!d.message.empty())
            tip += QLatin1Char('\n') + qs(d.message);
        if (d.witness)
            tip += tr("\nwitnessed files: %1").arg(witnessText(d));
        return tip;
    }
    case PathRole:
        return qs(core::fileOf(d.nodeId));
    case TestRole:
        return qs(core::functionIdOf(d.nodeId));
    case CodeRole:
        return bug ? QStringLiteral("S-WITNESS-BUG") : QString();
    case SeverityRole:
        return int(severityOf(d));
    case SortRole:
        if (index.column() == DecisionColumn)
            return int(severityOf(d));
        return data(index, Qt::DisplayRole);
    }
    return {};
}

QVariant ShadowModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TestColumn:
        return tr("Test");
    case DecisionColumn:
        return tr("Decision");
    case WhyColumn:
        return tr("Why");
    case HeadColumn:
        return tr("Head");
    case WitnessColumn:
        return tr("Witnessed files");
    }
    return {};
}

} // namespace pw::gui
