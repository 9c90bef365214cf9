import Foundation
import ImageTestSupport
import Testing
import TestSupport
@testable import Imaging

@Suite struct PNGDecodingTests {
    private func load(_ bytes: [UInt8], name: String = "test.png") throws -> LoadedImage {
        try ImageLoader.load(data: Data(bytes), name: name)
    }

    @Test func eightBitGrayIsExact() throws {
        let png = PNGWriter.png(width: 3, height: 2, colorType: .gray, rows: [[0, 17, 128], [200, 254, 255]])
        let loaded = try load(png)
        #expect(loaded.format == .png)
        #expect(loaded.image.width == 3 && loaded.image.height == 2)
        #expect(loaded.pixels == [0, 17, 128, 200, 254, 255])
        #expect(loaded.exifOrientation == 1)
    }

    @Test func sixteenBitGrayKeepsTheHighByte() throws {
        let values: [UInt16] = [0, 0x1111, 0x8080, 0xFFFF]
        let row = values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let loaded = try load(PNGWriter.png(width: 4, height: 1, colorType: .gray, bitDepth: 16, rows: [row]))
        #expect(loaded.pixels == [0, 0x11, 0x80, 0xFF])
    }

    @Test func oneBitGrayBecomesBlackAndWhite() throws {
        let loaded = try load(PNGWriter.png(width: 8, height: 1, colorType: .gray, bitDepth: 1, rows: [[0b1010_0001]]))
        #expect(loaded.pixels == [255, 0, 255, 0, 0, 0, 0, 255])
    }

    @Test func rgbGraysKeepTheirValueAndColorsOrderByLuminance() throws {
        let row: [UInt8] = [0, 0, 0, 90, 90, 90, 255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        let pixels = try load(PNGWriter.png(width: 6, height: 1, colorType: .rgb, rows: [row])).pixels
        #expect(Array(pixels[0..<3]) == [0, 90, 255])
        let (red, green, blue) = (pixels[3], pixels[4], pixels[5])
        #expect(green > red && red > blue && blue > 0)
    }

    @Test func transparentPixelsBecomeWhitePaper() throws {
        let rgba: [UInt8] = [40, 40, 40, 255, 0, 0, 0, 0]
        #expect(try load(PNGWriter.png(width: 2, height: 1, colorType: .rgba, rows: [rgba])).pixels == [40, 255])
        let grayAlpha: [UInt8] = [70, 255, 10, 0]
        #expect(try load(PNGWriter.png(width: 2, height: 1, colorType: .grayAlpha, rows: [grayAlpha])).pixels == [70, 255])
    }

    @Test func paletteEntriesAreLookedUp() throws {
        let palette: [UInt8] = [0, 0, 0, 255, 255, 255, 100, 100, 100]
        let png = PNGWriter.png(width: 4, height: 1, colorType: .palette, rows: [[2, 1, 0, 2]], palette: palette)
        #expect(try load(png).pixels == [100, 255, 0, 100])
        // tRNS makes index 0 transparent: it composites to white.
        let transparent = PNGWriter.png(width: 2, height: 1, colorType: .palette, rows: [[0, 2]],
                                        palette: palette, transparency: [0])
        #expect(try load(transparent).pixels == [255, 100])
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func realPalettedAndOneBitPhotosLoadAtTheirStoredSize() throws {
        let ean13 = try SharedFiles.requireImage("barcodes/zbar-examples/ean-13.png"), ean5 = try SharedFiles.requireImage("barcodes/zbar-examples/ean-5.png")
        let paletted = try ImageLoader.load(contentsOf: ean13)
        #expect(paletted.image.width == 226 && paletted.image.height == 100)
        // A barcode: both ink and paper are present.
        #expect(paletted.pixels.min() == 0 && paletted.pixels.max() == 255)
        let bitmap = try ImageLoader.load(contentsOf: ean5)
        #expect(bitmap.image.width == 158 && bitmap.image.height == 182)
        #expect(Set(bitmap.pixels) == [0, 255])
    }

    @Test func encoderRoundTripsGrayExactly() throws {
        let image = GrayImage(width: 5, height: 3, pixels: (0..<15).map { UInt8($0 * 17) })
        let png = try ImageEncoder.pngData(image)
        #expect(try ImageLoader.load(data: png, name: "round.png").image == image)
    }
}
