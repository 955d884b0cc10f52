#pragma once

#include <QHash>
#include <QString>
#include <utility>
#include <vector>

namespace pw::gui {

// "Viewed" check marks on changed files, one per (repository, file path,
// head blob id): a mark holds only while the file has the blob it was set on, so it resets
// when the agent changes the file again. For a WORKTREE head the blob is the id git would
// give the file on disk (Repository::listFiles(WORKTREE) / FileDiff::newBlob).
//
// Stored as JSON (`<AppDataLocation>/viewed-marks.json` unless a file is given), rewritten
// atomically on every change, merged with what other windows wrote meanwhile.
class ViewedMarks
{
public:
    explicit ViewedMarks(const QString &file = QString());

    bool isViewed(const QString &repo, const QString &path, const QString &blob) const;
    void setViewed(const QString &repo, const QString &path, const QString &blob, bool viewed);
    // How many of (path, blob) carry a mark.
    int viewedCount(const QString &repo,
                    const std::vector<std::pair<QString, QString>> &files) const;

    QString fileName() const { return m_file; }
    // Why the last write failed (empty when it did not): the marks stay in memory.
    QString lastError() const { return m_lastError; }

private:
    using Marks = QHash<QString, QHash<QString, QString>>; // repo → path → blob

    QString repoKey(const QString &repo) const;
    Marks read() const;
    bool write(const Marks &marks);

    QString m_file;
    Marks m_marks;
    QString m_lastError;
    mutable QHash<QString, QString> m_canonical;
};

} // namespace pw::gui
