#ifndef CIMAGECODECS_COLOR_H
#define CIMAGECODECS_COLOR_H

// JPEG to interleaved 8-bit RGB, for images sent on to people or models (spine photos);
// the barcode path stays grayscale. Same contract as the gray decoders: a status code, a
// message, errors caught with setjmp inside C, the buffer freed with rs_free.

#include <stddef.h>

typedef struct rs_rgb_image {
    unsigned char *pixels;          // width*height*3 bytes, RGB row-major; free with rs_free
    int width;
    int height;
    int exif_orientation;           // 1...8; 1 when the file has none
    char message[200];
} rs_rgb_image;

/// Decodes at the largest DCT scale (1/1 ... 1/8) whose long side still reaches
/// `min_output_long_side` (0: full size). Gray and CMYK JPEGs are refused (status 1):
/// callers use the gray decoder for them.
int rs_jpeg_decode_rgb(const unsigned char *data, size_t size, int min_output_long_side,
                       unsigned long long max_pixels, rs_rgb_image *out);

#endif
