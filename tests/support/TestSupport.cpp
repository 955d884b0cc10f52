#include "TestSupport.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QStringList>
#include <git2.h>

namespace pw::test {

bool sandboxRequired()
{
    return qEnvironmentVariableIntValue("PATCHWITNESS_REQUIRE_SANDBOX") == 1;
}

std::string testPython()
{
    const QByteArray fromEnv = qgetenv("PW_TEST_PYTHON");
    return fromEnv.isEmpty() ? std::string(PW_TEST_PYTHON) : fromEnv.toStdString();
}

namespace {

// A unified diff (3 lines of context) of two texts, through libgit2's buffer diff.
QString unifiedDiff(const QString &oldName, const QByteArray &oldText, const QString &newName,
                    const QByteArray &newText)
{
    git_libgit2_init();
    const QByteArray oldPath = oldName.toUtf8();
    const QByteArray newPath = newName.toUtf8();
    git_patch *patch = nullptr;
    git_buf buf = GIT_BUF_INIT;
    QString out;
    if (git_patch_from_buffers(&patch, oldText.constData(), size_t(oldText.size()),
                               oldPath.constData(), newText.constData(), size_t(newText.size()),
                               newPath.constData(), nullptr) == 0 &&
        git_patch_to_buf(&buf, patch) == 0) {
        out = QString::fromUtf8(buf.ptr, qsizetype(buf.size));
    } else {
        const git_error *e = git_error_last();
        out = QStringLiteral("(no diff: %1)\n").arg(QString::fromUtf8(e ? e->message : "?"));
    }
    git_buf_dispose(&buf);
    git_patch_free(patch);
    git_libgit2_shutdown();
    return out;
}

} // namespace

bool compareGolden(const QString &relPath, const QByteArray &actual, QString *diff)
{
    const QString path = QStringLiteral(PW_GOLDEN_DIR) + QLatin1Char('/') + relPath;
    if (qEnvironmentVariable("PW_REGENERATE_GOLDEN") == QLatin1String("1")) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            out.write(actual) != actual.size()) {
            if (diff)
                *diff = QStringLiteral("cannot write golden file ") + path;
            return false;
        }
        return true;
    }
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        if (diff)
            *diff = QStringLiteral("golden file ") + path +
                    QStringLiteral(" is missing (run with PW_REGENERATE_GOLDEN=1 to create it)");
        return false;
    }
    const QByteArray expected = in.readAll();
    if (expected == actual)
        return true;
    if (diff)
        *diff = unifiedDiff(QStringLiteral("golden/") + relPath, expected, QStringLiteral("actual"),
                            actual);
    return false;
}

QString panelShotsDir()
{
    const QString dir =
        qEnvironmentVariableIsSet("PW_PANEL_SHOTS")
            ? qEnvironmentVariable("PW_PANEL_SHOTS")
            : QCoreApplication::applicationDirPath() + QStringLiteral("/panel-shots");
    QDir().mkpath(dir);
    return dir;
}

} // namespace pw::test
