#include "ledger/LedgerStore.h"

#include "util/Error.h"
#include "util/Files.h"

#include <QFileInfo>

namespace pw::core {

namespace {

std::string directoryOf(const std::string &path)
{
    return QFileInfo(QString::fromStdString(path)).absolutePath().toStdString();
}

} // namespace

void LedgerStore::load()
{
    std::optional<std::string> bytes = readFileOrAbsent(m_path);
    m_existed = bytes.has_value();
    m_loaded = bytes ? std::move(*bytes) : std::string();
}

LedgerStore LedgerStore::open(const std::string &path)
{
    LedgerStore store;
    store.m_path = path;
    store.load();
    return store;
}

LedgerStore LedgerStore::openForUpdate(const std::string &path, std::chrono::milliseconds wait)
{
    LedgerStore store;
    store.m_path = path;
    store.m_lock = std::make_unique<DirectoryLock>(directoryOf(path), wait);
    store.load();
    return store;
}

void LedgerStore::write(const std::string &bytes, std::chrono::milliseconds wait)
{
    // Held from the re-read through the rename; an update store already holds it.
    std::unique_ptr<DirectoryLock> lock =
        m_lock ? std::move(m_lock) : std::make_unique<DirectoryLock>(directoryOf(m_path), wait);
    const std::optional<std::string> now = readFileOrAbsent(m_path);
    if (now.has_value() != m_existed || (now && *now != m_loaded))
        throw Error::input(m_path +
                           " changed on disk since it was loaded; nothing was written (load it "
                           "again and redo the change)");
    std::string error;
    if (!writeFileAtomically(m_path, bytes, true, &error))
        throw Error::input("cannot write " + error);
    m_loaded = bytes;
    m_existed = true;
}

} // namespace pw::core
