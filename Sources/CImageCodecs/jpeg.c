#include "CImageCodecs.h"
#include "common.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// error_exit longjmps back into the function that called setjmp (rs_jpeg_decode or
// rs_jpeg_encode); messages and warnings are collected instead of printed to stderr.
typedef struct rs_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
    char *warnings;
    int *warning_count;
    int truncated;          // "Premature end of JPEG file": the data ran out
} rs_jpeg_error;

static void rs_jpeg_error_exit(j_common_ptr cinfo) {
    rs_jpeg_error *error = (rs_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (error->message) rs_copy_message(error->message, RS_MESSAGE_CAPACITY, text);
    longjmp(error->jump, 1);
}

static void rs_jpeg_output_message(j_common_ptr cinfo) {
    rs_jpeg_error *error = (rs_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (error->warnings) rs_append_line(error->warnings, RS_WARNINGS_CAPACITY, text);
}

// libjpeg's own emit_message shows only the first warning; keep them all (level < 0),
// drop trace messages (level >= 0).
static void rs_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    rs_jpeg_error *error = (rs_jpeg_error *)cinfo->err;
    if (error->warning_count) *error->warning_count += 1;
    cinfo->err->num_warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) error->truncated = 1;
    (*cinfo->err->output_message)(cinfo);
}

static void rs_jpeg_install_error(rs_jpeg_error *error, char *message, char *warnings, int *count) {
    jpeg_std_error(&error->manager);
    error->manager.error_exit = rs_jpeg_error_exit;
    error->manager.emit_message = rs_jpeg_emit_message;
    error->manager.output_message = rs_jpeg_output_message;
    error->message = message;
    error->warnings = warnings;
    error->warning_count = count;
    error->truncated = 0;
}

static int rs_orientation_from_markers(jpeg_saved_marker_ptr marker) {
    for (; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1) continue;
        int orientation = rs_exif_orientation(marker->data, marker->data_length);
        if (orientation) return orientation;
    }
    return 1;
}

static inline unsigned char rs_clamp_product(unsigned a, unsigned b) {
    return (unsigned char)((a * b + 127) / 255);
}

// Adobe CMYK (and YCCK, which libjpeg turns into CMYK) is stored inverted: 255 = no ink.
static void rs_cmyk_row_to_gray(const unsigned char *cmyk, unsigned char *gray, unsigned width,
                                int inverted) {
    for (unsigned x = 0; x < width; x++, cmyk += 4) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        unsigned r = rs_clamp_product(c, k), g = rs_clamp_product(m, k), b = rs_clamp_product(y, k);
        gray[x] = (unsigned char)((r * 19595 + g * 38470 + b * 7471 + 32768) >> 16);   // BT.601
    }
}

// The DCT scale rs_jpeg_decode uses: `denominator`, finer while the long side would fall
// under min_output_long_side, coarser while the output is over max_output_pixels.
static int rs_jpeg_choose_scale(const struct jpeg_decompress_struct *cinfo,
                                const rs_jpeg_decode_options *options, int denominator) {
    // Floor division: the caller states a size the image must reach, not libjpeg's rounding.
    unsigned long long long_side = cinfo->image_width > cinfo->image_height ? cinfo->image_width : cinfo->image_height;
    while (options->min_output_long_side > 0 && denominator > 1 &&
           long_side / (unsigned long long)denominator < (unsigned long long)options->min_output_long_side)
        denominator /= 2;
    // Ceiling division, as libjpeg sizes scaled output.
    while (options->max_output_pixels > 0 && denominator < 8 &&
           (unsigned long long)((cinfo->image_width + denominator - 1) / denominator) *
                   ((cinfo->image_height + denominator - 1) / denominator) > options->max_output_pixels)
        denominator *= 2;
    return denominator;
}

// Output pixels at the scale, plus, for a progressive file, the coefficient buffer libjpeg
// keeps for the whole image (64 two-byte coefficients per 8×8 block of every component,
// whatever the output scale).
static unsigned long long rs_jpeg_memory_needed(const struct jpeg_decompress_struct *cinfo, int denominator) {
    unsigned long long width = (cinfo->image_width + denominator - 1) / denominator;
    unsigned long long height = (cinfo->image_height + denominator - 1) / denominator;
    unsigned long long needed = width * height;
    if (cinfo->progressive_mode) {
        for (int c = 0; c < cinfo->num_components; c++) {
            const jpeg_component_info *component = &cinfo->comp_info[c];
            needed += (unsigned long long)component->width_in_blocks * component->height_in_blocks
                      * DCTSIZE2 * sizeof(JCOEF);
        }
    }
    return needed;
}

