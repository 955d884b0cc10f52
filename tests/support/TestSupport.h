#pragma once

#include "execution/Sandbox.h"

#include <QString>
#include <string>

namespace pw::test {

// Interpreter with pytest installed (Debian's /usr/bin/python3 by default).
std::string testPython();

// Compares `actual` with the golden file `relPath` under tests/golden. On mismatch
// returns false and fills `diff` with a unified diff (libgit2's diff of two buffers).
// With PW_REGENERATE_GOLDEN=1 in the environment the golden file is rewritten instead.
bool compareGolden(const QString &relPath, const QByteArray &actual, QString *diff);

// Whether a test that needs bubblewrap must fail rather than skip when it cannot run here:
// PATCHWITNESS_REQUIRE_SANDBOX=1 (.ci/run sets it), so CI never goes green by skipping every
// sandbox test.
bool sandboxRequired();

// Skips the calling test function when the run sandbox (bubblewrap) is unavailable, naming
// the reason; fails it instead when sandboxRequired().
#define PW_REQUIRE_SANDBOX()                                                                       \
    do {                                                                                           \
        const pw::core::SandboxStatus pwSandbox_ = pw::core::Sandbox::status();                    \
        if (!pwSandbox_.available) {                                                               \
            const std::string pwWhy_ = "bubblewrap unavailable: " + pwSandbox_.reason;             \
            if (pw::test::sandboxRequired())                                                       \
                QFAIL((pwWhy_ + " (PATCHWITNESS_REQUIRE_SANDBOX is set)").c_str());                \
            QSKIP(pwWhy_.c_str());                                                                 \
        }                                                                                          \
    } while (false)

// Where GUI tests save the panel renderings a developer looks at: $PW_PANEL_SHOTS, else
// panel-shots/ next to the test binary (created).
QString panelShotsDir();

} // namespace pw::test
