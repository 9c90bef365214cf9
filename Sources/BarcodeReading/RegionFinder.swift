import Foundation
import Imaging

/// A patch of parallel edges: where a barcode probably is, and which way its bars run.
struct CandidateRegion: Sendable, Hashable {
    /// Centre, in the pixels of the image the finder was given.
    var centreX: Double
    var centreY: Double
    /// Direction across the bars (the gradient's), in radians, in [0, π).
    var angle: Double
    /// Extent across the bars and along them, in pixels, padded for quiet zones.
    var length: Double
    var height: Double
    /// Grid cells in the patch, and how strongly and consistently they are edged.
    var cells: Int
    var score: Double
    /// Summed gradient over summed gradient sizes (0: as many rising edges as falling ones,
    /// as in bars; at most `RegionFinder.maximumImbalance`). 0 when not measured.
    var imbalance = 0.0
    /// The grid cell the patch was found on, in the same pixels as its size; 0 when it was not
    /// found on a grid (then `fill` is 1).
    var cell = 0.0

    /// The share of its box's grid cells the patch's edged cells fill: a code's bars fill most of
    /// theirs; spine sides, lettering and shelf edges joined into one patch leave gaps.
    var fill: Double {
        cell > 0 ? Double(cells) / max(1, length / cell * (height / cell)) : 1
    }

    /// Its bars turned 15–75° off the image's axes: zbar's rows and columns cross them too
    /// slantwise to span the code, so only a crop turned upright reads it.
    var isTurnedOffAxes: Bool { abs(sin(2 * angle)) >= 0.5 }

    /// The region as found on an image `factor`× smaller, in the larger image's pixels.
    func scaled(by factor: Double) -> CandidateRegion {
        CandidateRegion(centreX: centreX * factor, centreY: centreY * factor, angle: angle,
                        length: length * factor, height: height * factor, cells: cells, score: score,
                        imbalance: imbalance, cell: cell * factor)
    }

    /// Whether the point lies inside the region's turned box.
    func holds(x: Double, y: Double) -> Bool {
        let dx = x - centreX, dy = y - centreY
        let u = dx * cos(angle) + dy * sin(angle), v = -dx * sin(angle) + dy * cos(angle)
        return abs(u) <= length / 2 && abs(v) <= height / 2
    }

    /// The axis-aligned box holding the region's turned box, grown on every side by half its
    /// length across the bars (at least `minimumReach`): room for the whole code around a
    /// patch that covers only part of it.
    func boxGrownToHoldCode(minimumReach: Int) -> BoundingBox {
        let (c, s) = (abs(cos(angle)), abs(sin(angle)))
        let reach = max(length / 2, Double(minimumReach))
        let halfWidth = c * length / 2 + s * height / 2 + reach, halfHeight = s * length / 2 + c * height / 2 + reach
        let x0 = Int((centreX - halfWidth).rounded(.down)), y0 = Int((centreY - halfHeight).rounded(.down))
        return BoundingBox(x: x0, y: y0, width: Int((centreX + halfWidth).rounded(.up)) - x0,
                           height: Int((centreY + halfHeight).rounded(.up)) - y0)
    }

    /// Whether reading this region has read `other` too: `other`'s centre lies inside this
    /// region's turned box, and this one is about as long across the bars. A shorter one
    /// (a piece of a large code whose middle bars kept their edges) gave a crop too narrow
    /// for the whole code.
    func covers(_ other: CandidateRegion) -> Bool {
        holds(x: other.centreX, y: other.centreY) && length >= other.length * 0.6
    }
}

/// Finds barcode-like patches on a coarse grid: a barcode is a patch of many strong,
/// parallel edges, so each cell's structure tensor (sums of gx², gy², gx·gy) is both
/// strong and coherent (one dominant gradient direction). Neighbouring such cells of one
/// orientation form a patch; a patch thick across its edges (a lone edge is one cell
/// thick) is a candidate, with its oriented bounding box.
///
/// Cost: one pass over every `step`-th pixel of every `step`-th row (gradients from the
/// pixel's own neighbours, so fine bars at ~1.5 px per module still show), then work per cell.
enum RegionFinder {
    /// Cells whose edges agree this well (|λ1 − λ2| / (λ1 + λ2)) are edged one way.
    static let minimumCoherence = 0.6
    /// Mean squared gradient below this is flat paper or a blur, not bars (an 8-bit gradient
    /// of ±1 px: a soft edge of 60 grey levels still gives ~20² at its steepest).
    static let minimumEnergy = 150.0
    /// A patch of bars has as many rising edges as falling ones, so its gradients cancel
    /// out; a lone edge (a table's border, a circle's rim) does not. Patches whose summed
    /// gradient is above this share of their summed gradient sizes are not bars.
    static let maximumImbalance = 0.35
    /// Neighbouring cells join a patch when their edge directions differ by less than this.
    static let maximumTurnDegrees = 20.0

