import BookCodes
import Foundation
import Imaging
import WorkerPools

/// How hard to look at an image that does not read at once.
public enum ScanEffort: String, Sendable, Hashable, CaseIterable {
    /// Reduced and full-size scans only; on large photos three regions and two of the 1/4
    /// image, plain, then 1/4 and (every other line) 1/2 of the whole image.
    case fast
    /// Then the regions of codes turned well off the axes, upright (images under 2000 px),
    /// contrast, sharpening and reduced copies, and on small images (≤ 0.25 MP) the
    /// small-code passes: doubled and sharpened, equalised, doubled and turned ±6° (the
    /// default; turned, and smoothed along the bars, only where zbar read something or noise
    /// hid the code's patch: `BarsEvidence`); on small images all of these only where zbar read
    /// something or a patch looks like a code's bars (`patchLooksLikeBars`), and where such a
    /// patch shows only on its reduced copies, none shaped like a code at full size, and zbar read
    /// nothing (noise), only the reduced copies and the smoothing (`noiseOnly`). On large photos
    /// five regions and two of the 1/4 image, plain, sharpened, then finer and sharpened, then `ModelDecoder` on them (past the
    /// plain crop only where edges run along the bars as a code's do: `RegionReading.barRun`).
    /// Last, when nothing is confirmed, `ModelDecoder` on the barcode-like patches. A small
    /// image is scanned every other line first, every line only where that read something or
    /// a patch looks like bars (where it confirmed a code, only across what it read: `bands(around:patches:)`).
    case normal
    /// Then every scan line of those, and the small-code passes (plus plain doubled and
    /// ±12°) on any image small enough to double; on large photos ten regions in five
    /// forms, then the whole image at every scale and the tricks.
    case thorough
}

/// How files are read and how hard to look.
public struct ScanOptions: Sendable, Hashable {
    /// Images with more stored pixels are refused before decoding (decompression bombs).
    public var maxPixels: Int
    /// Size and layout of headerless frames (.y800, .yuv, .raw…), when such files are scanned.
    public var rawFormat: RawFrameFormat?
    public var effort: ScanEffort
    /// Try image tricks (sharpen, contrast stretch, reduce) when plain scans find nothing:
    /// any effort above `.fast`.
    public var thorough: Bool {
        get { effort != .fast }
        set { effort = newValue ? (effort == .fast ? .normal : effort) : .fast }
    }

    public init(maxPixels: Int = 100_000_000, rawFormat: RawFrameFormat? = nil, thorough: Bool = true,
                effort: ScanEffort? = nil) {
        self.maxPixels = maxPixels
        self.rawFormat = rawFormat
        self.effort = effort ?? (thorough ? .normal : .fast)
    }
}

/// What one file held.
public struct FileScanResult: Sendable, Hashable {
    /// Valid codes, each once, top to bottom then left to right.
    public var codes: [Detection]
    /// Symbols read but refused (an add-on alone, a check digit BookCodes disagrees with…).
    public var rejected: [Detection]
    /// Size of the image as stored in the file.
    public var imageWidth: Int
    public var imageHeight: Int
    /// Decoder warnings that did not stop the scan.
    public var warnings: [String]
    /// Which attempt read the codes ("1/4 scale", "sharpened"…); nil when none did.
    public var attempt: String?
    /// Places where different valid codes were read and none won: reported as nothing.
    public var ambiguities: Int
    /// Valid codes read once by too few scan lines and never confirmed: reported as nothing.
    public var unconfirmed: Int
    /// UPC-E/EAN-8 reads taken for part of a longer code (inside its box, or with bars in
    /// their margins): reported as nothing.
    public var shadows: Int
    /// Barcode-like patches the model-fitting reader (`ModelDecoder`) would not read: its
    /// bands disagreed, or a digit or the check digit was in doubt. Reported as nothing.
    public var modelRefusals: Int
    /// EAN-13/UPC-A codes zbar read and confirmed whose digits the pixels contradict (a
    /// digit's pattern clearly beaten by another's there, `PixelCheck`): reported as nothing.
    public var contradicted: Int
    /// Images and crops zbar scanned for this file: the work it took, whatever read it.
    public var scans: Int
    /// A small image that read nothing at once and showed no bar-like structure
    /// (`FileScanner.barsEvidence`): the hard passes were not run on it.
    public var hardPassesSkipped: Bool
    /// What reading the file cost (`decode --verbose` shows it): not part of what was read.
    public var cost = ScanCost()

    /// Bars were seen and no code could be read from them: zbar read a code it could not
    /// confirm, codes disagreed or the pixels contradicted one, or a main symbol's check digit
    /// failed. A photo to take again, not one without a barcode. Looks alone do not name a
    /// photo: a third of the small photos without a code have a patch shaped like bars, and
    /// the model's refusals named 2 of the 21 real photos without a code.
    public var sawUnreadCode: Bool {
        codes.isEmpty && (unconfirmed > 0 || ambiguities > 0 || contradicted > 0 || rejected.contains { !$0.symbology.isAddOn })
    }

    public init(codes: [Detection], rejected: [Detection], imageWidth: Int, imageHeight: Int,
                warnings: [String] = [], attempt: String? = nil, ambiguities: Int = 0, unconfirmed: Int = 0,
                shadows: Int = 0, modelRefusals: Int = 0, contradicted: Int = 0, scans: Int = 0,
                hardPassesSkipped: Bool = false) {
        self.scans = scans
        self.hardPassesSkipped = hardPassesSkipped
        self.modelRefusals = modelRefusals
        self.contradicted = contradicted
        self.ambiguities = ambiguities
        self.unconfirmed = unconfirmed
        self.shadows = shadows
        self.codes = codes
        self.rejected = rejected
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.warnings = warnings
        self.attempt = attempt
    }
}

/// The CPU a file's reading took on its worker thread, in milliseconds: the decode and the
/// bars' passes, then the follow-up (the printed ISBN). Two readings of a file are equal
/// whatever they cost.
public struct ScanCost: Sendable, Hashable {
    public var barsMilliseconds = 0.0
    public var followUpMilliseconds = 0.0

    public init() {}

    public static func == (lhs: ScanCost, rhs: ScanCost) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

/// Reads one file after another with its own zbar scanner (one per thread, not `Sendable`).
///
/// Large photos (long side ≥ 2000 px) are read coarse-to-fine: `RegionFinder` marks the
/// patches of strong, parallel edges on a sparse grid of the full image (~5 ms for 12 MP),
/// and each is cropped from the full pixels, turned so its bars stand upright, and scanned
/// along its rows (`runRegions`): a few small crops, at any angle, instead of whole images
/// at every scale. When no region gives a confirmed code, the same on the 1/4 image's
/// grid (large or soft codes), still cropped from the full pixels; then, at normal effort
/// and above, `ModelDecoder` (EAN-13/UPC-A bar patterns fitted to soft codes) on all those
/// regions; then, at fast and thorough effort, the whole image at 1/4 and 1/2; full size and
/// the tricks below only at thorough effort. Smaller images are scanned whole; then (not at fast effort) the regions
/// of codes turned well off the axes, upright; when
/// nothing valid was found and something looks like bars (`barsEvidence`), a contrast-stretched and sharpened copy and reduced copies,
/// then the small-code passes, and last `ModelDecoder` on the barcode-like patches.
/// (zbar scans rows and columns both, so quarter turns add nothing.)
public final class FileScanner {
    public let options: ScanOptions
    private let reader: BarcodeReader
    /// The last large photo's reduced copy its first whole scan read (1/2 or 1/4), kept for the
    /// follow-up (its gate looks at no more), then dropped.
    private var firstPassCopy: (image: GrayImage, factor: Int)?

