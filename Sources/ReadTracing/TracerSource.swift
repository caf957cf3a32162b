/// The read tracer's C source (Linux, glibc): compiled by `ReadTracer.prepare` into a shared
/// library that `LD_PRELOAD` puts into each test process of an impact recording. Kept here, in
/// the binary, so an installed `pipeline` needs no file beside it.
enum TracerSource {
    static let text = #"""
        /* pipeline's read tracer: preloaded (LD_PRELOAD) into a test process while `pipeline test
           --record-impact` runs one suite, it writes the files the process opens for reading under the
           traced roots, one line each ("r <absolute path>"), after a first line "pipeline-read-trace 1",
           to <PIPELINE_TRACE_FILE><pid>.trace; a process that ends normally writes "end" last, so a trace
           cut short by a crash is seen as such. PIPELINE_TRACE_ROOTS holds the roots, separated by ':'. */
        #define _GNU_SOURCE
        #include <dirent.h>
        #include <dlfcn.h>
        #include <errno.h>
        #include <fcntl.h>
        #include <limits.h>
        #include <pthread.h>
        #include <stdarg.h>
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/stat.h>
        #include <sys/syscall.h>
        #include <unistd.h>

        #define MAX_ROOTS 8

        static int trace = -1;
        static char roots[MAX_ROOTS][PATH_MAX];
        static size_t root_lengths[MAX_ROOTS];
        static int root_count;
        static uint64_t seen[4096];

        static void begin(void) {
            const char *file = getenv("PIPELINE_TRACE_FILE");
            const char *list = getenv("PIPELINE_TRACE_ROOTS");
            if (file == NULL || list == NULL) return;
            root_count = 0;
            for (const char *start = list; *start != 0 && root_count < MAX_ROOTS;) {
                const char *end = strchr(start, ':');
                size_t length = end ? (size_t)(end - start) : strlen(start);
                if (length > 0 && length + 2 < PATH_MAX) {
                    memcpy(roots[root_count], start, length);
                    if (roots[root_count][length - 1] != '/') roots[root_count][length++] = '/';
                    roots[root_count][length] = 0;
                    root_lengths[root_count++] = length;
                }
                if (end == NULL) break;
                start = end + 1;
            }
            char path[PATH_MAX + 32];
            int written = snprintf(path, sizeof path, "%s%ld.trace", file, (long)getpid());
            if (written < 0 || (size_t)written >= sizeof path) return;
            int descriptor = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
            if (descriptor < 0) return;
            memset(seen, 0, sizeof seen);
            static const char header[] = "pipeline-read-trace 1\n";
            if (write(descriptor, header, sizeof header - 1) < 0) {
                close(descriptor);
                return;
            }
            trace = descriptor;
        }

        /* A forked child traces to a file of its own. */
        static void forked(void) {
            if (trace >= 0) close(trace);
            trace = -1;
            begin();
        }

        __attribute__((constructor)) static void start(void) {
            begin();
            pthread_atfork(NULL, NULL, forked);
        }

        static void finish_trace(void) {
            if (trace < 0) return;
            static const char end[] = "end\n";
            if (write(trace, end, sizeof end - 1) < 0) { /* the trace stays without its end: unknown */
            }
            trace = -1;
        }

        __attribute__((destructor)) static void finish(void) { finish_trace(); }

        /* A process may end without destructors (shells do): its end is written all the same. */
        typedef void (*exit_function)(int);

        void _exit(int status) {
            finish_trace();
            exit_function real = (exit_function)dlsym(RTLD_NEXT, "_exit");
            if (real != NULL) real(status);
            syscall(SYS_exit_group, status);
            for (;;) {
            }
        }

        void _Exit(int status) { _exit(status); }

