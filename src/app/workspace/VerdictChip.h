#pragma once

#include "audit/GateReport.h"

#include <QLabel>

namespace pw::gui {

// The status bar's verdict: "BLOCK · 2 block · 1 review · with runs" on the verdict's
// colour, a tooltip naming where the findings come from; or a plain state ("auditing…").
class VerdictChip : public QLabel
{
    Q_OBJECT
public:
    explicit VerdictChip(QWidget *parent = nullptr);

    void showState(const QString &state); // no verdict: plain text, no colour
    // `runSources`: the run jobs whose findings the report holds ("" for none).
    void showReport(const core::GateReport &report, const QString &runSources);
};

} // namespace pw::gui
