import BookCodes
import Foundation
import Imaging

/// Reads soft EAN-13/UPC-A (and UPC-E, EAN-8) codes by fitting the symbol's model to the pixels instead of
/// measuring edges (zbar's way, which a blur of about a module defeats: thin bars and
/// spaces no longer reach black or white, and their edges move).
///
/// Along a scan line across the bars, the code's start and module width are found from
/// the guards and the modules every digit begins and ends with (the same for all digits),
/// then each digit's 7 modules are compared with every digit's bar pattern blurred alike
/// (correlation, so uneven light and contrast do not matter). A reading stands only when
/// every digit fits one pattern clearly better than any other, the check digit holds, and
/// several independent bands of scan lines agree: a guess is refused, not reported.
enum ModelDecoder {
    /// Each digit's best pattern must fit this much better (correlation) than the next best
    /// of its set, and the best parity pattern (the left digits' sets) than the next. At
    /// 0.06 soft codes every band read alike, fitting ≥ 0.93, were refused for leads of
    /// 0.03–0.06; at 0.02 still none of 8,130 traps (EAN-13s printed with a wrong check
    /// digit, soft, small, turned, in phone photos) was misread: 0.04 keeps half of that.
    static let minimumMargin = 0.04
    /// Mean correlation of the 12 digits' patterns with the pixels, and the least any one
    /// digit's may have. On the real photos, codes read right fit ≥ 0.9 (each digit ≥ 0.74);
    /// a code misread alike on every band (bars its model does not explain, check digit
    /// failing) fitted 0.87, one digit 0.47.
    static let minimumFit = 0.88
    static let minimumDigitFit = 0.7
    /// How well the modules every symbol shares (guards, quiet zones, each digit's first and
    /// last) must fit before the digits are tried: on the real photos, codes fit ≥ 0.5 and
    /// patches of other edges ≤ 0.36.
    static let minimumShape = 0.4
    /// A UPC-E or EAN-8 is fitted to a line (each place's ~150 readings, then the bands') only
    /// where its shared modules fit this well somewhere: a short code's few modules fit the
    /// edges of print and clutter often (on the small photos with no code, a quarter of the
    /// UPC-Es' best places scored 0.49–0.6), while every UPC-E the model read on the small
    /// halves, the real photos and the hard phone photos scored ≥ 0.63 (EAN-13s from 0.42,
    /// where no bound saves much: most patches have no EAN-13 place at all).
    static let minimumShortCodeShape = 0.55
    /// Bands of a crop's rows read separately, and how many must give the same code.
    static let bands = 6
    static let agreeingBands = 3
    /// Blur, in modules (Gaussian σ), the patterns are compared at.
    static let blurs = [0.3, 0.5, 0.7, 0.9]
    /// The blur a code's place is refined at, before its blur is chosen.
    static let middlingBlur = 1
    /// Samples per module when comparing a digit.
    static let samplesPerModule = 3
    /// Light modules required before and after the code (of the 9 a symbol should have).
    static let quietModules = 3

    /// One scan line's best reading.
    struct Reading: Equatable {
        /// The digits as printed: 13 of an EAN-13 (a UPC-A with a leading 0), 8 of a UPC-E or EAN-8.
        var digits: [Int]
        /// Mean correlation of the digits' patterns, and the worst digit's.
        var fit: Double
        var worstDigit: Double
        /// The smallest lead of a digit's best pattern over the second best in the set (L, G
        /// or R) the parity gives it, and of the best parity pattern over the second.
        var margin: Double
        var start: Double
        var module: Double
        /// How much wider modules are at the code's end than at its start (`position`).
        var stretch = 0.0
        /// The code read unstretched is a different clear code: the stretch may have bent the
        /// model onto other digits (a wrong code fits a sharp print better by 0.004 at 4%).
        var contested = false
        /// Read from the line's end to its start.
        var reversed = false
        /// Index into `blurs`.
        var blur = 0
        /// `.ean13` (a UPC-A among them), `.upcE`, `.ean8`, `.ean5` or `.ean2`.
        var symbol = Symbology.ean13
        /// The parity pattern's index (an add-on's is its check).
        var parity = 0
        /// A short code's margins are paper (`ModelSymbol.margin`), not a longer code's bars.
        var marginsClear = true

