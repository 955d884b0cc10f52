#pragma once

#include "LatestTask.h"
#include "repo/RevisionCatalog.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <optional>
#include <vector>

Q_DECLARE_METATYPE(std::vector<pw::core::RevisionChoice>)

namespace pw::gui {

// Lists a repository's revisions (core::revisionChoices) and the default base and
// head off the GUI thread (LatestTask). One load at a time: a load requested while one
// runs replaces any waiting request and starts when the running one ends.
class RevisionLoader : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        QString repo;
        std::vector<core::RevisionChoice> choices;
        QString defaultBase; // empty when there is nothing to compare against
        QString defaultHead;
        QString error; // set when the listing failed
    };

    explicit RevisionLoader(QObject *parent = nullptr);
    ~RevisionLoader() override;

    void load(const QString &repoPath, int recentCommits = 30);
    bool isRunning() const { return m_task.isBusy(); }
    // Of the last successful load; valid when loaded() is emitted.
    QString defaultBaseSpec() const { return m_last.defaultBase; }
    QString defaultHeadSpec() const { return m_last.defaultHead; }

    static Result loadNow(const QString &repoPath, int recentCommits);

Q_SIGNALS:
    void loaded(const QString &repo, const std::vector<pw::core::RevisionChoice> &choices);
    void failed(const QString &message);

private:
    void onFinished(Result result);

    Result m_last;
    LatestTask<Result> m_task;
};

} // namespace pw::gui