    /// Long side, in pixels, of the first image scanned: big enough for the barcodes in a
    /// phone photo of a book, small enough for zbar to take ~30 ms.
    static let firstPassLongSide = 1000
    /// Tricks run on images up to this many pixels (larger ones are reduced first).
    static let trickPixelLimit = 1_500_000
    /// Half-windows of the small images' smoothing along the bars (9 and 25 pixels).
    static let smoothingRadii = [RegionVariant.smoothingRadius, 12]
    /// Reduced copies smaller than this are not worth scanning.
    static let minimumReducedSide = 150
    /// Images up to this many pixels (after reduction; 500×500) get the small-code passes
    /// at normal effort: doubled they stay under 1 MP, a few milliseconds a pass. (At 0.4 MP
    /// they read nothing more on the real photos and cost 2.5× the CPU.)
    static let smallImagePixels = 250_000

    public init(options: ScanOptions = .init()) throws(BarcodeReaderError) {
        self.options = options
        self.reader = try BarcodeReader()
    }

    public func scan(fileAt url: URL) throws(ImageError) -> FileScanResult {
        try scan(loaded: load(url))
    }

    /// The file's codes, then what `followUp` makes of them, from ONE decode of the file: the
    /// follow-up gets these pixels turned upright (only if it asks for them).
    public func scan(fileAt url: URL, followUp: (any ScanFollowUp)?) throws(ImageError) -> FileScanResult {
        let clock = ThreadCPUClock()
        let loaded = try load(url)
        var bars = scan(loaded: loaded)
        bars.cost.barsMilliseconds = clock.milliseconds
        guard let followUp else { return bars }
        let reduced = firstPassCopy
        firstPassCopy = nil
        let pixels = FollowUpPixels(full: { loaded.image.applyingEXIFOrientation(loaded.exifOrientation) },
                                    reduced: { reduced.map { ($0.image.applyingEXIFOrientation(loaded.exifOrientation), $0.factor) } })
        var result = followUp.followUp(bars, pixels: pixels)
        result.cost = bars.cost
        result.cost.followUpMilliseconds = clock.milliseconds - bars.cost.barsMilliseconds
        return result
    }

    // Decoded at full size: a large photo is searched coarse-to-fine (regions found on a
    // sparse grid, read from the full pixels), a small one scanned whole.
    // Not turned upright: codes read at any angle, and turning 12 MP cost 8–13 ms of the
    // ~30 a photo takes when its code reads at once; where codes are is mapped instead.
    private func load(_ url: URL) throws(ImageError) -> LoadedImage {
        let loadOptions = ImageLoadOptions(maxPixels: options.maxPixels, jpegScale: .full, applyOrientation: false,
                                           rawFormat: options.rawFormat)
        return try ImageLoader.load(contentsOf: url, options: loadOptions)
    }

