#include "ledger/LedgerStore.h"

#include "util/Error.h"
#include "util/Files.h"

#include <QFileInfo>

namespace pw::core {

LedgerStore LedgerStore::open(const std::string &path)
{
    LedgerStore store;
    store.m_path = path;
    store.m_existed = QFileInfo::exists(QString::fromStdString(path));
    if (store.m_existed) {
        std::optional<std::string> bytes = readWholeFile(path);
        if (!bytes)
            throw Error::input(path + ": cannot be read");
        store.m_loaded = std::move(*bytes);
    }
    return store;
}

void LedgerStore::write(const std::string &bytes)
{
    const bool exists = QFileInfo::exists(QString::fromStdString(m_path));
    const std::optional<std::string> current = exists ? readWholeFile(m_path) : std::nullopt;
    if (exists != m_existed || (exists && current != m_loaded))
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