    /// Candidates, strongest first, at most `limit`. `cell` is the grid size in pixels (a
    /// multiple of `step`); patches thinner than `minimumAcross` cells across their edges
    /// or shorter than `minimumAlong` cells along them are dropped.
    static func find(in image: GrayImage, step: Int = 3, cell: Int = 18, limit: Int = 6,
                     minimumAcross: Int = 4, minimumAlong: Int = 2) -> [CandidateRegion] {
        let columns = image.width / cell, rows = image.height / cell
        guard columns >= minimumAcross, rows >= minimumAlong, step >= 1, cell >= step else { return [] }
        let count = columns * rows
        let sums = accumulate(image, step: step, cell: cell, columns: columns, rows: rows)
        let (sxx, syy, sxy, sgx, sgy, sabs) = (sums[0], sums[1], sums[2], sums[3], sums[4], sums[5])
        let samples = Double((cell / step) * (cell / step))

        // Per cell: doubled-angle unit vector of the gradient direction, or nil when weak/incoherent.
        var direction = [(c: Double, s: Double)?](repeating: nil, count: count)
        var strength = [Double](repeating: 0, count: count)
        for index in 0..<count {
            let a = sxx[index], b = syy[index], c = sxy[index]
            let trace = a + b
            guard trace / samples >= minimumEnergy else { continue }
            let difference = a - b, twice = 2 * c
            let spread = (difference * difference + twice * twice).squareRoot()
            let coherence = spread / trace
            guard coherence >= minimumCoherence else { continue }
            direction[index] = (difference / spread, twice / spread)
            strength[index] = coherence * (trace / samples).squareRoot()
        }

        // Patches: 8-connected cells whose directions agree.
        let agreeing = cos(2 * maximumTurnDegrees * .pi / 180)
        var label = [Int](repeating: -1, count: count)
        var patches: [[Int]] = []
        for seed in 0..<count where direction[seed] != nil && label[seed] < 0 {
            var members = [seed], frontier = [seed]
            label[seed] = patches.count
            while let current = frontier.popLast() {
                guard let d = direction[current] else { continue }
                let cx = current % columns, cy = current / columns
                for ny in max(0, cy - 1)...min(rows - 1, cy + 1) {
                    for nx in max(0, cx - 1)...min(columns - 1, cx + 1) {
                        let neighbour = ny * columns + nx
                        guard label[neighbour] < 0, let e = direction[neighbour],
                              d.c * e.c + d.s * e.s >= agreeing else { continue }
                        label[neighbour] = patches.count
                        members.append(neighbour)
                        frontier.append(neighbour)
                    }
                }
            }
            patches.append(members)
        }

        var regions: [CandidateRegion] = []
        for members in patches where members.count >= minimumAcross * minimumAlong {
            // The patch's direction: its cells' tensors summed.
            var a = 0.0, b = 0.0, c = 0.0, score = 0.0, gx = 0.0, gy = 0.0, size = 0.0
            for index in members {
                a += sxx[index]; b += syy[index]; c += sxy[index]; score += strength[index]
                gx += sgx[index]; gy += sgy[index]; size += sabs[index]
            }
            let imbalance = (gx * gx + gy * gy).squareRoot() / max(size, 1)
            guard imbalance <= maximumImbalance else { continue }
            let angle = normalised(0.5 * atan2(2 * c, a - b))
            let ux = cos(angle), uy = sin(angle)
            // Extent of the cell centres across (u) and along (v) the bars, in pixels.
            var minU = Double.infinity, maxU = -Double.infinity, minV = Double.infinity, maxV = -Double.infinity
            var sumX = 0.0, sumY = 0.0
            for index in members {
                let x = (Double(index % columns) + 0.5) * Double(cell), y = (Double(index / columns) + 0.5) * Double(cell)
                sumX += x; sumY += y
                let u = x * ux + y * uy, v = -x * uy + y * ux
                minU = min(minU, u); maxU = max(maxU, u); minV = min(minV, v); maxV = max(maxV, v)
            }
            let across = (maxU - minU) / Double(cell) + 1, along = (maxV - minV) / Double(cell) + 1
            guard across >= Double(minimumAcross), along >= Double(minimumAlong) else { continue }
            // The box's centre (not the cells' mean: a patch can be lopsided).
            let midU = (minU + maxU) / 2, midV = (minV + maxV) / 2
            regions.append(CandidateRegion(
                centreX: midU * ux - midV * uy, centreY: midU * uy + midV * ux, angle: angle,
                length: (maxU - minU) + Double(cell), height: (maxV - minV) + Double(cell),
                cells: members.count, score: score, imbalance: imbalance, cell: Double(cell)))
        }
        return Array(mergingCollinear(regions).sorted { $0.score > $1.score }.prefix(limit))
    }

