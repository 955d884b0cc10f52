#pragma once

#include "dynamic/SeedMatrix.h"

#include <QStringList>
#include <cstdio>
#include <string>

namespace pw::cli {

// `matrix TEST… [--seeds N | --seed S…] [--replays K]`: the seed matrix of the tests on both
// trees and each one's triage (SPEC 5.2, 11).
int matrixCommand(const QStringList &arguments, FILE *out, FILE *err);
// `triage BASE.json PATCHED.json`: the decision table over two compatible ledgers.
int triageCommand(const QStringList &arguments, FILE *out, FILE *err);
// `test [-- PYTEST ARGS…] [--junit FILE]`: the suite with the ledger's freezes applied.
int testCommand(const QStringList &arguments, FILE *out, FILE *err);

// The exit code of a whole matrix: interrupted 4; any PATCH_BUG 1; any FLAKY_ORACLE or
// NEEDS_MANUAL_REVIEW 2; a test without triage 4; else 0 (PRE_EXISTING, NO_SIGNAL).
int matrixExit(const core::MatrixResult &result);
// The matrix as `matrix` prints it (`merge` too): per test its triage line, the cells of
// both trees, the witness's commands; a shard says it is one.
std::string matrixText(const std::string &repoRoot, const core::MatrixResult &result);
// patchwitness.matrix/1 with paths relative to `repoRoot`, `record` and `shard`.
std::string matrixJson(const std::string &repoRoot, const core::MatrixResult &result,
                       const std::string &recorded);

} // namespace pw::cli
