import BookCodes
import Imaging

/// A UPC-E (51 modules) or EAN-8 (67) is printed with blank margins: at least 7 modules of
/// paper before and after its bars. zbar can decode one from part of an EAN-13/UPC-A's 95
/// modules (the right half of an ISBN with the centre guard as start guard), and when the
/// bars are soft and sharpened that misread repeats on many scan lines, so agreement
/// between lines or passes does not catch it. Its margins do: where it is a shadow, one
/// side runs on into the longer code's bars.
enum QuietZone {
    /// Margin checked on each side, in modules (the standard's minimum is 7 on the right of
    /// a UPC-E and 7 on both sides of an EAN-8), skipping the first `slack` next to the
    /// bars: zbar places a symbol's ends within a module or so, and blur spreads the last
    /// bar into the margin.
    static let margin = 8.0
    static let slack = 3.0
    /// Scan lines sampled across the middle of the symbol's box, at most.
    static let lines = 5

    /// Whether scan lines running each way (alternate lines, `lineStep` apart) read it
    /// to its end: the points of the lines read one way reach past those of the other.
    /// (A line that read only the second half of a two-half code, the first coming from
    /// an earlier line, leaves its point at the centre: that is not a read of the start.)
    static func readBothWays(_ symbol: ScannedSymbol, lineStep: Int) -> Bool {
        guard symbol.orientation != .unknown else { return false }
        // Near 45° zbar's rows and columns both read a code and its points mix: either
        // reading of them reaching both ends will do.
        return [true, false].contains { rows in
            let points = symbol.ends.map { rows ? (along: $0.x, across: $0.y) : (along: $0.y, across: $0.x) }
            return Ends(points, lineStep: max(1, lineStep))?.reachBothEnds ?? false
        }
    }

    /// Whether the short symbol's margins are clear of bars along the direction zbar read
    /// it, on most of the lines sampled; `lineStep` is the step between the scan lines zbar
    /// used. Symbols that are not short always pass. A symbol read in one direction only
    /// (its ends not both known) or in no known direction cannot be checked, and fails.
    static func isClear(around symbol: ScannedSymbol, in image: GrayImage, lineStep: Int) -> Bool {
        let modules: Double
        switch symbol.symbology {
        case .upcE: modules = 51
        case .ean8: modules = 67
        default: return true
        }
        let alongRows: Bool
        switch symbol.orientation {
        case .up, .down: alongRows = true
        case .left, .right: alongRows = false
        case .unknown: return false
        }
        guard let ends = Ends(symbol.ends.map { alongRows ? (along: $0.x, across: $0.y) : (along: $0.y, across: $0.x) },
                              lineStep: max(1, lineStep)) else { return false }
        // zbar reads nothing under ~1 px per module: a shorter span is not the whole code.
        // (Its points sit at the last bar's near edge, so the span is a module or so short.)
        guard ends.length >= modules * 0.8 else { return false }
        let module = ends.length / modules
        let limit = alongRows ? image.width : image.height
        let crossLimit = alongRows ? image.height : image.width
        // The middle half of the lines that read it (the outer ones may run past the bars).
        let quarter = (ends.lastLine - ends.firstLine) / 4
        let first = ends.firstLine + quarter, last = ends.lastLine - quarter
        let count = min(lines, last - first + 1)
        var clear = 0, barred = 0
        for index in 0..<count {
            let line = count == 1 ? (first + last) / 2 : first + (last - first) * index / (count - 1)
            guard line >= 0, line < crossLimit else { continue }
            let start = Int(ends.start.at(line).rounded()), end = Int(ends.end.at(line).rounded())
            let inner = Int((module * slack).rounded()), outer = Int((module * margin).rounded(.up))
            let from = max(0, start - outer - 1), to = min(limit - 1, end + outer + 1)
            guard start >= from, end <= to, end - start >= 8 else { continue }
            var profile = [Int](repeating: 0, count: to - from + 1)
            for t in from...to {
                profile[t - from] = Int(alongRows ? image[t, line] : image[line, t])
            }
            // Light smoothing: a single noisy pixel is not a bar.
            let smoothed = profile.indices.map { i in
                (profile[max(0, i - 1)] + 2 * profile[i] + profile[min(profile.count - 1, i + 1)]) / 4
            }
            let bars = smoothed[(start - from)...(end - from)].sorted()
            let dark = bars[bars.count / 10], light = bars[bars.count * 9 / 10]
            // Too faint to tell bars from paper on this line.
            guard light - dark >= 24 else { continue }
            let threshold = (dark + light) / 2
            func hasBar(_ lower: Int, _ upper: Int) -> Bool {
                let lower = max(lower, from), upper = min(upper, to)
                guard lower <= upper else { return false }
                return (lower...upper).contains { smoothed[$0 - from] < threshold }
            }
            if hasBar(start - outer, start - inner) || hasBar(end + inner, end + outer) {
                barred += 1
            } else {
                clear += 1
            }
        }
        return clear > 0 && clear >= barred
    }