        var text: String { digits.map(String.init).joined() }
        /// The fit, less a little for a stretch: a straight model is preferred unless bending
        /// it explains the pixels clearly better.
        var score: Double { fit - ModelDecoder.stretchPenalty * abs(stretch) }
        var checkDigitHolds: Bool {
            symbol.isAddOn ? parity == ModelSymbol.addOnParity(digits) : (try? GTIN(validating: text, as: symbol)) != nil
        }
        var isClear: Bool {
            fit >= ModelDecoder.minimumFit && worstDigit >= ModelDecoder.minimumDigitFit && margin >= ModelDecoder.minimumMargin
                && checkDigitHolds && !contested && marginsClear
        }
    }

    /// What a crop gave: a code several bands read alike, or why not.
    enum Outcome: Equatable {
        case read(String, bands: Int)
        /// Bands read different codes, or too few read one clearly.
        case refused
        /// Nothing code-like on any band.
        case nothing
    }

    /// Reads an upright crop (bars vertical). The code's place, size and direction are
    /// found on the mean of all rows; then each of `bands` bands of rows, averaged into one
    /// line, is read there on its own (allowing a little drift).
    /// `codeWidth`: how wide the code may be, in crop pixels, when its patch says so.
    static func read(_ crop: GrayImage, codeWidth: ClosedRange<Double>? = nil, symbol: ModelSymbol = .ean13) -> Outcome {
        read(crop, codeWidth: codeWidth, symbols: [symbol]).outcome
    }

    /// The crop read as each of `symbols` in turn until one reads (the rows' bands made once):
    /// that reading and its symbol, else refused when any symbol refused, else nothing.
    /// `addOn`: an EAN-13/UPC-A read is looked beside for its add-on (`addOn(lines:mean:after:)`),
    /// returned with it as the add-on's digits and where they lie on the crop's width.
    static func read(_ crop: GrayImage, codeWidth: ClosedRange<Double>?, symbols: [ModelSymbol], addOn: Bool = false)
        -> (outcome: Outcome, symbol: ModelSymbol, addOn: (addOn: AddOn, span: ClosedRange<Double>)?) {
        guard crop.width >= 100, crop.height >= bands else { return (.nothing, symbols[0], nil) }
        let (lines, mean) = bandLines(crop)
        var refused = false
        for symbol in symbols {
            let modules = codeWidth.map { $0.lowerBound / Double(symbol.moduleCount)...$0.upperBound / Double(symbol.moduleCount) }
            let found = places(mean, modules: modules, symbol: symbol)
            // A short code is fitted only where its shared modules fit as a code's do.
            guard !symbol.isShortCode || (found.map(\.shape).max() ?? 0) >= minimumShortCodeShape,
                  let whole = refinedBest(of: found, symbol: symbol) else { continue }
            switch bandsAgreeing(lines, at: whole, symbol: symbol) {
            case .read(let text, let count):
                let found = addOn && symbol.symbology == .ean13 ? self.addOn(lines: lines, mean: mean, after: whole) : nil
                return (.read(text, bands: count), symbol, found)
            case .refused: refused = true
            case .nothing: break
            }
        }
        return (refused ? .refused : .nothing, symbols[0], nil)
    }

