import BookCodes
import Foundation
import Imaging

/// EAN-5/EAN-2 add-ons beside a code the model has placed: zbar reads a soft or small
/// add-on far less often than its code (on the hard phone photos 13 of 35 add-ons beside a
/// code read), but the code's place, direction and module width fix where the add-on must
/// be: after its end guard, a gap of 7–12 modules, printed at the same module width.
extension ModelDecoder {
    /// Gaps between a code's end guard and its add-on's start guard, in modules, that are
    /// tried: GS1's 7–12, and some slack for a code's place found a little off.
    static let addOnGaps = Array(stride(from: 5.0, through: 14.0, by: 0.25))
    /// An add-on's module against the code's at its end (print is the same; a keystone or a
    /// curved cover makes it a few percent wider or narrower).
    static let addOnModuleFactors = [0.97, 0.985, 1, 1.015, 1.03]

    /// The add-on in an upright crop (bars vertical) holding the EAN-13/UPC-A `text`, read
    /// elsewhere, about `codeWidth` crop pixels wide: the model finds the code there first
    /// (the place must read as `text`), then the add-on after it. Not one that runs, with its
    /// margins, past the photo's edge: an EAN-5 cut there after two digits is an EAN-2 on paper.
    /// `centre`: where the code's middle lies in the crop (x), when zbar's box tells it: the
    /// model is not run where nothing past either end of the code has edges like an
    /// add-on's (`mayHoldAddOn`), as most codes have none, and the code is looked for
    /// only around there (a crop of 2–3 code widths costs the search two to three times more).
    static func readAddOn(_ crop: RegionReading.Crop, of text: String, codeWidth: ClosedRange<Double>, centre: Double? = nil) -> AddOn? {
        guard crop.image.width >= 100, crop.image.height >= bands else { return nil }
        // A UPC-E's text is its 8 digits; a UPC-A's 12 are an EAN-13's with a leading 0.
        let symbol: ModelSymbol = text.count == 8 ? .upcE : .ean13
        let digits = text.count == 12 ? "0" + text : text
        let (lines, mean) = bandLines(crop.image)
        let count = Double(symbol.moduleCount)
        let modules = codeWidth.lowerBound / count...codeWidth.upperBound / count
        var main: Reading?
        if let centre {
            let module = (modules.lowerBound + modules.upperBound) / 2
            guard mayHoldAddOn(mean, around: centre, module: module) else { return nil }
            // The code, its quiet zones and some slack either side of its middle.
            let reach = codeWidth.upperBound / 2 + 12 * modules.upperBound
            let first = max(0, Int(centre - reach)), last = min(mean.count, Int(centre + reach) + 1)
            guard last - first > 2 else { return nil }
            if var reading = bestReading(Array(mean[first..<last]), modules: modules, symbol: symbol) {
                // Back to the whole line's samples (counted from its end when read reversed).
                reading.start += Double(reading.reversed ? mean.count - last : first)
                main = reading
            }
        } else {
            main = bestReading(mean, modules: modules, symbol: symbol)
        }
        guard let main, main.text == digits,
              let found = addOn(lines: lines, mean: mean, after: main, of: symbol) else { return nil }
        return crop.showsSource(found.span) ? found.addOn : nil
    }

    /// Whether, past either end of the code around `centre` (its ends found where the
    /// line's edges thin out to paper for `paperModules`), something as long as an EAN-2
    /// begins within an add-on's gap whose edges (sum of |step| between neighbouring
    /// samples, per sample) are at least `addOnEdgeShare` as dense as the code's middle.
    /// Found from the pixels, not from the code's size, which zbar's box tells only roughly
    /// (`module`: about the code's module, in samples).
    static func mayHoldAddOn(_ line: [Double], around centre: Double, module: Double) -> Bool {
        guard module > 0, line.count > 2 else { return false }
        var prefix = [0.0]
        prefix.reserveCapacity(line.count)
        for x in 1..<line.count { prefix.append(prefix[x - 1] + abs(line[x] - line[x - 1])) }
        let last = Double(line.count - 1)
        func density(_ a: Double, _ b: Double) -> Double {
            let lo = Int(max(0, min(last, a))), hi = Int(max(0, min(last, b)))
            return hi > lo ? (prefix[hi] - prefix[lo]) / Double(hi - lo) : 0
        }
        let code = density(centre - 10 * module, centre + 10 * module)
        guard code > 0 else { return false }
        let paper = paperModules * module, window = 20 * module
        for side in [1.0, -1.0] {
            // The code's end: the first stretch of paper walking out from its middle.
            var end = centre
            while end >= 0, end <= last {
                let (a, b) = side > 0 ? (end, end + paper) : (end - paper, end)
                if a >= 0, b <= last, density(a, b) < paperEdgeShare * code { break }
                end += side
            }
            var gap = 0.0
            while gap <= 14 * module {
                let near = side > 0 ? end + gap : end - gap - window
                if near >= 0, near + window <= last, density(near, near + window) >= addOnEdgeShare * code { return true }
                gap += module
            }
        }
        return false
    }

    /// Modules of paper that end a code (its widest space is 4; the gap before an add-on 7).
    static let paperModules = 3.0
    /// Edges at most this dense, against the code's, are paper.
    static let paperEdgeShare = 0.2
    static let addOnEdgeShare = 0.5

    /// The add-on after `main` (a reading of the mean line, `lines` the bands it was made
    /// of): an EAN-5 first, else an EAN-2, each read like a code (several bands alike,
    /// every digit clear, the parities its check, paper in its margins), and where it lies
    /// with those margins, in the line's samples. Not one that runs past the crop's edge:
    /// its margins are not known to be paper.
    static func addOn(lines: [[Double]], mean: [Double], after main: Reading, of code: ModelSymbol = .ean13)
        -> (addOn: AddOn, span: ClosedRange<Double>)? {
        let directed = main.reversed ? lines.map { Array($0.reversed()) } : lines
        let line = main.reversed ? Array(mean.reversed()) : mean
        let codeModules = Double(code.moduleCount)
        let end = position(codeModules, start: main.start, module: main.module, stretch: main.stretch, modules: code.moduleCount)
        for symbol in [ModelSymbol.ean5, .ean2] {
            // The module carried on past the code's end as its stretch would have it.
            let middle = codeModules + 9.5 + Double(symbol.moduleCount) / 2
            let module = main.module * (1 + main.stretch * (middle / codeModules - 0.5))
            var best: Reading?
            for gap in addOnGaps {
                for factor in addOnModuleFactors {
                    guard let reading = reading(line, start: end + gap * module * factor, module: module * factor,
                                                blur: middlingBlur, symbol: symbol),
                          reading.score > best?.score ?? -1 else { continue }
                    best = reading
                }
            }
            guard let place = best, let whole = refined(line, start: place.start, module: place.module, symbol: symbol),
                  case .read(let text, _) = bandsAgreeing(directed, at: whole, symbol: symbol),
                  let addOn = try? AddOn(validating: text, as: symbol.symbology)
            else { continue }
            let margin = Double(symbol.margin + 1)
            let first = position(-margin, start: whole.start, module: whole.module, stretch: whole.stretch, modules: symbol.moduleCount)
            let last = position(Double(symbol.moduleCount) + margin, start: whole.start, module: whole.module, stretch: whole.stretch,
                                modules: symbol.moduleCount)
            // Read the other way round, back to the line's own order.
            let length = Double(line.count)
            return (addOn, main.reversed ? length - last...length - first : first...last)
        }
        return nil
    }
}
