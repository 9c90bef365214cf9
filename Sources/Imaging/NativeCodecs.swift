import CImageCodecs

/// What libjpeg/libpng produced, copied out of C memory.
struct NativeDecodeResult {
    var image: GrayImage
    var sourceWidth: Int
    var sourceHeight: Int
    var exifOrientation: Int
    var warnings: [String]
    var scale: JPEGScale
}

/// A codec's refusal, before a file name is attached.
struct NativeDecodeFailure: Error {
    var status: rs_status
    var message: String
    var sourceWidth: Int
    var sourceHeight: Int

    func imageError(file: String, format: ImageFormat, maxPixels: Int) -> ImageError {
        switch status {
        case RS_ERROR_TOO_LARGE:
            .tooLarge(file: file, width: sourceWidth, height: sourceHeight, maxPixels: maxPixels)
        case RS_ERROR_TRUNCATED:
            .truncated(file: file, format: format, detail: message)
        case RS_ERROR_NO_MEMORY:
            .outOfMemory(file: file, detail: message)
        case RS_ERROR_IMPLAUSIBLE:
            .implausibleSize(file: file, format: format, detail: message)
        default:
            .corrupt(file: file, format: format, detail: message)
        }
    }
}

/// How pixels handed to the JPEG encoder are laid out and stored.
enum JPEGColorModel: CaseIterable {
    case gray, rgb, cmyk, ycck, plainCMYK

    var componentCount: Int {
        switch self { case .gray: 1; case .rgb: 3; case .cmyk, .ycck, .plainCMYK: 4 }
    }

    var native: rs_jpeg_color {
        switch self {
        case .gray: RS_JPEG_GRAY
        case .rgb: RS_JPEG_RGB
        case .cmyk: RS_JPEG_CMYK
        case .ycck: RS_JPEG_YCCK
        case .plainCMYK: RS_JPEG_PLAIN_CMYK
        }
    }
}

/// The only place that touches the C codecs' pointers.
enum NativeCodecs {
    /// The libjpeg options for a load's settings.
    static func jpegOptions(scale: JPEGScale, minimumLongSide: Int? = nil, targetPixels: Int? = nil,
                            maxPixels: Int = 0, fast: Bool = false) -> rs_jpeg_decode_options {
        rs_jpeg_decode_options(
            scale_denominator: Int32(scale.rawValue),
            min_output_long_side: Int32(clamping: max(minimumLongSide ?? 0, 0)),
            max_output_pixels: UInt64(max(targetPixels ?? 0, 0)),
            max_pixels: UInt64(max(maxPixels, 0)),
            fast: fast ? 1 : 0, memory_floor: 0, destination: nil, destination_capacity: 0)
    }

    /// What a JPEG's header promises at these options: the bytes `decodeJPEG` would allocate
    /// (0: header unreadable) and its output size (0 when the decode would refuse the file).
    struct JPEGPlan {
        var memory: Int
        var pixels: Int
    }

    static func planJPEG(_ bytes: UnsafeRawBufferPointer, options: rs_jpeg_decode_options) -> JPEGPlan {
        var options = options
        var memory: UInt64 = 0
        var width: Int32 = 0, height: Int32 = 0
        rs_jpeg_plan(bytes.assumingMemoryBound(to: UInt8.self).baseAddress, bytes.count, &options, &memory, &width, &height)
        return JPEGPlan(memory: Int(clamping: memory), pixels: Int(width) * Int(height))
    }

