#ifndef PIPELINE_CURL_SHIMS_H
#define PIPELINE_CURL_SHIMS_H

// Fixed-arity wrappers for the variadic C functions Swift cannot call.
// Each one forwards to the library call unchanged and returns its result code.

#include <curl/curl.h>

typedef size_t (*pipeline_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);

CURLcode pipeline_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pipeline_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode pipeline_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode pipeline_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode pipeline_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode pipeline_curl_setopt_data_callback(CURL *handle, CURLoption option, pipeline_curl_data_callback value);

CURLcode pipeline_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode pipeline_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);

CURLMcode pipeline_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

// Loads libcurl on first use (Linux); nil when it is loaded, else why it could not be.
const char *pipeline_curl_load(void);

// curl_version_info with the CURLVERSION_NOW macro, which Swift does not import; NULL without libcurl.
curl_version_info_data *pipeline_curl_version_info(void);

#endif
