import Foundation

public struct ImageEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { "cannot encode image (\(message))" }
}

/// Writes images as JPEG (the pictures sent to vision models, benchmark scenes). Tests' own
/// PNG and WebP writers live in Tests/ImageTestSupport.
public enum ImageEncoder {
    public static func jpegData(_ image: GrayImage, quality: Int = 90, progressive: Bool = false)
        throws(ImageEncodingError) -> Data {
        Data(try NativeCodecs.encodeJPEG(pixels: image.pixels, width: image.width, height: image.height,
                                         color: .gray, quality: quality,
                                         progressive: progressive, app1: nil))
    }

    /// A color JPEG (stored as YCbCr, like a camera's) from interleaved 8-bit RGB.
    public static func jpegData(rgb pixels: [UInt8], width: Int, height: Int, quality: Int = 90)
        throws(ImageEncodingError) -> Data {
        Data(try NativeCodecs.encodeJPEG(pixels: pixels, width: width, height: height, color: .rgb,
                                         quality: quality, progressive: false, app1: nil))
    }
}
