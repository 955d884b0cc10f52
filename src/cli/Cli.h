#pragma once

#include <QStringList>
#include <cstdio>

namespace pw::cli {

// Exit codes.
enum ExitCode
{
    ExitPass = 0,
    ExitBlock = 1,
    ExitReview = 2,
    ExitUsage = 3,
    ExitInternal = 4
};

// Runs one command line (arguments without the program name). Results go to `out`,
// progress and errors to `err`.
int run(const QStringList &arguments, FILE *out, FILE *err);

} // namespace pw::cli
