import Testing
import Imaging

@Suite struct GrayImageOperationsTests {
    /// 200×60: the left half a dark ground (90) with dark strokes (30), the right half a light
    /// ground (220) with gray strokes (160). The right strokes are lighter than the left ground,
    /// so no one global threshold makes both strokes ink and both grounds paper.
    func twoGrounds() -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: 200 * 60)
        for y in 0..<60 {
            for x in 0..<200 {
                let stroke = y >= 15 && y < 45 && x % 20 >= 8 && x % 20 < 12
                pixels[y * 200 + x] = x < 100 ? (stroke ? 30 : 90) : (stroke ? 160 : 220)
            }
        }
        return GrayImage(width: 200, height: 60, pixels: pixels)
    }

    @Test func sauvolaMakesStrokesInkOnADarkAndOnALightGround() {
        let image = twoGrounds()
        let binary = image.sauvolaBinarized(radius: 15)
        #expect(Set(binary.pixels).isSubset(of: [0, 255]))
        for (x, y) in [(10, 30), (50, 20), (130, 30), (170, 40)] {
            #expect(binary[x, y] == 0, "stroke at \(x),\(y) (gray \(image[x, y])) should be ink")
        }
        for (x, y) in [(4, 30), (55, 5), (124, 30), (165, 55)] {
            #expect(binary[x, y] == 255, "ground at \(x),\(y) (gray \(image[x, y])) should be paper")
        }
    }

    /// After normalising, one threshold (128) splits both grounds' strokes from their ground:
    /// the right strokes are lighter than the left ground, and are still ink.
    @Test func contrastNormalizingLetsOneThresholdSplitBothGrounds() {
        let image = twoGrounds()
        let normalized = image.contrastNormalized(radius: 15)
        for (x, y) in [(10, 30), (50, 20), (130, 30), (170, 40)] {
            #expect(normalized[x, y] < 100, "stroke at \(x),\(y) (gray \(image[x, y])) is \(normalized[x, y])")
        }
        for (x, y) in [(4, 30), (55, 25), (124, 30), (165, 35)] {
            #expect(normalized[x, y] > 150, "ground at \(x),\(y) (gray \(image[x, y])) is \(normalized[x, y])")
        }
        // A flat image stays mid-gray: no noise blown up into ink (the deviation floor).
        let flat = GrayImage(width: 50, height: 20, pixels: (0..<1000).map { UInt8(70 + $0 % 3) })
        #expect(flat.contrastNormalized(radius: 8).pixels.allSatisfy { abs(Int($0) - 128) < 20 })
    }

    @Test func aFlatImageIsAllPaper() {
        let flat = GrayImage(width: 50, height: 20, pixels: [UInt8](repeating: 70, count: 1000))
        #expect(flat.sauvolaBinarized(radius: 8).pixels.allSatisfy { $0 == 255 })
    }

    @Test func inkAlongTheTopAndBottomIsClearedButLettersStay() {
        // 120×30 black and white: a dark band along the top (a spine's edge), a short blob
        // touching the bottom (a big letter reaching the edge), a blob in the middle.
        var pixels = [UInt8](repeating: 255, count: 120 * 30)
        for y in 0..<4 { for x in 0..<120 { pixels[y * 120 + x] = 0 } }
        for y in 20..<30 { for x in 10..<25 { pixels[y * 120 + x] = 0 } }
        for y in 10..<20 { for x in 60..<70 { pixels[y * 120 + x] = 0 } }
        let cleared = GrayImage(width: 120, height: 30, pixels: pixels).clearingInkAlongTopAndBottom(longerThan: 45)
        #expect((0..<120).allSatisfy { cleared[$0, 1] == 255 }, "the band along the top is cleared")
        #expect(cleared[15, 25] == 0 && cleared[15, 29] == 0, "the short blob at the bottom stays")
        #expect(cleared[65, 15] == 0, "the blob in the middle stays")
    }

    @Test func aLetterTouchingTheLongBandGoesWithIt() {
        // Ink joined to the edge band is one region with it: gone, which is why a strip's band
        // must be cleared rather than left to swallow the letters beside it.
        var pixels = [UInt8](repeating: 255, count: 100 * 20)
        for x in 0..<100 { pixels[x] = 0 }
        for y in 0..<12 { pixels[y * 100 + 50] = 0 }
        let cleared = GrayImage(width: 100, height: 20, pixels: pixels).clearingInkAlongTopAndBottom(longerThan: 30)
        #expect(cleared.pixels.allSatisfy { $0 == 255 })
    }

    @Test func croppingClipsToTheImage() {
        let image = GrayImage(width: 4, height: 3, pixels: Array(0..<12))
        let inside = image.cropped(x: 1, y: 1, width: 2, height: 2)
        #expect(inside.width == 2 && inside.height == 2 && inside.pixels == [5, 6, 9, 10])
        let overhanging = image.cropped(x: 3, y: -1, width: 5, height: 2)
        #expect(overhanging.width == 1 && overhanging.height == 1 && overhanging.pixels == [3])
        #expect(image.cropped(x: 9, y: 9, width: 2, height: 2).pixels.isEmpty)
    }

    @Test func histogramLevelsAndPadding() {
        let image = GrayImage(width: 3, height: 1, pixels: [0, 7, 7])
        #expect(image.histogram[7] == 2 && image.histogram[0] == 1 && image.histogram.reduce(0, +) == 3)
        let inverted = image.mapped((0..<256).map { UInt8(255 - $0) })
        #expect(inverted.pixels == [255, 248, 248])
        let padded = image.padded(by: 2, value: 200)
        #expect(padded.width == 7 && padded.height == 5)
        #expect(padded[2, 2] == 0 && padded[4, 2] == 7 && padded[0, 0] == 200 && padded[6, 4] == 200)
    }
}
