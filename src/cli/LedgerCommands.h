#pragma once

#include <QStringList>
#include <cstdio>

namespace pw::cli {

// The ledger commands. Each takes the arguments after its name, prints results
// on `out` and errors on `err`, throws pw::core::Error for input/harness errors (run()
// maps them to exit codes 3/4) and returns an exit code.
//   ledger check | ledger history [TEST]          (exit 1: problems found)
//   waive NODE, freeze TEST, renew TEST, journal close ID  (human actions: --by required)
int ledgerCommand(const QStringList &arguments, FILE *out, FILE *err);
int waiveCommand(const QStringList &arguments, FILE *out, FILE *err);
int freezeCommand(const QStringList &arguments, FILE *out, FILE *err);
int renewCommand(const QStringList &arguments, FILE *out, FILE *err);
int journalCommand(const QStringList &arguments, FILE *out, FILE *err);

} // namespace pw::cli
