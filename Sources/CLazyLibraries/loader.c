#include "loader.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rs_library_open(rs_library *library) {
    // The first name's failure is the one told; copied, as the next dlopen reuses dlerror's text.
    char reason[384] = "not found";
    for (const char *const *name = library->names; *name; name++) {
        // RTLD_LOCAL: its symbols stay out of the global scope (our forwarders keep their names).
        library->handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL | library->flags);
        if (library->handle) return 1;
        const char *why = dlerror();
        if (why && name == library->names) snprintf(reason, sizeof reason, "%s", why);
    }
    snprintf(library->error, sizeof library->error, "%s could not be loaded (%s): install the Debian package %s",
             library->names[0], reason, library->package);
    return 0;
}

void rs_library_missing(rs_library *library, const char *function) {
    snprintf(library->error, sizeof library->error, "%s has no %s (too old a version?): install the Debian package %s",
             library->names[0], function, library->package);
}

void rs_library_unavailable(const rs_library *library, const char *function) {
    fprintf(stderr, "rapidscan: internal error: %s called without its library: %s\n", function, library->error);
    abort();
}
