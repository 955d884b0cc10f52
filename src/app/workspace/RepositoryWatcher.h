#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>

class QFileSystemWatcher;

namespace pw::gui {

// Tells the window when the repository changed on disk so it can audit again: the work
// tree directories that hold changed files (and those files: a file written in place
// does not touch its directory), the repository root, and git's HEAD, index and
// refs/heads (in the right git directories for a linked worktree). A burst of events
// (an agent writing twenty files, a commit) gives one changed() once things are quiet
// for debounce() ms — or at the latest a few debounces after the burst began, so a
// process that never stops writing cannot starve the window. Events under `build/`,
// `.git/objects`, `__pycache__` and `.pytest_cache` are ignored.
class RepositoryWatcher : public QObject
{
    Q_OBJECT
public:
    struct GitDirs
    {
        QString gitDir;    // HEAD and index: `.git`, or `.git/worktrees/<name>`
        QString commonDir; // refs and objects: `.git` of the main work tree
    };

    explicit RepositoryWatcher(QObject *parent = nullptr);
    ~RepositoryWatcher() override;

    // Replaces what was watched. `relativeDirs` are '/'-separated and relative to
    // `repoRoot` ("." or "" is the root); a directory that no longer exists is watched
    // through its nearest existing parent, so its re-creation is seen.
    void watch(const QString &repoRoot, const QStringList &relativeDirs, const GitDirs &git);
    // The same with gitDirs(repoRoot): git is asked on the calling thread, so never on the
    // GUI thread — the window passes the directories its audit resolved.
    void watch(const QString &repoRoot, const QStringList &relativeDirs);
    void stop();
    bool isWatching() const { return !m_root.isEmpty(); }

    void setDebounce(int ms);
    int debounce() const { return m_timer.interval(); }

    QStringList watchedPaths() const; // absolute, sorted

    // The git directories of the repository `repoRoot` belongs to (it or a directory above
    // it), as libgit2 resolves them (a linked worktree's `.git` file and its `commondir`).
    // Empty members when there is none. Reads git: not on the GUI thread.
    static GitDirs gitDirs(const QString &repoRoot);
    // For a path relative to the work tree: `build/…`, `.git/objects/…`, anything in a
    // `__pycache__` or `.pytest_cache` directory.
    static bool isIgnored(const QString &relativePath);

Q_SIGNALS:
    void changed();

private:
    struct Entry
    {
        qint64 modified = 0;
        qint64 size = 0;
        int permissions = 0;
        bool isDir = false;
        bool operator==(const Entry &o) const
        {
            return modified == o.modified && size == o.size && permissions == o.permissions &&
                   isDir == o.isDir;
        }
    };
    using Snapshot = QHash<QString, Entry>;

    void onDirectoryChanged(const QString &dir);
    void onFileChanged(const QString &file);
    void noteChange();
    void fire();
    void rearm();
    QStringList wantedPaths() const;
    bool ignoredAbsolute(const QString &path) const;
    bool ignorableName(const QString &dir, const QString &name) const;
    static Snapshot scan(const QString &dir);

    QFileSystemWatcher *m_fs = nullptr;
    QTimer m_timer;
    QElapsedTimer m_burst;
    QString m_root;
    GitDirs m_git;
    QStringList m_dirs;     // absolute work tree directories, the root first
    QStringList m_fileDirs; // those whose files are watched too
    QHash<QString, Snapshot> m_snapshots;
};

} // namespace pw::gui
