#pragma once

// Private to core/repo (and the test fixture builder): RAII owners for libgit2 handles.
// Public headers never include this file, so no git_* type leaks out of the layer.

#include <git2.h>
#include <memory>
#include <string>

namespace pw::core::git {

// Calls git_libgit2_init() once per process (thread-safe function-static) and shuts the
// library down at exit. Every entry point that touches libgit2 calls this first.
void ensureInit();

template <typename T, void (*Free)(T *)> struct Deleter
{
    void operator()(T *p) const noexcept
    {
        if (p)
            Free(p);
    }
};

template <typename T, void (*Free)(T *)> using GitPtr = std::unique_ptr<T, Deleter<T, Free>>;

using RepositoryPtr = GitPtr<git_repository, git_repository_free>;
using ObjectPtr = GitPtr<git_object, git_object_free>;
using CommitPtr = GitPtr<git_commit, git_commit_free>;
using TreePtr = GitPtr<git_tree, git_tree_free>;
using TreeEntryPtr = GitPtr<git_tree_entry, git_tree_entry_free>;
using BlobPtr = GitPtr<git_blob, git_blob_free>;
using DiffPtr = GitPtr<git_diff, git_diff_free>;
using PatchPtr = GitPtr<git_patch, git_patch_free>;
using ReferencePtr = GitPtr<git_reference, git_reference_free>;
using ReferenceIteratorPtr = GitPtr<git_reference_iterator, git_reference_iterator_free>;
using RevwalkPtr = GitPtr<git_revwalk, git_revwalk_free>;
using IndexPtr = GitPtr<git_index, git_index_free>;
using StatusListPtr = GitPtr<git_status_list, git_status_list_free>;
using SignaturePtr = GitPtr<git_signature, git_signature_free>;
using ConfigPtr = GitPtr<git_config, git_config_free>;
using OdbPtr = GitPtr<git_odb, git_odb_free>;
using DescribeResultPtr = GitPtr<git_describe_result, git_describe_result_free>;

// git_buf is a value filled by libgit2 and released with git_buf_dispose.
class Buf
{
public:
    Buf() = default;
    Buf(const Buf &) = delete;
    Buf &operator=(const Buf &) = delete;
    ~Buf() { git_buf_dispose(&m_buf); }

    git_buf *get() { return &m_buf; }
    std::string str() const
    {
        return m_buf.ptr ? std::string(m_buf.ptr, m_buf.size) : std::string();
    }

private:
    git_buf m_buf = GIT_BUF_INIT;
};

// 40-hex text of an object id ("" for the zero id).
inline std::string oidToHex(const git_oid *oid)
{
    if (!oid || git_oid_is_zero(oid))
        return {};
    char text[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(text, sizeof text, oid);
    return text;
}

} // namespace pw::core::git
