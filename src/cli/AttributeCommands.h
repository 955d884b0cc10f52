#pragma once

#include "dynamic/Attribution.h"
#include "dynamic/ReproCells.h"

#include <QStringList>
#include <cstdio>

namespace pw::cli {

// `attribute TEST`: base/head attribution. Exit 0 NO_REPRO or PRE_EXISTING,
// 1 PATCH_INDUCED or PATCH_MASKS, 2 HARNESS_ENV or no verdict, 3 usage or input error,
// 4 harness error or interrupted.
int attributeCommand(const QStringList &arguments, FILE *out, FILE *err);

// `cells TEST`: the four-cell reproduction matrix. Exit 0 not reproduced,
// 1 a cell fails (attribution printed), 2 no evidence, 3 usage or input error, 4 harness
// error or interrupted.
int cellsCommand(const QStringList &arguments, FILE *out, FILE *err);

// The reports and exit codes of attribute and cells, for `merge`, which prints a
// merged sweep as the unsharded command would. `notAsked`: why no record was asked for
// (empty: it was); `recorded`: the date the cells JSON carries.
std::string attributionReport(const std::string &repoRoot, const core::AttributionResult &r,
                              bool asJson, const std::string &notAsked);
int attributionExitCode(const core::AttributionResult &r);
std::string cellsReport(const std::string &repoRoot, const core::ReproCellsResult &r, bool asJson,
                        const std::string &notAsked, const std::string &recorded);
int cellsExitCode(const core::ReproCellsResult &r);

} // namespace pw::cli
