#include "CImageCodecs.h"
#include "common.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

// libpng's simplified API reports errors through its return value and image.message;
// it frees its own state on failure, so only the pixel buffer is ours to free.

static rs_status rs_png_failure(const png_image *image, char *message) {
    rs_copy_message(message, RS_MESSAGE_CAPACITY, image->message);
    // What libpng says when the bytes run out before the image does.
    static const char *const truncation[] = {
        "read beyond end of data", "Not enough image data", "Truncated", "unexpected end",
        "IDAT: unexpected end", "Read Error",
    };
    for (size_t i = 0; i < sizeof truncation / sizeof truncation[0]; i++)
        if (strstr(image->message, truncation[i]) != NULL) return RS_ERROR_TRUNCATED;
    return RS_ERROR_CORRUPT;
}

rs_status rs_png_decode(const unsigned char *data, size_t size,
                        unsigned long long max_pixels, rs_gray_image *out) {
    memset(out, 0, sizeof *out);
    out->exif_orientation = 1;
    out->scale_denominator = 1;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size))
        return rs_png_failure(&image, out->message);
    out->source_width = (int)image.width;
    out->source_height = (int)image.height;
    if ((unsigned long long)image.width * image.height > max_pixels || image.width > INT32_MAX) {
        png_image_free(&image);
        return RS_ERROR_TOO_LARGE;
    }
    image.format = PNG_FORMAT_GRAY;
    // 16-bit files without gAMA/sRGB are sRGB in practice (scanners, ImageMagick),
    // not the linear data libpng assumes by default.
    image.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    size_t stride = image.width;    // PNG_IMAGE_ROW_STRIDE for one 8-bit channel
    unsigned char *pixels = malloc(stride * image.height > 0 ? stride * image.height : 1);
    if (pixels == NULL) {
        png_image_free(&image);
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "not enough memory for the decoded image");
        return RS_ERROR_NO_MEMORY;
    }
    // Transparent areas become white paper, not black.
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, pixels, (png_int_32)stride, NULL)) {
        free(pixels);
        return rs_png_failure(&image, out->message);
    }
    if (image.warning_or_error & PNG_IMAGE_WARNING) {
        rs_append_line(out->warnings, RS_WARNINGS_CAPACITY, image.message);
        out->warning_count = 1;
    }
    out->pixels = pixels;
    out->width = (int)image.width;
    out->height = (int)image.height;
    return RS_OK;
}
