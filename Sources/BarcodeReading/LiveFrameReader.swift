import Foundation
import Imaging

/// Reads webcam frames (`watch`): the same confirmation as `FileScanner` (a valid check
/// digit, and many scan lines or a second read; no contradicted code; no UPC-E shadow of
/// a UPC-A), at the cost a live feed allows — the next frame is 33 ms away, so a frame
/// that does not read at once is left to it rather than retried at other scales.
///
/// A frame of 1280 px or more is scanned whole at half size first (every other line: a
/// quarter of a full-size scan; a book's barcode under a webcam is ≥ 2 px per module at
/// full size, so ≥ 1 px there, which zbar still reads). Then only the places where a finer
/// look could find more are scanned at full size: around each symbol zbar read but could
/// not confirm, and each patch of parallel edges (`RegionFinder`) away from the confirmed
/// codes — a second book, a code too fine for the half size; while nothing is confirmed,
/// the patches of codes turned well off the axes are read upright, then the two strongest
/// patches fitted by `ModelDecoder` (a soft code: on hard webcam frames 33 of 90 read
/// without it, 48 with it, ~4 ms more a frame that reads nothing). Smaller frames are scanned
/// whole at full size, then, while nothing is confirmed, their patches the same two ways
/// (hard 640×480 frames: 13 of 90 read whole, 27 with the patches; ~3 ms more a frame).
/// One reader per thread (zbar scanners are not thread-safe): deliberately not `Sendable`.
public final class LiveFrameReader {
    /// What one frame held.
    public struct Reading: Sendable, Hashable {
        /// Confirmed codes, top to bottom then left to right, add-ons paired.
        public var codes: [Detection]
        /// Symbols read but refused by their check digit or as add-ons alone.
        public var rejected: [Detection]
        /// Valid codes read once, by too few scan lines: reported as nothing.
        public var unconfirmed: Int
        /// Places where different valid codes were read and none won: reported as nothing.
        public var ambiguities: Int
        /// Codes read and confirmed whose digits the pixels contradict (`PixelCheck`): reported as nothing.
        public var contradicted = 0
        /// The passes run, in order ("1/2 size", "place 1", "confirming crop"…).
        public var passes: [String]
        public var warnings: [String]
    }

    public let rawFormat: RawFrameFormat?
    public let maxPixels: Int
    /// Scan a half-size copy first; false: the whole frame at full size (the benchmark's baseline).
    public let coarseFirst: Bool
    private let reader: BarcodeReader
    /// Codes the pixels of a recent frame bore out (`PixelCheck`), newest last: a webcam sees
    /// one book for many frames, and the same digits need no second check (~4 ms a frame).
    /// A misread is other digits, and is checked.
    private var borneOut: [String] = []
    static let borneOutMemory = 8

    /// Frames with a long side of at least this are scanned at half size first: the half
    /// (640 px) still has a webcam book barcode at ≥ 1 px per module.
    static let coarseMinimumLongSide = 1280
    /// Places scanned at full size per frame, at most.
    static let maximumPlaces = 3
    /// Places the model reads per frame, at most (while nothing is confirmed).
    static let maximumModelPlaces = 2

    public init(rawFormat: RawFrameFormat? = nil, maxPixels: Int = 100_000_000, coarseFirst: Bool = true) throws(BarcodeReaderError) {
        self.rawFormat = rawFormat
        self.maxPixels = maxPixels
        self.coarseFirst = coarseFirst
        reader = try BarcodeReader(density: 2)
    }

    public func read(fileAt url: URL) throws(ImageError) -> Reading {
        read(try ImageLoader.load(contentsOf: url, options: ImageLoadOptions(maxPixels: maxPixels, rawFormat: rawFormat)))
    }

    public func read(data: Data, name: String) throws(ImageError) -> Reading {
        read(try ImageLoader.load(data: data, name: name, options: ImageLoadOptions(maxPixels: maxPixels, rawFormat: rawFormat)))
    }

    private func read(_ loaded: LoadedImage) -> Reading {
        read(loaded.image, warnings: loaded.warnings)
    }

    /// A frame already in memory (`watch --device`: a camera's frames never touch a file).
    public func read(_ full: GrayImage, warnings: [String] = []) -> Reading {
        var log = LiveAttempts(reader: reader)
        log.warnings += warnings
        guard coarseFirst, max(full.width, full.height) >= Self.coarseMinimumLongSide else {
            log.readWhole(full)
            guard coarseFirst else { return checked(&log, against: full, regions: []) }
            let patches = FileScanner.patches(in: full)
            if log.readPatchesWhileUnread(patches, in: full), !log.settled {
                log.confirm(in: full)
            }
            return checked(&log, against: full, regions: patches)
        }
        // Every other line of the half size: a quarter of the full frame's cost, and a
        // webcam code there is still crossed by many lines at ≥ 1 px per module.
        log.scan(full.downscaled(by: 2), scale: 2, label: "1/2 size", density: 2)
        // Where a finer look could find something: what zbar read but could not confirm,
        // and patches of bars away from the confirmed codes (a second book, or a code too
        // fine for the half size).
        let regions = RegionFinder.find(in: full, limit: LiveFrameReader.maximumPlaces + log.agreement.verdict.codes.count)
        for (number, place) in log.places(in: full, regions: regions).enumerated() {
            guard let (crop, x, y) = full.cropped(to: place) else { continue }
            log.scan(crop, scale: 1, label: "place \(number + 1)", density: 2, origin: (x, y))
        }
        _ = log.readPatchesWhileUnread(regions, in: full)
        if !log.settled { log.confirm(in: full) }
        return checked(&log, against: full, regions: regions)
    }

