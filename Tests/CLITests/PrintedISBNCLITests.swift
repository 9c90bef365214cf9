import Foundation
import ImageTestSupport
import Imaging
import Testing
import TestSupport

/// `decode` reading the ISBN printed on a book whose bars are painted out: the real binary,
/// real Tesseract, a real photo (../shared) painted in the test.
@Suite(.serialized) struct PrintedISBNCLITests {
    /// zxing-ean13-3/10.png (240×240): "ISBN 0-596-00857-0" above the bars, the bars, then
    /// "9 780596 008574" under them. These rectangles paint the parts out with paper white.
    static let source = "barcodes/zxing-ean13-3/10.png"
    static let bars = (x0: 28, y0: 90, x1: 205, y1: 171)
    static let digitLine = (x0: 20, y0: 171, x1: 215, y1: 195)
    static let isbnLine = (x0: 20, y0: 60, x1: 215, y1: 90)

    static func painted(_ rectangles: [(x0: Int, y0: Int, x1: Int, y1: Int)], to file: URL) throws {
        let image = try ImageLoader.load(contentsOf: try SharedFiles.requireImage(source)).image
        var pixels = image.pixels
        for r in rectangles {
            for y in r.y0..<min(image.height, r.y1) { for x in r.x0..<min(image.width, r.x1) { pixels[y * image.width + x] = 235 } }
        }
        try ImageEncoder.pngData(GrayImage(width: image.width, height: image.height, pixels: pixels)).write(to: file)
    }

    @Test func aBookBackWithoutBarsIsReadFromItsPrintedISBN() async throws {
        try await withTemporaryDirectory { folder in
            try Self.painted([Self.bars], to: folder.appendingPathComponent("no-bars.png"))
            let json = try await runRapidScan(["decode", "--json", "no-bars.png"], currentDirectory: folder)
            #expect(json.status == 0, "stderr: \(json.stderr)")
            let code = try #require(json.jsonLines.first { $0["event"] as? String == "code" }, "\(json.stdout)")
            #expect(code["symbology"] as? String == "printed")
            #expect(code["isbn13"] as? String == "9780596008574")
            #expect(code["valid"] as? Bool == true)

            let text = try await runRapidScan(["decode", "no-bars.png"], currentDirectory: folder)
            #expect(text.stdoutLines == ["no-bars.png: printed 9780596008574 (ISBN 978-0-596-00857-4)"])
            // At fast effort only bars are read.
            let fast = try await runRapidScan(["decode", "--fast", "--json", "no-bars.png"], currentDirectory: folder)
            #expect(fast.jsonLines.first?["event"] as? String == "noCode")
        }
    }

    /// `scan` takes the printed ISBN through the intake like a barcode: offline it is queued,
    /// the JSON line names `symbology: "printed"`, and `pending` holds it for `pending retry`.
    @Test func scanQueuesAPrintedISBNThroughTheIntake() async throws {
        let harness = try CLIHarness()
        let folder = harness.directory.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.painted([Self.bars], to: folder.appendingPathComponent("no-bars.png"))
        let result = try await harness.run(["scan", "--json", "--offline", folder.path])
        #expect(result.status == 3, "stderr: \(result.stderr)")
        let queued = try #require(result.events("queued").first, "\(result.stdout)")
        #expect(queued["isbn13"] as? String == "9780596008574")
        #expect(queued["symbology"] as? String == "printed")
        #expect(queued["source"] as? String == "offline")
        let pending = try await harness.run(["pending", "--json"])
        #expect(pending.stdout.contains("9780596008574"), "\(pending.stdout) \(pending.stderr)")
    }

    @Test func aPhotoWithItsISBNPaintedOutToo_yieldsNothing() async throws {
        try await withTemporaryDirectory { folder in
            try Self.painted([Self.bars, Self.digitLine, Self.isbnLine], to: folder.appendingPathComponent("trap.png"))
            let json = try await runRapidScan(["decode", "--json", "trap.png"], currentDirectory: folder)
            #expect(json.status == 4, "stderr: \(json.stderr)")
            #expect(json.jsonLines.map { $0["event"] as? String } == ["noCode", "summary"], "\(json.stdout)")
        }
    }
}
