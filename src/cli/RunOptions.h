#pragma once

#include "run/RunContext.h"
#include "run/RunPool.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <cstdio>
#include <memory>
#include <optional>
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

// While alive, SIGINT/SIGTERM/SIGHUP (Ctrl-C, kill, the terminal closing) cancel `pool`: its
// running process groups are killed (they run in their own sessions, so the terminal's signal never
// reaches them) and the command ends with what it has, saying it was interrupted. The previous
// handlers are restored on destruction. One guard at a time.
class InterruptGuard
{
public:
    explicit InterruptGuard(core::RunPool &pool);
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard &) = delete;
    InterruptGuard &operator=(const InterruptGuard &) = delete;

    bool interrupted() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

// Calls `work` under an InterruptGuard on `pool`; true when Ctrl-C came meanwhile.
template <typename Work> bool runInterruptible(core::RunPool &pool, Work &&work)
{
    const InterruptGuard guard(pool);
    work();
    return guard.interrupted();
}

} // namespace pw::cli
