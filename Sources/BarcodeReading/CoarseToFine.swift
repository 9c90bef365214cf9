import Foundation
import Imaging

/// Coarse-to-fine for large photos: `RegionFinder` picks the patches of parallel edges on
/// a sparse grid, and each is read cropped from the finest image and turned so that its
/// bars stand upright (zbar's row scan lines then cross every bar square on, whatever the
/// code's angle in the photo), at about `targetModule` pixels per module. A few small
/// crops instead of whole images at every scale: most of the time goes where a code is.
struct RegionReading {
    /// Width of a region's crop, in pixels: a code filling half of it at ~4 px per module.
    static let cropWidth = 800.0
    /// Rows of a crop, at most: enough scan lines to confirm a code, and to pass a scratch.
    static let cropHeight = 120

    /// One crop of a region: what it reads maps back to the full image with `mapping`.
    struct Crop {
        var image: GrayImage
        var mapping: RegionMapping
        /// The size of the image it was cut from: where the crop runs past that image's
        /// edge, the edge's pixels are repeated (paper, perhaps, where a cut code went on).
        var sourceWidth: Int
        var sourceHeight: Int

        /// Whether the crop's columns `columns` (along its middle row) lie within the image it was cut from.
        func showsSource(_ columns: ClosedRange<Double>) -> Bool {
            [columns.lowerBound, columns.upperBound].allSatisfy { x in
                let p = mapping.point(x, Double(image.height) / 2)
                return p.x >= 0 && p.y >= 0 && p.x <= Double(sourceWidth) && p.y <= Double(sourceHeight)
            }
        }
    }

    /// The region as an upright crop `outputWidth` pixels wide. A crop coarser than the
    /// image's pixels is sampled from its box-reduced copy (1/2 or 1/4, `ReducedCopies`), so
    /// that bars are averaged, not skipped.
    static func crop(_ region: CandidateRegion, from copies: ReducedCopies, outputWidth: Double) -> Crop? {
        let full = copies.full
        // A patch covers the bars that stayed sharp and coherent: often less than the code
        // (soft ends, worn bars), sometimes more (an add-on). So the crop is generous: twice
        // the patch's length or height (a code is ~1.4× as wide as its bars are tall), and
        // scaled to a fixed width, which zbar reads at any module from ~1.5 px up.
        let across = max(region.length, region.height) * 2 + 64
        let step = max(0.5, across / outputWidth)   // full-image pixels per output pixel
        // zbar needs only some of the bars' height: at most `cropHeight` rows of it.
        let along = region.height + 16
        let width = Int((across / step).rounded(.up)), height = min(Int((along / step).rounded(.up)), cropHeight)
        guard width >= 40, height >= 8, width * height <= 2_000_000 else { return nil }
        let mapping = RegionMapping(centreX: region.centreX, centreY: region.centreY, angle: region.angle,
                                    step: step, width: width, height: height)
        let factor = step >= 4 ? 4 : step >= 2 ? 2 : 1
        guard factor > 1 else {
            let image = full.sampled(centreX: region.centreX, centreY: region.centreY, angle: region.angle,
                                     width: width, height: height, step: step)
            return Crop(image: image, mapping: mapping, sourceWidth: full.width, sourceHeight: full.height)
        }
        // A crop whose box (its corners, a little wider) holds under two reduced pixels across
        // the image is none.
        let corners = [mapping.point(0, 0), mapping.point(Double(width), 0),
                       mapping.point(0, Double(height)), mapping.point(Double(width), Double(height))]
        let x0 = max(0, Int(corners.map(\.x).min()!) - 2 * factor) / factor * factor
        let y0 = max(0, Int(corners.map(\.y).min()!) - 2 * factor) / factor * factor
        let x1 = min(full.width, Int(corners.map(\.x).max()!) + 2 * factor)
        let y1 = min(full.height, Int(corners.map(\.y).max()!) + 2 * factor)
        guard x1 - x0 >= 2 * factor, y1 - y0 >= 2 * factor else { return nil }
        // Sampled from the image's reduced copy, made once for every crop: the same 2×2 (4×4)
        // means as a reduction of this box alone, which each crop made at each width before.
        let image = copies.reduced(by: factor).sampled(centreX: region.centreX / Double(factor),
                                                       centreY: region.centreY / Double(factor), angle: region.angle,
                                                       width: width, height: height, step: step / Double(factor))
        return Crop(image: image, mapping: mapping, sourceWidth: full.width, sourceHeight: full.height)
    }
}

