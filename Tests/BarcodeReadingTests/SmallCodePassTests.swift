@testable import BarcodeReading
import BookCodes
import Foundation
import Imaging
import Testing
import TestSupport

/// The passes for small, soft, slanted codes: the image operations they use, how their
/// boxes map back, and that effort bounds them.
@Suite struct SmallCodePassTests {
    @Test func equalisingSpreadsFewGreyLevelsOverTheWholeRange() {
        let flat = GrayImage(width: 4, height: 2, pixels: [100, 100, 110, 110, 120, 120, 130, 130])
        let spread = flat.equalised()
        #expect(spread.pixels.min() == 0 && spread.pixels.max() == 255)
        // Order is kept: a darker pixel never becomes lighter than a lighter one.
        #expect(spread.pixels == spread.pixels.sorted())
        // One grey level only: nothing to spread, nothing invented.
        let blank = GrayImage(width: 3, height: 3, pixels: [UInt8](repeating: 200, count: 9))
        #expect(blank.equalised() == blank)
    }

    @Test func aWideUnsharpMaskSteepensASoftEdge() {
        // A ramp from 60 to 190 over 8 pixels, as a doubled out-of-focus bar edge.
        let row: [UInt8] = (0..<24).map { x in UInt8(clamping: 60 + max(0, min(8, x - 8)) * 130 / 8) }
        let image = GrayImage(width: 24, height: 9, pixels: Array((0..<9).map { _ in row }.joined()))
        let sharp = image.sharpened(radius: 3, amount: 2)
        let middle = 4 * 24
        // Darker before the edge, lighter after it, unchanged far from it.
        #expect(sharp.pixels[middle + 9] < image.pixels[middle + 9])
        #expect(sharp.pixels[middle + 15] > image.pixels[middle + 15])
        #expect(sharp.pixels[middle + 1] == image.pixels[middle + 1])
        #expect(sharp.pixels[middle + 22] == image.pixels[middle + 22])
    }

    /// Every pixel a pseudo-random grey level (a linear congruential sequence from `seed`).
    static func randomImage(width: Int, height: Int, seed: UInt32) -> GrayImage {
        var state = seed
        return GrayImage(width: width, height: height, pixels: (0..<(width * height)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        })
    }

    /// Inside the border the box mean is looked up, at the border divided by the clipped
    /// box's area: every pixel as the plain formula gives it.
    @Test func theUnsharpMaskIsTheBoxFormulaAtEveryPixel() {
        let (w, h) = (37, 23)
        let image = Self.randomImage(width: w, height: h, seed: 11)
        for radius in [1, 2, 3] {
            var expected = [UInt8]()
            for y in 0..<h {
                for x in 0..<w {
                    let xs = max(0, x - radius)..<min(w, x + radius + 1), ys = max(0, y - radius)..<min(h, y + radius + 1)
                    let sum = ys.reduce(0) { total, v in xs.reduce(total) { $0 + Int(image[$1, v]) } }
                    let centre = Int(image[x, y])
                    expected.append(UInt8(clamping: centre + 2 * (centre - sum / (xs.count * ys.count))))
                }
            }
            #expect(image.sharpened(radius: radius, amount: 2).pixels == expected, "radius \(radius)")
        }
    }

    /// Along columns (and rows) each pixel is the mean of its clipped window; bars standing
    /// along that direction come out unchanged.
    @Test func smoothingAlongTheBarsIsTheWindowMeanAndKeepsTheBars() {
        let (w, h) = (29, 17)
        let image = Self.randomImage(width: w, height: h, seed: 5)
        for radius in [1, 4] {
            var columns = [UInt8](), rows = [UInt8]()
            for y in 0..<h {
                for x in 0..<w {
                    let ys = max(0, y - radius)..<min(h, y + radius + 1), xs = max(0, x - radius)..<min(w, x + radius + 1)
                    let down = ys.reduce(0) { $0 + Int(image[x, $1]) }, across = xs.reduce(0) { $0 + Int(image[$1, y]) }
                    columns.append(UInt8((down + ys.count / 2) / ys.count))
                    rows.append(UInt8((across + xs.count / 2) / xs.count))
                }
            }
            #expect(image.smoothedAlongColumns(radius: radius).pixels == columns, "radius \(radius)")
            #expect(image.smoothedAlongRows(radius: radius).pixels == rows, "radius \(radius)")
        }
        let bars = EAN13Rendering.image("9780306406157", module: 3, phase: 0, barHeight: 40)
        let inner = bars.cropped(x: 0, y: 6, width: bars.width, height: 40)
        #expect(inner.smoothedAlongColumns(radius: 4) == inner)
    }

