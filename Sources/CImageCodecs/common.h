#ifndef RS_COMMON_H
#define RS_COMMON_H
// Internal helpers shared by the codec files.
#include <stddef.h>

void rs_copy_message(char *destination, size_t capacity, const char *text);
// Appends one line to a newline-separated buffer, dropping what does not fit.
void rs_append_line(char *buffer, size_t capacity, const char *line);

#endif
