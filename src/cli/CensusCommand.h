#pragma once

#include <QStringList>
#include <cstdio>

namespace pw::cli {

// `census`: the dynamic census (collect-only on both trees, the base twice,
// both suites run unless --collect-only). Exit 0 PASS, 1 BLOCK, 2 REVIEW, 3 usage or input
// error, 4 when no census could be taken (harness error, interrupted).
int censusCommand(const QStringList &arguments, FILE *out, FILE *err);

} // namespace pw::cli
