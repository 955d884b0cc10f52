#pragma once

#include "audit/Finding.h"
#include "util/Format.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QDate>
#include <QString>
#include <QStringList>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

// The few things every command does the same way: print, report a usage error, declare an
// option, parse its command line. One definition each, so that messages cannot drift apart.
namespace pw::cli {

// Writes `text` as is and flushes, so that stdout and stderr interleave as written.
void printText(FILE *f, const std::string &text);

// "patchwitness-cli: <message>" on `err`; returns ExitUsage.
int usageError(FILE *err, const QString &message);
int usageError(FILE *err, const std::string &message);
int usageError(FILE *err, const char *message);

// `text` (a value of option `o` of `command`) as an integer of at least `minimum`; else a
// usage error ("matrix: --seeds must be an integer of at least 1, not 'x'"), *exitCode set
// and nullopt.
std::optional<int> integerValue(const QString &text, const QCommandLineOption &o,
                                const std::string &command, FILE *err, int *exitCode,
                                int minimum = 1);

// A --name option; with `value` it takes one (shown as <value> in --help).
QCommandLineOption option(const char *name, const char *help, const char *value = nullptr,
                          const char *defaultValue = nullptr);

// Parses `arguments` (without the command name) as "patchwitness-cli <command> …". Returns
// the exit code when the command is done: --help printed, or the parser's error reported
// after `errorPrefix`.
std::optional<int> parseCommandLine(QCommandLineParser &p, const QString &command,
                                    const QStringList &arguments, FILE *out, FILE *err,
                                    const QString &errorPrefix = QString());

// A usage error for the first positional argument of a command that takes none.
std::optional<int> refusePositionals(const QCommandLineParser &p, const QString &command,
                                     FILE *err);

// A usage error unless --format is text or json.
std::optional<int> requireTextOrJson(const QCommandLineParser &p, const QCommandLineOption &format,
                                     const QString &command, FILE *err);

// A YYYY-MM-DD day (exactly ten characters), or nullopt.
std::optional<QDate> parseDay(const QString &text);

// A usage error when --today is set and is not a YYYY-MM-DD day.
std::optional<int> checkToday(const QCommandLineParser &p, const QCommandLineOption &today,
                              const QString &command, FILE *err);

// "warning: <w>" on `err` for each warning.
void printWarnings(FILE *err, const std::vector<std::string> &warnings);

// ExitInternal with "patchwitness-cli: <command>: interrupted" (or `error`) on `err` when
// the run was interrupted or failed; else ExitPass.
int failureExit(const std::string &command, bool interrupted, const std::string &error, FILE *err);

// A gate verdict's exit code: 0 PASS, 1 BLOCK, 2 REVIEW (0 when `reviewOk`).
int verdictExit(core::Verdict verdict, bool reviewOk);

// Text table helpers.
std::string pad(const std::string &text, size_t width);
std::string padLeft(const std::string &text, size_t width);
using core::seedList; // "{0, 3}", shared with the core reports

// `path` relative to `root` when it lies inside it, else unchanged.
std::string relativeTo(const std::string &root, const std::string &path);

} // namespace pw::cli