    /// The frame's reading once the codes it would report are checked against its pixels
    /// (but for those a recent frame bore out), and those the pixel check could not find
    /// on bars turned well off the axes read once more upright (`regions`: the frame's patches).
    private func checked(_ log: inout LiveAttempts, against image: GrayImage, regions: [CandidateRegion]) -> Reading {
        let trusted = Set(borneOut)
        log.agreement.checked.formUnion(borneOut)
        let bornOutNow = log.agreement.checkAgainstPixels(image)
        for identity in bornOutNow {
            borneOut.removeAll { $0 == identity }
            borneOut.append(identity)
        }
        log.readUprightWhereUnchecked(regions, in: image, trusted: trusted.union(bornOutNow))
        if borneOut.count > Self.borneOutMemory { borneOut.removeFirst(borneOut.count - Self.borneOutMemory) }
        return log.reading
    }
}

/// One frame's passes and what they read, in the full frame's pixel coordinates.
struct LiveAttempts {
    let reader: BarcodeReader
    var agreement = Agreement()
    var rejected: [Detection] = []
    var warnings: [String] = []
    var passes: [String] = []
    /// UPC-E/EAN-8 reads refused because bars ran on into their margins (`QuietZone`): part
    /// of a longer code, as `FileScanner` refuses them.
    var shadowsRefused = 0

    /// A confirmed code and nothing left in doubt: no further pass can change the verdict.
    var settled: Bool {
        let verdict = agreement.verdict
        return !verdict.codes.isEmpty && verdict.unconfirmed == 0 && verdict.ambiguities == 0
    }

    /// While nothing is confirmed: the patches of codes turned well off the axes (a book held
    /// at a slant: zbar's rows and columns cross its bars too slantwise) read upright, as
    /// `FileScanner` reads a small photo's (~1 ms a crop); then, still nothing, a soft code
    /// (a webcam's focus is seldom on the book) fitted by `ModelDecoder` on the strongest
    /// patches, as `FileScanner`'s last resort. True when it ran.
    mutating func readPatchesWhileUnread(_ patches: [CandidateRegion], in full: GrayImage) -> Bool {
        guard agreement.verdict.codes.isEmpty else { return false }
        readTurned(patches.filter(\.isTurnedOffAxes), in: full)
        if agreement.verdict.codes.isEmpty { readByModel(patches.prefix(LiveFrameReader.maximumModelPlaces), in: full) }
        return true
    }

    /// A code read only across bars turned well off the axes, which the pixel check could
    /// not bear out, counts only if its patch cropped upright reads it too
    /// (`Agreement.doubtReadsAcrossTurnedBars`); the patch is read here if it was not yet.
    mutating func readUprightWhereUnchecked(_ regions: [CandidateRegion], in full: GrayImage, trusted: Set<String>) {
        var looked: [CandidateRegion] = []
        for (_, region) in agreement.readsAcrossTurnedBars(in: regions, trusted: trusted) where !looked.contains(region) {
            readTurned([region], in: full, label: Agreement.uprightCheckAttempt)
            looked.append(region)
        }
        agreement.doubtReadsAcrossTurnedBars(readUpright: looked, trusted: trusted)
    }

    /// Each region cropped upright from the frame and scanned along its rows (plain: a
    /// live frame has no time for sharpened copies).
    mutating func readTurned(_ regions: [CandidateRegion], in full: GrayImage, label given: String? = nil) {
        let copies = ReducedCopies(full)
        for (number, region) in regions.prefix(LiveFrameReader.maximumPlaces).enumerated() {
            guard let crop = RegionReading.crop(region, from: copies, outputWidth: RegionReading.cropWidth) else { continue }
            let label = given ?? "turned place \(number + 1)"
            passes.append(label)
            for var detection in reader.scanRows(crop.image, refusingShadows: &shadowsRefused) where detection.isValid {
                detection.bounds = crop.mapping.apply(detection.bounds)
                agreement.record(detection, attempt: label, upright: true)
            }
        }
    }

