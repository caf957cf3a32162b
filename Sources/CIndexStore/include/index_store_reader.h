// The toolchain's index store (libIndexStore, API 0.16), read through the library the toolchain
// ships, opened at run time by path: every debug build writes the store, and this walks its units
// and records, calling back with each occurrence of a source file's newest unit.
#ifndef PIPELINE_INDEX_STORE_READER_H
#define PIPELINE_INDEX_STORE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A string the library owns, valid during the callback only.
typedef struct {
    const char *data;
    size_t length;
} pipeline_index_string;

/// One relation of an occurrence: its roles (the REL_ bits) and the related symbol.
typedef struct {
    uint64_t roles;
    pipeline_index_string usr;
    pipeline_index_string name;
    unsigned kind;
} pipeline_index_relation;

/// One occurrence of a symbol in a source file.
typedef struct {
    pipeline_index_string usr;
    pipeline_index_string name;
    unsigned kind;
    uint64_t properties;
    uint64_t roles;
    unsigned line;
    size_t relation_count;
    const pipeline_index_relation *relations;
} pipeline_index_occurrence;

/// Whether to read the record of the source file `path` (absolute, as the compiler saw it).
typedef bool (*pipeline_index_file_filter)(void *context, pipeline_index_string path);
/// Called for each occurrence of each file read, in the file's order; `path` is the file's.
typedef void (*pipeline_index_occurrence_callback)(void *context, pipeline_index_string path,
                                                    const pipeline_index_occurrence *occurrence);

/// Opens `library` (libIndexStore.so or .dylib) and reads the store at `store` (the folder holding
/// `v5/`): for each source file with a unit, the record of its newest unit, when `filter` accepts
/// the file. Returns 0, or -1 with a message in `error` (at most `error_size` bytes).
int pipeline_index_read(const char *library, const char *store, void *context, pipeline_index_file_filter filter,
                        pipeline_index_occurrence_callback callback, char *error, size_t error_size);

#endif
