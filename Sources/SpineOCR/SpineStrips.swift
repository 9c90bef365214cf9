import Imaging

/// Spines found in the pixels before any OCR: a shelf row is a band across the photo dense in
/// vertical edges (spines stand side by side), and within a row a spine's sides are long
/// straight vertical edges, i.e. columns where a vertical brightness break runs through much
/// of the row's height. Each strip between two such columns is read on its own (one strip,
/// one spine), which finds text that page-level OCR of the whole photo misses and never
/// merges two spines' words.
public enum SpineStrips {
    /// Strips in `image`'s coordinates, row by row, left to right: each strip's box at the
    /// middle of its row (`SpineStrip.box`).
    public static func strips(in image: GrayImage, followsLean: Bool = false) -> [Box] {
        spineStrips(in: image, followsLean: followsLean).map(\.box)
    }

    /// The sides may lean at most this far (x per y, about 9°); the lean is searched in steps
    /// that move a side's ends by one column of the downscaled image.
    static let maximumLean = 0.16
    /// A lean is taken only when its line holds this much more of the row's height in edge
    /// than the upright column does: upright spines keep upright sides.
    static let leanGain = 0.08
    /// A leaning side must run through this share of the row (upright ones need less).
    static let leaningSideShare = 0.65

    /// Strips row by row, left to right, each between two spine sides that may lean (upright
    /// only, without `followsLean`).
    public static func spineStrips(in image: GrayImage, followsLean: Bool = false) -> [SpineStrip] {
        let factor = max(1, Int((Double(max(image.width, image.height)) / 1400).rounded()))
        let small = image.downscaled(by: factor)
        let (width, height) = (small.width, small.height)
        guard width >= 16, height >= 16 else { return [] }
        // Square-root brightness: steps between dark spines count as much as between light ones.
        let root = (0..<256).map { UInt8((16 * Double($0).squareRoot()).rounded(.down)) }
        let blurred = blur(small.mapped(root))
        // Vertical-edge pixels: a horizontal brightness step clearly stronger than any vertical one.
        var vertical = [UInt8](repeating: 0, count: width * height)
        blurred.withUnsafeBufferPointer { pixels in
            for y in 1..<height - 1 {
                for x in 1..<width - 1 {
                    let index = y * width + x
                    let gx = abs(Int(pixels[index + 1]) - Int(pixels[index - 1]))
                    let gy = abs(Int(pixels[index + width]) - Int(pixels[index - width]))
                    if gx > 8 && gx > 2 * gy { vertical[index] = 1 }
                }
            }
        }
        var strips: [SpineStrip] = []
        for (y0, y1) in rows(vertical, width: width, height: height) {
            let rowHeight = y1 - y0
            let middle = Double(y0 + y1 - 1) / 2
            // Per line through the row (its x at the row's middle, its lean), the share of the
            // row's lines with a vertical edge on it (±1 column). A leaning spine's side is a
            // leaning line: read upright, a leaning title is cut by a box's side.
            let step = 2 / Double(max(1, rowHeight))
            let steps = followsLean ? Int(maximumLean / step) : 0
            let leans = (-steps...steps).map { Double($0) * step }
            var counts = [[Double]](repeating: [Double](repeating: 0, count: width), count: leans.count)
            for y in y0..<y1 {
                let row = y * width
                let edges = (1..<width - 1).filter { vertical[row + $0 - 1] | vertical[row + $0] | vertical[row + $0 + 1] != 0 }
                for (index, lean) in leans.enumerated() {
                    let shift = Int(((Double(y) - middle) * lean).rounded())
                    counts[index].withUnsafeMutableBufferPointer { line in
                        for x in edges {
                            let at = x - shift
                            if at >= 0 && at < width { line[at] += 1 }
                        }
                    }
                }
            }
            let shares = counts.map { smoothed($0.map { $0 / Double(rowHeight) }, window: 3) }
            let upright = shares[steps]
            // A column's share is its upright one, or a leaning line's through it when that is
            // clearly longer and runs through much of the row: letters and texture line up
            // along some lean by chance, but seldom along half the row.
            var share = upright
            var lean = [Double](repeating: 0, count: width)
            for index in leans.indices where index != steps {
                for x in 0..<width where shares[index][x] > share[x] && shares[index][x] >= upright[x] + leanGain
                    && shares[index][x] >= leaningSideShare {
                    share[x] = shares[index][x]
                    lean[x] = leans[index]
                }
            }
            let minimumWidth = max(4, rowHeight * 25 / 1000)
            // The threshold from the upright columns (a maximum over leans would raise the median).
            let median = upright.sorted()[width / 2]
            let threshold = max(0.14, 1.6 * median)
            var edges: [Int] = [0]
            for x in 0..<width where share[x] > threshold {
                let lo = max(0, x - minimumWidth / 2), hi = min(width, x + minimumWidth / 2 + 1)
                guard share[lo..<hi].max() == share[x] else { continue }
                if x - edges[edges.count - 1] >= minimumWidth { edges.append(x) }
            }
            if width - edges[edges.count - 1] >= minimumWidth { edges.append(width) } else { edges[edges.count - 1] = width }
            let widths = zip(edges, edges.dropFirst()).map { $1 - $0 }.sorted()
            let typical = widths[widths.count / 2]
            let top = Double(y0) - middle, bottom = Double(y1) - middle
            for (left, right) in zip(edges, edges.dropFirst()) {
                let stripWidth = right - left
                // Wider than half the row's height: a face-out cover or a gap, not a spine; much
                // wider than the row's typical spine: several spines whose sides were missed.
                guard stripWidth >= minimumWidth, stripWidth * 2 <= rowHeight,
                      widths.count < 5 || Double(stripWidth) <= 2.5 * Double(typical) else { continue }
                var (leftX, leftLean) = (left, left < width ? lean[left] : 0)
                var (rightX, rightLean) = (right, right < width ? lean[right] : 0)
                // Sides that would meet within the row: upright ones.
                if Double(rightX - leftX) + min(top * (rightLean - leftLean), bottom * (rightLean - leftLean)) < Double(minimumWidth) {
                    (leftX, leftLean, rightX, rightLean) = (left, 0, right, 0)
                }
                let scale = Double(factor)
                func x(_ column: Int, _ lean: Double, _ at: Double) -> Int {
                    min(image.width, max(0, Int(((Double(column) + at * lean) * scale).rounded())))
                }
                strips.append(SpineStrip(y0: y0 * factor, y1: min(image.height, y1 * factor),
                                         leftTop: x(leftX, leftLean, top), leftBottom: x(leftX, leftLean, bottom),
                                         rightTop: x(rightX, rightLean, top), rightBottom: x(rightX, rightLean, bottom),
                                         box: Box(x0: leftX * factor, y0: y0 * factor, x1: min(image.width, rightX * factor),
                                                  y1: min(image.height, y1 * factor))))
            }
        }
        return strips
    }

