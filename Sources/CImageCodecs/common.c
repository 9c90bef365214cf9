#include "CImageCodecs.h"
#include "common.h"
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void rs_free(void *pointer) { free(pointer); }

void rs_copy_message(char *destination, size_t capacity, const char *text) {
    if (capacity == 0) return;
    size_t length = strlen(text);
    if (length >= capacity) length = capacity - 1;
    memcpy(destination, text, length);
    destination[length] = '\0';
}

void rs_append_line(char *buffer, size_t capacity, const char *line) {
    size_t used = strlen(buffer);
    size_t length = strlen(line);
    size_t separator = used > 0 ? 1 : 0;
    if (used + separator + length + 1 > capacity) return;
    if (separator) buffer[used++] = '\n';
    memcpy(buffer + used, line, length + 1);
}

int rs_keep_large_buffers_in_heap(void) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 64 << 20) == 1;
#else
    return 0;
#endif
}
