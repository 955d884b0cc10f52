#include "util/Files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTemporaryFile>
#include <cstdio>

namespace pw::core {

bool writeFileAtomically(const std::string &path, const std::string &bytes, bool createDirs,
                         std::string *error)
{
    const QString target = QString::fromStdString(path);
    if (createDirs)
        QDir().mkpath(QFileInfo(target).absolutePath());
    QSaveFile file(target);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = path + ": " + file.errorString().toStdString();
        return false;
    }
    if (file.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()) || !file.commit()) {
        if (error)
            *error = path + ": " + file.errorString().toStdString();
        file.cancelWriting();
        return false;
    }
    return true;
}

bool writeFileReplacing(const std::string &path, const std::string &bytes, bool createDirs)
{
    const QString target = QString::fromStdString(path);
    if (createDirs)
        QDir().mkpath(QFileInfo(target).absolutePath());
    QTemporaryFile tmp(target + QStringLiteral(".XXXXXX"));
    tmp.setAutoRemove(true);
    if (!tmp.open() || tmp.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()) ||
        !tmp.flush())
        return false;
    // rename(2) replaces the target atomically; QFile::rename would refuse an existing one.
    if (std::rename(QFile::encodeName(tmp.fileName()).constData(),
                    QFile::encodeName(target).constData()) != 0)
        return false;
    tmp.setAutoRemove(false);
    return true;
}

std::optional<std::string> readWholeFile(const std::string &path)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return file.readAll().toStdString();
}

std::string sha256Hex(const std::string &bytes, int hexChars)
{
    const QByteArray digest =
        QCryptographicHash::hash(QByteArray::fromRawData(bytes.data(), int(bytes.size())),
                                 QCryptographicHash::Sha256)
            .toHex();
    std::string out = digest.toStdString();
    if (hexChars > 0 && size_t(hexChars) < out.size())
        out.resize(size_t(hexChars));
    return out;
}

} // namespace pw::core
