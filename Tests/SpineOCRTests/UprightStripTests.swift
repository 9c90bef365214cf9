import Foundation
import Imaging
import Testing
import TestSupport
@testable import SpineOCR

/// Strips no turn reads: letters stacked upright down the spine, words across a wide one.
@Suite struct UprightStripTests {
    /// A light spine (x 100..<170) with `letters` hollow dark boxes, 44×54, one under another
    /// 14 px apart from y = 120: stacked upright letters as far as the finder can tell.
    func stackedStrip(letters: Int) -> (GrayImage, SpineStrip) {
        let (width, height) = (300, 900)
        var pixels = [UInt8](repeating: 30, count: width * height)
        for y in 40..<860 { for x in 100..<170 { pixels[y * width + x] = 210 } }
        for letter in 0..<letters {
            let top = 120 + letter * 68
            for y in top..<top + 54 {
                for x in 113..<157 where y < top + 7 || y >= top + 47 || x < 120 || x >= 150 { pixels[y * width + x] = 40 }
            }
        }
        let box = Box(x0: 100, y0: 40, x1: 170, y1: 860)
        return (GrayImage(width: width, height: height, pixels: pixels), SpineStrip(box))
    }

    @Test func aColumnOfLettersIsSetSideBySideInOneLine() throws {
        let (image, strip) = stackedStrip(letters: 6)
        let line = try #require(StackedLetters.line(image, strip: strip, letterHeight: 48))
        // Six letters 54 px tall scaled to 48, side by side: a line far wider than tall.
        #expect(line.width > 4 * line.height, "\(line.width)×\(line.height)")
        // Dark letters on white: the background became white, each letter's ink is there.
        #expect(line.pixels.filter { $0 > 200 }.count * 2 > line.pixels.count)
        let middle = line.height / 2
        let inkRuns = (1..<line.width).filter { line[$0, middle] < 100 && line[$0 - 1, middle] >= 100 }.count
        #expect(inkRuns >= 6 * 2, "\(inkRuns) ink runs across the middle (two sides of six boxes)")
    }

    @Test func threeLettersOrOneLongBlobAreNoColumn() {
        #expect(StackedLetters.line(stackedStrip(letters: 3).0, strip: stackedStrip(letters: 3).1) == nil)
        // A title along the spine, turned: one long band of ink down the middle.
        var (image, strip) = stackedStrip(letters: 0)
        var pixels = image.pixels
        for y in 120..<700 { for x in 120..<150 { pixels[y * image.width + x] = 40 } }
        image = GrayImage(width: image.width, height: image.height, pixels: pixels)
        strip = SpineStrip(strip.box)
        #expect(StackedLetters.line(image, strip: strip) == nil)
    }

    /// Real bytes: two spines of a real shelf that no turn reads, "ERAGON" in stacked upright
    /// letters and "ONE / OF US / IS / LYING" across its spine, each read only upright.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func unreadStripsAreReadAsTheyStand() throws {
        try SharedFiles.requireShared()
        let name = "minhan_img1346_top_shelf.jpg"
        let url = try #require(SharedFiles.fixture("shelves/\(name)"), "\(SharedFiles.missingMessage)")
        var off = TesseractOptions(deadlineMilliseconds: 0)
        off.readsStackedLetters = false
        off.readsUnreadStripsUpright = false
        let ocr = try ShelfOCR(options: TesseractOptions(deadlineMilliseconds: 0))
        let turnsOnly = try ShelfOCR(options: off)
        let image = try ocr.workingImage(ocr.decode(data: Data(contentsOf: url), name: name), name: name)
        let strips = SpineStrips.spineStrips(in: image)
        let engine = try TesseractEngine(options: ocr.options)
        for (x, title) in [(2900, "ERAGON"), (1340, "LYING")] {
            let strip = try #require(strips.first { $0.box.x0 <= x && x < $0.box.x1 }, "no strip at x \(x): \(strips.map(\.box))")
            let texts = { (reader: ShelfOCR) in
                reader.readStrip(strip, in: image, rotations: [.clockwise270, .clockwise90], engine: engine, overBudget: { false })
                    .compactMap { reader.stripSpine($0) }.map(\.text)
            }
            let turned = texts(turnsOnly), all = texts(ocr)
            #expect(!turned.contains { $0.uppercased().contains(title) }, "turned: \(turned)")
            #expect(all.contains { $0.uppercased().contains(title) }, "with the upright read: \(all)")
        }
        #expect(StackedLetters.line(image, strip: try #require(strips.first { $0.box.x0 <= 1340 && 1340 < $0.box.x1 })) == nil,
                "words across a spine are no stacked letters")
    }
}
