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
                           originalWidth: width, originalHeight: height)
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
