#pragma once

#include "audit/GateReport.h"
#include "ledger/Config.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

namespace pw::core {

class PreparedReview;

struct AuditRequest
{
    std::string repoPath = ".";
    std::string base; // empty: the default revision
    std::string head; // empty: the default revision
    // Empty: the base revision's `<ledgerDir>/config.toml` (the patch cannot loosen its own
    // gate), or the file on disk when the ledger directory lies outside the repository.
    std::string configPath;
    std::string ledgerDir = ".patchwitness";
    std::optional<std::string> python; // overrides config `python`
    std::string cacheDir;              // empty: FactExtractor::defaultCacheDir()
    bool useCache = true;
    bool withManifest = false;
    // The day ledger entries are judged on (expiry, activity), YYYY-MM-DD; empty: today.
    std::string today;
    std::function<void(const std::string &)> progress; // one line per step, may be empty
    // Once a stop is requested the audit ends at its next step with Error::interrupted, and a
    // running fact extractor is killed (within a tenth of a second).
    std::stop_token stop;
};

// The static patch audit: reads git objects (never a checkout, except for
// WORKTREE), parses only test files whose blob ids differ, and runs the manifest,
// latitude, strength, conftest, fixture and ledger gates (LedgerGate says which
// revision's ledgers count). Throws pw::core::Error for input and
// harness errors; everything else is a finding.
class Audit
{
public:
    // prepare() and run(): the request's target resolved, then audited.
    static GateReport run(const AuditRequest &request);
    // The audit of a prepared target; `request` gives the rest (progress, stop, manifest,
    // the day). The target's repository is used on this thread and nothing is resolved
    // again, so the caller can show the diff and check the ledgers of the same read.
    static GateReport run(const PreparedReview &review, const AuditRequest &request);
    // The configuration an audit of `request` would use (and where it came from).
    static Config loadConfig(const AuditRequest &request);
};

} // namespace pw::core
