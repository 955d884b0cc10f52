#include "workspace/RecentRepositories.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenu>
#include <QPointer>
#include <QSettings>

namespace pw::gui {
namespace {

const QString kKey = QStringLiteral("recent/repositories");

QString canonical(const QString &path)
{
    return QFileInfo(path).canonicalFilePath(); // empty when it does not exist
}

QString shortened(const QString &path)
{
    const QString home = QDir::homePath();
    if (path.startsWith(home + QLatin1Char('/')))
        return QLatin1Char('~') + path.mid(home.size());
    return QDir::toNativeSeparators(path);
}

QString escapeAmpersands(QString text)
{
    return text.replace(QLatin1Char('&'), QLatin1String("&&"));
}

} // namespace

RecentRepositories::RecentRepositories(const QString &settingsFile, QObject *parent)
    : QObject(parent),
      m_settings(settingsFile.isEmpty()
                     ? std::make_unique<QSettings>(QStringLiteral("patchwitness"),
                                                   QStringLiteral("workbench"))
                     : std::make_unique<QSettings>(settingsFile, QSettings::IniFormat))
{
}

RecentRepositories::~RecentRepositories() = default;

QStringList RecentRepositories::list() const
{
    QStringList out;
    for (const QString &path : m_settings->value(kKey).toStringList()) {
        const QString c = canonical(path);
        if (c.isEmpty() || !QFileInfo(c).isDir() || out.contains(c))
            continue;
        out << c;
        if (out.size() == kMax)
            break;
    }
    return out;
}

void RecentRepositories::add(const QString &path)
{
    const QString c = canonical(path);
    if (c.isEmpty() || !QFileInfo(c).isDir())
        return;
    QStringList paths = list();
    paths.removeAll(c);
    paths.prepend(c);
    while (paths.size() > kMax)
        paths.removeLast();
    write(paths);
}

void RecentRepositories::clear()
{
    write({});
}

void RecentRepositories::write(const QStringList &paths)
{
    m_settings->setValue(kKey, paths);
    m_settings->sync();
    Q_EMIT changed();
}

void RecentRepositories::populateMenu(QMenu *menu, std::function<void(const QString &)> open)
{
    for (QAction *action : menu->actions()) {
        menu->removeAction(action);
        if (action->parent() == menu)
            action->deleteLater();
    }
    const QStringList paths = list();
    for (int i = 0; i < paths.size(); ++i) {
        const QString &path = paths.at(i);
        const QString number = i < 9 ? QStringLiteral("&%1").arg(i + 1) : QString::number(i + 1);
        auto *action = new QAction(QStringLiteral("%1  %2  (%3)")
                                       .arg(number, escapeAmpersands(QFileInfo(path).fileName()),
                                            escapeAmpersands(shortened(path))),
                                   menu);
        action->setObjectName(QStringLiteral("recentRepository%1").arg(i + 1));
        action->setData(path);
        action->setToolTip(path);
        action->setStatusTip(path);
        if (i < 9)
            action->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
        connect(action, &QAction::triggered, this, [open, path] { open(path); });
        menu->addAction(action);
    }
    if (paths.isEmpty()) {
        QAction *none = menu->addAction(tr("No recent repositories"));
        none->setEnabled(false);
    }
    menu->addSeparator();
    QAction *clearAction = menu->addAction(tr("&Clear"));
    clearAction->setObjectName(QStringLiteral("clearRecentRepositories"));
    clearAction->setEnabled(!paths.isEmpty());
    QPointer<QMenu> target(menu);
    connect(clearAction, &QAction::triggered, this, [this, target, open] {
        clear();
        if (target)
            populateMenu(target, open);
    });
}

} // namespace pw::gui
