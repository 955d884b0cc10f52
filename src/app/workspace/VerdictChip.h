#pragma once

#include "audit/GateReport.h"

#include <QLabel>

namespace pw::gui {

// The status bar's verdict: "BLOCK · 2 block · 1 review · with runs" on the verdict's
// colour, a tooltip naming where the findings come from (the window adds the verdict's
// why); or a plain state ("auditing…"). A click on a verdict is clicked().
class VerdictChip : public QLabel
{
    Q_OBJECT
public:
    explicit VerdictChip(QWidget *parent = nullptr);

    void showState(const QString &state); // no verdict: plain text, no colour
    // `runSources`: the run jobs whose findings the report holds ("" for none).
    void showReport(const core::GateReport &report, const QString &runSources);

Q_SIGNALS:
    void clicked(); // the window goes to the first finding that decided the verdict

protected:
    void mousePressEvent(QMouseEvent *event) override;
};

} // namespace pw::gui
