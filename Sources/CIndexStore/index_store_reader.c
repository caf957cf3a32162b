// The index store read through libIndexStore, opened with dlopen from the toolchain that built the
// package (its path is known only at run time, so nothing links it). The few functions used are
// declared here as indexstore.h (API 0.16, LLVM's, Apache 2.0 with LLVM exceptions) declares them:
// a stable C interface, versioned by the library itself.
#include "index_store_reader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *indexstore_error_t;
typedef void *indexstore_t;
typedef void *indexstore_unit_reader_t;
typedef void *indexstore_record_reader_t;
typedef void *indexstore_unit_dependency_t;
typedef void *indexstore_symbol_t;
typedef void *indexstore_occurrence_t;
typedef void *indexstore_symbol_relation_t;
typedef struct {
    const char *data;
    size_t length;
} indexstore_string_ref_t;

enum { INDEXSTORE_UNIT_DEPENDENCY_RECORD = 2 };

// Each function used: (return type, name, parameters).
#define PIPELINE_INDEX_FUNCTIONS(X)                                                                  \
    X(const char *, indexstore_error_get_description, (indexstore_error_t))                         \
    X(void, indexstore_error_dispose, (indexstore_error_t))                                          \
    X(indexstore_t, indexstore_store_create, (const char *, indexstore_error_t *))                   \
    X(void, indexstore_store_dispose, (indexstore_t))                                                \
    X(bool, indexstore_store_units_apply_f,                                                          \
      (indexstore_t, unsigned, void *, bool (*)(void *, indexstore_string_ref_t)))                   \
    X(indexstore_unit_reader_t, indexstore_unit_reader_create, (indexstore_t, const char *, indexstore_error_t *)) \
    X(void, indexstore_unit_reader_dispose, (indexstore_unit_reader_t))                              \
    X(void, indexstore_unit_reader_get_modification_time, (indexstore_unit_reader_t, int64_t *, int64_t *)) \
    X(bool, indexstore_unit_reader_dependencies_apply_f,                                             \
      (indexstore_unit_reader_t, void *, bool (*)(void *, indexstore_unit_dependency_t)))            \
    X(int, indexstore_unit_dependency_get_kind, (indexstore_unit_dependency_t))                      \
    X(indexstore_string_ref_t, indexstore_unit_dependency_get_filepath, (indexstore_unit_dependency_t)) \
    X(indexstore_string_ref_t, indexstore_unit_dependency_get_name, (indexstore_unit_dependency_t))  \
    X(indexstore_record_reader_t, indexstore_record_reader_create, (indexstore_t, const char *, indexstore_error_t *)) \
    X(void, indexstore_record_reader_dispose, (indexstore_record_reader_t))                          \
    X(bool, indexstore_record_reader_occurrences_apply_f,                                            \
      (indexstore_record_reader_t, void *, bool (*)(void *, indexstore_occurrence_t)))               \
    X(indexstore_symbol_t, indexstore_occurrence_get_symbol, (indexstore_occurrence_t))              \
    X(uint64_t, indexstore_occurrence_get_roles, (indexstore_occurrence_t))                          \
    X(void, indexstore_occurrence_get_line_col, (indexstore_occurrence_t, unsigned *, unsigned *))   \
    X(bool, indexstore_occurrence_relations_apply_f,                                                 \
      (indexstore_occurrence_t, void *, bool (*)(void *, indexstore_symbol_relation_t)))             \
    X(uint64_t, indexstore_symbol_relation_get_roles, (indexstore_symbol_relation_t))                \
    X(indexstore_symbol_t, indexstore_symbol_relation_get_symbol, (indexstore_symbol_relation_t))    \
    X(indexstore_string_ref_t, indexstore_symbol_get_usr, (indexstore_symbol_t))                     \
    X(indexstore_string_ref_t, indexstore_symbol_get_name, (indexstore_symbol_t))                    \
    X(int, indexstore_symbol_get_kind, (indexstore_symbol_t))                                        \
    X(uint64_t, indexstore_symbol_get_properties, (indexstore_symbol_t))

typedef struct {
#define PIPELINE_INDEX_FIELD(type, name, parameters) type(*name) parameters;
    PIPELINE_INDEX_FUNCTIONS(PIPELINE_INDEX_FIELD)
#undef PIPELINE_INDEX_FIELD
} pipeline_index_api;

