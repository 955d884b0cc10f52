#include "execution/TreeCache.h"

#include "execution/TreeCopy.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QStandardPaths>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace pw::core {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kPollMs = 20;
// Git's file modes, as FileEntry carries them.
constexpr uint32_t kModeLink = 0120000;
constexpr uint32_t kModeExecutable = 0100755;

// Leases this process holds per tree directory. flock cannot tell threads of one process
// apart from its own lease, so a thread that rebuilt a tree another thread of ours still
// runs in would wait for itself; this count turns that into an error instead.
std::mutex s_heldMutex;
std::map<std::string, int> s_held;

int heldInProcess(const std::string &dir)
{
    std::lock_guard<std::mutex> lock(s_heldMutex);
    const auto it = s_held.find(dir);
    return it == s_held.end() ? 0 : it->second;
}

// An open descriptor of `path` locked with `op` (LOCK_SH / LOCK_EX), or -1 when the lock
// was not granted within `timeoutMs` (0: do not wait) or `stop` was requested meanwhile.
// The evictor unlinks lock files it holds exclusively, so a lock on a file that is no
// longer at `path` is retried.
int lockFile(const std::string &path, int op, int timeoutMs, std::stop_token stop = {})
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            throw Error::input(path + ": cannot create lock file: " + std::strerror(errno));
        while (::flock(fd, op | LOCK_NB) != 0) {
            if (errno == EINTR)
                continue;
            if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline ||
                stop.stop_requested()) {
                ::close(fd);
                return -1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
        }
        struct stat held, current;
        if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &current) == 0 &&
            held.st_ino == current.st_ino && held.st_dev == current.st_dev)
            return fd;
        ::close(fd);
    }
}

// The lease behind MaterializedTree: a shared flock plus this process's count.
struct Lease
{
    Lease(int fd, std::string dir) : fd(fd), dir(std::move(dir))
    {
        std::lock_guard<std::mutex> lock(s_heldMutex);
        ++s_held[this->dir];
    }
    ~Lease()
    {
        {
            std::lock_guard<std::mutex> lock(s_heldMutex);
            if (--s_held[dir] <= 0)
                s_held.erase(dir);
        }
        ::close(fd);
    }
    Lease(const Lease &) = delete;
    Lease &operator=(const Lease &) = delete;

    int fd;
    std::string dir;
};

// The git blob id of `bytes` (what `git hash-object` prints, no filters).
std::string gitBlobId(const char *data, size_t size)
{
    QCryptographicHash sha(QCryptographicHash::Sha1);
    const std::string header = "blob " + std::to_string(size) + '\0';
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    sha.addData(QByteArrayView(header.data(), qsizetype(header.size())));
    sha.addData(QByteArrayView(data, qsizetype(size)));
#else
    sha.addData(header.data(), int(header.size()));
    sha.addData(data, int(size));
#endif
    return sha.result().toHex().toStdString();
}

// The bytes of the regular file or symlink `path` (a symlink: its target, as git stores
// it), or nullopt when it cannot be read.
std::optional<std::string> entryBytes(const std::string &path, bool link, off_t sizeHint)
{
    std::string bytes;
    if (link) {
        bytes.resize(size_t(sizeHint) + 1);
        const ssize_t n = ::readlink(path.c_str(), bytes.data(), bytes.size());
        if (n < 0 || size_t(n) >= bytes.size())
            return std::nullopt; // retargeted while read: not intact either way
        bytes.resize(size_t(n));
        return bytes;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0)
            break;
        bytes.append(buffer, size_t(n));
    }
    ::close(fd);
    return bytes;
}

