// libcurl, loaded when the first S3 request needs it rather than when the process starts.
// libcurl and the libraries it needs (TLS, Kerberos, LDAP, HTTP/2…) take about 3 ms to load;
// most commands never touch the network. On Linux the functions Swift calls are defined here and
// forward to the library opened on first use; elsewhere libcurl is linked as usual.
#include "curl_shims.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    void *library;
    char error[512];
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    const char *(*multi_strerror)(CURLMcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    curl_version_info_data *(*version_info)(CURLversion);
} lib;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(lib.error, sizeof lib.error, "%s", dlerror());
        return;
    }
#define RESOLVE(field, symbol)                                                              \
    if (!(*(void **)&lib.field = dlsym(library, symbol))) {                                 \
        snprintf(lib.error, sizeof lib.error, "libcurl.so.4 has no %s", symbol);            \
        dlclose(library);                                                                   \
        return;                                                                             \
    }
    RESOLVE(easy_init, "curl_easy_init")
    RESOLVE(easy_cleanup, "curl_easy_cleanup")
    RESOLVE(easy_setopt, "curl_easy_setopt")
    RESOLVE(easy_getinfo, "curl_easy_getinfo")
    RESOLVE(easy_strerror, "curl_easy_strerror")
    RESOLVE(multi_init, "curl_multi_init")
    RESOLVE(multi_cleanup, "curl_multi_cleanup")
    RESOLVE(multi_add_handle, "curl_multi_add_handle")
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle")
    RESOLVE(multi_perform, "curl_multi_perform")
    RESOLVE(multi_info_read, "curl_multi_info_read")
    RESOLVE(multi_setopt, "curl_multi_setopt")
    RESOLVE(multi_strerror, "curl_multi_strerror")
    RESOLVE(slist_append, "curl_slist_append")
    RESOLVE(slist_free_all, "curl_slist_free_all")
    RESOLVE(version_info, "curl_version_info")
#undef RESOLVE
    lib.library = library;
}

const char *pipeline_curl_load(void) {
    pthread_once(&loaded, load);
    return lib.library ? NULL : lib.error;
}

// Every entry point below runs after pipeline_curl_load() succeeded: Swift calls it before it
// creates the first handle, and nothing reaches these functions without a handle (or, for
// curl_easy_init and curl_multi_init, they report failure as libcurl does, with NULL).
CURL *curl_easy_init(void) { return pipeline_curl_load() ? NULL : lib.easy_init(); }
void curl_easy_cleanup(CURL *handle) { lib.easy_cleanup(handle); }
const char *curl_easy_strerror(CURLcode code) { return pipeline_curl_load() ? "libcurl is not loaded" : lib.easy_strerror(code); }
CURLM *curl_multi_init(void) { return pipeline_curl_load() ? NULL : lib.multi_init(); }
CURLMcode curl_multi_cleanup(CURLM *handle) { return lib.multi_cleanup(handle); }
CURLMcode curl_multi_add_handle(CURLM *multi, CURL *easy) { return lib.multi_add_handle(multi, easy); }
CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *easy) { return lib.multi_remove_handle(multi, easy); }
CURLMcode curl_multi_perform(CURLM *multi, int *running) { return lib.multi_perform(multi, running); }
CURLMsg *curl_multi_info_read(CURLM *multi, int *queued) { return lib.multi_info_read(multi, queued); }
const char *curl_multi_strerror(CURLMcode code) { return pipeline_curl_load() ? "libcurl is not loaded" : lib.multi_strerror(code); }
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text) {
    return pipeline_curl_load() ? NULL : lib.slist_append(list, text);
}
void curl_slist_free_all(struct curl_slist *list) { if (list) lib.slist_free_all(list); }

#define CURL_CALL(field, name) lib.field
#else
const char *pipeline_curl_load(void) { return NULL; }
#define CURL_CALL(field, name) name
#endif

CURLcode pipeline_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return CURL_CALL(easy_setopt, curl_easy_setopt)(handle, option, value);
}

CURLcode pipeline_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return CURL_CALL(easy_setopt, curl_easy_setopt)(handle, option, value);
}

CURLcode pipeline_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return CURL_CALL(easy_setopt, curl_easy_setopt)(handle, option, value);
}

CURLcode pipeline_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return CURL_CALL(easy_setopt, curl_easy_setopt)(handle, option, value);
}

CURLcode pipeline_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return CURL_CALL(easy_setopt, curl_easy_setopt)(handle, option, value);
}

CURLcode pipeline_curl_setopt_data_callback(CURL *handle, CURLoption option, pipeline_curl_data_callback value) {
    return CURL_CALL(easy_setopt, curl_easy_setopt)(handle, option, value);
}

CURLcode pipeline_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return CURL_CALL(easy_getinfo, curl_easy_getinfo)(handle, info, value);
}

CURLcode pipeline_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return CURL_CALL(easy_getinfo, curl_easy_getinfo)(handle, info, value);
}

CURLMcode pipeline_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return CURL_CALL(multi_setopt, curl_multi_setopt)(handle, option, value);
}

curl_version_info_data *pipeline_curl_version_info(void) {
    return pipeline_curl_load() ? NULL : CURL_CALL(version_info, curl_version_info)(CURLVERSION_NOW);
}
