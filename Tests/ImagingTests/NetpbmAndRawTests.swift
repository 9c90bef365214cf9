import Foundation
import Testing
@testable import Imaging

@Suite struct NetpbmAndRawTests {
    private func load(_ bytes: [UInt8], name: String, rawFormat: RawFrameFormat? = nil) throws(ImageError) -> LoadedImage {
        try ImageLoader.load(data: Data(bytes), name: name, options: ImageLoadOptions(rawFormat: rawFormat))
    }

    private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func binaryPGM() throws {
        let loaded = try load(ascii("P5\n3 2\n255\n") + [0, 1, 2, 128, 254, 255], name: "a.pgm")
        #expect(loaded.format == .pgm)
        #expect(loaded.image.width == 3 && loaded.image.height == 2)
        #expect(loaded.pixels == [0, 1, 2, 128, 254, 255])
    }

    @Test func sixteenBitPGMAndCommentsInTheHeader() throws {
        let header = ascii("P5 # made by hand\n# another comment\n2 1 #size\n65535\n")
        let loaded = try load(header + [0xFF, 0xFF, 0x80, 0x00], name: "wide.pgm")
        #expect(loaded.pixels == [255, 128])
    }

    @Test func asciiPGMWithSmallMaxvalIsScaled() throws {
        let loaded = try load(ascii("P2\n# maxval 15\n4 1\n15\n0 5\n  10 15\n"), name: "text.pgm")
        #expect(loaded.pixels == [0, 85, 170, 255])
    }

    @Test func ppmBinaryAndASCIIBecomeLuma() throws {
        let binary = try load(ascii("P6\n3 1\n255\n") + [0, 0, 0, 255, 255, 255, 100, 100, 100], name: "c.ppm")
        #expect(binary.format == .ppm)
        #expect(binary.pixels == [0, 255, 100])
        let text = try load(ascii("P3 2 1 255  255 0 0  0 255 0"), name: "c2.ppm")
        #expect(text.pixels == [76, 150])   // BT.601: 0.299 and 0.587 of 255   // BT.601: 0.299 red, 0.587 green
        let wide = try load(ascii("P6 1 1 1023\n") + [0x03, 0xFF, 0x03, 0xFF, 0x03, 0xFF], name: "w.ppm")
        #expect(wide.pixels == [255])
    }

    @Test func netpbmProblemsAreNamed() {
        let cases: [([UInt8], String)] = [
            (ascii("P5\n3 2\n255\n") + [1, 2, 3], "truncated PGM (3 of 6 bytes of pixel data)"),
            (ascii("P2\n2 2\n255\n1 2 3"), "truncated PGM (3 of 4 samples)"),
            (ascii("P5\n3 2\n0\n") + [0], "corrupt PGM (maxval 0 is not 1…65535)"),
            (ascii("P2\n1 1\n10\n11"), "corrupt PGM (sample 11 over maxval 10)"),
            (ascii("P6\nx 2\n255\n"), "corrupt PPM (width is not a number)"),
            (ascii("P5\n3"), "truncated PGM (ends before the height)"),
        ]
        for (bytes, reason) in cases {
            #expect(throws: ImageError.self) { try load(bytes, name: "bad.pgm") }
            do {
                _ = try load(bytes, name: "bad.pgm")
            } catch {
                #expect(error.description == "bad.pgm: \(reason)")
            }
        }
    }

    @Test func y800FrameIsTheLumaPlane() throws {
        let frame: [UInt8] = (0..<12).map { UInt8($0 * 20) }
        let loaded = try load(frame, name: "frame-0001.y800", rawFormat: .y800(width: 4, height: 3))
        #expect(loaded.format == .raw)
        #expect(loaded.image.width == 4 && loaded.image.height == 3)
        #expect(loaded.pixels == frame)
    }

    @Test func yuyvFrameKeepsTheLumaSamples() throws {
        // Y0 U Y1 V for a 4×2 frame: luma 10, 20, 30, … and chroma 128.
        let frame: [UInt8] = (0..<8).flatMap { [UInt8(10 * ($0 + 1)), 128] }
        let loaded = try load(frame, name: "frame.yuv", rawFormat: .yuyv(width: 4, height: 2))
        #expect(loaded.pixels == [10, 20, 30, 40, 50, 60, 70, 80])
    }

    @Test func rawFrameWithTheWrongSizeOrNoSizeIsRefused() {
        #expect(throws: ImageError.rawSizeMismatch(file: "f.yuv", format: .yuyv(width: 4, height: 2), byteCount: 15)) {
            try load([UInt8](repeating: 0, count: 15), name: "f.yuv", rawFormat: .yuyv(width: 4, height: 2))
        }
        let mismatch = ImageError.rawSizeMismatch(file: "f.yuv", format: .yuyv(width: 4, height: 2), byteCount: 15)
        #expect(mismatch.description == "f.yuv: 15 bytes is not a 4×2 YUYV frame (16 bytes expected)")
        #expect(throws: ImageError.rawFormatMissing(file: "g.grey")) {
            try load([1, 2, 3], name: "g.grey")
        }
        #expect(ImageError.rawFormatMissing(file: "g.grey").description.hasPrefix("g.grey: raw frame without a size"))
    }

    @Test func recognisedImagesWinOverTheRawFormatUnlessTheFileIsRaw() throws {
        let pgm = ascii("P5\n2 1\n255\n") + [7, 9]
        // A .pgm in a frame folder is still a PGM…
        #expect(try load(pgm, name: "x.pgm", rawFormat: .y800(width: 13, height: 1)).format == .pgm)
        // …but a .y800 file is raw whatever its first bytes look like.
        let raw = try load(pgm, name: "x.y800", rawFormat: .y800(width: 13, height: 1))
        #expect(raw.format == .raw && raw.pixels == pgm)
    }

    @Test func supportedExtensions() {
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/IMG_1.JPG")))
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/a.jpeg")))
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/a.Png")))
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/a.pgm")))
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/a.ppm")))
        #expect(!ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/a.gif")))
        #expect(!ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/notes.txt")))
        #expect(!ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/frame.yuv")))
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/frame.yuv"), rawFormat: .yuyv(width: 2, height: 2)))
        #expect(ImageLoader.isSupportedImage(URL(fileURLWithPath: "/p/frame.Y800"), rawFormat: .y800(width: 2, height: 2)))
    }
}
