import Foundation
import Imaging
import SpineMatching
import Testing
import TestSupport
import Vision
@testable import SpineOCR

/// Spine strips found in the pixels before OCR, and read one by one.
@Suite struct SpineStripTests {
    /// A shelf drawn from bands: spines of the given widths and grays side by side from
    /// x = 40, from y = 100 to 700 of an 1200×800 photo over a darker back wall, with noise.
    func shelf(widths: [Int], grays: [UInt8], tilt: Bool = false) -> GrayImage {
        let (width, height) = (1200, 800)
        var pixels = [UInt8](repeating: 40, count: width * height)
        var state: UInt32 = 7
        var x0 = 40
        for (index, spineWidth) in widths.enumerated() {
            for y in 100..<700 {
                // A leaning spine shifts one pixel every 150 rows.
                let shift = tilt && index % 2 == 0 ? (y - 100) / 150 : 0
                for x in x0 + shift..<min(width, x0 + spineWidth + shift) {
                    state = state &* 1_103_515_245 &+ 12345
                    pixels[y * width + x] = UInt8(clamping: Int(grays[index % grays.count]) + Int(state >> 29) - 4)
                }
            }
            x0 += spineWidth
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test func eachSpineIsOneStripAndNoStripCrossesASide() {
        let widths = [60, 45, 80, 52, 38, 70, 64, 90, 48, 55, 75, 60]
        let image = shelf(widths: widths, grays: [200, 90, 150, 60, 230, 120])
        let strips = SpineStrips.strips(in: image)
        // Every spine side (a running sum of widths) lies near a strip edge, and no strip holds two spines.
        var sides: [Int] = [40]
        for width in widths { sides.append(sides.last! + width) }
        #expect(strips.count >= widths.count - 1 && strips.count <= widths.count + 1, "\(strips.map { ($0.x0, $0.x1) })")
        for strip in strips {
            let inside = sides.filter { $0 > strip.x0 + 4 && $0 < strip.x1 - 4 }
            #expect(inside.isEmpty, "strip \(strip.x0)..<\(strip.x1) crosses \(inside)")
            #expect(strip.y0 <= 120 && strip.y1 >= 680, "strip rows \(strip.y0)..<\(strip.y1)")
        }
    }

    @Test func leaningSpinesStillSplit() {
        let widths = [60, 60, 60, 60, 60, 60, 60, 60]
        let strips = SpineStrips.strips(in: shelf(widths: widths, grays: [210, 70], tilt: true))
        #expect(strips.count >= 6, "\(strips.map { ($0.x0, $0.x1) })")
        #expect(strips.allSatisfy { $0.width < 100 })
    }

    /// Spines leaning one pixel in ten rows (6°): 60 px over the row, more than most spines'
    /// width apart, so an upright box's side runs through the next spine's title.
    func leaningShelf(widths: [Int], grays: [UInt8], lean: Double) -> GrayImage {
        let (width, height) = (1200, 800)
        var pixels = [UInt8](repeating: 40, count: width * height)
        var state: UInt32 = 11
        for y in 100..<700 {
            var x0 = 80 + Int((Double(y) - 400) * lean)
            for (index, spineWidth) in widths.enumerated() {
                for x in max(0, x0)..<min(width, x0 + spineWidth) {
                    state = state &* 1_103_515_245 &+ 12345
                    pixels[y * width + x] = UInt8(clamping: Int(grays[index % grays.count]) + Int(state >> 29) - 4)
                }
                x0 += spineWidth
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test(arguments: [0.1, -0.1]) func stripSidesFollowALean(_ lean: Double) {
        let widths = [70, 55, 90, 62, 75, 58, 84, 66, 72, 60]
        let image = leaningShelf(widths: widths, grays: [200, 90, 150, 60, 230, 120], lean: lean)
        var sides: [Int] = [80]
        for width in widths { sides.append(sides.last! + width) }
        let side = { (index: Int, y: Double) in Double(sides[index]) + (y - 400) * lean }
        for followsLean in [true, false] {
            let strips = SpineStrips.spineStrips(in: image, followsLean: followsLean)
            // Upright boxes cross the leaning sides at the row's ends; leaning strips do not.
            var crossing: [String] = []
            for strip in strips {
                for (at, y) in [(0.0, Double(strip.y0) + 30), (1.0, Double(strip.y1) - 30)] {
                    let fraction = (y - Double(strip.y0)) / Double(strip.height)
                    let left = strip.left(at: fraction), right = strip.right(at: fraction)
                    let inside = sides.indices.filter { side($0, y) > left + 6 && side($0, y) < right - 6 }
                    if !inside.isEmpty { crossing.append("\(strip.box.x0)..<\(strip.box.x1) at \(at): \(inside)") }
                }
            }
            if followsLean {
                #expect(strips.count >= widths.count - 2, "\(strips.map { ($0.box.x0, $0.box.x1, $0.leftTop, $0.leftBottom) })")
                #expect(crossing.isEmpty, "\(crossing)")
                #expect(strips.filter { !$0.isUpright }.count >= widths.count - 2)
            } else {
                // Upright, the sides are missed (one wide strip) or cut through.
                #expect(strips.count < widths.count - 2 || !crossing.isEmpty, "upright boxes fit leaning spines")
            }
        }
    }

    @Test func aLeaningStripIsStraightenedBeforeItIsTurned() {
        // A spine leaning 40 px over 400 rows with a dark mark along its axis: straightened
        // and turned 270°, the mark lies along one band across the strip, not slanting through it.
        var pixels = [UInt8](repeating: 30, count: 200 * 400)
        for y in 0..<400 {
            let shift = y / 10
            for x in 60 + shift..<120 + shift { pixels[y * 200 + x] = 220 }
            for x in 86 + shift..<94 + shift where y > 40 && y < 360 { pixels[y * 200 + x] = 20 }
        }
        let image = GrayImage(width: 200, height: 400, pixels: pixels)
        let strip = SpineStrip(y0: 0, y1: 400, leftTop: 60, leftBottom: 100, rightTop: 120, rightBottom: 160,
                               box: Box(x0: 80, y0: 0, x1: 140, y1: 400))
        let turned = SpineStrips.prepared(image, strip: strip, rotation: .clockwise270, across: 60...60)
        // Rows of the turned strip (across the spine) holding the mark, over its middle half.
        let columns = turned.width / 4..<turned.width * 3 / 4
        let markRows = (0..<turned.height).filter { row in columns.filter { turned[$0, row] < 100 }.count > columns.count * 9 / 10 }
        #expect(!markRows.isEmpty && markRows.max()! - markRows.min()! <= 12, "\(markRows)")
        let upright = SpineStrips.prepared(image, strip: Box(x0: 80, y0: 0, x1: 140, y1: 400), rotation: .clockwise270, across: 60...60)
        let uprightRows = (0..<upright.height).filter { row in columns.filter { upright[$0, row] < 100 }.count > columns.count * 9 / 10 }
        #expect(uprightRows.isEmpty, "the upright box's mark slants: \(uprightRows)")
    }

    @Test func aPhotoWithoutSpinesHasNoStrips() {
        // Smooth gradient: no long straight edges.
        let pixels = (0..<(1200 * 800)).map { UInt8(($0 % 1200) / 6) }
        #expect(SpineStrips.strips(in: GrayImage(width: 1200, height: 800, pixels: pixels)).isEmpty)
    }

    @Test func aStripIsTurnedUprightDarkOnLightAndScaled() {
        // A dark spine 30 px wide with a light mark near its top: turned 270° the top is the left.
        var pixels = [UInt8](repeating: 30, count: 100 * 400)
        for y in 20..<60 { for x in 40..<60 { pixels[y * 100 + x] = 240 } }
        let image = GrayImage(width: 100, height: 400, pixels: pixels)
        let prepared = SpineStrips.prepared(image, strip: Box(x0: 35, y0: 0, x1: 65, y1: 400), rotation: .clockwise270,
                                            across: 40...64)
        // 30 px across (less the insets) scaled up to 40, a 10 px margin each side.
        #expect(prepared.height == 40 + 20)
        #expect(prepared.width > prepared.height * 5)
        // Light text on a dark spine became dark on light: the background (most pixels) is light.
        let light = prepared.pixels.filter { $0 > 128 }.count
        #expect(light * 2 > prepared.pixels.count)
        // The mark (now dark) sits at the left end of the turned strip.
        let row = prepared.height / 2
        let darkColumns = (0..<prepared.width).filter { prepared[$0, row] < 100 }
        #expect(!darkColumns.isEmpty && darkColumns.max()! < prepared.width / 4, "\(darkColumns.prefix(5))")
    }

    /// A 100×400 image holding a spine in the box x 30..<66, prepared turned 270° at 40–64 px
    /// across: in gray (Tesseract's threshold) and by `binarization`, the same size.
    static func preparedStrips(_ pixels: [UInt8], _ binarization: StripBinarization) -> (gray: GrayImage, other: GrayImage) {
        let image = GrayImage(width: 100, height: 400, pixels: pixels)
        let box = Box(x0: 30, y0: 0, x1: 66, y1: 400)
        let gray = SpineStrips.prepared(image, strip: box, rotation: .clockwise270, across: 40...64)
        let other = SpineStrips.prepared(image, strip: box, rotation: .clockwise270, across: 40...64, binarization: binarization)
        #expect(gray.width == other.width && gray.height == other.height)
        return (gray, other)
    }

    @Test func aSauvolaStripIsBlackAndWhiteWithTheNeighboursEdgeCleared() {
        // A mid-gray spine (x 35..<65) with a dark mark, the next spine's dark side at x 30..<36
        // inside the strip's box: along the turned strip that side is a band the whole length.
        var pixels = [UInt8](repeating: 150, count: 100 * 400)
        for y in 0..<400 { for x in 30..<36 { pixels[y * 100 + x] = 25 } }
        for y in 150..<200 { for x in 45..<55 { pixels[y * 100 + x] = 40 } }
        let (gray, binary) = Self.preparedStrips(pixels, .sauvola)
        #expect(Set(binary.pixels).isSubset(of: [0, 255]))
        // The gray strip keeps the dark band along one long side; the binarised one has no ink
        // there, but the mark (in the middle of the length) is ink.
        let rows = 10..<binary.height - 10, columns = 10..<binary.width - 10
        let bandRows = rows.filter { row in columns.filter { gray[$0, row] < 100 }.count > columns.count / 2 }
        #expect(!bandRows.isEmpty, "the drawn side shows in the gray strip")
        for row in bandRows {
            #expect(columns.filter { binary[$0, row] == 0 }.count < columns.count / 10, "row \(row) still holds the side")
        }
        let middle = binary.height / 2
        #expect(columns.contains { binary[$0, middle] == 0 }, "the mark is ink")
    }

    /// The normalised variant: a faint title (170 on 200) beside a dark picture band (30) is
    /// split from its ground by one threshold, as the title on the plain part of a spine.
    @Test func aNormalizedStripMakesAFaintTitleBesideADarkBandInk() {
        // A spine (x 30..<66) whose lower half (along it) is a dark picture, its upper half a
        // light ground with a faint mark at y 100..<140.
        var pixels = [UInt8](repeating: 200, count: 100 * 400)
        for y in 200..<400 { for x in 30..<66 { pixels[y * 100 + x] = 30 } }
        for y in 100..<140 { for x in 44..<52 { pixels[y * 100 + x] = 170 } }
        let (gray, normalized) = Self.preparedStrips(pixels, .normalized)
        // Turned 270°, the strip runs along x: the mark sits 100–140 px from its start, scaled.
        let scale = Double(gray.height - 20) / 36, row = gray.height / 2
        let mark = 10 + Int(120 * scale), ground = 10 + Int(60 * scale)
        // Gray, the mark is lighter than the midpoint of the strip's dark and light parts.
        let darkest = Int(gray.pixels.min() ?? 0), lightest = Int(gray.pixels.max() ?? 255)
        #expect(Int(gray[mark, row]) > (darkest + lightest) / 2, "gray mark \(gray[mark, row])")
        // Normalised, it is well under the ground beside it and the middle gray.
        #expect(normalized[mark, row] < 110 && normalized[ground, row] > 120, "mark \(normalized[mark, row]), ground \(normalized[ground, row])")
    }

    @Test func pageGroupsAreCutAtStripSides() {
        func word(_ text: String, _ x: Int) -> OCRWord {
            OCRWord(text: text, confidence: 90, box: Box(x0: x, y0: 0, x1: x + 50, y1: 20), isDictionaryWord: true, line: 0)
        }
        let group = [word("Silver", 0), word("Girl", 60), word("Stories", 200), word("Others", 260), word("junk", 900)]
        let strip = { (box: Box) -> Int? in box.x0 < 150 ? 0 : (box.x0 < 400 ? 1 : nil) }
        #expect(SpineGrouping.split(group, by: strip).map { $0.map(\.text) } == [["Silver", "Girl", "junk"], ["Stories", "Others"]])
        #expect(SpineGrouping.split([word("Dune", 0), word("Herbert", 60)], by: strip).count == 1)
    }

    /// Strips alone on real bytes: the rendered shelves read strip by strip, no whole-photo pass,
    /// binarised by Tesseract and by the local threshold (each alone).
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped), arguments: [StripBinarization.tesseract, .sauvola])
    func stripsAloneReadRenderedSpines(_ binarization: StripBinarization) throws {
        let manifest = try RenderedShelfTests.manifest()
        let index = try RenderedShelfTests.catalogue()
        let matcher = SpineMatcher()
        // No cuts: this counts what strips read, all of them.
        var options = TesseractOptions(deadlineMilliseconds: 0)
        options.budgetMilliseconds = 0
        options.stripVariants = [StripVariant(pageSegmentationMode: 11, across: 32...64, binarization: binarization)]
        let ocr = try ShelfOCR(options: options)
        var expected = 0, found = 0, wrong: [String] = [], strips = 0
        for name in manifest.keys.sorted().prefix(3) {
            let data = try Data(contentsOf: RenderedShelfTests.folder.appendingPathComponent(name))
            let image = try ocr.workingImage(ocr.decode(data: data, name: name), name: name)
            let passes = try ocr.recognize(image, name: name, pages: false)
            #expect(passes.allSatisfy { $0.strip != nil })
            strips += Set(passes.compactMap(\.strip)).count
            let keys = Set(manifest[name]!.books.map { RenderedShelfTests.key($0.title) })
            expected += keys.count
            var seen: Set<String> = []
            for spine in ocr.assemble(passes, image: image).spines {
                let result = matcher.match(SpineReading(text: spine.text, confidence: spine.confidence / 100), index: index)
                guard result.decision != .none, let book = result.best else { continue }
                let key = RenderedShelfTests.key(book.title)
                if keys.contains(key) { if seen.insert(key).inserted { found += 1 } } else if result.decision == .strong {
                    wrong.append("\(name): '\(spine.text)' -> \(book.title)")
                }
            }
        }
        #expect(strips >= expected / 2, "\(strips) strips for \(expected) spines")
        // One variant alone (the two together with the page passes read most of them, RenderedShelfTests).
        // The normalised one is no reader alone (2 of these 47): it is for what these two miss.
        print("strips alone (\(binarization)): \(found) of \(expected)")
        #expect(Double(found) >= 0.2 * Double(expected), "strips alone (\(binarization)) found \(found) of \(expected)")
        #expect(wrong.isEmpty, "\(wrong)")
    }
}