    private func scan(loaded: LoadedImage) -> FileScanResult {
        firstPassCopy = nil
        let full = loaded.image
        let firstScale = Self.firstPassScale(longSide: max(full.width, full.height))
        var attempts = AttemptLog(reader: reader, pixels: full)
        let copies = attempts.copies
        var sources: [(image: GrayImage, scale: Int)] = [(full, 1)]
        var regions: [CandidateRegion] = []
        // What made a small photo worth the hard passes (`barsEvidence`); nil on large photos.
        var evidence: BarsEvidence?
        func finish(_ attempts: inout AttemptLog) -> FileScanResult {
            attempts.confirm(using: sources)
            attempts.agreement.doubtReadsAcrossTurnedBars(readUpright: attempts.regionsReadUpright)
            if options.thorough {
                attempts.readAddOnsByModel(regions: { regions.isEmpty && firstScale == 1 ? Self.patches(in: full) : regions })
            }
            _ = attempts.reportable()
            return attempts.result(for: loaded)
        }
        if firstScale > 1 {
            regions = RegionFinder.find(in: full, limit: Self.regionLimit[options.effort] ?? 6)
            // At normal effort a region gets more than its plain crop only where edges run along its
            // bars as a code's do (`RegionReading.barRun`): on busy code-free photos most are spines and print.
            if attempts.runRegions(regions, effort: options.effort, onlyWhereBarsRun: options.effort == .normal) {
                return finish(&attempts)
            }
        }
        // Whole images: reduced first, then finer scales down to the pixels in the file.
        let half = firstScale > 1 ? copies.half : full
        let first = firstScale == 4 ? copies.quarter : half
        firstPassCopy = firstScale > 1 ? (first, firstScale) : nil
        if firstScale > 1 {
            // Bars wider than the fine grid's cells (a large code, or a soft one) leave its
            // cells flat; on the reduced image they are a patch again, read from the full pixels.
            let coarse = RegionFinder.find(in: first, limit: Self.coarseRegionLimit)
                .map { $0.scaled(by: Double(firstScale)) }
                .filter { new in !regions.contains { $0.covers(new) } }
            if attempts.runRegions(coarse, effort: options.effort, numberedFrom: regions.count + 1,
                                   onlyWhereBarsRun: options.effort == .normal) {
                return finish(&attempts)
            }
            regions += coarse
        }
        // Soft codes zbar's edges miss, fitted in the regions found (`ModelDecoder`); not at
        // fast effort. Before the whole-image scans: on the hard phone photos those read
        // nothing the regions had not, and the model read 18 of 140. Its crops are twice as
        // fine as zbar's (~4 px per module when the code is its patch's length): at 600 px a
        // blurred code an add-on's patch had lengthened fell to ~1.8 px per module; widths of
        // 900–1600 read 94–98 of 140 unseen hard photos, 1200 the most. Only code-shaped
        // regions (`isWorthTheModel`) whose edges run along their bars as a code's do (`showsBars`).
        if firstScale > 1, options.thorough,
           attempts.runModel(on: regions.filter { Self.isWorthTheModel($0) && attempts.showsBars($0) }, scale: 1, crop: { RegionReading.crop($0, from: copies, outputWidth: 1200) }) {
            return finish(&attempts)
        }
        sources.append((first, firstScale))
        // A small photo at normal effort is scanned every other line first (half zbar's cost,
        // most of a small photo's when it holds no code); all that follows only where that read
        // something or a patch looks like a code (`barsEvidence`), and every line and the hard
        // passes only where it read something or a patch looks like a code's bars (`barsLikely`). Its reads are
        // then dropped, not added: the lines of the two scans overlap, and two attempts confirm
        // a code. Nor does a code it confirmed end the scan: a code turned off the axes is read
        // slantwise there and must go the way it went before (its region read upright, the
        // doubt on reads across turned bars), or one confirmed blur misread would come back.
        var sparsePatches: [CandidateRegion]?
        // A small photo at normal effort is worth the every-line scan and the hard passes: the
        // every-other-line scan read a symbol (its reads are dropped, not what they showed) or a
        // patch looks like a code's bars (`barsInPatches`). Else only its turned patches' regions
        // are read (a turned code's patch seldom fills its box: 39 of the 121 turned real photos
        // read there had no such patch). Not asked (true) of other photos or at other efforts.
        var barsLikely = true
        // A small photo at normal effort whose first scan read nothing and whose patches look like a
        // code's bars only on its reduced copies (`barsReduction` 2 or 4): noise may have hid them at full size.
        var barsOnlyWhenReduced = false
        // Where the every-other-line scan confirmed a code: the rows and columns across what it read
        // (`bands(around:patches:)`), where the every-line scan looks first.
        var confirmedBands: (rows: Range<Int>, columns: Range<Int>)?
        // What the patches show does not change between the scans: looked at once (nil: not yet).
        var seenInPatches: BarsEvidence??
        // The patches of the photo and of its reduced copies, found once for both looks at them.
        var patchLevels: PatchLevels?
        func levels(_ patches: [CandidateRegion]) -> PatchLevels {
            if let patchLevels { return patchLevels }
            let made = PatchLevels(full, patches: patches)
            patchLevels = made
            return made
        }
        func barsSeen(_ log: AttemptLog, patches: [CandidateRegion]) -> BarsEvidence? {
            Self.barsEvidence(log) {
                if let known = seenInPatches { return known }
                let found = Self.patchEvidence(levels(patches))
                seenInPatches = .some(found)
                return found
            }
        }
        if firstScale == 1, options.effort == .normal {
            var sparse = AttemptLog(reader: reader, pixels: full)
            let sparseConfirmed = sparse.run(first, scale: 1, label: "full size, density 2", density: 2)
            let allPatches = Self.patches(in: full, limit: .max)
            guard sparseConfirmed || barsSeen(sparse, patches: allPatches) != nil else {
                sparse.hardPassesSkipped = true
                return finish(&sparse)
            }
            sparsePatches = allPatches
            attempts.scans = sparse.scans
            if sparseConfirmed { confirmedBands = Self.bands(around: sparse.readBoxes, patches: allPatches) }
            let reduction = sparse.zbarReadSomething ? nil : Self.barsReduction(levels(allPatches))
            barsLikely = sparse.zbarReadSomething || reduction != nil
            barsOnlyWhenReduced = (reduction ?? 1) > 1
        }
        // A large photo at normal effort is not scanned whole: after its regions, the coarse ones
        // and the model, the 1/4 scan (~25 ms a code-free busy photo) read nothing on the busy
        // tuning half or the hard 60, every pass run (stop 40).
        if firstScale > 1, options.effort == .normal { return finish(&attempts) }
        // Where the every-other-line scan confirmed a code near an axis, every line only across what
        // it read (`bands(around:patches:)`): on the small halves, ../shared, their turned copies and
        // the degradation set the same codes, add-ons, refusals and doubts as every line of the
        // photo. When that confirms nothing, every line of the photo after all.
        if let bands = confirmedBands {
            let unread = attempts
            if attempts.run(first, rows: bands.rows, columns: bands.columns, label: "full size") { return finish(&attempts) }
            attempts = unread
            attempts.scans += 1
        }
        // Where the first scan read nothing and no patch looks like bars, the every-line scan read
        // nothing either on the small halves, the real photos, their turned copies or the
        // degradation set (stop 43): ~8 ms of a code-free photo's ~14.
        if barsLikely, attempts.run(first, scale: firstScale, label: firstScale == 1 ? "full size" : "1/\(firstScale) scale") {
            return finish(&attempts)
        }
        // A small photo's code turned well off the axes (15–75°): zbar's rows and columns
        // cross its bars too slantwise to span them, so its region is read upright (on the
        // real photos turned 20–70° or 110–160°: 203 of 322 read before, 290 with it). Near
        // the axes the whole scan has seen the same bars: a region's upsampled copy would add
        // only a second chance for a blur misread (one trap of 960 "confirmed" that way).
        if firstScale == 1, options.thorough {
            let allPatches = sparsePatches ?? Self.patches(in: full, limit: .max)
            regions = Array(allPatches.prefix(3))
            // Their sharpened forms too: plain crops only read 88 of 111 turned real photos, not
            // 98 (but a sharpened crop and the sharpened whole-image trick "confirmed" one blur
            // misread between them on 960 turned traps: `bench-misread-traps --turned`).
            if attempts.runRegions(regions.filter(\.isTurnedOffAxes), effort: options.effort) {
                return finish(&attempts)
            }
            // Most small photos hold no code at all; the passes below cost ~3x the first
            // scan. They are spent only where zbar read something or a patch looks like a
            // code's bars, not merely shaped like them (`barsLikely`, asked at normal effort
            // only: at thorough effort a code-shaped patch is enough, the user asked to try harder).
            guard let seen = barsSeen(attempts, patches: allPatches), barsLikely || attempts.zbarReadSomething else {
                attempts.hardPassesSkipped = true
                return finish(&attempts)
            }
            evidence = seen
        }
        if firstScale > 1 {
            // Below 1/4 scale the regions have had the full pixels where the edges are: on 200
            // hard phone photos, after them and the model, the 1/2 scan (every other line,
            // ~26 ms) read nothing more. Fast effort, which has no model, still runs it (normal
            // effort ended before the 1/4 scan); whole 12 MP scans and the tricks (~0.3 s) are for
            // thorough effort only.
            // Lone add-ons are not kept from it: on a grating of 12 MP it read an EAN-2 "97".
            if firstScale == 4, attempts.run(half, scale: 2, label: "1/2 scale", density: 2, keepRejected: false) {
                return finish(&attempts)
            }
            guard options.effort == .thorough else { return finish(&attempts) }
            if attempts.run(full, scale: 1, label: "full size") { return finish(&attempts) }
        }
        guard options.thorough else { return finish(&attempts) }
        // Tricks, on an image small enough for them to stay cheap.
        var base = first, baseScale = firstScale
        while base.width * base.height > Self.trickPixelLimit {
            base = base.downscaled(by: 2)
            baseScale *= 2
        }
        // The zbar passes below look at `area`, from `origin` (base's pixels): a small photo's
        // evidence area (`hardPassArea`) at normal effort, else the whole of base (then origin is (0, 0)).
        var area = base, origin = (x: 0, y: 0)
        if evidence != nil, options.effort == .normal, baseScale == 1,
           let box = Self.hardPassArea(in: base, zbarReads: attempts.readBoxes,
                                       patches: Self.patchesThatMayHoldACode(sparsePatches ?? [], in: base)),
           let (crop, x, y) = base.cropped(to: box) {
            area = crop
            origin = (x, y)
        }
        // Noise hid the code's patch at full size: no code-shaped patch there, bars only on the
        // reduced copies, zbar reading nothing on either first scan (`barsOnlyWhenReduced` with
        // `codeShapedPatchWhenReduced`). Only the passes that average noise away run (reduced
        // copies, smoothing along the bars): on the small halves, ../shared, their turned copies and
        // the degradation set they read every code such photos gave, the sharpened, doubled,
        // equalised and model passes none. A code-shaped patch at full size (a clean soft code
        // whose bars show only on the 1/2 copy: `HardPassGateTests`' pasted one) keeps every pass.
        // Asked before each pass: once zbar reads anything, the rest run as before.
        let noiseHidThePatch = barsOnlyWhenReduced && evidence == .codeShapedPatchWhenReduced
        func noiseOnly() -> Bool {
            noiseHidThePatch && !attempts.zbarReadSomething
        }
        // Reduced copies average heavy noise away, as long as bars stay ≥ ~1 px per module.
        var tricks: [(label: String, image: () -> GrayImage?, scale: Int, sharpened: Bool)] = noiseOnly() ? [] : [
            ("contrast stretched and sharpened", { (area.contrastStretched() ?? area).sharpened() }, baseScale, true),
        ]
        for factor in [2, 4] where min(area.width, area.height) / factor >= Self.minimumReducedSide {
            tricks.append(("reduced 1/\(factor)", { area.downscaled(by: factor) }, baseScale * factor, false))
        }
        // Every other scan line halves the cost, and on the real photos it reads one more
        // code than every line does (other lines fall across the bars); thorough tries both.
        let densities = options.effort == .thorough ? [2, 1] : [2]
        for density in densities {
            for trick in tricks {
                guard let image = trick.image() else { continue }
                if attempts.run(image, scale: trick.scale, label: "\(trick.label), density \(density)",
                                density: density, keepRejected: false, sharpened: trick.sharpened,
                                origin: origin) {
                    return finish(&attempts)
                }
            }
        }
        // Small, soft codes (~1.5–2 px per module, out of focus, slightly slanted: most of
        // what zbar misses on real photos): doubled with steeper edges, grey levels spread,
        // doubled and turned a few degrees so scan lines cross the bars square on. What
        // these read still has to be confirmed like any other read. Normal effort runs them
        // on small images only (a few ms there); thorough on any image small enough to double.
        let doublable = baseScale == 1 || base.width * base.height * 4 <= Self.trickPixelLimit * 2
        let small = base.width * base.height <= Self.smallImagePixels
        if options.effort == .thorough ? doublable : (options.effort == .normal && small && !noiseOnly()) {
            let doubled = area.upscaled2x()
            var passes: [(label: String, image: () -> GrayImage, mapping: BoundsMapping, sharpened: Bool)] = [
                ("doubled and sharpened", { doubled.sharpened(radius: 3, amount: 2) }, .magnified, true),
                ("equalised", { area.equalised() }, .identity, false),
            ]
            if options.effort == .thorough { passes.insert(("doubled", { doubled }, .magnified, false), at: 0) }
            // The turned copies (~40% of a small photo's hard passes) read nothing at normal
            // effort on the small tuning and checking halves or the real photos unless zbar
            // had already read something there: only then, or at thorough effort.
            let turns = options.effort == .thorough ? [-6.0, 6, -12, 12]
                : (evidence?.zbarRead ?? true) || attempts.zbarReadSomething ? [-6.0, 6] : []
            for degrees in turns {
                passes.append(("doubled, turned \(Int(degrees))°", { doubled.skewed(degrees: degrees) },
                               .skewed(degrees: degrees, width: doubled.width, height: doubled.height, magnification: 2),
                               false))
            }
            for pass in passes {
                // No UPC-E/EAN-8 from these: sharpened and magnified, the right half of a
                // UPC-A reads as a UPC-E by many scan lines (its shadow, with the UPC-A unread).
                if attempts.run(pass.image(), scale: baseScale, label: pass.label, density: 2, keepRejected: false,
                                mapping: pass.mapping, acceptShort: false, sharpened: pass.sharpened,
                                origin: origin) {
                    return finish(&attempts)
                }
            }
        }
        // A noisy code (a dim photo, high ISO) whose bars stand near an axis: the image smoothed
        // along columns (upright bars) and along rows (bars lying down) averages the noise
        // away and softens no edge across the bars, as the reduced copies above do. (Heavy
        // noise hides the code's patch from the region finder, so the photo is taken whole.)
        // Wider windows average more noise and bear less tilt: the narrow one first.
        // At normal effort only where the image's noise showed: zbar read something, or a
        // code-shaped patch appeared on a reduced copy alone (the passes cost 4 whole scans,
        // and on code-free photos with a code-shaped patch they read nothing).
        if small, options.effort == .thorough || (evidence?.smoothingWorthIt ?? true) || attempts.zbarReadSomething {
            for radius in Self.smoothingRadii {
                let passes: [(String, () -> GrayImage)] = [
                    ("smoothed along columns, \(2 * radius + 1) px", { area.smoothedAlongColumns(radius: radius) }),
                    ("smoothed along rows, \(2 * radius + 1) px", { area.smoothedAlongRows(radius: radius) }),
                ]
                for (label, image) in passes where attempts.run(image(), scale: baseScale, label: label, keepRejected: false,
                                                               origin: origin) {
                    return finish(&attempts)
                }
            }
        }
        // Last, soft codes zbar's edges miss, fitted to the pixels (`ModelDecoder`): the
        // small photo's patches found above (base is then the photo itself), or a reduced one's.
        guard !noiseOnly() else { return finish(&attempts) }
        let patches = baseScale == 1 ? regions : Self.patches(in: base)
        _ = attempts.runModel(on: patches, scale: baseScale) { RegionReading.modelCrop($0, from: base) }
        return finish(&attempts)
    }

