// PATCH revisions: a patch file (a unified diff, `git diff` or `git format-patch` output,
// one mail or a series) applied onto a base commit in memory — checked part by part before
// libgit2 reads it (PatchFile.cpp, BinaryHunks.cpp), applied with git_apply_to_tree, the
// result written into the in-memory object store (MemoryOdb.cpp). Private to core/repo.

#include "repo/GitError.h"
#include "repo/RepositoryImpl.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <iterator>
#include <set>
#include <string_view>
#include <unistd.h>

namespace pw::core::repo_detail {

namespace {

const char kPatchPrefix[] = "PATCH:";

// ---------------------------------------------------------------------------------------
// Applying

std::string patchFilePath(const std::string &spec)
{
    const std::string path = spec.substr(sizeof kPatchPrefix - 1);
    if (path.empty())
        throw Error::input("'" + spec + "' names no file: expected PATCH:<path of a patch file>");
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec)
        throw Error::input(path + ": " + ec.message());
    return absolute.lexically_normal().string();
}

// The mode of the file (blob or symlink) at `path`; nullopt when there is none.
std::optional<uint32_t> fileMode(const git_tree *tree, const std::string &path)
{
    git_tree_entry *raw = nullptr;
    if (path.empty() || git_tree_entry_bypath(&raw, tree, path.c_str()) < 0) {
        git_error_clear();
        return std::nullopt;
    }
    git::TreeEntryPtr entry(raw);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
        return std::nullopt;
    return static_cast<uint32_t>(git_tree_entry_filemode(entry.get()));
}

std::string oldPathOf(const git_diff_delta *delta)
{
    return delta->old_file.path ? delta->old_file.path : "";
}

std::string newPathOf(const git_diff_delta *delta)
{
    return delta->new_file.path ? delta->new_file.path : "";
}

// Where an error happened: the file, and for a series the mail.
struct PartContext
{
    std::string where;                          // "/x/fix.mbox: patch 2/3 ('subject')"
    std::string onto;                           // "'HEAD' (0123456789ab)" or "patch 1/3"
    long long maxBytes = kDefaultPatchMaxBytes; // `patch_max_bytes`
};

int noteBinaryWithoutData(const git_diff_delta *delta, const git_diff_binary *binary, void *payload)
{
    if (binary->contains_data)
        return 0;
    *static_cast<std::string *>(payload) =
        delta->status == GIT_DELTA_DELETED ? oldPathOf(delta) : newPathOf(delta);
    return 1; // stop: one is enough to refuse
}

// What libgit2 would get wrong or explain badly: a file added where one exists (the new
// lines would land on top of it), a file changed that is not there, and a binary change
// the patch carries no data for ("Binary files a/x and b/x differ").
void checkPart(git_diff *diff, const git_tree *tree, const PartContext &ctx)
{
    std::string binary;
    git_diff_foreach(diff, nullptr, noteBinaryWithoutData, nullptr, nullptr, &binary);
    git_error_clear();
    if (!binary.empty())
        throw Error::input(ctx.where + ": the binary change of '" + binary +
                           "' has no data in the patch (\"Binary files … differ\"); "
                           "make the patch with `git diff --binary` or `git format-patch`");

    const size_t count = git_diff_num_deltas(diff);
    std::set<std::string> removed, created;
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        if (delta->status == GIT_DELTA_DELETED || delta->status == GIT_DELTA_RENAMED)
            removed.insert(oldPathOf(delta));
    }
    const std::string prefix = ctx.where + ": does not apply to " + ctx.onto + ": '";
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        const std::string oldPath = oldPathOf(delta), newPath = newPathOf(delta);
        if (delta->status != GIT_DELTA_ADDED && !fileMode(tree, oldPath) && !created.count(oldPath))
            throw Error::input(prefix + oldPath + "' does not exist there");
        const bool creates = delta->status == GIT_DELTA_ADDED ||
                             delta->status == GIT_DELTA_COPIED ||
                             (delta->status == GIT_DELTA_RENAMED && newPath != oldPath);
        if (!creates)
            continue;
        if (created.count(newPath) || (fileMode(tree, newPath) && !removed.count(newPath)))
            throw Error::input(prefix + newPath + "' already exists there");
        created.insert(newPath);
    }
}

// The delta libgit2 is applying (apply_one calls delta_cb once per delta, in order).
struct CurrentDelta
{
    std::string path;
    size_t index = 0;
    size_t seen = 0;
};

