// libgit2, loaded when the first command that reads git needs it rather than when the process
// starts. libgit2 and the libraries it needs (SSH, TLS, Kerberos, PCRE, HTTP parsing: 17 in all
// on Debian) take milliseconds to load, and most commands never read git. On Linux the functions
// Swift calls are defined here and forward to the library opened on first use, found by the
// soname of the headers built against; elsewhere, and in a release built with
// PIPELINE_LIBGIT2_LINKED (scripts/release.sh links libgit2.a in), libgit2 is linked as usual.
#include <git2.h>
#include <git2/sys/hashsig.h>
#include "libgit2_loader.h"

// Each function pipeline calls: (return type, name, parameters, arguments). The prototypes come
// from the headers, so a mismatch with the installed libgit2 fails the build.
#define PIPELINE_GIT_VALUE_FUNCTIONS(X)                                                            \
    X(int, git_blob_lookup, (git_blob **blob, git_repository *repo, const git_oid *id), (blob, repo, id)) \
    X(const void *, git_blob_rawcontent, (const git_blob *blob), (blob))                           \
    X(git_object_size_t, git_blob_rawsize, (const git_blob *blob), (blob))                         \
    X(const git_oid *, git_commit_id, (const git_commit *commit), (commit))                        \
    X(int, git_commit_parent, (git_commit **out, const git_commit *commit, unsigned int n), (out, commit, n)) \
    X(const git_oid *, git_commit_parent_id, (const git_commit *commit, unsigned int n), (commit, n)) \
    X(unsigned int, git_commit_parentcount, (const git_commit *commit), (commit))                  \
    X(git_time_t, git_commit_time, (const git_commit *commit), (commit))                           \
    X(int, git_commit_tree, (git_tree **out, const git_commit *commit), (out, commit))             \
    X(int, git_graph_descendant_of, (git_repository *repo, const git_oid *commit, const git_oid *ancestor), \
      (repo, commit, ancestor))                                                                    \
    X(int, git_hashsig_compare, (const git_hashsig *a, const git_hashsig *b), (a, b))              \
    X(int, git_hashsig_create, (git_hashsig **out, const char *buf, size_t buflen, git_hashsig_option_t opts), \
      (out, buf, buflen, opts))                                                                    \
    X(int, git_merge_base, (git_oid *out, git_repository *repo, const git_oid *one, const git_oid *two), \
      (out, repo, one, two))                                                                       \
    X(int, git_merge_file, (git_merge_file_result *out, const git_merge_file_input *ancestor,       \
      const git_merge_file_input *ours, const git_merge_file_input *theirs, const git_merge_file_options *opts), \
      (out, ancestor, ours, theirs, opts))                                                         \
    X(int, git_merge_file_input_init, (git_merge_file_input *opts, unsigned int version), (opts, version)) \
    X(int, git_merge_file_options_init, (git_merge_file_options *opts, unsigned int version), (opts, version)) \
    X(int, git_patch_from_buffers, (git_patch **out, const void *old_buffer, size_t old_len,         \
      const char *old_as_path, const void *new_buffer, size_t new_len, const char *new_as_path,     \
      const git_diff_options *opts), (out, old_buffer, old_len, old_as_path, new_buffer, new_len, new_as_path, opts)) \
    X(int, git_patch_to_buf, (git_buf *out, git_patch *patch), (out, patch))                       \
    X(int, git_object_peel, (git_object **peeled, const git_object *object, git_object_t type),    \
      (peeled, object, type))                                                                      \
    X(const git_oid *, git_object_id, (const git_object *obj), (obj))                              \
    X(int, git_odb_add_disk_alternate, (git_odb *odb, const char *path), (odb, path))              \
    X(int, git_odb_hash, (git_oid *out, const void *data, size_t len, git_object_t type), (out, data, len, type)) \
    X(int, git_odb_hashfile, (git_oid *out, const char *path, git_object_t type), (out, path, type)) \
    X(const void *, git_odb_object_data, (git_odb_object *object), (object))                       \
    X(size_t, git_odb_object_size, (git_odb_object *object), (object))                             \
    X(git_object_t, git_odb_object_type, (git_odb_object *object), (object))                       \
    X(int, git_odb_read, (git_odb_object **out, git_odb *db, const git_oid *id), (out, db, id))    \
    X(int, git_oid_equal, (const git_oid *a, const git_oid *b), (a, b))                            \
    X(int, git_oid_fromstr, (git_oid *out, const char *str), (out, str))                           \
    X(int, git_reference_iterator_glob_new, (git_reference_iterator **out, git_repository *repo, const char *glob), \
      (out, repo, glob))                                                                           \
    X(const char *, git_reference_name, (const git_reference *ref), (ref))                         \
    X(int, git_reference_next, (git_reference **out, git_reference_iterator *iter), (out, iter))   \
    X(int, git_reference_peel, (git_object **out, const git_reference *ref, git_object_t type), (out, ref, type)) \
    X(int, git_repository_head_unborn, (git_repository *repo), (repo))                             \
    X(int, git_repository_is_shallow, (git_repository *repo), (repo))                              \
    X(int, git_repository_odb, (git_odb **out, git_repository *repo), (out, repo))                 \
    X(const char *, git_repository_path, (const git_repository *repo), (repo))                     \
    X(const char *, git_repository_workdir, (const git_repository *repo), (repo))                  \
    X(int, git_revparse_single, (git_object **out, git_repository *repo, const char *spec), (out, repo, spec)) \
    X(const git_status_entry *, git_status_byindex, (git_status_list *list, size_t index), (list, index)) \
    X(size_t, git_status_list_entrycount, (git_status_list *list), (list))                         \
    X(int, git_status_list_new, (git_status_list **out, git_repository *repo, const git_status_options *opts), \
      (out, repo, opts))                                                                           \
    X(int, git_status_options_init, (git_status_options *opts, unsigned int version), (opts, version)) \
    X(const git_tree_entry *, git_tree_entry_byindex, (const git_tree *tree, size_t index), (tree, index)) \
    X(int, git_tree_entry_bypath, (git_tree_entry **out, const git_tree *root, const char *path), (out, root, path)) \
    X(git_filemode_t, git_tree_entry_filemode, (const git_tree_entry *entry), (entry))             \
    X(const git_oid *, git_tree_entry_id, (const git_tree_entry *entry), (entry))                  \
    X(const char *, git_tree_entry_name, (const git_tree_entry *entry), (entry))                   \
    X(git_object_t, git_tree_entry_type, (const git_tree_entry *entry), (entry))                   \
    X(size_t, git_tree_entrycount, (const git_tree *tree), (tree))                                 \
    X(int, git_tree_lookup, (git_tree **out, git_repository *repo, const git_oid *id), (out, repo, id))