    /// Where the every-line scan looks after the every-other-line scan confirmed a code: the rows
    /// across each read (`boxes`, in the image's pixels) whose patch's bars stand within 15° of
    /// upright, the columns across each whose bars lie within 15° of level, each band grown by
    /// `bandReach` of the read's length (an add-on beside the code, along its lines, stays in the
    /// band when the code is slanted). Nil (every line of the image) when a read lies in no
    /// patch or in one turned off the axes (`isTurnedOffAxes`): across turned bars zbar's rows
    /// and columns each read halves of the code that the other's lines complete, so only the
    /// whole scan reads them as it does.
    static func bands(around boxes: [BoundingBox], patches: [CandidateRegion]) -> (rows: Range<Int>, columns: Range<Int>)? {
        guard !boxes.isEmpty else { return nil }
        var rows: Range<Int>?, columns: Range<Int>?
        func joined(_ band: Range<Int>?, _ from: Int, _ to: Int) -> Range<Int> {
            band.map { min($0.lowerBound, from)..<max($0.upperBound, to) } ?? from..<to
        }
        for box in boxes {
            guard let patch = patches.first(where: { $0.holds(x: Double(box.midX), y: Double(box.midY)) }),
                  !patch.isTurnedOffAxes else { return nil }
            // The patch's angle is across its bars: near 0 they stand upright, read along rows.
            if abs(cos(patch.angle)) > abs(sin(patch.angle)) {
                let reach = Int((Double(box.width) * bandReach).rounded(.up)) + 2
                rows = joined(rows, max(0, box.y - reach), box.maxY + reach)
            } else {
                let reach = Int((Double(box.height) * bandReach).rounded(.up)) + 2
                columns = joined(columns, max(0, box.x - reach), box.maxX + reach)
            }
        }
        return (rows ?? 0..<0, columns ?? 0..<0)
    }