int noteDelta(const git_diff_delta *delta, void *payload)
{
    auto *current = static_cast<CurrentDelta *>(payload);
    current->path = delta->status == GIT_DELTA_ADDED ? newPathOf(delta) : oldPathOf(delta);
    current->index = current->seen++;
    return 0;
}

// The file's line of each `GIT binary patch` block of the mail; the k-th binary delta of
// its diff is the k-th block.
std::vector<size_t> binaryBlockLines(const PatchMail &mail)
{
    std::vector<size_t> lines;
    for (size_t i = 0; i < mail.lines.size(); ++i) {
        std::string_view line = mail.lines[i];
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.remove_suffix(1);
        if (line == "GIT binary patch")
            lines.push_back(mail.firstLine + i);
    }
    return lines;
}

// The line of delta `index`'s binary block; 0 when it is not binary.
size_t binaryBlockLine(git_diff *diff, size_t index, const std::vector<size_t> &blockLines)
{
    size_t block = 0;
    for (size_t i = 0; i < index; ++i)
        block += (git_diff_get_delta(diff, i)->flags & GIT_DIFF_FLAG_BINARY) ? 1 : 0;
    const bool binary = index < git_diff_num_deltas(diff) &&
                        (git_diff_get_delta(diff, index)->flags & GIT_DIFF_FLAG_BINARY);
    return binary && block < blockLines.size() ? blockLines[block] : 0;
}

// A patch that does not state a mode (a 100% rename, a plain diff) leaves it as it was;
// libgit2 would make the file 100644.
void keepModes(git_index *index, git_diff *diff, const git_tree *tree)
{
    const size_t count = git_diff_num_deltas(diff);
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        if (delta->status == GIT_DELTA_DELETED || delta->status == GIT_DELTA_ADDED ||
            delta->new_file.mode != 0)
            continue;
        const auto mode = fileMode(tree, oldPathOf(delta));
        const std::string path = newPathOf(delta);
        const git_index_entry *current = git_index_get_bypath(index, path.c_str(), 0);
        if (!mode || !current || current->mode == *mode)
            continue;
        git_index_entry entry = *current;
        entry.path = path.c_str();
        entry.mode = *mode;
        gitCheck(git_index_add(index, &entry), "keeping the mode of '" + path + "'");
    }
}

// git apply checks a binary patch's result against the id its index line names: a
// literal damaged so that it still inflates to its size (or a delta relabelled a literal)
// would otherwise pass as the new content. The k-th binary delta is the mail's k-th
// `GIT binary patch` block.
void checkBinaryResults(git_diff *diff, git_index *index, const std::vector<size_t> &blockLines,
                        const PartContext &ctx)
{
    const size_t count = git_diff_num_deltas(diff);
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff, i);
        if (!(delta->flags & GIT_DIFF_FLAG_BINARY))
            continue;
        const size_t line = binaryBlockLine(diff, i, blockLines);
        const size_t abbrev = delta->new_file.id_abbrev;
        if (delta->status == GIT_DELTA_DELETED || abbrev == 0)
            continue;
        const std::string path = newPathOf(delta);
        const git_index_entry *entry = git_index_get_bypath(index, path.c_str(), 0);
        if (!entry)
            continue;
        const std::string made = git::oidToHex(&entry->id).substr(0, abbrev);
        const std::string named = git::oidToHex(&delta->new_file.id).substr(0, abbrev);
        if (made != named)
            throw Error::input(ctx.where + ": corrupt binary patch" +
                               (line ? " at line " + std::to_string(line) : std::string()) +
                               ": applied, it makes '" + path + "' with id " + made + ", not the " +
                               named + " its index line names");
    }
}

