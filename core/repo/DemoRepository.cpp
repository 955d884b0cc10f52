#include "repo/DemoRepository.h"

#include "repo/RepoWriter.h"
#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QCryptographicHash>
#include <QDateTime>
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
const char *kBuildFormat = "patchwitness-demo/2";
const char *kRecipeRoot = ":/patchwitness/demo/";

struct Author
{
    const char *name;
    const char *email;
    int64_t time;
};
constexpr Author kMaintainer{"Maintainer", "maintainer@roundmath.example", 1'709'546'400};
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

// The recipe's files under `root` (a resource directory), '/'-separated relative paths,
// sorted; empty when there is no such directory.
std::vector<std::string> filesUnder(const QString &root)
{
    initDemoResources();
    std::vector<std::string> out;
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        out.push_back(it.next().mid(root.size() + 1).toStdString());
    std::sort(out.begin(), out.end());
    return out;
}

// One of the maintainers' ledger commits on main between the base and the agent's patch:
// `commit` is "Name <email> 2024-03-11T14:20:00Z" then the message; `tree/` is the whole
// ledger directory after it (a file it lacks is deleted). "{{base}}" in a ledger file
// stands for the base commit's id.
struct LedgerStep
{
    QString root; // resource directory of the step
    std::string author, email, message;
    int64_t time = 0;
};

std::vector<LedgerStep> ledgerSteps()
{
    initDemoResources();
    const QString root = QLatin1String(kRecipeRoot) + QLatin1String("ledgers");
    QStringList names = QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    // "1-freeze", "2-renew", … in their number's order.
    std::sort(names.begin(), names.end(), [](const QString &a, const QString &b) {
        return a.section(QLatin1Char('-'), 0, 0).toInt() <
               b.section(QLatin1Char('-'), 0, 0).toInt();
    });
    std::vector<LedgerStep> steps;
    for (const QString &name : names) {
        LedgerStep step;
        step.root = root + QLatin1Char('/') + name;
        const QString text = QString::fromUtf8(readResource(step.root + QLatin1String("/commit")));
        const QString header = text.section(QLatin1Char('\n'), 0, 0);
        const int open = header.indexOf(QLatin1Char('<'));
        const int close = header.indexOf(QLatin1Char('>'));
        const QDateTime when = QDateTime::fromString(header.mid(close + 1).trimmed(), Qt::ISODate);
        if (open < 0 || close < open || !when.isValid())
            throw Error::harness("the demo recipe's " + step.root.toStdString() +
                                 "/commit does not start with \"Name <email> ISO-time\"");
        step.author = header.left(open).trimmed().toStdString();
        step.email = header.mid(open + 1, close - open - 1).toStdString();
        step.time = when.toSecsSinceEpoch();
        step.message = text.section(QLatin1Char('\n'), 1).toStdString();
        steps.push_back(std::move(step));
    }
    return steps;
}

// Plain writes: a tree is only ever written into a fresh build or test directory.
void writeDemoFile(const std::string &path, const QByteArray &bytes)
{
    const QString file = QString::fromStdString(path);
    QFile out(file);
    if (!QDir().mkpath(QFileInfo(file).absolutePath()) || !out.open(QIODevice::WriteOnly) ||
        out.write(bytes) != bytes.size() || !out.flush())
        throw Error::input("cannot write the demo file " + path + ": " +
                           out.errorString().toStdString());
}

// Makes `dir`/.patchwitness exactly the step's tree.
void writeLedgerStep(const LedgerStep &step, const std::string &dir, const std::string &baseId)
{
    fs::remove_all(dir + "/.patchwitness");
    const QString tree = step.root + QLatin1String("/tree");
    for (const std::string &path : filesUnder(tree)) {
        QByteArray bytes = readResource(tree + QLatin1Char('/') + QString::fromStdString(path));
        bytes.replace("{{base}}", QByteArray::fromStdString(baseId));
        writeDemoFile(dir + "/" + path, bytes);
    }
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
    const std::string baseId = writer.commitAll(
        message(DemoRepository::Tree::Base), kMaintainer.name, kMaintainer.email, kMaintainer.time);
    // The ledger history on main: a freeze granted, renewed, expired and removed; a waiver
    // approved; a journal row opened and closed after two replays.
    const std::vector<LedgerStep> steps = ledgerSteps();
    for (const LedgerStep &step : steps) {
        writeLedgerStep(step, dir, baseId);
        writer.commitAll(step.message, step.author, step.email, step.time);
    }
    writer.createBranch(DemoRepository::kHeadBranch);
    writer.checkout(DemoRepository::kHeadBranch);
    // The head recipe is the whole tree: what it lacks, the patch deletes. The ledgers are
    // the maintainers': the agent's patch leaves them as main has them.
    clearWorkTree(dir);
    DemoRepository::writeTree(DemoRepository::Tree::Head, dir);
    if (!steps.empty())
        writeLedgerStep(steps.back(), dir, baseId);
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
    const QString root = QLatin1String(kRecipeRoot) + treeName(tree);
    std::vector<std::string> out = filesUnder(root);
    if (out.empty())
        throw Error::harness("the demo recipe (" + root.toStdString() +
                             ") is missing from this build");
    return out;
}

void DemoRepository::writeTree(Tree tree, const std::string &dir)
{
    const QString root = QLatin1String(kRecipeRoot) + treeName(tree) + QLatin1Char('/');
    for (const std::string &path : files(tree))
        writeDemoFile(dir + "/" + path, readResource(root + QString::fromStdString(path)));
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
    const QString ledgers = QLatin1String(kRecipeRoot) + QLatin1String("ledgers");
    for (const std::string &path : filesUnder(ledgers)) {
        const QByteArray bytes =
            readResource(ledgers + QLatin1Char('/') + QString::fromStdString(path));
        hash.addData(QByteArray(QByteArray("\0ledgers\0", 9) + QByteArray::fromStdString(path) +
                                '\0' + QByteArray::number(bytes.size()) + '\0'));
        hash.addData(bytes);
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
