#include "CImageCodecs.h"
#include <string.h>

// Every read is bounds-checked: EXIF blocks in the wild are often damaged.
typedef struct tiff_reader {
    const unsigned char *bytes;
    size_t length;
    int little_endian;
} tiff_reader;

static int read16(const tiff_reader *tiff, size_t offset, unsigned *value) {
    if (offset > tiff->length || tiff->length - offset < 2) return 0;
    const unsigned char *p = tiff->bytes + offset;
    *value = tiff->little_endian ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
    return 1;
}

static int read32(const tiff_reader *tiff, size_t offset, unsigned long *value) {
    unsigned first, second;
    if (!read16(tiff, offset, &first) || !read16(tiff, offset + 2, &second)) return 0;
    *value = tiff->little_endian ? ((unsigned long)second << 16 | first)
                                 : ((unsigned long)first << 16 | second);
    return 1;
}

enum { TAG_ORIENTATION = 0x0112, TYPE_BYTE = 1, TYPE_SHORT = 3, TYPE_LONG = 4 };

int rs_exif_orientation(const unsigned char *payload, size_t length) {
    static const unsigned char header[6] = {'E', 'x', 'i', 'f', 0, 0};
    if (payload == NULL || length < sizeof header + 8 || memcmp(payload, header, sizeof header) != 0)
        return 0;
    tiff_reader tiff = {payload + sizeof header, length - sizeof header, 0};
    if (tiff.bytes[0] == 'I' && tiff.bytes[1] == 'I') tiff.little_endian = 1;
    else if (!(tiff.bytes[0] == 'M' && tiff.bytes[1] == 'M')) return 0;
    unsigned magic, count;
    unsigned long ifd;
    if (!read16(&tiff, 2, &magic) || magic != 42) return 0;
    if (!read32(&tiff, 4, &ifd) || !read16(&tiff, ifd, &count)) return 0;
    for (unsigned index = 0; index < count; index++) {
        size_t entry = ifd + 2 + (size_t)index * 12;
        unsigned tag, type, value = 0;
        if (!read16(&tiff, entry, &tag) || !read16(&tiff, entry + 2, &type)) return 0;
        if (tag != TAG_ORIENTATION) continue;
        if (type == TYPE_SHORT) {
            if (!read16(&tiff, entry + 8, &value)) return 0;
        } else if (type == TYPE_LONG) {
            unsigned long wide;
            if (!read32(&tiff, entry + 8, &wide)) return 0;
            value = wide > 8 ? 0 : (unsigned)wide;
        } else if (type == TYPE_BYTE) {
            if (entry + 8 >= tiff.length) return 0;
            value = tiff.bytes[entry + 8];
        }
        return value >= 1 && value <= 8 ? (int)value : 0;
    }
    return 0;
}
