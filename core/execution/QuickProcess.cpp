#include "execution/QuickProcess.h"

#include "execution/ChildProcess.h"

#include <QElapsedTimer>
#include <algorithm>

namespace pw::core {

namespace {

constexpr int kSliceMs = 50; // how often a wait looks at `stop`

} // namespace

QuickRun runQuick(const QString &program, const QStringList &arguments,
                  const QProcessEnvironment &environment, const QString &workDir, int timeoutMs,
                  std::stop_token stop)
{
    QuickRun run;
    if (stop.stop_requested()) {
        run.cancelled = true;
        run.startError = "stopped before it started";
        return run;
    }
    ChildProcess process(/*ownSession=*/false); // a hung probe dies with the command
    process.setProcessEnvironment(environment);
    if (!workDir.isEmpty())
        process.setWorkingDirectory(workDir);
    process.setStandardInputFile(QProcess::nullDevice());
    process.start(program, arguments);
    if (!process.waitForStarted(timeoutMs)) {
        run.startError = process.errorString().toStdString();
        return run;
    }
    run.started = true;
    QElapsedTimer clock;
    clock.start();
    // In slices, without a stop that can come only as the full wait.
    const int slice = stop.stop_possible() ? kSliceMs : timeoutMs;
    // Never a negative wait: QProcess reads that as "for ever".
    const auto nextWait = [&] {
        return int(std::clamp<qint64>(timeoutMs - clock.elapsed(), 0, slice));
    };
    while (!process.waitForFinished(nextWait())) {
        if (process.state() == QProcess::NotRunning)
            break;
        run.cancelled = stop.stop_requested();
        run.timedOut = !run.cancelled && clock.elapsed() >= timeoutMs;
        if (run.cancelled || run.timedOut) {
            process.kill();
            process.waitForFinished(5000);
            break;
        }
    }
    run.normalExit =
        !run.timedOut && !run.cancelled && process.exitStatus() == QProcess::NormalExit;
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

} // namespace pw::core
