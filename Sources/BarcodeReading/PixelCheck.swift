import Foundation
import Imaging

/// Checks the digits zbar read for an EAN-13/UPC-A against the pixels, with `ModelDecoder`'s
/// blurred digit patterns.
///
/// zbar tells digits apart by bar widths, and a blur of about a module moves bar edges alike
/// on every scan line: a 7 read as 1, an 8 as 2, an L digit as its G twin, by many lines at
/// once, so neither line counts nor the check digit catch it (the misread traps). The model
/// compares each digit's whole blurred window with all 30 patterns instead. The code is found
/// where zbar read it (its box, the bars' direction from the gradients there), fitted at the
/// geometry and blur that explain the *claimed* digits best, and refused only when some
/// digit's claimed pattern is still clearly beaten there by another pattern. A code the
/// model cannot find (too soft, too small, odd print) is not refused: no finding, no verdict.
enum PixelCheck {
    enum Verdict: Equatable {
        /// Digit `digit` (1–13, in the code's order; 0: the left half's parity, which gives
        /// the first digit) fits another pattern better than the claimed one by `lead`.
        case contradicted(digit: Int, lead: Double)
        /// Found, and no digit clearly beaten: `lead` is the largest lead of another pattern.
        case consistent(lead: Double)
        /// The code could not be found on the pixels (or is not an EAN-13/UPC-A).
        case notFound
    }

    /// Another pattern must fit the digit's window this much better (correlation) than the
    /// claimed one, on the mean of the code's rows and on every band of them. On 3,840 misread
    /// traps the misread digit lost by 0.16–0.74 (one by 0.06) on every band; codes read right
    /// (real photos, phone and webcam sets, small codes, degradations: ~1,400 checks) never
    /// lost by more than 0.0 on all bands at once, while single bands of a real photo lost by
    /// up to 1.4 (smudges, print flaws, rows past the bars).
    static let contradictingLead = Double(ProcessInfo.processInfo.environment["RAPIDSCAN_PIXEL_LEAD"] ?? "") ?? 0.12
    /// The code counts as found only when the model's own best reading there explains the
    /// bars this well (mean correlation): traps' fitted 0.96–0.98; real photos whose digits a
    /// model fitting 0.81–0.93 "contradicted" on a band or two were read right.
    static let minimumFit = 0.93

    /// The digits of `text` as an EAN-13 (a UPC-A gets its leading 0), or nil.
    static func digits(of detection: Detection) -> [Int]? {
        let text: String
        switch detection.symbology {
        case .ean13, .isbn13: text = detection.text
        case .upcA: text = "0" + detection.text
        default: return nil
        }
        let digits = text.compactMap(\.wholeNumberValue)
        return digits.count == 13 ? digits : nil
    }

    /// Checks `detection` (its box in `image`'s pixels times `scale`) against `image`.
    static func check(_ detection: Detection, in image: GrayImage, scale: Int = 1) -> Verdict {
        guard let claimed = digits(of: detection) else { return .notFound }
        guard let crop = upright(detection.bounds, in: image, scale: scale) else {
            if tracing { FileHandle.standardError.write(Data("pixelcheck \(detection.text) not located, box \(detection.bounds) angle \(String(describing: barDirection(around: (Double(detection.bounds.x), Double(detection.bounds.y), Double(detection.bounds.width), Double(detection.bounds.height)), in: image)))\n".utf8)) }
            return .notFound
        }
        if tracing { FileHandle.standardError.write(Data("pixelcheck-box \(detection.text) \(detection.bounds) image \(image.width)x\(image.height)\n".utf8)) }
        return check(claimed, on: crop.image, codeWidth: crop.codeWidth)
    }

