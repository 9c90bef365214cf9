@testable import BarcodeReading
import BookCodes
import Foundation
import Imaging
import Testing
import TestSupport

/// Small codes: ISBN barcodes at ~1.8 px per module (a code cropped from a small or distant
/// photo), rendered here at test time with area sampling, a different sub-pixel phase
/// each, and a slight blur. scripts/bench-small-codes measures the same with the Python
/// renderer, beside zbarimg and zxing-cpp.
@Suite struct SmallCodeTests {
    /// Softened as a camera does (σ ≈ 0.7 px), plain scans (fast effort) read 139 of these
    /// 200; normal effort, with the small-code passes, all 200. A floor: it fails if small
    /// codes read worse.
    static let requiredReads = 195

    @Test func readsSmallCleanISBNCodes() throws {
        let directory = try makeTemporaryDirectory(prefix: "rapidscan-small-codes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let codes = (0..<200).map { generatedISBN(37_813 * $0 + 1_234) }
        var urls: [URL] = []
        for (index, code) in codes.enumerated() {
            let image = EAN13Rendering.image(code.digits, module: 1.8, phase: Double(index % 10) / 10, barHeight: 44,
                                             soft: true)
            let url = directory.appendingPathComponent(String(format: "small-%03d.pgm", index))
            try EAN13Rendering.pgm(image).write(to: url)
            urls.append(url)
        }
        let scanner = try FileScanner(), plain = try FileScanner(options: ScanOptions(effort: .fast))
        var read = 0, readPlainly = 0, wrong: [String] = [], missed: [Int] = []
        for (index, url) in urls.enumerated() {
            let result = try scanner.scan(fileAt: url)
            let texts = result.codes.map(\.text)
            if texts.contains(codes[index].digits) { read += 1 } else { missed.append(index) }
            wrong += texts.filter { $0 != codes[index].digits }
            readPlainly += try plain.scan(fileAt: url).codes.contains { $0.text == codes[index].digits } ? 1 : 0
        }
        print("small codes: read \(read) of 200 at 1.8 px per module (fast effort \(readPlainly)); missed \(missed)")
        #expect(read >= Self.requiredReads)
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test func theRendererDrawsAnEAN13ThatZbarReadsAtALargeModule() throws {
        let code = generatedISBN(42)
        let image = EAN13Rendering.image(code.digits, module: 3, phase: 0, barHeight: 40)
        #expect(image.width == Int((Double(95 + 2 * EAN13Rendering.quietModules) * 3).rounded(.up)))
        let found = try BarcodeReader().scan(image)
        #expect(found.map(\.text) == [code.digits])
    }
}

/// EAN-13 bars drawn into gray pixels: each pixel is the share of white over its width
/// (area sampling, as a camera's pixel integrates light), no text, white quiet zones.
enum EAN13Rendering {
    static let quietModules = 12
    /// The odd-parity (L) patterns; R is L inverted, G is R reversed (UPC-E and EAN-8 too).
    static let left = ["0001101", "0011001", "0010011", "0111101", "0100011",
                       "0110001", "0101111", "0111011", "0110111", "0001011"]
    private static let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG",
                                 "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]

    /// The 95 modules, "1" for a bar.
    static func modules(_ digits: String) -> [Bool] {
        let values = digits.compactMap { $0.wholeNumberValue }
        precondition(values.count == 13)
        var bits = "101"
        for (index, value) in values[1...6].enumerated() {
            let l = left[value]
            // G: the R pattern reversed; R: L inverted.
            let r = String(l.map { $0 == "0" ? "1" : "0" })
            bits += parity[values[0]][parity[values[0]].index(parity[values[0]].startIndex, offsetBy: index)] == "L"
                ? l : String(r.reversed())
        }
        bits += "01010"
        for value in values[7...12] { bits += String(left[value].map { $0 == "0" ? "1" : "0" }) }
        bits += "101"
        return bits.map { $0 == "1" }
    }

    /// `module` pixels per module; `phase` (0..<1 module) shifts the bars within the pixels.
    static func image(_ digits: String, module: Double, phase: Double, barHeight: Int, soft: Bool = false) -> GrayImage {
        image(bars: modules(digits), module: module, phase: phase, barHeight: barHeight, soft: soft)
    }

    /// Any symbol's modules, drawn the same way.
    static func image(bars: [Bool], module: Double, phase: Double, barHeight: Int, soft: Bool = false) -> GrayImage {
        let totalModules = Double(bars.count + 2 * quietModules)
        let width = Int((totalModules * module).rounded(.up)), margin = 6
        var row = [UInt8](repeating: 255, count: width)
        for x in 0..<width {
            // The pixel spans [x, x+1) in pixels: modules [x/module, (x+1)/module), less the quiet zone and phase.
            let start = Double(x) / module - Double(quietModules) - phase, end = Double(x + 1) / module - Double(quietModules) - phase
            var dark = 0.0
            var m = Int(start.rounded(.down))
            while Double(m) < end {
                if m >= 0, m < bars.count, bars[m] {
                    dark += min(end, Double(m + 1)) - max(start, Double(m))
                }
                m += 1
            }
            row[x] = UInt8(clamping: Int((255 * (1 - dark / (end - start))).rounded()))
        }
        // A camera's optics: each pixel shares light with its neighbours ([1 2 1]/4, σ ≈ 0.7 px).
        if soft {
            let sharp = row
            for x in 1..<width - 1 { row[x] = UInt8((Int(sharp[x - 1]) + 2 * Int(sharp[x]) + Int(sharp[x + 1]) + 2) / 4) }
        }
        let height = barHeight + 2 * margin
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in margin..<(margin + barHeight) {
            pixels.replaceSubrange(y * width..<(y + 1) * width, with: row)
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// A binary PGM (P5) file of the image.
    static func pgm(_ image: GrayImage) -> Data {
        Data("P5\n\(image.width) \(image.height)\n255\n".utf8) + Data(image.pixels)
    }
}

/// UPC-E symbols drawn from the standard's tables, independently of `ModelSymbol`.
enum UPCERendering {
    /// Number system 0's parities per check digit (E = even, G pattern); number system 1
    /// uses the same inverted.
    private static let systemZero = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO",
                                     "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"]

    /// The 51 modules of an 8-digit UPC-E (number system, six digits, check digit).
    static func modules(_ digits: String) -> [Bool] {
        let values = digits.compactMap { $0.wholeNumberValue }
        precondition(values.count == 8 && values[0] <= 1)
        let parity = Array(systemZero[values[7]])
        var bits = "101"
        for (index, value) in values[1...6].enumerated() {
            let even = (parity[index] == "E") == (values[0] == 0)
            let l = EAN13Rendering.left[value]
            bits += even ? String(l.map { $0 == "0" ? "1" : "0" }.reversed()) : l
        }
        bits += "010101"
        return bits.map { $0 == "1" }
    }

    /// A valid UPC-E: `body` (number system and six digits) with the check digit that makes it valid.
    static func code(_ body: String) -> String {
        (0...9).map { body + String($0) }.first { (try? GTIN(validating: $0, as: .upcE)) != nil }!
    }
}

/// EAN-8 symbols drawn from the standard's tables, independently of `ModelSymbol`.
enum EAN8Rendering {

    /// The 67 modules of an EAN-8: four L digits, the centre guard, four R digits.
    static func modules(_ digits: String) -> [Bool] {
        let values = digits.compactMap { $0.wholeNumberValue }
        precondition(values.count == 8)
        var bits = "101"
        for value in values[0...3] { bits += EAN13Rendering.left[value] }
        bits += "01010"
        for value in values[4...7] { bits += String(EAN13Rendering.left[value].map { $0 == "0" ? "1" : "0" }) }
        bits += "101"
        return bits.map { $0 == "1" }
    }

    /// A valid EAN-8: seven digits and their check digit.
    static func code(_ body: String) -> String {
        body + String(CheckDigit.gs1(body.compactMap { $0.wholeNumberValue }.map(UInt8.init)))
    }
}
