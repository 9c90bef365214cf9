import CWebP
import Foundation
import Testing
import TestSupport
@testable import Imaging

/// WebP files (what many phone apps save) decode to gray, as PNG and JPEG do.
@Suite struct WebPDecodingTests {
    let image = TestImages.blocky([16, 64, 112, 160, 208, 240], columns: 3)

    /// The gray image as a lossless WebP, through libwebp's own encoder.
    func webp(_ image: GrayImage) throws -> [UInt8] {
        let rgb = image.pixels.flatMap { [$0, $0, $0] }
        var output: UnsafeMutablePointer<UInt8>?
        let size = WebPEncodeLosslessRGB(rgb, Int32(image.width), Int32(image.height), Int32(image.width * 3), &output)
        let bytes = try #require(output)
        defer { WebPFree(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    @Test func losslessWebPDecodesToTheSameGray() throws {
        let loaded = try ImageLoader.load(data: Data(try webp(image)), name: "cover.webp", options: ImageLoadOptions())
        #expect(loaded.format == .webp)
        #expect(loaded.image.width == image.width && loaded.image.height == image.height)
        let worst = zip(loaded.image.pixels, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 3)
    }

    @Test func theSizeLimitIsCheckedFromTheHeader() throws {
        #expect(throws: ImageError.tooLarge(file: "big.webp", width: 24, height: 16, maxPixels: 100)) {
            try ImageLoader.load(data: Data(try webp(image)), name: "big.webp", options: ImageLoadOptions(maxPixels: 100))
        }
    }

    @Test func aTruncatedWebPIsAnErrorNamingTheFile() throws {
        let bytes = try webp(image)
        #expect {
            try ImageLoader.load(data: Data(bytes.prefix(bytes.count / 2)), name: "half.webp", options: ImageLoadOptions())
        } throws: { error in
            (error as? ImageError)?.file == "half.webp"
        }
    }

    @Test func webpFilesAreListedAsImages() {
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/photos/IMG_0001.WEBP")))
    }
}