static unsigned long long rs_jpeg_memory_allowed(size_t size, const rs_jpeg_decode_options *options) {
    unsigned long long floor = options->memory_floor ? options->memory_floor : RS_JPEG_MEMORY_FLOOR;
    unsigned long long plausible = (unsigned long long)size * RS_JPEG_BYTES_PER_FILE_BYTE;
    return plausible > floor ? plausible : floor;
}

void rs_jpeg_plan(const unsigned char *data, size_t size, const rs_jpeg_decode_options *options,
                  unsigned long long *memory, int *width, int *height) {
    *memory = 0;
    *width = 0;
    *height = 0;
    struct jpeg_decompress_struct cinfo;
    rs_jpeg_error error;
    rs_jpeg_install_error(&error, NULL, NULL, NULL);
    cinfo.err = &error.manager;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        *memory = 0;
        *width = 0;
        *height = 0;
        return;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    int denominator = options->scale_denominator;
    int valid = denominator == 1 || denominator == 2 || denominator == 4 || denominator == 8;
    denominator = rs_jpeg_choose_scale(&cinfo, options, valid ? denominator : 1);
    *memory = rs_jpeg_memory_needed(&cinfo, denominator);
    if (valid && (unsigned long long)cinfo.image_width * cinfo.image_height <= options->max_pixels &&
        *memory <= rs_jpeg_memory_allowed(size, options)) {
        // libjpeg's own rounding of scaled output (jdiv_round_up).
        *width = (int)((cinfo.image_width + denominator - 1) / denominator);
        *height = (int)((cinfo.image_height + denominator - 1) / denominator);
    }
    jpeg_destroy_decompress(&cinfo);
}

rs_status rs_jpeg_decode(const unsigned char *data, size_t size,
                         const rs_jpeg_decode_options *options, rs_gray_image *out) {
    memset(out, 0, sizeof *out);
    out->exif_orientation = 1;
    int denominator = options->scale_denominator;
    if (denominator != 1 && denominator != 2 && denominator != 4 && denominator != 8) {
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "scale must be 1/1, 1/2, 1/4 or 1/8");
        return RS_ERROR_INVALID_ARGUMENT;
    }
    struct jpeg_decompress_struct cinfo;
    rs_jpeg_error error;
    // Written after setjmp and read after longjmp, hence volatile.
    unsigned char *volatile pixels = NULL;
    unsigned char *volatile cmyk_row = NULL;
    rs_jpeg_install_error(&error, out->message, out->warnings, &out->warning_count);
    cinfo.err = &error.manager;
    // Set before libjpeg can fail, read after longjmp: whether `pixels` is ours to free.
    volatile int own_pixels = 1;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        if (own_pixels) free(pixels);
        free(cmyk_row);
        return error.truncated ? RS_ERROR_TRUNCATED : RS_ERROR_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    out->source_width = (int)cinfo.image_width;
    out->source_height = (int)cinfo.image_height;
    out->exif_orientation = rs_orientation_from_markers(cinfo.marker_list);
    if ((unsigned long long)cinfo.image_width * cinfo.image_height > options->max_pixels) {
        jpeg_destroy_decompress(&cinfo);
        return RS_ERROR_TOO_LARGE;
    }
    denominator = rs_jpeg_choose_scale(&cinfo, options, denominator);
    out->scale_denominator = denominator;
    unsigned long long needed = rs_jpeg_memory_needed(&cinfo, denominator);
    unsigned long long allowed = rs_jpeg_memory_allowed(size, options);
    if (needed > allowed) {
        jpeg_destroy_decompress(&cinfo);
        snprintf(out->message, RS_MESSAGE_CAPACITY,
                 "%s %u×%u needs %llu MB to decode, implausible for a %zu-byte file",
                 cinfo.progressive_mode ? "progressive" : "baseline", cinfo.image_width,
                 cinfo.image_height, needed >> 20, size);
        return RS_ERROR_IMPLAUSIBLE;
    }
    // libjpeg's own allocator refuses anything beyond (no backing store): the estimate
    // above cannot be outgrown by a file that lies about its structure later on.
    cinfo.mem->max_memory_to_use = (long)(allowed + (8ULL << 20));
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_GRAYSCALE;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)denominator;
    if (options->fast) {
        cinfo.dct_method = JDCT_IFAST;
        cinfo.do_fancy_upsampling = FALSE;
    }
    jpeg_start_decompress(&cinfo);
    size_t width = cinfo.output_width, height = cinfo.output_height;
    own_pixels = !(options->destination && width * height > 0 && width * height == options->destination_capacity);
    pixels = own_pixels ? malloc(width * height > 0 ? width * height : 1) : options->destination;
    if (cmyk) cmyk_row = malloc(width * 4);
    if (pixels == NULL || (cmyk && cmyk_row == NULL)) {
        jpeg_destroy_decompress(&cinfo);
        if (own_pixels) free(pixels);
        free(cmyk_row);
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "not enough memory for the decoded image");
        return RS_ERROR_NO_MEMORY;
    }
    // Once the data has run out, the remaining rows would only be gray filler.
    while (cinfo.output_scanline < height && !error.truncated) {
        size_t y = cinfo.output_scanline;
        if (cmyk) {
            JSAMPROW row = cmyk_row;
            jpeg_read_scanlines(&cinfo, &row, 1);
            rs_cmyk_row_to_gray(cmyk_row, pixels + y * width, (unsigned)width, cinfo.saw_Adobe_marker);
        } else {
            JSAMPROW rows[16];
            JDIMENSION count = 0;
            for (; count < 16 && y + count < height; count++) rows[count] = pixels + (y + count) * width;
            jpeg_read_scanlines(&cinfo, rows, count);
        }
    }
    if (!error.truncated) jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(cmyk_row);
    if (error.truncated) {
        if (own_pixels) free(pixels);
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "Premature end of JPEG file");
        return RS_ERROR_TRUNCATED;
    }
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    return RS_OK;
}