/// A source file's newest unit: its record and when the unit was written.
typedef struct {
    char *path;
    char *record;
    int64_t seconds;
    int64_t nanoseconds;
} pipeline_index_file;

typedef struct {
    const pipeline_index_api *api;
    indexstore_t store;
    pipeline_index_file *files;
    size_t count;
    size_t capacity;
    char *error;
    size_t error_size;
    bool failed;
    // The unit being read.
    int64_t seconds;
    int64_t nanoseconds;
} pipeline_index_walk;

static void pipeline_index_fail(pipeline_index_walk *walk, const char *what, indexstore_error_t error) {
    if (walk->failed) return;
    walk->failed = true;
    const char *reason = error ? walk->api->indexstore_error_get_description(error) : "unknown error";
    snprintf(walk->error, walk->error_size, "%s: %s", what, reason);
    if (error) walk->api->indexstore_error_dispose(error);
}

static char *pipeline_index_copy(indexstore_string_ref_t text) {
    char *copy = malloc(text.length + 1);
    if (!copy) return NULL;
    memcpy(copy, text.data, text.length);
    copy[text.length] = 0;
    return copy;
}

static bool pipeline_index_dependency(void *context, indexstore_unit_dependency_t dependency) {
    pipeline_index_walk *walk = context;
    const pipeline_index_api *api = walk->api;
    if (api->indexstore_unit_dependency_get_kind(dependency) != INDEXSTORE_UNIT_DEPENDENCY_RECORD) return true;
    indexstore_string_ref_t path = api->indexstore_unit_dependency_get_filepath(dependency);
    indexstore_string_ref_t record = api->indexstore_unit_dependency_get_name(dependency);
    for (size_t index = 0; index < walk->count; index++) {
        pipeline_index_file *file = &walk->files[index];
        if (strlen(file->path) == path.length && memcmp(file->path, path.data, path.length) == 0) {
            bool newer = walk->seconds > file->seconds ||
                         (walk->seconds == file->seconds && walk->nanoseconds > file->nanoseconds);
            if (newer) {
                char *copy = pipeline_index_copy(record);
                if (!copy) return false;
                free(file->record);
                file->record = copy;
                file->seconds = walk->seconds;
                file->nanoseconds = walk->nanoseconds;
            }
            return true;
        }
    }
    if (walk->count == walk->capacity) {
        size_t capacity = walk->capacity ? walk->capacity * 2 : 256;
        pipeline_index_file *grown = realloc(walk->files, capacity * sizeof(pipeline_index_file));
        if (!grown) return false;
        walk->files = grown;
        walk->capacity = capacity;
    }
    pipeline_index_file file = {pipeline_index_copy(path), pipeline_index_copy(record), walk->seconds,
                                walk->nanoseconds};
    if (!file.path || !file.record) return false;
    walk->files[walk->count++] = file;
    return true;
}

static bool pipeline_index_unit(void *context, indexstore_string_ref_t name) {
    pipeline_index_walk *walk = context;
    const pipeline_index_api *api = walk->api;
    char *unit = pipeline_index_copy(name);
    if (!unit) return false;
    indexstore_error_t error = NULL;
    indexstore_unit_reader_t reader = api->indexstore_unit_reader_create(walk->store, unit, &error);
    free(unit);
    if (!reader) {
        // A unit written while it was being read, or cut short: left out, as the compiler would.
        if (error) api->indexstore_error_dispose(error);
        return true;
    }
    api->indexstore_unit_reader_get_modification_time(reader, &walk->seconds, &walk->nanoseconds);
    bool going = api->indexstore_unit_reader_dependencies_apply_f(reader, walk, pipeline_index_dependency);
    api->indexstore_unit_reader_dispose(reader);
    return going;
}

/// The record being read: its file, the caller's callback, and the relations gathered.
typedef struct {
    const pipeline_index_api *api;
    pipeline_index_string path;
    void *context;
    pipeline_index_occurrence_callback callback;
    pipeline_index_relation relations[32];
    size_t relation_count;
} pipeline_index_record_walk;

static pipeline_index_string pipeline_index_string_of(indexstore_string_ref_t text) {
    pipeline_index_string result = {text.data, text.length};
    return result;
}