    /// A code under heavy noise (a dim photo's grain, half the contrast), upright and lying
    /// down: only the image smoothed along its bars reads it, and nothing else is read.
    @Test func aCodeUnderHeavyNoiseReadsSmoothedAlongItsBars() throws {
        let directory = try makeTemporaryDirectory(prefix: "rapidscan-noise")
        defer { try? FileManager.default.removeItem(at: directory) }
        var read = 0, wrong: [String] = []
        for index in 0..<4 {
            let code = generatedISBN(7_919 * index + 3).digits
            let label = EAN13Rendering.image(code, module: 3, phase: 0.3, barHeight: 150)
            var generator = SeededGenerator(seed: UInt64(index) &+ 99)
            // Blended 55% of the way towards uniformly random grey, pixel by pixel.
            let noisy = GrayImage(width: label.width, height: label.height, pixels: label.pixels.map { value in
                UInt8((0.45 * Double(value) + 0.55 * Double(generator.next() % 256)).rounded())
            })
            let image = index % 2 == 0 ? noisy : noisy.applyingEXIFOrientation(6)
            let url = directory.appendingPathComponent("noisy-\(index).pgm")
            try EAN13Rendering.pgm(image).write(to: url)
            let result = try FileScanner().scan(fileAt: url)
            if result.codes.contains(where: { $0.text == code }) {
                read += 1
                #expect(result.attempt?.hasPrefix("smoothed along \(index % 2 == 0 ? "columns" : "rows")") == true, "\(result.attempt ?? "-")")
            }
            wrong += result.codes.map(\.text).filter { $0 != code }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(read >= 3)
    }

    @Test func aSkewedImageKeepsEveryPixelAndItsBoxMapsBack() throws {
        // A dark 10×10 square at (60, 20) on a white 120×80 image.
        var pixels = [UInt8](repeating: 255, count: 120 * 80)
        for y in 20..<30 { for x in 60..<70 { pixels[y * 120 + x] = 0 } }
        let image = GrayImage(width: 120, height: 80, pixels: pixels)
        for degrees in [-12.0, -6, 6, 12] {
            let turned = image.skewed(degrees: degrees)
            let radians = abs(degrees) * .pi / 180
            #expect(turned.width == Int((120 * cos(radians) + 80 * sin(radians)).rounded(.up)))
            // Where the square landed, as zbar's box would enclose it.
            let dark = turned.pixels.indices.filter { turned.pixels[$0] < 128 }
            let xs = dark.map { $0 % turned.width }, ys = dark.map { $0 / turned.width }
            let found = BoundingBox(x: try #require(xs.min()), y: try #require(ys.min()),
                                    width: xs.max()! - xs.min()! + 1, height: ys.max()! - ys.min()! + 1)
            let back = BoundsMapping.skewed(degrees: degrees, width: 120, height: 80, magnification: 1).apply(found)
            #expect(abs(back.x + back.width / 2 - 65) <= 2 && abs(back.y + back.height / 2 - 25) <= 2,
                    "\(degrees)°: \(back)")
        }
        // Magnified 2×: the box comes back in the unmagnified image's pixels.
        let doubled = BoundsMapping.skewed(degrees: 0, width: 240, height: 160, magnification: 2)
            .apply(BoundingBox(x: 120, y: 40, width: 20, height: 20))
        #expect(doubled == BoundingBox(x: 60, y: 20, width: 10, height: 10))
    }

    /// A soft, slanted, small code from the real photos: plain scans miss it, the
    /// small-code passes read it (and only the code that is there).
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func effortBoundsTheSmallCodePasses() throws {
        let photo = try SharedFiles.requireImage("barcodes/zxing-ean13-3/39.png")
        let fast = try FileScanner(options: ScanOptions(effort: .fast)).scan(fileAt: photo)
        #expect(fast.codes.isEmpty)
        let normal = try FileScanner(options: ScanOptions(effort: .normal)).scan(fileAt: photo)
        #expect(normal.codes.map(\.text) == ["9781585730575"])
        #expect(normal.attempt?.hasPrefix("doubled") == true, "\(normal.attempt ?? "none")")
    }
}
