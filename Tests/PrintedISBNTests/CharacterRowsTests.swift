import BarcodeReading
import Foundation
import ImageTestSupport
import Imaging
import Testing
import TestSupport
@testable import PrintedISBN

/// The cheap look for a row like an ISBN line that decides whether a codeless photo's page is
/// read at normal effort, on real photos.
@Suite(.serialized) struct CharacterRowsTests {
    /// A real photo with no row of character-sized marks (zxing-cpp's false-positive set).
    static let photoWithoutText = "barcodes/zxingcpp-falsepositives-1/16.png"

    @Test func aBookBackWithItsBarsPaintedOutHoldsARow() throws {
        for paint in [PaintedBookBacks.Paint.bars, .barsAndDigits] {
            let image = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", paint)
            #expect(CharacterRows.holdsNumberLikeRow(image), "\(paint)")
        }
    }

    /// A back with its bars painted out still holds a row the stricter gate takes for a possible ISBN line.
    @Test func aBookBackHoldsACandidateRow() throws {
        for paint in [PaintedBookBacks.Paint.bars, .barsAndDigits] {
            let image = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", paint)
            #expect(!CharacterRows.isbnLineCandidates(CharacterRows.survey(image)).isEmpty, "\(paint)")
        }
    }

    /// Bars (an unread code's, a shelf's stripes) make a row of even marks too, but thin ones: no ISBN line.
    @Test func aRowOfBarsIsNoCandidate() {
        let width = 400, height = 600
        var pixels = [UInt8](repeating: 230, count: width * height)
        for bar in 0..<24 { for y in 260..<340 { for x in (40 + bar * 13)..<(40 + bar * 13 + 4) { pixels[y * width + x] = 20 } } }
        let survey = CharacterRows.survey(GrayImage(width: width, height: height, pixels: pixels))
        #expect(survey.longest.marks >= CharacterRows.minimumRowLength)
        #expect(CharacterRows.isbnLineCandidates(survey).isEmpty)
    }

    @Test func aPhotoWithoutLetteringHoldsNone() throws {
        let image = try ImageLoader.load(contentsOf: SharedFiles.requireImage(Self.photoWithoutText)).image
        #expect(!CharacterRows.holdsNumberLikeRow(image))
        let flat = GrayImage(width: 400, height: 300, pixels: [UInt8](repeating: 180, count: 400 * 300))
        #expect(!CharacterRows.holdsNumberLikeRow(flat))
    }

    @Test func normalEffortReadsNoPageWithoutARowThoroughStillDoes() throws {
        let reader = try PrintedISBNReader()
        let image = try ImageLoader.load(contentsOf: SharedFiles.requireImage(Self.photoWithoutText)).image
        let normal = reader.read(image, budget: .forEffort(.normal)!)
        #expect(normal.pageSkipped)
        #expect(normal.accepted.isEmpty)
        #expect(!reader.read(image, budget: .forEffort(.thorough)!).pageSkipped)
        // A back whose ISBN line is there is still read at normal effort.
        let back = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .bars)
        let read = reader.read(back, budget: .forEffort(.normal)!)
        #expect(!read.pageSkipped)
        #expect(read.accepted.map(\.isbn.digits).contains("9780596008574"))
    }
}
