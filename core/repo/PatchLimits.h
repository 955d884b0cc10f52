#pragma once

namespace pw::core {

// The largest PATCH: file read, and the most one binary hunk of it may inflate to (config
// `patch_max_bytes`). A patch is untrusted input: without a cap a file that never ends
// (/dev/zero) or a zip bomb in a `GIT binary patch` literal exhausts memory.
constexpr long long kDefaultPatchMaxBytes = 64LL * 1024 * 1024;

} // namespace pw::core