    /// The symbol's two ends as lines across the scan lines, `along = intercept + slope ×
    /// across`, from the points of the lines read one way and of those read the other
    /// (alternate lines, `lineStep` apart). A line also leaves a point where it read each
    /// half of an EAN-8 (at the centre guard): of each group's points only the outer ones
    /// mark the end. Each end gets its own slope (a code on a bottle is not flat).
    struct Ends {
        var start: Line, end: Line
        var firstLine: Int, lastLine: Int
        /// Each group's points reach past the other's inner half (see `readBothWays`).
        var reachBothEnds: Bool

        struct Line {
            var intercept: Double, slope: Double
            func at(_ across: Int) -> Double { intercept + slope * Double(across) }

            /// Least squares, or `slope` when the points lie on one scan line.
            init(fitting points: [(along: Double, across: Double)], slope fallback: Double) {
                let n = Double(points.count)
                let meanAlong = points.map(\.along).reduce(0, +) / n
                let meanAcross = points.map(\.across).reduce(0, +) / n
                var covariance = 0.0, variance = 0.0
                for point in points {
                    covariance += (point.across - meanAcross) * (point.along - meanAlong)
                    variance += (point.across - meanAcross) * (point.across - meanAcross)
                }
                slope = variance > 0 ? covariance / variance : fallback
                intercept = meanAlong - slope * meanAcross
            }
        }

        init?(_ points: [(along: Int, across: Int)], lineStep: Int) {
            let groups = [0, 1].map { parity in
                points.filter { ($0.across / lineStep) % 2 == parity }.map { (along: Double($0.along), across: Double($0.across)) }
            }
            guard groups.allSatisfy({ !$0.isEmpty }) else { return nil }
            // The slant shared by both groups first, to tell outer points from inner ones.
            let shared = Line(fitting: groups.flatMap { group in
                let mean = Line(fitting: group, slope: 0).intercept
                return group.map { (along: $0.along - mean, across: $0.across) }
            }, slope: 0).slope
            let residuals = groups.map { group in group.map { $0.along - shared * $0.across } }
            let centres = residuals.map { $0.reduce(0, +) / Double($0.count) }
            let (low, high) = centres[0] <= centres[1] ? (0, 1) : (1, 0)
            let outerLow = zip(groups[low], residuals[low]).filter { $0.1 <= centres[low] }.map(\.0)
            let outerHigh = zip(groups[high], residuals[high]).filter { $0.1 >= centres[high] }.map(\.0)
            let lowRange = (residuals[low].min()!, residuals[low].max()!)
            let highRange = (residuals[high].min()!, residuals[high].max()!)
            reachBothEnds = lowRange.0 < highRange.0 - (highRange.1 - highRange.0) / 2
                && highRange.1 > lowRange.1 + (lowRange.1 - lowRange.0) / 2
            start = Line(fitting: outerLow, slope: shared)
            end = Line(fitting: outerHigh, slope: shared)
            firstLine = points.map(\.across).min()!
            lastLine = points.map(\.across).max()!
        }

        /// Along the middle scan line.
        var length: Double {
            let middle = (firstLine + lastLine) / 2
            return end.at(middle) - start.at(middle)
        }
    }
}
