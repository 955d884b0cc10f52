// Repository::diff: libgit2's diff turned into PatchDiff values (the other way in, a patch
// file's text read into libgit2 diffs, is PatchFile.cpp).

#include "repo/GitError.h"
#include "repo/Repository.h"
#include "repo/RepositoryImpl.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/ThreadRule.h"

#include <algorithm>
#include <fstream>
#include <sys/stat.h>

namespace pw::core {

using namespace repo_detail;

namespace {

constexpr uint16_t kRenameThreshold = 50;

git_diff_options diffOptions(const DiffOptions &options, bool toWorktree)
{
    git_diff_options opts;
    gitCheck(git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION), "diff options");
    opts.context_lines = static_cast<uint32_t>(std::max(0, options.contextLines));
    opts.interhunk_lines = 0;
    opts.ignore_submodules = GIT_SUBMODULE_IGNORE_ALL;
    opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
    if (options.ignoreWhitespace)
        opts.flags |= GIT_DIFF_IGNORE_WHITESPACE;
    if (toWorktree)
        opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
                      GIT_DIFF_SHOW_UNTRACKED_CONTENT;
    return opts;
}

git::DiffPtr makeDiff(const RepoState &state, const Revision &base, const Revision &head,
                      const DiffOptions &options)
{
    git_repository *repo = state.get();
    // A WORKTREE snapshot is a tree like any other; only a live work tree is diffed on disk.
    const bool onDisk = head.readsDisk();
    const git_diff_options opts = diffOptions(options, onDisk);
    git::TreePtr baseTree = revisionTree(state, base);
    git_diff *raw = nullptr;
    const std::string context = "diffing '" + base.spec + "' and '" + head.spec + "'";
    if (onDisk) {
        absoluteWorkdirPath(repo, {}); // throws for a bare repository
        gitCheck(git_diff_tree_to_workdir_with_index(&raw, repo, baseTree.get(), &opts), context);
    } else {
        git::TreePtr headTree = revisionTree(state, head);
        gitCheck(git_diff_tree_to_tree(&raw, repo, baseTree.get(), headTree.get(), &opts), context);
    }
    git::DiffPtr diff(raw);
    if (options.detectRenames) {
        git_diff_find_options find;
        gitCheck(git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION),
                 "rename options");
        find.flags = GIT_DIFF_FIND_RENAMES;
        if (onDisk)
            find.flags |= GIT_DIFF_FIND_FOR_UNTRACKED;
        find.rename_threshold = kRenameThreshold;
        gitCheck(git_diff_find_similar(diff.get(), &find), "detecting renames");
    }
    return diff;
}

std::optional<ChangeStatus> changeStatus(git_delta_t status)
{
    switch (status) {
    case GIT_DELTA_ADDED:
    case GIT_DELTA_UNTRACKED:
        return ChangeStatus::Added;
    case GIT_DELTA_DELETED:
        return ChangeStatus::Deleted;
    case GIT_DELTA_MODIFIED:
    case GIT_DELTA_CONFLICTED:
        return ChangeStatus::Modified;
    case GIT_DELTA_RENAMED:
        return ChangeStatus::Renamed;
    case GIT_DELTA_COPIED:
        return ChangeStatus::Copied;
    case GIT_DELTA_TYPECHANGE:
        return ChangeStatus::TypeChange;
    default:
        return std::nullopt; // unmodified, ignored, unreadable
    }
}

bool isSubmodule(const git_diff_delta *delta)
{
    auto gitlinkOrAbsent = [](uint16_t mode) { return mode == 0 || mode == GIT_FILEMODE_COMMIT; };
    return gitlinkOrAbsent(delta->old_file.mode) && gitlinkOrAbsent(delta->new_file.mode);
}

// libgit2 reads a file it cannot see (a directory on the way without search permission) as
// deleted: the patch did not delete it, and the audit must not say so.
void checkReallyGone(const RepoState &impl, const std::string &path)
{
    struct stat st;
    lstatIfPresent(absoluteWorkdirPath(impl.get(), path), path, &st);
}

// The new side's blob id; libgit2 leaves it zero for working-tree files it never hashed.
std::string newBlobId(const RepoState &impl, const git_diff_delta *delta, bool toWorktree)
{
    if (!git_oid_is_zero(&delta->new_file.id) || !toWorktree || delta->new_file.mode == 0)
        return git::oidToHex(&delta->new_file.id);
    const auto onDisk = hashWorkdirFile(impl, delta->new_file.path, delta->new_file.mode);
    return onDisk ? onDisk->blob : std::string();
}

