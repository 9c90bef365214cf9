import Foundation
import ImageTestSupport
import Testing
import TestSupport
@testable import Imaging

/// Every bad file gives an ImageError whose message names the file and says what is wrong.
@Suite struct BadInputTests {
    private func expectError(_ url: URL, options: ImageLoadOptions = .init(), file: String? = nil,
                             _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let loaded = try ImageLoader.load(contentsOf: url, options: options)
            Issue.record("loaded \(loaded.image.width)×\(loaded.image.height) instead of failing",
                         sourceLocation: sourceLocation)
        } catch {
            let name = file ?? url.path
            #expect(error.file == name, sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix("\(name): "), sourceLocation: sourceLocation)
            #expect(error.reason.contains(reason), "\(error.description)", sourceLocation: sourceLocation)
        }
    }

    private func sampleJPEG() throws -> [UInt8] {
        let image = GrayImage(width: 64, height: 64, pixels: (0..<4096).map { UInt8(($0 * 31) % 251) })
        return try TestImages.jpeg(image, quality: 90)
    }

    @Test func zeroByteFile() throws {
        let folder = try TemporaryFolder()
        expectError(try folder.write([], to: "empty.jpg"), "empty file (0 bytes)")
        #expect(throws: ImageError.emptyFile(file: "mem.png")) {
            try ImageLoader.load(data: Data(), name: "mem.png")
        }
    }

    @Test func truncatedJPEGIsAnError() throws {
        let folder = try TemporaryFolder()
        let jpeg = try sampleJPEG()
        expectError(try folder.write(Array(jpeg.prefix(jpeg.count / 2)), to: "x.jpg"),
                    "truncated JPEG (Premature end of JPEG file)")
        // Cut inside the header: libjpeg gives up before any pixel.
        expectError(try folder.write(Array(jpeg.prefix(30)), to: "head.jpg"), "JPEG (")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func truncatedRealJPEG() throws {
        let url = try SharedFiles.requireImage("barcodes/zxingcpp-falsepositives-1/MQR-falsepositive.jpg")
        let folder = try TemporaryFolder()
        let bytes = try [UInt8](Data(contentsOf: url))
        expectError(try folder.write(Array(bytes.prefix(bytes.count * 2 / 3)), to: "cut.jpg"),
                    "truncated JPEG (Premature end of JPEG file)")
    }

    @Test func corruptJPEGData() throws {
        let folder = try TemporaryFolder()
        var jpeg = try sampleJPEG()
        // Overwrite the start of frame with garbage: a marker libjpeg cannot accept.
        if let sof = (0..<jpeg.count - 1).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) {
            jpeg[sof + 4] = 0           // 0-bit precision
        }
        expectError(try folder.write(jpeg, to: "bad.jpg"), "corrupt JPEG (")
    }

    @Test func truncatedPNG() throws {
        let folder = try TemporaryFolder()
        let rows = (0..<40).map { y in (0..<40).map { x in UInt8((x * y) % 256) } }
        let png = PNGWriter.png(width: 40, height: 40, colorType: .gray, rows: rows)
        expectError(try folder.write(Array(png.prefix(png.count / 2)), to: "scan.png"), "truncated PNG (")
        expectError(try folder.write(Array(png.prefix(20)), to: "stub.png"), "PNG (")
    }

    @Test func textFileNamedJPEG() throws {
        let folder = try TemporaryFolder()
        expectError(try folder.write(Array("Hello world, this is not a photo".utf8), to: "cover.jpg"),
                    "not an image (starts with 'Hello wor')")
        expectError(try folder.write([0x00, 0x01, 0xFE, 0x41], to: "blob.jpg"),
                    "not an image (starts with bytes 0x00 0x01 0xFE 0x41)")
    }

    @Test func overThePixelLimitFailsBeforeDecoding() throws {
        let folder = try TemporaryFolder()
        // Headers claiming 50000×50000 with no pixel data behind them: a decoder that
        // allocated or decoded first would fail differently (or run out of memory).
        expectError(try folder.write(PNGWriter.headerOnly(width: 50_000, height: 50_000), to: "big.png"),
                    "50000×50000 pixels is over the 100 MP limit")
        var jpeg = try sampleJPEG()
        let sof = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.replaceSubrange(sof + 5...sof + 8, with: [0xC3, 0x50, 0xC3, 0x50])   // 50000 × 50000
        let scan = try #require((sof..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        expectError(try folder.write(Array(jpeg.prefix(scan + 20)), to: "big.jpg"),
                    "50000×50000 pixels is over the 100 MP limit")
        expectError(try folder.write(Array("P5\n50000 50000\n255\n".utf8), to: "big.pgm"),
                    "50000×50000 pixels is over the 100 MP limit")
        // The limit is configurable.
        let small = try folder.write(try sampleJPEG(), to: "small.jpg")
        expectError(small, options: ImageLoadOptions(maxPixels: 4000), "64×64 pixels is over the 4000 pixel limit")
        #expect(try ImageLoader.load(contentsOf: small, options: ImageLoadOptions(maxPixels: 4096)).image.width == 64)
        expectError(try folder.write([UInt8](repeating: 1, count: 100), to: "f.y800"),
                    options: ImageLoadOptions(maxPixels: 50, rawFormat: .y800(width: 10, height: 10)),
                    "10×10 pixels is over the 50 pixel limit")
    }

    @Test func unsupportedFormats() throws {
        let folder = try TemporaryFolder()
        expectError(try folder.write(Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0], to: "x.gif"), "unsupported format GIF")
        var bmp = Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0] + [UInt8](repeating: 0, count: 36)
        bmp[2] = 54
        expectError(try folder.write(bmp, to: "scan.jpg"), "unsupported format BMP")
        expectError(try folder.write(Array("RIFF\0\0\0\0WEBPVP8 ".utf8), to: "w.webp"), "corrupt WebP (invalid bitstream)")
        expectError(try folder.write(Array("P4\n8 1\n".utf8) + [0xF0], to: "b.pbm"), "unsupported format PBM")
    }

    @Test func danglingSymbolicLink() throws {
        let folder = try TemporaryFolder()
        let link = folder.url.appendingPathComponent("link.jpg")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "gone.jpg")
        expectError(link, "cannot open (No such file or directory: dangling symbolic link)")
        expectError(folder.url.appendingPathComponent("missing.png"), "cannot open (No such file or directory)")
    }

    @Test func directoryPassedAsAFile() throws {
        let folder = try TemporaryFolder()
        let directory = folder.url.appendingPathComponent("photos.jpg", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        expectError(directory, "is a directory")
    }

    @Test func fifoIsRefusedWithoutWaitingForAWriter() throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appendingPathComponent("camera.jpg")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        expectError(fifo, "cannot open (not a regular file)")
    }

    @Test func relativePathsAreNamedAsGiven() throws {
        let folder = try TemporaryFolder()
        _ = try folder.write([], to: "empty.png")
        let relative = URL(fileURLWithPath: "empty.png", relativeTo: folder.url)
        expectError(relative, file: "empty.png", "empty file (0 bytes)")
    }
}
