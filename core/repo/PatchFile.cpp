// A patch file's text read into libgit2 diffs (PATCH revisions): format-patch
// mailboxes split into their mails, plain unified diffs given the git headers libgit2
// needs, and libgit2's parse errors told in the file's own line numbers.

#include "repo/BinaryHunks.h"
#include "repo/GitError.h"
#include "repo/RepositoryImpl.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

namespace pw::core::repo_detail {

namespace {

std::string_view withoutEol(std::string_view line)
{
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    return line;
}

// Each line keeps its '\n' (the last one may have none).
std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const size_t end = text.find('\n');
        const size_t size = end == std::string_view::npos ? text.size() : end + 1;
        lines.push_back(text.substr(0, size));
        text.remove_prefix(size);
    }
    return lines;
}

// "From <40 hex> Mon Sep 17 00:00:00 2001": the line git format-patch starts a mail with.
bool isMailStart(std::string_view line)
{
    constexpr size_t kHexEnd = 5 + GIT_OID_HEXSZ;
    return line.size() > kHexEnd && line.starts_with("From ") && line[kHexEnd] == ' ' &&
           std::all_of(line.begin() + 5, line.begin() + kHexEnd,
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

bool isHeaderLine(std::string_view line)
{
    const size_t colon = line.find(':');
    return colon != std::string_view::npos && colon > 0 &&
           std::all_of(line.begin(), line.begin() + colon, [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
           });
}

std::string decodeQuoted(std::string_view text)
{
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '_') {
            out += ' ';
        } else if (text[i] == '=' && i + 2 < text.size() &&
                   std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
                   std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// RFC 2047 words ("=?UTF-8?q?caf=C3=A9?="), which git format-patch writes for non-ASCII
// subjects (always Q-encoded; a B-encoded word is left as it is); the white space
// between two such words is not part of the text.
std::string decodeMimeWords(std::string_view text)
{
    std::string out;
    bool afterWord = false;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t begin = text.find("=?", pos);
        const size_t q1 = begin == std::string_view::npos ? begin : text.find('?', begin + 2);
        const size_t q2 = q1 == std::string_view::npos ? q1 : text.find('?', q1 + 1);
        const size_t end = q2 == std::string_view::npos ? q2 : text.find("?=", q2 + 1);
        if (end == std::string_view::npos || q2 != q1 + 2) {
            out += text.substr(pos);
            break;
        }
        const std::string_view between = text.substr(pos, begin - pos);
        if (!afterWord || between.find_first_not_of(" \t") != std::string_view::npos)
            out += between;
        const char encoding =
            static_cast<char>(std::tolower(static_cast<unsigned char>(text[q1 + 1])));
        const std::string_view payload = text.substr(q2 + 1, end - q2 - 1);
        out += encoding == 'q' ? decodeQuoted(payload)
                               : std::string(text.substr(begin, end + 2 - begin));
        afterWord = true;
        pos = end + 2;
    }
    return out;
}

std::string trimmedCopy(std::string_view s)
{
    const size_t begin = s.find_first_not_of(" \t");
    if (begin == std::string_view::npos)
        return {};
    return std::string(s.substr(begin, s.find_last_not_of(" \t") - begin + 1));
}

// The subject as `git am` keeps it: decoded, leading "[PATCH v2 1/3]" groups removed.
std::string cleanSubject(std::string_view raw)
{
    std::string subject = trimmedCopy(decodeMimeWords(raw));
    while (!subject.empty() && subject.front() == '[') {
        const size_t close = subject.find(']');
        if (close == std::string::npos)
            break;
        subject = trimmedCopy(std::string_view(subject).substr(close + 1));
    }
    return subject;
}

// The unfolded `Subject:` of the header block that starts at `lines[begin]`.
std::string subjectOf(const std::vector<std::string_view> &lines, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        const std::string_view line = withoutEol(lines[i]);
        if (line.empty())
            break; // end of the headers
        if (line.size() < 8 ||
            !std::equal(line.begin(), line.begin() + 8, "subject:", [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == b;
            }))
            continue;
        std::string value(line.substr(8));
        while (i + 1 < end && (lines[i + 1].starts_with(" ") || lines[i + 1].starts_with("\t")))
            value += withoutEol(lines[++i]);
        return cleanSubject(value);
    }
    return {};
}

// The mails of a format-patch series, each with its subject; a file that is not a mailbox
// is one part (with the subject of its header block, if it starts with one).
std::vector<PatchMail> splitMailbox(std::string_view content)
{
    const std::vector<std::string_view> lines = splitLines(content);
    std::vector<size_t> starts;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (isMailStart(lines[i]))
            starts.push_back(i);
    }
    if (starts.empty() || starts.front() != 0)
        starts.insert(starts.begin(), 0);
    std::vector<PatchMail> parts;
    for (size_t k = 0; k < starts.size(); ++k) {
        const size_t begin = starts[k];
        const size_t end = k + 1 < starts.size() ? starts[k + 1] : lines.size();
        PatchMail part;
        part.firstLine = begin + 1;
        part.lines.assign(lines.begin() + long(begin), lines.begin() + long(end));
        const bool mail = begin < lines.size() && isMailStart(lines[begin]);
        if (mail || (begin < end && isHeaderLine(lines[begin])))
            part.subject = subjectOf(lines, mail ? begin + 1 : begin, end);
        parts.push_back(std::move(part));
    }
    return parts;
}

