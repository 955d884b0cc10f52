#include "Cli.h"

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("patchwitness"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PATCHWITNESS_VERSION));
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    return pw::cli::run(args, stdout, stderr);
}