#define PIPELINE_GIT_VOID_FUNCTIONS(X)                                                             \
    X(git_blob_free, (git_blob *blob), (blob))                                                     \
    X(git_buf_dispose, (git_buf *buffer), (buffer))                                                \
    X(git_merge_file_result_free, (git_merge_file_result *result), (result))                       \
    X(git_patch_free, (git_patch *patch), (patch))                                                 \
    X(git_commit_free, (git_commit *commit), (commit))                                             \
    X(git_hashsig_free, (git_hashsig *sig), (sig))                                                 \
    X(git_object_free, (git_object *object), (object))                                             \
    X(git_odb_free, (git_odb *db), (db))                                                           \
    X(git_odb_object_free, (git_odb_object *object), (object))                                     \
    X(git_reference_free, (git_reference *ref), (ref))                                             \
    X(git_reference_iterator_free, (git_reference_iterator *iter), (iter))                         \
    X(git_repository_free, (git_repository *repo), (repo))                                         \
    X(git_status_list_free, (git_status_list *list), (list))                                       \
    X(git_tree_entry_free, (git_tree_entry *entry), (entry))                                       \
    X(git_tree_free, (git_tree *tree), (tree))

#if defined(__linux__) && !defined(PIPELINE_LIBGIT2_LINKED)
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    void *library;
    char error[512];
    int (*git_libgit2_init)(void);
    int (*git_libgit2_version)(int *major, int *minor, int *rev);
    int (*git_libgit2_opts)(int option, ...);
    const git_error *(*git_error_last)(void);
    int (*git_repository_open_ext)(git_repository **, const char *, unsigned int, const char *);
