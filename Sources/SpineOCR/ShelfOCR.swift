import Dispatch
import Foundation
import Imaging
import Vision

/// One spine found by OCR: its words in reading order, where it is in the photo.
public struct OCRSpine: Sendable, Hashable {
    public var words: [OCRWord]
    /// The spine's text box in the (working-size, upright) photo.
    public var box: Box
    public var rotation: SpineRotation
    /// Mean word confidence, 0–100.
    public var confidence: Double
    /// Shelf row (0 at the top) and index within the row, left to right.
    public var row: Int = 0

    public var text: String { words.map(\.text).joined(separator: " ") }

    /// Ranks two readings of the same place: confident letters count.
    var score: Double {
        words.reduce(0) { $0 + $1.confidence / 100 * Double($1.text.count) * ($1.isDictionaryWord ? 1.2 : 1) }
    }
}

/// One rotation's words as Tesseract returned them (before any filtering).
public struct OCRPass: Sendable, Hashable, Codable {
    public var rotation: SpineRotation
    /// The pixel count of the image read: 0 for the working image, else a second, smaller scale.
    public var pixels: Int
    /// Read as a negative: light titles on dark spines become dark on light.
    public var inverted: Bool
    public var words: [OCRWord]
    public init(rotation: SpineRotation, pixels: Int = 0, inverted: Bool = false, words: [OCRWord]) {
        self.rotation = rotation
        self.pixels = pixels
        self.inverted = inverted
        self.words = words
    }

    var view: ShelfOCR.ImageView { ShelfOCR.ImageView(pixels: pixels, inverted: inverted) }
}

/// Everything one photo gave, with how the work went.
public struct OCRShelf: Sendable {
    public var spines: [OCRSpine]
    public var workingWidth: Int
    public var workingHeight: Int
    /// Words Tesseract returned before noise filtering, over all rotations.
    public var rawWordCount: Int
}

/// Reads a shelf photo with Tesseract: decode through Imaging, scale, read every rotation in
/// parallel (one engine per worker), group words into spines, drop noise, merge rotations.
public final class ShelfOCR: @unchecked Sendable {
    public let options: TesseractOptions
    private let pool: EnginePool

    /// Checks the language data now, so a missing package fails before any photo is read.
    public init(options: TesseractOptions = TesseractOptions()) throws(TesseractError) {
        self.options = options
        _ = try LanguageData.folder(for: options.languages, explicit: options.dataPath)
        pool = EnginePool(options: options)
    }

    public func read(data: Data, name: String) throws(TesseractError) -> OCRShelf {
        try read(image: decode(data: data, name: name), name: name)
    }

    /// The photo's gray pixels through Imaging (the pixel limit applies before decoding).
    public func decode(data: Data, name: String) throws(TesseractError) -> GrayImage {
        // DCT-scaled decode of big JPEGs: never below the working size.
        let loadOptions = ImageLoadOptions(maxPixels: options.maxPixels,
                                           jpegTargetPixels: options.workingPixels * 4)
        do { return try ImageLoader.load(data: data, name: name, options: loadOptions).image } catch { throw .image(error) }
    }

    public func read(image original: GrayImage, name: String) throws(TesseractError) -> OCRShelf {
        let image = try workingImage(original, name: name)
        let passes = try recognize(image, name: name)
        return assemble(passes, image: image)
    }

    /// The photo at the size OCR reads it; too small a photo is refused.
    public func workingImage(_ original: GrayImage, name: String) throws(TesseractError) -> GrayImage {
        guard min(original.width, original.height) >= options.minimumSide else {
            throw .imageTooSmall(file: name, width: original.width, height: original.height,
                                 minimumSide: options.minimumSide)
        }
        return original.scaled(toPixels: options.workingPixels, maxLongSide: options.workingLongSide).image
    }