    /// How far a band reaches past a read's box, as a share of the read's length: a code's
    /// EAN-5 ends ~0.6 of its length beyond it, at 15° ~0.16 of it higher or lower.
    static let bandReach = 0.25

    /// Why a small image that read nothing confirmed at once is worth the hard passes, or nil:
    /// zbar read something there (unconfirmed, refused), or a patch looks like a code
    /// (`looksLikeCode`) on the image or on its reduced copies (heavy noise hides a code's
    /// patch at full size; halving averages the noise away, as the reduced-copy trick does).
    /// `patchEvidence` is asked only when zbar read nothing (it is `patchEvidence(_:)`).
    static func barsEvidence(_ attempts: AttemptLog, patchEvidence: () -> BarsEvidence?) -> BarsEvidence? {
        attempts.zbarReadSomething ? .zbarRead : patchEvidence()
    }

    /// The part of `barsEvidence` that looks at the pixels alone: a code-shaped patch on the image
    /// or on its reduced copies, whatever zbar read.
    static func patchEvidence(_ levels: PatchLevels) -> BarsEvidence? {
        for reduction in PatchLevels.reductions {
            guard let (image, patches) = levels.level(reduction) else { return nil }
            if patches.contains(where: { looksLikeCode($0, in: image) }) {
                return reduction == 1 ? .codeShapedPatch : .codeShapedPatchWhenReduced
            }
        }
        return nil
    }

    /// Whether the photo, or one of its reduced copies, has a patch that looks like a code's
    /// bars (`patchLooksLikeBars`): what a small photo zbar read nothing on needs for the hard passes.
    static func barsInPatches(_ levels: PatchLevels) -> Bool {
        barsReduction(levels) != nil
    }

    /// The least reduction (1, 2 or 4) at which the photo has a patch that looks like a code's
    /// bars (`barsInPatches`), or nil.
    static func barsReduction(_ levels: PatchLevels) -> Int? {
        for reduction in PatchLevels.reductions {
            guard let (image, patches) = levels.level(reduction) else { return nil }
            if patchesThatMayHoldACode(patches, in: image).contains(where: { patchLooksLikeBars($0, in: image, reduction: reduction) }) {
                return reduction
            }
        }
        return nil
    }

    /// The same for a photo and its patches at full size (`patches(in:limit: .max)`).
    static func barsInPatches(_ image: GrayImage, patches: [CandidateRegion]) -> Bool {
        barsInPatches(PatchLevels(image, patches: patches))
    }

    /// A patch shaped like a code (`isShapedLikeCode`; one `patchesThatMayHoldACode` chose)
    /// that looks like a code's bars: large enough, and either filling its box as bars do
    /// (clutter, lettering and shelf edges leave gaps between their edged cells) or large and
    /// strongly edged (a code's patch merged with what is beside it). `reduction`: how many
    /// times smaller than the photo `image` is. On the small tuning half and the real photos
    /// every code a hard pass read with nothing read by zbar before had such a patch; 15 of
    /// the tuning half's 82 code-free photos with a code-shaped patch did.
    static func patchLooksLikeBars(_ patch: CandidateRegion, in image: GrayImage, reduction: Int = 1) -> Bool {
        guard isShapedLikeCode(patch, in: image) else { return false }
        let cell = Double(patchCell(for: image))
        let fill = Double(patch.cells) / max(1, patch.length / cell * (patch.height / cell))
        let strength = patch.score / Double(max(1, patch.cells))
        let cells = patch.cells * reduction * reduction
        return cells >= barsMinimumCells
            && (fill >= barsMinimumFill || (cells >= strongBarsMinimumCells && strength >= strongBarsMinimumStrength))
    }

    /// Grid cells (at the photo's size) a patch needs to look like bars: a code read by the hard
    /// passes had 68 or more, a code-shaped patch of clutter often 10–40.
    static let barsMinimumCells = 40
    /// Share of its box's cells a patch's edged cells fill as a code's bars do (codes the hard
    /// passes read: 0.62–0.88; code-shaped clutter mostly 0.2–0.55).
    static let barsMinimumFill = 0.6
    /// Or a patch this large and this strongly edged (mean cell strength): a code merged with
    /// the print beside it (`zxing-upce-2/02.png`, a UPC-E: 153 cells, fill 0.40, strength 68).
    static let strongBarsMinimumCells = 60
    static let strongBarsMinimumStrength = 65.0

    /// Where a small photo's hard passes look: around the patches a code may be in
    /// (`patchesThatMayHoldACode`) and the symbols zbar read, each grown to hold a whole code (a soft
    /// code's patch can be half of it); nil (the whole photo) when there are none (noise hid
    /// the patch at full size) or they cover most of the photo.
    static func hardPassArea(in image: GrayImage, zbarReads: [BoundingBox], patches: [CandidateRegion]) -> BoundingBox? {
        let boxes = zbarReads.map { $0.grownToHoldCode(minimumReach: Agreement.secondLookReach) }
            + patches.map { $0.boxGrownToHoldCode(minimumReach: Agreement.secondLookReach) }
        guard let first = boxes.first else { return nil }
        let whole = BoundingBox(x: 0, y: 0, width: image.width, height: image.height)
        let union = boxes.dropFirst().reduce(first) { $0.union($1) }
        let x0 = max(0, union.x), y0 = max(0, union.y)
        let area = BoundingBox(x: x0, y: y0, width: min(whole.maxX, union.maxX) - x0, height: min(whole.maxY, union.maxY) - y0)
        guard area.width > 0, area.height > 0,
              Double(area.width * area.height) <= maximumHardPassShare * Double(image.width * image.height)
        else { return nil }
        return area
    }

    /// The patches a small photo's code may be in: those shaped like a code (`looksLikeCode`),
    /// and the photo's strongest patch (`patches` come strongest first) where it is shaped like
    /// one but for its balance: a code's patch merged with the print beside it (a label's logo
    /// above the bars: `zxing-upca-2/04.png`, whose one balanced patch is a bag's mesh).
    static func patchesThatMayHoldACode(_ patches: [CandidateRegion], in image: GrayImage) -> [CandidateRegion] {
        var chosen = patches.filter { looksLikeCode($0, in: image) }
        if let strongest = patches.first, !chosen.contains(strongest), isShapedLikeCode(strongest, in: image) {
            chosen.append(strongest)
        }
        return chosen
    }

