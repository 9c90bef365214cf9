import Foundation
import Imaging

/// Cheap image tricks tried when a plain scan finds nothing: zbar reads bars from the
/// intensity profile of each scan line, so soft edges and low contrast are its usual
/// failures. (Upscaling and blurring were tried on the real photos too: they read nothing
/// these two miss, and upscaling produced a check-digit-valid misread.)
extension GrayImage {
    /// The darkest and brightest percent pushed to black and white, the rest stretched
    /// between; nil when the image already spans (nearly) the whole range.
    func contrastStretched(clipping fraction: Double = 0.01) -> GrayImage? {
        let histogram = histogram
        let clip = Int(Double(pixels.count) * fraction)
        var low = 0, seen = 0
        while low < 255, seen + histogram[low] <= clip { seen += histogram[low]; low += 1 }
        var high = 255
        seen = 0
        while high > 0, seen + histogram[high] <= clip { seen += histogram[high]; high -= 1 }
        guard high > low, low > 16 || high < 239 else { return nil }
        let scale = 255.0 / Double(high - low)
        return mapped((0...255).map { UInt8(min(255, max(0, (Double($0 - low) * scale).rounded()))) })
    }

    /// 3×3 box blur: averages away sensor noise and JPEG ringing that split wide bars.
    func boxBlurred() -> GrayImage {
        withBoxSums { sum, _ in (sum + 4) / 9 }
    }

    /// Each pixel the mean of the `2 radius + 1` pixels above and below it (fewer at the top
    /// and bottom). Bars standing upright do not change along a column, so this averages
    /// noise away (by √(2r+1)) without softening a single edge across them, as a 2-D blur
    /// or a reduced copy would.
    func smoothedAlongColumns(radius: Int) -> GrayImage {
        runningMeans(radius: radius, lines: width, length: height, along: width, across: 1)
    }

    /// `smoothedAlongColumns` for bars lying down: each pixel the mean of the `2 radius + 1`
    /// pixels left and right of it.
    func smoothedAlongRows(radius: Int) -> GrayImage {
        runningMeans(radius: radius, lines: height, length: width, along: 1, across: width)
    }

