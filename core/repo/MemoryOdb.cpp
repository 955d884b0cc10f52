// The in-memory object store of PATCH revisions: once a patch file is applied, the
// repository's object database is an overlay — new objects (the patched blobs and trees)
// go into memory (libgit2's mempack), everything else is read through from the real
// database, which nothing can write into. Private to core/repo.

#include "repo/GitError.h"
#include "repo/RepositoryImpl.h"

#include <cstring>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

namespace pw::core::repo_detail {

namespace {

// New objects live in memory; the read-through backend below serves everything else.
constexpr int kMemoryPriority = 2;
constexpr int kReadThroughPriority = 1;

// ---------------------------------------------------------------------------------------
// The object database overlay

// Reads the repository's real object database and does nothing else: without write and
// freshen callbacks libgit2 can neither write into nor touch a file under .git/objects.
struct ReadThroughBackend
{
    git_odb_backend parent; // first member: libgit2 hands this pointer to the callbacks
    git_odb *source = nullptr;

    static git_odb *sourceOf(git_odb_backend *backend)
    {
        return reinterpret_cast<ReadThroughBackend *>(backend)->source;
    }
};

// libgit2 frees what a backend returns, so it is copied into a buffer libgit2 allocated
// (NUL-terminated like the loose and pack backends do).
int handOver(git_odb_backend *backend, git_odb_object *object, void **data, size_t *len,
             git_object_t *type)
{
    const size_t size = git_odb_object_size(object);
    auto *buffer = static_cast<char *>(git_odb_backend_data_alloc(backend, size + 1));
    if (buffer) {
        std::memcpy(buffer, git_odb_object_data(object), size);
        buffer[size] = '\0';
        *data = buffer;
        *len = size;
        *type = git_odb_object_type(object);
    }
    git_odb_object_free(object);
    return buffer ? 0 : -1;
}

int readThroughRead(void **data, size_t *len, git_object_t *type, git_odb_backend *backend,
                    const git_oid *id)
{
    git_odb_object *object = nullptr;
    const int rc = git_odb_read(&object, ReadThroughBackend::sourceOf(backend), id);
    return rc < 0 ? rc : handOver(backend, object, data, len, type);
}

int readThroughReadPrefix(git_oid *out, void **data, size_t *len, git_object_t *type,
                          git_odb_backend *backend, const git_oid *shortId, size_t length)
{
    git_odb_object *object = nullptr;
    const int rc =
        git_odb_read_prefix(&object, ReadThroughBackend::sourceOf(backend), shortId, length);
    if (rc < 0)
        return rc;
    git_oid_cpy(out, git_odb_object_id(object));
    return handOver(backend, object, data, len, type);
}

int readThroughReadHeader(size_t *len, git_object_t *type, git_odb_backend *backend,
                          const git_oid *id)
{
    return git_odb_read_header(len, type, ReadThroughBackend::sourceOf(backend), id);
}

int readThroughExists(git_odb_backend *backend, const git_oid *id)
{
    return git_odb_exists(ReadThroughBackend::sourceOf(backend), id);
}

int readThroughExistsPrefix(git_oid *out, git_odb_backend *backend, const git_oid *shortId,
                            size_t length)
{
    return git_odb_exists_prefix(out, ReadThroughBackend::sourceOf(backend), shortId, length);
}

int readThroughRefresh(git_odb_backend *backend)
{
    return git_odb_refresh(ReadThroughBackend::sourceOf(backend));
}

int readThroughForeach(git_odb_backend *backend, git_odb_foreach_cb cb, void *payload)
{
    return git_odb_foreach(ReadThroughBackend::sourceOf(backend), cb, payload);
}

void readThroughFree(git_odb_backend *backend)
{
    auto *self = reinterpret_cast<ReadThroughBackend *>(backend);
    git_odb_free(self->source);
    delete self;
}

} // namespace

void installMemoryOdb(const RepoState &state)
{
    if (state.memoryOdb)
        return;
    const std::string context = "setting up the in-memory object database";
    git_odb *rawReal = nullptr;
    gitCheck(git_repository_odb(&rawReal, state.get()), context);
    git::OdbPtr real(rawReal);
    git_odb *rawOverlay = nullptr;
    gitCheck(git_odb_new(&rawOverlay), context);
    git::OdbPtr overlay(rawOverlay);

    git_odb_backend *memory = nullptr;
    gitCheck(git_mempack_new(&memory), context);
    int rc = git_odb_add_backend(overlay.get(), memory, kMemoryPriority);
    if (rc < 0)
        memory->free(memory);
    gitCheck(rc, context);

    auto *readThrough = new ReadThroughBackend();
    git_odb_init_backend(&readThrough->parent, GIT_ODB_BACKEND_VERSION);
    readThrough->parent.read = readThroughRead;
    readThrough->parent.read_prefix = readThroughReadPrefix;
    readThrough->parent.read_header = readThroughReadHeader;
    readThrough->parent.exists = readThroughExists;
    readThrough->parent.exists_prefix = readThroughExistsPrefix;
    readThrough->parent.refresh = readThroughRefresh;
    readThrough->parent.foreach = readThroughForeach;
    readThrough->parent.free = readThroughFree;
    readThrough->source = real.release();
    rc = git_odb_add_backend(overlay.get(), &readThrough->parent, kReadThroughPriority);
    if (rc < 0)
        readThroughFree(&readThrough->parent);
    gitCheck(rc, context);

    gitCheck(git_repository_set_odb(state.get(), overlay.get()), context);
    state.memoryOdb = true;
}

} // namespace pw::core::repo_detail
