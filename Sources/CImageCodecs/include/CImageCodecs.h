#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H

// JPEG (libjpeg) and PNG (libpng) to 8-bit grayscale, and back.
// libjpeg reports fatal errors by longjmp; that jump lands in the same C function that
// called setjmp, so no Swift frame is ever crossed. Every function returns a status
// code and fills a message; every buffer handed out is freed with rs_free.

#include <stddef.h>

typedef enum rs_status {
    RS_OK = 0,
    RS_ERROR_CORRUPT = 1,      // the codec refused the data (message says why)
    RS_ERROR_TRUNCATED = 2,    // the data ends before the image does
    RS_ERROR_TOO_LARGE = 3,    // width × height is over max_pixels; nothing was allocated
    RS_ERROR_NO_MEMORY = 4,
    RS_ERROR_INVALID_ARGUMENT = 5,
    RS_ERROR_IMPLAUSIBLE = 6,  // decoding would take more memory than the file can plausibly need
} rs_status;

#define RS_MESSAGE_CAPACITY 200
#define RS_WARNINGS_CAPACITY 1000

typedef struct rs_gray_image {
    unsigned char *pixels;          // width*height bytes, row-major; free with rs_free
    int width;                      // of pixels (after DCT scaling)
    int height;
    int source_width;               // as stored in the file (0 when the header was unreadable)
    int source_height;
    int exif_orientation;           // 1...8; 1 when the file has none
    int scale_denominator;          // JPEG: the DCT scaling used (1, 2, 4 or 8)
    int warning_count;              // warnings seen (may exceed what fits in warnings)
    char message[RS_MESSAGE_CAPACITY];      // the error, when the status is not RS_OK
    char warnings[RS_WARNINGS_CAPACITY];    // codec warnings, one per line
} rs_gray_image;

typedef struct rs_jpeg_decode_options {
    int scale_denominator;              // 1, 2, 4 or 8 (DCT scaling)
    int min_output_long_side;           // when not 0: scale less (up to 1/1) while the long side would be shorter
    unsigned long long max_output_pixels; // when not 0: scale down further (up to 1/8) to stay under it
    unsigned long long max_pixels;      // checked against the stored size before decoding
    int fast;                           // JDCT_IFAST and no fancy upsampling
    unsigned long long memory_floor;    // decode memory always allowed (0: RS_JPEG_MEMORY_FLOOR)
    unsigned char *destination;         // when not NULL and it holds the output exactly: decode into it
    size_t destination_capacity;        // (then out->pixels is destination, not to be freed)
} rs_jpeg_decode_options;

// Decode memory (output pixels, plus every DCT coefficient for progressive files) is
// allowed up to max(floor, RS_JPEG_BYTES_PER_FILE_BYTE × file size): a real photo needs far
// less than that, while a few hundred bytes declaring 9999×9999 would take gigabytes.
#define RS_JPEG_MEMORY_FLOOR (64ULL << 20)
#define RS_JPEG_BYTES_PER_FILE_BYTE 256ULL

// From the header alone, so callers can share a memory budget between threads and hand the
// decode a buffer: the memory rs_jpeg_decode would use at these options (0 when the header is
// unreadable), and its output size (0×0 when it would refuse the file: header unreadable,
// over max_pixels, implausible memory).
void rs_jpeg_plan(const unsigned char *data, size_t size, const rs_jpeg_decode_options *options,
                  unsigned long long *memory, int *width, int *height);

rs_status rs_jpeg_decode(const unsigned char *data, size_t size,
                         const rs_jpeg_decode_options *options, rs_gray_image *out);

rs_status rs_png_decode(const unsigned char *data, size_t size,
                        unsigned long long max_pixels, rs_gray_image *out);

/// Reads EXIF orientation (1...8) from an APP1 payload starting with "Exif\0\0"; 0 if none.
int rs_exif_orientation(const unsigned char *payload, size_t length);

typedef enum rs_jpeg_color {
    RS_JPEG_GRAY = 1,           // 1 byte per pixel
    RS_JPEG_RGB = 3,            // 3 bytes per pixel, stored as YCbCr
    RS_JPEG_CMYK = 4,           // 4 bytes per pixel, Adobe (inverted) CMYK
    RS_JPEG_YCCK = 5,           // 4 bytes per pixel, Adobe CMYK stored as YCCK
    RS_JPEG_PLAIN_CMYK = 6,     // 4 bytes per pixel, no Adobe marker: 0 = no ink
} rs_jpeg_color;

typedef struct rs_jpeg_encode_options {
    rs_jpeg_color color;
    int quality;                        // 1...100
    int progressive;
    const unsigned char *app1;          // optional APP1 payload (e.g. "Exif\0\0" + TIFF)
    size_t app1_length;
} rs_jpeg_encode_options;

typedef struct rs_encoded {
    unsigned char *bytes;               // free with rs_free
    size_t size;
    char message[RS_MESSAGE_CAPACITY];
} rs_encoded;

rs_status rs_jpeg_encode(const unsigned char *pixels, int width, int height,
                         const rs_jpeg_encode_options *options, rs_encoded *out);

void rs_free(void *pointer);

// Serve allocations up to 32 MB (a 12 MP gray image and its copies) from the heap instead
// of fresh mmaps, and trim the heap only past 64 MB free: a freed decode buffer is reused
// by the next photo instead of being unmapped and page-faulted in again. Process-wide;
// returns 1 when glibc took both settings, 0 elsewhere.
int rs_keep_large_buffers_in_heap(void);

#include "CImageCodecsColor.h"

#endif
