#pragma once

#include "audit/Finding.h"
#include "dynamic/Attribution.h"
#include "dynamic/ReproCells.h"

#include <QAbstractTableModel>
#include <optional>

namespace pw::gui {

// The Attribution panel's rows: every run of the test on both trees — arm,
// seed, outcome, seconds and why — with the verdict and its sentence as the summary.
// Harness errors and not-collected runs are listed but count for nothing.
class AttributionModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        ArmColumn,
        SeedColumn,
        OutcomeColumn,
        SecondsColumn,
        WhyColumn,
        ColumnCount
    };

    explicit AttributionModel(QObject *parent = nullptr);

    void setResult(const core::AttributionResult &result);
    void clear();
    const core::AttributionResult &result() const { return m_result; }
    bool hasResult() const { return m_has; }
    // "PRE_EXISTING · base 3/5 · head 3/5 failed · env … — <sentence>"
    QString summary() const;
    // Block patch induced / masks, Review harness env / no verdict, Info else; nullopt: none.
    std::optional<core::Severity> summarySeverity() const;
    // Diff coverage of the failing test: "Diff coverage (head seed 0): did not touch
    // the change — …", "… touched 3 changed lines in src/pkg/mod.py", "… unknown: …"; empty
    // when not measured. Severity: Review did not touch the change (the verdict deserves a
    // second look), Info touched, nullopt unknown or none.
    QString coverageLine() const;
    std::optional<core::Severity> coverageSeverity() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    core::AttributionResult m_result;
    std::vector<const core::NodeRun *> m_rows;
    bool m_has = false;
};

// The four-cell panel's rows: solo, order, isolate, clock — status, trials,
// failures, failing seeds, what the cell ran (or why it is unknown), its env digest and
// replay command (copied with the row); the attribution sentences are the summary.
class CellsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        CellColumn,
        StatusColumn,
        TrialsColumn,
        FailsColumn,
        SeedsColumn,
        WhatColumn,
        EnvColumn,    // the env digest of its trials ("mixed" when they differ)
        ReplayColumn, // the shell line of its first failing trial, else its first
        ColumnCount
    };

    explicit CellsModel(QObject *parent = nullptr);

    void setResult(const core::ReproCellsResult &result);
    void clear();
    const core::ReproCellsResult &result() const { return m_result; }
    bool hasResult() const { return m_has; }
    QString summary() const;
    std::optional<core::Severity> summarySeverity() const; // Block reproduced; nullopt: none

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    core::ReproCellsResult m_result;
    bool m_has = false;
};

} // namespace pw::gui