    /// Shelf rows: runs of lines whose share of vertical-edge pixels is high (books), at least
    /// an eighth of the photo tall.
    static func rows(_ vertical: [UInt8], width: Int, height: Int) -> [(Int, Int)] {
        var density = [Double](repeating: 0, count: height)
        for y in 0..<height {
            var count = 0
            for x in 0..<width { count += Int(vertical[y * width + x]) }
            density[y] = Double(count) / Double(width)
        }
        density = smoothed(density, window: max(3, height / 40))
        let threshold = max(0.01, 0.35 * density.sorted()[height * 9 / 10])
        var rows: [(Int, Int)] = []
        var start: Int?
        for y in 0...height {
            let on = y < height && density[y] > threshold
            if on, start == nil { start = y }
            if !on, let first = start {
                if y - first >= height * 12 / 100 { rows.append((first, y)) }
                start = nil
            }
        }
        return rows
    }

    static func smoothed(_ values: [Double], window: Int) -> [Double] {
        guard window > 1, values.count > 1 else { return values }
        var prefix = [0.0]
        for value in values { prefix.append(prefix[prefix.count - 1] + value) }
        let half = window / 2
        return values.indices.map { index in
            let lo = max(0, index - half), hi = min(values.count, index + half + 1)
            return (prefix[hi] - prefix[lo]) / Double(hi - lo)
        }
    }