        static void record(int directory, const char *path) {
            if (trace < 0 || path == NULL || path[0] == 0) return;
            int saved = errno;
            char line[PATH_MAX * 2 + 8];
            int length;
            if (path[0] == '/') {
                length = snprintf(line, sizeof line, "r %s\n", path);
            } else {
                char folder[PATH_MAX];
                if (directory == AT_FDCWD) {
                    if (getcwd(folder, sizeof folder) == NULL) goto done;
                } else {
                    char link[64];
                    snprintf(link, sizeof link, "/proc/self/fd/%d", directory);
                    ssize_t read = readlink(link, folder, sizeof folder - 1);
                    if (read <= 0) goto done;
                    folder[read] = 0;
                }
                length = snprintf(line, sizeof line, "r %s/%s\n", folder, path);
            }
            if (length < 0 || (size_t)length >= sizeof line) goto done;
            int inside = 0;
            for (int index = 0; index < root_count && !inside; index++) {
                inside = strncmp(line + 2, roots[index], root_lengths[index]) == 0;
            }
            if (!inside) goto done;
            uint64_t hash = 1469598103934665603ULL;
            for (int index = 0; index < length; index++) {
                hash = (hash ^ (unsigned char)line[index]) * 1099511628211ULL;
            }
            uint64_t *slot = &seen[hash & 4095];
            if (__atomic_load_n(slot, __ATOMIC_RELAXED) == hash) goto done;
            __atomic_store_n(slot, hash, __ATOMIC_RELAXED);
            if (write(trace, line, (size_t)length) < 0) { /* nothing more can be done */
            }
        done:
            errno = saved;
        }

        static int reads(int flags) { return (flags & O_ACCMODE) != O_WRONLY; }

        static int has_mode(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

        #define NEXT(name, type) \
            static type real = NULL; \
            if (real == NULL) real = (type)dlsym(RTLD_NEXT, name)

        typedef int (*open_function)(const char *, int, ...);
        typedef int (*openat_function)(int, const char *, int, ...);
        typedef int (*open2_function)(const char *, int);
        typedef int (*openat2_function)(int, const char *, int);
        typedef FILE *(*fopen_function)(const char *, const char *);
        typedef DIR *(*opendir_function)(const char *);

        /* open's third argument, there only when the flags create a file. */
        #define TAKE_MODE(flags) \
            mode_t mode = 0; \
            if (has_mode(flags)) { \
                va_list arguments; \
                va_start(arguments, flags); \
                mode = (mode_t)va_arg(arguments, int); \
                va_end(arguments); \
            }

        #define OPEN(name) \
            int name(const char *path, int flags, ...) { \
                TAKE_MODE(flags); \
                NEXT(#name, open_function); \
                if (real == NULL) { errno = ENOSYS; return -1; } \
                int result = real(path, flags, mode); \
                if (reads(flags)) record(AT_FDCWD, path); \
                return result; \
            }

        #define OPENAT(name) \
            int name(int directory, const char *path, int flags, ...) { \
                TAKE_MODE(flags); \
                NEXT(#name, openat_function); \
                if (real == NULL) { errno = ENOSYS; return -1; } \
                int result = real(directory, path, flags, mode); \
                if (reads(flags)) record(directory, path); \
                return result; \
            }

        #define OPEN2(name) \
            int name(const char *path, int flags) { \
                NEXT(#name, open2_function); \
                if (real == NULL) { errno = ENOSYS; return -1; } \
                int result = real(path, flags); \
                if (reads(flags)) record(AT_FDCWD, path); \
                return result; \
            }

        #define OPENAT2(name) \
            int name(int directory, const char *path, int flags) { \
                NEXT(#name, openat2_function); \
                if (real == NULL) { errno = ENOSYS; return -1; } \
                int result = real(directory, path, flags); \
                if (reads(flags)) record(directory, path); \
                return result; \
            }

        #define FOPEN(name) \
            FILE *name(const char *path, const char *mode) { \
                NEXT(#name, fopen_function); \
                if (real == NULL) { errno = ENOSYS; return NULL; } \
                FILE *result = real(path, mode); \
                if (mode != NULL && (strchr(mode, 'r') != NULL || strchr(mode, '+') != NULL)) record(AT_FDCWD, path); \
                return result; \
            }

        OPEN(open)
        OPEN(open64)
        OPENAT(openat)
        OPENAT(openat64)
        OPEN2(__open_2)
        OPEN2(__open64_2)
        OPENAT2(__openat_2)
        OPENAT2(__openat64_2)
        FOPEN(fopen)
        FOPEN(fopen64)

        DIR *opendir(const char *path) {
            NEXT("opendir", opendir_function);
            if (real == NULL) {
                errno = ENOSYS;
                return NULL;
            }
            DIR *result = real(path);
            record(AT_FDCWD, path);
            return result;
        }
        """#
}
