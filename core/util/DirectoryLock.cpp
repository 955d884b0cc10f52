#include "util/DirectoryLock.h"

#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <QDir>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

namespace pw::core {

DirectoryLock::DirectoryLock(const std::string &dir, std::chrono::milliseconds wait) : m_dir(dir)
{
    if (!QDir().mkpath(QString::fromStdString(dir)))
        throw Error::input(dir + ": cannot create the ledger directory");
    m_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (m_fd < 0)
        throw Error::input(cannotBeRead(dir, std::strerror(errno)));
    const auto deadline = std::chrono::steady_clock::now() + wait;
    // Polled rather than blocking, so that the wait is bounded; a short sleep keeps 40
    // waiting writers from spinning.
    auto pause = std::chrono::milliseconds(2);
    while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            const std::string reason = std::strerror(errno);
            ::close(m_fd);
            throw Error::input(dir + ": cannot be locked: " + reason);
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(m_fd);
            throw Error::input(dir + ": another writer has held its lock for " +
                               formatSeconds(std::chrono::duration<double>(wait).count()) +
                               "; nothing was written (try again when it is done)");
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
}

DirectoryLock::~DirectoryLock()
{
    if (m_fd >= 0)
        ::close(m_fd); // closing the last descriptor releases the flock
}

} // namespace pw::core