    /// The rounded mean of each pixel's window of `2 radius + 1` along its line (clipped at
    /// the line's ends): `lines` lines of `length` pixels, `along` apart within a line and
    /// `across` from one line's start to the next's. A sum slides down each line.
    private func runningMeans(radius: Int, lines: Int, length: Int, along: Int, across: Int) -> GrayImage {
        guard radius > 0, length > 1 else { return self }
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for line in 0..<lines {
                    let start = line * across
                    var sum = 0
                    for i in 0..<min(radius, length) { sum += Int(source[start + i * along]) }
                    for i in 0..<length {
                        if i + radius < length { sum += Int(source[start + (i + radius) * along]) }
                        if i - radius - 1 >= 0 { sum -= Int(source[start + (i - radius - 1) * along]) }
                        let count = min(length, i + radius + 1) - max(0, i - radius)
                        destination[start + i * along] = UInt8((sum + count / 2) / count)
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }

    /// Unsharp mask (2 × pixel − 3×3 mean): steepens soft bar edges.
    func sharpened() -> GrayImage {
        withBoxSums { sum, centre in 2 * centre - (sum + 4) / 9 }
    }

    /// `combine(sum of the 3×3 neighbourhood, centre)` per pixel; border pixels are copied.
    /// The sums are separable: three-pixel row sums first, then three of those down a column.
    @inline(__always)
    private func withBoxSums(_ combine: (Int, Int) -> Int) -> GrayImage {
        guard width > 2, height > 2 else { return self }
        var rowSums = [Int32](repeating: 0, count: pixels.count)
        var output = pixels
        pixels.withUnsafeBufferPointer { source in
            rowSums.withUnsafeMutableBufferPointer { sums in
                for y in 0..<height {
                    let row = y * width
                    for x in 1..<width - 1 {
                        sums[row + x] = Int32(source[row + x - 1]) + Int32(source[row + x]) + Int32(source[row + x + 1])
                    }
                }
            }
            rowSums.withUnsafeBufferPointer { sums in
                output.withUnsafeMutableBufferPointer { destination in
                    for y in 1..<height - 1 {
                        let row = y * width
                        for x in 1..<width - 1 {
                            let i = row + x
                            let sum = Int(sums[i - width]) + Int(sums[i]) + Int(sums[i + width])
                            destination[i] = UInt8(clamping: combine(sum, Int(source[i])))
                        }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }
}

extension GrayImage {
    /// The pixels inside `box`, clipped to the image, and where they start in it (what is
    /// read in the crop maps back by that, not by `box`, which may reach past the edge);
    /// nil when nothing is left.
    func cropped(to box: BoundingBox) -> (image: GrayImage, x: Int, y: Int)? {
        let crop = cropped(x: box.x, y: box.y, width: box.width, height: box.height)
        return crop.width > 0 && crop.height > 0 ? (crop, max(0, box.x), max(0, box.y)) : nil
    }

    /// Twice the size, bilinear: thin bars (under ~2 px per module) get edges zbar can place.
    func upscaled2x() -> GrayImage {
        let w = width * 2, h = height * 2
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                // Centre-aligned sample positions, in quarter pixels.
                let sy = max(0, y * 2 - 1), y0 = min(height - 1, sy / 4), y1 = min(height - 1, y0 + 1), fy = sy % 4
                for x in 0..<w {
                    let sx = max(0, x * 2 - 1), x0 = min(width - 1, sx / 4), x1 = min(width - 1, x0 + 1), fx = sx % 4
                    let top = Int(src[y0 * width + x0]) * (4 - fx) + Int(src[y0 * width + x1]) * fx
                    let bottom = Int(src[y1 * width + x0]) * (4 - fx) + Int(src[y1 * width + x1]) * fx
                    out[y * w + x] = UInt8((top * (4 - fy) + bottom * fy + 8) / 16)
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}

/// Passes for small, soft codes (the zbar misses on the real photos are mostly ~1.5–2 px
/// per module and out of focus): more pixels per module, steeper edges, spread grey levels,
/// and a small skew so that zbar's straight scan lines meet a slanted code square on.
extension GrayImage {
    /// Histogram equalisation: spreads a label's few grey levels (shadowed or washed-out
    /// prints) over the whole range, so faint bars reach zbar's edge threshold.
    func equalised() -> GrayImage {
        let histogram = histogram
        let total = pixels.count
        guard let first = histogram.firstIndex(where: { $0 > 0 }), total > histogram[first] else { return self }
        var table = [UInt8](repeating: 0, count: 256)
        var cumulative = 0
        let below = histogram[first]
        for level in 0..<256 {
            cumulative += histogram[level]
            table[level] = UInt8(clamping: (cumulative - below) * 255 / max(1, total - below))
        }
        return mapped(table)
    }

    /// `sum → sum / area` for a (2r+1)² box, the radii the passes use made once.
    static func boxMeanTable(radius: Int) -> [UInt8] {
        let area = (2 * radius + 1) * (2 * radius + 1)
        return (0...(area * 255)).map { UInt8(truncatingIfNeeded: $0 / area) }
    }
    private static let boxMeanTables = Dictionary(uniqueKeysWithValues: [2, 3].map { ($0, boxMeanTable(radius: $0)) })

    /// Unsharp mask over a (2r+1)² box: `centre + amount × (centre − mean)`, from an
    /// integral image so any radius costs the same. A wider box than `sharpened()`'s
    /// 3×3 steepens edges blurred over several pixels (a doubled soft image).
    func sharpened(radius: Int, amount: Int) -> GrayImage {
        guard width > 2 * radius, height > 2 * radius, radius > 0 else { return self }
        let w = width, h = height, stride = w + 1
        var integral = [Int](repeating: 0, count: (w + 1) * (h + 1))
        var output = pixels
        // Inside the border every box has the same area: its mean is looked up, not divided
        // (a division per pixel was most of the cost on region crops).
        let meanOfSum = Self.boxMeanTables[radius] ?? Self.boxMeanTable(radius: radius)
        pixels.withUnsafeBufferPointer { source in
            integral.withUnsafeMutableBufferPointer { sums in
                for y in 0..<h {
                    var row = 0
                    let above = y * stride + 1, here = (y + 1) * stride + 1, line = y * w
                    for x in 0..<w {
                        row &+= Int(source[line + x])
                        sums[here + x] = sums[above + x] &+ row
                    }
                }
            }
            integral.withUnsafeBufferPointer { sums in
                output.withUnsafeMutableBufferPointer { destination in
                    meanOfSum.withUnsafeBufferPointer { means in
                        for y in 0..<h {
                            let y0 = max(0, y - radius), y1 = min(h, y + radius + 1)
                            let top = y0 * stride, bottom = y1 * stride, line = y * w
                            @inline(__always) func sharpen(_ x: Int, mean: Int) {
                                let centre = Int(source[line + x])
                                destination[line + x] = UInt8(clamping: centre &+ amount &* (centre &- mean))
                            }
                            @inline(__always) func boxSum(_ x0: Int, _ x1: Int) -> Int {
                                sums[bottom + x1] &- sums[top + x1] &- sums[bottom + x0] &+ sums[top + x0]
                            }
                            @inline(__always) func sharpenAtBorder(_ x: Int) {
                                let x0 = max(0, x - radius), x1 = min(w, x + radius + 1)
                                sharpen(x, mean: boxSum(x0, x1) / ((y1 - y0) * (x1 - x0)))
                            }
                            guard y >= radius, y < h - radius else {
                                for x in 0..<w { sharpenAtBorder(x) }
                                continue
                            }
                            for x in 0..<radius { sharpenAtBorder(x) }
                            for x in radius..<(w - radius) {
                                sharpen(x, mean: Int(means[boxSum(x - radius, x + radius + 1)]))
                            }
                            for x in (w - radius)..<w { sharpenAtBorder(x) }
                        }
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: output)
    }

    /// Turned by `degrees` (counter-clockwise as seen) about the centre, bilinear, on a canvas
    /// large enough for the whole image; uncovered corners are white (paper, a quiet zone).
    func skewed(degrees: Double) -> GrayImage {
        let radians = degrees * .pi / 180, c = cos(radians), s = sin(radians)
        let outWidth = Int((Double(width) * abs(c) + Double(height) * abs(s)).rounded(.up))
        let outHeight = Int((Double(width) * abs(s) + Double(height) * abs(c)).rounded(.up))
        let cx = Double(width) / 2, cy = Double(height) / 2
        let ox = Double(outWidth) / 2, oy = Double(outHeight) / 2
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<outHeight {
                let dy = Double(y) + 0.5 - oy
                for x in 0..<outWidth {
                    let dx = Double(x) + 0.5 - ox
                    // Inverse turn: where this output pixel comes from.
                    let sx = c * dx - s * dy + cx - 0.5, sy = s * dx + c * dy + cy - 0.5
                    guard sx >= 0, sy >= 0, sx < Double(width - 1), sy < Double(height - 1) else { continue }
                    let x0 = Int(sx), y0 = Int(sy)
                    let fx = Int((sx - Double(x0)) * 256), fy = Int((sy - Double(y0)) * 256)
                    let i = y0 * width + x0
                    let top = Int(source[i]) * (256 - fx) + Int(source[i + 1]) * fx
                    let bottom = Int(source[i + width]) * (256 - fx) + Int(source[i + width + 1]) * fx
                    out[y * outWidth + x] = UInt8((top * (256 - fy) + bottom * fy + 32768) >> 16)
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }
}
