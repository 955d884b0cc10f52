#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <stop_token>
#include <string>

namespace pw::core {

// A short helper process patchwitness starts for itself (an interpreter probe, the import
// preflight, the plugin's precompile, the sandbox's own check): started with stdin from
// /dev/null, waited for, killed when it overstays `timeoutMs` or when `stop` is requested
// (looked at every 50 ms), its output kept. Not a test run: those are PytestRun's, with
// process groups and the pool's cancellation.
struct QuickRun
{
    bool started = false;
    bool timedOut = false;
    bool cancelled = false;  // `stop` was requested: killed, or never started
    bool normalExit = false; // exited by itself (not a signal, not killed)
    int exitCode = -1;
    std::string startError; // why it did not start
    QByteArray out;
    QByteArray err;

    bool succeeded() const { return started && !timedOut && normalExit && exitCode == 0; }
};

QuickRun runQuick(const QString &program, const QStringList &arguments,
                  const QProcessEnvironment &environment, const QString &workDir, int timeoutMs,
                  std::stop_token stop = {});

} // namespace pw::core
