#pragma once

#include <QStringList>
#include <cstdio>

namespace pw::cli {

// `shadow`: skip witnesses and the patch-keyed shadow sample. Exit 0 every
// selected and sampled test passed (or nothing had to run, or --dry-run), 1 a selected test
// failed or a witness bug was found, 3 usage or input error, 4 no result (harness error,
// interrupted) — census' convention.
int shadowCommand(const QStringList &arguments, FILE *out, FILE *err);

} // namespace pw::cli
