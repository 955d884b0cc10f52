#include "repo/BinaryHunks.h"

#include <array>
#include <cstdint>
#include <zlib.h>

namespace pw::core::repo_detail {

namespace {

constexpr std::string_view kBase85 =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

std::string_view withoutNewline(std::string_view line)
{
    if (!line.empty() && line.back() == '\n')
        line.remove_suffix(1);
    return line;
}

std::string printable(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u < 0x7f)
        return std::string("'") + c + "'";
    static const char hex[] = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

struct Failure
{
    BinaryHunkProblem problem;
};

[[noreturn]] void fail(size_t line, std::string message)
{
    throw Failure{{line, std::move(message)}};
}

// One data line: its bytes, decoded. Git's rules: the length character, 5 base85
// characters per 4 bytes (the last group padded), nothing after them.
std::string decodeLine(std::string_view line, size_t at)
{
    const char c = line.front();
    size_t length = 0;
    if (c >= 'A' && c <= 'Z')
        length = size_t(c - 'A' + 1);
    else if (c >= 'a' && c <= 'z')
        length = size_t(c - 'a' + 27);
    else
        fail(at, "a data line must start with a length character (A-Z, a-z), not " + printable(c));
    const size_t encoded = (length + 3) / 4 * 5;
    const std::string_view chars = line.substr(1);
    if (chars.size() != encoded)
        fail(at, "the line has " + std::to_string(chars.size()) +
                     " base85 characters where its length character '" + std::string(1, c) + "' (" +
                     std::to_string(length) + " bytes) needs " + std::to_string(encoded) +
                     (chars.size() < encoded ? ": the line is cut short" : ""));
    std::string out;
    for (size_t group = 0; group < encoded; group += 5) {
        uint64_t value = 0;
        for (size_t k = 0; k < 5; ++k) {
            const size_t digit = kBase85.find(chars[group + k]);
            if (digit == std::string_view::npos)
                fail(at, "invalid base85 character " + printable(chars[group + k]) + " at column " +
                             std::to_string(group + k + 2));
            value = value * 85 + digit;
        }
        if (value > 0xffffffffULL)
            fail(at, "invalid base85 group at column " + std::to_string(group + 2) +
                         " (more than 32 bits)");
        for (int shift = 24; shift >= 0 && out.size() < length; shift -= 8)
            out += static_cast<char>((value >> shift) & 0xff);
    }
    return out;
}

// A git delta's variable-length size (7 bits a byte, least significant first).
std::optional<uint64_t> deltaSize(const std::string &delta, size_t &pos)
{
    uint64_t value = 0;
    for (int shift = 0; pos < delta.size() && shift < 64; shift += 7) {
        const auto byte = static_cast<unsigned char>(delta[pos++]);
        value |= uint64_t(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return value;
    }
    return std::nullopt;
}

// The instructions of a git delta (what patch-delta.c accepts): copies from the source
// inside the source's size, inserts inside the data, the result exactly the target size.
std::optional<std::string> deltaProblem(const std::string &delta)
{
    size_t pos = 0;
    const auto sourceSize = deltaSize(delta, pos);
    const auto targetSize = sourceSize ? deltaSize(delta, pos) : std::nullopt;
    if (!targetSize)
        return "the delta has no source and target size";
    uint64_t produced = 0;
    while (pos < delta.size()) {
        const auto cmd = static_cast<unsigned char>(delta[pos++]);
        uint64_t size = 0;
        if (cmd & 0x80) {
            uint64_t offset = 0;
            for (int k = 0; k < 4; ++k)
                if (cmd & (1 << k)) {
                    if (pos >= delta.size())
                        return "the delta ends inside a copy instruction";
                    offset |= uint64_t(static_cast<unsigned char>(delta[pos++])) << (8 * k);
                }
            for (int k = 0; k < 3; ++k)
                if (cmd & (0x10 << k)) {
                    if (pos >= delta.size())
                        return "the delta ends inside a copy instruction";
                    size |= uint64_t(static_cast<unsigned char>(delta[pos++])) << (8 * k);
                }
            if (size == 0)
                size = 0x10000;
            if (offset + size > *sourceSize)
                return "the delta copies beyond the end of its " + std::to_string(*sourceSize) +
                       "-byte source";
        } else if (cmd != 0) {
            size = cmd;
            if (pos + size > delta.size())
                return "the delta ends inside inserted data";
            pos += size;
        } else {
            return "the delta has an invalid instruction (0)";
        }
        produced += size;
        if (produced > *targetSize)
            break;
    }
    if (produced != *targetSize)
        return "the delta makes " + std::to_string(produced) + " bytes, not the " +
               std::to_string(*targetSize) + " it declares";
    return std::nullopt;
}

struct Inflater
{
    z_stream zs{};
    bool ok = inflateInit(&zs) == Z_OK;
    ~Inflater() { inflateEnd(&zs); }
};

// One side: "literal N" or "delta N", data lines, an empty line. Returns the index of the
// line after the side's empty line.
size_t checkSide(const std::vector<std::string_view> &lines, size_t at, long long maxInflated)
{
    if (at >= lines.size())
        fail(at - 1, "the binary patch ends before its 'literal' or 'delta' line");
    const std::string_view header = withoutNewline(lines[at]);
    const bool literal = header.substr(0, 8) == "literal ";
    if (!literal && header.substr(0, 6) != "delta ")
        fail(at, "expected 'literal <size>' or 'delta <size>', got '" +
                     std::string(header.substr(0, 40)) + "'");
    const std::string_view digits = header.substr(literal ? 8 : 6);
    if (digits.empty() || digits.size() > 18 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos)
        fail(at, "invalid binary size '" + std::string(digits.substr(0, 40)) + "'");
    const long long declared = std::stoll(std::string(digits));
    if (declared > maxInflated)
        fail(at, "the binary hunk declares " + std::to_string(declared) +
                     " bytes, over `patch_max_bytes` (" + std::to_string(maxInflated) + ")");

    Inflater inflater;
    if (!inflater.ok)
        fail(at, "cannot start zlib");
    z_stream &zs = inflater.zs;
    std::string inflated; // kept for a delta, whose instructions are checked; bounded above
    std::array<unsigned char, 16384> out;
    bool ended = false;
    size_t i = at + 1;
    size_t lastData = at;
    for (; i < lines.size(); ++i) {
        const std::string_view line = withoutNewline(lines[i]);
        if (line.empty())
            break;
        if (ended)
            fail(i, "data after the end of the compressed stream (which ended on line " +
                        std::to_string(lastData + 1) + " of the patch text)");
        std::string bytes = decodeLine(line, i);
        lastData = i;
        zs.next_in = reinterpret_cast<Bytef *>(bytes.data());
        zs.avail_in = static_cast<uInt>(bytes.size());
        while (zs.avail_in > 0 && !ended) {
            zs.next_out = out.data();
            zs.avail_out = static_cast<uInt>(out.size());
            const int rc = inflate(&zs, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
                fail(i, std::string("corrupt compressed data") +
                            (zs.msg ? ": " + std::string(zs.msg) : ""));
            const size_t produced = out.size() - zs.avail_out;
            if (static_cast<long long>(zs.total_out) > declared)
                fail(at, "the data inflates to more than the " + std::to_string(declared) +
                             " bytes this line declares");
            if (!literal)
                inflated.append(reinterpret_cast<const char *>(out.data()), produced);
            ended = rc == Z_STREAM_END;
            // zlib makes no progress with input and room left only on broken data; a
            // loop that waited for it would never end (libgit2's does).
            if (rc == Z_BUF_ERROR && produced == 0 && zs.avail_in > 0)
                fail(i, "corrupt compressed data: zlib makes no progress");
        }
        if (ended && zs.avail_in > 0)
            fail(i, "data after the end of the compressed stream");
    }
    if (lastData == at)
        fail(at, "the binary hunk has no data lines");
    if (!ended)
        fail(lastData, "the compressed data stops before its end: a base85 line is missing "
                       "or cut short");
    if (static_cast<long long>(zs.total_out) != declared)
        fail(at, "the data inflates to " + std::to_string(zs.total_out) + " bytes, not the " +
                     std::to_string(declared) + " this line declares");
    if (!literal)
        if (const auto problem = deltaProblem(inflated))
            fail(at, *problem);
    if (i >= lines.size())
        fail(lastData, "the binary hunk does not end with an empty line");
    return i + 1;
}

} // namespace

std::optional<BinaryHunkProblem> findBinaryHunkProblem(const std::vector<std::string_view> &lines,
                                                       long long maxInflated)
{
    try {
        // libgit2 reads a block only inside a file's diff: a mail's message before the first
        // "diff --git" may say anything.
        bool inDiff = false;
        for (size_t i = 0; i < lines.size(); ++i) {
            inDiff = inDiff || lines[i].substr(0, 11) == "diff --git ";
            if (!inDiff || withoutNewline(lines[i]) != "GIT binary patch")
                continue;
            // Forward (old → new), then reverse: libgit2 reads both.
            const size_t reverse = checkSide(lines, i + 1, maxInflated);
            i = checkSide(lines, reverse, maxInflated) - 1;
        }
    } catch (const Failure &f) {
        return f.problem;
    }
    return std::nullopt;
}

} // namespace pw::core::repo_detail
