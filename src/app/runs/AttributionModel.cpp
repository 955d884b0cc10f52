#include "AttributionModel.h"

#include "execution/CensusDump.h"
#include "panels/EvidenceRoles.h"
#include "panels/PanelText.h"
#include "util/Format.h"

namespace pw::gui {

namespace {

QString seedList(const std::set<uint32_t> &seeds)
{
    QStringList out;
    for (const uint32_t s : seeds)
        out << QString::number(s);
    return out.join(QStringLiteral(", "));
}

} // namespace

AttributionModel::AttributionModel(QObject *parent) : QAbstractTableModel(parent) {}

void AttributionModel::setResult(const core::AttributionResult &result)
{
    beginResetModel();
    m_result = result;
    m_has = true;
    m_rows.clear();
    // Interleaved as they ran: base, head, base, head, …
    const size_t n = std::max(m_result.base.runs.size(), m_result.head.runs.size());
    for (size_t i = 0; i < n; ++i) {
        if (i < m_result.base.runs.size())
            m_rows.push_back(&m_result.base.runs[i]);
        if (i < m_result.head.runs.size())
            m_rows.push_back(&m_result.head.runs[i]);
    }
    endResetModel();
}

void AttributionModel::clear()
{
    beginResetModel();
    m_result = {};
    m_rows.clear();
    m_has = false;
    endResetModel();
}

QString AttributionModel::summary() const
{
    if (!m_has)
        return tr("No attribution yet: select a test, then Runs ▸ Attribute test (Ctrl+Alt+A).");
    const core::AttributionResult &r = m_result;
    QString verdict = r.verdict ? QString::fromLatin1(core::attributionVerdictName(*r.verdict))
                                : tr("no verdict");
    return tr("%1 · %2 · %3 · base %4/%5 · head %6/%7 failed%8 — %9")
        .arg(verdict, qs(r.test), QString::fromLatin1(core::modeName(r.mode)))
        .arg(r.base.fails)
        .arg(r.base.evidence)
        .arg(r.head.fails)
        .arg(r.head.evidence)
        .arg(r.envDigest.empty() ? QString() : tr(" · env %1").arg(qs(r.envDigest)),
             qs(r.sentence));
}

QString AttributionModel::coverageLine() const
{
    if (!m_has || !m_result.coverage)
        return {};
    const core::DiffCoverageResult &c = *m_result.coverage;
    const QString head =
        c.seed ? tr("Diff coverage (head seed %1): ").arg(*c.seed) : tr("Diff coverage: ");
    if (c.verdict == core::CoverageVerdict::Untouched)
        return head + tr("DID NOT TOUCH THE CHANGE — the failing test executed none of the "
                         "patch's %1 changed %2: strong evidence of a flake rather than a "
                         "patch bug")
                          .arg(c.changedLines)
                          .arg(c.changedLines == 1 ? tr("line") : tr("lines"));
    return head + qs(c.summary());
}

std::optional<core::Severity> AttributionModel::coverageSeverity() const
{
    if (!m_has || !m_result.coverage)
        return std::nullopt;
    switch (m_result.coverage->verdict) {
    case core::CoverageVerdict::Untouched:
        return core::Severity::Review;
    case core::CoverageVerdict::Touched:
        return core::Severity::Info;
    case core::CoverageVerdict::Unknown:
        break;
    }
    return std::nullopt;
}

std::optional<core::Severity> AttributionModel::summarySeverity() const
{
    if (!m_has)
        return std::nullopt;
    if (!m_result.verdict)
        return core::Severity::Review;
    switch (*m_result.verdict) {
    case core::AttributionVerdict::PatchInduced:
    case core::AttributionVerdict::PatchMasks:
        return core::Severity::Block;
    case core::AttributionVerdict::HarnessEnv:
        return core::Severity::Review;
    default:
        return core::Severity::Info;
    }
}

int AttributionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AttributionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AttributionModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const core::NodeRun &run = *m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ArmColumn:
            return qs(run.label);
        case SeedColumn:
            return run.seed;
        case OutcomeColumn:
            return QString::fromLatin1(core::outcomeName(run.outcome));
        case SecondsColumn:
            return qs(core::formatSeconds(run.seconds));
        case WhyColumn:
            return qs(run.reason);
        }
        return {};
    case Qt::ToolTipRole:
        return qs(run.command);
    case TestRole:
        return qs(m_result.test);
    case PathRole:
        return qs(core::fileOf(m_result.test));
    case SeverityRole:
        return run.failed() ? 2 : run.evidence() ? 0 : 1;
    case SortRole:
        if (index.column() == SeedColumn)
            return run.seed;
        if (index.column() == SecondsColumn)
            return run.seconds;
        return data(index, Qt::DisplayRole);
    }
    return {};
}

