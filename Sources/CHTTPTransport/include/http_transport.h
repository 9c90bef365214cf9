#ifndef RS_HTTP_TRANSPORT_H
#define RS_HTTP_TRANSPORT_H
#include <stddef.h>

/// One blocking HTTP request through libcurl (curl_easy_setopt is variadic, so it stays in C).
/// The calling thread sleeps in poll() while it waits: no CPU is spent on a slow server.
/// Redirects are not followed here: `redirect_url` says where a 3xx points, and Swift decides
/// (CurlTransport: only within the configured host, never https to http).
typedef struct {
    long status;
    char *headers;          /* raw header block of the response */
    size_t headers_len;
    char *body;
    size_t body_len;
    char *redirect_url;     /* where a 3xx with Location points (absolute), or NULL */
    int curl_code;          /* CURLcode; 0 = OK */
    int too_large;          /* 1 when the (decoded) body went over max_bytes */
    int cancelled;          /* 1 when *cancel became non-zero */
    char error[256];
} rs_http_response;

/// `method` "GET" or "POST" (with `body`, `body_len` bytes); header lines "Name: value";
/// `timeout_ms` bounds the whole exchange (a server trickling bytes included); `max_bytes`
/// bounds the body as delivered, after gzip/deflate decoding; `cancel` is polled about every
/// 100 ms (and on progress).
void rs_http_perform(const char *method, const char *url, const char *const *headers, size_t header_count,
                     const char *body, size_t body_len,
                     long timeout_ms, long connect_timeout_ms, size_t max_bytes,
                     const volatile int *cancel, rs_http_response *out);
void rs_http_response_free(rs_http_response *response);

/// The CURLcode families Swift maps to user-facing errors.
enum {
    RS_HTTP_RESOLVE = 6, RS_HTTP_CONNECT = 7, RS_HTTP_TIMEOUT = 28, RS_HTTP_ABORTED = 42,
    RS_HTTP_TOO_MANY_REDIRECTS = 47, RS_HTTP_FILESIZE = 63
};
int rs_http_is_tls_error(int code);
#endif
