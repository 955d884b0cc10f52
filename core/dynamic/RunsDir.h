#pragma once

#include <string>

namespace pw::core {

// The files of `<ledger dir>/runs/`: attribution and cells records, shard
// ledgers. Each is written once and never replaced; the directory keeps itself out of
// `git status`.
class RunsDir
{
public:
    // "<date>-<test, sanitised>-<what>" (AttributionRecord::fileNamePart), the name by
    // which AttributionRecord::latestFor finds a test's records.
    static std::string recordStem(const std::string &date, const std::string &test,
                                  const std::string &what);

    // Writes `text` atomically as `<dir>/<stem>.json`, or <stem>_02.json, … when that name
    // is taken (never overwritten, also not by a run finishing at the same moment; a later
    // record of a day sorts after the earlier). Creates `dir` and its `.gitignore` of `*`.
    // Returns the path; throws Error::input when it cannot be written.
    static std::string writeNew(const std::string &dir, const std::string &stem,
                                const std::string &text);
};

} // namespace pw::core
