#include "pipeline_shims.h"

CURLcode pipeline_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pipeline_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pipeline_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pipeline_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pipeline_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pipeline_curl_setopt_data_callback(CURL *handle, CURLoption option, pipeline_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pipeline_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pipeline_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode pipeline_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

int pipeline_git_opts_set_int(int option, int value) {
    return git_libgit2_opts(option, value);
}

curl_version_info_data *pipeline_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