    /// Each band read at `whole`'s place (the mean line's reading), allowing a little drift:
    /// the code several bands read clearly and alike, none reading another.
    static func bandsAgreeing(_ lines: [[Double]], at whole: Reading, symbol: ModelSymbol) -> Outcome {
        var clear: [String: Int] = [:]
        // Once the bands left cannot make a reading, the answer is refused whatever they give:
        // on a patch with no code, where no band reads clearly, a third of the bands saved.
        let needed = whole.isClear ? 2 : agreeingBands
        for (index, line) in lines.enumerated() {
            if clear.count > 1 || (clear.values.max() ?? 0) + lines.count - index < needed { return .refused }
            let directed = whole.reversed ? Array(line.reversed()) : line
            guard let reading = refined(directed, start: whole.start, module: whole.module, stretch: whole.stretch, wide: false,
                                        symbol: symbol),
                  reading.isClear else { continue }
            clear[reading.text, default: 0] += 1
        }
        guard let (text, count) = clear.max(by: { $0.value < $1.value }) else { return .refused }
        // Two bands suffice when the mean of all rows reads the same code clearly too (a code
        // cut by the crop's edge, or leaning, leaves only its middle rows readable).
        let wholeAgrees = whole.isClear && whole.text == text
        guard clear.count == 1, count >= agreeingBands || (count >= 2 && wholeAgrees) else { return .refused }
        return .read(text, bands: count)
    }

    /// The crop's rows averaged in `bands` bands, as darkness (bars high), and their mean.
    static func bandLines(_ crop: GrayImage) -> (bands: [[Double]], mean: [Double]) {
        let rowsPerBand = crop.height / bands
        var lines: [[Double]] = []
        for band in 0..<bands {
            var line = [Double](repeating: 0, count: crop.width)
            for y in band * rowsPerBand..<(band + 1) * rowsPerBand {
                let row = y * crop.width
                for x in 0..<crop.width { line[x] += Double(crop.pixels[row + x]) }
            }
            lines.append(line.map { 255 - $0 / Double(rowsPerBand) })
        }
        let mean = (0..<crop.width).map { x in lines.reduce(0) { $0 + $1[x] } / Double(bands) }
        return (lines, mean)
    }

    /// The best-fitting reading of one line of darkness values, either way round.
    /// `candidates`: how many of the best places the shared modules fit are refined.
    static func bestReading(_ line: [Double], modules: ClosedRange<Double>? = nil, candidates: Int = 3,
                            symbol: ModelSymbol = .ean13) -> Reading? {
        refinedBest(of: places(line, modules: modules, candidates: candidates, symbol: symbol), symbol: symbol)
    }

    /// Where a line's code may lie: the best places the shared modules fit (`coarseCandidates`),
    /// either way round, each with its shape score.
    static func places(_ line: [Double], modules: ClosedRange<Double>? = nil, candidates: Int = 3,
                       symbol: ModelSymbol = .ean13) -> [Place] {
        let reversedLine = Array(line.reversed())
        var places: [Place] = []
        for candidate in coarseCandidates(line, modules: modules, keep: candidates, symbol: symbol) {
            places.append(Place(line: line, start: candidate.start, module: candidate.module, stretch: candidate.stretch,
                                reversed: false, shape: candidate.score))
            // An EAN-13's shared modules read the same either way round: the code's
            // direction is the one its digits fit. A UPC-E's guards differ: its place is
            // looked for each way.
            guard symbol.isSymmetric else { continue }
            let mirroredStart = Double(line.count) - candidate.start - Double(symbol.moduleCount) * candidate.module
            places.append(Place(line: reversedLine, start: mirroredStart, module: candidate.module, stretch: -candidate.stretch,
                                reversed: true, shape: candidate.score))
        }
        if !symbol.isSymmetric {
            for candidate in coarseCandidates(reversedLine, modules: modules, keep: candidates, symbol: symbol) {
                places.append(Place(line: reversedLine, start: candidate.start, module: candidate.module, stretch: candidate.stretch,
                                    reversed: true, shape: candidate.score))
            }
        }
        return places
    }

    /// A place a code may lie on a line (the line as read: reversed when `reversed`).
    struct Place {
        var line: [Double]
        var start: Double
        var module: Double
        var stretch: Double
        var reversed: Bool
        /// How well the shared modules fit there (`coarseCandidates`' score).
        var shape: Double
    }