    /// A code and its add-on (or a code split by a scratch) are two patches in one line:
    /// same direction, side by side across the bars, overlapping along them. One region.
    static func mergingCollinear(_ regions: [CandidateRegion]) -> [CandidateRegion] {
        var merged = regions.sorted { $0.score > $1.score }
        var index = 0
        while index < merged.count {
            var other = index + 1
            while other < merged.count {
                if let joined = join(merged[index], merged[other]) {
                    merged[index] = joined
                    merged.remove(at: other)
                    other = index + 1
                } else {
                    other += 1
                }
            }
            index += 1
        }
        return merged
    }

    private static func join(_ a: CandidateRegion, _ b: CandidateRegion) -> CandidateRegion? {
        var turn = abs(a.angle - b.angle)
        turn = min(turn, .pi - turn)
        guard turn <= 10 * .pi / 180 else { return nil }
        let ux = cos(a.angle), uy = sin(a.angle)
        let dx = b.centreX - a.centreX, dy = b.centreY - a.centreY
        let u = dx * ux + dy * uy, v = -dx * uy + dy * ux
        // Beside each other across the bars (a gap of at most half the larger length)…
        guard abs(u) <= (a.length + b.length) / 2 + max(a.length, b.length) / 2,
              // …and level along them.
              abs(v) <= max(a.height, b.height) / 2 else { return nil }
        let lowU = min(-a.length / 2, u - b.length / 2), highU = max(a.length / 2, u + b.length / 2)
        let lowV = min(-a.height / 2, v - b.height / 2), highV = max(a.height / 2, v + b.height / 2)
        let midU = (lowU + highU) / 2, midV = (lowV + highV) / 2
        return CandidateRegion(
            centreX: a.centreX + midU * ux - midV * uy, centreY: a.centreY + midU * uy + midV * ux,
            angle: a.angle, length: highU - lowU, height: highV - lowV,
            cells: a.cells + b.cells, score: a.score + b.score, imbalance: max(a.imbalance, b.imbalance), cell: a.cell)
    }

    static func normalised(_ angle: Double) -> Double {
        var value = angle.truncatingRemainder(dividingBy: .pi)
        if value < 0 { value += .pi }
        return value
    }

