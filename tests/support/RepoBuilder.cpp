#include "RepoBuilder.h"

#include "repo/RepoWriter.h"
#include "util/ThreadRule.h"

#include <QDir>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace pw::test {

namespace fs = std::filesystem;

namespace {

// Deterministic, strictly increasing commit times: history order is time order.
constexpr int64_t kFirstCommitTime = 1'700'000'000;
const char *kName = "Test";
const char *kEmail = "t@example.com";

} // namespace

struct RepoBuilder::Git
{
    explicit Git(pw::core::RepoWriter w) : writer(std::move(w)) {}

    pw::core::RepoWriter writer;
    int commits = 0;

    int64_t nextTime() { return kFirstCommitTime + 60 * commits++; }
};

RepoBuilder::RepoBuilder() : RepoBuilder(QString()) {}

RepoBuilder::RepoBuilder(const QString &dir)
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    if (dir.isEmpty() && !m_tmp.isValid())
        throw std::runtime_error("RepoBuilder: cannot create a temporary directory");
    const QString path = dir.isEmpty() ? m_tmp.path() : dir;
    QDir().mkpath(path);
    m_root = QDir(path).canonicalPath().toStdString();

    auto state = std::make_unique<Git>(pw::core::RepoWriter::init(m_root, "main"));
    state->writer.setIdentity(kName, kEmail);
    m_git = state.release(); // owned by m_git only once construction succeeded
}

RepoBuilder::~RepoBuilder()
{
    delete m_git;
}

std::string RepoBuilder::root() const
{
    return m_root;
}

void RepoBuilder::write(const std::string &path, const std::string &content)
{
    const fs::path file = fs::path(m_root) / path;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out)
        throw std::runtime_error("RepoBuilder: cannot write " + file.string());
}

void RepoBuilder::remove(const std::string &path)
{
    if (!fs::remove(fs::path(m_root) / path))
        throw std::runtime_error("RepoBuilder: cannot remove " + path + ": no such file");
}

void RepoBuilder::rename(const std::string &from, const std::string &to)
{
    const fs::path target = fs::path(m_root) / to;
    fs::create_directories(target.parent_path());
    fs::rename(fs::path(m_root) / from, target);
}

std::string RepoBuilder::read(const std::string &path) const
{
    std::ifstream in(fs::path(m_root) / path, std::ios::binary);
    if (!in)
        throw std::runtime_error("RepoBuilder: cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string RepoBuilder::commit(const std::string &message)
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    return m_git->writer.commitAll(message, kName, kEmail, m_git->nextTime());
}

void RepoBuilder::branch(const std::string &name, const std::string &commit)
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    m_git->writer.createBranch(name, commit);
}

void RepoBuilder::checkout(const std::string &branch)
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    m_git->writer.checkout(branch);
}

void RepoBuilder::orphan(const std::string &branch)
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    m_git->writer.orphan(branch);
}

void RepoBuilder::tag(const std::string &name, const std::string &commit)
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    m_git->writer.tag(name, commit);
}

void RepoBuilder::annotatedTag(const std::string &name, const std::string &message,
                               const std::string &commit)
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    m_git->writer.annotatedTag(name, message, kName, kEmail, m_git->nextTime(), commit);
}

std::string RepoBuilder::head() const
{
    const pw::core::BlockingWorkAllowed fixture; // the test's own thread may build it
    return m_git->writer.head();
}

} // namespace pw::test