    /// The best reading of the places, each refined.
    static func refinedBest(of places: [Place], symbol: ModelSymbol) -> Reading? {
        var best: Reading?
        for place in places {
            if var reading = refined(place.line, start: place.start, module: place.module, stretch: place.stretch, symbol: symbol),
               reading.score > best?.score ?? -1 {
                reading.reversed = place.reversed
                best = reading
            }
        }
        return best
    }

    // MARK: - Geometry

    /// Stretches the code is looked for at: a code photographed at an angle (keystone) or on
    /// a curve has modules up to ~20% wider at one end than at the other. Each is refined
    /// by up to ±0.07, then ±0.02.
    static let stretches = [-0.14, 0, 0.14]
    /// Fit given up per unit of stretch when readings are compared (`Reading.score`).
    static let stretchPenalty = 0.15

    /// Where module `m` (0…95, fractional) starts on the line: modules `module` wide in the
    /// code's middle, `stretch` of that wider at its end than at its start (the code's
    /// overall width stays 95 modules).
    @inline(__always)
    static func position(_ m: Double, start: Double, module: Double, stretch: Double,
                         modules: Int = BarPatterns.moduleCount) -> Double {
        start + module * (m + stretch * (m * m / Double(2 * modules) - m / 2))
    }

    /// Start (left edge of module 0, in line samples) and module width of the positions
    /// where the shared modules fit best, a few distinct ones.
    static func coarseCandidates(_ line: [Double], modules: ClosedRange<Double>? = nil, keep: Int = 3,
                                 symbol: ModelSymbol = .ean13) -> [(start: Double, module: Double, stretch: Double, score: Double)] {
        let knownModules = symbol.knownModules
        let width = Double(line.count)
        let span = Double(symbol.moduleCount + 2 * quietModules)
        let smallest = max(1.0, modules?.lowerBound ?? 0), largest = min(width / span, modules?.upperBound ?? .infinity)
        guard largest >= smallest else { return [] }
        let template = knownModules.map(\.bar)
        let meanT = template.reduce(0, +) / Double(template.count)
        let centred = template.map { $0 - meanT }
        let normT = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let n = Double(knownModules.count)
        var found: [(start: Double, module: Double, stretch: Double, score: Double)] = []
        // The line is resampled once per module width on a grid of 1/4 module: every known
        // module's centre is then a whole number of grid steps from the start (the nearest
        // one when stretched), read without interpolating.
        let perModule = 4
        let offsetsByStretch = stretches.map { stretch in
            knownModules.map {
                Int((position(Double($0.module) + 0.5, start: 0, module: 1, stretch: stretch, modules: symbol.moduleCount) * Double(perModule)).rounded())
            }
        }
        // Samples as Float about the line's mean (exact enough for a correlation, and eight
        // starts a step in SIMD: a quarter of the time of one Double start at a time).
        let lineMean = line.reduce(0, +) / max(1, width)
        var grid: [Float] = [], squares: [Float] = []
        let weights = centred.map { Float($0) }
        let nFloat = Float(n), looseShape = Float(0.75 * minimumShape * minimumShape * normT * normT)
        let lanes = 8
        line.withUnsafeBufferPointer { line in
            var module = smallest
            while module <= largest {
                let step = module / Double(perModule)
                let count = Int((width - 1) / step) + 1
                grid.removeAll(keepingCapacity: true)
                for k in 0..<count { grid.append(Float(sample(line, at: Double(k) * step) - lineMean)) }
                // Loads of a last partial group of starts stay inside the arrays.
                grid.append(contentsOf: repeatElement(0, count: lanes))
                squares.removeAll(keepingCapacity: true)
                squares.append(contentsOf: grid.lazy.map { $0 * $0 })
                let first = quietModules * perModule
                let last = Int((width - Double(symbol.moduleCount + quietModules) * module - 1) / step)
                for (stretchIndex, stretch) in stretches.enumerated() {
                    let offsets = offsetsByStretch[stretchIndex]
                    guard first <= last, first + offsets.min()! >= 0, last + offsets.max()! < count else { continue }
                    grid.withUnsafeBytes { grid in
                        squares.withUnsafeBytes { squares in
                            var k = first
                            while k <= last {
                                var sum = SIMD8<Float>(), squareSum = SIMD8<Float>(), dot = SIMD8<Float>()
                                for (offset, weight) in zip(offsets, weights) {
                                    let at = (k + offset) * MemoryLayout<Float>.stride
                                    let v = grid.loadUnaligned(fromByteOffset: at, as: SIMD8<Float>.self)
                                    sum += v
                                    squareSum += squares.loadUnaligned(fromByteOffset: at, as: SIMD8<Float>.self)
                                    dot += v * weight
                                }
                                // Most starts fit nothing: a loose bound in Float (the variance's rounding
                                // is under a gray level², the bound 25% below minimumShape²) leaves their
                                // exact scores in Double unmade. The same places and scores.
                                let variance = squareSum - sum * sum / nFloat
                                let mayFit = (dot .> 0) .& (dot * dot .>= looseShape * variance)
                                guard any(mayFit) else { k += lanes; continue }
                                for lane in 0..<min(lanes, last - k + 1) {
                                    // The template's values sum to 0: the line's mean drops out of the dot product.
                                    let variance = Double(squareSum[lane]) - Double(sum[lane]) * Double(sum[lane]) / n
                                    // Flat (under 1 gray level of spread): no bars, and Float's
                                    // rounding would make a score of nothing.
                                    guard variance > n else { continue }
                                    let score = Double(dot[lane]) / (variance.squareRoot() * normT)
                                    if score >= minimumShape { found.append((Double(k + lane) * step, module, stretch, score)) }
                                }
                                k += lanes
                            }
                        }
                    }
                }
                // The refinement reaches ±1.5%: 2% steps miss nothing.
                module *= 1.02
            }
        }
        found.sort { $0.score > $1.score }
        var kept: [(start: Double, module: Double, stretch: Double, score: Double)] = []
        for candidate in found {
            guard kept.count < keep else { break }
            let distinct = kept.allSatisfy { abs($0.start - candidate.start) > 2 * $0.module || abs($0.module - candidate.module) > 0.03 * $0.module }
            if distinct { kept.append(candidate) }
        }
        return kept
    }

