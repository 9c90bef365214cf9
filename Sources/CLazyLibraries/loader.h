#ifndef RS_LAZY_LOADER_H
#define RS_LAZY_LOADER_H

#include <dlfcn.h>
#include <pthread.h>

/* One lazily opened library: opened once (pthread_once), its functions resolved into a table. */
typedef struct {
    pthread_once_t once;
    const char *package;      /* Debian's package, named in the error */
    int flags;                /* dlopen flags beside RTLD_NOW | RTLD_LOCAL (RS_OWN_SCOPE_FIRST or 0) */
    const char *const *names; /* sonames tried in order, NULL-terminated */
    void *handle;
    int ready;
    char error[512];
} rs_library;

#define RS_LIBRARY(package, flags, ...) { PTHREAD_ONCE_INIT, package, flags, (const char *const[]){__VA_ARGS__, NULL}, NULL, 0, "" }

/* For a library whose whole dependency tree is C and interposes nothing (libpq): its symbols and
   its dependencies' are looked up in its own tree first (RTLD_DEEPBIND), not through the ~46
   libraries the program started with first: libpq's ~9,000 bindings took 12 ms of CPU that way,
   6 ms this way. Not under AddressSanitizer, whose interposed malloc must be found first. */
#if defined(__SANITIZE_ADDRESS__)
#define RS_OWN_SCOPE_FIRST 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RS_OWN_SCOPE_FIRST 0
#endif
#endif
#ifndef RS_OWN_SCOPE_FIRST
#define RS_OWN_SCOPE_FIRST RTLD_DEEPBIND
#endif

/* Opens the first of `names` that loads; 0 (with `error` set) when none does. */
int rs_library_open(rs_library *library);
/* Records that `function` is missing from the opened library (an older version). */
void rs_library_missing(rs_library *library, const char *function);
/* A forwarded function called although its library could not be opened: the Swift caller
   checks `rs_*_load` first, so this is a programming error; it says which and stops. */
_Noreturn void rs_library_unavailable(const rs_library *library, const char *function);

/* The table's field for `name`, typed as the header declares it. */
#define RS_POINTER(name) __typeof__(&name) name;
/* Resolves `name` into `table`, or records it missing and returns from the caller. */
#define RS_RESOLVE(library, table, name) \
    if (!(*(void **)&(table).name = dlsym((library).handle, #name))) { rs_library_missing(&(library), #name); return; }

/* One library's function table, its once-only opener and `const char *rs_<tag>_load(void)` (NULL
   once loaded, else why not), from the list macro naming its functions (`F(name) F(name) ...`);
   `flags` is RS_OWN_SCOPE_FIRST or 0.
   A file uses it once; `RS_CALL(tag, name)` is then the loaded function `name`. */
#define RS_RESOLVE_INTO_API(name) RS_RESOLVE(library, api, name)
#define RS_LAZY_LIBRARY(tag, FUNCTIONS, flags, package, ...) \
    static rs_library library = RS_LIBRARY(package, flags, __VA_ARGS__); \
    static struct { FUNCTIONS(RS_POINTER) } api; \
    static void open_library(void) { \
        if (!rs_library_open(&library)) return; \
        FUNCTIONS(RS_RESOLVE_INTO_API) \
        library.ready = 1; \
    } \
    const char *rs_##tag##_load(void) { \
        pthread_once(&library.once, open_library); \
        return library.ready ? NULL : library.error; \
    }
#define RS_CALL(tag, name) (rs_##tag##_load() ? rs_library_unavailable(&library, #name) : (void)0, api.name)

#endif