    /// Each region's patch read by `ModelDecoder`; its bands agreeing count as scan lines.
    /// EAN-13/UPC-A only, without add-ons: `watch` catalogues books, and trying a UPC-E and an EAN-8 too
    /// where none reads took the hard webcam feed's latency from 15 to 20 ms (p95 26 → 36).
    mutating func readByModel(_ regions: ArraySlice<CandidateRegion>, in full: GrayImage) {
        for (number, region) in regions.enumerated() {
            guard let crop = RegionReading.modelCrop(region, from: full) else { continue }
            passes.append("model place \(number + 1)")
            if case .code(let detection) = ModelDecoder.read(crop, of: region, scale: 1, shortCodes: false, addOns: false) {
                agreement.record(detection, attempt: Agreement.modelFitAttempt, upright: true)
            }
        }
    }

    /// Scans the whole image once, then gives doubtful reads their second look.
    mutating func readWhole(_ image: GrayImage) {
        scan(image, scale: 1, label: "full size", density: 2)
        if !settled { confirm(in: image) }
    }

    /// `origin`: where `image` sits in the frame, after scaling.
    mutating func scan(_ image: GrayImage, scale: Int, label: String, density: Int, origin: (x: Int, y: Int) = (0, 0)) {
        if reader.density != density { try? reader.setDensity(density) }
        passes.append(label)
        for scanned in reader.scan(image, refusingShadows: &shadowsRefused) {
            let detection = scanned.placed(scale: scale, origin: origin)
            if detection.isValid {
                agreement.record(detection, attempt: label)
            } else if !rejected.contains(where: { $0.identity == detection.identity }) {
                rejected.append(detection)
            }
        }
    }

    /// Boxes of the frame (in full-size pixels) worth a full-size scan, at most
    /// `LiveFrameReader.maximumPlaces`: around each symbol the reduced pass read but did not
    /// confirm, then around each patch of parallel edges away from the confirmed codes,
    /// upright boxes with room for the whole code. Empty when nothing is left to look at.
    func places(in full: GrayImage, regions: [CandidateRegion]) -> [BoundingBox] {
        var boxes: [BoundingBox] = []
        let doubtful = agreement.sightings.filter { !$0.isConfirmed }.map(\.detection) + rejected
        boxes += doubtful.map { $0.bounds.grownToHoldCode(minimumReach: Agreement.secondLookReach) }
        let confirmed = agreement.verdict.codes.map(\.bounds)
        for region in regions {
            // A patch covers the bars that stayed sharp: often less than the code.
            let c = abs(cos(region.angle)), s = abs(sin(region.angle))
            let halfWidth = (c * region.length + s * region.height) * 0.75 + 16
            let halfHeight = (s * region.length + c * region.height) * 0.75 + 16
            let box = BoundingBox(x: Int(region.centreX - halfWidth), y: Int(region.centreY - halfHeight),
                                  width: Int(2 * halfWidth), height: Int(2 * halfHeight))
            // The bars of a code already confirmed are no new place.
            if confirmed.contains(where: { Agreement.overlap($0, box) }) { continue }
            boxes.append(box)
        }
        // Overlapping boxes merge, so no part of the frame is scanned twice.
        var merged: [BoundingBox] = []
        for box in boxes {
            if let index = merged.firstIndex(where: { $0.intersects(box) }) {
                merged[index] = merged[index].union(box)
            } else {
                merged.append(box)
            }
        }
        return Array(merged.prefix(LiveFrameReader.maximumPlaces))
    }

    /// A code read once by few scan lines, or contradicted, gets one more look at its place:
    /// cropped from the full frame, every scan line, then doubled. A printed code reads
    /// again; a misread seldom repeats.
    mutating func confirm(in image: GrayImage) {
        let doubtful = agreement.sightings.filter { !$0.isConfirmed }.prefix(2)
        guard !doubtful.isEmpty || agreement.verdict.ambiguities > 0 else { return }
        let places = doubtful.isEmpty ? Array(agreement.sightings.prefix(2)) : Array(doubtful)
        if reader.density != 1 { try? reader.setDensity(1) }
        for sighting in places {
            let region = sighting.detection.bounds.grownToHoldCode(minimumReach: Agreement.secondLookReach)
            guard let (crop, x, y) = image.cropped(to: region) else { continue }
            let origin = (x: x, y: y)
            for (label, variant, up) in [("confirming crop", crop, 1), ("confirming crop doubled", crop.upscaled2x(), 2)] {
                passes.append(label)
                for detection in reader.scan(variant, refusingShadows: &shadowsRefused) where detection.isValid {
                    agreement.record(detection.placed(up: up, origin: origin), attempt: label)
                }
                if agreement.sightings.first(where: { $0.detection.identity == sighting.detection.identity })?.isConfirmed == true {
                    break
                }
            }
        }
    }

    var reading: LiveFrameReader.Reading {
        let verdict = agreement.verdict
        return LiveFrameReader.Reading(
            codes: verdict.codes.inReadingOrder, rejected: verdict.unpaired(rejected),
            unconfirmed: verdict.unconfirmed, ambiguities: verdict.ambiguities, contradicted: verdict.contradicted,
            passes: passes, warnings: warnings)
    }
}

private extension BoundingBox {
    func intersects(_ other: BoundingBox) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }
}
