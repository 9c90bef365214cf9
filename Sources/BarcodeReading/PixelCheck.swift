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
        /// Digit `digit` (1–13, in the code's order; the first is the left half's parity
        /// pattern) fits another pattern better than the claimed one by `lead`.
        case contradicted(digit: Int, lead: Double)
        /// Found, and no digit clearly beaten: `lead` is the largest lead of another pattern.
        case consistent(lead: Double)
        /// The code could not be found on the pixels (or is not an EAN-13/UPC-A).
        case notFound
    }

    /// Another pattern must fit the digit's window this much better (correlation) than the
    /// claimed one, on the mean of the code's rows and on every band of them. On 3,840 misread
    /// traps (`scripts/bench-misread-traps --count 480`) the misread digit lost by 0.16–0.74
    /// on every band (one by 0.06). On 1,159 checks of codes read right (real photos, phone
    /// and webcam sets, small codes, degradations) no claimed digit lost on the mean (largest
    /// lead −0.04), single bands by up to 0.37.
    static let contradictingLead = 0.12
    /// The code counts as found only when the model's own best reading there explains the
    /// bars this well (mean correlation): the traps' fitted 0.96–0.98. Where the model fitted
    /// real photos 0.6–0.93 it "contradicted" codes read right by up to 0.68 on the mean and
    /// 1.4 on single bands (smudges, print flaws, rows past the bars): no grip, no verdict.
    static let minimumFit = 0.93
    /// How much better (mean correlation) the model's own reading must fit than the claimed
    /// digits' best for the claim to be refused. On the misread traps (upright and turned)
    /// such readings fitted 0.014–0.41 better; on 774 checks of codes read right (real
    /// photos upright, turned and degraded; webcam and phone sets) a different model
    /// reading fitted at most 0.009 better.
    static let betterReading = 0.015

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
        return check(claimed, in: looks(detection.bounds, in: image, scale: scale))
    }

    /// One upright crop of the code's surroundings (bars vertical) and how wide the code
    /// may be in it, in crop pixels.
    struct Look {
        var image: GrayImage
        var codeWidth: ClosedRange<Double>
    }

    /// Where to look for the code around zbar's box, likeliest first. zbar's box runs
    /// between the ends of the scan lines that read the code: across the bars it usually
    /// spans the code, along them the lines (all within the bars).
    static func looks(_ bounds: BoundingBox, in image: GrayImage, scale: Int) -> [Look] {
        let s = Double(scale)
        let box = (x: Double(bounds.x) / s, y: Double(bounds.y) / s, width: Double(bounds.width) / s, height: Double(bounds.height) / s)
        // zbar scans rows and columns: without a clear direction, a wide box was read along rows.
        let angle = barDirection(around: box, in: image) ?? (box.width >= box.height ? 0 : .pi / 2)
        let c = abs(cos(angle)), si = abs(sin(angle))
        // Projections of the box on the directions across and along the bars.
        let measured = box.width * c + box.height * si
        let spanAlong = box.width * si + box.height * c
        func look(widths: ClosedRange<Double>, reach: Double, lines: Double) -> Look? {
            guard widths.lowerBound >= 20 else { return nil }
            // ≥ 2 samples per module of the narrowest code (fewer if the crop would be too wide):
            // sampled straight from the pixels, no bar is skipped, and the bands average the rows' noise.
            let smallestModule = widths.lowerBound / Double(BarPatterns.moduleCount)
            let across = 2 * reach + 20 * smallestModule
            let step = max(0.5, smallestModule / 2, across / 1600)
            let along = min(max(lines, 12 * step), widths.lowerBound * 0.4)
            let width = Int((across / step).rounded(.up)), height = max(ModelDecoder.bands * 2, Int((along / step).rounded()))
            guard width * height <= 1_000_000 else { return nil }
            let crop = image.sampled(centreX: box.x + box.width / 2, centreY: box.y + box.height / 2, angle: angle,
                                     width: width, height: height, step: step)
            return Look(image: crop, codeWidth: widths.lowerBound / step...widths.upperBound / step + 4)
        }
        guard measured >= spanAlong * 0.3 else {
            // Lines that all ended at one end or at the centre guard leave a box as thin as a
            // line across the bars: the code is then at least as wide as the lines are long
            // (bars are shorter than the code is wide), and they may have crossed only part of
            // the bars; it reaches its whole width from the box.
            return [look(widths: spanAlong...spanAlong * 4, reach: spanAlong * 4, lines: spanAlong)].compactMap { $0 }
        }
        // Likeliest: the box spans the code. The box of a turned code is the box around the
        // turned rectangle of the code's width and the lines' length: both solved for, except
        // near 45° where they mix (then the lines add up to 0.8 of the width).
        let mix = c * c - si * si
        let likely: ClosedRange<Double>, lines: Double
        if abs(mix) >= 0.3 {
            let width = (box.width * c - box.height * si) / mix
            lines = max(1, (box.height * c - box.width * si) / mix)
            likely = width * 0.85...width * 1.15
        } else {
            likely = measured / 1.8...measured * 1.05
            lines = measured / 3
        }
        // Else part of it (the strongest read's lines may have ended at the centre guard): up
        // to twice as wide, reaching 1.5 box widths from its centre; or a little less than
        // the box (a turned code's, its corners adding the lines' length).
        return [
            likely.lowerBound > 0 ? look(widths: likely, reach: likely.upperBound * 0.6, lines: lines) : nil,
            look(widths: measured * 0.7...measured * 2.1, reach: measured * 1.6, lines: min(lines, spanAlong)),
        ].compactMap { $0 }
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

    /// The verdict on the code, from the first look where the model's own reading fits well.
    static func check(_ claimed: [Int], in looks: [Look]) -> Verdict {
        var found: (free: ModelDecoder.Reading, bands: [[Double]], mean: [Double])?
        for look in looks where look.image.height >= ModelDecoder.bands {
            let (bands, mean) = ModelDecoder.bandLines(look.image)
            let modules = look.codeWidth.lowerBound / Double(BarPatterns.moduleCount)...look.codeWidth.upperBound / Double(BarPatterns.moduleCount)
            // The shared modules (guards, quiet zones, each digit's ends), then the best digits:
            // at the place they fit best, else at the next two (refining costs most).
            if let reading = ModelDecoder.bestReading(mean, modules: modules, candidates: 1), reading.fit >= minimumFit {
                found = (reading, bands, mean)
                break
            }
            if let reading = ModelDecoder.bestReading(mean, modules: modules), reading.fit >= minimumFit {
                found = (reading, bands, mean)
                break
            }
        }
        guard let (free, bands, mean) = found else { return .notFound }
        // The claimed digits at the geometry (near the model's) and blur that fit them best,
        // read the way the model's reading runs (a code that fits this well has one way).
        let line = free.reversed ? Array(mean.reversed()) : mean
        guard var fit = bestFit(claimed, line: line, start: free.start, module: free.module, stretch: free.stretch,
                                blurs: [free.blur]) else { return .notFound }
        if let blurred = bestFit(claimed, line: line, start: fit.start, module: fit.module, stretch: fit.stretch,
                                 moduleSteps: 0, startSteps: 0), blurred.fit > fit.fit {
            fit = blurred
        }
        fit.reversed = free.reversed
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
        let modelAgrees = free.digits.count != claimed.count || free.digits[fit.digit - 1] == claimed[fit.digit - 1]
        if contradicts(lead: fit.lead, bandLeads: bandLeads, bands: bands.count, modelAgrees: modelAgrees) {
            return .contradicted(digit: fit.digit, lead: fit.lead)
        }
        if let digit = outfitted(claimed, fit: fit.fit, by: free.digits, fit: free.fit) {
            return .contradicted(digit: digit, lead: free.fit - fit.fit)
        }
        return .consistent(lead: fit.lead)
    }

    /// The first digit (1–13) where the model's own reading differs from the claimed digits,
    /// when it explains the bars clearly better (`betterReading`) than they do at their best
    /// geometry: a soft trap turned 60° read 11 for 77 by eight of zbar's lines, where half a
    /// pixel's shift let the claimed digits fit with no digit beaten on the mean.
    static func outfitted(_ claimed: [Int], fit claimedFit: Double, by model: [Int], fit modelFit: Double) -> Int? {
        guard model.count == claimed.count, modelFit - claimedFit >= betterReading else { return nil }
        return claimed.indices.first { model[$0] != claimed[$0] }.map { $0 + 1 }
    }

    /// A claimed digit beaten by `lead` on the mean of the rows, by `bandLeads` on the bands
    /// the code reaches (of `bands`), is contradicted when it is beaten on the mean and on
    /// every band, or on the mean where the model's own reading (a good fit) has another digit:
    /// a large soft code read 7 for 1 by zbar, where one band of six led by only 0.11.
    static func contradicts(lead: Double, bandLeads: [Double], bands: Int, modelAgrees: Bool) -> Bool {
        guard lead >= contradictingLead else { return false }
        // A band the code does not reach (flat: past the bars' ends) has no say.
        let everyBand = bandLeads.count > bands / 2 && bandLeads.allSatisfy { $0 >= contradictingLead }
        return everyBand || !modelAgrees
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
        let totals = ModelDecoder.parityTotals(scores)
        let otherParity = (0..<10).filter { $0 != claimed[0] }.map { totals[$0] }.max()!
        leads[1] = (otherParity - totals[claimed[0]]) / 6
        return (total / 12, leads)
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
    /// What the pixels' verdict does to a confirmed read.
    enum PixelOutcome: Equatable { case refused, doubted, borneOut, noVerdict }

    /// Contradicted reads are refused. The weakest confirmation (sharpened copies only, few
    /// lines) also needs the pixels on its side: a soft trap turned 65°, 8 read as 2 by a
    /// sharpened patch and the sharpened whole image (5 lines), was beaten there by 0.013,
    /// short of a contradiction; true codes so read had leads of −0.04 to −0.10 on every set here.
    static func outcome(of verdict: PixelCheck.Verdict, for sighting: Sighting) -> PixelOutcome {
        switch verdict {
        case .contradicted: return .refused
        case .consistent(let lead) where lead > 0 && sighting.plainQuality == 0 && sighting.quality < confirmingQuality:
            return .doubted
        case .consistent: return .borneOut
        case .notFound: return .noVerdict
        }
    }

    /// Checks the codes the verdict would report that were not checked yet (zbar's reads;
    /// the model's own readings need no second look by the model), refusing the contradicted.
    /// `scale`: file pixels per pixel of `image`. Returns the codes the pixels bore out
    /// (found, no digit contradicted).
    @discardableResult
    mutating func checkAgainstPixels(_ image: GrayImage, scale: Int = 1) -> [String] {
        var borneOut: [String] = []
        for code in verdict.codes where !checked.contains(code.identity) {
            checked.insert(code.identity)
            guard let sighting = sightings.first(where: { $0.detection.identity == code.identity }),
                  !sighting.attempts.contains(Agreement.modelFitAttempt) else { continue }
            var verdict = PixelCheck.check(sighting.detection, in: image, scale: scale)
            if verdict == .notFound, sighting.extent != sighting.detection.bounds {
                var whole = sighting.detection
                whole.bounds = sighting.extent
                verdict = PixelCheck.check(whole, in: image, scale: scale)
            }
            switch Self.outcome(of: verdict, for: sighting) {
            case .refused: refuse(code.identity)
            case .doubted: doubt(code.identity)
            case .borneOut:
                bearOut(code.identity)
                borneOut.append(code.identity)
            case .noVerdict: break
            }
        }
        return borneOut
    }
}
