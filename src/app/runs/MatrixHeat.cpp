#include "MatrixHeat.h"

#include <algorithm>
#include <map>

namespace pw::gui {

MatrixHeat::MatrixHeat(QObject *parent) : QObject(parent) {}

void MatrixHeat::begin(const QStringList &tests, const std::vector<uint32_t> &seeds, int replays)
{
    m_result.reset();
    m_seeds = seeds;
    m_replays = replays;
    m_rows.clear();
    for (const QString &test : tests) {
        Row row;
        row.test = test;
        row.base.assign(seeds.size(), Cell());
        row.head.assign(seeds.size(), Cell());
        row.line = tr("running…");
        m_rows.push_back(std::move(row));
    }
    m_running = true;
    reindex();
    reorder();
}

void MatrixHeat::addReported(core::Arm arm, const std::vector<core::Trial> &reported)
{
    if (!m_running || reported.empty())
        return;
    std::map<uint32_t, size_t> seedIndex;
    for (size_t s = 0; s < m_seeds.size(); ++s)
        seedIndex.emplace(m_seeds[s], s);
    for (const core::Trial &trial : reported) {
        const int r = rowOf(QString::fromStdString(trial.nodeId));
        const auto s = seedIndex.find(trial.seed);
        if (r < 0 || s == seedIndex.end())
            continue;
        Row &row = m_rows[size_t(r)];
        Cell &cell = (arm == core::Arm::Base ? row.base : row.head)[s->second];
        if (trial.outcome == core::Outcome::HarnessError ||
            trial.outcome == core::Outcome::NotCollected) {
            ++cell.errors;
            continue;
        }
        ++cell.seen;
        cell.fails += trial.outcome == core::Outcome::Fail ? 1 : 0;
    }
    reorder();
}

void MatrixHeat::setResult(const core::MatrixResult &result)
{
    m_result = result;
    m_seeds = result.seeds;
    m_replays = result.replays;
    m_running = false;
    m_rows.clear();
    for (const core::MatrixTest &t : result.tests) {
        Row row;
        row.test = QString::fromStdString(t.test);
        for (core::Arm arm : {core::Arm::Base, core::Arm::Head}) {
            const core::MatrixTree &tree = t.tree(arm);
            std::vector<Cell> &cells = arm == core::Arm::Base ? row.base : row.head;
            for (size_t s = 0; s < result.seeds.size(); ++s) {
                Cell c;
                c.fails = s < tree.fails.size() ? tree.fails[s] : 0;
                c.errors = s < tree.errors.size() ? tree.errors[s] : result.replays;
                c.seen = std::max(0, result.replays - c.errors);
                c.run = s < tree.runs.size() ? tree.runs[s] : -1;
                cells.push_back(c);
            }
            std::vector<QString> &commands =
                arm == core::Arm::Base ? row.baseCommands : row.headCommands;
            for (const std::string &command : tree.commands)
                commands.push_back(QString::fromStdString(command));
        }
        row.baseCollected = t.base.collected;
        row.headCollected = t.head.collected;
        row.triage = t.triage.triage;
        row.witnessSeed = t.triage.witnessSeed;
        row.flakySeed = t.triage.flakySeed;
        row.line = QString::fromStdString(t.triage.line());
        row.reason = QString::fromStdString(t.reason);
        m_rows.push_back(std::move(row));
    }
    reindex();
    reorder();
}

void MatrixHeat::clear()
{
    m_result.reset();
    m_rows.clear();
    m_seeds.clear();
    m_replays = 0;
    m_running = false;
    reindex();
    reorder();
}

void MatrixHeat::reindex()
{
    m_index.clear();
    for (size_t i = 0; i < m_rows.size(); ++i)
        m_index.insert(m_rows[i].test, int(i));
    Q_EMIT reset();
}

int MatrixHeat::rowOf(const QString &test) const
{
    return m_index.value(test, -1);
}

void MatrixHeat::setSort(Sort sort)
{
    m_sort = sort;
    reorder();
}

void MatrixHeat::setFilter(Filter filter)
{
    m_filter = filter;
    reorder();
}

int MatrixHeat::verdictRank(const std::optional<core::Triage> &triage)
{
    if (!triage)
        return 5;
    switch (*triage) {
    case core::Triage::PatchBug:
        return 0;
    case core::Triage::FlakyOracle:
        return 1;
    case core::Triage::NeedsManualReview:
        return 2;
    case core::Triage::PreExisting:
        return 3;
    case core::Triage::NoSignal:
        return 4;
    }
    return 5;
}

QString MatrixHeat::summary() const
{
    if (m_rows.empty())
        return tr("No seed matrix yet. Runs ▸ Seed matrix starts one.");
    std::map<int, int> counts;
    for (const Row &row : m_rows)
        ++counts[verdictRank(row.triage)];
    QStringList parts;
    for (const auto &[rank, n] : counts) {
        QString name = tr("no triage");
        for (core::Triage t :
             {core::Triage::PatchBug, core::Triage::FlakyOracle, core::Triage::NeedsManualReview,
              core::Triage::PreExisting, core::Triage::NoSignal})
            if (verdictRank(t) == rank)
                name = QString::fromLatin1(core::triageName(t));
        parts << QStringLiteral("%1 %2").arg(name).arg(n);
    }
    const QString shape = tr("%n test(s) × %1 seeds × %2 replays", nullptr, rowCount())
                              .arg(m_seeds.size())
                              .arg(m_replays);
    if (m_running)
        return tr("%1: running…").arg(shape);
    return shape + QStringLiteral(": ") + parts.join(QStringLiteral(" · "));
}

void MatrixHeat::reorder()
{
    m_shown.clear();
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_filter.keeps(m_rows[i]))
            m_shown.push_back(int(i));
    const auto headFails = [this](int i) {
        int n = 0;
        for (const Cell &c : m_rows[size_t(i)].head)
            n += c.fails;
        return n;
    };
    std::stable_sort(m_shown.begin(), m_shown.end(), [&](int a, int b) {
        const Row &ra = m_rows[size_t(a)], &rb = m_rows[size_t(b)];
        switch (m_sort) {
        case Sort::Verdict:
            if (verdictRank(ra.triage) != verdictRank(rb.triage))
                return verdictRank(ra.triage) < verdictRank(rb.triage);
            break;
        case Sort::HeadFails: {
            const int fa = headFails(a), fb = headFails(b);
            if (fa != fb)
                return fa > fb;
            break;
        }
        case Sort::Test:
            break;
        }
        return ra.test < rb.test;
    });
    Q_EMIT changed();
}

} // namespace pw::gui
