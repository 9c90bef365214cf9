import Foundation
import Testing
import TestSupport
@testable import Imaging

/// HEIC/HEIF/AVIF (what iPhones save) and oriented WebP, on the files that
/// scripts/generate-sample-images writes with pillow-heif, heif-enc and Pillow.
@Suite struct HEIFDecodingTests {
    static func sample(_ name: String) -> URL { SharedFiles.sampleImages.appendingPathComponent(name) }

    /// The upright label every oriented sample was made from (339×255).
    static func upright() throws -> GrayImage {
        try ImageLoader.load(contentsOf: sample("isbn-9780306406157.png")).image
    }

    /// Mean absolute difference; a turned or mirrored label differs by far more than codec loss.
    static func meanDifference(_ a: GrayImage, _ b: GrayImage) -> Double {
        guard a.width == b.width, a.height == b.height else { return 255 }
        let total = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(max(a.pixels.count, 1))
    }

    @Test func aHEICDecodesToTheSameGrayAsThePNG() throws {
        let loaded = try ImageLoader.load(contentsOf: Self.sample("isbn-9780306406157.heic"))
        let png = try Self.upright()
        #expect(loaded.format == .heif)
        #expect(loaded.image.width == png.width && loaded.image.height == png.height)
        #expect(loaded.originalWidth == 339 && loaded.originalHeight == 255)
        #expect(Self.meanDifference(loaded.image, png) < 6, "\(Self.meanDifference(loaded.image, png))")
    }

    @Test(arguments: ["isbn-9780306406157-irot.heic", "isbn-9780306406157-exif6.heic", "isbn-9780306406157-exif6.webp"])
    func turnedPixelsComeOutUpright(_ name: String) throws {
        let png = try Self.upright()
        let loaded = try ImageLoader.load(contentsOf: Self.sample(name))
        #expect(loaded.image.width == 339 && loaded.image.height == 255, "\(loaded.image.width)×\(loaded.image.height)")
        let difference = Self.meanDifference(loaded.image, png)
        // Turned the wrong way (upside down), the same pixels are far off.
        #expect(difference < 8, "\(name): \(difference)")
        #expect(Self.meanDifference(loaded.image.rotated(.upsideDown), png) > 3 * difference + 10)
    }

    @Test func irotIsAppliedOnceAndEXIFOnlyWhenTheFileHasNoTransform() throws {
        // pillow-heif wrote an irot box and EXIF orientation 1; heif-enc kept EXIF 6, no irot.
        let irot = try ImageLoader.load(contentsOf: Self.sample("isbn-9780306406157-irot.heic"))
        #expect(irot.exifOrientation == 1)
        let exif = try ImageLoader.load(contentsOf: Self.sample("isbn-9780306406157-exif6.heic"))
        #expect(exif.exifOrientation == 6)
        // Asked for stored pixels, the EXIF turn is not made (irot is geometry, always made).
        let stored = try ImageLoader.load(contentsOf: Self.sample("isbn-9780306406157-exif6.heic"),
                                          options: ImageLoadOptions(applyOrientation: false))
        #expect(stored.image.width == 255 && stored.image.height == 339)
        let webp = try ImageLoader.load(contentsOf: Self.sample("isbn-9780306406157-exif6.webp"),
                                        options: ImageLoadOptions(applyOrientation: false))
        #expect(webp.exifOrientation == 6 && webp.image.width == 255 && webp.image.height == 339)
    }

    /// The colour HEIC is the same picture as scene-9781250313188.jpg (same seed, q85 both).
    @Test func colourHEICAndAVIFDecodeToGrayAtFullSize() throws {
        let heic = try ImageLoader.load(contentsOf: Self.sample("scene-9781250313188.heic"))
        #expect(heic.format == .heif && heic.image.width == 1024 && heic.image.height == 768)
        let avif = try ImageLoader.load(contentsOf: Self.sample("scene-upca.avif"))
        #expect(avif.format == .heif && avif.image.width == 1024 && avif.image.height == 768)
        // Gray from full-range luma, as libjpeg's: not a colour channel, not studio range.
        let jpeg = try ImageLoader.load(contentsOf: Self.sample("scene-9781250313188.jpg")).image
        #expect(Self.meanDifference(heic.image, jpeg) < 4, "\(Self.meanDifference(heic.image, jpeg))")
    }

