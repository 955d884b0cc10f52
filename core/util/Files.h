#pragma once

#include <optional>
#include <string>
#include <sys/stat.h>

namespace pw::core {

// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed
// to disk, then renamed over the target (QSaveFile). Returns false (and leaves any
// existing file untouched) when it cannot; `error` then says why.
bool writeFileAtomically(const std::string &path, const std::string &bytes, bool createDirs = false,
                         std::string *error = nullptr);

// Like writeFileAtomically, but without flushing to disk: for caches, where a torn
// entry after a crash is detected and rebuilt and the fsync would dominate the cost.
bool writeFileReplacing(const std::string &path, const std::string &bytes, bool createDirs = false);

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> readWholeFile(const std::string &path);

// A read that tells "there is nothing" from "there is something that cannot be read": a
// ledger whose directory is unreadable must fail closed, never read as an empty ledger.
struct FileRead
{
    enum class Status
    {
        Read,      // `bytes` holds the file
        Absent,    // nothing at the path (or a directory on the way is missing)
        Unreadable // `reason` says why: "Permission denied", "is a directory", ...
    };
    Status status = Status::Absent;
    std::string bytes;
    std::string reason;
};
FileRead readFileIfPresent(const std::string &path);

// The sentence for an Unreadable read: "<path>: cannot be read: <reason>".
std::string cannotBeRead(const std::string &path, const std::string &reason);

// lstat(2) of `path` into `st`: false when nothing is there (ENOENT, ENOTDIR); throws
// Error::input with cannotBeRead(shown, reason) when it cannot be looked at (a directory on
// the way without search permission): a file that is there but hidden is never "absent".
bool lstatIfPresent(const std::string &path, const std::string &shown, struct stat *st);

// The file's bytes, nullopt when nothing is at `path`; throws Error::input with the
// cannotBeRead sentence when something is there that cannot be read (fail closed).
std::optional<std::string> readFileOrAbsent(const std::string &path);

// sha256 of `bytes` as lower-case hex; `hexChars` > 0 keeps only that many characters.
std::string sha256Hex(const std::string &bytes, int hexChars = 0);

} // namespace pw::core
