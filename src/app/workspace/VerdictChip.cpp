#include "VerdictChip.h"

#include <QMouseEvent>

namespace pw::gui {

VerdictChip::VerdictChip(QWidget *parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("verdictChip"));
    setMargin(3);
    showState(tr("no repository"));
}

void VerdictChip::showState(const QString &state)
{
    setText(state);
    setToolTip(QString());
    setStyleSheet(QString());
    unsetCursor();
}

void VerdictChip::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && !styleSheet().isEmpty()) // a verdict is shown
        Q_EMIT clicked();
    QLabel::mousePressEvent(event);
}

void VerdictChip::showReport(const core::GateReport &r, const QString &runSources)
{
    setText(tr("%1 · %2 block · %3 review%4")
                .arg(QString::fromLatin1(core::verdictName(r.verdict)))
                .arg(r.count(core::Severity::Block))
                .arg(r.count(core::Severity::Review))
                .arg(runSources.isEmpty() ? QString() : tr(" · with runs")));
    setToolTip(runSources.isEmpty()
                   ? tr("The static gates of the audit. Runs (census, attribution, shadow "
                        "sample) add their findings here when they end.")
                   : tr("The static gates of the audit plus %1. A run's findings stay until it "
                        "is run again: after a ledger change, rerun it to count the new "
                        "entries.")
                         .arg(runSources));
    // White on each reads at WCAG AA (5.6, 5.4 and 5.1 : 1), whatever the palette around it.
    const char *colour = r.verdict == core::Verdict::Block    ? "#c62828"
                         : r.verdict == core::Verdict::Review ? "#9a5b00"
                                                              : "#2e7d32";
    setCursor(Qt::PointingHandCursor);
    setStyleSheet(
        QStringLiteral(
            "QLabel { color: white; background: %1; border-radius: 3px; font-weight: bold; }")
            .arg(QLatin1String(colour)));
}

} // namespace pw::gui