git::TreePtr applyMailAsWritten(const RepoState &state, const PatchMail &mail, const git_tree *tree,
                                const PartContext &ctx, bool stripCr)
{
    git::DiffPtr diff = parsePatchMail(
        mail, [tree](const std::string &path) { return fileMode(tree, path).has_value(); },
        ctx.where, stripCr, ctx.maxBytes);
    checkPart(diff.get(), tree, ctx);

    git_apply_options opts;
    gitCheck(git_apply_options_init(&opts, GIT_APPLY_OPTIONS_VERSION), "apply options");
    const std::vector<size_t> blockLines = binaryBlockLines(mail);
    CurrentDelta current;
    opts.delta_cb = noteDelta;
    opts.payload = &current;
    git_error_clear();
    git_index *rawIndex = nullptr;
    // git_apply_to_tree wants a mutable tree but only reads it.
    if (git_apply_to_tree(&rawIndex, state.get(), const_cast<git_tree *>(tree), diff.get(), &opts) <
        0) {
        const std::string message = takeGitError();
        // A binary delta says nothing of where it is in the file; its block does.
        const size_t line =
            current.seen ? binaryBlockLine(diff.get(), current.index, blockLines) : 0;
        throw Error::input(ctx.where + ": does not apply to " + ctx.onto +
                           (current.path.empty() ? "" : ": '" + current.path + "'") +
                           (line ? " (binary patch at line " + std::to_string(line) + ")" : "") +
                           (message.empty() ? "" : ": " + message));
    }
    git::IndexPtr index(rawIndex);
    checkBinaryResults(diff.get(), index.get(), blockLines, ctx);
    keepModes(index.get(), diff.get(), tree);
    git_oid treeId;
    gitCheck(git_index_write_tree_to(&treeId, index.get(), state.get()),
             ctx.where + ": writing the patched tree");
    return lookupTree(state.get(), treeId, ctx.where);
}

git::TreePtr applyMail(const RepoState &state, const PatchMail &mail, const git_tree *tree,
                       const PartContext &ctx)
{
    try {
        return applyMailAsWritten(state, mail, tree, ctx, false);
    } catch (const Error &) {
        // A patch file with CRLF line ends throughout was converted as a whole (an editor,
        // a Windows checkout): undone, it may apply. Content that really has CRLF lines
        // applied above; when neither applies, the first error is the one to show.
        if (!hasCrlfLineEndings(mail))
            throw;
        const std::exception_ptr asWritten = std::current_exception();
        try {
            return applyMailAsWritten(state, mail, tree, ctx, true);
        } catch (const Error &) {
            std::rethrow_exception(asWritten);
        }
    }
}

} // namespace

bool isPatchSpec(const std::string &spec)
{
    return spec.starts_with(kPatchPrefix);
}

Revision applyPatchFile(const RepoState &state, const std::string &spec, const Revision &base,
                        long long maxBytes)
{
    const std::string file = patchFilePath(spec);
    if (base.isWorktree())
        throw Error::input("'" + spec + "': a patch applies onto a commit, not onto WORKTREE");
    if (base.isPatch())
        throw Error::input("'" + spec + "': the base of a patch cannot be another patch file");
    if (base.commit.empty())
        throw Error::input("'" + spec + "': the base has no commit to apply onto");

    state.patchMaxBytes = maxBytes;
    const std::string content = readPatchFile(file, maxBytes);
    if (content.find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error::input(file + ": the patch file is empty");
    const std::vector<PatchMail> mails = splitPatchMails(content);
    if (mails.empty())
        throw Error::input(file + ": not a patch (" + patchParseError(content) +
                           "); expected a unified diff, `git diff` or `git format-patch` output");

    installMemoryOdb(state);
    git::TreePtr tree = revisionTree(state, base);
    const size_t count = mails.size();
    for (size_t i = 0; i < count; ++i) {
        PartContext ctx;
        ctx.where = file;
        ctx.maxBytes = maxBytes;
        if (count > 1) {
            ctx.where += ": patch " + std::to_string(i + 1) + "/" + std::to_string(count);
            if (!mails[i].subject.empty())
                ctx.where += " ('" + mails[i].subject + "')";
        }
        ctx.onto = i > 0 ? "the result of patch " + std::to_string(i) + "/" + std::to_string(count)
                   : base.commit.starts_with(base.spec) // named by its id
                       ? "'" + shortId(base.commit) + "'"
                       : "'" + base.spec + "' (" + shortId(base.commit) + ")";
        tree = applyMail(state, mails[i], tree.get(), ctx);
    }

    Revision rev;
    rev.spec = kPatchPrefix + file;
    rev.kind = Revision::Kind::Patch;
    rev.commit = base.commit;
    rev.tree = git::oidToHex(git_tree_id(tree.get()));
    rev.patchFile = file;
    rev.subject = mails.back().subject.empty() ? std::filesystem::path(file).filename().string()
                                               : mails.back().subject;
    if (count > 1)
        rev.subject +=
            " (+" + std::to_string(count - 1) + " earlier patch" + (count > 2 ? "es" : "") + ")";
    return rev;
}

} // namespace pw::core::repo_detail
