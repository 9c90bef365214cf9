import CImageCodecs
import Foundation

/// An 8-bit RGB image as three planes, so every GrayImage operation (orientation,
/// cropping, scaling) applies to colour unchanged.
public struct ColorImage: Sendable, Hashable {
    public var red: GrayImage
    public var green: GrayImage
    public var blue: GrayImage

    public init(red: GrayImage, green: GrayImage, blue: GrayImage) {
        precondition(red.width == green.width && red.width == blue.width && red.height == green.height && red.height == blue.height,
                     "colour planes of different sizes")
        self.red = red
        self.green = green
        self.blue = blue
    }

    public var width: Int { red.width }
    public var height: Int { red.height }

    /// Each plane through the same gray operation.
    public func map(_ transform: (GrayImage) -> GrayImage) -> ColorImage {
        ColorImage(red: transform(red), green: transform(green), blue: transform(blue))
    }

    /// Interleaved RGB bytes (for `ImageEncoder.jpegData(rgb:)`).
    public var interleaved: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<width * height {
            bytes[index * 3] = red.pixels[index]
            bytes[index * 3 + 1] = green.pixels[index]
            bytes[index * 3 + 2] = blue.pixels[index]
        }
        return bytes
    }

    public init(interleaved bytes: [UInt8], width: Int, height: Int) {
        let count = width * height
        var planes = [[UInt8]](repeating: [UInt8](repeating: 0, count: count), count: 3)
        for index in 0..<count {
            planes[0][index] = bytes[index * 3]
            planes[1][index] = bytes[index * 3 + 1]
            planes[2][index] = bytes[index * 3 + 2]
        }
        self.init(red: GrayImage(width: width, height: height, pixels: planes[0]),
                  green: GrayImage(width: width, height: height, pixels: planes[1]),
                  blue: GrayImage(width: width, height: height, pixels: planes[2]))
    }
}

/// JPEG → upright colour image (libjpeg, EXIF orientation applied). nil when the bytes are
/// not a JPEG this path handles (CMYK, corrupt): callers fall back to the gray loader,
/// which reports the problem properly.
public enum ColorJPEG {
    public static func decode(_ data: Data, minimumLongSide: Int = 0, maxPixels: Int = 100_000_000) -> ColorImage? {
        guard data.starts(with: [0xFF, 0xD8]) else { return nil }
        var out = rs_rgb_image()
        let status = data.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return Int32(RS_ERROR_INVALID_ARGUMENT.rawValue) }
            return rs_jpeg_decode_rgb(base, raw.count, Int32(minimumLongSide), UInt64(maxPixels), &out)
        }
        defer { rs_free(out.pixels) }
        guard status == Int32(RS_OK.rawValue), let pixels = out.pixels, out.width > 0, out.height > 0 else { return nil }
        let width = Int(out.width), height = Int(out.height)
        let bytes = Array(UnsafeBufferPointer(start: pixels, count: width * height * 3))
        let orientation = Int(out.exif_orientation)
        return ColorImage(interleaved: bytes, width: width, height: height).map { $0.applyingEXIFOrientation(orientation) }
    }
}
