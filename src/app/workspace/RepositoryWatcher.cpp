#include "workspace/RepositoryWatcher.h"

#include "repo/Repository.h"
#include "util/Error.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <algorithm>
#include <utility>

namespace pw::gui {
namespace {

constexpr int kDefaultDebounceMs = 600;
constexpr int kMaxWatchedFiles = 2000; // inotify watches are a per-user budget
constexpr int kMaxWaitDebounces = 5;

bool isUnder(const QString &path, const QString &dir)
{
    return !dir.isEmpty() && (path == dir || path.startsWith(dir + QLatin1Char('/')));
}

} // namespace

RepositoryWatcher::RepositoryWatcher(QObject *parent) : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDefaultDebounceMs);
    connect(&m_timer, &QTimer::timeout, this, &RepositoryWatcher::fire);
}

RepositoryWatcher::~RepositoryWatcher() = default;

void RepositoryWatcher::setDebounce(int ms)
{
    m_timer.setInterval(std::max(0, ms));
}

RepositoryWatcher::GitDirs RepositoryWatcher::gitDirs(const QString &repoRoot)
{
    try {
        const core::Repository repo = core::Repository::open(repoRoot.toStdString());
        return {QDir::cleanPath(QString::fromStdString(repo.gitDir())),
                QDir::cleanPath(QString::fromStdString(repo.commonDir()))};
    } catch (const core::Error &) {
        return {};
    }
}

bool RepositoryWatcher::isIgnored(const QString &relativePath)
{
    const QString path = QDir::cleanPath(relativePath);
    if (path == QLatin1String("build") || path.startsWith(QLatin1String("build/")) ||
        path == QLatin1String(".git/objects") || path.startsWith(QLatin1String(".git/objects/")))
        return true;
    const QStringList parts = path.split(QLatin1Char('/'));
    return parts.contains(QLatin1String("__pycache__")) ||
           parts.contains(QLatin1String(".pytest_cache"));
}

bool RepositoryWatcher::ignoredAbsolute(const QString &path) const
{
    if (isUnder(path, m_git.commonDir + QLatin1String("/objects")) ||
        isUnder(path, m_git.gitDir + QLatin1String("/objects")))
        return true;
    if (isUnder(path, m_root) && path != m_root)
        return isIgnored(path.mid(m_root.size() + 1));
    return false;
}

bool RepositoryWatcher::ignorableName(const QString &dir, const QString &name) const
{
    if (name == QLatin1String("__pycache__") || name == QLatin1String(".pytest_cache") ||
        name.endsWith(QLatin1String(".pyc")))
        return true;
    return dir == m_root && name == QLatin1String("build");
}

void RepositoryWatcher::watch(const QString &repoRoot, const QStringList &relativeDirs)
{
    watch(repoRoot, relativeDirs, gitDirs(repoRoot));
}

void RepositoryWatcher::watch(const QString &repoRoot, const QStringList &relativeDirs,
                              const GitDirs &git)
{
    stop();
    const QString root = QDir::cleanPath(QFileInfo(repoRoot).absoluteFilePath());
    if (!QFileInfo(root).isDir())
        return;
    m_root = root;
    m_git = git;
    m_dirs = QStringList{root};
    for (const QString &relative : relativeDirs) {
        const QString clean = QDir::cleanPath(relative.isEmpty() ? QStringLiteral(".") : relative);
        if (clean.startsWith(QLatin1String("..")) || QDir::isAbsolutePath(clean))
            continue;
        if (clean != QLatin1String(".") && isIgnored(clean))
            continue;
        QString dir = QDir::cleanPath(QDir(root).filePath(clean));
        while (dir != root && !QFileInfo(dir).isDir())
            dir = QFileInfo(dir).path(); // deleted: its parent sees it come back
        if (!m_dirs.contains(dir))
            m_dirs << dir;
        if (!m_fileDirs.contains(dir) && dir == QDir::cleanPath(QDir(root).filePath(clean)))
            m_fileDirs << dir;
    }

    m_fs = new QFileSystemWatcher(this);
    connect(m_fs, &QFileSystemWatcher::directoryChanged, this,
            &RepositoryWatcher::onDirectoryChanged);
    connect(m_fs, &QFileSystemWatcher::fileChanged, this, &RepositoryWatcher::onFileChanged);
    rearm();
}

void RepositoryWatcher::stop()
{
    m_timer.stop();
    delete m_fs; // with it go its watches and any signal it still had to deliver
    m_fs = nullptr;
    m_root.clear();
    m_git = {};
    m_dirs.clear();
    m_fileDirs.clear();
    m_snapshots.clear();
}