    /// Above this share of the photo, the hard passes look at all of it.
    static let maximumHardPassShare = 0.7

    /// A patch shaped like a code's bars: balanced (as many rising edges as falling: a shelf's
    /// spine sides and a page's lettering are not), at least 8 grid cells across the bars, and
    /// at most twice as long along them as across (spines, boards and text columns run long).
    /// On 242 small photos (tuning half of `generate-small-photos`) every one of the 80 codes'
    /// photos has such a patch, and 59 of the 162 without a code.
    static func looksLikeCode(_ patch: CandidateRegion, in image: GrayImage) -> Bool {
        patch.imbalance <= 0.1 && isShapedLikeCode(patch, in: image)
    }

    /// `looksLikeCode` without the balance: as long and as wide as a code's bars.
    static func isShapedLikeCode(_ patch: CandidateRegion, in image: GrayImage) -> Bool {
        let cell = Double(patchCell(for: image))
        return patch.length >= 8 * cell && patch.height <= 2 * patch.length
    }

    /// A small image's barcode-like patches, on a finer grid the smaller it is (a 240 px
    /// photo's code is ~150 px wide).
    static func patches(in image: GrayImage, limit: Int = 3) -> [CandidateRegion] {
        let cell = patchCell(for: image)
        return RegionFinder.find(in: image, step: cell / 8, cell: cell, limit: limit)
    }

    /// The grid cell of `patches(in:)`: 8 px up to 600 px on the long side, else 16.
    static func patchCell(for image: GrayImage) -> Int {
        max(image.width, image.height) <= 600 ? 8 : 16
    }

    /// The DCT/box scale (1, 2 or 4) whose image still has a long side of `firstPassLongSide`.
    static func firstPassScale(longSide: Int) -> Int {
        [4, 2].first { longSide / $0 >= firstPassLongSide } ?? 1
    }

    /// Whether the model should fit a large photo's region: at most twice as long along its
    /// bars as across them, as a code's patch is (with its add-on merged in, longer across),
    /// and at least 1/8 as long (a row of spine sides or of lettering runs far across). A
    /// shelf's spines, boards and text columns run long; on busy code-free photos the model's
    /// fits on them were most of its CPU (each 15–30 ms). Balance is not asked, as on small
    /// photos: hard-003's patch, its EAN-5 merged in, measures 0.24. The codes the model read
    /// on the busy halves and the hard 60 came from patches 0.18–1.0 as long along as across.
    /// And its edged cells fill at least `minimumModelFill` of its box (`CandidateRegion.fill`):
    /// the patches the model read codes in on the busy tuning half, the hard 60 and the noisy
    /// phone set filled 0.34–0.81 (hard-003's with its EAN-5 the least); a third of the code-free
    /// ones it fitted there filled 0.09–0.30 (spine sides and lettering joined along a shelf).
    static func isWorthTheModel(_ region: CandidateRegion) -> Bool {
        region.height <= 2 * region.length && region.height * 8 >= region.length && region.fill >= minimumModelFill
    }

    /// The least share of its box a large photo's patch fills for the model to fit it (`isWorthTheModel`).
    static let minimumModelFill = 0.3

    /// Candidate regions read per large photo, by effort.
    static let regionLimit: [ScanEffort: Int] = [.fast: 3, .normal: 5, .thorough: 10]
    /// Candidate regions found on the reduced image, besides those of the full one.
    static let coarseRegionLimit = 2
}

/// What a small photo showed that made the hard passes worth running on it.
enum BarsEvidence: Sendable, Hashable {
    /// zbar read a symbol it could not confirm, or one that failed validation.
    case zbarRead
    /// A patch shaped like a code's bars (`FileScanner.looksLikeCode`) at the photo's size.
    case codeShapedPatch
    /// Such a patch only on a reduced copy: noise hid it at full size.
    case codeShapedPatchWhenReduced

    var zbarRead: Bool { self == .zbarRead }
    /// Smoothing along the bars is for noise: not for a clean code-shaped patch zbar read nothing in.
    var smoothingWorthIt: Bool { self != .codeShapedPatch }
}

/// Detections gathered over the attempts on one file, in the file's pixel coordinates.
struct AttemptLog {
    let reader: BarcodeReader
    /// The file's pixels (where confirmed codes are checked: `PixelCheck`) and their reduced
    /// copies, made when a crop or a pass first needs one.
    let copies: ReducedCopies
    var pixels: GrayImage { copies.full }
    var agreement = Agreement()
    var rejected: [Detection] = []
    var warnings: [String] = []
    var successfulAttempt: String?
    /// UPC-E/EAN-8 reads refused because bars ran on into their margins (`QuietZone`).
    var shadowsRefused = 0
    /// Patches `ModelDecoder` fitted but would not read (bands disagreeing, unclear digits).
    var modelRefusals = 0
    /// Codes the model has looked beside for an add-on.
    var addOnsLookedFor: Set<String> = []
    /// Patches whose crop turned level was read (`runRegions`).
    var regionsReadUpright: [CandidateRegion] = []
    /// Images and crops zbar scanned.
    var scans = 0
    /// A large photo's regions' runs of edges along their bars, from their plain crops (`RegionReading.barRun`).
    var barRuns: [CandidateRegion: Int] = [:]

    /// Whether a large photo's region is worth more than its plain scan: its plain crop showed
    /// a long enough run of edges along its bars (a region never cropped is given the benefit).
    func showsBars(_ region: CandidateRegion) -> Bool {
        (barRuns[region] ?? .max) >= RegionReading.minimumBarRun
    }
    /// The hard passes were not run: nothing looked like bars (`FileScanner.barsEvidence`).
    var hardPassesSkipped = false

    init(reader: BarcodeReader, pixels: GrayImage) {
        self.reader = reader
        copies = ReducedCopies(pixels)
    }

    /// zbar has read a symbol here, valid or not, confirmed or not.
    var zbarReadSomething: Bool { !agreement.sightings.isEmpty || !rejected.isEmpty }

    /// Where zbar read a symbol here, valid or not (its lines' boxes, in the file's pixels).
    var readBoxes: [BoundingBox] { agreement.sightings.map(\.detection.bounds) + rejected.map(\.bounds) }

