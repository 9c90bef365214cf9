#include "lazy_libraries.h"
#include "loader.h"
#include <zbar.h>

/* libzbar's functions BarcodeReading calls (the image scanner, the V4L2 video source, the version). */
#define ZBAR_FUNCTIONS(F) \
    F(zbar_version) F(_zbar_error_string) \
    F(zbar_image_scanner_create) F(zbar_image_scanner_destroy) F(zbar_image_scanner_enable_cache) \
    F(zbar_image_scanner_set_config) F(zbar_scan_image) \
    F(zbar_image_create) F(zbar_image_destroy) F(zbar_image_set_format) F(zbar_image_set_size) F(zbar_image_set_data) \
    F(zbar_image_set_crop) \
    F(zbar_image_first_symbol) F(zbar_image_get_data) F(zbar_image_get_data_length) F(zbar_image_get_format) \
    F(zbar_image_get_width) F(zbar_image_get_height) \
    F(zbar_symbol_next) F(zbar_symbol_get_type) F(zbar_symbol_get_data) F(zbar_symbol_get_data_length) \
    F(zbar_symbol_get_quality) F(zbar_symbol_get_orientation) F(zbar_symbol_get_loc_size) F(zbar_symbol_get_loc_x) \
    F(zbar_symbol_get_loc_y) \
    F(zbar_video_create) F(zbar_video_destroy) F(zbar_video_open) F(zbar_video_init) F(zbar_video_request_size) \
    F(zbar_video_enable) F(zbar_video_get_fd) F(zbar_video_get_width) F(zbar_video_get_height) F(zbar_video_next_image)

RS_LAZY_LIBRARY(zbar, ZBAR_FUNCTIONS, 0, "libzbar0", "libzbar.so.0", "libzbar.so")
#define CALL(name) RS_CALL(zbar, name)

int zbar_version(unsigned *major, unsigned *minor, unsigned *patch) { return CALL(zbar_version)(major, minor, patch); }
const char *_zbar_error_string(const void *object, int verbosity) { return CALL(_zbar_error_string)(object, verbosity); }

zbar_image_scanner_t *zbar_image_scanner_create(void) { return CALL(zbar_image_scanner_create)(); }
void zbar_image_scanner_destroy(zbar_image_scanner_t *scanner) { CALL(zbar_image_scanner_destroy)(scanner); }
void zbar_image_scanner_enable_cache(zbar_image_scanner_t *scanner, int enable) {
    CALL(zbar_image_scanner_enable_cache)(scanner, enable);
}
int zbar_image_scanner_set_config(zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value) {
    return CALL(zbar_image_scanner_set_config)(scanner, symbology, config, value);
}
int zbar_scan_image(zbar_image_scanner_t *scanner, zbar_image_t *image) { return CALL(zbar_scan_image)(scanner, image); }

zbar_image_t *zbar_image_create(void) { return CALL(zbar_image_create)(); }
void zbar_image_destroy(zbar_image_t *image) { CALL(zbar_image_destroy)(image); }
void zbar_image_set_format(zbar_image_t *image, unsigned long format) { CALL(zbar_image_set_format)(image, format); }
void zbar_image_set_size(zbar_image_t *image, unsigned width, unsigned height) { CALL(zbar_image_set_size)(image, width, height); }
void zbar_image_set_crop(zbar_image_t *image, unsigned x, unsigned y, unsigned width, unsigned height) {
    CALL(zbar_image_set_crop)(image, x, y, width, height);
}
void zbar_image_set_data(zbar_image_t *image, const void *data, unsigned long data_byte_length,
                         zbar_image_cleanup_handler_t *cleanup_hndlr) {
    CALL(zbar_image_set_data)(image, data, data_byte_length, cleanup_hndlr);
}
const zbar_symbol_t *zbar_image_first_symbol(const zbar_image_t *image) { return CALL(zbar_image_first_symbol)(image); }
const void *zbar_image_get_data(const zbar_image_t *image) { return CALL(zbar_image_get_data)(image); }
unsigned long zbar_image_get_data_length(const zbar_image_t *img) { return CALL(zbar_image_get_data_length)(img); }
unsigned long zbar_image_get_format(const zbar_image_t *image) { return CALL(zbar_image_get_format)(image); }
unsigned zbar_image_get_width(const zbar_image_t *image) { return CALL(zbar_image_get_width)(image); }
unsigned zbar_image_get_height(const zbar_image_t *image) { return CALL(zbar_image_get_height)(image); }

const zbar_symbol_t *zbar_symbol_next(const zbar_symbol_t *symbol) { return CALL(zbar_symbol_next)(symbol); }
zbar_symbol_type_t zbar_symbol_get_type(const zbar_symbol_t *symbol) { return CALL(zbar_symbol_get_type)(symbol); }
const char *zbar_symbol_get_data(const zbar_symbol_t *symbol) { return CALL(zbar_symbol_get_data)(symbol); }
unsigned int zbar_symbol_get_data_length(const zbar_symbol_t *symbol) { return CALL(zbar_symbol_get_data_length)(symbol); }
int zbar_symbol_get_quality(const zbar_symbol_t *symbol) { return CALL(zbar_symbol_get_quality)(symbol); }
zbar_orientation_t zbar_symbol_get_orientation(const zbar_symbol_t *symbol) { return CALL(zbar_symbol_get_orientation)(symbol); }
unsigned zbar_symbol_get_loc_size(const zbar_symbol_t *symbol) { return CALL(zbar_symbol_get_loc_size)(symbol); }
int zbar_symbol_get_loc_x(const zbar_symbol_t *symbol, unsigned index) { return CALL(zbar_symbol_get_loc_x)(symbol, index); }
int zbar_symbol_get_loc_y(const zbar_symbol_t *symbol, unsigned index) { return CALL(zbar_symbol_get_loc_y)(symbol, index); }

zbar_video_t *zbar_video_create(void) { return CALL(zbar_video_create)(); }
void zbar_video_destroy(zbar_video_t *video) { CALL(zbar_video_destroy)(video); }
int zbar_video_open(zbar_video_t *video, const char *device) { return CALL(zbar_video_open)(video, device); }
int zbar_video_init(zbar_video_t *video, unsigned long format) { return CALL(zbar_video_init)(video, format); }
int zbar_video_request_size(zbar_video_t *video, unsigned width, unsigned height) {
    return CALL(zbar_video_request_size)(video, width, height);
}
int zbar_video_enable(zbar_video_t *video, int enable) { return CALL(zbar_video_enable)(video, enable); }
int zbar_video_get_fd(const zbar_video_t *video) { return CALL(zbar_video_get_fd)(video); }
int zbar_video_get_width(const zbar_video_t *video) { return CALL(zbar_video_get_width)(video); }
int zbar_video_get_height(const zbar_video_t *video) { return CALL(zbar_video_get_height)(video); }
zbar_image_t *zbar_video_next_image(zbar_video_t *video) { return CALL(zbar_video_next_image)(video); }