    /// A [1 2 1] blur both ways.
    static func blur(_ image: GrayImage) -> [UInt8] {
        let (width, height) = (image.width, image.height)
        var across = [Int](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let index = y * width + x
                    let left = Int(pixels[x > 0 ? index - 1 : index]), right = Int(pixels[x < width - 1 ? index + 1 : index])
                    across[index] = left + 2 * Int(pixels[index]) + right
                }
            }
        }
        var output = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                let up = across[y > 0 ? index - width : index], down = across[y < height - 1 ? index + width : index]
                output[index] = UInt8((up + 2 * across[index] + down + 8) / 16)
            }
        }
        return output
    }

    /// A strip cut out of the photo and turned so its text runs left to right when the spine
    /// reads in `rotation`'s direction; contrast stretched, dark text on light (a negative
    /// when the Otsu split says the light pixels are the few, i.e. the text), scaled so the
    /// strip is `across` px wide (within the range), with a light margin. `sauvola`: made black
    /// and white here by a local threshold, the dark edges along the strip's sides cleared.
    public static func prepared(_ image: GrayImage, strip: Box, rotation: SpineRotation, across targetRange: ClosedRange<Int> = 40...110,
                                opposite: Bool = false, binarization: StripBinarization = .tesseract) -> GrayImage {
        prepared(image, strip: SpineStrip(strip), rotation: rotation, across: targetRange, opposite: opposite, binarization: binarization)
    }

    /// The same for a strip whose sides may lean: its pixels are first sheared upright.
    public static func prepared(_ image: GrayImage, strip: SpineStrip, rotation: SpineRotation, across targetRange: ClosedRange<Int> = 40...110,
                                opposite: Bool = false, binarization: StripBinarization = .tesseract) -> GrayImage {
        let crop = straightened(image, strip: strip, inset: strip.sideInset)
        var turned = darkOnLight(crop, opposite: opposite).rotated(rotation.imagingRotation)
        // Across the strip is now the turned image's height.
        let across = turned.height
        let target = min(max(across, targetRange.lowerBound), targetRange.upperBound)
        if target != across {
            let pixels = Int(Double(turned.width * turned.height) * pow2(Double(target) / Double(across)))
            turned = turned.scaled(toPixels: pixels, maxLongSide: 100_000).image
        }
        if binarization == .sauvola {
            // A window as wide as the strip: a letter's surroundings, not the whole spine. Ink
            // along a side for more than 1.5 strip widths is the spine's edge, not a letter.
            turned = turned.sauvolaBinarized(radius: max(7, turned.height / 2))
                .clearingInkAlongTopAndBottom(longerThan: turned.height * 3 / 2)
        }
        if binarization == .normalized {
            // A window a third of the strip wide: a letter and the spine around it. Flat parts
            // (deviation under 24) are not blown up into a texture Tesseract takes for letters.
            turned = turned.contrastNormalized(radius: max(7, turned.height / 3), minimumDeviation: 24)
        }
        return turned.padded(by: 10, value: 255)
    }

    /// Contrast stretched (2nd to 98th percentile), dark text on light: a negative when the Otsu
    /// split says the light pixels are the few, i.e. the text (`opposite`: the other way).
    static func darkOnLight(_ crop: GrayImage, opposite: Bool = false) -> GrayImage {
        let histogram = crop.histogram
        let total = crop.width * crop.height
        func percentile(_ share: Double) -> Int {
            var seen = 0
            for value in 0..<256 {
                seen += histogram[value]
                if Double(seen) >= share * Double(total) { return value }
            }
            return 255
        }
        let low = percentile(0.02), high = max(low + 1, percentile(0.98))
        let split = otsu(histogram, total: total)
        let light = histogram[(split + 1)...].reduce(0, +)
        let invert = (light * 2 < total) != opposite
        let table = (0..<256).map { value in
            let stretched = UInt8(max(0, min(255, (value - low) * 255 / (high - low))))
            return invert ? 255 - stretched : stretched
        }
        return crop.mapped(table)
    }

    /// The strip as it stands (not turned), `sideInset` in from its sides, dark text on light.
    static func standing(_ image: GrayImage, strip: SpineStrip) -> GrayImage {
        darkOnLight(straightened(image, strip: strip, inset: strip.sideInset))
    }

    /// The strip's pixels `inset` in from each side, each line of the photo sampled between the
    /// sides where they cross it (linear between columns), so a leaning spine stands upright.
    static func straightened(_ image: GrayImage, strip: SpineStrip, inset: Int) -> GrayImage {
        let y0 = max(0, strip.y0), y1 = min(image.height, strip.y1)
        guard !strip.isUpright, y1 > y0 else {
            let x0 = strip.box.x0 + inset, x1 = max(x0 + 1, strip.box.x1 - inset)
            return image.cropped(x: x0, y: strip.y0, width: x1 - x0, height: strip.height)
        }
        let width = max(1, strip.box.width - 2 * inset), height = y1 - y0
        var pixels = [UInt8](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { source in
            for y in y0..<y1 {
                let at = (Double(y) + 0.5 - Double(strip.y0)) / Double(strip.height)
                let left = strip.left(at: at) + Double(inset), right = strip.right(at: at) - Double(inset)
                let stride = (right - left) / Double(width)
                let line = y * image.width, output = (y - y0) * width
                for column in 0..<width {
                    let x = min(Double(image.width - 1), max(0, left + (Double(column) + 0.5) * stride - 0.5))
                    let lower = Int(x), upper = min(image.width - 1, lower + 1), weight = x - Double(lower)
                    let value = Double(source[line + lower]) * (1 - weight) + Double(source[line + upper]) * weight
                    pixels[output + column] = UInt8(value.rounded())
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    private static func pow2(_ value: Double) -> Double { value * value }

    /// Otsu's threshold of a histogram: the split maximising the between-class variance.
    static func otsu(_ histogram: [Int], total: Int) -> Int {
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var weightBelow = 0, sumBelow = 0.0, best = 0.0, split = 127
        for value in 0..<256 {
            weightBelow += histogram[value]
            sumBelow += Double(value * histogram[value])
            guard weightBelow > 0, weightBelow < total else { continue }
            let meanBelow = sumBelow / Double(weightBelow)
            let meanAbove = (sum - sumBelow) / Double(total - weightBelow)
            let between = Double(weightBelow) * Double(total - weightBelow) * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if between > best { best = between; split = value }
        }
        return split
    }
}

/// A spine strip: a shelf row's band between two spine sides, each a straight line that may
/// lean (its x where it meets the band's top and bottom).
public struct SpineStrip: Sendable, Hashable {
    public var y0: Int, y1: Int
    public var leftTop: Int, leftBottom: Int, rightTop: Int, rightBottom: Int
    /// The strip where it crosses the middle of its row: a leaning strip's place on the shelf
    /// (its enclosing box would overlap the neighbours').
    public var box: Box

    public init(y0: Int, y1: Int, leftTop: Int, leftBottom: Int, rightTop: Int, rightBottom: Int, box: Box) {
        self.y0 = y0; self.y1 = y1
        self.leftTop = leftTop; self.leftBottom = leftBottom; self.rightTop = rightTop; self.rightBottom = rightBottom
        self.box = box
    }

    /// An upright strip: the box.
    public init(_ box: Box) {
        self.init(y0: box.y0, y1: box.y1, leftTop: box.x0, leftBottom: box.x0, rightTop: box.x1, rightBottom: box.x1, box: box)
    }

    public var height: Int { y1 - y0 }
    /// A few pixels in from the sides: the neighbours' sides are not this spine's text.
    var sideInset: Int { max(1, box.width / 20) }
    public var isUpright: Bool { leftTop == leftBottom && rightTop == rightBottom }
    /// The sides' x at `at` of the way down (0 top, 1 bottom).
    func left(at: Double) -> Double { Double(leftTop) + at * Double(leftBottom - leftTop) }
    func right(at: Double) -> Double { Double(rightTop) + at * Double(rightBottom - rightTop) }

    /// The point lies between the sides, within the band.
    public func contains(x: Double, y: Double) -> Bool {
        guard Double(y0) <= y, y < Double(y1) else { return false }
        let at = (y - Double(y0)) / Double(max(1, height))
        return left(at: at) <= x && x < right(at: at)
    }
}