    /// The code around zbar's box, cut upright (bars vertical).
    /// zbar's box runs between the ends of the scan lines that read the code: across the
    /// bars it spans the code, along them the lines (all within the bars).
    static func upright(_ bounds: BoundingBox, in image: GrayImage, scale: Int) -> (image: GrayImage, codeWidth: ClosedRange<Double>)? {
        let s = Double(scale)
        let box = (x: Double(bounds.x) / s, y: Double(bounds.y) / s, width: Double(bounds.width) / s, height: Double(bounds.height) / s)
        // zbar scans rows and columns: without a clear direction, a wide box was read along rows.
        let angle = barDirection(around: box, in: image) ?? (box.width >= box.height ? 0 : .pi / 2)
        let c = abs(cos(angle)), si = abs(sin(angle))
        // Projections of the box on the directions across and along the bars.
        let measured = box.width * c + box.height * si
        let spanAlong = box.width * si + box.height * c
        // How wide the code can be, and how far it can reach from the box's centre. The box
        // can be part of the code only (the strongest read's lines may have ended at the
        // centre guard): up to twice as wide, reaching 1.5 box widths from its centre; a little
        // less than the box when it is a turned code's (its corners add the lines' length).
        // Lines that all ended at one end or at the centre guard leave a box as thin as a line
        // across the bars: the code is then at least as wide as the lines are long (bars are
        // shorter than the code is wide), and they may have crossed only part of the bars.
        let widths: ClosedRange<Double>, reach: Double
        if measured >= spanAlong * 0.3 {
            widths = measured * 0.7...measured * 2.1
            reach = measured * 1.6
        } else {
            widths = spanAlong...spanAlong * 4
            reach = widths.upperBound
        }
        guard widths.lowerBound >= 20 else { return nil }
        // At ≥ 2 px per module for the narrowest code (fewer when the crop would be too wide).
        let smallestModule = widths.lowerBound / Double(BarPatterns.moduleCount)
        let across = 2 * reach + 16 * smallestModule
        let step = max(0.5, smallestModule / 2, across / 1600)
        let along = min(max(spanAlong, 12 * step), widths.lowerBound * 0.4)
        let width = Int((across / step).rounded(.up)), height = max(ModelDecoder.bands * 2, Int((along / step).rounded()))
        guard width * height <= 1_000_000 else { return nil }
        let mapping = RegionMapping(centreX: box.x + box.width / 2, centreY: box.y + box.height / 2, angle: angle,
                                    step: step, width: width, height: height)
        guard let crop = RegionReading.crop(mapping, from: image) else { return nil }
        let codeWidth = (widths.lowerBound / step)...(widths.upperBound / step + 4)
        return (crop.image, codeWidth)
    }

    /// The direction across the bars (radians, the gradients' dominant one) inside the box,
    /// or nil when its edges do not run mostly one way.
    static func barDirection(around box: (x: Double, y: Double, width: Double, height: Double), in image: GrayImage) -> Double? {
        // The middle of the box, its edges can reach the bars' ends (edges the other way); a
        // thin box (a few scan lines, or lines ending at one end) widened to a quarter of its length.
        let least = max(box.width, box.height) / 4
        let width = max(box.width, least) * 0.8, height = max(box.height, least) * 0.8
        let centreX = box.x + box.width / 2, centreY = box.y + box.height / 2
        let x0 = max(1, Int(centreX - width / 2)), x1 = min(image.width - 2, Int(centreX + width / 2))
        let y0 = max(1, Int(centreY - height / 2)), y1 = min(image.height - 2, Int(centreY + height / 2))
        guard x1 > x0 + 2, y1 > y0 else { return nil }
        // ~40 000 samples at most.
        let step = max(1, Int((Double((x1 - x0) * (y1 - y0)) / 40_000).squareRoot()))
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        let w = image.width
        image.pixels.withUnsafeBufferPointer { p in
            var y = y0
            while y <= y1 {
                var x = x0
                while x <= x1 {
                    let i = y * w + x
                    let gx = Double(Int(p[i + 1]) - Int(p[i - 1])), gy = Double(Int(p[i + w]) - Int(p[i - w]))
                    sxx += gx * gx; syy += gy * gy; sxy += gx * gy
                    x += step
                }
                y += step
            }
        }
        let trace = sxx + syy
        guard trace > 0 else { return nil }
        let coherence = ((sxx - syy) * (sxx - syy) + 4 * sxy * sxy).squareRoot() / trace
        guard coherence >= 0.3 else { return nil }
        var angle = 0.5 * atan2(2 * sxy, sxx - syy)
        if angle < 0 { angle += .pi }
        return angle
    }