// ---------------------------------------------------------------------------------------
// Plain unified diffs (`diff -u`, no "diff --git" lines), which libgit2 cannot parse,
// get the git headers it needs.

bool hasGitHeader(const std::vector<std::string_view> &lines)
{
    return std::any_of(lines.begin(), lines.end(),
                       [](std::string_view l) { return l.starts_with("diff --git "); });
}

bool isPlainFileHeader(const std::vector<std::string_view> &lines, size_t i)
{
    return i + 2 < lines.size() && lines[i].starts_with("--- ") &&
           lines[i + 1].starts_with("+++ ") && lines[i + 2].starts_with("@@ -");
}

bool hasDiff(const PatchMail &part)
{
    if (hasGitHeader(part.lines))
        return true;
    for (size_t i = 0; i < part.lines.size(); ++i) {
        if (isPlainFileHeader(part.lines, i))
            return true;
    }
    return false;
}

// The old and new line counts of "@@ -a[,b] +c[,d] @@".
std::optional<std::pair<long, long>> hunkCounts(std::string_view line)
{
    size_t pos = 4; // after "@@ -"
    auto number = [&](long &out) {
        const size_t begin = pos;
        out = 0;
        while (pos < line.size() && std::isdigit(static_cast<unsigned char>(line[pos])) &&
               out < 1'000'000'000)
            out = out * 10 + (line[pos++] - '0');
        return pos > begin;
    };
    long start = 0, oldCount = 1, newCount = 1;
    if (!number(start) || (line.substr(pos, 1) == "," && (++pos, !number(oldCount))))
        return std::nullopt;
    if (line.substr(pos, 2) != " +")
        return std::nullopt;
    pos += 2;
    if (!number(start) || (line.substr(pos, 1) == "," && (++pos, !number(newCount))))
        return std::nullopt;
    return std::make_pair(oldCount, newCount);
}

// A plain diff's file name as `git apply` reads it: timestamp dropped, one leading
// directory stripped (-p1); nullopt for /dev/null.
std::optional<std::string> plainPath(std::string_view header)
{
    std::string_view name = withoutEol(header.substr(4)); // after "--- " / "+++ "
    name = name.substr(0, name.find('\t'));
    while (!name.empty() && name.back() == ' ')
        name.remove_suffix(1);
    if (name == "/dev/null")
        return std::nullopt;
    const size_t slash = name.find('/');
    if (slash != std::string_view::npos && slash + 1 < name.size())
        name.remove_prefix(slash + 1);
    return std::string(name);
}

// The text handed to libgit2 and, for each of its lines, the line of the file it comes
// from (libgit2's parse errors count lines of the text; the user wants the file's).
struct PreparedPart
{
    std::string text;
    std::vector<size_t> lineOf;
    bool stripCarriageReturns = false;

    void add(std::string_view line, size_t fileLine)
    {
        if (stripCarriageReturns && line.size() >= 2 && line.substr(line.size() - 2) == "\r\n") {
            text.append(line.substr(0, line.size() - 2));
            text += '\n';
        } else {
            text.append(line);
        }
        lineOf.push_back(fileLine);
    }
};

PreparedPart prepare(const PatchMail &part, const std::function<bool(const std::string &)> &exists,
                     bool stripCarriageReturns)
{
    PreparedPart out;
    out.stripCarriageReturns = stripCarriageReturns;
    const auto &lines = part.lines;
    const size_t first = part.firstLine;
    if (hasGitHeader(lines)) {
        for (size_t i = 0; i < lines.size(); ++i)
            out.add(lines[i], first + i);
        return out;
    }
    size_t i = 0;
    while (i < lines.size()) {
        if (!isPlainFileHeader(lines, i)) {
            out.add(lines[i], first + i);
            ++i;
            continue;
        }
        const auto oldName = plainPath(lines[i]);
        const auto newName = plainPath(lines[i + 1]);
        const std::string name = !oldName           ? newName.value_or("")
                                 : !newName         ? *oldName
                                 : exists(*oldName) ? *oldName
                                                    : *newName;
        out.add("diff --git a/" + name + " b/" + name + "\n", first + i);
        if (!oldName)
            out.add("new file mode 100644\n", first + i);
        if (!newName)
            out.add("deleted file mode 100644\n", first + i);
        out.add(oldName ? "--- a/" + name + "\n" : std::string("--- /dev/null\n"), first + i);
        out.add(newName ? "+++ b/" + name + "\n" : std::string("+++ /dev/null\n"), first + i + 1);
        i += 2;
        // Hunk bodies are copied by their counts: a removed "-- x" line followed by an
        // added "++ y" line must not read as the next file's header.
        while (i < lines.size() && lines[i].starts_with("@@ -")) {
            const auto counts = hunkCounts(lines[i]);
            out.add(lines[i], first + i);
            ++i;
            if (!counts)
                break;
            long oldLeft = counts->first, newLeft = counts->second;
            while (i < lines.size() && (oldLeft > 0 || newLeft > 0 || lines[i].starts_with("\\"))) {
                const char origin = lines[i].empty() ? ' ' : lines[i][0];
                if (origin == ' ' || origin == '\n' || origin == '\r')
                    --oldLeft, --newLeft;
                else if (origin == '-')
                    --oldLeft;
                else if (origin == '+')
                    --newLeft;
                else if (origin != '\\')
                    break;
                out.add(lines[i], first + i);
                ++i;
            }
        }
    }
    return out;
}

// libgit2 says "at line N" of the text it parsed; name the line of the file instead.
std::string withFileLines(const std::string &message, const std::vector<size_t> &lineOf)
{
    std::string out;
    size_t pos = 0;
    for (;;) {
        const size_t at = message.find("line ", pos);
        if (at == std::string::npos) {
            out += message.substr(pos);
            return out;
        }
        size_t end = at + 5;
        while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])))
            ++end;
        out += message.substr(pos, at + 5 - pos);
        const std::string digits = message.substr(at + 5, end - at - 5);
        const size_t n = digits.empty() || digits.size() > 9 ? 0 : std::stoul(digits);
        out += n >= 1 && n <= lineOf.size() ? std::to_string(lineOf[n - 1]) : digits;
        pos = end;
    }
}