FileDiff fileHeader(const RepoState &impl, const git_diff_delta *delta, ChangeStatus status,
                    bool toWorktree)
{
    FileDiff file;
    file.status = status;
    if (status == ChangeStatus::Deleted && toWorktree)
        checkReallyGone(impl, delta->old_file.path);
    if (status != ChangeStatus::Added) {
        file.oldPath = delta->old_file.path;
        file.oldBlob = git::oidToHex(&delta->old_file.id);
        file.oldMode = delta->old_file.mode;
    }
    if (status != ChangeStatus::Deleted) {
        file.newPath = delta->new_file.path;
        file.newBlob = newBlobId(impl, delta, toWorktree);
        file.newMode = delta->new_file.mode;
    }
    if (status == ChangeStatus::Renamed || status == ChangeStatus::Copied)
        file.similarity = delta->similarity;
    return file;
}

// ---------------------------------------------------------------------------------------
// Binary detection without generating the patch (the cheap file-list path).

bool blobHasNul(git_repository *repo, const git_oid &id, uint16_t mode)
{
    if (mode == 0 || mode == GIT_FILEMODE_LINK || mode == GIT_FILEMODE_COMMIT ||
        git_oid_is_zero(&id))
        return false;
    git_blob *raw = nullptr;
    if (git_blob_lookup(&raw, repo, &id) < 0)
        return false;
    git::BlobPtr blob(raw);
    return containsNul(static_cast<const char *>(git_blob_rawcontent(blob.get())),
                       static_cast<size_t>(git_blob_rawsize(blob.get())));
}

bool diskFileHasNul(git_repository *repo, const git_diff_file &file)
{
    if (file.mode == 0 || file.mode == GIT_FILEMODE_LINK || file.mode == GIT_FILEMODE_COMMIT)
        return false;
    std::ifstream in(absoluteWorkdirPath(repo, file.path), std::ios::binary);
    char buffer[8000];
    in.read(buffer, sizeof buffer);
    return containsNul(buffer, static_cast<size_t>(in.gcount()));
}

bool deltaIsBinary(git_repository *repo, const git_diff_delta *delta, bool toWorktree)
{
    if (delta->flags & GIT_DIFF_FLAG_BINARY)
        return true;
    if (delta->flags & GIT_DIFF_FLAG_NOT_BINARY)
        return false;
    // `-diff` / `binary` in .gitattributes decides before the content does, as in a patch.
    const char *path = delta->new_file.path ? delta->new_file.path : delta->old_file.path;
    const char *diffAttr = nullptr;
    if (path && git_attr_get(&diffAttr, repo, GIT_ATTR_CHECK_FILE_THEN_INDEX, path, "diff") == 0) {
        if (GIT_ATTR_IS_FALSE(diffAttr))
            return true;
        if (GIT_ATTR_IS_TRUE(diffAttr))
            return false;
    }
    if (blobHasNul(repo, delta->old_file.id, delta->old_file.mode))
        return true;
    if (toWorktree)
        return diskFileHasNul(repo, delta->new_file);
    return blobHasNul(repo, delta->new_file.id, delta->new_file.mode);
}

// ---------------------------------------------------------------------------------------
// Hunks and lines