    /// Every pass's raw words (Tesseract's work: seconds of CPU), in parallel, one engine per
    /// pass: each rotation of the working image, then the spine rotations again at each extra
    /// scale (Tesseract's reading of a spine changes with scale; the best one wins the merge).
    public func recognize(_ image: GrayImage, name: String) throws(TesseractError) -> [OCRPass] {
        let rotations = options.rotations.isEmpty ? [SpineRotation.clockwise270] : options.rotations
        let spineRotations = rotations.filter { $0 != .none }
        let extra = options.extraScalePixels.filter { $0 < image.width * image.height }.map { ImageView(pixels: $0, inverted: false) }
            + options.invertedScalePixels.map { ImageView(pixels: $0 < image.width * image.height ? $0 : 0, inverted: true) }
        // Books lying flat: call-number labels make this pass the slowest (7 s of 16 on one
        // library photo); a smaller scale for it is a setting.
        let flat = ImageView(pixels: options.flatScalePixels < image.width * image.height ? options.flatScalePixels : 0, inverted: false)
        let jobs = rotations.map { (rotation: $0, view: $0 == .none ? flat : ImageView(pixels: 0, inverted: false)) }
            + extra.flatMap { view in spineRotations.map { (rotation: $0, view: view) } }
        let images = Dictionary(uniqueKeysWithValues: Set(jobs.map(\.view)).map { ($0, self.image(image, as: $0)) })
        let results = Locked([Result<OCRPass, TesseractError>?](repeating: nil, count: jobs.count))
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let (rotation, view) = jobs[index]
            let result = pool.withEngine { started -> Result<OCRPass, TesseractError> in
                guard case .success(let engine) = started else {
                    if case .failure(let error) = started { return .failure(error) }
                    return .failure(.recognitionFailed(file: name, rotation: rotation))
                }
                let turned = images[view]!.rotated(rotation.imagingRotation)
                guard let words = engine.words(in: turned, deadlineMilliseconds: options.deadlineMilliseconds) else {
                    return .failure(.recognitionFailed(file: name, rotation: rotation))
                }
                return .success(OCRPass(rotation: rotation, pixels: view.pixels, inverted: view.inverted, words: words))
            }
            results.withLock { $0[index] = result }
        }
        var passes: [OCRPass] = []
        for result in results.withLock({ $0 }) {
            switch result {
            case .success(let pass): passes.append(pass)
            case .failure(let error): throw error
            case nil: continue
            }
        }
        return passes
    }

    /// Which image a pass reads: the working image scaled (pixels > 0) and/or inverted.
    struct ImageView: Hashable { var pixels: Int; var inverted: Bool }

    /// The working image, or (pixels > 0) the working image scaled down to that many pixels,
    /// inverted when asked.
    func image(_ image: GrayImage, as view: ImageView) -> GrayImage {
        let scaled = view.pixels > 0 ? image.scaled(toPixels: view.pixels, maxLongSide: options.workingLongSide).image : image
        return view.inverted ? GrayImage(width: scaled.width, height: scaled.height, pixels: scaled.pixels.map { 255 - $0 }) : scaled
    }

    /// Raw words → spines: noise dropped, words grouped, rotations and scales merged, rows numbered.
    public func assemble(_ passes: [OCRPass], image: GrayImage) -> OCRShelf {
        var candidates: [OCRSpine] = []
        var images: [ImageView: GrayImage] = [:]
        for pass in passes {
            let read = images[pass.view] ?? self.image(image, as: pass.view)
            images[pass.view] = read
            let turned = read.rotated(pass.rotation.imagingRotation)
            let factor = Double(image.width) / Double(read.width)
            candidates += spines(in: pass.words, turned: turned, rotation: pass.rotation,
                                 photoWidth: read.width, photoHeight: read.height).map { spine in
                var spine = spine
                if factor != 1 { spine.box = spine.box.scaled(by: factor) }
                return spine
            }
        }
        return OCRShelf(spines: Self.merged(candidates), workingWidth: image.width, workingHeight: image.height,
                        rawWordCount: passes.reduce(0) { $0 + $1.words.count })
    }

    /// One pass's words → spines with their boxes in the photo, noise dropped.
    func spines(in words: [OCRWord], turned: GrayImage, rotation: SpineRotation,
                photoWidth: Int, photoHeight: Int) -> [OCRSpine] {
        let kept = words.filter { SpineNoise.keeps($0, minimumConfidence: options.minimumWordConfidence) }
        let groups = SpineGrouping.spines(
            kept, edgeBetween: { EdgeDetector.hasEdge(in: turned, between: $0, and: $1) },
            edgeAcross: { EdgeDetector.hasEdge(in: turned, leftOf: $1, rightOf: $0) })
        return groups.compactMap { group -> OCRSpine? in
            let words = group.filter { !SpineNoise.isImprint($0.text) }
            let letters = words.reduce(0) { $0 + $1.text.filter(\.isLetter).count }
            guard letters >= 4 else { return nil }
            let confidence = words.reduce(0) { $0 + $1.confidence } / Double(words.count)
            // Upside-down and texture garbage: unsure overall and no dictionary word.
            guard confidence >= options.minimumReadingConfidence || words.contains(where: \.isDictionaryWord)
            else { return nil }
            guard confidence >= options.minimumWordConfidence else { return nil }
            let box = words.dropFirst().reduce(words[0].box) { $0.union($1.box) }
            return OCRSpine(words: words, box: rotation.boxInPhoto(box, photoWidth: photoWidth, photoHeight: photoHeight),
                            rotation: rotation, confidence: confidence)
        }
    }

    /// A spine read in two rotations counts once: the better reading of a place wins.
    /// Survivors are numbered row by row, left to right.
    static func merged(_ candidates: [OCRSpine]) -> [OCRSpine] {
        var kept: [OCRSpine] = []
        for candidate in candidates.sorted(by: { $0.score > $1.score }) {
            let clashes = kept.contains { other in
                let overlap = Double(candidate.box.intersection(other.box))
                return overlap > 0.3 * Double(min(candidate.box.area, other.box.area))
            }
            if !clashes { kept.append(candidate) }
        }
        return ordered(kept)
    }

    /// Rows: spines sorted by their vertical centre, cut where two neighbours' centres lie
    /// more than half a typical spine's height apart; rows top to bottom, spines left to right.
    static func ordered(_ spines: [OCRSpine]) -> [OCRSpine] {
        guard !spines.isEmpty else { return [] }
        let heights = spines.map(\.box.height).sorted()
        let typical = Double(heights[heights.count / 2])
        var rows: [[OCRSpine]] = []
        var previous: Double?
        for spine in spines.sorted(by: { $0.box.centerY < $1.box.centerY }) {
            if let previous, spine.box.centerY - previous <= 0.5 * typical {
                rows[rows.count - 1].append(spine)
            } else {
                rows.append([spine])
            }
            previous = spine.box.centerY
        }
        return rows.enumerated().flatMap { rowIndex, row in
            row.sorted { $0.box.x0 < $1.box.x0 }.map { spine -> OCRSpine in
                var spine = spine
                spine.row = rowIndex
                return spine
            }
        }
    }
}

