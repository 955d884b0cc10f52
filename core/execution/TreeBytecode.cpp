#include "execution/TreeBytecode.h"

#include "execution/Interpreter.h"
#include "execution/QuickProcess.h"
#include "execution/TreeCopy.h"
#include "util/Files.h"

#include <QFile>
#include <QProcessEnvironment>
#include <QString>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace pw::core {

namespace {

namespace fs = std::filesystem;

constexpr char kManifest[] = "MANIFEST";

// A directory name from the tag and pytest's version: nothing but [A-Za-z0-9._-].
std::string variantName(const InterpreterProbe &probe)
{
    std::string name =
        probe.cacheTag + "-pytest-" + (probe.pytestVersion.empty() ? "none" : probe.pytestVersion);
    for (char &c : name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!plain)
            c = '_';
    }
    return name;
}

std::string script()
{
    QFile f(QStringLiteral(":/patchwitness/pw_bytecode.py"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

// "sha256 relpath" for every regular file under `dir`, sorted by path; false when one
// cannot be read.
bool writeManifest(const std::string &dir)
{
    std::vector<std::string> lines;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->is_symlink(ec))
            continue;
        const std::optional<std::string> bytes = readWholeFile(it->path().string());
        if (!bytes)
            return false;
        lines.push_back(sha256Hex(*bytes) + ' ' +
                        it->path().lexically_relative(dir).generic_string());
    }
    if (ec)
        return false;
    std::sort(lines.begin(), lines.end(), [](const std::string &a, const std::string &b) {
        return a.compare(65, std::string::npos, b, 65, std::string::npos) < 0;
    });
    std::string text;
    for (const std::string &line : lines)
        text += line + '\n';
    return writeFileReplacing(dir + "/" + kManifest, text);
}

bool writeNew(const std::string &path, const std::string &bytes)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += size_t(n);
    }
    return ::close(fd) == 0 && done == bytes.size();
}

// Out of the way first (a copy being seeded from it sees it vanish and stops), then gone.
void discard(const std::string &variant)
{
    std::string away = variant + ".stale-XXXXXX";
    if (::mkdtemp(away.data())) {
        ::rename(variant.c_str(), (away + "/v").c_str());
        removeTreeCopy(away);
    }
    removeTreeCopy(variant); // when it could not be moved
}

} // namespace

TreeBytecode ensureTreeBytecode(const std::string &python, const InterpreterProbe &probe,
                                const std::string &tree, const std::string &store, int timeoutMs)
{
    if (probe.cacheTag.empty() || tree.empty() || store.empty())
        return {};
    const std::string variant = store + "/" + variantName(probe);
    struct stat st;
    if (::stat((variant + "/" + kManifest).c_str(), &st) == 0)
        return {variant};

    static std::mutex mutex;
    static std::set<std::string> failed; // not tried again by this process
    const std::lock_guard<std::mutex> lock(mutex);
    if (::stat((variant + "/" + kManifest).c_str(), &st) == 0)
        return {variant}; // another thread wrote it meanwhile
    if (failed.count(variant))
        return {};
    const std::string code = script();
    const std::string program = interpreterPath(python);
    std::error_code ec;
    fs::create_directories(store, ec);
    std::string build = store + "/.build-XXXXXX";
    if (code.empty() || program.empty() || ec || !::mkdtemp(build.data())) {
        failed.insert(variant);
        return {};
    }
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    environment.insert(QStringLiteral("HOME"), QString::fromStdString(build));
    // -E: no PYTHONPATH or startup file of the caller's; -s: no user site (the runs have a
    // private HOME, so none either). Nothing of the tree is imported: it is only compiled.
    const QuickRun run = runQuick(QString::fromStdString(program),
                                  {QStringLiteral("-E"), QStringLiteral("-s"), QStringLiteral("-c"),
                                   QString::fromStdString(code), QString::fromStdString(tree),
                                   QString::fromStdString(build)},
                                  environment, QString::fromStdString(build), timeoutMs);
    if (!run.succeeded() || !writeManifest(build) ||
        ::rename(build.c_str(), variant.c_str()) != 0) {
        // Failed, or another process renamed its own into place first (ENOTEMPTY).
        removeTreeCopy(build);
        if (::stat((variant + "/" + kManifest).c_str(), &st) == 0)
            return {variant};
        failed.insert(variant);
        return {};
    }
    return {variant};
}

int seedTreeBytecode(const TreeBytecode &bytecode, const std::string &copy, bool rewritten)
{
    if (bytecode.isNull() || copy.empty())
        return 0;
    const std::optional<std::string> manifest = readWholeFile(bytecode.dir + "/" + kManifest);
    if (!manifest)
        return 0;
    int seeded = 0;
    std::istringstream lines(*manifest);
    std::set<std::string> made;
    for (std::string line; std::getline(lines, line);) {
        const size_t space = line.find(' ');
        if (space != 64) {
            discard(bytecode.dir);
            break;
        }
        const std::string rel = line.substr(space + 1);
        const size_t slash = rel.rfind('/');
        const std::string dirRel =
            slash == std::string::npos ? std::string() : rel.substr(0, slash);
        // Only `__pycache__/<name>.pyc` below a directory of the tree, never a path out of it.
        const bool shaped =
            !rel.empty() && rel.find("..") == std::string::npos && rel.front() != '/' &&
            (dirRel == "__pycache__" || (dirRel.size() > 12 && dirRel.ends_with("/__pycache__")));
        if (!shaped) {
            discard(bytecode.dir);
            break;
        }
        if (!rewritten && rel.find("-pytest-") != std::string::npos)
            continue;
        const std::optional<std::string> bytes = readWholeFile(bytecode.dir + "/" + rel);
        if (!bytes || sha256Hex(*bytes) != line.substr(0, 64)) {
            discard(bytecode.dir); // something wrote into the store: write it again
            break;
        }
        const std::string dir = copy + "/" + dirRel;
        if (made.insert(dir).second) {
            const std::string parent = dir.substr(0, dir.size() - 12);
            struct stat st;
            // The source directory must be in the copy (a tree without it: skip its pycs).
            if (::lstat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
            if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
                continue;
        }
        seeded += writeNew(copy + "/" + rel, *bytes) ? 1 : 0;
    }
    return seeded;
}

} // namespace pw::core
