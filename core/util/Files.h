#pragma once

#include <optional>
#include <string>

namespace pw::core {

// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed
// to disk, then renamed over the target (QSaveFile). Returns false (and leaves any
// existing file untouched) when it cannot; `error` then says why.
bool writeFileAtomically(const std::string &path, const std::string &bytes, bool createDirs = false,
                         std::string *error = nullptr);

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> readWholeFile(const std::string &path);

// sha256 of `bytes` as lower-case hex; `hexChars` > 0 keeps only that many characters.
std::string sha256Hex(const std::string &bytes, int hexChars = 0);

} // namespace pw::core
