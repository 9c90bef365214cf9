#include "lazy_libraries.h"
#include "loader.h"
#include <curl/curl.h>
#include <stdarg.h>

/* libcurl's functions CHTTPTransport calls (MetadataSources' one HTTP stack). */
#define CURL_FUNCTIONS(F) \
    F(curl_global_init) F(curl_easy_init) F(curl_easy_setopt) F(curl_easy_perform) F(curl_easy_getinfo) \
    F(curl_easy_cleanup) F(curl_slist_append) F(curl_slist_free_all)

RS_LAZY_LIBRARY(curl, CURL_FUNCTIONS, 0, "libcurl4", "libcurl.so.4", "libcurl.so")
#define CALL(name) RS_CALL(curl, name)

/* Where libcurl returns failures as values, a library that could not be opened is one more.
   The names are in parentheses: curl.h makes the variadic two type-checking macros. */
CURLcode (curl_global_init)(long flags) { return rs_curl_load() ? CURLE_FAILED_INIT : api.curl_global_init(flags); }
CURL *(curl_easy_init)(void) { return rs_curl_load() ? NULL : api.curl_easy_init(); }
CURLcode (curl_easy_perform)(CURL *curl) { return CALL(curl_easy_perform)(curl); }
void (curl_easy_cleanup)(CURL *curl) { CALL(curl_easy_cleanup)(curl); }
struct curl_slist *(curl_slist_append)(struct curl_slist *list, const char *string) {
    return CALL(curl_slist_append)(list, string);
}
void (curl_slist_free_all)(struct curl_slist *list) { CALL(curl_slist_free_all)(list); }

/* One argument follows the option, its type told by the option's number as libcurl reads it:
   a long, a pointer (data, string, list, callback) or a curl_off_t. */
CURLcode (curl_easy_setopt)(CURL *curl, CURLoption option, ...) {
    va_list arguments;
    va_start(arguments, option);
    CURLcode code;
    if (option < CURLOPTTYPE_OBJECTPOINT) {
        code = CALL(curl_easy_setopt)(curl, option, va_arg(arguments, long));
    } else if (option < CURLOPTTYPE_OFF_T) {
        code = CALL(curl_easy_setopt)(curl, option, va_arg(arguments, void *));
    } else if (option < CURLOPTTYPE_BLOB) {
        code = CALL(curl_easy_setopt)(curl, option, va_arg(arguments, curl_off_t));
    } else {
        code = CALL(curl_easy_setopt)(curl, option, va_arg(arguments, void *));
    }
    va_end(arguments);
    return code;
}

/* The one argument is always a pointer to where the answer goes. */
CURLcode (curl_easy_getinfo)(CURL *curl, CURLINFO info, ...) {
    va_list arguments;
    va_start(arguments, info);
    CURLcode code = CALL(curl_easy_getinfo)(curl, info, va_arg(arguments, void *));
    va_end(arguments);
    return code;
}
