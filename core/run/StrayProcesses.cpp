#include "run/StrayProcesses.h"

#include <QDir>
#include <QRandomGenerator>
#include <csignal>
#include <fstream>
#include <iterator>
#include <set>
#include <sys/types.h>
#include <unistd.h>

namespace pw::core::stray {

std::string newToken()
{
    return std::to_string(::getpid()) + "-" +
           QString::number(QRandomGenerator::global()->generate64(), 16).toStdString();
}

int killHolders(const std::string &token)
{
#ifdef __linux__
    const std::string needle = std::string(kRunTokenVariable) + "=" + token;
    const pid_t self = ::getpid();
    std::set<pid_t> killed;
    for (int pass = 0; pass < 20; ++pass) {
        bool found = false;
        for (const QString &name :
             QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            bool numeric = false;
            const pid_t pid = pid_t(name.toLong(&numeric));
            if (!numeric || pid == self)
                continue;
            // Unreadable for another user's processes: those never held our token.
            std::ifstream in("/proc/" + name.toStdString() + "/environ", std::ios::binary);
            if (!in)
                continue;
            const std::string environ((std::istreambuf_iterator<char>(in)),
                                      std::istreambuf_iterator<char>());
            size_t at = 0;
            bool holds = false;
            while (at < environ.size()) {
                const size_t end = environ.find('\0', at);
                const size_t stop = end == std::string::npos ? environ.size() : end;
                if (environ.compare(at, stop - at, needle) == 0) {
                    holds = true;
                    break;
                }
                at = stop + 1;
            }
            if (!holds)
                continue;
            // one still exiting from an earlier pass is no new find
            if (::kill(pid, SIGKILL) == 0 && killed.insert(pid).second)
                found = true;
        }
        if (!found)
            break;
    }
    return int(killed.size());
#else
    (void)token;
    return 0;
#endif
}

} // namespace pw::core::stray