    /// Decodes with `options`; `plan` (from `planJPEG` with the same options) sizes the output.
    static func decodeJPEG(_ bytes: UnsafeRawBufferPointer, options: rs_jpeg_decode_options, plan: JPEGPlan)
        -> Result<NativeDecodeResult, NativeDecodeFailure> {
        var options = options
        let data = bytes.assumingMemoryBound(to: UInt8.self).baseAddress
        let capacity = plan.pixels
        guard capacity > 0 else {
            return decode { output in rs_jpeg_decode(data, bytes.count, &options, output) }
        }
        // Straight into the array's storage: copying 12 MP out of C memory cost a memmove
        // and, in a fresh process, ~3,000 page faults of a second buffer.
        var output = rs_gray_image()
        var status = RS_ERROR_CORRUPT
        var filled = false
        let pixels = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            options.destination = buffer.baseAddress
            options.destination_capacity = capacity
            status = rs_jpeg_decode(data, bytes.count, &options, &output)
            filled = status == RS_OK && output.pixels == buffer.baseAddress
            count = filled ? capacity : 0
        }
        if filled { output.pixels = nil }   // the array's, not C's to free
        return result(of: status, output, pixels: filled ? pixels : nil)
    }

    static func decodePNG(_ bytes: UnsafeRawBufferPointer, maxPixels: Int)
        -> Result<NativeDecodeResult, NativeDecodeFailure> {
        decode { output in
            rs_png_decode(bytes.assumingMemoryBound(to: UInt8.self).baseAddress, bytes.count,
                          UInt64(max(maxPixels, 0)), output)
        }
    }

    private static func decode(_ call: (UnsafeMutablePointer<rs_gray_image>) -> rs_status)
        -> Result<NativeDecodeResult, NativeDecodeFailure> {
        var output = rs_gray_image()
        let status = call(&output)
        return result(of: status, output, pixels: nil)
    }

    /// The decode's outcome; `pixels` when they were decoded into a Swift array, else C's
    /// buffer is copied, and freed either way.
    private static func result(of status: rs_status, _ output: rs_gray_image, pixels decoded: [UInt8]?)
        -> Result<NativeDecodeResult, NativeDecodeFailure> {
        defer { rs_free(output.pixels) }
        let width = Int(output.width), height = Int(output.height)
        let pixels: [UInt8]? = decoded ?? output.pixels.map { Array(UnsafeBufferPointer(start: $0, count: width * height)) }
        guard status == RS_OK, let pixels else {
            return .failure(NativeDecodeFailure(
                status: status == RS_OK ? RS_ERROR_CORRUPT : status,
                message: string(fromCharacters: output.message),
                sourceWidth: Int(output.source_width), sourceHeight: Int(output.source_height)))
        }
        let image = GrayImage(width: width, height: height, pixels: pixels)
        let warnings = string(fromCharacters: output.warnings)
        return .success(NativeDecodeResult(
            image: image,
            sourceWidth: Int(output.source_width), sourceHeight: Int(output.source_height),
            exifOrientation: Int(output.exif_orientation),
            warnings: warnings.isEmpty ? [] : warnings.split(separator: "\n").map(String.init),
            scale: JPEGScale(rawValue: Int(output.scale_denominator)) ?? .full))
    }

    /// EXIF orientation (1…8) of an APP1 payload, nil when it has none.
    static func exifOrientation(ofAPP1 payload: [UInt8]) -> Int? {
        let value = payload.withUnsafeBufferPointer { rs_exif_orientation($0.baseAddress, $0.count) }
        return value == 0 ? nil : Int(value)
    }

    static func encodeJPEG(pixels: [UInt8], width: Int, height: Int, color: JPEGColorModel,
                           quality: Int, progressive: Bool, app1: [UInt8]?) throws(ImageEncodingError) -> [UInt8] {
        guard width > 0, height > 0, pixels.count == width * height * color.componentCount else {
            throw ImageEncodingError(message: "\(pixels.count) bytes for \(width)×\(height) \(color)")
        }
        return try encode { output in
            pixels.withUnsafeBufferPointer { pixelBuffer in
                (app1 ?? []).withUnsafeBufferPointer { app1Buffer in
                    var options = rs_jpeg_encode_options(
                        color: color.native, quality: Int32(quality), progressive: progressive ? 1 : 0,
                        app1: app1Buffer.baseAddress, app1_length: app1Buffer.count)
                    return rs_jpeg_encode(pixelBuffer.baseAddress, Int32(width), Int32(height), &options, output)
                }
            }
        }
    }

    private static func encode(_ call: (UnsafeMutablePointer<rs_encoded>) -> rs_status)
        throws(ImageEncodingError) -> [UInt8] {
        var output = rs_encoded()
        let status = call(&output)
        defer { rs_free(output.bytes) }
        guard status == RS_OK, let bytes = output.bytes else {
            throw ImageEncodingError(message: string(fromCharacters: output.message))
        }
        return Array(UnsafeBufferPointer(start: bytes, count: output.size))
    }

    /// A C `char[N]` field (imported as a tuple) up to its NUL.
    private static func string<Characters>(fromCharacters characters: Characters) -> String {
        withUnsafeBytes(of: characters) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
