#include "repo/DemoRepository.h"

#include "repo/RepoWriter.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

// Q_INIT_RESOURCE must be used outside any namespace; core is a static library, so its
// resources are registered only when some code asks for them.
static void initDemoResources()
{
    static const bool once = [] {
        Q_INIT_RESOURCE(demo);
        return true;
    }();
    (void)once;
}

namespace pw::core {
namespace {

namespace fs = std::filesystem;

// Part of the digest: bump it when the way the recipe becomes a repository changes
// (authors, times, branch names), so existing demos are rebuilt.
const char *kBuildFormat = "patchwitness-demo/1";
const char *kRecipeRoot = ":/patchwitness/demo/";

struct Author
{
    const char *name;
    const char *email;
    int64_t time;
};
constexpr Author kMaintainer{"Maintainer", "maintainer@roundmath.example", 1'714'557'600};
constexpr Author kAgent{"coding-agent", "agent@roundmath.example", 1'714'754'400};

QString treeName(DemoRepository::Tree tree)
{
    return tree == DemoRepository::Tree::Base ? QStringLiteral("base") : QStringLiteral("head");
}

QByteArray readResource(const QString &path)
{
    initDemoResources();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw Error::harness("the demo recipe is missing " + path.toStdString() +
                             " from this build");
    return file.readAll();
}

std::string message(DemoRepository::Tree tree)
{
    return readResource(QLatin1String(kRecipeRoot) + treeName(tree) + QLatin1String(".message"))
        .toStdString();
}

QString absoluteClean(const std::string &dir)
{
    return QDir::cleanPath(QDir(QString::fromStdString(dir)).absolutePath());
}

// A demo built from this recipe, complete (the digest is written last) and intact.
bool isCurrent(const QString &dir, const std::string &digest)
{
    const std::optional<std::string> stored =
        readWholeFile(DemoRepository::digestFile(dir.toStdString()));
    if (!stored || stored->substr(0, stored->find('\n')) != digest)
        return false;
    try {
        const Repository repo = Repository::open(dir.toStdString());
        const QString workdir = QString::fromStdString(repo.workdir());
        if (QFileInfo(workdir).canonicalFilePath() != QFileInfo(dir).canonicalFilePath())
            return false; // a stray directory inside some other repository
        repo.resolve(DemoRepository::kBaseBranch);
        repo.resolve(DemoRepository::kHeadBranch);
        return true;
    } catch (const Error &) {
        return false;
    }
}

// Only a missing or empty directory, or an older demo, may be replaced: --dir pointing at
// someone's project must never delete it.
bool mayReplace(const QString &dir)
{
    const QFileInfo info(dir);
    if (!info.exists())
        return true;
    if (!info.isDir())
        return false;
    if (QDir(dir).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot))
        return true;
    return QFileInfo::exists(QString::fromStdString(DemoRepository::digestFile(dir.toStdString())));
}

void clearWorkTree(const std::string &dir)
{
    for (const fs::directory_entry &entry : fs::directory_iterator(dir)) {
        if (entry.path().filename() != ".git")
            fs::remove_all(entry.path());
    }
}

void build(const std::string &dir, const std::string &digest)
{
    RepoWriter writer = RepoWriter::init(dir, DemoRepository::kBaseBranch);
    DemoRepository::writeTree(DemoRepository::Tree::Base, dir);
    writer.commitAll(message(DemoRepository::Tree::Base), kMaintainer.name, kMaintainer.email,
                     kMaintainer.time);
    writer.createBranch(DemoRepository::kHeadBranch);
    writer.checkout(DemoRepository::kHeadBranch);
    // The head recipe is the whole tree: what it lacks, the patch deletes.
    clearWorkTree(dir);
    DemoRepository::writeTree(DemoRepository::Tree::Head, dir);
    writer.commitAll(message(DemoRepository::Tree::Head), kAgent.name, kAgent.email, kAgent.time);
    std::string error;
    if (!writeFileAtomically(DemoRepository::digestFile(dir), digest + "\n", false, &error))
        throw Error::harness("cannot record the demo recipe digest: " + error);
}

// Moves the finished build to `target`, replacing an older demo there. Each step is one
// rename, so `target` is at any moment absent, the old demo or the new one.
void install(const QString &built, const QString &target)
{
    std::error_code ec;
    std::unique_ptr<QTemporaryDir> old;
    if (QFileInfo::exists(target)) {
        const QFileInfo info(target);
        old = std::make_unique<QTemporaryDir>(info.absolutePath() + QLatin1String("/.") +
                                              info.fileName() + QLatin1String(".old-XXXXXX"));
        if (!old->isValid())
            throw Error::input("cannot replace the demo repository " + target.toStdString() + ": " +
                               old->errorString().toStdString());
        // rename(2) may replace an empty directory: the stale demo lands inside `old`'s
        // name and is removed with it.
        fs::rename(target.toStdString(), old->path().toStdString(), ec);
        if (ec)
            throw Error::input("cannot replace the demo repository " + target.toStdString() + ": " +
                               ec.message());
    }
    fs::rename(built.toStdString(), target.toStdString(), ec);
    if (ec)
        throw Error::harness("cannot move the demo repository into " + target.toStdString() + ": " +
                             ec.message());
}

} // namespace

std::string DemoRepository::defaultDir()
{
    QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (base.isEmpty())
        base = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (base.isEmpty())
        throw Error::input("no writable data directory for the demo repository; pass a directory");
    return QString(base + QLatin1String("/patchwitness/demo")).toStdString();
}

std::string DemoRepository::digestFile(const std::string &repoDir)
{
    return repoDir + "/.git/patchwitness-demo-recipe";
}

std::vector<std::string> DemoRepository::files(Tree tree)
{
    initDemoResources();
    const QString root = QLatin1String(kRecipeRoot) + treeName(tree);
    std::vector<std::string> out;
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        out.push_back(it.next().mid(root.size() + 1).toStdString());
    std::sort(out.begin(), out.end());
    if (out.empty())
        throw Error::harness("the demo recipe (" + root.toStdString() +
                             ") is missing from this build");
    return out;
}

void DemoRepository::writeTree(Tree tree, const std::string &dir)
{
    const QString root = QLatin1String(kRecipeRoot) + treeName(tree) + QLatin1Char('/');
    for (const std::string &path : files(tree)) {
        // Plain writes: a tree is only ever written into a fresh build or test directory.
        const QByteArray bytes = readResource(root + QString::fromStdString(path));
        const QString file = QString::fromStdString(dir + "/" + path);
        QFile out(file);
        if (!QDir().mkpath(QFileInfo(file).absolutePath()) || !out.open(QIODevice::WriteOnly) ||
            out.write(bytes) != bytes.size() || !out.flush())
            throw Error::input("cannot write the demo file " + file.toStdString() + ": " +
                               out.errorString().toStdString());
    }
}

std::string DemoRepository::recipeDigest()
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(QByteArray(kBuildFormat));
    for (Tree tree : {Tree::Base, Tree::Head}) {
        const QString root = QLatin1String(kRecipeRoot) + treeName(tree);
        hash.addData(QByteArray(QByteArray("\0tree\0", 6) + treeName(tree).toUtf8()));
        hash.addData(QByteArray::fromStdString(message(tree)));
        for (const std::string &path : files(tree)) {
            const QByteArray bytes =
                readResource(root + QLatin1Char('/') + QString::fromStdString(path));
            hash.addData(QByteArray(QByteArray("\0file\0", 6) + QByteArray::fromStdString(path) +
                                    '\0' + QByteArray::number(bytes.size()) + '\0'));
            hash.addData(bytes);
        }
    }
    return hash.result().toHex().toStdString();
}

std::string DemoRepository::ensure(const std::string &dir)
{
    initDemoResources();
    const QString target = absoluteClean(dir.empty() ? defaultDir() : dir);
    const std::string digest = recipeDigest();
    if (isCurrent(target, digest))
        return QDir(target).canonicalPath().toStdString();
    if (!mayReplace(target))
        throw Error::input(target.toStdString() +
                           " exists and is not a patchwitness demo repository; choose an empty "
                           "or new directory");

    const QFileInfo info(target);
    const QString parent = info.absolutePath();
    if (!QDir().mkpath(parent))
        throw Error::input("cannot create the directory " + parent.toStdString());
    QTemporaryDir work(parent + QLatin1Char('/') + QLatin1Char('.') + info.fileName() +
                       QLatin1String(".build-XXXXXX"));
    if (!work.isValid())
        throw Error::input("cannot create a build directory next to " + target.toStdString() +
                           ": " + work.errorString().toStdString());
    try {
        build(work.path().toStdString(), digest);
    } catch (const Error &e) {
        throw Error::harness("cannot build the demo repository for " + target.toStdString() + ": " +
                             e.what());
    } catch (const std::exception &e) {
        throw Error::harness("cannot build the demo repository for " + target.toStdString() + ": " +
                             e.what());
    }
    try {
        install(work.path(), target);
    } catch (const Error &) {
        // Another process may have installed the same demo meanwhile: use theirs.
        if (isCurrent(target, digest))
            return QDir(target).canonicalPath().toStdString();
        throw;
    }
    work.setAutoRemove(false); // it is `target` now
    return QDir(target).canonicalPath().toStdString();
}

} // namespace pw::core