    /// Structure-tensor sums per cell over every `step`-th pixel of every `step`-th row
    /// (gx², gy², gx·gy), and the signed gradient sums and |gx| + |gy|.
    private static func accumulate(_ image: GrayImage, step: Int, cell: Int, columns: Int, rows: Int) -> [[Double]] {
        var sums = [[Double]](repeating: [Double](repeating: 0, count: columns * rows), count: 6)
        let width = image.width
        var row6Storage = [Int](repeating: 0, count: columns * 6)
        // Raw pointers: the per-cell sums are written six times per cell row, and an array's
        // uniqueness and bounds checks there cost as much as the sampling.
        row6Storage.withUnsafeMutableBufferPointer { row6 in
            image.pixels.withUnsafeBufferPointer { p in
                for cellY in 0..<rows {
                    for i in row6.indices { row6[i] = 0 }
                    var y = cellY * cell
                    while y < (cellY + 1) * cell {
                        // Border rows and columns have no neighbour on one side: skipped.
                        if y > 0, y < image.height - 1 {
                            let row = y * width
                            for cellX in 0..<columns {
                                var xx = 0, yy = 0, xy = 0, sx = 0, sy = 0, size = 0
                                var x = max(1, cellX * cell)
                                let end = min(width - 1, (cellX + 1) * cell)
                                while x < end {
                                    let i = row + x
                                    // Wrapping arithmetic: 8-bit differences cannot overflow,
                                    // and overflow checks would stop the loop from vectorising.
                                    let gx = Int(p[i + 1]) &- Int(p[i - 1])
                                    let gy = Int(p[i + width]) &- Int(p[i - width])
                                    xx &+= gx &* gx; yy &+= gy &* gy; xy &+= gx &* gy
                                    sx &+= gx; sy &+= gy; size &+= abs(gx) &+ abs(gy)
                                    x &+= step
                                }
                                let base = cellX * 6
                                row6[base] += xx; row6[base + 1] += yy; row6[base + 2] += xy
                                row6[base + 3] += sx; row6[base + 4] += sy; row6[base + 5] += size
                            }
                        }
                        y += step
                    }
                    for cellX in 0..<columns {
                        let index = cellY * columns + cellX, base = cellX * 6
                        for k in 0..<6 { sums[k][index] = Double(row6[base + k]) }
                    }
                }
            }
        }
        return sums
    }
}

extension GrayImage {
    /// The rectangle `width`×`height` (output pixels) centred at (`centreX`, `centreY`)
    /// whose x axis points along `angle`, each output pixel `step` source pixels apart,
    /// bilinear. Outside the image the nearest edge pixel is repeated.
    func sampled(centreX: Double, centreY: Double, angle: Double, width outWidth: Int, height outHeight: Int,
                 step: Double) -> GrayImage {
        guard outWidth > 0, outHeight > 0, width > 1, height > 1 else { return GrayImage(width: 0, height: 0, pixels: []) }
        let ux = cos(angle) * step, uy = sin(angle) * step
        let vx = -sin(angle) * step, vy = cos(angle) * step
        // Source position of output pixel (0, 0), in pixel-centre coordinates.
        let originX = centreX - 0.5 - (Double(outWidth) / 2 - 0.5) * ux - (Double(outHeight) / 2 - 0.5) * vx
        let originY = centreY - 0.5 - (Double(outWidth) / 2 - 0.5) * uy - (Double(outHeight) / 2 - 0.5) * vy
        // 16.16 fixed point; positions are clamped to [0, size − 1) so the 2×2 neighbourhood exists.
        let one = 65536.0
        let limitX = (width - 1) << 16 - 1, limitY = (height - 1) << 16 - 1
        let stepX = Int((ux * one).rounded()), stepY = Int((uy * one).rounded())
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        let w = width
        pixels.withUnsafeBufferPointer { source in
            // One pixel from its 16.16 source position (inside [0, size − 1)): its 2×2 neighbourhood's blend.
            @inline(__always) func bilinear(_ px: Int, _ py: Int) -> UInt8 {
                let fx = (px >> 8) & 255, fy = (py >> 8) & 255
                let i = (py >> 16) * w + (px >> 16)
                let top = Int(source[i]) * (256 - fx) + Int(source[i + 1]) * fx
                let bottom = Int(source[i + w]) * (256 - fx) + Int(source[i + w + 1]) * fx
                return UInt8(truncatingIfNeeded: (top * (256 - fy) + bottom * fy + 32768) >> 16)
            }
            out.withUnsafeMutableBufferPointer { destination in
                for y in 0..<outHeight {
                    var sx = Int(((originX + Double(y) * vx) * one).rounded())
                    var sy = Int(((originY + Double(y) * vy) * one).rounded())
                    let row = y * outWidth
                    // A row whose two ends lie inside the image lies inside it all (the
                    // positions are linear): no clamping there, the same pixels.
                    let endX = sx + (outWidth - 1) * stepX, endY = sy + (outWidth - 1) * stepY
                    if min(sx, endX) >= 0, max(sx, endX) <= limitX, min(sy, endY) >= 0, max(sy, endY) <= limitY {
                        for x in 0..<outWidth {
                            destination[row + x] = bilinear(sx, sy)
                            sx += stepX; sy += stepY
                        }
                        continue
                    }
                    for x in 0..<outWidth {
                        destination[row + x] = bilinear(min(max(sx, 0), limitX), min(max(sy, 0), limitY))
                        sx += stepX; sy += stepY
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }
}