    @Test func thePixelLimitIsCheckedFromTheHeaderBeforeDecoding() throws {
        var bytes = try Array(Data(contentsOf: Self.sample("scene-9781250313188.heic")))
        // The coded picture (mdat) zeroed: nothing left to decode, only the header is whole,
        // and the limit still answers with the size.
        let mdat = try bytes.withUnsafeBytes { raw in
            try #require(HEIFBoxes.children(of: raw[...]).first { $0.type == "mdat" }).body.indices
        }
        for index in mdat { bytes[index] = 0 }
        #expect(throws: ImageError.tooLarge(file: "IMG_0001.HEIC", width: 1024, height: 768, maxPixels: 500_000)) {
            try ImageLoader.load(data: Data(bytes), name: "IMG_0001.HEIC", options: ImageLoadOptions(maxPixels: 500_000))
        }
        #expect(throws: Never.self) {
            try ImageLoader.load(contentsOf: Self.sample("scene-9781250313188.heic"), options: ImageLoadOptions(maxPixels: 1024 * 768))
        }
        // Cut short, the file is an error that names it (libheif checks its extents).
        #expect {
            try ImageLoader.load(data: Data(bytes.prefix(bytes.count * 3 / 4)), name: "IMG_0002.HEIC")
        } throws: { error in
            let error = try #require(error as? ImageError)
            return error.file == "IMG_0002.HEIC" && error.description.contains("truncated HEIF")
        }
    }

    @Test func brokenHEIFFilesAreErrorsNamingTheFile() throws {
        let good = try Array(Data(contentsOf: Self.sample("isbn-9780306406157.heic")))
        var garbled = good
        for index in stride(from: good.count / 2, to: good.count, by: 7) { garbled[index] ^= 0x5A }
        let cases: [(String, [UInt8])] = [
            ("brand-only.heic", [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)),
            ("header.heic", Array(good.prefix(40))),
            ("garbled.heic", garbled),
            ("avif-brand.avif", [0, 0, 0, 20] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1".utf8) + [0, 0, 0, 8]),
        ]
        for (name, bytes) in cases {
            do {
                let loaded = try ImageLoader.load(data: Data(bytes), name: name)
                // A garbled picture may still decode (HEVC conceals errors): never at another size.
                #expect(name == "garbled.heic" && loaded.image.width == 339 && loaded.image.height == 255, "\(name)")
            } catch {
                #expect(error.file == name && error.description.hasPrefix("\(name): "), "\(error)")
            }
        }
    }

    @Test func theContainerIsKnownByItsBrandNotItsExtension() throws {
        func detect(_ bytes: [UInt8]) -> ImageSignature { bytes.withUnsafeBytes { ImageSignature.detect($0) } }
        let box = { (major: String, compatible: [String]) -> [UInt8] in
            [0, 0, 0, UInt8(16 + 4 * compatible.count)] + Array("ftyp\(major)".utf8) + [0, 0, 0, 0]
                + compatible.flatMap { Array($0.utf8) }
        }
        #expect(detect(box("heic", ["mif1"])) == .heif("HEIC"))
        #expect(detect(box("heix", [])) == .heif("HEIC"))
        #expect(detect(box("avif", ["mif1"])) == .heif("AVIF"))
        #expect(detect(box("MiHE", ["mif1", "MiHB"])) == .heif("HEIF"))
        #expect(detect(box("crx ", ["isom"])) == .unsupported("Canon CR3 raw"))
        // An MP4 video is no image.
        #expect(detect(box("isom", ["iso2", "mp41"])) == .unknown)
    }

    @Test func theEXIFItemOrientationIsFoundWithOrWithoutTheJPEGMarker() {
        let tiff = Array(TestImages.exifPayload(orientation: 8, littleEndian: true).dropFirst(6))
        #expect(HEIFDecoder.exifOrientation(ofHEIFExifBlock: [0, 0, 0, 6] + Array("Exif".utf8) + [0, 0] + tiff) == 8)
        #expect(HEIFDecoder.exifOrientation(ofHEIFExifBlock: [0, 0, 0, 0] + tiff) == 8)
        #expect(HEIFDecoder.exifOrientation(ofHEIFExifBlock: [0, 0, 0, 200] + tiff) == 1)
        #expect(HEIFDecoder.exifOrientation(ofHEIFExifBlock: [0xFF, 0xFF, 0xFF, 0xFF]) == 1)
    }

    @Test func photoFolderFormatsAreListedAndOthersKeptToBeNamed() {
        for name in ["IMG_0001.HEIC", "a.heif", "b.avif", "c.hif"] {
            #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: name)), "\(name)")
        }
        for name in ["anim.GIF", "scan.tiff", "P1000.RW2", "IMG_1.CR3", "x.bmp"] {
            #expect(!ImageLoader.isSupportedImage(URL(fileURLWithPath: name)), "\(name)")
            #expect(ImageLoader.isImageFile(URL(fileURLWithPath: name), rawFormat: nil), "\(name)")
        }
        #expect(!ImageLoader.isImageFile(URL(fileURLWithPath: "notes.txt"), rawFormat: nil))
    }
}