#define FIELD(type, name, parameters, arguments) type(*name) parameters;
#define VOID_FIELD(name, parameters, arguments) void(*name) parameters;
    PIPELINE_GIT_VALUE_FUNCTIONS(FIELD)
    PIPELINE_GIT_VOID_FUNCTIONS(VOID_FIELD)
#undef FIELD
#undef VOID_FIELD
} lib;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
    // The library of the headers built against (libgit2.so.1.5 for 1.5), else any libgit2.so.
    const char *name = "libgit2.so." LIBGIT2_SOVERSION;
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(lib.error, sizeof lib.error, "%s (install libgit2: apt-get install libgit2-dev)", dlerror());
        return;
    }
#define RESOLVE(name)                                                                              \
    if (!(*(void **)&lib.name = dlsym(library, #name))) {                                          \
        snprintf(lib.error, sizeof lib.error, "libgit2.so.%s has no %s", LIBGIT2_SOVERSION, #name); \
        dlclose(library);                                                                          \
        return;                                                                                    \
    }
#define RESOLVE_VALUE(type, name, parameters, arguments) RESOLVE(name)
#define RESOLVE_VOID(name, parameters, arguments) RESOLVE(name)
    RESOLVE(git_libgit2_init)
    RESOLVE(git_libgit2_version)
    RESOLVE(git_libgit2_opts)
    RESOLVE(git_error_last)
    RESOLVE(git_repository_open_ext)
    PIPELINE_GIT_VALUE_FUNCTIONS(RESOLVE_VALUE)
    PIPELINE_GIT_VOID_FUNCTIONS(RESOLVE_VOID)
#undef RESOLVE_VALUE
#undef RESOLVE_VOID
#undef RESOLVE
    lib.library = library;
}

// Loads libgit2 on first use; NULL when it is loaded, else why it could not be.
static const char *pipeline_git_load(void) {
    pthread_once(&loaded, load);
    return lib.library ? NULL : lib.error;
}

// The entry points report a library that could not be loaded as libgit2 reports its own
// failures: -1, with git_error_last saying why. Every other function below is reached only
// through a repository, which git_repository_open_ext opened after libgit2 loaded.
static git_error load_error = {.message = lib.error, .klass = 0};

int git_libgit2_init(void) { return pipeline_git_load() ? -1 : lib.git_libgit2_init(); }
int git_libgit2_version(int *major, int *minor, int *rev) {
    return pipeline_git_load() ? -1 : lib.git_libgit2_version(major, minor, rev);
}
const git_error *git_error_last(void) { return pipeline_git_load() ? &load_error : lib.git_error_last(); }
int git_repository_open_ext(git_repository **out, const char *path, unsigned int flags, const char *ceiling_dirs) {
    return pipeline_git_load() ? -1 : lib.git_repository_open_ext(out, path, flags, ceiling_dirs);
}
int pipeline_git_set_strict_hash_verification(int enabled) {
    return pipeline_git_load() ? -1 : lib.git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}

#define FORWARD_VALUE(type, name, parameters, arguments) \
    type name parameters { return lib.name arguments; }
#define FORWARD_VOID(name, parameters, arguments) \
    void name parameters { lib.name arguments; }
PIPELINE_GIT_VALUE_FUNCTIONS(FORWARD_VALUE)
PIPELINE_GIT_VOID_FUNCTIONS(FORWARD_VOID)
#undef FORWARD_VALUE
#undef FORWARD_VOID
#else
// Loads libgit2 on first use; NULL when it is loaded, else why it could not be.
static const char *pipeline_git_load(void) { return NULL; }
int pipeline_git_set_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}
#endif
