#pragma once

#include "dynamic/SeedMatrix.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace pw::gui {

// What the seed-matrix heatmap shows: tests × seeds with both trees' fails out of K, the
// triage per test, and the order and filter the reviewer chose. Filled as a matrix runs
// (begin(), then addReported() per finished server run: the cells fill in as replays
// report) and replaced by the result when it ends (setResult()). Plain data and a
// changed() signal; HeatmapView paints it, SeedMatrixPanel drives it.
class MatrixHeat : public QObject
{
    Q_OBJECT
public:
    struct Cell
    {
        int fails = 0;  // replays that failed
        int seen = 0;   // replays reported as evidence (pass or fail)
        int errors = 0; // replays that were no evidence (harness error, not collected)
        int run = -1;   // index into result()->runs of the run that held it; -1: none (yet)
    };
    struct Row
    {
        QString test;
        std::vector<Cell> base, head; // per seed (seeds() order)
        bool baseCollected = true, headCollected = true;
        std::optional<core::Triage> triage; // none: not triaged (yet, or at all: reason)
        std::optional<long long> witnessSeed, flakySeed;
        QString line;   // triage.py's line, or "no triage: <why>"
        QString reason; // why there is no triage, or what it rests on
        std::vector<QString> baseCommands, headCommands; // per seed, when the result is in

        const std::vector<Cell> &cells(core::Arm arm) const
        {
            return arm == core::Arm::Base ? base : head;
        }
        bool collected(core::Arm arm) const
        {
            return arm == core::Arm::Base ? baseCollected : headCollected;
        }
        const std::vector<QString> &commands(core::Arm arm) const
        {
            return arm == core::Arm::Base ? baseCommands : headCommands;
        }
    };
    enum class Sort
    {
        Verdict,   // PATCH_BUG, FLAKY_ORACLE, NEEDS_MANUAL_REVIEW, PRE_EXISTING, NO_SIGNAL, none
        Test,      // node id
        HeadFails, // most failing head replays first
    };
    // The rows a filter keeps: every row, one verdict, or the rows without a triage.
    struct Filter
    {
        bool all = true;
        std::optional<core::Triage> only; // with !all: this verdict; nullopt: no triage
        static Filter everything() { return {}; }
        static Filter verdict(core::Triage t) { return {false, t}; }
        static Filter untriaged() { return {false, std::nullopt}; }
        bool keeps(const Row &row) const { return all || row.triage == only; }
    };

    explicit MatrixHeat(QObject *parent = nullptr);

    // A matrix starts: every cell waiting.
    void begin(const QStringList &tests, const std::vector<uint32_t> &seeds, int replays);
    // Replays one server run of `arm` reported (a streamed MatrixProgress).
    void addReported(core::Arm arm, const std::vector<core::Trial> &reported);
    // The matrix ended: its cells, triage and commands replace what streamed in.
    void setResult(const core::MatrixResult &result);
    void clear();

    bool isEmpty() const { return m_rows.empty(); }
    bool running() const { return m_running; }
    const std::vector<uint32_t> &seeds() const { return m_seeds; }
    int replays() const { return m_replays; }
    int rowCount() const { return int(m_rows.size()); }
    const Row &row(int index) const { return m_rows[size_t(index)]; }
    // The finished matrix (runs, record path, env digest); nullptr while running or empty.
    const core::MatrixResult *result() const { return m_result ? &*m_result : nullptr; }
    // Index of `test` in the rows; -1 when it is none of them.
    int rowOf(const QString &test) const;

    void setSort(Sort sort);
    Sort sort() const { return m_sort; }
    void setFilter(Filter filter);
    const Filter &filter() const { return m_filter; }
    // The rows shown, in order (indices into row()).
    const std::vector<int> &shown() const { return m_shown; }
    // How many rows each verdict has ("PATCH_BUG 1 · FLAKY_ORACLE 2 · …").
    QString summary() const;

    // Sort rank of a verdict: PATCH_BUG first, no triage last.
    static int verdictRank(const std::optional<core::Triage> &triage);

Q_SIGNALS:
    // The rows were replaced (begin, setResult, clear): row indices of before mean nothing
    // now. Emitted before the changed() that follows.
    void reset();
    void changed(); // rows, cells, order or filter

private:
    void reorder();
    void reindex(); // m_index from m_rows, then reset()

    std::vector<uint32_t> m_seeds;
    int m_replays = 0;
    std::vector<Row> m_rows;
    QHash<QString, int> m_index; // test → row
    std::optional<core::MatrixResult> m_result;
    bool m_running = false;
    Sort m_sort = Sort::Verdict;
    Filter m_filter;
    std::vector<int> m_shown;
};

} // namespace pw::gui
