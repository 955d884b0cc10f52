#include "workspace/RevisionLoader.h"

#include "repo/Repository.h"
#include "util/Error.h"

namespace pw::gui {

RevisionLoader::RevisionLoader(QObject *parent)
    : QObject(parent), m_task(this, [this](Result result) { onFinished(std::move(result)); })
{
    qRegisterMetaType<std::vector<core::RevisionChoice>>();
}

RevisionLoader::~RevisionLoader() = default; // m_task waits for a running load

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
    m_task.start(
        [repoPath, recentCommits](std::stop_token) { return loadNow(repoPath, recentCommits); });
}

void RevisionLoader::onFinished(Result result)
{
    if (!result.error.isEmpty()) {
        Q_EMIT failed(result.error);
        return;
    }
    m_last = std::move(result);
    Q_EMIT loaded(m_last.repo, m_last.choices);
}

} // namespace pw::gui