    /// The reading at the best nearby geometry and blur: geometry first, at a middling
    /// blur, then the blur. `wide`: start within ±1 px and module within ±1.5% in coarse
    /// steps, then finer around the best; else (a band read where the whole crop read)
    /// start ±0.5 px and module ±0.25% in fine steps.
    static func refined(_ line: [Double], start: Double, module: Double, stretch: Double = 0, wide: Bool = true,
                        symbol: ModelSymbol = .ean13) -> Reading? {
        var best: Reading?
        func search(_ start: Double, _ module: Double, _ stretch: Double,
                    moduleSteps: Int, moduleStep: Double, startSteps: Int, startStep: Double) {
            for i in -moduleSteps...moduleSteps {
                let m = module * (1 + Double(i) * moduleStep)
                for j in -startSteps...startSteps {
                    guard let reading = reading(line, start: start + Double(j) * startStep, module: m, blur: middlingBlur,
                                                stretch: stretch, symbol: symbol) else { continue }
                    if reading.score > best?.score ?? -1 { best = reading }
                }
            }
        }
        if wide {
            search(start, module, stretch, moduleSteps: 3, moduleStep: 0.005, startSteps: 2, startStep: 0.5)
            // The stretch between the coarse steps, then the place again at the best one.
            if let coarse = best {
                for delta in [-0.07, -0.035, 0.035, 0.07] {
                    search(coarse.start, coarse.module, coarse.stretch + delta, moduleSteps: 1, moduleStep: 0.005, startSteps: 1, startStep: 0.5)
                }
            }
            if let coarse = best {
                search(coarse.start, coarse.module, coarse.stretch, moduleSteps: 1, moduleStep: 0.0025, startSteps: 1, startStep: 0.25)
            }
        } else {
            for delta in [-0.02, 0, 0.02] {
                search(start, module, stretch + delta, moduleSteps: 1, moduleStep: 0.0025, startSteps: 2, startStep: 0.25)
            }
        }
        guard let geometry = best else { return nil }
        for blur in blurs.indices where blur != middlingBlur {
            if let reading = reading(line, start: geometry.start, module: geometry.module, blur: blur, stretch: geometry.stretch,
                                     symbol: symbol),
               reading.fit > best!.fit {
                best = reading
            }
        }
        if symbol.margin > 0, let chosen = best { best!.marginsClear = marginsClear(line, of: chosen, symbol: symbol) }
        // Only a reading clear otherwise can be contested (most places, on a patch with no code,
        // are not: the 60 straight readings are saved there).
        guard wide, var chosen = best, abs(chosen.stretch) >= 0.01, chosen.isClear else { return best }
        // The same place read straight, at every blur: a different clear code there contests it.
        for blur in blurs.indices {
            for i in -1...1 {
                for j in -2...2 {
                    guard let straight = reading(line, start: chosen.start + Double(j) * 0.25, module: chosen.module * (1 + Double(i) * 0.0025),
                                                 blur: blur, symbol: symbol),
                          straight.isClear, straight.text != chosen.text else { continue }
                    // Its margins only for a reading that would contest (most are not clear).
                    if symbol.margin == 0 || marginsClear(line, of: straight, symbol: symbol) { chosen.contested = true }
                }
            }
        }
        return chosen
    }