QStringList RepositoryWatcher::watchedPaths() const
{
    if (!m_fs)
        return {};
    QStringList paths = m_fs->directories() + m_fs->files();
    paths.sort();
    return paths;
}

QStringList RepositoryWatcher::wantedPaths() const
{
    QStringList paths = m_dirs;
    int files = 0;
    for (const QString &dir : m_fileDirs) {
        const QFileInfoList entries =
            QDir(dir).entryInfoList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
        for (const QFileInfo &entry : entries) {
            if (files >= kMaxWatchedFiles)
                break;
            if (ignorableName(dir, entry.fileName()))
                continue;
            paths << entry.absoluteFilePath();
            ++files;
        }
    }
    if (!m_git.gitDir.isEmpty()) {
        const QDir git(m_git.gitDir), common(m_git.commonDir);
        // The directories catch git's lock-file-and-rename writes; the files are the
        // direct signal.
        paths << m_git.gitDir << git.filePath(QStringLiteral("HEAD"))
              << git.filePath(QStringLiteral("index"))
              << common.filePath(QStringLiteral("refs/heads"));
        if (m_git.commonDir != m_git.gitDir)
            paths << m_git.commonDir;
    }
    QStringList existing;
    for (const QString &path : paths) {
        if (QFileInfo::exists(path) && !existing.contains(path))
            existing << path;
    }
    return existing;
}

void RepositoryWatcher::rearm()
{
    if (!m_fs)
        return;
    // Files replaced by rename lost their watch; new files in watched directories need one.
    const QStringList watched = m_fs->directories() + m_fs->files();
    QStringList missing;
    for (const QString &path : wantedPaths()) {
        if (!watched.contains(path))
            missing << path;
    }
    if (!missing.isEmpty())
        m_fs->addPaths(missing);
    m_snapshots.clear();
    for (const QString &dir : std::as_const(m_dirs))
        m_snapshots.insert(dir, scan(dir));
}

RepositoryWatcher::Snapshot RepositoryWatcher::scan(const QString &dir)
{
    Snapshot snapshot;
    const QFileInfoList entries = QDir(dir).entryInfoList(QDir::AllEntries | QDir::Hidden |
                                                          QDir::System | QDir::NoDotAndDotDot);
    for (const QFileInfo &info : entries) {
        Entry entry;
        entry.isDir = info.isDir();
        if (!entry.isDir) { // a subdirectory's own time changes with its content
            entry.modified = info.lastModified().toMSecsSinceEpoch();
            entry.size = info.size();
        }
        entry.permissions = int(info.permissions());
        snapshot.insert(info.fileName(), entry);
    }
    return snapshot;
}

void RepositoryWatcher::onDirectoryChanged(const QString &dir)
{
    if (ignoredAbsolute(dir))
        return;
    const auto previous = m_snapshots.constFind(dir);
    if (previous == m_snapshots.constEnd()) {
        noteChange(); // a git directory: every change there matters
        return;
    }
    // Work tree directory: which entries changed? Only Python's caches and a top-level
    // build/ appearing is noise; anything else (or nothing visible: be safe) counts.
    const Snapshot now = scan(dir);
    QStringList changedNames;
    for (auto it = now.begin(); it != now.end(); ++it) {
        const auto old = previous->constFind(it.key());
        if (old == previous->constEnd() || !(*old == it.value()))
            changedNames << it.key();
    }
    for (auto it = previous->begin(); it != previous->end(); ++it) {
        if (!now.contains(it.key()))
            changedNames << it.key();
    }
    m_snapshots.insert(dir, now);
    const bool onlyNoise =
        !changedNames.isEmpty() &&
        std::all_of(changedNames.begin(), changedNames.end(),
                    [&](const QString &name) { return ignorableName(dir, name); });
    if (!onlyNoise)
        noteChange();
}

void RepositoryWatcher::onFileChanged(const QString &file)
{
    if (!ignoredAbsolute(file))
        noteChange();
}

void RepositoryWatcher::noteChange()
{
    if (!m_timer.isActive()) {
        m_burst.start();
        m_timer.start();
        return;
    }
    if (m_burst.elapsed() < qint64(kMaxWaitDebounces) * std::max(m_timer.interval(), 200))
        m_timer.start(); // still busy: wait for quiet
}

void RepositoryWatcher::fire()
{
    rearm();
    Q_EMIT changed();
}

} // namespace pw::gui
