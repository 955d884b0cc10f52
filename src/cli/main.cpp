#include "Cli.h"

#include <QCoreApplication>
#include <csignal>

int main(int argc, char **argv)
{
    // After SIGHUP the terminal or ssh pipe is gone: a write to it must fail (EPIPE), not
    // end the process before it has killed its runs and removed their directories.
    // Children get SIGPIPE back (ChildProcess).
    std::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("patchwitness"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PATCHWITNESS_VERSION));
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    return pw::cli::run(args, stdout, stderr);
}