// Calls `check` on each header line of each file of a git diff, with the line's index and a
// number that grows by one per file; the first problem it names is returned with that
// line's index. A header runs from "diff --git" to the first "@@ ", "GIT binary patch",
// "Binary files " or "-- " line, as libgit2 reads it: the "---"/"+++" lines are part of it,
// and libgit2 takes index, similarity and rename lines after them too.
std::optional<std::pair<size_t, std::string>> findInHeaders(
    const std::vector<std::string_view> &lines,
    const std::function<std::optional<std::string>(size_t, std::string_view, size_t)> &check)
{
    bool inHeader = false;
    size_t file = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = withoutEol(lines[i]);
        if (line.starts_with("diff --git ")) {
            inHeader = true;
            ++file;
            continue;
        }
        if (!inHeader)
            continue;
        if (line.starts_with("@@ ") || line.starts_with("GIT binary patch") ||
            line.starts_with("Binary files ") || line.starts_with("-- ")) {
            inHeader = false;
            continue;
        }
        if (std::optional<std::string> problem = check(i, line, file))
            return std::make_pair(i, std::move(*problem));
    }
    return std::nullopt;
}

// A file property git writes once per file header that is given twice — the same line twice,
// or two lines that set it ("rename from" and "copy from" both name the old path): libgit2
// 1.5 overwrites (and leaks) the first path of a repeated rename or copy line (the fuzzer
// found it), and what the patch means is unclear. The line and the reason, checked before
// libgit2 reads the text.
std::optional<std::pair<size_t, std::string>>
repeatedHeaderLine(const std::vector<std::string_view> &lines)
{
    // Each group: the lines that set one property of the file (libgit2's header table).
    static const std::vector<std::vector<std::string_view>> kOnce = {
        {"old mode ", "deleted file mode "},           {"new mode ", "new file mode "},
        {"rename from ", "rename old ", "copy from "}, {"rename to ", "rename new ", "copy to "},
        {"similarity index ", "dissimilarity index "}, {"index "},
    };
    auto name = [](std::string_view key) {
        return "'" + std::string(key.substr(0, key.size() - 1)) + "'";
    };
    std::map<size_t, std::string_view> seen; // group → the line's key, in the current file's header
    size_t seenFile = 0;
    return findInHeaders(
        lines, [&](size_t, std::string_view line, size_t file) -> std::optional<std::string> {
            if (file != seenFile) {
                seen.clear();
                seenFile = file;
            }
            for (size_t group = 0; group < kOnce.size(); ++group) {
                for (const std::string_view key : kOnce[group]) {
                    if (!line.starts_with(key))
                        continue;
                    const auto [at, first] = seen.emplace(group, key);
                    if (first)
                        return std::nullopt;
                    if (at->second == key)
                        return name(key) +
                               " appears twice in one file's header (git writes it once)";
                    return name(key) + " after " + name(at->second) +
                           " in one file's header (both set the same; git writes one of them)";
                }
            }
            return std::nullopt;
        });
}

