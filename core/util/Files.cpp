#include "util/Files.h"

#include "util/Error.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTemporaryFile>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

FileRead readFileIfPresent(const std::string &path)
{
    FileRead result;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return result;
        result.status = FileRead::Status::Unreadable;
        result.reason = std::strerror(errno);
        return result;
    }
    result.status = FileRead::Status::Unreadable;
    if (!S_ISREG(st.st_mode)) {
        result.reason = S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file";
        return result;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        result.reason = std::strerror(errno);
        return result;
    }
    std::string bytes;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            result.reason = std::strerror(errno);
            ::close(fd);
            return result;
        }
        if (n == 0)
            break;
        bytes.append(buffer, size_t(n));
    }
    ::close(fd);
    result.status = FileRead::Status::Read;
    result.bytes = std::move(bytes);
    return result;
}

std::string cannotBeRead(const std::string &path, const std::string &reason)
{
    return path + ": cannot be read: " + reason;
}

bool lstatIfPresent(const std::string &path, const std::string &shown, struct stat *st)
{
    if (::lstat(path.c_str(), st) == 0)
        return true;
    if (errno == ENOENT || errno == ENOTDIR)
        return false;
    throw Error::input(cannotBeRead(shown, std::strerror(errno)));
}

std::optional<std::string> readFileOrAbsent(const std::string &path)
{
    FileRead read = readFileIfPresent(path);
    if (read.status == FileRead::Status::Unreadable)
        throw Error::input(cannotBeRead(path, read.reason));
    if (read.status == FileRead::Status::Absent)
        return std::nullopt;
    return std::move(read.bytes);
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