static bool pipeline_index_relation_of(void *context, indexstore_symbol_relation_t relation) {
    pipeline_index_record_walk *walk = context;
    if (walk->relation_count == sizeof(walk->relations) / sizeof(walk->relations[0])) return false;
    const pipeline_index_api *api = walk->api;
    indexstore_symbol_t symbol = api->indexstore_symbol_relation_get_symbol(relation);
    pipeline_index_relation *entry = &walk->relations[walk->relation_count++];
    entry->roles = api->indexstore_symbol_relation_get_roles(relation);
    entry->usr = pipeline_index_string_of(api->indexstore_symbol_get_usr(symbol));
    entry->name = pipeline_index_string_of(api->indexstore_symbol_get_name(symbol));
    entry->kind = (unsigned)api->indexstore_symbol_get_kind(symbol);
    return true;
}

static bool pipeline_index_occurrence_of(void *context, indexstore_occurrence_t occurrence) {
    pipeline_index_record_walk *walk = context;
    const pipeline_index_api *api = walk->api;
    indexstore_symbol_t symbol = api->indexstore_occurrence_get_symbol(occurrence);
    unsigned line = 0, column = 0;
    api->indexstore_occurrence_get_line_col(occurrence, &line, &column);
    walk->relation_count = 0;
    api->indexstore_occurrence_relations_apply_f(occurrence, walk, pipeline_index_relation_of);
    pipeline_index_occurrence entry = {
        pipeline_index_string_of(api->indexstore_symbol_get_usr(symbol)),
        pipeline_index_string_of(api->indexstore_symbol_get_name(symbol)),
        (unsigned)api->indexstore_symbol_get_kind(symbol),
        api->indexstore_symbol_get_properties(symbol),
        api->indexstore_occurrence_get_roles(occurrence),
        line,
        walk->relation_count,
        walk->relations,
    };
    walk->callback(walk->context, walk->path, &entry);
    return true;
}

int pipeline_index_read(const char *library, const char *store_path, void *context, pipeline_index_file_filter filter,
                        pipeline_index_occurrence_callback callback, char *error, size_t error_size) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(error, error_size, "cannot open %s: %s", library, dlerror());
        return -1;
    }
    pipeline_index_api api;
#define PIPELINE_INDEX_LOAD(type, name, parameters)                                                  \
    *(void **)(&api.name) = dlsym(handle, #name);                                                    \
    if (!api.name) {                                                                                 \
        snprintf(error, error_size, "%s has no %s: not the index store library this reads", library, #name); \
        dlclose(handle);                                                                             \
        return -1;                                                                                   \
    }
    PIPELINE_INDEX_FUNCTIONS(PIPELINE_INDEX_LOAD)
#undef PIPELINE_INDEX_LOAD

    pipeline_index_walk walk = {&api, NULL, NULL, 0, 0, error, error_size, false, 0, 0};
    indexstore_error_t failure = NULL;
    walk.store = api.indexstore_store_create(store_path, &failure);
    if (!walk.store) {
        pipeline_index_fail(&walk, store_path, failure);
        dlclose(handle);
        return -1;
    }
    int status = 0;
    if (!api.indexstore_store_units_apply_f(walk.store, 0, &walk, pipeline_index_unit)) {
        snprintf(error, error_size, "%s: its units could not be read whole (out of memory?)", store_path);
        status = -1;
    }
    for (size_t index = 0; status == 0 && index < walk.count; index++) {
        pipeline_index_file *file = &walk.files[index];
        pipeline_index_string path = {file->path, strlen(file->path)};
        if (!filter(context, path)) continue;
        indexstore_record_reader_t reader = api.indexstore_record_reader_create(walk.store, file->record, &failure);
        if (!reader) {
            pipeline_index_fail(&walk, file->path, failure);
            status = -1;
            break;
        }
        pipeline_index_record_walk record = {&api, path, context, callback, {{0}}, 0};
        api.indexstore_record_reader_occurrences_apply_f(reader, &record, pipeline_index_occurrence_of);
        api.indexstore_record_reader_dispose(reader);
    }
    for (size_t index = 0; index < walk.count; index++) {
        free(walk.files[index].path);
        free(walk.files[index].record);
    }
    free(walk.files);
    api.indexstore_store_dispose(walk.store);
    dlclose(handle);
    return status;
}