// Whether `dir` holds exactly the revision's files: every listed path, with its type, its
// executable bit and its content (the git blob id of the bytes on disk, against the
// listing's id from the object database, or `rawIds`' for a WORKTREE file whose listing
// id went through git's filters), and nothing else — no extra file or directory, so no
// `__pycache__`, `.pyc`, `.pytest_cache` or anything else a run could leave for the next
// to import. With `collect`, content that differs is recorded there (path → raw id)
// instead of failing: how a WORKTREE rebuild learns `rawIds`. `count`: files checked.
// False, too, when `stop` is requested before the check is done: a caller that acts on
// "not intact" looks at `stop` first.
bool holdsExactly(const std::string &dir, const std::vector<FileEntry> &files,
                  const std::map<std::string, std::string> &rawIds,
                  std::map<std::string, std::string> *collect = nullptr, size_t *count = nullptr,
                  std::stop_token stop = {}, std::string *why = nullptr)
{
    const auto differs = [why](const std::string &what) {
        if (why)
            *why = what;
        return false;
    };
    std::map<std::string, const FileEntry *> expected;
    std::set<std::string> parents;
    for (const FileEntry &f : files) {
        expected.emplace(f.path, &f);
        for (size_t slash = f.path.find('/'); slash != std::string::npos;
             slash = f.path.find('/', slash + 1))
            parents.insert(f.path.substr(0, slash));
    }
    size_t seen = 0;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec), end;
    if (ec)
        return differs(dir + ": cannot be listed: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec || stop.stop_requested())
            return differs(dir + ": cannot be listed" + (ec ? ": " + ec.message() : ""));
        const std::string abs = it->path().string();
        const std::string rel = it->path().lexically_relative(dir).generic_string();
        struct stat st;
        if (::lstat(abs.c_str(), &st) != 0)
            return differs(rel + ": cannot be read");
        if (S_ISDIR(st.st_mode)) {
            if (!parents.count(rel)) // __pycache__, .pytest_cache, a directory a run made
                return differs(rel + "/: a directory the revision does not have");
            continue;
        }
        const auto found = expected.find(rel);
        if (found == expected.end() || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            return differs(rel + ": a file the revision does not have");
        const FileEntry &f = *found->second;
        const bool link = S_ISLNK(st.st_mode);
        if (link != (f.mode == kModeLink))
            return differs(rel + ": " + (link ? "a symlink" : "not a symlink") + " here");
        if (!link && bool(st.st_mode & S_IXUSR) != (f.mode == kModeExecutable))
            return differs(rel + ": its executable bit differs");
        const std::optional<std::string> bytes = entryBytes(abs, link, st.st_size);
        if (!bytes)
            return differs(rel + ": cannot be read");
        const std::string id = gitBlobId(bytes->data(), bytes->size());
        const auto raw = rawIds.find(rel);
        if (id != (raw != rawIds.end() ? raw->second : f.blob)) {
            if (!collect)
                return differs(rel + ": its content differs");
            (*collect)[rel] = id;
        }
        ++seen;
    }
    if (ec || seen != expected.size())
        return differs(ec ? dir + ": cannot be listed: " + ec.message()
                          : std::to_string(expected.size() - seen) + " of its files missing");
    if (count)
        *count = seen;
    return true;
}

// The marker's listing (path, mode, id of the bytes on disk): what a run's copy holds.
std::optional<std::vector<FileEntry>> markerListing(const json &marker)
{
    std::vector<FileEntry> files;
    for (const json &entry : marker["listing"]) {
        if (!entry.is_array() || entry.size() != 3 || !entry[0].is_string() ||
            !entry[1].is_number_unsigned() || !entry[2].is_string())
            return std::nullopt;
        files.push_back(
            {entry[0].get<std::string>(), entry[2].get<std::string>(), entry[1].get<uint32_t>()});
    }
    return files;
}

// The marker's record of a tree, or nullopt when it is missing, garbage or another key's.
std::optional<json> readMarker(const std::string &markerPath, const std::string &key)
{
    const std::optional<std::string> text = readWholeFile(markerPath);
    if (!text)
        return std::nullopt;
    json marker = json::parse(*text, nullptr, false);
    if (!marker.is_object() || marker.value("key", std::string()) != key ||
        marker.value("check", std::string()) != "content" || !marker.contains("listing") ||
        !marker["listing"].is_array() || !markerListing(marker))
        return std::nullopt; // a damaged listing: rebuilt, never a copy checked against it
    return marker;
}

bool isIntact(const std::string &dir, const std::string &markerPath, const std::string &key,
              const std::vector<FileEntry> &files, std::stop_token stop)
{
    const std::optional<json> marker = readMarker(markerPath, key);
    if (!marker)
        return false;
    std::map<std::string, std::string> rawIds;
    const json raw = marker->value("raw", json::object());
    for (auto it = raw.begin(); it != raw.end(); ++it) {
        if (it.value().is_string())
            rawIds[it.key()] = it.value().get<std::string>();
    }
    return holdsExactly(dir, files, rawIds, nullptr, nullptr, stop);
}

void touch(const std::string &path)
{
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); // LRU order; failure only costs order
}

std::string worktreeKey(const std::vector<FileEntry> &files)
{
    std::string listing;
    for (const FileEntry &f : files)
        listing += std::to_string(f.mode) + ' ' + f.blob + ' ' + f.path + '\n';
    return "wt-" + sha256Hex(listing, 40);
}

void removeTree(const std::string &dir, const std::string &markerPath)
{
    ::unlink(markerPath.c_str()); // first: a half-removed tree must never look intact
    std::error_code ec;
    // Its bytecode (TreeBytecode) was checked against the files' mtimes: a rebuild's differ.
    removeTreeCopy(dir + ".pyc");
    fs::remove_all(dir, ec);
    if (ec)
        throw Error::input(dir + ": cannot remove stale cached tree: " + ec.message());
}