    /// The verdict on an upright crop of the code.
    static func check(_ claimed: [Int], on crop: GrayImage, codeWidth: ClosedRange<Double>) -> Verdict {
        guard crop.height >= ModelDecoder.bands else { return .notFound }
        let (bands, mean) = ModelDecoder.bandLines(crop)
        let modules = codeWidth.lowerBound / Double(BarPatterns.moduleCount)...codeWidth.upperBound / Double(BarPatterns.moduleCount)
        // Where the code is: the shared modules (guards, quiet zones, each digit's ends) and
        // the best digits, either way round.
        guard let free = ModelDecoder.bestReading(mean, modules: modules) else {
            if tracing {
                FileHandle.standardError.write(Data("pixelcheck \(claimed) no reading, crop \(crop.width)x\(crop.height) modules \(modules)\n".utf8))
                try? (Data("P5\n\(crop.width) \(crop.height)\n255\n".utf8) + Data(crop.pixels)).write(to: URL(fileURLWithPath: "/tmp/pc-\(claimed.map(String.init).joined()).pgm"))
            }
            return .notFound
        }
        // The claimed digits at the geometry and blur that fit them best, both ways round.
        var best: Fit?
        let reversedMean = Array(mean.reversed())
        let mirroredStart = Double(mean.count) - free.start - Double(BarPatterns.moduleCount) * free.module
        let freeStart = free.reversed ? mirroredStart : free.start
        for (line, start, stretch, reversed) in [(mean, freeStart, free.reversed ? -free.stretch : free.stretch, false),
                                                 (reversedMean, Double(mean.count) - freeStart - Double(BarPatterns.moduleCount) * free.module,
                                                  free.reversed ? free.stretch : -free.stretch, true)] {
            if var fit = bestFit(claimed, line: line, start: start, module: free.module, stretch: stretch), fit.fit > best?.fit ?? -2 {
                fit.reversed = reversed
                best = fit
            }
        }
        guard let fit = best, free.fit >= minimumFit else { trace(claimed, free: free, fit: best, bands: []); return .notFound }
        // Each band at that geometry (a little drift allowed): a contradiction must be the
        // same digit's on every band, not a smudge's or a print flaw's on some.
        var bandLeads: [Double] = []
        for band in bands {
            let line = fit.reversed ? Array(band.reversed()) : band
            if let bandFit = bestFit(claimed, line: line, start: fit.start, module: fit.module, stretch: fit.stretch,
                                     blurs: [fit.blur], moduleSteps: 0, startSteps: 2) {
                bandLeads.append(bandFit.leads[fit.digit])
            }
        }
        trace(claimed, free: free, fit: fit, bands: bandLeads)
        // A band the code does not reach (flat: past the bars' ends) has no say.
        if fit.lead >= contradictingLead, bandLeads.count > bands.count / 2, bandLeads.allSatisfy({ $0 >= contradictingLead }) {
            return .contradicted(digit: fit.digit, lead: fit.lead)
        }
        return .consistent(lead: fit.lead)
    }

    /// The claimed digits at one geometry: their patterns' mean correlation, and the digit
    /// another pattern beats by most (`lead`).
    struct Fit {
        var fit: Double
        /// Per digit (1–13), the most another pattern fits better than the claimed one.
        var leads: [Double]
        /// The digit beaten by most, and by how much.
        var digit: Int { (1...13).max { leads[$0] < leads[$1] }! }
        var lead: Double { leads[digit] }
        var start: Double
        var module: Double
        var stretch: Double
        var blur: Int
        var reversed = false
    }

    /// The geometry near (`start`, `module`) and blur where the claimed digits fit best.
    static func bestFit(_ claimed: [Int], line: [Double], start: Double, module: Double, stretch: Double,
                        blurs: [Int] = Array(ModelDecoder.blurs.indices), moduleSteps: Int = 2, startSteps: Int = 2) -> Fit? {
        var best: Fit?
        for blur in blurs {
            for i in -moduleSteps...moduleSteps {
                let m = module * (1 + Double(i) * 0.0025)
                for j in -startSteps...startSteps {
                    let s = start + Double(j) * 0.25
                    guard let scores = ModelDecoder.scores(line, start: s, module: m, blur: blur, stretch: stretch) else { continue }
                    let (fit, leads) = compare(claimed, scores)
                    if fit > best?.fit ?? -2 {
                        best = Fit(fit: fit, leads: leads, start: s, module: m, stretch: stretch, blur: blur)
                    }
                }
            }
        }
        return best
    }