// A growing memory destination we own, so the buffer is freed on every path
// (jpeg_mem_dest's buffer is unreachable after an error).
typedef struct rs_memory_destination {
    struct jpeg_destination_mgr manager;
    unsigned char *buffer;
    size_t capacity;
} rs_memory_destination;

static void rs_destination_init(j_compress_ptr cinfo) { (void)cinfo; }

static boolean rs_destination_grow(j_compress_ptr cinfo) {
    rs_memory_destination *destination = (rs_memory_destination *)cinfo->dest;
    size_t capacity = destination->capacity * 2;
    unsigned char *buffer = realloc(destination->buffer, capacity);
    if (buffer == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    destination->manager.next_output_byte = buffer + destination->capacity;
    destination->manager.free_in_buffer = capacity - destination->capacity;
    destination->buffer = buffer;
    destination->capacity = capacity;
    return TRUE;
}

static void rs_destination_term(j_compress_ptr cinfo) { (void)cinfo; }

rs_status rs_jpeg_encode(const unsigned char *pixels, int width, int height,
                         const rs_jpeg_encode_options *options, rs_encoded *out) {
    memset(out, 0, sizeof *out);
    int components = options->color == RS_JPEG_GRAY ? 1 : options->color == RS_JPEG_RGB ? 3 : 4;
    if (width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        rs_copy_message(out->message, RS_MESSAGE_CAPACITY, "image size out of range for JPEG");
        return RS_ERROR_INVALID_ARGUMENT;
    }
    struct jpeg_compress_struct cinfo;
    rs_jpeg_error error;
    rs_memory_destination destination = {0};
    rs_jpeg_install_error(&error, out->message, NULL, NULL);
    cinfo.err = &error.manager;
    destination.capacity = 65536;
    destination.buffer = malloc(destination.capacity);
    if (destination.buffer == NULL) return RS_ERROR_NO_MEMORY;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(destination.buffer);   // realloc only changes it through rs_destination_grow
        return RS_ERROR_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    destination.manager.init_destination = rs_destination_init;
    destination.manager.empty_output_buffer = rs_destination_grow;
    destination.manager.term_destination = rs_destination_term;
    destination.manager.next_output_byte = destination.buffer;
    destination.manager.free_in_buffer = destination.capacity;
    cinfo.dest = &destination.manager;
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    if (options->color == RS_JPEG_YCCK) jpeg_set_colorspace(&cinfo, JCS_YCCK);
    if (options->color == RS_JPEG_PLAIN_CMYK) cinfo.write_Adobe_marker = FALSE;
    jpeg_set_quality(&cinfo, options->quality, TRUE);
    if (options->progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (options->app1 != NULL && options->app1_length > 0)
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, options->app1, (unsigned)options->app1_length);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    out->size = destination.capacity - destination.manager.free_in_buffer;
    out->bytes = destination.buffer;
    jpeg_destroy_compress(&cinfo);
    return RS_OK;
}