/// Engines are costly to start (the LSTM model loads): kept, one per concurrent pass.
final class EnginePool: @unchecked Sendable {
    private let options: TesseractOptions
    private let idle = Locked<[TesseractEngine]>([])
    private let slots: DispatchSemaphore

    init(options: TesseractOptions) {
        self.options = options
        slots = DispatchSemaphore(value: options.effectiveWorkers)
    }

    func withEngine<T>(_ body: (Result<TesseractEngine, TesseractError>) -> T) -> T {
        slots.wait()
        defer { slots.signal() }
        let engine: Result<TesseractEngine, TesseractError>
        if let reused = idle.withLock({ $0.popLast() }) {
            engine = .success(reused)
        } else {
            do { engine = .success(try TesseractEngine(options: options)) } catch { engine = .failure(error) }
        }
        defer { if case .success(let done) = engine { idle.withLock { $0.append(done) } } }
        return body(engine)
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Spine edges and shelf boards in the turned image: long straight breaks in brightness.
enum EdgeDetector {
    /// A horizontal break between two lines (`upper` above `lower`): some row of the gap
    /// changes brightness along most of the stretch both lines cover.
    static func hasEdge(in image: GrayImage, between upper: Box, and lower: Box) -> Bool {
        let x0 = max(0, max(upper.x0, lower.x0)), x1 = min(image.width, min(upper.x1, lower.x1))
        let yStart = max(1, min(upper.y1, lower.y0) - 2), yEnd = min(image.height - 1, max(upper.y1, lower.y0) + 2)
        guard x1 - x0 >= 8, yEnd > yStart else { return false }
        // Real spine edges are soft and slightly tilted: half the run suffices.
        return strongestRun(image, lines: yStart..<yEnd, along: x0..<x1, lineStride: image.width, step: 1) > 0.45
    }

    /// A vertical break between two words of one line (`left` then `right`): some column of
    /// the gap changes brightness along most of the band the words and a text height around them cover.
    static func hasEdge(in image: GrayImage, leftOf right: Box, rightOf left: Box) -> Bool {
        let margin = min(left.height, right.height)
        let y0 = max(0, min(left.y0, right.y0) - margin), y1 = min(image.height, max(left.y1, right.y1) + margin)
        let xStart = max(1, left.x1), xEnd = min(image.width - 1, right.x0)
        guard y1 - y0 >= 8, xEnd > xStart else { return false }
        return strongestRun(image, lines: xStart..<xEnd, along: y0..<y1, lineStride: 1, step: image.width) > 0.7
    }

    /// For each line (a row: `lineStride` = width, `step` = 1; a column: the reverse), the
    /// share of its pixels where brightness across it jumps by 24 or more; the largest share.
    private static func strongestRun(_ image: GrayImage, lines: Range<Int>, along: Range<Int>,
                                     lineStride: Int, step: Int) -> Double {
        var best = 0.0
        image.pixels.withUnsafeBufferPointer { pixels in
            for line in lines {
                var strong = 0
                for position in along {
                    let index = line * lineStride + position * step
                    if abs(Int(pixels[index + lineStride]) - Int(pixels[index - lineStride])) >= 24 { strong += 1 }
                }
                best = max(best, Double(strong) / Double(along.count))
            }
        }
        return best
    }
}