    /// The claimed digits against the patterns' scores (`ModelDecoder.scores`): their mean
    /// correlation, and for each digit (index 1–13 in the code's order; the first digit is
    /// the left half's parity) the most another pattern fits better than the claimed one.
    static func compare(_ claimed: [Int], _ scores: [Double]) -> (fit: Double, leads: [Double]) {
        let parity = BarPatterns.parities[claimed[0]]
        var total = 0.0
        var leads = [Double](repeating: -1, count: 14)
        for position in 0..<12 {
            let sets = position < 6 ? 0...1 : 2...2
            let set = position < 6 ? (parity[position] ? 1 : 0) : 2
            let own = scores[position * 30 + set * 10 + claimed[position + 1]]
            total += own
            var other = -Double.infinity
            for s in sets {
                for d in 0..<10 where !(s == set && d == claimed[position + 1]) {
                    other = max(other, scores[position * 30 + s * 10 + d])
                }
            }
            leads[position + 2] = other - own
        }
        // The parity as a whole: the first digit another parity pattern would give, each
        // left digit at its best in that pattern's sets, per digit.
        var bestOf = [Double](repeating: 0, count: 12)
        for position in 0..<6 {
            for set in 0...1 { bestOf[position * 2 + set] = ModelDecoder.top2(scores, from: position * 30 + set * 10, count: 10).best }
        }
        var totals = [Double](repeating: 0, count: 10)
        for (first, pattern) in BarPatterns.parities.enumerated() {
            for position in 0..<6 { totals[first] += bestOf[position * 2 + (pattern[position] ? 1 : 0)] }
        }
        let otherParity = (0..<10).filter { $0 != claimed[0] }.map { totals[$0] }.max()!
        leads[1] = (otherParity - totals[claimed[0]]) / 6
        return (total / 12, leads)
    }

    /// Development trace (RAPIDSCAN_TRACE_PIXEL_CHECK=1): what the check saw, on stderr.
    static let tracing = ProcessInfo.processInfo.environment["RAPIDSCAN_TRACE_PIXEL_CHECK"] != nil
    static func trace(_ claimed: [Int], free: ModelDecoder.Reading, fit: Fit?, bands: [Double]) {
        guard tracing else { return }
        let text = claimed.map(String.init).joined()
        let f = fit.map { String(format: "fit %.3f digit %d lead %.3f blur %d", $0.fit, $0.digit, $0.lead, $0.blur) } ?? "no fit"
        let b = bands.map { String(format: "%.2f", $0) }.joined(separator: " ")
        FileHandle.standardError.write(Data("pixelcheck \(text) free \(free.text) \(String(format: "%.3f", free.fit)) \(f) bands \(b)\n".utf8))
    }
}

extension AttemptLog {
    /// Checks each newly confirmed EAN-13/UPC-A zbar read against the file's pixels and
    /// refuses those they contradict; true when a confirmed code still stands.
    mutating func reportable() -> Bool {
        agreement.checkAgainstPixels(pixels)
        return !agreement.verdict.codes.isEmpty
    }
}

extension Agreement {
    /// Checks the codes the verdict would report that were not checked yet (zbar's reads;
    /// the model's own readings need no second look by the model), refusing the contradicted.
    /// `scale`: file pixels per pixel of `image`.
    mutating func checkAgainstPixels(_ image: GrayImage, scale: Int = 1) {
        for code in verdict.codes where !checked.contains(code.identity) {
            checked.insert(code.identity)
            guard let sighting = sightings.first(where: { $0.detection.identity == code.identity }),
                  !sighting.attempts.contains(Agreement.modelFitAttempt) else { continue }
            if PixelCheck.tracing { FileHandle.standardError.write(Data("pixelcheck-attempts \(sighting.attempts.sorted())\n".utf8)) }
            if case .contradicted = PixelCheck.check(sighting.detection, in: image, scale: scale) {
                refuse(code.identity)
            }
        }
    }
}
