#include "run/QuickProcess.h"

#include "run/ChildProcess.h"

namespace pw::core {

QuickRun runQuick(const QString &program, const QStringList &arguments,
                  const QProcessEnvironment &environment, const QString &workDir, int timeoutMs)
{
    QuickRun run;
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
    if (!process.waitForFinished(timeoutMs)) {
        run.timedOut = true;
        process.kill();
        process.waitForFinished(5000);
    }
    run.normalExit = !run.timedOut && process.exitStatus() == QProcess::NormalExit;
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

} // namespace pw::core
