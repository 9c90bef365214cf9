import Foundation
import Testing
import TestSupport
@testable import Imaging

@Suite struct JPEGDecodingTests {
    /// 3×2 blocks of 8×8 pixels, every block a different gray.
    let blocks: [UInt8] = [16, 64, 112, 160, 208, 240]
    var image: GrayImage { TestImages.blocky(blocks, columns: 3) }

    private func load(_ bytes: [UInt8], scale: JPEGScale = .full, applyOrientation: Bool = true) throws -> LoadedImage {
        try ImageLoader.load(data: Data(bytes), name: "test.jpg",
                             options: ImageLoadOptions(jpegScale: scale, applyOrientation: applyOrientation))
    }

    @Test(arguments: [false, true])
    func baselineAndProgressiveGrayDecode(progressive: Bool) throws {
        let jpeg = try TestImages.jpeg(image, progressive: progressive)
        let full = try load(jpeg)
        #expect(full.format == .jpeg)
        #expect(full.image.width == 24 && full.image.height == 16)
        #expect(maximumDifference(full.pixels, image.pixels) <= 1)
        #expect(full.warnings.isEmpty)
        // At 1/8 each flat block is its DC coefficient: one exact pixel per block.
        #expect(try load(jpeg, scale: .eighth).pixels == blocks)
    }

    @Test(arguments: JPEGColorModel.allCases)
    func everyColorModelBecomesTheSameGray(color: JPEGColorModel) throws {
        let jpeg = try TestImages.jpeg(image, color: color)
        let loaded = try load(jpeg)
        #expect(loaded.image.width == 24 && loaded.image.height == 16)
        #expect(maximumDifference(loaded.pixels, image.pixels) <= 2, "\(color)")
    }

    @Test func dctScalingGivesTheScaledSizeAndKeepsTheOriginal() throws {
        let photo = GrayImage(width: 100, height: 60, pixels: (0..<6000).map { UInt8(($0 * 7) % 256) })
        let jpeg = try TestImages.jpeg(photo, quality: 90)
        let expected: [(JPEGScale, Int, Int)] = [(.full, 100, 60), (.half, 50, 30), (.quarter, 25, 15), (.eighth, 13, 8)]
        for (scale, width, height) in expected {
            let loaded = try load(jpeg, scale: scale)
            #expect(loaded.image.width == width && loaded.image.height == height, "\(scale)")
            #expect(loaded.originalWidth == 100 && loaded.originalHeight == 60)
        }
    }

    @Test func targetPixelsPicksTheFirstScaleSmallEnough() throws {
        let photo = GrayImage(width: 160, height: 120, pixels: [UInt8](repeating: 90, count: 160 * 120))
        let jpeg = Data(try TestImages.jpeg(photo, quality: 80))
        let cases: [(target: Int?, start: JPEGScale, expected: JPEGScale)] = [
            (nil, .full, .full), (19_200, .full, .full), (19_199, .full, .half), (4_800, .full, .half),
            (1_200, .full, .quarter), (1, .full, .eighth), (19_200, .quarter, .quarter),
        ]
        for (target, start, expected) in cases {
            let loaded = try ImageLoader.load(data: jpeg, name: "t.jpg",
                                              options: ImageLoadOptions(jpegScale: start, jpegTargetPixels: target))
            #expect(loaded.scale == expected, "target \(String(describing: target)) from \(start)")
            #expect(loaded.image.width == 160 / expected.rawValue && loaded.image.height == 120 / expected.rawValue)
        }
    }

    @Test func minimumLongSidePicksTheCoarsestScaleLongEnough() throws {
        let photo = GrayImage(width: 160, height: 120, pixels: [UInt8](repeating: 90, count: 160 * 120))
        let jpeg = Data(try TestImages.jpeg(photo, quality: 80))
        let cases: [(minimum: Int?, start: JPEGScale, expected: JPEGScale)] = [
            (nil, .quarter, .quarter), (40, .quarter, .quarter), (41, .quarter, .half), (80, .quarter, .half),
            (81, .quarter, .full), (10_000, .eighth, .full), (20, .eighth, .eighth), (20, .half, .half),
        ]
        for (minimum, start, expected) in cases {
            let loaded = try ImageLoader.load(data: jpeg, name: "t.jpg",
                                              options: ImageLoadOptions(jpegScale: start, jpegMinimumLongSide: minimum))
            #expect(loaded.scale == expected, "minimum \(String(describing: minimum)) from \(start)")
            #expect(loaded.image.width == 160 / expected.rawValue && loaded.image.height == 120 / expected.rawValue)
        }
    }

    @Test func warningsDoNotStopTheDecode() throws {
        var jpeg = try TestImages.jpeg(image)
        // Stray bytes before the start-of-frame marker: libjpeg warns and decodes on.
        let sof = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.insert(contentsOf: [0x12, 0x34, 0x56], at: sof)
        let stray = try load(jpeg, scale: .eighth)
        #expect(stray.pixels == blocks)
        #expect(stray.warnings == ["Corrupt JPEG data: 3 extraneous bytes before marker 0xc0"])
    }

