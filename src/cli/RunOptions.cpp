#include "RunOptions.h"

#include "Cli.h"
#include "CliSupport.h"
#include "ledger/Config.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <iterator>
#include <thread>

namespace pw::cli {

namespace {

std::atomic<int> s_signal{0}; // set by the handler: the only thing a handler may touch

extern "C" void onInterrupt(int signal)
{
    s_signal.store(signal);
}

} // namespace

struct InterruptGuard::Private
{
    std::stop_source source;
    std::atomic<bool> stop{false};
    // SIGHUP (the terminal or the ssh session closed) is a request to stop like the
    // others: by default it would end the process with no cleanup at all.
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction old[std::size(kSignals)] = {};
    std::thread watcher;
};

InterruptGuard::InterruptGuard() : d(std::make_unique<Private>())
{
    s_signal.store(0);
    struct sigaction action = {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(Private::kSignals); ++i)
        sigaction(Private::kSignals[i], &action, &d->old[i]);
    // request_stop runs the stop callbacks (RunPool::cancelAll takes a mutex), which a
    // signal handler must not: a thread watches.
    d->watcher = std::thread([p = d.get()] {
        while (!p->stop.load()) {
            if (s_signal.load() != 0)
                p->source.request_stop(); // a no-op after the first
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
}

InterruptGuard::~InterruptGuard()
{
    d->stop.store(true);
    d->watcher.join();
    for (size_t i = 0; i < std::size(Private::kSignals); ++i)
        sigaction(Private::kSignals[i], &d->old[i], nullptr);
}

std::stop_token InterruptGuard::token() const
{
    return d->source.get_token();
}

bool InterruptGuard::interrupted() const
{
    return d->source.stop_requested() || s_signal.load() != 0;
}

core::RunRequest InterruptGuard::stopping(core::RunRequest request) const
{
    request.stop = token();
    return request;
}

RunOptions::RunOptions()
    : repo(option("repo", "Repository (or a directory inside it).", "path", ".")),
      base(option("base",
                  "Base revision (default: merge-base of head and the upstream/main branch).",
                  "rev")),
      head(option("head",
                  "Head revision, WORKTREE or PATCH:<file> (default: WORKTREE when dirty, "
                  "else HEAD).",
                  "rev")),
      config(option("config",
                    "config.toml to use (default: the base revision's <ledger-dir>/config.toml).",
                    "file")),
      ledgerDir(option("ledger-dir",
                       "Ledger directory, relative to the repository root or absolute (default "
                       ".patchwitness); evidence records go to its runs/.",
                       "dir", ".patchwitness")),
      python(option("python", "Python interpreter (overrides config `python`).", "path")),
      cacheDir(option("cache-dir",
                      "Cache directory for materialised trees and base witnesses (default: the "
                      "user cache).",
                      "dir")),
      workers(
          option("workers", "Parallel pytest runs (default: config `workers`, else cores).", "n")),
      timeout(option("timeout",
                     "Seconds before a run is killed with its process group "
                     "(default: config `timeouts.per_run`).",
                     "seconds")),
      sandbox(option("sandbox", "Run pytest inside the bubblewrap sandbox (config `sandbox`).")),
      noSandbox(option("no-sandbox", "Run pytest without the sandbox.")),
      format(option("format", "text or json.", "format", "text")),
      today(option("today", "Judge ledger dates as if today were DATE (YYYY-MM-DD).", "date")),
      quiet(option("quiet", "No progress on standard error."))
{
}

void RunOptions::addTo(QCommandLineParser &p) const
{
    p.addOptions({repo, base, head, config, ledgerDir, python, cacheDir, workers, timeout, sandbox,
                  noSandbox, format, today, quiet});
}

bool RunOptions::json(const QCommandLineParser &p) const
{
    return p.value(format) == QLatin1String("json");
}

std::optional<core::RunRequest> RunOptions::parse(QCommandLineParser &p, const QString &command,
                                                  const QStringList &arguments, FILE *out,
                                                  FILE *err, int *exitCode) const
{
    std::optional<int> done = parseCommandLine(p, command, arguments, out, err);
    if (!done)
        done = requireTextOrJson(p, format, command, err);
    if (!done && p.isSet(sandbox) && p.isSet(noSandbox))
        done = usageError(err, command + QStringLiteral(": --sandbox and --no-sandbox together"));
    if (!done)
        done = checkToday(p, today, command, err);
    if (done) {
        *exitCode = *done;
        return std::nullopt;
    }

    core::RunRequest request;
    request.target.repoPath = p.value(repo).toStdString();
    request.target.base = p.value(base).toStdString();
    request.target.head = p.value(head).toStdString();
    request.target.configPath = p.value(config).toStdString();
    request.target.ledgerDir = p.value(ledgerDir).toStdString();
    request.target.today = p.value(today).toStdString();
    if (p.isSet(python))
        request.target.python = p.value(python).toStdString();
    request.cacheRoot = p.value(cacheDir).toStdString();
    if (p.isSet(workers)) {
        bool ok = false;
        const int n = p.value(workers).toInt(&ok);
        if (!ok || n < 1) {
            *exitCode = usageError(err, command + QStringLiteral(": --workers must be a positive "
                                                                 "integer, not '%1'")
                                                      .arg(p.value(workers)));
            return std::nullopt;
        }
        request.workers = n;
    }
    if (p.isSet(timeout)) {
        bool ok = false;
        const double s = p.value(timeout).toDouble(&ok);
        const std::string problem = ok ? core::Config::secondsProblem(s) : std::string();
        if (!ok || !problem.empty()) {
            const QString why =
                ok ? QString::fromStdString(problem)
                   : QStringLiteral("must be a number of seconds, not '%1'").arg(p.value(timeout));
            *exitCode = usageError(err, command + QStringLiteral(": --timeout ") + why);
            return std::nullopt;
        }
        request.timeoutSeconds = s;
    }
    if (p.isSet(sandbox))
        request.sandbox = true;
    if (p.isSet(noSandbox))
        request.sandbox = false;
    if (!p.isSet(quiet)) {
        const std::string prefix = command.toStdString() + ": ";
        request.progress = [err, prefix](const std::string &line) {
            printText(err, prefix + line + "\n");
        };
    }
    return request;
}

} // namespace pw::cli