std::string withoutNewline(const char *text, size_t size)
{
    std::string s(text, size);
    if (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s;
}

void appendLine(DiffHunk &hunk, const git_diff_line *line)
{
    switch (line->origin) {
    case GIT_DIFF_LINE_CONTEXT_EOFNL:
    case GIT_DIFF_LINE_ADD_EOFNL:
    case GIT_DIFF_LINE_DEL_EOFNL:
        // "\ No newline at end of file" follows the line it describes.
        if (!hunk.lines.empty())
            hunk.lines.back().noNewlineAtEnd = true;
        return;
    case GIT_DIFF_LINE_ADDITION:
    case GIT_DIFF_LINE_DELETION:
    case GIT_DIFF_LINE_CONTEXT:
        break;
    default:
        return;
    }
    DiffLine out;
    out.origin = line->origin == GIT_DIFF_LINE_ADDITION   ? DiffLine::Origin::Added
                 : line->origin == GIT_DIFF_LINE_DELETION ? DiffLine::Origin::Deleted
                                                          : DiffLine::Origin::Context;
    out.oldLine = std::max(0, line->old_lineno);
    out.newLine = std::max(0, line->new_lineno);
    out.text = withoutNewline(line->content, line->content_len);
    hunk.lines.push_back(std::move(out));
}

// Pairs the k-th deleted with the k-th added line of each run of deletions followed by
// additions, the way reviewers read a replaced block.
void addIntraline(DiffHunk &hunk)
{
    auto &lines = hunk.lines;
    size_t i = 0;
    while (i < lines.size()) {
        if (lines[i].origin != DiffLine::Origin::Deleted) {
            ++i;
            continue;
        }
        const size_t delBegin = i;
        while (i < lines.size() && lines[i].origin == DiffLine::Origin::Deleted)
            ++i;
        const size_t addBegin = i;
        while (i < lines.size() && lines[i].origin == DiffLine::Origin::Added)
            ++i;
        const size_t pairs = std::min(addBegin - delBegin, i - addBegin);
        for (size_t k = 0; k < pairs; ++k) {
            auto ranges = intralineRanges(lines[delBegin + k].text, lines[addBegin + k].text);
            lines[delBegin + k].intraline = std::move(ranges.first);
            lines[addBegin + k].intraline = std::move(ranges.second);
        }
    }
}

DiffHunk readHunk(git_patch *patch, size_t index, bool intraline)
{
    const git_diff_hunk *raw = nullptr;
    size_t lineCount = 0;
    gitCheck(git_patch_get_hunk(&raw, &lineCount, patch, index), "reading hunk");
    DiffHunk hunk;
    hunk.oldStart = raw->old_start;
    hunk.oldLines = raw->old_lines;
    hunk.newStart = raw->new_start;
    hunk.newLines = raw->new_lines;
    hunk.header = withoutNewline(raw->header, raw->header_len);
    if (!hunk.header.empty() && hunk.header.back() == '\r')
        hunk.header.pop_back();
    hunk.lines.reserve(lineCount);
    for (size_t l = 0; l < lineCount; ++l) {
        const git_diff_line *line = nullptr;
        gitCheck(git_patch_get_line_in_hunk(&line, patch, index, l), "reading diff line");
        appendLine(hunk, line);
    }
    if (intraline)
        addIntraline(hunk);
    return hunk;
}

void fillFromPatch(git_patch *patch, FileDiff &file, const DiffOptions &options)
{
    file.binary = (git_patch_get_delta(patch)->flags & GIT_DIFF_FLAG_BINARY) != 0;
    if (file.binary || !options.withHunks)
        return;
    size_t context = 0, additions = 0, deletions = 0;
    gitCheck(git_patch_line_stats(&context, &additions, &deletions, patch), "counting lines");
    file.additions = static_cast<int>(additions);
    file.deletions = static_cast<int>(deletions);
    const size_t hunkCount = git_patch_num_hunks(patch);
    file.hunks.reserve(hunkCount);
    for (size_t h = 0; h < hunkCount; ++h)
        file.hunks.push_back(readHunk(patch, h, options.intraline));
}

// With ignore-whitespace, a modification that only touched white space has no hunk left
// and is not shown at all (what `git diff -w` does).
bool onlyWhitespaceChanged(git_patch *patch, const FileDiff &file)
{
    return file.status == ChangeStatus::Modified && !file.modeChanged() && !file.binary &&
           git_patch_num_hunks(patch) == 0;
}

} // namespace

PatchDiff Repository::diff(const Revision &base, const Revision &head,
                           const DiffOptions &options) const
{
    checkBlockingWorkAllowed("Repository::diff");
    if (base.isWorktree())
        throw Error::input("WORKTREE can only be the head of a comparison, not the base");
    git_repository *repo = d->get();
    const bool toWorktree = head.readsDisk();
    git::DiffPtr diff = makeDiff(*d, base, head, options);

    PatchDiff result;
    const size_t count = git_diff_num_deltas(diff.get());
    result.files.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff.get(), i);
        const auto status = changeStatus(delta->status);
        if (!status || isSubmodule(delta))
            continue;
        FileDiff file = fileHeader(*d, delta, *status, toWorktree);
        if (options.withHunks || options.ignoreWhitespace) {
            git_patch *raw = nullptr;
            gitCheck(git_patch_from_diff(&raw, diff.get(), i), "diffing '" + file.path() + "'");
            git::PatchPtr patch(raw);
            fillFromPatch(patch.get(), file, options);
            if (options.ignoreWhitespace && onlyWhitespaceChanged(patch.get(), file))
                continue;
        } else {
            file.binary = deltaIsBinary(repo, delta, toWorktree);
        }
        result.files.push_back(std::move(file));
    }
    return result;
}

} // namespace pw::core
