// libFuzzer target: the ledger readers and config.toml on the same bytes — each
// TOML reader and each JSON reader. A ledger that fails to parse must be an input error
// (pw::core::Error) naming file and line; a crash, a sanitizer report, any other exception
// escaping (std::out_of_range, nlohmann::json::exception, …) or a hang is a finding.

#include "ledger/Config.h"
#include "ledger/FixtureDigestLedger.h"
#include "ledger/PropertyBudget.h"
#include "ledger/QuarantineLedger.h"
#include "ledger/SeedJournal.h"
#include "ledger/WaiverLedger.h"
#include "util/Error.h"

#include <cstdint>
#include <functional>
#include <string>

using namespace pw::core;

namespace {

void readWith(const std::function<void()> &reader)
{
    try {
        reader();
    } catch (const Error &) {
        // refused with a message
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    readWith([&] { Config::parse(text, "config.toml"); });
    readWith([&] { QuarantineLedger::parse(text, QuarantineLedger::kFileName); });
    readWith([&] { WaiverLedger::parse(text, WaiverLedger::kFileName); });
    readWith([&] { PropertyBudget::parse(text, PropertyBudget::kFileName); });
    readWith([&] { SeedJournal::parse(text, SeedJournal::kFileName); });
    readWith([&] { FixtureDigestLedger::parse(text, FixtureDigestLedger::kFileName); });
    return 0;
}
