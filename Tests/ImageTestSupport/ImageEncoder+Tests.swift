import CWebP
import Foundation
import Imaging

// Encoders only tests use (fixtures written in the test): PNG through PNGWriter, lossy WebP
// through libwebp. The product encodes JPEG only (Imaging.ImageEncoder, for vision requests).
extension ImageEncoder {
    /// An 8-bit grayscale PNG (stored deflate blocks: large, but any decoder reads it).
    public static func pngData(_ image: GrayImage) throws(ImageEncodingError) -> Data {
        guard image.width > 0, image.height > 0, image.pixels.count == image.width * image.height else {
            throw ImageEncodingError(message: "image size out of range for PNG")
        }
        let rows = (0..<image.height).map { row in Array(image.pixels[row * image.width..<(row + 1) * image.width]) }
        return Data(PNGWriter.png(width: image.width, height: image.height, colorType: .gray, rows: rows))
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
