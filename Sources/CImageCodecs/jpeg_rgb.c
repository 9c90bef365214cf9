#include "CImageCodecs.h"
#include "common.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

// error_exit longjmps back into rs_jpeg_decode_rgb, the function that called setjmp; no
// Swift frame is in between. Warnings are ignored: a damaged photo still goes to the model.
typedef struct rs_rgb_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
} rs_rgb_error;

static void rs_rgb_error_exit(j_common_ptr cinfo) {
    rs_rgb_error *error = (rs_rgb_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    rs_copy_message(error->message, RS_MESSAGE_CAPACITY, text);
    longjmp(error->jump, 1);
}

static void rs_rgb_output_message(j_common_ptr cinfo) { (void)cinfo; }

int rs_jpeg_decode_rgb(const unsigned char *data, size_t size, int min_output_long_side,
                       unsigned long long max_pixels, rs_rgb_image *out) {
    memset(out, 0, sizeof *out);
    out->exif_orientation = 1;
    struct jpeg_decompress_struct cinfo;
    rs_rgb_error error;
    unsigned char *volatile pixels = NULL;
    jpeg_std_error(&error.manager);
    error.manager.error_exit = rs_rgb_error_exit;
    error.manager.output_message = rs_rgb_output_message;
    error.message = out->message;
    cinfo.err = &error.manager;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return RS_ERROR_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    for (jpeg_saved_marker_ptr marker = cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1) continue;
        int orientation = rs_exif_orientation(marker->data, marker->data_length);
        if (orientation) { out->exif_orientation = orientation; break; }
    }
    if ((unsigned long long)cinfo.image_width * cinfo.image_height > max_pixels) {
        jpeg_destroy_decompress(&cinfo);
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "image too large");
        return RS_ERROR_TOO_LARGE;
    }
    if (cinfo.jpeg_color_space != JCS_YCbCr && cinfo.jpeg_color_space != JCS_RGB) {
        jpeg_destroy_decompress(&cinfo);
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "not a colour (YCbCr/RGB) JPEG");
        return RS_ERROR_CORRUPT;
    }
    cinfo.out_color_space = JCS_RGB;
    unsigned long long long_side = cinfo.image_width > cinfo.image_height ? cinfo.image_width : cinfo.image_height;
    unsigned denominator = 8;
    while (denominator > 1 && (min_output_long_side <= 0 ||
                               long_side / denominator < (unsigned long long)min_output_long_side))
        denominator /= 2;
    cinfo.scale_num = 1;
    cinfo.scale_denom = denominator;
    jpeg_start_decompress(&cinfo);
    size_t width = cinfo.output_width, height = cinfo.output_height;
    if (cinfo.output_components != 3) {
        jpeg_destroy_decompress(&cinfo);
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "decoder gave no RGB output");
        return RS_ERROR_CORRUPT;
    }
    pixels = malloc(width * height * 3 > 0 ? width * height * 3 : 1);
    if (pixels == NULL) {
        jpeg_destroy_decompress(&cinfo);
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "not enough memory for the decoded image");
        return RS_ERROR_NO_MEMORY;
    }
    while (cinfo.output_scanline < height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    return RS_OK;
}
