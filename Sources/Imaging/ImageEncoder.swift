import CWebP
import Foundation

public struct ImageEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { "cannot encode image (\(message))" }
}

/// Writes images as PNG, JPEG or WebP (sample images, benchmark scenes, debugging output).
public enum ImageEncoder {
    public static func pngData(_ image: GrayImage) throws(ImageEncodingError) -> Data {
        Data(try NativeCodecs.encodeGrayPNG(image))
    }

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

    /// A lossy WebP (quality 0…100) of the gray image, as phone apps save photos.
    public static func webpData(_ image: GrayImage, quality: Int = 90) throws(ImageEncodingError) -> Data {
        let rgb = image.pixels.flatMap { [$0, $0, $0] }
        var output: UnsafeMutablePointer<UInt8>?
        let size = WebPEncodeRGB(rgb, Int32(image.width), Int32(image.height), Int32(image.width * 3),
                                 Float(quality), &output)
        guard size > 0, let bytes = output else {
            throw ImageEncodingError(message: "libwebp could not encode \(image.width)×\(image.height)")
        }
        defer { WebPFree(bytes) }
        return Data(bytes: bytes, count: size)
    }
}