QVariant AttributionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ArmColumn:
        return tr("Tree");
    case SeedColumn:
        return tr("Seed");
    case OutcomeColumn:
        return tr("Outcome");
    case SecondsColumn:
        return tr("Time");
    case WhyColumn:
        return tr("Why");
    }
    return {};
}

CellsModel::CellsModel(QObject *parent) : QAbstractTableModel(parent) {}

void CellsModel::setResult(const core::ReproCellsResult &result)
{
    beginResetModel();
    m_result = result;
    m_has = true;
    endResetModel();
}

void CellsModel::clear()
{
    beginResetModel();
    m_result = {};
    m_has = false;
    endResetModel();
}

QString CellsModel::summary() const
{
    if (!m_has)
        return tr("No reproduction matrix yet: select a test, then Runs ▸ Reproduction "
                  "cells (Ctrl+Alt+M).");
    QStringList sentences;
    for (const core::CellFinding &f : m_result.findings)
        sentences << qs(f.sentence);
    return tr("%1 at %2 (scope %3, R = %4): %5")
        .arg(qs(m_result.test), qs(m_result.revision), qs(m_result.scope))
        .arg(m_result.orderSeeds)
        .arg(sentences.join(QStringLiteral(" ")));
}

std::optional<core::Severity> CellsModel::summarySeverity() const
{
    if (!m_has)
        return std::nullopt;
    if (m_result.reproduced())
        return core::Severity::Block;
    return m_result.noEvidence() ? core::Severity::Review : core::Severity::Info;
}

int CellsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_has ? 0 : int(m_result.cells.size());
}

int CellsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CellsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::ReproCell &c = m_result.cells[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case CellColumn:
            return qs(c.name);
        case StatusColumn:
            return QString::fromLatin1(core::cellStatusName(c.status));
        case TrialsColumn:
            return c.runs();
        case FailsColumn:
            return c.fails;
        case SeedsColumn:
            return seedList(c.failingSeeds);
        case WhatColumn:
            return c.status == core::CellStatus::Unknown && !c.unknownReason.empty()
                       ? qs(c.unknownReason)
                       : qs(c.description);
        case EnvColumn: {
            QString digest;
            for (const core::NodeRun &t : c.trials) {
                if (t.envDigest.empty())
                    continue;
                if (!digest.isEmpty() && digest != qs(t.envDigest))
                    return tr("mixed");
                digest = qs(t.envDigest);
            }
            return digest;
        }
        case ReplayColumn:
            return qs(c.replay);
        }
        return {};
    case Qt::ToolTipRole:
        return c.replay.empty() ? qs(c.description) : qs(c.replay);
    case TestRole:
        return qs(m_result.test);
    case PathRole:
        return qs(core::fileOf(m_result.test));
    case SeverityRole:
        return c.status == core::CellStatus::Fail      ? 2
               : c.status == core::CellStatus::Unknown ? 1
                                                       : 0;
    case SortRole:
        if (index.column() == TrialsColumn || index.column() == FailsColumn)
            return data(index, Qt::DisplayRole).toInt();
        return data(index, Qt::DisplayRole);
    }
    return {};
}

QVariant CellsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case CellColumn:
        return tr("Cell");
    case StatusColumn:
        return tr("Status");
    case TrialsColumn:
        return tr("Trials");
    case FailsColumn:
        return tr("Fails");
    case SeedsColumn:
        return tr("Failing seeds");
    case WhatColumn:
        return tr("What it ran");
    case EnvColumn:
        return tr("Env digest");
    case ReplayColumn:
        return tr("Replay command");
    }
    return {};
}

} // namespace pw::gui
