#include "workspace/RevisionLoader.h"

#include "repo/Repository.h"
#include "util/Error.h"

#include <QtConcurrent/QtConcurrentRun>

namespace pw::gui {

RevisionLoader::RevisionLoader(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<std::vector<core::RevisionChoice>>();
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, &RevisionLoader::onFinished);
}

RevisionLoader::~RevisionLoader()
{
    m_watcher.waitForFinished(); // the task owns nothing of ours, but never outlive it
}

RevisionLoader::Result RevisionLoader::loadNow(const QString &repoPath, int recentCommits)
{
    Result out;
    out.repo = repoPath;
    try {
        const core::Repository repo = core::Repository::open(repoPath.toStdString());
        out.choices = core::revisionChoices(repo, recentCommits);
        out.defaultHead = QString::fromStdString(core::defaultHeadSpec(repo));
        out.defaultBase = QString::fromStdString(core::defaultBaseSpec(repo));
    } catch (const std::exception &e) {
        out.error = tr("Cannot list the revisions of %1: %2")
                        .arg(repoPath, QString::fromStdString(e.what()));
    }
    return out;
}

void RevisionLoader::load(const QString &repoPath, int recentCommits)
{
    if (m_watcher.isRunning()) {
        m_pending = std::make_pair(repoPath, recentCommits);
        return;
    }
    m_watcher.setFuture(
        QtConcurrent::run([repoPath, recentCommits] { return loadNow(repoPath, recentCommits); }));
}

void RevisionLoader::onFinished()
{
    Result result = m_watcher.result();
    if (m_pending) {
        // A newer request is waiting: this answer is already stale.
        const auto [repo, n] = *m_pending;
        m_pending.reset();
        load(repo, n);
        return;
    }
    if (!result.error.isEmpty()) {
        Q_EMIT failed(result.error);
        return;
    }
    m_last = std::move(result);
    Q_EMIT loaded(m_last.repo, m_last.choices);
}

} // namespace pw::gui
