#include "workspace/ViewedMarks.h"

#include "util/Files.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

namespace pw::gui {
namespace {

constexpr int kFormat = 1;

} // namespace

ViewedMarks::ViewedMarks(const QString &file)
    : m_file(file.isEmpty()
                 ? QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                       .filePath(QStringLiteral("viewed-marks.json"))
                 : file)
{
    m_marks = read();
}

QString ViewedMarks::repoKey(const QString &repo) const
{
    auto it = m_canonical.constFind(repo);
    if (it != m_canonical.constEnd())
        return *it;
    QString key = QFileInfo(repo).canonicalFilePath();
    if (key.isEmpty())
        key = QDir::cleanPath(QFileInfo(repo).absoluteFilePath());
    m_canonical.insert(repo, key);
    return key;
}

ViewedMarks::Marks ViewedMarks::read() const
{
    Marks marks;
    const auto bytes = core::readWholeFile(m_file.toStdString());
    if (!bytes)
        return marks;
    // A damaged file loses its marks, nothing else: they are a convenience.
    const QJsonObject root = QJsonDocument::fromJson(QByteArray::fromStdString(*bytes)).object();
    const QJsonObject repos = root.value(QLatin1String("repositories")).toObject();
    for (auto repo = repos.begin(); repo != repos.end(); ++repo) {
        const QJsonObject files = repo.value().toObject();
        QHash<QString, QString> &perRepo = marks[repo.key()];
        for (auto file = files.begin(); file != files.end(); ++file)
            perRepo.insert(file.key(), file.value().toString());
    }
    return marks;
}

bool ViewedMarks::write(const Marks &marks)
{
    QJsonObject repos;
    for (auto repo = marks.begin(); repo != marks.end(); ++repo) {
        if (repo.value().isEmpty())
            continue;
        QJsonObject files;
        for (auto file = repo.value().begin(); file != repo.value().end(); ++file)
            files.insert(file.key(), file.value());
        repos.insert(repo.key(), files);
    }
    const QJsonObject root{{QStringLiteral("format"), kFormat},
                           {QStringLiteral("repositories"), repos}};
    std::string error;
    if (!core::writeFileAtomically(m_file.toStdString(), QJsonDocument(root).toJson().toStdString(),
                                   true, &error)) {
        m_lastError = QString::fromStdString(error);
        return false;
    }
    m_lastError.clear();
    return true;
}

bool ViewedMarks::isViewed(const QString &repo, const QString &path, const QString &blob) const
{
    const auto perRepo = m_marks.constFind(repoKey(repo));
    if (perRepo == m_marks.constEnd())
        return false;
    const auto mark = perRepo->constFind(path);
    return mark != perRepo->constEnd() && *mark == blob;
}

void ViewedMarks::setViewed(const QString &repo, const QString &path, const QString &blob,
                            bool viewed)
{
    // Start from the file: another window may have marked files since we read it.
    Marks marks = read();
    const QString key = repoKey(repo);
    if (viewed)
        marks[key].insert(path, blob); // a mark on an older blob is replaced
    else if (marks.contains(key))
        marks[key].remove(path);
    if (viewed)
        m_marks[key].insert(path, blob);
    else
        m_marks[key].remove(path);
    if (write(marks))
        m_marks = std::move(marks);
}

int ViewedMarks::viewedCount(const QString &repo,
                             const std::vector<std::pair<QString, QString>> &files) const
{
    int n = 0;
    for (const auto &[path, blob] : files)
        n += isViewed(repo, path, blob) ? 1 : 0;
    return n;
}

} // namespace pw::gui
