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

    /// The digit line under painted-out bars ("9 \"780764\"544200\"") is one row across the
    /// guard-bar stubs between its groups, half a digit tall: they split it into runs too short
    /// for a row, and the back had none (stop 42).
    @Test func theDigitLineUnderPaintedBarsIsOneRowAcrossItsGuardStubs() throws {
        let image = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/01.png", .bars)
        let candidates = CharacterRows.isbnLineCandidates(CharacterRows.survey(image))
        let line = try #require(candidates.first { $0.box.y0 >= 160 && $0.box.y1 <= 190 }, "\(candidates)")
        #expect(line.box.x0 < 25 && line.box.x1 > 190, "\(line)")
        #expect(line.marks >= 13)
    }

    /// A white sticker over the bars makes the paper along its edge darker than the mean of a
    /// window reaching over the sticker; that paper is no ink, so the ISBN line just above the
    /// edge stays a row of its own characters (it was one long mark with the edge: no row, stop 38),
    /// and the row look reads it.
    @Test func anISBNLineAboveAWhiteStickerIsACandidateRowTheLookReads() throws {
        let image = try PaintedBookBacks.stickered()
        let candidates = CharacterRows.isbnLineCandidates(CharacterRows.survey(image))
        let line = try #require(candidates.first { $0.box.y0 >= 74 && $0.box.y1 <= 92 }, "\(candidates)")
        #expect(line.marks >= 12)
        #expect(line.box.x0 < 40 && line.box.x1 > 190)
        let reader = try PrintedISBNReader()
        #expect(reader.firstRowShowingAnISBN(candidates.prefix(4), in: image) != nil)
    }

    /// The same back at half its size: its rows' marks are under 9 px, where no row looked at
    /// showed an ISBN-like run (stop 43): rows, no candidate.
    @Test func rowsOfMarksUnderNinePixelsAreNoCandidates() throws {
        let back = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .bars)
        #expect(CharacterRows.isbnLineCandidates(CharacterRows.survey(back)).allSatisfy { $0.markHeight >= 9 })
        let survey = CharacterRows.survey(back.downscaled(by: 2))
        #expect(!survey.rows.isEmpty)
        #expect(survey.rows.allSatisfy { $0.markHeight < 9 }, "\(survey.rows)")
        #expect(CharacterRows.isbnLineCandidates(survey).isEmpty)
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

    /// Ten letter-shaped marks (hollow boxes 0.6 of their height wide) side by side, `height` tall.
    static func lettering(height: Int, onPhotoOf width: Int, _ photoHeight: Int) -> GrayImage {
        var pixels = [UInt8](repeating: 225, count: width * photoHeight)
        let markWidth = height * 6 / 10, stroke = max(2, height / 8), top = photoHeight / 2 - height / 2
        for mark in 0..<10 {
            let left = width / 10 + mark * (markWidth + height / 3)
            for y in top..<(top + height) {
                for x in left..<(left + markWidth) {
                    let edge = y - top < stroke || top + height - 1 - y < stroke || x - left < stroke || left + markWidth - 1 - x < stroke
                    if edge { pixels[y * width + x] = 25 }
                }
            }
        }
        return GrayImage(width: width, height: photoHeight, pixels: pixels)
    }

    /// A row of big lettering (a title, a shelf label: the busy phone photos the gate let through had
    /// only rows of 320–400 px marks on 3000 px) is no ISBN line; the same row as small print is.
    @Test func letteringTallerThanATwelfthOfThePhotoIsNoCandidate() {
        let big = CharacterRows.survey(Self.lettering(height: 360, onPhotoOf: 4000, 3000))
        #expect(big.longest.marks >= CharacterRows.minimumRowLength)
        #expect(CharacterRows.isbnLineCandidates(big).isEmpty)
        let small = CharacterRows.survey(Self.lettering(height: 160, onPhotoOf: 4000, 3000))
        #expect(CharacterRows.isbnLineCandidates(small).count == 1)
    }

    /// The window means the survey thresholds against (running sums, one division by a
    /// multiplication inside the border) are the same integers as the definition's, window by
    /// window: each pixel's whole window and its four halves, cut at the image's edges, on a real
    /// back (bars painted out) halved, and on a strip of it narrower and shorter than the window.
    @Test func windowMeansAreTheDefinitionsPixelByPixel() throws {
        let back = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .bars).halved(x: 0, y: 0, width: .max, height: .max)
        let strip = back.halved(x: 40, y: 30, width: 60, height: 28)
        for (image, radius) in [(back, 8), (back, 11), (strip, 8), (strip, 40)] {
            let w = image.width, h = image.height
            func mean(_ top: Int, _ bottom: Int, _ left: Int, _ right: Int) -> Int {
                var sum = 0
                for y in top..<bottom { for x in left..<right { sum += Int(image[x, y]) } }
                return sum / ((bottom - top) * (right - left))
            }
            var whole: [UInt8] = [], paperSide: [UInt8] = []
            for y in 0..<h {
                for x in 0..<w {
                    let top = max(0, y - radius), bottom = min(h, y + radius + 1)
                    let left = max(0, x - radius), right = min(w, x + radius + 1)
                    whole.append(UInt8(mean(top, bottom, left, right)))
                    paperSide.append(UInt8(min(mean(top, y + 1, left, right), mean(y, bottom, left, right),
                                               mean(top, bottom, left, x + 1), mean(top, bottom, x, right))))
                }
            }
            #expect(CharacterRows.boxMeans(image, radius: radius) == whole, "\(w)×\(h), radius \(radius)")
            #expect(CharacterRows.boxMeans(image, radius: radius, paperSide: true) == paperSide, "\(w)×\(h), radius \(radius)")
        }
        // The multiplication is the division wherever a window's sum can fall.
        for divisor in [81, 90, 289, 300, 780, 3_081] {
            let reciprocal = CharacterRows.Reciprocal(divisor)
            #expect((0...255 * divisor).allSatisfy { reciprocal.divide($0) == $0 / divisor }, "\(divisor)")
        }
    }

    /// A large photo's gate looks at the scanner's 1/4 copy (`FollowUpPixels.reduced`), not 12 MP
    /// reduced again: the same rows, in the full photo's pixels.
    @Test func theScannersReducedCopyGivesTheFullPhotosSurvey() throws {
        for height in [160, 360] {
            let photo = Self.lettering(height: height, onPhotoOf: 4000, 3000)
            let full = CharacterRows.survey(photo)
            let fromCopy = try #require(CharacterRows.survey(reducedCopy: photo.downscaled(by: 4), factor: 4))
            #expect(fromCopy.imageHeight == full.imageHeight)
            #expect(fromCopy.rows.map(\.marks) == full.rows.map(\.marks))
            #expect(fromCopy.rows.map(\.box) == full.rows.map(\.box))
            #expect(CharacterRows.isbnLineCandidates(fromCopy).count == CharacterRows.isbnLineCandidates(full).count)
        }
        // A copy reduced more than the survey's own reduction is not used.
        #expect(CharacterRows.survey(reducedCopy: GrayImage(width: 1000, height: 125, pixels: [UInt8](repeating: 200, count: 125_000)),
                                     factor: 4) == nil)
    }

    /// A scene full of small print has rows like an ISBN line, but none of its evenest four, read
    /// alone, shows an ISBN-like run: its page is not read at normal effort (thorough still reads
    /// it); a back's ISBN line is among its first rows, and its page is read.
    @Test func aSceneWithoutAnISBNInItsRowsIsNotReadABackIs() throws {
        let reader = try PrintedISBNReader()
        let scene = try ImageLoader.load(contentsOf: SharedFiles.requireImage("barcodes/zxingcpp-falsepositives-1/01.png")).image
        let candidates = CharacterRows.isbnLineCandidates(CharacterRows.survey(scene))
        #expect(candidates.count > 4)
        #expect(reader.firstRowShowingAnISBN(candidates.prefix(4), in: scene) == nil)
        let normal = reader.read(scene, budget: .forEffort(.normal)!)
        #expect(normal.pageSkipped)
        #expect(normal.accepted.isEmpty)
        #expect(!reader.read(scene, budget: .forEffort(.thorough)!).pageSkipped)
        let back = try PaintedBookBacks.painted("barcodes/zxing-ean13-3/10.png", .barsAndDigits)
        let rows = CharacterRows.isbnLineCandidates(CharacterRows.survey(back))
        #expect(reader.firstRowShowingAnISBN(rows.prefix(4), in: back) != nil)
        let read = reader.read(back, budget: .forEffort(.normal)!)
        #expect(!read.pageSkipped)
        #expect(read.accepted.map(\.isbn.digits) == ["9780596008574"])
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
