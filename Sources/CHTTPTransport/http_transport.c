#include "http_transport.h"
#include <curl/curl.h>
#include <lazy_libraries.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

typedef struct {
    char *data;
    size_t len, cap, limit;
    int over;
} buffer;

static int append(buffer *b, const char *data, size_t n) {
    if (b->limit && b->len + n > b->limit) { b->over = 1; return 0; }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) return 0;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = 0;
    return 1;
}

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    return append(user, data, size * count) ? size * count : 0;  /* 0 aborts: CURLE_WRITE_ERROR */
}

static size_t on_header(char *data, size_t size, size_t count, void *user) {
    buffer *b = user;
    size_t n = size * count;
    /* A new status line (after a redirect or 100-continue): keep only the last response's headers. */
    if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) b->len = 0;
    return append(b, data, n) ? n : 0;
}

static int on_progress(void *user, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d) {
    (void)a; (void)b; (void)c; (void)d;
    const volatile int *cancel = user;
    return cancel && *cancel ? 1 : 0;
}

void rs_http_perform(const char *method, const char *url, const char *const *headers, size_t header_count,
                     const char *body_data, size_t body_len,
                     long timeout_ms, long connect_timeout_ms, size_t max_bytes,
                     const volatile int *cancel, rs_http_response *out) {
    memset(out, 0, sizeof *out);
    pthread_once(&once, global_init);
    CURL *curl = curl_easy_init();
    if (!curl) {
        /* libcurl is opened on first use (CLazyLibraries): a machine without it says so here. */
        const char *missing = rs_curl_load();
        out->curl_code = CURLE_FAILED_INIT;
        snprintf(out->error, sizeof out->error, "%s", missing ? missing : "cannot start libcurl");
        return;
    }
    buffer body = {0}, head = {0};
    body.limit = max_bytes;
    head.limit = 1 << 20;
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = curl_slist_append(list, headers[i]);
    /* No "Expect: 100-continue" round trip before a large POST body. */
    if (body_data) list = curl_slist_append(list, "Expect:");

    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    /* Redirects are Swift's to follow: curl would re-send custom headers (keys) to any host. */
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    if (body_data && strcmp(method, "POST") == 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body_data);
    } else if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    }
    /* Decoded (gzip/deflate) bytes reach on_body, so its cap bounds what a small compressed
       body expands to; MAXFILESIZE refuses an announced Content-Length early. */
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    if (max_bytes) curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &head);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, (void *)cancel);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, out->error);

    CURLcode code = curl_easy_perform(curl);
    out->curl_code = (int)code;
    out->too_large = body.over || code == CURLE_FILESIZE_EXCEEDED;
    out->cancelled = code == CURLE_ABORTED_BY_CALLBACK;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
    char *redirect = NULL;
    if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &redirect) == CURLE_OK && redirect) out->redirect_url = strdup(redirect);
    out->body = body.data;
    out->body_len = body.len;
    out->headers = head.data;
    out->headers_len = head.len;
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
}

void rs_http_response_free(rs_http_response *response) {
    free(response->body);
    free(response->headers);
    free(response->redirect_url);
    response->body = response->headers = response->redirect_url = NULL;
}

int rs_http_is_tls_error(int code) {
    return code == CURLE_SSL_CONNECT_ERROR || code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CERTPROBLEM
        || code == CURLE_SSL_CIPHER || code == CURLE_SSL_CACERT_BADFILE || code == CURLE_SSL_ENGINE_NOTFOUND;
}