/// An image's box-reduced copies (1/2, then 1/4 of that), each made once when first asked
/// for: every region's crop at a coarse step samples them (the 2×2 means it would otherwise
/// make of its own surroundings again at each width), and a large photo's whole-image passes
/// and its follow-up's gate read them.
final class ReducedCopies {
    let full: GrayImage
    private(set) lazy var half = full.downscaled(by: 2)
    private(set) lazy var quarter = half.downscaled(by: 2)

    init(_ full: GrayImage) {
        self.full = full
    }

    /// The copy `factor` (1, 2 or 4) times smaller.
    func reduced(by factor: Int) -> GrayImage {
        factor >= 4 ? quarter : factor == 2 ? half : full
    }
}

/// A photo's candidate patches (`FileScanner.patches(in:limit: .max)`) at full size and on its
/// 1/2 and 1/4 copies while those are large enough, each level found when first asked: a small
/// photo's bars evidence (`patchEvidence`) and bars rule (`barsInPatches`) look at the same ones.
final class PatchLevels {
    static let reductions = [1, 2, 4]
    let copies: ReducedCopies
    private var found: [Int: [CandidateRegion]]

    init(_ image: GrayImage, patches: [CandidateRegion]) {
        copies = ReducedCopies(image)
        found = [1: patches]
    }

    /// The copy `reduction` times smaller and its patches; nil when it is too small to look at.
    func level(_ reduction: Int) -> (image: GrayImage, patches: [CandidateRegion])? {
        let image = copies.reduced(by: reduction)
        guard reduction == 1 || min(image.width, image.height) >= FileScanner.minimumReducedSide / 2 else { return nil }
        if let patches = found[reduction] { return (image, patches) }
        let patches = FileScanner.patches(in: image, limit: .max)
        found[reduction] = patches
        return (image, patches)
    }
}

/// One way of reading a region's upright crop: at a width, and plain, sharpened or smoothed.
struct RegionVariant: Sendable, Hashable {
    enum Filter: Sendable, Hashable { case plain, sharpened, smoothedAlongBars }
    var label: String
    var width: Double
    var filter: Filter

    /// Rows averaged above and below each pixel along the bars: 9 in all cut noise by 3 (the
    /// degradation set's codes under 50% noise read from 7 rows on, under 65% from 25).
    static let smoothingRadius = 4

    static let level = RegionVariant(label: "level", width: RegionReading.cropWidth, filter: .plain)
    /// Along the bars only: noise (a dim photo, a webcam's sensor) averaged away, no edge softened.
    static let smoothed = RegionVariant(label: "level, smoothed along the bars", width: RegionReading.cropWidth,
                                        filter: .smoothedAlongBars)

    /// In order, each only while no code is confirmed: plain first; sharpened and finer for
    /// soft or small codes; smoothed for noisy ones; thorough effort adds coarser and finer.
    static func all(for effort: ScanEffort) -> [RegionVariant] {
        let width = RegionReading.cropWidth
        var variants = [level]
        guard effort != .fast else { return variants }
        variants += [RegionVariant(label: "level, sharpened", width: width, filter: .sharpened),
                     RegionVariant(label: "level, finer, sharpened", width: width * 1.6, filter: .sharpened),
                     smoothed]
        if effort == .thorough {
            variants += [RegionVariant(label: "level, coarser", width: width * 0.6, filter: .plain),
                         RegionVariant(label: "level, finer", width: width * 1.6, filter: .plain)]
        }
        return variants
    }
}

extension RegionReading {
    /// Modules an add-on needs past a code's last bar: a gap of up to 12, an EAN-5's 47,
    /// and a quiet zone.
    static let addOnReach = 66.0

    /// Pixels per module an add-on needs in a crop: zbar read the codes of the hard phone
    /// photos at ~2.5 but none of their EAN-5s there (zbarimg read five at full size).
    static let addOnModule = 4.0

