#pragma once

#include "dynamic/ReproCells.h"

#include <string>

namespace pw::core {

// The evidence record of a four-cell reproduction matrix, schema
// patchwitness.cells/1, one file per run in `<ledger dir>/runs/`:
//
//   {"schema": "patchwitness.cells/1", "test": "tests/t.py::test_a", "arm": "head",
//    "revision": "HEAD", "commit": "<40 hex>", "scope": "tests", "order_seeds": 8,
//    "clock_zone": "Pacific/Kiritimati", "freeze_time": "2038-01-19T12:00:00+00:00",
//    "cells": [{"name": "solo", "status": "pass", "failing_seeds": [], "passing_seeds": [0],
//               "unknown_reason": null, "not_run": false,
//               "trials": [{"seed": 0, "outcome": "pass", …}], …}, …],
//    "attribution": "order", "sentence": "ordering/shared state: …", "findings": […],
//    "interrupted": false, "recorded": "2026-11-30"}
//
// `patchwitness-cli cells --format json` prints the same document (plus `record`).
std::string formatCellsRecord(const ReproCellsResult &result, const std::string &recorded);

// Writes the record as `<runsDir>/<recorded>-<test, sanitised>-cells.json`, or …_02.json
// when that name is taken (RunsDir::writeNew: never overwritten). Returns the path;
// throws Error::input when it cannot write.
std::string writeCellsRecord(const std::string &runsDir, const ReproCellsResult &result,
                             const std::string &recorded);

// The date records of `ctx` carry: its --today, else today (YYYY-MM-DD).
std::string recordDate(const RunContext &ctx);

} // namespace pw::core