// The extended header lines of a git diff that libgit2 refuses without saying why (its
// mode and ".." parsers set no message): the line at fault and the reason.
std::optional<std::pair<size_t, std::string>>
headerProblem(const std::vector<std::string_view> &lines)
{
    auto isOctal = [](std::string_view s) {
        return !s.empty() && s.size() <= 6 &&
               s.find_first_not_of("01234567") == std::string_view::npos;
    };
    auto isId = [](std::string_view s) {
        return s.size() >= 4 && s.size() <= GIT_OID_HEXSZ &&
               std::all_of(s.begin(), s.end(),
                           [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    };
    auto quoted = [](std::string_view s) { return "'" + std::string(s.substr(0, 60)) + "'"; };
    return findInHeaders(
        lines, [&](size_t, std::string_view line, size_t) -> std::optional<std::string> {
            while (!line.empty() && (line.back() == ' ' || line.back() == '\t'))
                line.remove_suffix(1);
            for (const std::string_view key :
                 {"old mode ", "new mode ", "new file mode ", "deleted file mode "}) {
                if (line.starts_with(key) && !isOctal(line.substr(key.size())))
                    return "invalid file mode " + quoted(line.substr(key.size())) + " in '" +
                           std::string(key.substr(0, key.size() - 1)) +
                           "' (expected octal digits, e.g. 100644)";
            }
            if (!line.starts_with("index "))
                return std::nullopt;
            const std::string_view rest = line.substr(6);
            const size_t dots = rest.find("..");
            if (dots == std::string_view::npos)
                return "the index line " + quoted(line) +
                       " has no '..' between the old and the new id";
            const size_t space = rest.find(' ', dots);
            const std::string_view oldId = rest.substr(0, dots);
            const std::string_view newId =
                rest.substr(dots + 2, space == std::string_view::npos ? std::string_view::npos
                                                                      : space - dots - 2);
            for (const std::string_view id : {oldId, newId}) {
                if (!isId(id))
                    return "invalid object id " + quoted(id) +
                           " in the index line (4 to 40 hex digits)";
            }
            if (space != std::string_view::npos && !isOctal(rest.substr(space + 1)))
                return "invalid file mode " + quoted(rest.substr(space + 1)) +
                       " in the index line (expected octal digits, e.g. 100644)";
            return std::nullopt;
        });
}

} // namespace

std::vector<PatchMail> splitPatchMails(std::string_view content)
{
    std::vector<PatchMail> mails = splitMailbox(content);
    // A cover letter (format-patch --cover-letter) or a preamble carries no diff.
    mails.erase(
        std::remove_if(mails.begin(), mails.end(), [](const PatchMail &m) { return !hasDiff(m); }),
        mails.end());
    return mails;
}

bool hasCrlfLineEndings(const PatchMail &mail)
{
    return std::all_of(mail.lines.begin(), mail.lines.end(), [](std::string_view line) {
        return line.back() != '\n' || (line.size() >= 2 && line[line.size() - 2] == '\r');
    });
}

git::DiffPtr parsePatchMail(const PatchMail &mail,
                            const std::function<bool(const std::string &)> &isFile,
                            const std::string &where, bool stripCarriageReturns, long long maxBytes)
{
    const PreparedPart prepared = prepare(mail, isFile, stripCarriageReturns);
    // libgit2 copies a hunk line with strndup, which stops at a NUL while the line's length
    // does not: it reads past the copy (found by fuzzing). Git never writes one into a
    // patch (a file with NUL bytes is binary), so the line is refused.
    if (const size_t nul = prepared.text.find('\0'); nul != std::string::npos) {
        const size_t line =
            size_t(std::count(prepared.text.begin(), prepared.text.begin() + long(nul), '\n'));
        throw Error::input(where + ": a NUL byte at line " + std::to_string(prepared.lineOf[line]) +
                           ": a patch is text (binary changes are `GIT binary patch` blocks, "
                           "`git diff --binary`)");
    }
    if (const auto problem = findBinaryHunkProblem(splitLines(prepared.text), maxBytes))
        throw Error::input(where + ": corrupt binary patch at line " +
                           std::to_string(prepared.lineOf[problem->line]) + ": " +
                           problem->message);
    if (const auto repeated = repeatedHeaderLine(splitLines(prepared.text)))
        throw Error::input(where + ": not a patch git can read: " + repeated->second + " at line " +
                           std::to_string(prepared.lineOf[repeated->first]));
    git_error_clear();
    git_diff *raw = nullptr;
    if (git_diff_from_buffer(&raw, prepared.text.data(), prepared.text.size()) < 0) {
        const std::string message = takeGitError();
        if (message.empty()) {
            const auto problem = headerProblem(splitLines(prepared.text));
            throw Error::input(where + ": not a patch git can read: " +
                               (problem ? problem->second + " at line " +
                                              std::to_string(prepared.lineOf[problem->first])
                                        : std::string("libgit2 gives no reason")));
        }
        throw Error::input(
            where + ": not a patch git can read: " + withFileLines(message, prepared.lineOf));
    }
    git::DiffPtr diff(raw);
    if (git_diff_num_deltas(diff.get()) == 0)
        throw Error::input(where + ": not a patch: it changes no file");
    return diff;
}

std::string patchParseError(const std::string &content)
{
    git_error_clear();
    git_diff *raw = nullptr;
    const int rc = git_diff_from_buffer(&raw, content.data(), content.size());
    git::DiffPtr diff(raw);
    return rc < 0 ? takeGitError() : std::string("no file changes found");
}

} // namespace pw::core::repo_detail
