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
        #include <spawn.h>
        #include <stdarg.h>
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/stat.h>
        #include <sys/syscall.h>
        #include <unistd.h>

        #define MAX_ROOTS 8

        #define NEXT(name, type) \
            static type real = NULL; \
            if (real == NULL) real = (type)dlsym(RTLD_NEXT, name)

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

        /* The variables a child must keep to be traced and to write its coverage profile where the
           run collects it: a test that starts a process with an environment of its own (Foundation's
           Process with `environment` set) would drop them, and the child's reads and profile (written to
           default.profraw in its working folder) would be lost. They are put back into the environment
           of every process this one starts, unless the test gave them values of its own. */
        #define KEPT 4
        static const char *const kept_names[KEPT] = {
            "LD_PRELOAD", "PIPELINE_TRACE_FILE", "PIPELINE_TRACE_ROOTS", "LLVM_PROFILE_FILE"};
        static char *kept_entries[KEPT];

        static void keep_variables(void) {
            for (int index = 0; index < KEPT; index++) {
                const char *value = getenv(kept_names[index]);
                if (value == NULL || kept_entries[index] != NULL) continue;
                size_t length = strlen(kept_names[index]) + strlen(value) + 2;
                char *entry = malloc(length);
                if (entry == NULL) continue;
                snprintf(entry, length, "%s=%s", kept_names[index], value);
                kept_entries[index] = entry;
            }
        }

        /* `environment` with the kept variables it lacks added; itself when it lacks none. The copy is
           never freed: the process is about to be replaced, or it starts few children. */
        static char *const *with_kept(char *const *environment) {
            if (environment == NULL) return environment;
            size_t count = 0;
            int missing[KEPT];
            int lacking = 0;
            while (environment[count] != NULL) count++;
            for (int index = 0; index < KEPT; index++) {
                missing[index] = 0;
                if (kept_entries[index] == NULL) continue;
                size_t name = strlen(kept_names[index]);
                int found = 0;
                for (size_t at = 0; at < count && !found; at++) {
                    found = strncmp(environment[at], kept_names[index], name) == 0 && environment[at][name] == '=';
                }
                if (!found) {
                    missing[index] = 1;
                    lacking++;
                }
            }
            if (lacking == 0) return environment;
            char **copy = malloc((count + (size_t)lacking + 1) * sizeof(char *));
            if (copy == NULL) return environment;
            memcpy(copy, environment, count * sizeof(char *));
            for (int index = 0; index < KEPT; index++) {
                if (missing[index]) copy[count++] = kept_entries[index];
            }
            copy[count] = NULL;
            return copy;
        }

        typedef int (*execve_function)(const char *, char *const[], char *const[]);
        typedef int (*spawn_function)(
            pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[],
            char *const[]);

        int execve(const char *path, char *const arguments[], char *const environment[]) {
            NEXT("execve", execve_function);
            if (real == NULL) { errno = ENOSYS; return -1; }
            return real(path, arguments, with_kept(environment));
        }

        int execvpe(const char *file, char *const arguments[], char *const environment[]) {
            NEXT("execvpe", execve_function);
            if (real == NULL) { errno = ENOSYS; return -1; }
            return real(file, arguments, with_kept(environment));
        }

        /* These two pass the process's own environment, which it may have emptied (`env -i`). */
        extern char **environ;

        int execv(const char *path, char *const arguments[]) {
            NEXT("execve", execve_function);
            if (real == NULL) { errno = ENOSYS; return -1; }
            return real(path, arguments, with_kept(environ));
        }

        int execvp(const char *file, char *const arguments[]) {
            NEXT("execvpe", execve_function);
            if (real == NULL) { errno = ENOSYS; return -1; }
            return real(file, arguments, with_kept(environ));
        }

        int posix_spawn(
            pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attributes,
            char *const arguments[], char *const environment[]) {
            NEXT("posix_spawn", spawn_function);
            if (real == NULL) return ENOSYS;
            return real(pid, path, actions, attributes, arguments, with_kept(environment));
        }

        int posix_spawnp(
            pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attributes,
            char *const arguments[], char *const environment[]) {
            NEXT("posix_spawnp", spawn_function);
            if (real == NULL) return ENOSYS;
            return real(pid, file, actions, attributes, arguments, with_kept(environment));
        }

        /* A forked child traces to a file of its own. */
        static void forked(void) {
            if (trace >= 0) close(trace);
            trace = -1;
            begin();
        }

        __attribute__((constructor)) static void start(void) {
            keep_variables();
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
