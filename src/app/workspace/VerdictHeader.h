#pragma once

#include "audit/GateReport.h"

#include <QLabel>
#include <QStringList>
#include <vector>

namespace pw::gui {

// One line of the verdict's "why": what the patch does that decided it, in a reviewer's
// words ("deletes 2 tests", "inflates 1 tolerance", "edits the golden fixture
// expected_totals.json"), the finding codes behind it and how many findings they are.
struct VerdictClause
{
    QString text;
    QStringList codes;
    core::Severity severity = core::Severity::Review;
    int findings = 0;
    QStringList keys; // VerdictHeader::keyOf each finding it stands for, in report order
};

// The verdict header above the diff, what a reviewer reads first: BLOCK / REVIEW / PASS on
// its colour, then one clause per thing the patch does that decided it — the unanswered
// block findings' first, then the review ones' — each a link; activating one (a click, or
// Tab and Enter) asks the window to go to the next of its findings.
class VerdictHeader : public QLabel
{
    Q_OBJECT
public:
    explicit VerdictHeader(QWidget *parent = nullptr);

    void showState(const QString &state); // no report: plain text
    void showReport(const core::GateReport &report);

    // The clauses of `report`'s unanswered block and review findings, block first, each
    // kind of finding once (in the order the findings come).
    static std::vector<VerdictClause> clausesOf(const core::GateReport &report);
    // A finding's identity within a report: code, path, line and test.
    static QString keyOf(const core::Finding &finding);
    const std::vector<VerdictClause> &clauses() const { return m_clauses; }
    // "BLOCK: deletes 2 tests, skips 1, …" as plain text (the chip's tooltip, tests).
    QString plainText() const { return m_plain; }

Q_SIGNALS:
    void clauseActivated(int index, const QStringList &keys);

private:
    std::vector<VerdictClause> m_clauses;
    QString m_plain;
};

} // namespace pw::gui
