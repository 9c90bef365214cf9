import CWebP

/// WebP (lossy and lossless) straight to gray through libwebp's YUV decode: the luma plane
/// is the gray image, so no RGB is ever made. libwebp returns errors as values.
enum WebPDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, name: String, maxPixels: Int) throws(ImageError) -> LoadedImage {
        let data = bytes.assumingMemoryBound(to: UInt8.self).baseAddress
        var features = WebPBitstreamFeatures()
        // The header alone gives the size: checked before a pixel is decoded.
        let status = WebPGetFeaturesInternal(data, bytes.count, &features, WEBP_DECODER_ABI_VERSION)
        guard status == VP8_STATUS_OK else {
            if status == VP8_STATUS_NOT_ENOUGH_DATA {
                throw .truncated(file: name, format: .webp, detail: "the header ends early")
            }
            throw .corrupt(file: name, format: .webp, detail: Self.describe(status))
        }
        let width = Int(features.width), height = Int(features.height)
        if width * height > maxPixels {
            throw .tooLarge(file: name, width: width, height: height, maxPixels: maxPixels)
        }
        var outWidth: Int32 = 0, outHeight: Int32 = 0, stride: Int32 = 0, uvStride: Int32 = 0
        var u: UnsafeMutablePointer<UInt8>?, v: UnsafeMutablePointer<UInt8>?
        let decoded = DecodeMemoryBudget.shared.withReservation(width * height * 3) {
            WebPDecodeYUV(data, bytes.count, &outWidth, &outHeight, &u, &v, &stride, &uvStride)
        }
        // One allocation holds Y, U and V; freeing Y frees all three.
        guard let luma = decoded else {
            throw .corrupt(file: name, format: .webp, detail: "libwebp could not decode the image data")
        }
        defer { WebPFree(luma) }
        let w = Int(outWidth), h = Int(outHeight), rowStride = Int(stride)
        // libwebp's Y is studio range (16…235): stretched back to 0…255 so black is black.
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let value = (Int(luma[y * rowStride + x]) - 16) * 255 / 219
                pixels[y * w + x] = UInt8(clamping: value)
            }
        }
        return LoadedImage(image: GrayImage(width: w, height: h, pixels: pixels), format: .webp,
                           originalWidth: width, originalHeight: height,
                           exifOrientation: features.has_animation == 0 ? exifOrientation(of: bytes) : 1)
    }

    /// The orientation tag of an extended WebP's EXIF chunk (1 when there is none). The
    /// chunk holds the TIFF header itself; some writers put JPEG's "Exif\0\0" before it.
    static func exifOrientation(of bytes: UnsafeRawBufferPointer) -> Int {
        func le32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func fourCC(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        // RIFF, size, WEBP, then chunks: fourCC, little-endian size, payload padded to even.
        guard bytes.count >= 20, fourCC(12) == "VP8X" else { return 1 }
        var offset = 12
        while bytes.count - offset >= 8 {
            let size = le32(offset + 4)
            guard size <= bytes.count - offset - 8 else { return 1 }
            if fourCC(offset) == "EXIF" {
                let payload = Array(bytes[offset + 8..<offset + 8 + size])
                let marker: [UInt8] = Array("Exif".utf8) + [0, 0]
                return NativeCodecs.exifOrientation(ofAPP1: payload.starts(with: marker) ? payload : marker + payload) ?? 1
            }
            offset += 8 + size + (size & 1)
        }
        return 1
    }

    static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "invalid bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: "not enough data"
        default: "libwebp status \(status.rawValue)"
        }
    }
}
