#include "RunFixtures.h"

#include "TestSupport.h"
#include "util/Files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace pw::test {

void writeText(const std::string &dir, const std::string &relPath, const std::string &content)
{
    const QString path = QString::fromStdString(dir + "/" + relPath);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        throw std::runtime_error("cannot write " + path.toStdString());
    file.write(content.data(), qint64(content.size()));
}

core::RunSpec runSpec(const std::string &treeDir, const std::string &runDir)
{
    core::RunSpec spec;
    spec.treeDir = treeDir;
    spec.runDir = runDir;
    spec.env.python = testPython();
    spec.timeoutMs = 120 * 1000;
    return spec;
}

core::RunSpec runSpec(const std::string &treeDir, const std::string &runDir,
                      const std::string &python)
{
    core::RunSpec spec = runSpec(treeDir, runDir);
    spec.env.python = python;
    return spec;
}

core::RunRequest runRequest(const std::string &repoRoot, const std::string &cacheDir,
                            const std::string &base, const std::string &head,
                            const std::string &today)
{
    core::RunRequest r;
    r.target.repoPath = repoRoot;
    r.target.base = base;
    r.target.head = head;
    r.target.python = testPython();
    r.target.cacheDir = cacheDir + "/facts";
    r.target.today = today;
    r.cacheRoot = cacheDir + "/trees";
    r.workers = 2;
    r.timeoutSeconds = 120;
    r.sandbox = false;
    return r;
}

core::RunRequest runRequest(const std::string &repoRoot, const std::string &cacheDir,
                            const std::string &base, const std::string &head,
                            const std::string &today, const std::string &python)
{
    core::RunRequest r = runRequest(repoRoot, cacheDir, base, head, today);
    r.target.python = python;
    return r;
}

std::string hangingTestSource(const std::string &pidFile)
{
    const std::string file = "'" + pidFile + "'";
    return "import os, subprocess, time\n"
           "\n"
           "def test_hangs():\n"
           "    child = subprocess.Popen(['sleep', '600'])\n"
           "    with open(" +
           file +
           " + '.tmp', 'w') as f:\n"
           "        f.write('%d %d' % (os.getpid(), child.pid))\n"
           "    os.rename(" +
           file + " + '.tmp', " + file +
           ")\n"
           "    time.sleep(600)\n";
}

std::string daemonTestSource(const std::string &pidFile, bool hang)
{
    const std::string file = "'" + pidFile + "'";
    return "import os, subprocess, time\n"
           "\n"
           "def test_daemon():\n"
           "    child = subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
           "    with open(" +
           file +
           " + '.tmp', 'w') as f:\n"
           "        f.write('%d %d' % (os.getpid(), child.pid))\n"
           "    os.rename(" +
           file + " + '.tmp', " + file + ")\n" + (hang ? "    time.sleep(600)\n" : "");
}

std::vector<long> readPids(const std::string &pidFile)
{
    std::ifstream in(pidFile);
    std::vector<long> pids;
    long pid = 0;
    while (in >> pid)
        pids.push_back(pid);
    return pids;
}

bool pollUntil(const std::function<bool()> &done, int timeoutMs)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        QThread::msleep(20);
    }
    return true;
}

bool waitForFile(const std::string &path, int timeoutMs)
{
    return pollUntil([&path] { return QFileInfo::exists(QString::fromStdString(path)); },
                     timeoutMs);
}

namespace {

// Fields of /proc/<pid>/stat after the command name: state, ppid, pgrp, …
bool readStat(long pid, char *state, long *pgrp)
{
    // A process that ends while its stat is read makes read(2) fail (ESRCH): gone, not an
    // error (a stream iterator threw it out of the test).
    const pw::core::FileRead read =
        pw::core::readFileIfPresent("/proc/" + std::to_string(pid) + "/stat");
    if (read.status != pw::core::FileRead::Status::Read)
        return false;
    const std::string &text = read.bytes;
    const size_t close = text.rfind(')');
    if (close == std::string::npos)
        return false;
    std::istringstream rest(text.substr(close + 1));
    long ppid = 0;
    rest >> *state >> ppid >> *pgrp;
    return bool(rest);
}

} // namespace

bool isAlive(long pid)
{
    char state = 0;
    long pgrp = 0;
    return pid > 0 && readStat(pid, &state, &pgrp) && state != 'Z' && state != 'X';
}

std::vector<long> liveGroupMembers(long pgid)
{
    std::vector<long> members;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool ok = false;
        const long pid = entry.toLong(&ok);
        char state = 0;
        long pgrp = 0;
        if (ok && readStat(pid, &state, &pgrp) && pgrp == pgid && state != 'Z' && state != 'X')
            members.push_back(pid);
    }
    return members;
}

bool waitUntilGroupGone(long pgid, int timeoutMs)
{
    return pollUntil([pgid] { return liveGroupMembers(pgid).empty(); }, timeoutMs);
}

bool waitUntilGone(const std::vector<long> &pids, int timeoutMs)
{
    return pollUntil([&pids] { return std::none_of(pids.begin(), pids.end(), isAlive); },
                     timeoutMs);
}

std::vector<long> processesWorkingIn(const std::string &dir)
{
    const QString root = QDir::cleanPath(QString::fromStdString(dir));
    std::vector<long> found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool ok = false;
        const long pid = entry.toLong(&ok);
        if (!ok || !isAlive(pid))
            continue;
        const QString cwd =
            QFileInfo(QStringLiteral("/proc/") + entry + QStringLiteral("/cwd")).symLinkTarget();
        if (cwd == root || cwd.startsWith(root + QLatin1Char('/')))
            found.push_back(pid);
    }
    return found;
}

bool waitUntilNoneWorkingIn(const std::string &dir, int timeoutMs)
{
    return pollUntil([&dir] { return processesWorkingIn(dir).empty(); }, timeoutMs);
}

bool testPythonImports(const std::string &module)
{
    return QProcess::execute(QString::fromStdString(testPython()),
                             {QStringLiteral("-c"), QString::fromStdString("import " + module)}) ==
           0;
}

} // namespace pw::test