    /// Scans one variant; true once a confirmed, uncontradicted code stands.
    /// `keepRejected: false` for doctored images, where a symbol that fails validation (an
    /// add-on alone, most often) is far more likely noise than print. `origin`: where the
    /// image's crop starts in the file's pixels (a small photo's `hardPassArea`).
    mutating func run(_ image: GrayImage, scale: Int, label: String, density: Int = 1,
                      keepRejected: Bool = true, mapping: BoundsMapping = .identity, acceptShort: Bool = true,
                      sharpened: Bool = false, origin: (x: Int, y: Int) = (0, 0)) -> Bool {
        if reader.density != density { try? reader.setDensity(density) }
        scans += 1
        for var detection in reader.scan(image, refusingShadows: &shadowsRefused)
        where acceptShort || !Agreement.isShort(detection) {
            detection.bounds = mapping.apply(detection.bounds).scaled(by: scale)
            detection.bounds.x += origin.x
            detection.bounds.y += origin.y
            if detection.isValid {
                agreement.record(detection, attempt: label, sharpened: sharpened)
            } else if keepRejected, !rejected.contains(where: { $0.identity == detection.identity }) {
                rejected.append(detection)
            }
        }
        let found = reportable()
        if found, successfulAttempt == nil { successfulAttempt = label }
        return found
    }

    /// As `run`, every line (density 1) along the rows of `rows` and the columns of `columns`
    /// only (`BarcodeReader.scan(_:rows:columns:refusingShadows:)`), one scan.
    mutating func run(_ image: GrayImage, rows: Range<Int>, columns: Range<Int>, label: String) -> Bool {
        scans += 1
        for detection in reader.scan(image, rows: rows, columns: columns, refusingShadows: &shadowsRefused) {
            if detection.isValid {
                agreement.record(detection, attempt: label)
            } else if !rejected.contains(where: { $0.identity == detection.identity }) {
                rejected.append(detection)
            }
        }
        let found = reportable()
        if found, successfulAttempt == nil { successfulAttempt = label }
        return found
    }

    /// Each region cropped upright from the full image and scanned along its rows: every
    /// region plainly first, then (when no code is confirmed yet) sharpened, then finer (a
    /// code smaller than its patch suggests); a region stops once one of its codes is
    /// confirmed. `onlyWhereBarsRun` (a large photo at normal effort): a region whose plain crop
    /// shows too short a run of edges along its bars gets no other crop (`showsBars`). True once a
    /// confirmed, uncontradicted code stands.
    mutating func runRegions(_ regions: [CandidateRegion], effort: ScanEffort,
                             numberedFrom firstNumber: Int = 1, variants chosen: [RegionVariant]? = nil,
                             onlyWhereBarsRun: Bool = false) -> Bool {
        let variants = chosen ?? RegionVariant.all(for: effort)
        var readIn = [Set<String>](repeating: [], count: regions.count)
        var addOnLooks: [String: RegionReading.AddOnLook] = [:]
        // A region's crop at each width, made once: the plain, sharpened and smoothed scans share
        // the level one (the smoothed scan, after the finer crop, made it again).
        var crops: [Int: [Double: RegionReading.Crop?]] = [:]
        for (round, variant) in variants.enumerated() {
            if round > 0, reportable() { break }
            for (number, region) in regions.enumerated() {
                if agreement.sightings.contains(where: { readIn[number].contains($0.detection.identity) && $0.isConfirmed }) {
                    continue
                }
                if crops[number, default: [:]][variant.width] == nil {
                    crops[number, default: [:]][variant.width] = .some(RegionReading.crop(region, from: copies, outputWidth: variant.width))
                }
                guard let crop = crops[number]?[variant.width] ?? nil else { continue }
                if round == 0 { regionsReadUpright.append(region) }
                if onlyWhereBarsRun {
                    if round == 0 { barRuns[region] = RegionReading.barRun(crop.image) }
                    else if !showsBars(region) { continue }
                }
                let image = switch variant.filter {
                case .plain: crop.image
                case .sharpened: crop.image.sharpened(radius: 2, amount: 2)
                case .smoothedAlongBars: crop.image.smoothedAlongColumns(radius: RegionVariant.smoothingRadius)
                }
                let label = "region \(number + firstNumber), \(variant.label)"
                scans += 1
                // Symbols that fail validation are not kept: in a crop of bars an add-on
                // alone is far more likely part of the main code than print.
                for var detection in reader.scanRows(image, refusingShadows: &shadowsRefused) where detection.isValid {
                    if let look = RegionReading.addOnLook(for: detection, in: crop, region: region) {
                        addOnLooks[detection.identity] = addOnLooks[detection.identity] ?? look
                    }
                    detection.bounds = crop.mapping.apply(detection.bounds)
                    agreement.record(detection, attempt: label, sharpened: variant.filter == .sharpened, upright: true)
                    readIn[number].insert(detection.identity)
                }
            }
        }
        readAddOns(addOnLooks, model: effort != .fast)
        let found = reportable()
        if found, successfulAttempt == nil { successfulAttempt = "regions" }
        return found
    }

    /// Confirmed codes read without an add-on: where their crop was too narrow or too coarse
    /// to hold one, zbar reads the same place again, wide enough for an EAN-2/EAN-5 on
    /// either side; then (`model`) `ModelDecoder` looks for one beside the code.
    mutating func readAddOns(_ looks: [String: RegionReading.AddOnLook], model: Bool) {
        for sighting in agreement.sightings where sighting.isConfirmed && sighting.detection.addOn == nil {
            let identity = sighting.detection.identity
            guard let look = looks[identity], look.rescan || model,
                  let crop = look.readCrop ?? RegionReading.crop(look.region, from: copies, outputWidth: look.outputWidth)
            else { continue }
            if look.rescan {
                var found = false
                for var detection in reader.scanRows(crop.image, refusingShadows: &shadowsRefused)
                where detection.isValid && detection.identity == identity && detection.addOn != nil {
                    detection.bounds = crop.mapping.apply(detection.bounds)
                    agreement.record(detection, attempt: "region, add-on look", upright: true)
                    found = true
                }
                if found { continue }
            }
            guard model else { continue }
            addOnsLookedFor.insert(identity)
            let width = look.codeWidth / crop.mapping.step
            let centre = Double(crop.image.width) / 2 + look.codeOffset / crop.mapping.step
            if let addOn = ModelDecoder.readAddOn(crop, of: sighting.detection.text, codeWidth: width * 0.85...width * 1.2, centre: centre) {
                agreement.attach(addOn, to: identity)
            }
        }
    }

