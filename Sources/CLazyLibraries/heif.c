#include "lazy_libraries.h"
#include "loader.h"
#include <libheif/heif.h>

/* libheif's functions Imaging/HEIFDecoder.swift calls. */
#define HEIF_FUNCTIONS(F) \
    F(heif_init) F(heif_context_alloc) F(heif_context_free) F(heif_context_read_from_memory_without_copy) \
    F(heif_context_get_primary_image_handle) F(heif_decode_image) F(heif_decoding_options_alloc) \
    F(heif_decoding_options_free) F(heif_image_get_bits_per_pixel) F(heif_image_get_bits_per_pixel_range) \
    F(heif_image_get_colorspace) F(heif_image_get_width) F(heif_image_get_height) \
    F(heif_image_get_nclx_color_profile) F(heif_image_get_plane_readonly) F(heif_image_handle_get_width) \
    F(heif_image_handle_get_height) F(heif_image_handle_get_ispe_width) F(heif_image_handle_get_ispe_height) \
    F(heif_image_handle_get_list_of_metadata_block_IDs) F(heif_image_handle_get_metadata) \
    F(heif_image_handle_get_metadata_size) F(heif_image_handle_release) F(heif_image_release) \
    F(heif_nclx_color_profile_free)

RS_LAZY_LIBRARY(heif, HEIF_FUNCTIONS, 0, "libheif1", "libheif.so.1", "libheif.so")
#define CALL(name) RS_CALL(heif, name)

/* Where libheif returns failures as values, a library that could not be opened is one more. */
static struct heif_error unavailable(void) {
    return (struct heif_error){heif_error_Unsupported_feature, heif_suberror_Unspecified, library.error};
}

struct heif_error heif_init(struct heif_init_params *params) {
    return rs_heif_load() ? unavailable() : api.heif_init(params);
}
struct heif_context *heif_context_alloc(void) { return rs_heif_load() ? NULL : api.heif_context_alloc(); }
void heif_context_free(struct heif_context *context) { CALL(heif_context_free)(context); }
struct heif_error heif_context_read_from_memory_without_copy(struct heif_context *context, const void *mem, size_t size,
                                                             const struct heif_reading_options *options) {
    return rs_heif_load() ? unavailable() : api.heif_context_read_from_memory_without_copy(context, mem, size, options);
}
struct heif_error heif_context_get_primary_image_handle(struct heif_context *context, struct heif_image_handle **handle) {
    return rs_heif_load() ? unavailable() : api.heif_context_get_primary_image_handle(context, handle);
}
struct heif_error heif_decode_image(const struct heif_image_handle *handle, struct heif_image **image,
                                    enum heif_colorspace colorspace, enum heif_chroma chroma,
                                    const struct heif_decoding_options *options) {
    return rs_heif_load() ? unavailable() : api.heif_decode_image(handle, image, colorspace, chroma, options);
}
struct heif_decoding_options *heif_decoding_options_alloc(void) {
    return rs_heif_load() ? NULL : api.heif_decoding_options_alloc();
}
void heif_decoding_options_free(struct heif_decoding_options *options) { CALL(heif_decoding_options_free)(options); }
int heif_image_get_bits_per_pixel(const struct heif_image *image, enum heif_channel channel) {
    return CALL(heif_image_get_bits_per_pixel)(image, channel);
}
int heif_image_get_bits_per_pixel_range(const struct heif_image *image, enum heif_channel channel) {
    return CALL(heif_image_get_bits_per_pixel_range)(image, channel);
}
enum heif_colorspace heif_image_get_colorspace(const struct heif_image *image) {
    return CALL(heif_image_get_colorspace)(image);
}
int heif_image_get_width(const struct heif_image *image, enum heif_channel channel) {
    return CALL(heif_image_get_width)(image, channel);
}
int heif_image_get_height(const struct heif_image *image, enum heif_channel channel) {
    return CALL(heif_image_get_height)(image, channel);
}
struct heif_error heif_image_get_nclx_color_profile(const struct heif_image *image, struct heif_color_profile_nclx **profile) {
    return CALL(heif_image_get_nclx_color_profile)(image, profile);
}
const uint8_t *heif_image_get_plane_readonly(const struct heif_image *image, enum heif_channel channel, int *stride) {
    return CALL(heif_image_get_plane_readonly)(image, channel, stride);
}
int heif_image_handle_get_width(const struct heif_image_handle *handle) { return CALL(heif_image_handle_get_width)(handle); }
int heif_image_handle_get_height(const struct heif_image_handle *handle) { return CALL(heif_image_handle_get_height)(handle); }
int heif_image_handle_get_ispe_width(const struct heif_image_handle *handle) {
    return CALL(heif_image_handle_get_ispe_width)(handle);
}
int heif_image_handle_get_ispe_height(const struct heif_image_handle *handle) {
    return CALL(heif_image_handle_get_ispe_height)(handle);
}
int heif_image_handle_get_list_of_metadata_block_IDs(const struct heif_image_handle *handle, const char *type_filter,
                                                     heif_item_id *ids, int count) {
    return CALL(heif_image_handle_get_list_of_metadata_block_IDs)(handle, type_filter, ids, count);
}
struct heif_error heif_image_handle_get_metadata(const struct heif_image_handle *handle, heif_item_id id, void *out) {
    return CALL(heif_image_handle_get_metadata)(handle, id, out);
}
size_t heif_image_handle_get_metadata_size(const struct heif_image_handle *handle, heif_item_id id) {
    return CALL(heif_image_handle_get_metadata_size)(handle, id);
}
void heif_image_handle_release(const struct heif_image_handle *handle) { CALL(heif_image_handle_release)(handle); }
void heif_image_release(const struct heif_image *image) { CALL(heif_image_release)(image); }
void heif_nclx_color_profile_free(struct heif_color_profile_nclx *profile) { CALL(heif_nclx_color_profile_free)(profile); }
