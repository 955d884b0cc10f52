#pragma once

#include "audit/Finding.h"
#include "dynamic/Shadow.h"

#include <QAbstractTableModel>
#include <optional>

namespace pw::gui {

// The Shadow sample panel: one row per head test — run or skipped by its
// witness, and why; shadow-sampled; its head outcome — with the witness bugs (a sampled,
// skip-witnessed test that failed) first and flagged as blocking. Rows answer the
// EvidenceRole roles, so the panel filters by file and selects by test like the others.
class ShadowModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        TestColumn,
        DecisionColumn,
        WhyColumn,
        HeadColumn,
        WitnessColumn,
        ColumnCount
    };

    explicit ShadowModel(QObject *parent = nullptr);

    void setReport(const core::ShadowReport &report);
    void clear();
    const core::ShadowReport &report() const { return m_report; }
    bool hasReport() const { return m_hasReport; }
    // "12 head tests · 3 run · 9 skipped by their witness · 1 sampled (10 %) · witness
    // reused · P 3f2a… · 1 WITNESS BUG" (or why there is none).
    QString summary() const;
    // Info clean, Review (harness error, interrupted, no evidence), Block; nullopt: no report.
    std::optional<core::Severity> summarySeverity() const;
    // The row's witness bug, if it is one.
    const core::WitnessBug *bugAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    core::Severity severityOf(const core::ShadowDecision &d) const;

    core::ShadowReport m_report;
    std::vector<const core::ShadowDecision *> m_rows; // into m_report, witness bugs first
    bool m_hasReport = false;
};

} // namespace pw::gui
