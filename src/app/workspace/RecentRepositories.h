#pragma once

#include <QObject>
#include <QStringList>
#include <functional>
#include <memory>

class QMenu;
class QSettings;

namespace pw::gui {

// File ▸ Open Recent: the repositories opened last, most recent first, at most kMax,
// one entry per canonical path (a symlink and its target are one repository), kept in
// QSettings. Directories that no longer exist are left out when the list is read.
class RecentRepositories : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMax = 10;

    // `settingsFile` empty: the user's settings (patchwitness/workbench); tests pass a file
    // of their own (INI format) so they never touch the user's.
    explicit RecentRepositories(const QString &settingsFile = QString(), QObject *parent = nullptr);
    ~RecentRepositories() override;

    void add(const QString &path); // ignored unless `path` is an existing directory
    QStringList list() const;
    void clear();

    // Fills `menu` with the list ("&1 name  ~/path", Ctrl+1…Ctrl+9) and a "Clear" action;
    // a disabled placeholder when empty. Safe to call again at any time, also from one of
    // the menu's own actions (old actions are deleted later, not while they fire).
    void populateMenu(QMenu *menu, std::function<void(const QString &)> open);

Q_SIGNALS:
    void changed();

private:
    void write(const QStringList &paths);

    std::unique_ptr<QSettings> m_settings;
};

} // namespace pw::gui