    @Test func fastDecodingStaysCloseToTheExactDecode() throws {
        let photo = GrayImage(width: 64, height: 48, pixels: (0..<(64 * 48)).map { UInt8(($0 % 64) * 4) })
        let jpeg = Data(try TestImages.jpeg(photo, quality: 90))
        let exact = try ImageLoader.load(data: jpeg, name: "a.jpg")
        let fast = try ImageLoader.load(data: jpeg, name: "a.jpg", options: ImageLoadOptions(fastJPEGDecoding: true))
        #expect(maximumDifference(exact.pixels, fast.pixels) <= 4)
    }

    /// The upright 3×2 (or 2×3) block grid each orientation shows, from blocks 1 2 3 / 4 5 6.
    static let orientations: [(orientation: Int, columns: Int, order: [Int])] = [
        (1, 3, [0, 1, 2, 3, 4, 5]), (2, 3, [2, 1, 0, 5, 4, 3]), (3, 3, [5, 4, 3, 2, 1, 0]),
        (4, 3, [3, 4, 5, 0, 1, 2]), (5, 2, [0, 3, 1, 4, 2, 5]), (6, 2, [3, 0, 4, 1, 5, 2]),
        (7, 2, [5, 2, 4, 1, 3, 0]), (8, 2, [2, 5, 1, 4, 0, 3]),
    ]

    @Test(arguments: orientations, [true, false])
    func exifOrientationIsReadAndApplied(_ expectation: (orientation: Int, columns: Int, order: [Int]),
                                         littleEndian: Bool) throws {
        let exif = TestImages.exifPayload(orientation: expectation.orientation, littleEndian: littleEndian)
        let jpeg = try TestImages.jpeg(image, app1: exif)
        let upright = try load(jpeg, scale: .eighth)
        #expect(upright.exifOrientation == expectation.orientation)
        #expect(upright.image.width == expectation.columns)
        #expect(upright.pixels == expectation.order.map { blocks[$0] })
        // Full size: the same turn, pixel for pixel (within JPEG's ±1).
        let full = try load(jpeg)
        let expectedFull = image.applyingEXIFOrientation(expectation.orientation)
        #expect(full.image.width == expectedFull.width)
        #expect(maximumDifference(full.pixels, expectedFull.pixels) <= 1)
        // Not applied: stored pixels, orientation still reported.
        let stored = try load(jpeg, scale: .eighth, applyOrientation: false)
        #expect(stored.pixels == blocks && stored.exifOrientation == expectation.orientation)
    }

    @Test func orientationAsLongOrByteIsRead() throws {
        #expect(NativeCodecs.exifOrientation(ofAPP1: TestImages.exifPayload(orientation: 6, littleEndian: true, type: 4)) == 6)
        #expect(NativeCodecs.exifOrientation(ofAPP1: TestImages.exifPayload(orientation: 8, littleEndian: false, type: 1)) == 8)
    }

    @Test func damagedExifIsIgnored() throws {
        let good = TestImages.exifPayload(orientation: 6, littleEndian: true)
        #expect(NativeCodecs.exifOrientation(ofAPP1: good) == 6)
        var badOrder = good
        badOrder[6] = UInt8(ascii: "X")
        var badMagic = good
        badMagic[8] = 41
        var offsetPastEnd = good
        offsetPastEnd[10] = 0xF0
        var hugeCount = good
        hugeCount[14] = 0xFF
        hugeCount[15] = 0xFF
        hugeCount[28...29] = [0x00, 0x00]   // no orientation tag: the entry loop runs off the end
        let cases: [[UInt8]] = [
            [], Array("Exif".utf8), Array(good.prefix(20)), Array(good.prefix(good.count - 8)),
            badOrder, badMagic, offsetPastEnd, hugeCount,
            TestImages.exifPayload(orientation: 0, littleEndian: true),
            TestImages.exifPayload(orientation: 9, littleEndian: false),
            Array("XMP\0\0\0".utf8) + good.dropFirst(6),
        ]
        for payload in cases {
            #expect(NativeCodecs.exifOrientation(ofAPP1: payload) == nil, "\(payload)")
        }
        // Random bytes after a valid header never crash and never give an invalid value.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 6..<64, using: &generator)
            let payload = Array("Exif\0\0".utf8) + (6..<length).map { _ in
                Bool.random(using: &generator) ? UInt8.random(in: 0...8, using: &generator) : UInt8.random(in: 0...255, using: &generator)
            }
            let value = NativeCodecs.exifOrientation(ofAPP1: payload)
            #expect(value == nil || (1...8).contains(value ?? 0))
        }
        // A JPEG with damaged EXIF still decodes, upright as stored.
        let loaded = try load(try TestImages.jpeg(image, app1: offsetPastEnd), scale: .eighth)
        #expect(loaded.exifOrientation == 1 && loaded.pixels == blocks)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func realGrayscaleJPEGDecodes() throws {
        let url = try SharedFiles.requireImage("barcodes/zxingcpp-falsepositives-1/MQR-falsepositive.jpg")
        let loaded = try ImageLoader.load(contentsOf: url)
        #expect(loaded.format == .jpeg)
        #expect(loaded.image.width == 50 && loaded.image.height == 46)
        #expect(loaded.pixels.max() ?? 0 > loaded.pixels.min() ?? 0)
    }

    @Test func encoderWritesReadableJPEG() throws {
        let data = try ImageEncoder.jpegData(image, quality: 100)
        #expect(maximumDifference(try ImageLoader.load(data: data, name: "e.jpg").pixels, image.pixels) <= 1)
    }
}
