#pragma once

#include "ledger/LedgerProblem.h"

#include <string>
#include <vector>

namespace pw::core {

// One file of `<ledger dir>/runs/` (`runs/*.json`, `runs/*.jsonl`) as the Ledgers
// panel lists it: which evidence it is, about which test, what it concluded, and what keeps
// it from being read. Attribution records are read by AttributionRecord (the reader `freeze`
// uses, so a record it would skip is a problem here); cells records and shard ledgers by
// their top-level fields only.
struct RunRecordFile
{
    std::string file;     // as named: "<ledger dir as shown>runs/<name>"
    std::string kind;     // "attribution", "cells", "shard", "rows" (JSON Lines) or "other"
    std::string test;     // "" when the file names none
    std::string result;   // "PRE_EXISTING · matched · base 3/5, head 3/5", "order", "shard 2/3"
    std::string recorded; // YYYY-MM-DD, "" when the file has none
    std::vector<LedgerProblem> problems; // does not parse, no schema or test, a bad field

    // The shown name without the directory: "2026-11-30-tests_t.py_test_a-matched.json".
    std::string name() const;
};

// Every *.json and *.jsonl file directly in `runsDir`, sorted by name; `shownAs` is the
// directory as files are named ("<ledger dir as shown>runs/"). A directory that does not
// exist holds none. Never throws for a file's content: what cannot be read is a problem of
// its row (rule "parse" for a file that does not parse or cannot be read, "field" for a
// missing or wrong field).
std::vector<RunRecordFile> readRunRecords(const std::string &runsDir, const std::string &shownAs);

} // namespace pw::core
