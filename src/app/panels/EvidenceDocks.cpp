#include "EvidenceDocks.h"

#include "EvidencePanel.h"
#include "LatitudeModel.h"
#include "LogModel.h"
#include "ManifestModel.h"
#include "StrengthModel.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>

namespace pw::gui {

EvidenceDocks::EvidenceDocks(QMainWindow *window)
    : QObject(window), m_manifest(new ManifestModel(this)), m_latitude(new LatitudeModel(this)),
      m_strength(new StrengthModel(this)), m_log(new LogModel(this))
{
}

EvidenceDocks *EvidenceDocks::install(QMainWindow *window, Qt::DockWidgetArea area)
{
    auto *d = new EvidenceDocks(window);
    d->m_manifestPanel = d->addPanel(window, area, tr("Manifest diff"), QStringLiteral("manifest"));
    d->m_latitudePanel =
        d->addPanel(window, area, tr("Oracle latitude"), QStringLiteral("latitude"));
    d->m_strengthPanel =
        d->addPanel(window, area, tr("Oracle strength"), QStringLiteral("strength"));
    d->m_logPanel = d->addPanel(window, area, tr("Log"), QStringLiteral("log"));
    d->m_manifestPanel->setModel(d->m_manifest);
    d->m_latitudePanel->setModel(d->m_latitude);
    d->m_strengthPanel->setModel(d->m_strength);
    d->m_logPanel->setModel(d->m_log);
    d->m_manifestPanel->setPrimaryColumn(ManifestModel::LocationColumn);
    d->m_logPanel->setPrimaryColumn(LogModel::MessageColumn);
    for (int i = 1; i < d->m_docks.size(); ++i)
        window->tabifyDockWidget(d->m_docks.front(), d->m_docks.at(i));
    d->m_docks.front()->raise();

    for (EvidencePanel *panel : {d->m_manifestPanel, d->m_latitudePanel, d->m_strengthPanel}) {
        connect(panel, &EvidencePanel::rowActivated, d, &EvidenceDocks::rowActivated);
        // A chip cleared in one panel clears the filter everywhere.
        connect(panel, &EvidencePanel::fileFilterChanged, d,
                [d](const QString &path) { d->setFileFilter(path); });
    }
    d->clear();
    return d;
}

EvidencePanel *EvidenceDocks::addPanel(QMainWindow *window, Qt::DockWidgetArea area,
                                       const QString &title, const QString &name)
{
    auto *dock = new QDockWidget(title, window);
    dock->setObjectName(name + QStringLiteral("Dock"));
    auto *panel = new EvidencePanel(dock);
    panel->setObjectName(name + QStringLiteral("Panel"));
    dock->setWidget(panel);
    window->addDockWidget(area, dock);
    m_docks << dock;
    return panel;
}

void EvidenceDocks::setReport(const core::GateReport &report)
{
    m_manifest->setReport(report);
    m_latitude->setReport(report);
    m_strength->setReport(report);
    m_manifestPanel->setSummary(m_manifest->summary());
    m_manifestPanel->setSummarySeverity(m_manifest->summarySeverity());
    m_latitudePanel->setSummary(m_latitude->summary());
    m_latitudePanel->setSummarySeverity(m_latitude->summarySeverity());
    m_strengthPanel->setSummary(m_strength->summary());
    m_strengthPanel->setSummarySeverity(m_strength->summarySeverity());
    // Worst first: what blocks the patch is what a reviewer reads first.
    m_manifestPanel->sortBy(ManifestModel::VerdictColumn, Qt::DescendingOrder);
    m_latitudePanel->sortBy(LatitudeModel::ScoreColumn, Qt::DescendingOrder);
    m_strengthPanel->sortBy(StrengthModel::ActionColumn, Qt::DescendingOrder);
}

void EvidenceDocks::clear()
{
    setReport(core::GateReport{});
}

void EvidenceDocks::selectRow(const QString &path, int line)
{
    for (EvidencePanel *panel : {m_manifestPanel, m_latitudePanel, m_strengthPanel})
        panel->selectRow(path, line);
}

void EvidenceDocks::setFileFilter(const QString &path)
{
    if (path == m_fileFilter)
        return;
    m_fileFilter = path;
    for (EvidencePanel *panel : {m_manifestPanel, m_latitudePanel, m_strengthPanel})
        panel->setFileFilter(path);
    Q_EMIT fileFilterChanged(path);
}

QList<QAction *> EvidenceDocks::toggleViewActions() const
{
    QList<QAction *> actions;
    for (QDockWidget *dock : m_docks)
        actions << dock->toggleViewAction();
    return actions;
}

} // namespace pw::gui
