@testable import BarcodeReading
import BookCodes
import Foundation
import Imaging
import Testing
import TestSupport

/// EAN-5/EAN-2 add-ons read by the model beside a code (`ModelDecoder.readAddOn`), on
/// symbols drawn here from the standard's tables (`AddOnRendering`), made soft.
@Suite struct AddOnModelTests {
    /// Soft codes with their add-on, 7–12 modules after, every EAN-5 checksum and EAN-2 parity.
    @Test func readsSoftAddOnsBesideTheirCode() {
        var read = 0, wrong: [String] = []
        let addOns = (0..<10).map { AddOnRendering.ean5(withChecksum: $0, seed: $0) } + ["07", "42", "93", "18"]
        for (index, addOn) in addOns.enumerated() {
            let code = generatedISBN(6_151 * index + 17).digits
            let image = Self.render(code, addOn: addOn, gap: 7 + index % 6, module: 2.2, sigma: 1.3, seed: UInt64(index))
            switch Self.addOn(in: image, beside: code, module: 2.2) {
            case .some(let found) where found.text == addOn: read += 1
            case .some(let found): wrong.append("\(addOn) read as \(found.text)")
            case .none: break
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(read >= 12, "read \(read) of \(addOns.count)")
    }

    /// An add-on printed with parities its digits do not give (a misprint, or a misread
    /// digit) is refused, not corrected; the same digits printed right read.
    @Test func refusesAnAddOnWhoseParitiesDisagreeWithItsDigits() {
        for index in 0..<6 {
            let code = generatedISBN(7_717 * index + 5).digits
            let digits = AddOnRendering.ean5(withChecksum: index, seed: index + 3)
            let misprinted = Self.render(code, addOnModules: AddOnRendering.modules(digits, parity: (index + 1 + index % 3) % 10),
                                         gap: 9, module: 2.2, sigma: 1.0, seed: UInt64(index))
            #expect(Self.addOn(in: misprinted, beside: code, module: 2.2) == nil, "\(digits)")
            let printed = Self.render(code, addOn: digits, gap: 9, module: 2.2, sigma: 1.0, seed: UInt64(index))
            #expect(Self.addOn(in: printed, beside: code, module: 2.2)?.text == digits)
        }
    }

    /// An EAN-5 cut by the photo's edge after its second digit: its first two digits and
    /// the paper the crop repeats past the edge would make an EAN-2.
    @Test func anEAN5CutByThePhotosEdgeIsNoEAN2() {
        let code = generatedISBN(424_242).digits
        let module = 2.5
        // A price whose first two digits' parities are an EAN-2's for "54" (as on the real photo).
        let price = (0..<1000).map { String(format: "54%03d", $0) }.first {
            AddOnRendering.ean5Parities[AddOnRendering.checksum($0)].prefix(2) == AddOnRendering.ean2Parities[54 % 4]
        }!
        let image = Self.render(code, addOn: price, gap: 9, module: module, sigma: 0.8, seed: 1)
        // The code starts 12 modules (and the rendering's phase, 0.3) in; the cut falls in the
        // middle of the space after the second digit (the add-on's 21st module).
        let cut = Int(((12 + 0.3 + 95 + 9 + 20.5) * module).rounded())
        var pixels = image.pixels
        for y in 0..<image.height { for x in cut..<image.width { pixels[y * image.width + x] = pixels[y * image.width + cut - 1] } }
        let padded = GrayImage(width: image.width, height: image.height, pixels: pixels)
        #expect(Self.addOn(in: padded, beside: code, module: module, sourceWidth: cut) == nil)
        // Where the same pixels are the photo's own, paper after two digits is an EAN-2.
        #expect(Self.addOn(in: padded, beside: code, module: module)?.text == "54")
    }

    /// A second code after the first at an add-on's distance is not an add-on.
    @Test func aNeighbouringCodeIsNoAddOn() {
        for index in 0..<4 {
            let code = generatedISBN(3_331 * index + 1).digits, next = generatedISBN(9_973 * index + 2).digits
            let image = Self.render(code, addOnModules: EAN13Rendering.modules(next), gap: 8 + index, module: 2.2, sigma: 1.0,
                                    seed: UInt64(index))
            #expect(Self.addOn(in: image, beside: code, module: 2.2) == nil)
        }
    }

    /// A soft photo whose add-on zbar misses beside a code it reads: the scan reports the
    /// code with its add-on.
    @Test func fileScannerReadsTheAddOnZbarMisses() throws {
        let directory = try makeTemporaryDirectory(prefix: "rapidscan-addon")
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = try BarcodeReader()
        var withAddOn = 0, zbarAddOns = 0, wrong: [String] = []
        for index in 0..<6 {
            let code = generatedISBN(2_221 * index + 9).digits
            let addOn = AddOnRendering.ean5(withChecksum: index + 2, seed: index)
            let image = Self.render(code, addOn: addOn, gap: 9, module: 2.0, sigma: 1.1, seed: UInt64(index))
            zbarAddOns += reader.scan(image).contains { $0.addOn?.text == addOn } ? 1 : 0
            let url = directory.appendingPathComponent("addon-\(index).pgm")
            try EAN13Rendering.pgm(image).write(to: url)
            let result = try FileScanner().scan(fileAt: url)
            guard let found = result.codes.first(where: { $0.text == code }) else { continue }
            if found.addOn?.text == addOn { withAddOn += 1 } else if let other = found.addOn { wrong.append(other.text) }
        }
        print("add-ons beside their code: \(withAddOn) of 6 (zbar alone \(zbarAddOns))")
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(withAddOn > zbarAddOns)
        #expect(withAddOn >= 3)
    }

    /// The look before the model: edges as dense as an add-on's past the code's end, found
    /// from the pixels even when the code's size is guessed 40% too large.
    @Test func anAddOnIsLookedForOnlyWhereEdgesFollowTheCode() {
        let code = generatedISBN(77_001).digits, module = 2.2
        let centre = (12 + 47.5 + 0.3) * module
        for (index, guess) in [module, module * 1.4].enumerated() {
            let withAddOn = Self.render(code, addOn: "51299", gap: 9, module: module, sigma: 1.0, seed: UInt64(index))
            let alone = Self.render(code, addOnModules: [], gap: 60, module: module, sigma: 1.0, seed: UInt64(index))
            #expect(ModelDecoder.mayHoldAddOn(ModelDecoder.bandLines(withAddOn).mean, around: centre, module: guess))
            #expect(!ModelDecoder.mayHoldAddOn(ModelDecoder.bandLines(alone).mean, around: centre, module: guess))
        }
    }

    /// A small photo of a code turned well off the axes, its EAN-5 beside it: zbar's rows
    /// and columns read the add-on alone (refused); the code's patch, turned level, gives it.
    @Test func aTurnedCodesAddOnIsFoundBesideIt() throws {
        let directory = try makeTemporaryDirectory(prefix: "rapidscan-addon-turned")
        defer { try? FileManager.default.removeItem(at: directory) }
        var withAddOn = 0
        for (index, degrees) in [38.0, 142, -35].enumerated() {
            let code = generatedISBN(5_501 * index + 3).digits
            let addOn = AddOnRendering.ean5(withChecksum: index + 4, seed: index)
            let flat = Self.render(code, addOn: addOn, gap: 9, module: 3.0, sigma: 0.7, seed: UInt64(index))
            let url = directory.appendingPathComponent("turned-\(index).pgm")
            try EAN13Rendering.pgm(flat.padded(by: 80, value: 255).skewed(degrees: degrees)).write(to: url)
            let result = try FileScanner().scan(fileAt: url)
            #expect(result.codes.map(\.text) == [code], "\(degrees)°")
            if result.codes.first?.addOn?.text == addOn { withAddOn += 1 }
            #expect(result.codes.allSatisfy { $0.addOn == nil || $0.addOn?.text == addOn })
        }
        #expect(withAddOn >= 2, "\(withAddOn) of 3")
    }

    // MARK: - Helpers

    /// The add-on the model reads in `image` (upright, as rendered) beside `code`, the
    /// photo being `sourceWidth` pixels wide (the image's own width when nil).
    static func addOn(in image: GrayImage, beside code: String, module: Double, sourceWidth: Int? = nil) -> AddOn? {
        let mapping = RegionMapping(centreX: Double(image.width) / 2, centreY: Double(image.height) / 2, angle: 0, step: 1,
                                    width: image.width, height: image.height)
        let crop = RegionReading.Crop(image: image, mapping: mapping, sourceWidth: sourceWidth ?? image.width,
                                      sourceHeight: image.height)
        let width = 95 * module
        return ModelDecoder.readAddOn(crop, of: code, codeWidth: width * 0.9...width * 1.1)
    }

    static func render(_ code: String, addOn: String, gap: Int, module: Double, sigma: Double, seed: UInt64) -> GrayImage {
        render(code, addOnModules: AddOnRendering.modules(addOn), gap: gap, module: module, sigma: sigma, seed: seed)
    }

    static func render(_ code: String, addOnModules: [Bool], gap: Int, module: Double, sigma: Double, seed: UInt64) -> GrayImage {
        let bars = EAN13Rendering.modules(code) + Array(repeating: false, count: gap) + addOnModules
        let sharp = EAN13Rendering.image(bars: bars, module: module, phase: 0.3, barHeight: 48)
        return ModelDecoderTests.blurred(sharp, sigma: sigma, seed: seed)
    }
}

/// EAN-5 and EAN-2 add-ons drawn from the standard's tables, independently of `ModelSymbol`.
enum AddOnRendering {
    /// EAN-5 parities (G = even) per checksum: 3 × digits 1, 3, 5 + 9 × digits 2, 4, mod 10.
    static let ean5Parities = ["GGLLL", "GLGLL", "GLLGL", "GLLLG", "LGGLL", "LLGGL", "LLLGG", "LGLGL", "LGLLG", "LLGLG"]
    /// EAN-2 parities per value mod 4.
    static let ean2Parities = ["LL", "LG", "GL", "GG"]

    static func checksum(_ digits: String) -> Int {
        let d = digits.compactMap { $0.wholeNumberValue }
        return (3 * (d[0] + d[2] + d[4]) + 9 * (d[1] + d[3])) % 10
    }

    /// Five digits whose checksum is `checksum`, varied by `seed`.
    static func ean5(withChecksum checksum: Int, seed: Int) -> String {
        (0..<100_000).lazy.map { String(format: "%05d", ($0 * 7_919 + seed * 1_237 + 51_000) % 100_000) }
            .first { Self.checksum($0) == checksum }!
    }

    /// The add-on's modules: start guard 1011, digits separated by 01; `parity` overrides the
    /// EAN-5 parity pattern its digits give (a misprint).
    static func modules(_ digits: String, parity: Int? = nil) -> [Bool] {
        let values = digits.compactMap { $0.wholeNumberValue }
        let pattern = Array(values.count == 5 ? ean5Parities[parity ?? checksum(digits)] : ean2Parities[(values[0] * 10 + values[1]) % 4])
        var bits = "1011"
        for (index, value) in values.enumerated() {
            if index > 0 { bits += "01" }
            let l = EAN13Rendering.left[value]
            bits += pattern[index] == "L" ? l : String(l.map { $0 == "0" ? "1" : "0" }.reversed())
        }
        return bits.map { $0 == "1" }
    }
}
