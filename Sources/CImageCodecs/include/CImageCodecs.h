#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H
// Placeholder: the imaging work fills this in (JPEG/PNG decode with setjmp kept in C).
int rs_codecs_version(void);
#endif
