#pragma once

#include <QStringList>
#include <cstdio>

namespace pw::cli {

// `attribute TEST`: base/head attribution (SPEC 5.3). Exit 0 NO_REPRO or PRE_EXISTING,
// 1 PATCH_INDUCED or PATCH_MASKS, 2 HARNESS_ENV or no verdict, 3 usage or input error,
// 4 harness error or interrupted.
int attributeCommand(const QStringList &arguments, FILE *out, FILE *err);

// `cells TEST`: the four-cell reproduction matrix (SPEC 5.4). Exit 0 not reproduced,
// 1 a cell fails (attribution printed), 2 no evidence, 3 usage or input error, 4 harness
// error or interrupted.
int cellsCommand(const QStringList &arguments, FILE *out, FILE *err);

} // namespace pw::cli