    /// Whether the `symbol.margin` modules past the one next to the bars, each side, are
    /// paper: no sample (every half module) darker than a quarter of the way from the
    /// lightest to the darkest of the code. Part of an EAN-13 read as a UPC-E runs on into
    /// the longer code's bars, and a lone bar blurred to a module's width still reaches a
    /// third of the way. False when the margins run off the line.
    static func marginsClear(_ line: [Double], of reading: Reading, symbol: ModelSymbol) -> Bool {
        func at(_ m: Double) -> Double {
            position(m, start: reading.start, module: reading.module, stretch: reading.stretch, modules: symbol.moduleCount)
        }
        let before = Double(-1 - symbol.margin), after = Double(symbol.moduleCount + symbol.margin)
        guard at(before) >= 0, at(after) < Double(line.count - 1) else { return false }
        return line.withUnsafeBufferPointer { line in
            let code = (0..<symbol.moduleCount).map { sample(line, at: at(Double($0) + 0.5)) }
            let margins = stride(from: before + 0.25, to: -1, by: 0.5).map { sample(line, at: at($0)) }
                + stride(from: Double(symbol.moduleCount + 1) + 0.25, to: after, by: 0.5).map { sample(line, at: at($0)) }
            let paper = min(code.min()!, margins.min()!), ink = code.max()!
            guard ink > paper else { return false }
            return margins.max()! <= paper + 0.25 * (ink - paper)
        }
    }

    // MARK: - Digits

    /// Each digit's window: one module of context either side of its 7.
    static let windowModules = 9

    /// Blurred, centred, unit-length patterns for every blur: [blur][set][digit], set 0 = odd
    /// (L), 1 = even (G), 2 = right (R). Context modules: left digits follow a bar and precede
    /// a space, right digits the opposite; beyond those, unknown (half a bar).
    static let templates: [[[[Double]]]] = blurs.map { sigma in
        [BarPatterns.odd, BarPatterns.even, BarPatterns.right].enumerated().map { set, patterns in
            patterns.map { pattern in
                let before: Double = set == 2 ? 0 : 1, after: Double = set == 2 ? 1 : 0
                // Modules −2…8 of the window's digit, as bars.
                let modules = [0.5, before] + pattern.map(Double.init) + [after, 0.5]
                var values: [Double] = []
                for j in 0..<windowModules * samplesPerModule {
                    let u = Double(j) + 0.5
                    let position = u / Double(samplesPerModule) + 1   // in modules from module −2
                    values.append(blurred(modules, at: position, sigma: sigma))
                }
                let mean = values.reduce(0, +) / Double(values.count)
                let centred = values.map { $0 - mean }
                let norm = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
                return centred.map { $0 / max(norm, 1e-9) }
            }
        }
    }

