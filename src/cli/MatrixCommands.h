#pragma once

#include <QStringList>
#include <cstdio>

namespace pw::cli {

// `matrix TEST… [--seeds N | --seed S…] [--replays K]`: the seed matrix of the tests on both
// trees and each one's triage (SPEC 5.2, 11).
int matrixCommand(const QStringList &arguments, FILE *out, FILE *err);
// `triage BASE.json PATCHED.json`: the decision table over two compatible ledgers.
int triageCommand(const QStringList &arguments, FILE *out, FILE *err);
// `test [-- PYTEST ARGS…] [--junit FILE]`: the suite with the ledger's freezes applied.
int testCommand(const QStringList &arguments, FILE *out, FILE *err);

} // namespace pw::cli
