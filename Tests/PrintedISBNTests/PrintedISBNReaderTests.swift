import BarcodeReading
import BookCodes
import Foundation
import ImageTestSupport
import Imaging
import Testing
import TestSupport
@testable import PrintedISBN

/// Real Tesseract on real book-back photos whose bars were painted out.
@Suite(.serialized) struct PrintedISBNReaderTests {
    static let budget = PrintedISBNReader.Budget.forEffort(.normal)!

    @Test func readsTheISBNLineAndDigitsWhenTheBarsArePaintedOut() throws {
        let reader = try PrintedISBNReader()
        let image = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .bars)
        if let folder = ProcessInfo.processInfo.environment["PRINTED_ISBN_DEBUG"] {
            try ImageEncoder.pngData(image).write(to: URL(fileURLWithPath: folder + "/bars.png"))
        }
        let reading = reader.read(image, budget: Self.budget)
        #expect(Set(reading.accepted.map(\.isbn.digits)) == ["9780596008574"])
    }

    @Test func readsTheISBNLineAloneWhenTheDigitsArePaintedOutToo() throws {
        let reader = try PrintedISBNReader()
        let image = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .barsAndDigits)
        if let folder = ProcessInfo.processInfo.environment["PRINTED_ISBN_DEBUG"] {
            try ImageEncoder.pngData(image).write(to: URL(fileURLWithPath: folder + "/digits.png"))
        }
        let reading = reader.read(image, budget: Self.budget)
        #expect(reading.accepted.map(\.isbn.digits).allSatisfy { $0 == "9780596008574" })
        #expect(!reading.accepted.isEmpty)
    }

    /// A back with no "ISBN" line: its digit line under the painted-out bars, guard-bar stubs
    /// between the groups, is read as digits alone and two readings agree (stop 42; the page
    /// pass read it "9 \"780764\"5442UU\"" and similar, nothing).
    @Test func readsTheDigitLineUnderPaintedBarsAsDigits() throws {
        let reader = try PrintedISBNReader()
        let image = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/01.png", .bars)
        #expect(reader.read(image, budget: Self.budget).accepted.map(\.isbn.digits) == ["9780764544200"])
    }

    /// Guard-bar stubs (thin, ending above the text's foot) are erased before a line is read; a
    /// "1" of the same width reaching the foot is kept.
    @Test func stubsAreErasedAndAOneIsKept() {
        var pixels = [UInt8](repeating: 255, count: 40 * 30)
        for y in 5..<15 { pixels[y * 40 + 10] = 0; pixels[y * 40 + 11] = 0 }  // a stub: rows 5–14
        for y in 5..<26 { pixels[y * 40 + 30] = 0; pixels[y * 40 + 31] = 0 }  // a "1": rows 5–25
        let line = GrayImage(width: 40, height: 30, pixels: pixels)
        let stubs = Set(line.stubPixels(endingAbove: 22))
        #expect(stubs.contains(5 * 40 + 10) && stubs.contains(14 * 40 + 11))
        #expect(!stubs.contains(5 * 40 + 30) && !stubs.contains(25 * 40 + 31))
    }

    @Test func aPhotoWithTheISBNPaintedOutGivesNothing() throws {
        let reader = try PrintedISBNReader()
        let image = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .everything)
        #expect(reader.read(image, budget: Self.budget).accepted.isEmpty)
    }

    /// At normal effort the page is read at the scale that sets the gate's row near Tesseract's
    /// best height, never below the photo's own size and never above the budget's pixels.
    @Test func thePageIsScaledByTheRowTheGateFound() throws {
        let small = GrayImage(width: 240, height: 240, pixels: [UInt8](repeating: 200, count: 240 * 240))
        let pixels = PrintedISBNReader.pagePixels(setting: 14, in: small)
        #expect(pixels > 240 * 240 * 6 && pixels < 240 * 240 * 7)  // (36 / 14)² ≈ 6.6
        #expect(PrintedISBNReader.pagePixels(setting: 60, in: small) == 240 * 240)
        #expect(PrintedISBNReader.pagePixels(setting: 1, in: small) == 240 * 240 * 64)
        // The painted back (its row read at this scale) still gives its ISBN: readsTheISBNLine… above.
        let back = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .bars)
        let row = CharacterRows.longestRow(in: back)
        #expect(PrintedISBNReader.pagePixels(setting: row.markHeight, in: back) < Self.budget.pageScales[0])
    }

    @Test func theDigitLineWitnessesTheBars() throws {
        let reader = try PrintedISBNReader()
        let url = try SharedFiles.requireImage("barcodes/zxing-ean13-3/10.png")
        let image = try ImageLoader.load(contentsOf: url).image
        let scan = try FileScanner().scan(fileAt: url)
        let code = try #require(scan.codes.first)
        #expect(reader.digitLines(around: code.bounds, in: image).contains("9780596008574"))
    }
    /// One engine reads digits (the witness: whitelist digits only) and text (the row look:
    /// any character) in turn: after a witness reading the look still reads the ISBN line's
    /// label, and after the look the witness still reads the digits.
    @Test func oneEngineReadsDigitsThenTextThenDigits() throws {
        let reader = try PrintedISBNReader()
        let url = try SharedFiles.requireImage("barcodes/zxing-ean13-3/10.png")
        let image = try ImageLoader.load(contentsOf: url).image
        let code = try #require(try FileScanner().scan(fileAt: url).codes.first)
        #expect(reader.digitLines(around: code.bounds, in: image).contains("9780596008574"))
        let back = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .bars)
        let rows = CharacterRows.isbnLineCandidates(CharacterRows.survey(back)).prefix(4)
        #expect(rows.contains { reader.firstRowShowingAnISBNOrLabel([$0], in: back)?.label == true })
        #expect(reader.digitLines(around: code.bounds, in: image).contains("9780596008574"))
    }
}