    /// `templates` by sample, the ten digits' values side by side: [(blur * 3 + set) * count + sample],
    /// digits 0–7 in `first`, 8–9 in `last`. A window's ten dot products then run as one
    /// (each digit's sum still taken in sample order: the same values as one digit at a time,
    /// which waited on each addition before the next).
    static let digitsBySample: (first: [SIMD8<Double>], last: [SIMD2<Double>]) = {
        let count = windowModules * samplesPerModule
        var first: [SIMD8<Double>] = [], last: [SIMD2<Double>] = []
        for sets in templates {
            for patterns in sets {
                for j in 0..<count {
                    first.append(SIMD8((0..<8).map { patterns[$0][j] }))
                    last.append(SIMD2(patterns[8][j], patterns[9][j]))
                }
            }
        }
        return (first, last)
    }()

    /// A module pattern (index 0 starting at 0) seen through a Gaussian blur of `sigma`
    /// modules, at `position`; beyond the pattern, half a bar.
    static func blurred(_ modules: [Double], at position: Double, sigma: Double) -> Double {
        func cdf(_ x: Double) -> Double { 0.5 * (1 + erf(x / (sigma * 2.0.squareRoot()))) }
        var value = 0.5 * cdf(0 - position) + 0.5 * (1 - cdf(Double(modules.count) - position))
        for (k, bar) in modules.enumerated() where bar != 0 {
            value += bar * (cdf(Double(k + 1) - position) - cdf(Double(k) - position))
        }
        return value
    }

    /// The best digits at one geometry and blur, or nil when the code runs off the line.
    static func reading(_ line: [Double], start: Double, module: Double, blur: Int, stretch: Double = 0,
                        symbol: ModelSymbol = .ean13) -> Reading? {
        guard let flat = scores(line, start: start, module: module, blur: blur, stretch: stretch, symbol: symbol) else { return nil }
        let count = symbol.digitStarts.count
        // Right half: each digit's best.
        var positions = [Int](repeating: 0, count: count)
        var total = 0.0, margin = Double.infinity, worst = Double.infinity
        for position in symbol.leftDigits..<count {
            let (digit, best, second) = top2(flat, from: position * 30 + 20, count: 10)
            positions[position] = digit
            total += best
            worst = min(worst, best)
            margin = min(margin, best - second)
        }
        // Left half: the parity pattern that fits best gives the digit (digits) the parities
        // encode, and each digit's set. A digit's lead counts within its set: one whose other
        // set's pattern fits about as well is the parity's to settle, and every two patterns
        // differ in two or more digits' sets (a blurred 6 in L against G's: 0.047, where the
        // parity led by 0.29 and all the bands read the code).
        let (parity, bestParity, secondParity) = top2(parityTotals(flat, symbol: symbol), from: 0, count: symbol.parityPatterns.count)
        margin = min(margin, bestParity - secondParity)
        for position in 0..<symbol.leftDigits {
            let set = symbol.parityPatterns[parity][position] ? 1 : 0
            let (digit, best, second) = top2(flat, from: position * 30 + set * 10, count: 10)
            positions[position] = digit
            worst = min(worst, best)
            margin = min(margin, best - second)
        }
        total += bestParity
        return Reading(digits: symbol.digits(parity: parity, positions: positions), fit: total / Double(count), worstDigit: worst,
                       margin: margin, start: start, module: module, stretch: stretch, blur: blur, symbol: symbol.symbology,
                       parity: parity)
    }

    /// For each parity pattern, how well it fits the left digits: the sum over them of the
    /// best digit in the set (L or G) the pattern gives that position.
    static func parityTotals(_ scores: [Double], symbol: ModelSymbol = .ean13) -> [Double] {
        // [position * 2 + set], once: this runs per geometry tried.
        var bestOf = [Double](repeating: 0, count: 2 * symbol.leftDigits)
        for position in 0..<symbol.leftDigits {
            for set in 0...1 { bestOf[position * 2 + set] = top2(scores, from: position * 30 + set * 10, count: 10).best }
        }
        return symbol.parityPatterns.map { parity in
            (0..<symbol.leftDigits).reduce(0) { $0 + bestOf[$1 * 2 + (parity[$1] ? 1 : 0)] }
        }
    }