// Copies of `dir` that runs killed with patchwitness (kill -9) left behind: only called
// with the tree's exclusive lock, so no lease, and hence no live run's copy, exists.
void removeLeftCopies(const std::string &dir)
{
    const fs::path path(dir);
    const std::string prefix = path.filename().string() + ".run-";
    std::error_code ec;
    for (const fs::directory_entry &e : fs::directory_iterator(path.parent_path(), ec)) {
        if (e.path().filename().string().starts_with(prefix))
            removeTreeCopy(e.path().string());
    }
}

std::string stoppedWriting(const Revision &rev)
{
    return "materialising " + rev.spec + " stopped; the half-written tree was removed";
}

// Called with the exclusive lock. A tree that is not written to the end (a stop, a full
// disk) is removed before the error goes on: nothing half-made stays in the cache.
void rebuild(const Repository &repo, const Revision &rev, const std::string &key,
             const std::string &dir, const std::string &markerPath, std::stop_token stop)
{
    removeTree(dir, markerPath);
    removeLeftCopies(dir);
    std::vector<FileEntry> files;
    try {
        files = repo.materialize(rev, dir, stop);
    } catch (const Error &e) {
        std::error_code ec;
        fs::remove_all(dir, ec); // best effort: the error to report is `e`
        if (e.kind() == Error::Kind::Interrupted)
            throw Error::interrupted(stoppedWriting(rev));
        throw;
    }
    if (rev.isWorktree() && worktreeKey(files) != key) {
        removeTree(dir, markerPath);
        throw Error::input(rev.spec + ": the working tree changed while it was copied; try again");
    }
    // Read back by content: what the next acquire compares. A WORKTREE file's listing id is
    // git's filtered one (eol, ident), its copy the bytes on disk: those ids are kept.
    std::map<std::string, std::string> raw;
    size_t count = 0;
    if (!holdsExactly(dir, files, {}, &raw, &count, stop)) {
        removeTree(dir, markerPath);
        if (stop.stop_requested())
            throw Error::interrupted(stoppedWriting(rev));
        throw Error::input(dir + ": cannot read back the materialised tree");
    }
    if (!rev.isWorktree() && !raw.empty())
        throw Error::harness(dir + "/" + raw.begin()->first +
                             ": the materialised file is not the blob it was written from");
    json listing = json::array();
    for (const FileEntry &f : files) {
        const auto id = raw.find(f.path);
        listing.push_back({f.path, f.mode, id != raw.end() ? id->second : f.blob});
    }
    const json marker = {{"key", key},
                         {"revision", rev.spec},
                         {"commit", rev.commit},
                         {"check", "content"},
                         {"files", count},
                         {"raw", raw},
                         {"listing", std::move(listing)}};
    if (!writeFileReplacing(markerPath, marker.dump(1) + "\n"))
        throw Error::input(markerPath + ": cannot write the cache marker");
}

} // namespace

std::optional<std::string> copyDiffersFromTree(const std::string &pristine, const std::string &copy)
{
    const std::string markerPath = pristine + ".marker";
    if (!fs::exists(markerPath))
        return std::nullopt; // not a cached tree: nothing to check against
    // The marker the acquire accepted (its key is the tree's directory name).
    const std::optional<json> marker =
        readMarker(markerPath, fs::path(pristine).filename().string());
    const std::optional<std::vector<FileEntry>> files =
        marker ? markerListing(*marker) : std::nullopt;
    if (!files)
        return markerPath + ": its listing is not one this version wrote";
    std::string why;
    if (holdsExactly(copy, *files, {}, nullptr, nullptr, {}, &why))
        return std::nullopt;
    return why;
}

TreeCache::TreeCache(std::string root, int maxTrees)
    : m_root(std::move(root)), m_maxTrees(std::max(1, maxTrees))
{
    while (m_root.size() > 1 && m_root.back() == '/')
        m_root.pop_back();
}

std::string TreeCache::defaultRoot()
{
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    return QDir(base).filePath(QStringLiteral("patchwitness")).toStdString();
}

std::string TreeCache::keyFor(const Repository &repo, const Revision &rev)
{
    if (rev.isWorktree())
        return worktreeKey(repo.listFiles(rev));
    return commitKey(rev);
}

std::string TreeCache::commitKey(const Revision &rev)
{
    const std::string &id = rev.isPatch() ? rev.tree : rev.commit;
    if (id.size() != 40)
        throw Error::input("'" + rev.spec + "': no commit to materialise");
    return id;
}