    /// Confirmed codes still without an add-on that no region's crop has shown the model
    /// (read by whole-image scans), where zbar read an add-on alone (across a turned code's
    /// bars, its rows cross the short add-on whole but not the code): the model looks beside
    /// each, in a crop turned level along the barcode-like patch it lies in (`regions`, found
    /// only when needed). Not on every photo: around small photos' codes the edges of other
    /// print often look like an add-on's, and the look cost a quarter more CPU a photo.
    mutating func readAddOnsByModel(regions: () -> [CandidateRegion]) {
        guard rejected.contains(where: \.symbology.isAddOn) else { return }
        let waiting = agreement.sightings.filter {
            $0.isConfirmed && $0.detection.addOn == nil && !addOnsLookedFor.contains($0.detection.identity)
                && [.ean13, .isbn13, .upcA, .upcE].contains($0.detection.symbology)
        }
        guard !waiting.isEmpty else { return }
        let patches = regions()
        for sighting in waiting {
            let box = sighting.detection.bounds
            let (x, y) = (Double(box.x) + Double(box.width) / 2, Double(box.y) + Double(box.height) / 2)
            guard let patch = patches.first(where: { $0.holds(x: x, y: y) }) else { continue }
            // The box's extent across the patch's bars: the code's length, more if it is turned.
            let (c, s) = (abs(cos(patch.angle)), abs(sin(patch.angle)))
            // zbar's box is where its lines finished reading: across a turned code, a strip
            // of it. The patch is the code's length, more with an add-on or a margin.
            let length = max(Double(box.width) * c + Double(box.height) * s, patch.length)
            let look = RegionReading.AddOnLook(around: (x, y), angle: patch.angle, codeWidth: length,
                                               height: min(patch.height, Double(box.width) * s + Double(box.height) * c),
                                               finestStep: 1,
                                               modules: (sighting.detection.symbology == .upcE ? ModelSymbol.upcE : .ean13).moduleCount)
            guard let crop = RegionReading.crop(look.region, from: copies, outputWidth: look.outputWidth) else { continue }
            addOnsLookedFor.insert(sighting.detection.identity)
            let width = length / crop.mapping.step
            if let addOn = ModelDecoder.readAddOn(crop, of: sighting.detection.text, codeWidth: width * 0.45...width * 1.15,
                                                  centre: Double(crop.image.width) / 2) {
                agreement.attach(addOn, to: sighting.detection.identity)
            }
        }
    }

    /// Codes read once by few scan lines get a second look at their region, in other
    /// forms than the one that read them (finest image, doubled, sharpened): a printed code
    /// reads again, a misread seldom repeats. Contradictions get the same look, so the
    /// stronger reading can win. Bounded: a few regions, three small crops each.
    mutating func confirm(using sources: [(image: GrayImage, scale: Int)]) {
        guard let (image, scale) = sources.min(by: { $0.scale < $1.scale }) else { return }
        let verdict = agreement.verdict
        guard verdict.unconfirmed > 0 || verdict.ambiguities > 0 else { return }
        if reader.density != 1 { try? reader.setDensity(1) }
        let doubtful = agreement.sightings.filter { !$0.isConfirmed }.prefix(Self.maximumRegions)
        for sighting in doubtful {
            let whole = sighting.detection.bounds.grownToHoldCode(minimumReach: Agreement.secondLookReach * scale)
            let region = BoundingBox(x: whole.x / scale, y: whole.y / scale, width: whole.width / scale, height: whole.height / scale)
            guard let (crop, x, y) = image.cropped(to: region) else { continue }
            let origin = (x: x * scale, y: y * scale)
            let index = agreement.sightings.firstIndex { $0.detection.identity == sighting.detection.identity }
            // (label, image, its size relative to the crop as up/down factors)
            var variants: [(String, () -> GrayImage, up: Int, down: Int, sharpened: Bool)] = [
                ("region sharpened", { (crop.contrastStretched() ?? crop).sharpened() }, 1, 1, true),
                ("region smoothed", { crop.boxBlurred() }, 1, 1, false),
            ]
            // Doubling is for small codes; around a large one (a read from a reduced pass on a
            // 12 MP photo: crops of up to 6 MP) the doubled copy cost 0.3-0.8 s of zbar.
            if crop.width * crop.height <= Self.maximumDoubledPixels {
                variants.insert(("region doubled", { crop.upscaled2x() }, 2, 1, false), at: 0)
            }
            // Reduced copies average noise away (what read a noisy code in the first place).
            for factor in [2, 4, 8] where min(crop.width, crop.height) / factor >= Self.minimumRegionSide {
                variants.append(("region reduced 1/\(factor)", { crop.downscaled(by: factor) }, 1, factor, false))
            }
            for (label, make, up, down, sharpened) in variants {
                let variant = make()
                scans += 1
                // Back to the crop's pixels, then to the file's.
                for detection in reader.scan(variant, refusingShadows: &shadowsRefused) where detection.isValid {
                    agreement.record(detection.placed(up: up, down: down, scale: scale, origin: origin), attempt: label, sharpened: sharpened)
                }
                if let index, agreement.sightings[index].isConfirmed { break }
            }
        }
    }

    static let maximumRegions = 3
    /// Second-look crops larger than this are not doubled.
    static let maximumDoubledPixels = 1_000_000
    static let minimumRegionSide = 40

    func result(for loaded: LoadedImage) -> FileScanResult {
        let verdict = agreement.verdict
        func upright(_ detection: Detection) -> Detection {
            var turned = detection
            let b = detection.bounds
            let rect = loaded.uprightRect(x: b.x, y: b.y, width: b.width, height: b.height)
            turned.bounds = BoundingBox(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
            return turned
        }
        return FileScanResult(
            codes: verdict.codes.map(upright).inReadingOrder,
            rejected: verdict.unpaired(rejected).map(upright),
            imageWidth: loaded.originalWidth, imageHeight: loaded.originalHeight,
            warnings: loaded.warnings + warnings, attempt: successfulAttempt,
            ambiguities: verdict.ambiguities, unconfirmed: verdict.unconfirmed,
            shadows: verdict.shadows + shadowsRefused, modelRefusals: modelRefusals, contradicted: verdict.contradicted,
            scans: scans, hardPassesSkipped: hardPassesSkipped)
    }
}

/// How a box found in a pass's image maps back to the image the pass was made from.
enum BoundsMapping {
    case identity
    /// The pass image was doubled.
    case magnified
    /// The pass image was turned by `degrees` about its centre (`skewed(degrees:)`) after
    /// being magnified; `width`×`height` is the image before the turn.
    case skewed(degrees: Double, width: Int, height: Int, magnification: Int)

    func apply(_ b: BoundingBox) -> BoundingBox {
        switch self {
        case .identity:
            return b
        case .magnified:
            return BoundingBox(x: b.x / 2, y: b.y / 2, width: max(1, b.width / 2), height: max(1, b.height / 2))
        case .skewed(let degrees, let width, let height, let magnification):
            // The box's centre turned back; its size kept (a few degrees barely change it).
            let radians = degrees * .pi / 180, c = cos(radians), s = sin(radians)
            let outWidth = (Double(width) * abs(c) + Double(height) * abs(s)).rounded(.up)
            let outHeight = (Double(width) * abs(s) + Double(height) * abs(c)).rounded(.up)
            let dx = Double(b.x) + Double(b.width) / 2 - outWidth / 2
            let dy = Double(b.y) + Double(b.height) / 2 - outHeight / 2
            let x = (c * dx - s * dy + Double(width) / 2) / Double(magnification)
            let y = (s * dx + c * dy + Double(height) / 2) / Double(magnification)
            let w = max(1, b.width / magnification), h = max(1, b.height / magnification)
            return BoundingBox(x: Int(x) - w / 2, y: Int(y) - h / 2, width: w, height: h)
        }
    }
}

extension BoundingBox {
    func scaled(by factor: Int) -> BoundingBox {
        guard factor != 1 else { return self }
        return BoundingBox(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }
}

