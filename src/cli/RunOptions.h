#pragma once

#include "execution/RunContext.h"
#include "execution/RunPool.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <cstdio>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

namespace pw::cli {

// Options every dynamic command (census, attribute, cells, shadow) shares, and the
// RunRequest they make. Progress lines go to stderr unless --quiet.
struct RunOptions
{
    QCommandLineOption repo;
    QCommandLineOption base;
    QCommandLineOption head;
    QCommandLineOption config;
    QCommandLineOption ledgerDir;
    QCommandLineOption python;
    QCommandLineOption cacheDir;
    QCommandLineOption workers;
    QCommandLineOption timeout;
    QCommandLineOption sandbox;
    QCommandLineOption noSandbox;
    QCommandLineOption format;
    QCommandLineOption today;
    QCommandLineOption quiet;

    RunOptions();
    void addTo(QCommandLineParser &p) const;

    // Parses `arguments` (without the command name) into `p`. Returns nullopt when the
    // caller should return `*exitCode` at once (--help printed, or a usage error reported).
    std::optional<core::RunRequest> parse(QCommandLineParser &p, const QString &command,
                                          const QStringList &arguments, FILE *out, FILE *err,
                                          int *exitCode) const;

    // "text" or "json" (--format); anything else was refused by parse().
    bool json(const QCommandLineParser &p) const;
};

// While alive, SIGINT/SIGTERM/SIGHUP (Ctrl-C, kill, the terminal closing) request a stop
// on token(): set as RunRequest::stop, it stops the preparation (RunContext::open) at its
// next safe point, and runInterruptible() turns it into RunPool::cancelAll, which kills the
// running process groups (they run in their own sessions, so the terminal's signal never
// reaches them). Either way the command ends with what it has, saying it was interrupted.
// Made before the context is opened, so that no signal finds the default action (the end
// of the process, with its half-written tree and run directories left behind). The
// previous handlers are restored on destruction. One guard at a time.
class InterruptGuard
{
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard &) = delete;
    InterruptGuard &operator=(const InterruptGuard &) = delete;

    std::stop_token token() const;
    bool interrupted() const;
    // `request` with its stop set to token().
    core::RunRequest stopping(core::RunRequest request) const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

// Calls `work` with a signal under `guard` cancelling `pool`; true when one came meanwhile
// (or before: a stop already requested cancels the pool at once).
template <typename Work>
bool runInterruptible(const InterruptGuard &guard, core::RunPool &pool, Work &&work)
{
    const std::stop_callback cancel(guard.token(), [&pool] { pool.cancelAll(); });
    work();
    return guard.interrupted();
}

} // namespace pw::cli
