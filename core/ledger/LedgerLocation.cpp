#include "ledger/LedgerLocation.h"

#include "util/Error.h"

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
        // The trees' top, or a directory beside them: nothing a tree holds, and relative to
        // the current directory, which is not this repository's.
        if (QDir::isRelativePath(dir) && (dir == QLatin1String(".") || dir == QLatin1String("..") ||
                                          dir.startsWith(QLatin1String("../"))))
            throw Error::input("the ledger directory '" + ledgerDir +
                               "' of a bare repository is not a directory of its trees; name one "
                               "inside them (default .patchwitness) or an absolute path");
        out.dir = dir.toStdString();
        if (QDir::isRelativePath(dir))
            out.prefix = out.dir + "/";
        return out;
    }
    const QString dir = QDir::cleanPath(QDir(root).absoluteFilePath(given));
    // The tree's top would make every file of the patch a ledger file and no file of the
    // base a ledger: refused rather than read as a directory outside the repository (whose
    // config the patch's own checkout could edit).
    if (dir == root)
        throw Error::input("the ledger directory '" + ledgerDir +
                           "' is the repository's top; name a directory inside it "
                           "(default .patchwitness) or outside it");
    out.dir = dir.toStdString();
    if (dir.startsWith(root + QLatin1Char('/')))
        out.prefix = dir.mid(root.size() + 1).toStdString() + "/";
    return out;
}

bool LedgerLocation::onDisk() const
{
    return !dir.empty() && !QDir::isRelativePath(QString::fromStdString(dir));
}

} // namespace pw::core
