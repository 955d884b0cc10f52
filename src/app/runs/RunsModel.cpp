#include "RunsModel.h"

#include "panels/EvidenceRoles.h"
#include "panels/PanelText.h"
#include "util/Format.h"

namespace pw::gui {

RunsModel::RunsModel(QObject *parent) : QAbstractTableModel(parent) {}

void RunsModel::append(const QString &job, const core::RunResult &r)
{
    Row row;
    row.job = job;
    row.arm = qs(r.arm);
    row.kind = kindOf(r);
    row.seeds = QString::number(r.seed);
    row.status = statusText(r);
    if (row.kind != tr("collect"))
        row.tests = tr("%1 pass · %2 fail · %3 skip")
                        .arg(r.count(core::Outcome::Pass))
                        .arg(r.count(core::Outcome::Fail) + r.count(core::Outcome::Error))
                        .arg(r.count(core::Outcome::Skipped));
    row.seconds = r.durationMs / 1000.0;
    row.envDigest = qs(r.envDigest);
    row.command = qs(r.replay.empty() ? r.command : r.replay);
    row.log = runLog(job, r);
    row.harnessError = r.harnessError;
    row.test = r.outcomes.size() == 1 ? qs(r.outcomes.front().nodeId) : QString();
    push(std::move(row));
}

void RunsModel::append(const QString &job, const core::NodeRunProgress &p)
{
    const core::NodeRun &n = p.run;
    Row row;
    row.job = job;
    row.arm = qs(n.label);
    row.kind = tr("node");
    row.seeds = p.seeds.empty() ? QString::number(n.seed) : qs(p.seeds);
    row.status = QString::fromLatin1(core::outcomeName(n.outcome))
                     .replace(QLatin1Char('_'), QLatin1Char(' '));
    row.tests = p.detail.empty() ? row.status : qs(p.detail);
    row.seconds = n.seconds;
    row.envDigest = qs(n.envDigest);
    row.command = qs(n.command);
    row.harnessError = n.outcome == core::Outcome::HarnessError;
    row.log = tr("%1 · %2 · seeds %3 · env %4 · %5 · %6\n")
                  .arg(job, row.arm, row.seeds, row.envDigest, row.status)
                  .arg(qs(core::formatSeconds(n.seconds)));
    if (!n.reason.empty())
        row.log += tr("why: %1\n").arg(qs(n.reason));
    if (!p.detail.empty())
        row.log += qs(p.detail) + QLatin1Char('\n');
    row.log += tr("\ncommand (copy to repeat):\n%1\n").arg(row.command);
    push(std::move(row));
}

void RunsModel::push(Row row)
{
    row.finished = QDateTime::currentDateTime();
    if (int(m_rows.size()) >= kMaxRows) {
        const int drop = int(m_rows.size()) - kMaxRows + 1;
        beginRemoveRows({}, 0, drop - 1);
        m_rows.erase(m_rows.begin(), m_rows.begin() + drop);
        endRemoveRows();
    }
    const int at = int(m_rows.size());
    beginInsertRows({}, at, at);
    m_rows.push_back(std::move(row));
    endInsertRows();
}

void RunsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

QString RunsModel::kindOf(const core::RunResult &run)
{
    return run.command.find("--collect-only") != std::string::npos ? tr("collect") : tr("run");
}

QString RunsModel::statusText(const core::RunResult &run)
{
    if (run.status != core::RunStatus::Completed)
        return QString::fromLatin1(core::runStatusName(run.status))
            .replace(QLatin1Char('_'), QLatin1Char(' '));
    if (run.harnessError)
        return tr("harness error (exit %1)").arg(run.exitCode);
    return run.exitCode == 1 ? tr("caught (exit 1)") : tr("exit %1").arg(run.exitCode);
}

QString RunsModel::runLog(const QString &job, const core::RunResult &r)
{
    QString text =
        tr("%1 · %2 %3 · seed %4 · env %5 · %6 · %7\n")
            .arg(job, qs(r.arm), kindOf(r))
            .arg(r.seed)
            .arg(qs(r.envDigest), statusText(r), qs(core::formatSeconds(r.durationMs / 1000.0)));
    if (!r.interpreter.empty())
        text += tr("interpreter %1\n").arg(qs(r.interpreter));
    if (r.harnessError)
        text += tr("not evidence: %1\n").arg(qs(r.harnessReason));
    if (r.strayProcesses > 0)
        text += tr("killed %n process(es) the run left outside its process group (a daemon a "
                   "test started; the sandbox would have contained it)\n",
                   nullptr, r.strayProcesses);
    text +=
        tr("\ncommand (copy to repeat):\n%1\n").arg(qs(r.replay.empty() ? r.command : r.replay));
    if (r.sandboxed || r.replay.empty())
        text +=
            tr("\nas it ran (scratch files removed when the job ended):\n%1\n").arg(qs(r.command));
    if (!r.outcomes.empty()) {
        text += tr("\noutcomes:\n");
        for (const core::NodeOutcome &o : r.outcomes)
            text += QStringLiteral("  %1  %2%3\n")
                        .arg(QString::fromLatin1(core::outcomeName(o.outcome)), -13)
                        .arg(qs(o.nodeId),
                             o.message.empty() ? QString() : QStringLiteral(" — ") + qs(o.message));
    }
    if (!r.stdoutTail.empty())
        text += tr("\nstdout:\n%1").arg(qs(r.stdoutTail));
    if (!r.stderrTail.empty())
        text += tr("\nstderr:\n%1").arg(qs(r.stderrTail));
    return text;
}

int RunsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &row = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case JobColumn:
            return row.job;
        case ArmColumn:
            return row.arm;
        case KindColumn:
            return row.kind;
        case SeedColumn:
            return row.seeds;
        case StatusColumn:
            return row.status;
        case TestsColumn:
            return row.tests;
        case SecondsColumn:
            return qs(core::formatSeconds(row.seconds));
        case EnvColumn:
            return row.envDigest;
        }
        return {};
    case Qt::ToolTipRole:
        return row.command;
    case SortRole:
        switch (index.column()) {
        case SeedColumn:
            return row.seeds.section(QLatin1Char('.'), 0, 0).toLongLong();
        case SecondsColumn:
            return row.seconds;
        }
        return data(index, Qt::DisplayRole);
    case SeverityRole:
        return row.harnessError ? 1 : 0;
    case TestRole:
        return row.test;
    case Qt::TextAlignmentRole:
        if (index.column() == SeedColumn || index.column() == SecondsColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case JobColumn:
        return tr("Job");
    case ArmColumn:
        return tr("Tree");
    case KindColumn:
        return tr("Kind");
    case SeedColumn:
        return tr("Seed");
    case StatusColumn:
        return tr("Status");
    case TestsColumn:
        return tr("Tests");
    case SecondsColumn:
        return tr("Time");
    case EnvColumn:
        return tr("Env digest");
    }
    return {};
}

} // namespace pw::gui
