#include "ledger/LedgerLocation.h"

#include <QDir>

namespace pw::core {

LedgerLocation LedgerLocation::resolve(const std::string &workdir, const std::string &ledgerDir)
{
    const QString root = QDir::cleanPath(QString::fromStdString(workdir));
    const QString given =
        ledgerDir.empty() ? QStringLiteral(".patchwitness") : QString::fromStdString(ledgerDir);
    LedgerLocation out;
    if (root.isEmpty()) { // a bare repository: a relative directory names the trees' own
        const QString dir = QDir::cleanPath(given);
        out.dir = dir.toStdString();
        if (QDir::isRelativePath(dir) && !dir.startsWith(QLatin1String("..")))
            out.prefix = out.dir + "/";
        return out;
    }
    const QString dir = QDir::cleanPath(QDir(root).absoluteFilePath(given));
    out.dir = dir.toStdString();
    if (dir.startsWith(root + QLatin1Char('/')))
        out.prefix = dir.mid(root.size() + 1).toStdString() + "/";
    return out;
}

} // namespace pw::core
