#pragma once

#include "audit/GateReport.h"

#include <QList>
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;

namespace pw::gui {

class EvidencePanel;
class LatitudeModel;
class LogModel;
class ManifestModel;
class StrengthModel;

// The static-evidence docks of the main window: "Manifest diff", "Oracle latitude",
// "Oracle strength" and "Log", tabified in one dock area. Owns the models, keeps the panel
// summaries in step with the report, mirrors the file filter across panels and funnels the
// panels' rowActivated into one signal.
//
// Dock object names: manifestDock, latitudeDock, strengthDock, logDock (panels: manifestPanel,
// latitudePanel, strengthPanel, logPanel), so QMainWindow::saveState/restoreState work.
class EvidenceDocks : public QObject
{
    Q_OBJECT
public:
    // Creates the docks on window (parent of this object) and returns the helper.
    static EvidenceDocks *install(QMainWindow *window,
                                  Qt::DockWidgetArea area = Qt::BottomDockWidgetArea);

    void setReport(const core::GateReport &report);
    void clear(); // an empty report (e.g. while a new audit runs); the log stays

    // Mirrors a selection made elsewhere (diff, file tree) into every evidence panel,
    // without emitting rowActivated.
    void selectRow(const QString &path, int line);
    // Restricts every evidence panel (not the log) to one file; empty shows all.
    void setFileFilter(const QString &path);

    ManifestModel *manifestModel() const { return m_manifest; }
    LatitudeModel *latitudeModel() const { return m_latitude; }
    StrengthModel *strengthModel() const { return m_strength; }
    LogModel *logModel() const { return m_log; }
    EvidencePanel *manifestPanel() const { return m_manifestPanel; }
    EvidencePanel *latitudePanel() const { return m_latitudePanel; }
    EvidencePanel *strengthPanel() const { return m_strengthPanel; }
    EvidencePanel *logPanel() const { return m_logPanel; }
    QList<QDockWidget *> docks() const { return m_docks; }
    QList<QAction *> toggleViewActions() const; // for a View menu

Q_SIGNALS:
    // A reviewer picked a row in any evidence panel: show path:line in the diff.
    void rowActivated(const QString &path, int line, const QString &test);
    // The file filter changed (set here or cleared by a panel's chip).
    void fileFilterChanged(const QString &path);

private:
    explicit EvidenceDocks(QMainWindow *window);
    EvidencePanel *addPanel(QMainWindow *window, Qt::DockWidgetArea area, const QString &title,
                            const QString &name);

    ManifestModel *m_manifest;
    LatitudeModel *m_latitude;
    StrengthModel *m_strength;
    LogModel *m_log;
    EvidencePanel *m_manifestPanel = nullptr;
    EvidencePanel *m_latitudePanel = nullptr;
    EvidencePanel *m_strengthPanel = nullptr;
    EvidencePanel *m_logPanel = nullptr;
    QList<QDockWidget *> m_docks;
    QString m_fileFilter;
};

} // namespace pw::gui