    /// Each digit window's correlation with every pattern at one geometry and blur:
    /// `[position * 30 + set * 10 + digit]` (set 0 = L, 1 = G, 2 = R; the left half's
    /// windows have sets 0–1, the right half's set 2, the rest −1). Nil when the code runs
    /// off the line or a window is flat.
    static func scores(_ line: [Double], start: Double, module: Double, blur: Int, stretch: Double = 0,
                       symbol: ModelSymbol = .ean13) -> [Double]? {
        let modules = symbol.moduleCount
        guard position(-1, start: start, module: module, stretch: stretch, modules: modules) >= 0,
              position(Double(modules + 1), start: start, module: module, stretch: stretch, modules: modules) < Double(line.count - 1)
        else { return nil }
        let count = windowModules * samplesPerModule
        // scores[position * 30 + set * 10 + digit]: correlation of each pattern with the pixels.
        var flat = [Double](repeating: -1, count: symbol.digitStarts.count * 30)
        var values = [Double](repeating: 0, count: count)
        let (firstDigits, lastDigits) = digitsBySample
        let ok = line.withUnsafeBufferPointer { line in
            firstDigits.withUnsafeBufferPointer { firstDigits in
                lastDigits.withUnsafeBufferPointer { lastDigits in
                    values.withUnsafeMutableBufferPointer { values in
                        flat.withUnsafeMutableBufferPointer { flat in
                            for (index, digitStart) in symbol.digitStarts.enumerated() {
                                let windowStart = Double(digitStart - 1)
                                var sum = 0.0
                                for j in 0..<count {
                                    let m = windowStart + (Double(j) + 0.5) / Double(samplesPerModule)
                                    let v = sample(line, at: position(m, start: start, module: module, stretch: stretch, modules: modules))
                                    values[j] = v
                                    sum += v
                                }
                                let mean = sum / Double(count)
                                var norm = 0.0
                                for j in 0..<count { values[j] -= mean; norm += values[j] * values[j] }
                                norm = norm.squareRoot()
                                guard norm > 1e-6 else { return false }
                                for set in index < symbol.leftDigits ? 0...1 : 2...2 {
                                    let base = (blur * 3 + set) * count
                                    var first = SIMD8<Double>(), last = SIMD2<Double>()
                                    for j in 0..<count {
                                        first += values[j] * firstDigits[base + j]
                                        last += values[j] * lastDigits[base + j]
                                    }
                                    let out = index * 30 + set * 10
                                    for digit in 0..<8 { flat[out + digit] = first[digit] / norm }
                                    flat[out + 8] = last[0] / norm
                                    flat[out + 9] = last[1] / norm
                                }
                            }
                            return true
                        }
                    }
                }
            }
        }
        return ok ? flat : nil
    }

    /// The index (from `from`) and value of the largest of `count` values, and the second largest.
    static func top2(_ values: [Double], from: Int, count: Int) -> (index: Int, best: Double, second: Double) {
        var index = 0, best = -Double.infinity, second = -Double.infinity
        for i in 0..<count {
            let v = values[from + i]
            if v > best { second = best; best = v; index = i } else if v > second { second = v }
        }
        return (index, best, second)
    }

    /// Linear interpolation between samples; clamped at the ends.
    @inline(__always)
    static func sample(_ line: UnsafeBufferPointer<Double>, at x: Double) -> Double {
        let position = min(max(x - 0.5, 0), Double(line.count - 1))
        let i = Int(position)
        guard i + 1 < line.count else { return line[line.count - 1] }
        let f = position - Double(i)
        return line[i] * (1 - f) + line[i + 1] * f
    }
}