MaterializedTree TreeCache::acquire(const Repository &repo, const Revision &rev,
                                    std::stop_token stop) const
{
    // The listing the tree is checked against: blob ids from the object database (WORKTREE:
    // hashed from the disk, which also makes its key).
    const std::vector<FileEntry> files = repo.listFiles(rev);
    const std::string key = rev.isWorktree() ? worktreeKey(files) : commitKey(rev);
    const std::string trees = treesDir();
    std::error_code ec;
    fs::create_directories(trees, ec);
    if (ec)
        throw Error::input(trees + ": cannot create the tree cache: " + ec.message());
    const std::string dir = trees + "/" + key;
    const std::string markerPath = dir + ".marker";
    const std::string lockPath = dir + ".lock";

    MaterializedTree tree;
    tree.m_path = dir;
    tree.m_key = key;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(m_lockTimeoutMs);
    for (;;) {
        const int remainingMs =
            int(std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                           deadline - std::chrono::steady_clock::now())
                                           .count()));
        const int shared = lockFile(lockPath, LOCK_SH, remainingMs, stop);
        if (stop.stop_requested()) {
            if (shared >= 0)
                ::close(shared);
            throw Error::interrupted("materialising " + rev.spec + " stopped");
        }
        if (shared < 0)
            break;
        if (isIntact(dir, markerPath, key, files, stop)) {
            touch(markerPath);
            tree.m_lease = std::make_shared<Lease>(shared, dir);
            evict(key);
            return tree;
        }
        ::close(shared);
        if (stop.stop_requested()) // the check was cut short: the tree may well be intact
            throw Error::interrupted("materialising " + rev.spec + " stopped");
        if (heldInProcess(dir) > 0)
            throw Error::harness(dir + ": the cached tree was changed while runs of this "
                                       "process still use it; it is rebuilt once they end");
        const int exclusive = lockFile(lockPath, LOCK_EX, 0);
        if (exclusive >= 0) {
            try {
                if (!isIntact(dir, markerPath, key, files, stop)) {
                    if (stop.stop_requested())
                        throw Error::interrupted("materialising " + rev.spec + " stopped");
                    rebuild(repo, rev, key, dir, markerPath, stop);
                    tree.m_rebuilt = true;
                }
            } catch (...) {
                // A rebuild that did not finish removed its tree: its lock file goes too, as
                // the evictor's does (a waiter sees the file replaced and locks anew).
                std::error_code ec;
                if (!fs::exists(dir, ec) && !ec)
                    ::unlink(lockPath.c_str());
                ::close(exclusive);
                throw;
            }
            // Downgrade (not atomic: an evictor may slip in, but it takes the least
            // recently used tree, and this one was just touched).
            ::flock(exclusive, LOCK_SH);
            touch(markerPath);
            tree.m_lease = std::make_shared<Lease>(exclusive, dir);
            evict(key);
            return tree;
        }
        // Another thread or process is writing or holding it: look again shortly.
        if (std::chrono::steady_clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
    throw Error::harness(lockPath + ": the cached tree stayed locked for " +
                         std::to_string(m_lockTimeoutMs / 1000) +
                         " s (another patchwitness still runs in it?)");
}

std::vector<std::string> TreeCache::keys() const
{
    std::vector<std::pair<long long, std::string>> entries;
    std::error_code ec;
    for (const fs::directory_entry &e : fs::directory_iterator(treesDir(), ec)) {
        if (!e.is_directory(ec) || e.is_symlink(ec))
            continue;
        const std::string key = e.path().filename().string();
        if (key.find('.') != std::string::npos)
            continue; // a run's copy (`<key>.run-*`, TreeCopy), not an entry
        struct stat st;
        const std::string marker = e.path().string() + ".marker";
        if (::stat(marker.c_str(), &st) != 0 && ::stat(e.path().c_str(), &st) != 0)
            continue;
        entries.emplace_back(st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, key);
    }
    std::sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<std::string> out;
    out.reserve(entries.size());
    for (auto &entry : entries)
        out.push_back(std::move(entry.second));
    return out;
}

void TreeCache::evict(const std::string &keep) const
{
    std::vector<std::string> all = keys();
    size_t count = all.size();
    for (auto it = all.rbegin(); it != all.rend() && count > size_t(m_maxTrees); ++it) {
        if (*it == keep)
            continue;
        const std::string dir = treesDir() + "/" + *it;
        const std::string lockPath = dir + ".lock";
        const int fd = lockFile(lockPath, LOCK_EX, 0);
        if (fd < 0)
            continue; // in use: a later acquire evicts it
        try {
            removeTree(dir, dir + ".marker");
            removeLeftCopies(dir);
        } catch (const Error &) {
            ::close(fd);
            continue; // cannot remove (permissions): leave it, do not fail the acquire
        }
        ::unlink(lockPath.c_str());
        ::close(fd);
        --count;
    }
}

} // namespace pw::core
