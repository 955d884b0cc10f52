#pragma once

// `GIT binary patch` blocks checked before libgit2 sees them. libgit2 1.5 inflates a
// literal or delta without a bound and loops for ever on a deflate stream that was cut
// short (one base85 line lost); a length character or size that does not match the data
// is accepted silently. This checks what git itself checks, with the line it goes wrong at.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pw::core::repo_detail {

struct BinaryHunkProblem
{
    size_t line = 0; // index into the lines given (0-based)
    std::string message;
};

// Every `GIT binary patch` block of `lines` (each with its '\n'): both sides present,
// each `literal N` / `delta N` header followed by data lines of git's base85 (length
// character A-Z a-z, then 5 characters per 4 bytes), the decoded bytes one complete zlib
// stream that inflates to exactly N bytes (N at most `maxInflated`), and a delta's
// instructions within its source and target sizes. The first problem, or nullopt.
std::optional<BinaryHunkProblem> findBinaryHunkProblem(const std::vector<std::string_view> &lines,
                                                       long long maxInflated);

} // namespace pw::core::repo_detail
