import Foundation
@testable import Imaging

/// A fresh temporary folder per test, removed afterwards.
struct TemporaryFolder: ~Copyable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("imaging-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ bytes: [UInt8], to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }
}

/// Images made in the test with known pixels.
enum TestImages {
    /// An image of `blockSize`-pixel squares, one per value in `blocks` (row-major,
    /// `columns` wide): a JPEG at quality 100 keeps each flat 8×8 block's value, and
    /// 1/8 DCT scaling turns each block back into exactly one pixel.
    static func blocky(_ blocks: [UInt8], columns: Int, blockSize: Int = 8) -> GrayImage {
        let rows = blocks.count / columns
        let width = columns * blockSize, height = rows * blockSize
        let pixels = (0..<width * height).map { index in
            blocks[(index / width / blockSize) * columns + (index % width) / blockSize]
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    static func jpeg(_ image: GrayImage, quality: Int = 100, progressive: Bool = false,
                     app1: [UInt8]? = nil) throws -> [UInt8] {
        try NativeCodecs.encodeJPEG(pixels: image.pixels, width: image.width, height: image.height,
                                    color: .gray, quality: quality, progressive: progressive, app1: app1)
    }

    /// Gray values as each color model stores them (Adobe CMYK is inverted: 255 = no ink;
    /// CMYK without the Adobe marker is not: 0 = no ink).
    static func jpeg(_ image: GrayImage, color: JPEGColorModel, quality: Int = 100) throws -> [UInt8] {
        let pixels: [UInt8] = switch color {
        case .gray: image.pixels
        case .rgb: image.pixels.flatMap { [$0, $0, $0] }
        case .cmyk, .ycck: image.pixels.flatMap { [255, 255, 255, $0] }
        case .plainCMYK: image.pixels.flatMap { [0, 0, 0, 255 - $0] }
        }
        return try NativeCodecs.encodeJPEG(pixels: pixels, width: image.width, height: image.height,
                                           color: color, quality: quality, progressive: false, app1: nil)
    }

    /// An APP1 payload "Exif\0\0" + TIFF with IFD0 holding one orientation tag.
    static func exifPayload(orientation: Int, littleEndian: Bool, type: UInt16 = 3) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] : [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        func u32(_ value: Int) -> [UInt8] {
            littleEndian ? u16(value & 0xFFFF) + u16(value >> 16) : u16(value >> 16) + u16(value & 0xFFFF)
        }
        let byteOrder: [UInt8] = littleEndian ? Array("II".utf8) : Array("MM".utf8)
        let software = u16(0x0131) + u16(2) + u32(4) + Array("ab\0\0".utf8)   // an unrelated tag first
        // Values up to 4 bytes sit left-justified in the entry's value field.
        let value: [UInt8] = switch type {
        case 1: [UInt8(orientation), 0, 0, 0]
        case 4: u32(orientation)
        default: u16(orientation) + [0, 0]
        }
        let orientationEntry = u16(0x0112) + u16(Int(type)) + u32(1) + value
        return Array("Exif".utf8) + [0, 0] + byteOrder + u16(42) + u32(8)
            + u16(2) + software + orientationEntry + u32(0)
    }
}

extension LoadedImage {
    var pixels: [UInt8] { image.pixels }
}

/// Asserts every pixel is within `tolerance` of the expected value.
func maximumDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
}
