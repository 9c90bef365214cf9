import BookCodes
import Imaging
import Testing
@testable import BarcodeReading

/// Short codes need clear margins; a code counts as read both ways only when lines of each
/// direction reached its far end.
@Suite struct QuietZoneTests {
    /// EAN/UPC digit patterns (1 = bar), L code; R is its complement, G its reverse complement.
    static let lCodes = ["0001101", "0011001", "0010011", "0111101", "0100011",
                         "0110001", "0101111", "0111011", "0110111", "0001011"]
    static func rCode(_ digit: Int) -> String { String(lCodes[digit].map { $0 == "1" ? "0" : "1" }) }
    static func gCode(_ digit: Int) -> String { String(rCode(digit).reversed()) }

    /// The 95 modules of an EAN-13.
    static func ean13Modules(_ text: String) -> String {
        let digits = text.compactMap(\.wholeNumberValue)
        let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG",
                      "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"][digits[0]]
        var modules = "101"
        for (index, kind) in parity.enumerated() {
            modules += kind == "L" ? lCodes[digits[index + 1]] : gCode(digits[index + 1])
        }
        modules += "01010"
        for digit in digits[7...] { modules += rCode(digit) }
        return modules + "101"
    }

    /// Bars drawn `module` px wide, `margin` modules of paper each side, 60 rows.
    static func image(_ modules: String, module: Int, margin: Int) -> GrayImage {
        let width = (modules.count + 2 * margin) * module, height = 60
        var pixels = [UInt8](repeating: 230, count: width * height)
        for (index, bit) in modules.enumerated() where bit == "1" {
            for y in 0..<height {
                for x in 0..<module { pixels[y * width + (margin + index) * module + x] = 30 }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// A UPC-E as zbar reports it read both ways: on rows of one parity its last point at
    /// `end`, on the others at `start`.
    static func upcE(from start: Int, to end: Int, rows: ClosedRange<Int> = 10...50) -> ScannedSymbol {
        let points = rows.map { SymbolPoint(x: $0 % 2 == 0 ? end : start, y: $0) }
        return ScannedSymbol(symbology: .upcE, text: "01234565", quality: points.count,
                             bounds: BoundingBox(enclosing: points.map { (x: $0.x, y: $0.y) })!,
                             orientation: .up, ends: points)
    }

    @Test func aShortCodeWithBlankMarginsPasses() {
        // 51 modules at 3 px between 9-module margins: bars from x = 27 to 180.
        let modules = "101" + String(repeating: "0110001", count: 6) + "010101"
        let picture = Self.image(modules, module: 3, margin: 9)
        #expect(QuietZone.isClear(around: Self.upcE(from: 27, to: 178), in: picture, lineStep: 1))
    }

    @Test func aShortCodeInsideAnEAN13sBarsIsRefused() {
        // The ISBN's right half and centre guard read as a UPC-E: bars run on to its left.
        let picture = Self.image(Self.ean13Modules("9781594456541"), module: 3, margin: 10)
        // Centre guard starts at module 45: x = (10 + 45) × 3; the code ends at module 95.
        let shadow = Self.upcE(from: 165, to: 312)
        #expect(!QuietZone.isClear(around: shadow, in: picture, lineStep: 1))
        // The same span with blank paper around it passes: the margins decide.
        let alone = Self.image(String(Self.ean13Modules("9781594456541").dropFirst(45)), module: 3, margin: 10)
        #expect(QuietZone.isClear(around: Self.upcE(from: 30, to: 177), in: alone, lineStep: 1))
    }

    @Test func aShortCodeReadOneWayOnlyCannotBeChecked() {
        let modules = "101" + String(repeating: "0110001", count: 6) + "010101"
        let picture = Self.image(modules, module: 3, margin: 9)
        let points = stride(from: 10, through: 50, by: 2).map { SymbolPoint(x: 178, y: $0) }
        let oneWay = ScannedSymbol(symbology: .upcE, text: "01234565", quality: points.count,
                                   bounds: BoundingBox(x: 178, y: 10, width: 1, height: 41), orientation: .down, ends: points)
        #expect(!QuietZone.isClear(around: oneWay, in: picture, lineStep: 1))
        #expect(!QuietZone.readBothWays(oneWay, lineStep: 1))
        // Longer codes are not the margin check's business.
        let ean13 = ScannedSymbol(symbology: .ean13, text: "9781594456541", quality: 1,
                                  bounds: BoundingBox(x: 0, y: 0, width: 1, height: 1), orientation: .up)
        #expect(QuietZone.isClear(around: ean13, in: picture, lineStep: 1))
    }

    @Test func aLineThatReadOnlyTheSecondHalfDidNotReachTheStart() {
        // zbar's points for an EAN-13 read at 1.8 px per module: forward lines end at the
        // centre (113) and the right end (196); the backward line completed the symbol with
        // the right half alone (its point at the centre, 108), taking the left half from
        // the line before: nothing reached the left end near x = 25.
        let halfway = [(113, 26), (196, 26), (108, 27), (113, 130), (196, 130), (108, 131), (196, 132)]
            .map { SymbolPoint(x: $0.0, y: $0.1) }
        let symbol = ScannedSymbol(symbology: .ean13, text: "6781188298079", quality: 7,
                                   bounds: BoundingBox(x: 108, y: 26, width: 89, height: 107), orientation: .up, ends: halfway)
        #expect(!QuietZone.readBothWays(symbol, lineStep: 1))
        // Read whole each way: the backward lines end at the left end.
        let whole = halfway + [(25, 27), (25, 131)].map { SymbolPoint(x: $0.0, y: $0.1) }
        var both = symbol
        both.ends = whole
        #expect(QuietZone.readBothWays(both, lineStep: 1))
    }
}
