#pragma once

#include "audit/Finding.h"
#include "ledger/LedgerProblem.h"
#include "ledger/LedgerSet.h"
#include "ledger/RunRecords.h"

#include <QAbstractTableModel>
#include <QDate>
#include <map>
#include <optional>
#include <vector>

namespace pw::gui {

// What one row of the Ledgers panel stands for: an entry of a ledger file (a freeze, a
// waiver, a journal row, a fixture digest, the property budget), or a ledger file itself
// when it has problems of its own (it does not parse). The window asks for it to open the
// Renew / Close-journal-row forms on the selected row.
struct LedgerRow
{
    enum class Kind
    {
        Freeze,  // quarantine.toml [[quarantine]]
        Waiver,  // census_waiver.toml [[waiver]]
        Journal, // seed_journal.jsonl row
        Fixture, // fixture_digest.json path
        Budget,  // property_budget.toml (the whole file is one entry)
        File,    // file-level problems: the file does not parse, ...
        Run      // a file of runs/: attribution / cells evidence, a shard ledger
    };
    enum class Status
    {
        Valid,
        Open,     // an open journal row without problems
        Expiring, // an active freeze that expires within expiringSoonDays
        Expired,  // a freeze on or after its `expires` day
        Problem
    };

    Kind kind = Kind::File;
    Status status = Status::Valid;
    QString file;   // the ledger file as given (".patchwitness/quarantine.toml")
    QString entry;  // test / node / journal id / fixture path; the file for File rows
    int line = 0;   // where the entry starts; the first problem's line for File rows
    int index = -1; // position among its file's entries (-1: File rows, entries only problems name)
    // False for an entry only its problems name (an open journal row that was deleted), and
    // for a Run row whose file names no test (`entry` is then the file's name).
    bool present = true;
    // False for an entry of the files on disk that the base revision's files lack (the gate
    // counts the base's: it answers nothing until committed there) or word otherwise
    // (`changedFromBase`: the base's version counts until then).
    bool onBase = true;
    bool changedFromBase = false;
    QString owner;                // owner / approved_by / closed_by
    std::optional<QDate> expires; // freezes
    int daysLeft = 0;             // today → expires (negative once expired)
    std::vector<core::LedgerProblem> problems;
    // Run rows: the record's kind ("attribution", "cells", "shard", "rows", "other") and
    // what it concluded ("PRE_EXISTING · matched · base 3/5, head 3/5").
    QString recordKind;
    QString result;

    core::Severity severity() const; // Block problem / expired, Review expiring, Info else
};

// The "Ledgers" panel: every entry of a ledger directory with a validity badge,
// one row each, plus one row per file with problems of its own, then one row per evidence
// file of its runs/ directory (what the run engine recorded, what `freeze` pre-fills from). Answers
// the EvidenceRole roles (PathRole = ledger file, LineRole = entry line, TestRole = entry id), so
// the panel's filter box filters by test.
class LedgersModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        StatusColumn,  // "valid", "open", "expiring", "expired", "problem", "2 problems"
        KindColumn,    // freeze / waiver / journal / fixture / budget / file / "attribution run"
        EntryColumn,   // test / node / id / path; run rows: "test — result"
        OwnerColumn,   // owner, approved_by, closed_by
        ExpiresColumn, // freezes: "in 2 days", "2026-12-02"
        FileColumn,    // "quarantine.toml:12" (PathRole has the path as given)
        ProblemColumn, // the first problem's message; last, so the prose gets the room
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    // `problems` are LedgerValidator's (load problems included); they are matched to rows
    // by file and entry id, problems without an entry to their file's row.
    void setLedgers(const core::LedgerSet &set, const std::vector<core::LedgerProblem> &problems,
                    const QDate &today, int expiringSoonDays = 3);
    // Which entries are not on the base as they are — (file, entry id) → whether the base
    // lacks it, as AuditOutcome names them — and where the gate's ledgers come from ("the
    // base, main (1a2b3c4)"). Call after setLedgers().
    void setNotOnBase(const std::map<std::pair<std::string, std::string>, bool> &entries,
                      const QString &countedFrom);
    // The rows of runs/ (replaced; the ledger rows stay): after the ledgers, by name.
    void setRunRecords(const std::vector<core::RunRecordFile> &records);
    void clear();

    const LedgerRow *rowAt(int row) const;
    static QString kindName(LedgerRow::Kind kind);
    static QString statusText(const LedgerRow &row); // the badge
    static QString baseSuffix(const LedgerRow &row); // " · not on base", " · changed since base"
    // "12 entries · 2 with problems · 1 expiring soon · 1 not on the base yet"
    QString summary() const;
    core::Severity severity() const; // the worst row's, for EvidencePanel::setSummarySeverity

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QString text(const LedgerRow &row, int column) const;
    QString toolTip(const LedgerRow &row) const;
    void showRows(); // m_rows = ledger rows, then run rows

    std::vector<LedgerRow> m_ledgerRows;
    std::vector<LedgerRow> m_runRows;
    std::vector<LedgerRow> m_rows;
    QString m_countedFrom;
};

} // namespace pw::gui