    /// Where to look for `detection`'s add-on (a main EAN-13/UPC-A read in `crop` without
    /// one). When the crop was too coarse for an add-on or could not hold one on either side
    /// of the code, zbar looks again (`rescan`) at the code's place as a region twice as long
    /// (its crop then reaches 1.2 code widths past each end), at `addOnModule` pixels per
    /// module; else the crop itself will do, for the model.
    static func addOnLook(for detection: Detection, in crop: Crop, region: CandidateRegion) -> AddOnLook? {
        guard detection.addOn == nil, [.ean13, .isbn13, .upcA].contains(detection.symbology) else { return nil }
        let b = detection.bounds
        let module = Double(b.width) / Double(BarPatterns.moduleCount)
        let room = addOnReach * module
        let codeWidth = Double(b.width) * crop.mapping.step
        guard module > 0 else { return nil }
        guard module < addOnModule * 0.9 || Double(b.x) < room || Double(crop.image.width - b.maxX) < room else {
            return AddOnLook(region: region, outputWidth: Double(crop.image.width), codeWidth: codeWidth,
                             codeOffset: (Double(b.x) + Double(b.width) / 2 - Double(crop.image.width) / 2) * crop.mapping.step,
                             readCrop: crop)
        }
        let centre = crop.mapping.point(Double(b.x) + Double(b.width) / 2, Double(crop.image.height) / 2)
        return AddOnLook(around: centre, angle: region.angle, codeWidth: codeWidth, height: region.height, finestStep: crop.mapping.step)
    }

    /// A crop that holds a code and room for its add-on on either side.
    struct AddOnLook {
        var region: CandidateRegion
        var outputWidth: Double
        /// The code's width in full-image pixels (zbar's box across the bars).
        var codeWidth: Double
        /// How far the code's middle lies from the crop's, along it, in full-image pixels.
        var codeOffset: Double
        /// The crop the code was read in, when it will do (not made again).
        var readCrop: Crop?
        /// zbar is to read the crop again (it is not the one the code was read in).
        var rescan: Bool { readCrop == nil }
    }
}

// In an extension: the memberwise initialiser stays.
extension RegionReading.AddOnLook {
    /// A new crop centred on the code (`centre`, full-image pixels; bars across `angle`),
    /// `codeWidth` wide, as a region 1.7 times as long (its crop reaches 1.2 code widths
    /// past each end) at `addOnModule` pixels per module, but no finer than `finestStep`
    /// image pixels a pixel.
    init(around centre: (x: Double, y: Double), angle: Double, codeWidth: Double, height: Double, finestStep: Double,
         modules: Int = BarPatterns.moduleCount) {
        region = CandidateRegion(centreX: centre.x, centreY: centre.y, angle: angle, length: codeWidth * 1.7, height: height,
                                 cells: 0, score: 0)
        let step = min(finestStep, codeWidth / Double(modules) / RegionReading.addOnModule)
        // As `crop` sizes it: twice the length and a margin, at `step` image pixels a pixel.
        outputWidth = min((region.length * 2 + 64) / step, 3000)
        self.codeWidth = codeWidth
        codeOffset = 0
        readCrop = nil
    }
}

/// From a region crop's pixels back to the full image's: the crop's centre is the region's
/// centre, its x axis along `angle`, `step` full-image pixels per crop pixel.
struct RegionMapping: Sendable, Hashable {
    var centreX: Double, centreY: Double, angle: Double, step: Double
    var width: Int, height: Int

    func point(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let dx = (x - Double(width) / 2) * step, dy = (y - Double(height) / 2) * step
        let c = cos(angle), s = sin(angle)
        return (centreX + dx * c - dy * s, centreY + dx * s + dy * c)
    }

