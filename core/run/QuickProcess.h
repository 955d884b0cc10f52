#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <string>

namespace pw::core {

// A short helper process patchwitness starts for itself (an interpreter probe, the import
// preflight, the plugin's precompile, the sandbox's own check): started with stdin from
// /dev/null, waited for, killed when it overstays `timeoutMs`, its output kept. Not a test
// run: those are PytestRun's, with process groups and cancellation.
struct QuickRun
{
    bool started = false;
    bool timedOut = false;
    bool normalExit = false; // exited by itself (not a signal, not killed)
    int exitCode = -1;
    std::string startError; // why it did not start
    QByteArray out;
    QByteArray err;

    bool succeeded() const { return started && !timedOut && normalExit && exitCode == 0; }
};

QuickRun runQuick(const QString &program, const QStringList &arguments,
                  const QProcessEnvironment &environment, const QString &workDir, int timeoutMs);

} // namespace pw::core