    /// The axis-aligned box around the turned box.
    func apply(_ b: BoundingBox) -> BoundingBox {
        let corners = [point(Double(b.x), Double(b.y)), point(Double(b.maxX), Double(b.y)),
                       point(Double(b.x), Double(b.maxY)), point(Double(b.maxX), Double(b.maxY))]
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = Int(xs.min()!.rounded(.down)), y0 = Int(ys.min()!.rounded(.down))
        let x1 = Int(xs.max()!.rounded(.up)), y1 = Int(ys.max()!.rounded(.up))
        return BoundingBox(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
    }
}

extension RegionReading {
    /// Edges in a run a large photo's region needs along its bars for more than its plain scan
    /// (the sharpened, finer and smoothed crops, the model): `barRun`. Measured on the busy
    /// tuning half and the hard 60 (release, every pass run): the 26 regions whose code only
    /// those passes read run 21–94 edges; of the 86 regions of code-free photos 32 run 18 or more
    /// (52 had 20 edges or more, the stop-39 gate).
    static let minimumBarRun = 18

    /// Grey levels a column profile must rise or fall across two pixels to count as an edge.
    static let minimumEdgeStep = 6

    /// One edge that runs the whole height of an upright crop: its column, and whether the grey
    /// rises there (a bar's right side) or falls.
    struct BarEdge: Equatable {
        var x: Int
        var rising: Bool
    }

    /// Edges that run the whole height of an upright crop, as bars do, left to right: on the
    /// column profiles of the crop's top half and bottom half, the places where one profile's
    /// rise or fall peaks (at least `minimumEdgeStep` grey levels across two pixels) and the other
    /// rises or falls the same way within a pixel. A code's bars give one per bar side (an EAN-13
    /// 59); the sides of a shelf's spines few, lettering's strokes seldom the same in both halves.
    static func edgesAlongBars(_ image: GrayImage) -> [BarEdge] {
        let width = image.width, half = image.height / 2
        guard width >= 5, half >= 1 else { return [] }
        // Column sums of each half, then their steps across two pixels in grey levels (× half).
        var top = [Int](repeating: 0, count: width), bottom = [Int](repeating: 0, count: width)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<half {
                let row = y * width, other = (y + half) * width
                for x in 0..<width {
                    top[x] &+= Int(p[row + x])
                    bottom[x] &+= Int(p[other + x])
                }
            }
        }
        let threshold = minimumEdgeStep * half
        func step(_ sums: [Int], _ x: Int) -> Int { sums[x + 1] - sums[x - 1] }
        var edges: [BarEdge] = []
        for x in 2..<(width - 2) {
            let t = step(top, x)
            guard abs(t) >= threshold, abs(t) >= abs(step(top, x - 1)), abs(t) > abs(step(top, x + 1)) else { continue }
            if (x - 1...x + 1).contains(where: { step(bottom, $0) * t.signum() >= threshold }) {
                edges.append(BarEdge(x: x, rising: t > 0))
            }
        }
        return edges
    }

    /// The most edges along the bars (`edgesAlongBars`) of an upright crop `width` pixels wide that
    /// follow one another as a code's bars do: each within `width / 15` of the last (the crop is
    /// twice its patch, so a code's widest bar or space, 4 of its 95 modules, is ~1/24 of it, more
    /// where the patch held half the code), and turning the way the last one turned no more than
    /// `repeatedTurns` times (a thin bar or space lost to blur, in one half or both). Lettering's
    /// strokes lined up in both halves come in words, with gaps between them, and dense print
    /// turns the same way often; spine sides are far apart.
    static func barRun(_ edges: [BarEdge], width: Int) -> Int {
        let widestGap = Double(width) / 15
        var best = 0, run = 0, repeats = 0
        for (index, edge) in edges.enumerated() {
            if index > 0 {
                let last = edges[index - 1]
                let sameTurn = edge.rising == last.rising
                if Double(edge.x - last.x) > widestGap || (sameTurn && repeats >= repeatedTurns) {
                    run = 0
                    repeats = 0
                } else if sameTurn {
                    repeats += 1
                }
            }
            run += 1
            best = max(best, run)
        }
        return best
    }

    /// Neighbouring edges turning the same way a run of bars may hold (`barRun`).
    static let repeatedTurns = 5

    /// `barRun` of an upright crop's edges along its bars.
    static func barRun(_ image: GrayImage) -> Int {
        barRun(edgesAlongBars(image), width: image.width)
    }
}
