import Dispatch
import Foundation
import Imaging
import Vision
import WorkerPools
import Synchronization

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
    /// Read from a spine strip found in the pixels (not from a whole-photo pass).
    public var fromStrip = false
    /// What other passes (turns, scales, strip variants) read at this place, best first:
    /// the matcher weighs them all, and two naming different books keep the spine from strong.
    public var alternatives: [String] = []
    /// Made only of words Tesseract was unsure of (`SpineNoise.WordVerdict.unsure`): read only
    /// where no surer reading is, and never more than a suggestion.
    public var isUnsure = false

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
    /// A spine strip read on its own (its box in the working image); nil for a whole-photo pass.
    public var strip: Box?
    /// Thread CPU milliseconds the pass took.
    public var milliseconds: Int?
    public init(rotation: SpineRotation, pixels: Int = 0, inverted: Bool = false, words: [OCRWord],
                strip: Box? = nil, milliseconds: Int? = nil) {
        self.rotation = rotation
        self.pixels = pixels
        self.inverted = inverted
        self.words = words
        self.strip = strip
        self.milliseconds = milliseconds
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
    /// Engines are costly to start (the LSTM model loads): kept, one per concurrent pass.
    private let pool: ResourcePool<TesseractEngine, TesseractError>
    /// PP-OCR's worker when `options.sceneTextPython` names one.
    public let sceneText: SceneTextReader?
    /// Photos in a row the worker failed on; after three it is no longer asked (a worker that
    /// hangs would otherwise cost its timeout on every photo of a long batch).
    private let sceneTextFailures = Mutex(0)
    static let sceneTextFailuresTolerated = 3

    /// Checks the language data now, so a missing package fails before any photo is read.
    public init(options: TesseractOptions = TesseractOptions()) throws(TesseractError) {
        self.options = options
        _ = try LanguageData.folder(for: options.languages, explicit: options.dataPath)
        pool = ResourcePool(limit: options.effectiveWorkers) { () throws(TesseractError) in try TesseractEngine(options: options) }
        sceneText = try options.sceneTextPython.map { python throws(TesseractError) in try SceneTextReader(python: python, turnsUnsureTallLinesBelow: options.sceneTextTurnsBelow,
                                                                                                  readsUnreadTurned: options.sceneTextReadsUnreadTurned,
                                                                                                  unreadStripLimit: options.sceneTextUnreadStripLimit) }
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
    /// worker: first each rotation of the working image, then each spine strip found in the
    /// pixels (SpineStrips), then the spine rotations again at each extra scale (Tesseract's
    /// reading of a spine changes with scale; the best one wins the merge). Once the photo's
    /// passes have used the budget's CPU time, remaining strips and extra scales are skipped:
    /// CPU time, not wall time, which a busy machine stretches far more.
    public func recognize(_ image: GrayImage, name: String, pages: Bool = true) throws(TesseractError) -> [OCRPass] {
        let rotations = options.rotations.isEmpty ? [SpineRotation.clockwise270] : options.rotations
        let spineRotations = rotations.filter { $0 != .none }
        let extra = options.extraScalePixels.filter { $0 < image.width * image.height }.map { ImageView(pixels: $0, inverted: false) }
            + options.invertedScalePixels.map { ImageView(pixels: $0 < image.width * image.height ? $0 : 0, inverted: true) }
        // Books lying flat: call-number labels make this pass the slowest (7 s of 16 on one
        // library photo); a smaller scale for it is a setting.
        let flat = ImageView(pixels: options.flatScalePixels < image.width * image.height ? options.flatScalePixels : 0, inverted: false)
        // PP-OCR reads the whole photo first (it uses every core itself); its lines take the
        // place of Tesseract's page passes but `tesseractRotationsWithSceneText`. A photo the
        // worker fails on (it stopped, say) is read by Tesseract alone: the batch goes on.
        var sceneTextLines: [SceneTextLine] = []
        var sceneTextPasses: [OCRPass]?
        var sceneTextMilliseconds = 0
        // PP-OCR's lines from the strips its passes read unsurely, when asked for.
        let sceneTextStrips = Once<(lines: [SceneTextLine], milliseconds: Int)>()
        // Spine strips in the pixels: Tesseract's, and PP-OCR's where its passes read a line but no sure one.
        let readsSceneTextStrips = pages && (sceneText?.unreadStripLimit ?? 0) > 0
        let found = (options.readsStrips && !spineRotations.isEmpty) || readsSceneTextStrips
            ? SpineStrips.spineStrips(in: image, followsLean: options.stripsFollowLean) : []
        if pages, let sceneText, sceneTextFailures.withLock({ $0 }) < Self.sceneTextFailuresTolerated {
            let read = try? sceneText.lines(in: image, name: name)
            sceneTextFailures.withLock { $0 = read == nil ? $0 + 1 : 0 }
            if let (lines, milliseconds) = read {
                // The strips PP-OCR left unsure are read while Tesseract's passes run: the worker
                // uses one core for them (waiting for them after the photo's passes cost the
                // wall of their CPU and more, stop 41).
                if readsSceneTextStrips {
                    let boxes = found.map(\.box), reading = sceneTextStrips
                    Thread { reading.set((try? sceneText.stripLines(boxes, name: name)) ?? ([], 0)) }.start()
                }
                sceneTextLines = lines
                sceneTextMilliseconds = milliseconds
                sceneTextPasses = pool.withResource { started in
                    let engine = try? started.get()
                    return SceneTextReader.passes(from: lines, imageWidth: image.width, imageHeight: image.height, milliseconds: milliseconds,
                                                  isDictionaryWord: { engine?.isDictionaryWord($0) ?? false })
                }
            }
        }
        let withSceneText = sceneTextPasses != nil ? options.tesseractRotationsWithSceneText : nil
        let pageRotations = withSceneText.map { kept in rotations.filter { kept.contains($0) } } ?? rotations
        // The flat pass first: on library photos it is the longest, and the spine turns share the other core meanwhile.
        let main: [Work] = !pages ? [] : (pageRotations.filter { $0 == .none } + pageRotations.filter { $0 != .none })
            .map { .page($0, $0 == .none ? flat : ImageView(pixels: 0, inverted: false), optional: false) }
        // Strips PP-OCR already read confidently wait for the others: over budget, what goes unread
        // is a second reading of a read spine, not the only one of an unread spine.
        let confident = options.stripOrderSceneTextConfidence <= 0 ? [] : Set(found.indices.filter { index in
            sceneTextLines.contains { $0.confidence >= options.stripOrderSceneTextConfidence && $0.text.filter(\.isLetter).count >= 6
                && found[index].contains(x: $0.box.centerX, y: $0.box.centerY) }
        })
        var strips = options.readsStrips && !spineRotations.isEmpty ? stripWork(found, later: confident) : []
        // A strip PP-OCR read surely (a long line at high confidence inside it) gets no second round.
        if options.stripSkipSceneTextConfidence > 0 {
            let sure = sceneTextLines.filter { $0.confidence >= options.stripSkipSceneTextConfidence && $0.text.filter(\.isLetter).count >= 6 }
            let read = Set(found.indices.filter { index in sure.contains { found[index].contains(x: $0.box.centerX, y: $0.box.centerY) } })
            strips.removeAll { if case .strip(_, let number, firstRound: false) = $0 { read.contains(number) } else { false } }
        }
        let extras: [Work] = !pages || withSceneText != nil ? [] : extra.flatMap { view in spineRotations.map { .page($0, view, optional: true) } }
        let work = main + strips + extras
        // A strip's second round starts from its first round's passes.
        let firstRounds = found.map { _ in Once<[OCRPass]>() }
        var views: Set<ImageView> = []
        for case .page(_, let view, _) in work { views.insert(view) }
        let images = Dictionary(uniqueKeysWithValues: views.map { ($0, self.image(image, as: $0)) })
        let budget = options.budgetMilliseconds
        // PP-OCR's CPU counts: the budget bounds the photo's work, whoever does it.
        let spent = Mutex(sceneTextMilliseconds)
        let overBudget: @Sendable () -> Bool = { budget > 0 && spent.withLock { $0 } > budget }
        // With PP-OCR, a dense photo's whole-photo passes can use the budget up by themselves: a
        // strip no confident line was read in still gets its first round, up to a reserve past it.
        let reserve = sceneTextPasses == nil ? 0 : options.unreadStripReserveMilliseconds
        let overReserve: @Sendable () -> Bool = { budget > 0 && spent.withLock { $0 } > budget + reserve }
        let results = Mutex([[Result<OCRPass, TesseractError>]](repeating: [], count: work.count))
        pool.forEachIndex(work.count) { index in
            // A strip's second round starts from its first round's passes. That round was handed
            // out before it (in order), so this waits at most for it to end, holding no engine.
            var first: [OCRPass] = []
            if case .strip(_, let number, firstRound: false) = work[index] { first = firstRounds[number].wait() }
            let outcome = pool.withResource { started -> [Result<OCRPass, TesseractError>] in
                guard case .success(let engine) = started else {
                    if case .failure(let error) = started { return [.failure(error)] }
                    return [.failure(.recognitionFailed(file: name, rotation: .none))]
                }
                switch work[index] {
                case .strip(let strip, let number, let firstRound):
                    // The first round: the first variant; the second: the others and the last resort.
                    let split = min(1, options.stripVariants.count)
                    let limit = firstRound && !confident.contains(number) ? overReserve : overBudget
                    return readStrip(strip, in: image, rotations: spineRotations, engine: engine, overBudget: limit,
                                     spend: { milliseconds in spent.withLock { $0 += milliseconds } },
                                     variants: firstRound ? 0..<split : split..<options.stripVariants.count,
                                     after: first, readsUpright: !firstRound).map { .success($0) }
                case .page(let rotation, let view, let optional):
                    if optional && overBudget() { return [] }
                    let clock = ThreadCPUClock()
                    let turned = images[view]!.rotated(rotation.imagingRotation)
                    let words = engine.words(in: turned, cpuMilliseconds: options.deadlineMilliseconds)
                    let milliseconds = Int(clock.milliseconds)
                    spent.withLock { $0 += milliseconds }
                    guard let words else { return [.failure(.recognitionFailed(file: name, rotation: rotation))] }
                    return [.success(OCRPass(rotation: rotation, pixels: view.pixels, inverted: view.inverted, words: words,
                                             milliseconds: milliseconds))]
                }
            }
            results.withLock { $0[index] = outcome }
            // Set on every path (an engine that failed to start included): its second round waits for it.
            if case .strip(_, let number, firstRound: true) = work[index] {
                firstRounds[number].set(outcome.compactMap { try? $0.get() })
            }
        }
        var passes = sceneTextPasses ?? []
        if readsSceneTextStrips, sceneTextPasses != nil {
            let (lines, milliseconds) = sceneTextStrips.wait()
            var stripPasses = pool.withResource { started in
                let engine = try? started.get()
                return SceneTextReader.passes(from: lines, imageWidth: image.width, imageHeight: image.height, milliseconds: 0,
                                              isDictionaryWord: { engine?.isDictionaryWord($0) ?? false })
            }.filter { $0.strip != nil }
            // The worker's CPU for the strips, on the first of their passes.
            if !stripPasses.isEmpty { stripPasses[0].milliseconds = milliseconds }
            passes += stripPasses
        }
        for result in results.withLock({ $0 }).joined() {
            switch result {
            case .success(let pass): passes.append(pass)
            case .failure(let error): throw error
            }
        }
        return passes
    }

    /// One strip read in each variant and spine direction, in order, until one reading is
    /// confident and holds a dictionary word (`stripSecondDirectionBelow`); then, when no
    /// reading is sure, once as it stands (`readUpright`); nothing once the photo's budget is spent.
    /// `variants` (indices into `stripVariants`) are read after the passes `after` (an earlier
    /// round's: nothing more when one of them is sure); `readsUpright`: the last resort included.
    func readStrip(_ strip: SpineStrip, in image: GrayImage, rotations: [SpineRotation], engine: TesseractEngine,
                   overBudget: @Sendable () -> Bool, spend: (Int) -> Void = { _ in },
                   variants: Range<Int>? = nil, after earlier: [OCRPass] = [], readsUpright: Bool = true) -> [OCRPass] {
        let isSure = { (pass: OCRPass) in
            self.stripSpine(pass).map { $0.confidence >= self.options.stripSecondDirectionBelow && $0.words.contains(where: \.isDictionaryWord) } ?? false
        }
        if earlier.contains(where: isSure) { return [] }
        var passes: [OCRPass] = []
        for variant in options.stripVariants[variants ?? options.stripVariants.indices] {
            for rotation in rotations {
                if overBudget() { return passes }
                let clock = ThreadCPUClock()
                let prepared = SpineStrips.prepared(image, strip: strip, rotation: rotation, across: variant.across,
                                                    opposite: variant.opposite, binarization: variant.binarization)
                // A strip is small: half a page pass's deadline (none when that is off).
                let words = engine.words(in: prepared, cpuMilliseconds: options.deadlineMilliseconds / 2,
                                         pageSegmentationMode: variant.pageSegmentationMode) ?? []
                let milliseconds = Int(clock.milliseconds)
                spend(milliseconds)
                let pass = OCRPass(rotation: rotation, pixels: variant.across.upperBound, inverted: variant.opposite,
                                   words: words, strip: strip.box, milliseconds: milliseconds)
                passes.append(pass)
                if isSure(pass) { return passes }
            }
        }
        // Nothing sure read turned either way: letters stacked upright, or words across the spine.
        if readsUpright, !overBudget(), !(earlier + passes).contains(where: { stripSpine($0).map { !$0.isUnsure } ?? false }),
           let pass = readUpright(strip, in: image, engine: engine) {
            spend(pass.milliseconds ?? 0)
            passes.append(pass)
        }
        return passes
    }

    /// A strip read as it stands (0°): its stacked upright letters set side by side in a line
    /// and read as one word, or, without them, the strip read as sparse text when it is wide
    /// enough to hold a word across it ("ONE / OF US / IS / LYING"). Nil when neither applies.
    func readUpright(_ strip: SpineStrip, in image: GrayImage, engine: TesseractEngine) -> OCRPass? {
        let readsAcross = options.readsUnreadStripsUpright && strip.box.width >= Self.uprightStripWidth
        guard options.readsStackedLetters || readsAcross else { return nil }
        let clock = ThreadCPUClock()
        let words: [OCRWord]
        let standing = SpineStrips.standing(image, strip: strip)
        if options.readsStackedLetters, let line = StackedLetters.line(in: standing) {
            // One word (PSM 8): as a line (PSM 7) "FEARLESS" read at confidence 0, as a word at 89.
            words = engine.words(in: line, cpuMilliseconds: options.deadlineMilliseconds / 2, pageSegmentationMode: 8) ?? []
        } else if readsAcross {
            words = engine.words(in: standing.padded(by: 10, value: 255), cpuMilliseconds: options.deadlineMilliseconds / 2,
                                 pageSegmentationMode: options.uprightStripMode) ?? []
        } else {
            return nil
        }
        return OCRPass(rotation: .none, words: words, strip: strip.box, milliseconds: Int(clock.milliseconds))
    }

    /// Narrower strips hold no word across them at the working size.
    static let uprightStripWidth = 48

    /// One unit of a photo's OCR: a whole-photo pass (skipped over budget when optional) or a strip.
    enum Work {
        case page(SpineRotation, ImageView, optional: Bool)
        /// A strip's first variant, or (`firstRound` false) its other variants and last resort.
        case strip(SpineStrip, number: Int, firstRound: Bool)
    }

    /// Every strip's first variant before any strip's others: over budget, what is left
    /// unread is the retries of strips not read surely, not the last strips of a dense shelf.
    /// In each round the strips in `later` come last.
    func stripWork(_ strips: [SpineStrip], later: Set<Int> = []) -> [Work] {
        let order = strips.indices.filter { !later.contains($0) } + strips.indices.filter { later.contains($0) }
        return order.map { .strip(strips[$0], number: $0, firstRound: true) }
            + order.map { .strip(strips[$0], number: $0, firstRound: false) }
    }

    /// A value set once by one worker and waited for by another.
    final class Once<Value: Sendable>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var value: Value?
        func set(_ value: Value) {
            self.value = value
            done.signal()
        }
        func wait() -> Value {
            done.wait()
            done.signal()
            return value!
        }
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
        for pass in passes where pass.strip != nil {
            if let spine = stripSpine(pass) { candidates.append(spine) }
        }
        // Spine sides found in the pixels cut page-pass groups that straddle them.
        let strips = options.splitsGroupsAtStrips && passes.contains(where: { $0.strip == nil && $0.rotation != .none })
            ? SpineStrips.spineStrips(in: image, followsLean: options.stripsFollowLean) : []
        for pass in passes where pass.strip == nil {
            let read = images[pass.view] ?? self.image(image, as: pass.view)
            images[pass.view] = read
            let turned = read.rotated(pass.rotation.imagingRotation)
            let factor = Double(image.width) / Double(read.width)
            let stripOf = { (box: Box) -> Int? in
                guard pass.rotation != .none else { return nil }
                let inPhoto = pass.rotation.boxInPhoto(box, photoWidth: read.width, photoHeight: read.height).scaled(by: factor)
                return strips.firstIndex { $0.contains(x: inPhoto.centerX, y: inPhoto.centerY) }
            }
            candidates += spines(in: pass.words, turned: turned, rotation: pass.rotation,
                                 photoWidth: read.width, photoHeight: read.height, stripOf: strips.isEmpty ? nil : stripOf).map { spine in
                var spine = spine
                if factor != 1 { spine.box = spine.box.scaled(by: factor) }
                return spine
            }
        }
        let merged = options.keepsEveryReading ? Self.ordered(candidates) : Self.merged(candidates, stripWeight: options.stripScoreWeight)
        return OCRShelf(spines: merged, workingWidth: image.width, workingHeight: image.height,
                        rawWordCount: passes.reduce(0) { $0 + $1.words.count })
    }

    /// A strip pass's words → its one spine (the strip's box), noise dropped; nil when nothing is left.
    func stripSpine(_ pass: OCRPass) -> OCRSpine? {
        guard let strip = pass.strip else { return nil }
        let verdicts = pass.words.map { SpineNoise.verdict($0, minimumConfidence: options.minimumWordConfidence) }
        let kept = zip(pass.words, verdicts).filter { $1 == .kept }.map(\.0)
        guard var spine = spine(of: kept, box: { _ in strip })
                ?? unsureSpine(of: zip(pass.words, verdicts).filter { $1 != .dropped }.map(\.0), box: { _ in strip }) else { return nil }
        spine.rotation = pass.rotation
        spine.fromStrip = true
        // A word Tesseract was unsure of among sure ones ("WHSTLE" at 29 after "WHEN THE"):
        // the strip read with it too, as an alternative the matcher weighs like the others.
        if !spine.isUnsure, verdicts.contains(.unsure) {
            let all = SpineNoise.withoutImprints(zip(pass.words, verdicts).filter { $1 != .dropped }.map(\.0)).map(\.text)
            spine.alternatives.append(all.joined(separator: " "))
        }
        return spine
    }

    /// One pass's words → spines with their boxes in the photo, noise dropped.
    func spines(in words: [OCRWord], turned: GrayImage, rotation: SpineRotation,
                photoWidth: Int, photoHeight: Int, stripOf: ((Box) -> Int?)? = nil) -> [OCRSpine] {
        let verdicts = words.map { SpineNoise.verdict($0, minimumConfidence: options.minimumWordConfidence) }
        let place = { rotation.boxInPhoto($0, photoWidth: photoWidth, photoHeight: photoHeight) }
        func groups(of verdict: SpineNoise.WordVerdict) -> [[OCRWord]] {
            var groups = SpineGrouping.spines(
                zip(words, verdicts).filter { $1 == verdict }.map(\.0),
                edgeBetween: { EdgeDetector.hasEdge(in: turned, between: $0, and: $1) },
                edgeAcross: { EdgeDetector.hasEdge(in: turned, leftOf: $1, rightOf: $0) })
            if let stripOf {
                groups = groups.flatMap { SpineGrouping.split($0, by: stripOf) }
                if options.joinsGroupsInStrips { groups = SpineGrouping.joined(groups, by: stripOf) }
            }
            return groups
        }
        // A group too unsure as a whole ("INSURGENT", a dictionary word, at 7) is read as unsure.
        let sure = groups(of: .kept).compactMap { spine(of: $0, box: place) ?? unsureSpine(of: $0, box: place) }
        let unsure = groups(of: .unsure).compactMap { unsureSpine(of: $0, box: place) }
        return (sure + unsure).map { var spine = $0; spine.rotation = rotation; return spine }
    }

    /// Words Tesseract was unsure of as one spine: no confidence floor, but a word of seven
    /// letters or more among them. Chance words are short: on real shelves unsure readings of
    /// five and six letters ("pines", "THIEF") suggested wrong books, the longer ones
    /// ("INSURGENT" at 7, "REPLICA" at 48) the books on the spines.
    static let unsureWordLetters = 7

    func unsureSpine(of group: [OCRWord], box place: (Box) -> Box) -> OCRSpine? {
        let words = SpineNoise.withoutImprints(group).filter { SpineNoise.looksLikeAWord($0.text) }
        guard !words.isEmpty, words.contains(where: { $0.text.filter(\.isLetter).count >= Self.unsureWordLetters }) else { return nil }
        let confidence = words.reduce(0) { $0 + $1.confidence } / Double(words.count)
        var spine = OCRSpine(words: words, box: place(words.enclosingBox), rotation: .none, confidence: confidence)
        spine.isUnsure = true
        // Its long words ("UPRISING" at 43) are also read without the short chance letters
        // beside them ("aati" at 38).
        let long = words.filter { $0.text.filter(\.isLetter).count >= 5 }
        if long.count < words.count { spine.alternatives.append(long.map(\.text).joined(separator: " ")) }
        return spine
    }

    /// A group of words as one spine: imprints dropped; nil when too little or too unsure is left.
    func spine(of group: [OCRWord], box place: (Box) -> Box) -> OCRSpine? {
        let words = SpineNoise.withoutImprints(group)
        let letters = words.reduce(0) { $0 + $1.text.filter(\.isLetter).count }
        guard letters >= 4 else { return nil }
        let confidence = words.reduce(0) { $0 + $1.confidence } / Double(words.count)
        // Upside-down and texture garbage: unsure overall and no dictionary word.
        guard confidence >= options.minimumReadingConfidence || words.contains(where: \.isDictionaryWord)
        else { return nil }
        // Two dictionary words of 5+ letters are seldom chance ("HUNGER" at 65, "GAMES" at 33).
        // Such a group keeps its mean: under 50 the matcher only suggests it. (Marked unsure
        // instead, it lost both books it found: an unsure reading yields its place to a sure one.)
        guard confidence >= options.minimumWordConfidence
                || words.filter({ $0.isDictionaryWord && $0.text.filter(\.isLetter).count >= 5 }).count >= 2 else { return nil }
        return OCRSpine(words: words, box: place(words.enclosingBox), rotation: .none, confidence: confidence)
    }

    /// A spine read in two rotations counts once: the better reading of a place wins, and the
    /// others of that place (different words) stay with it as alternatives, at most
    /// `maximumAlternatives`. Survivors are numbered row by row, left to right.
    static func merged(_ candidates: [OCRSpine], stripWeight: Double = 1, maximumAlternatives: Int = 6) -> [OCRSpine] {
        let (runTogether, apart) = runTogetherReadings(candidates)
        var kept: [OCRSpine] = []
        // The candidate each kept reading is (its index in `candidates`).
        var keptFrom: [Int] = []
        var seen: [Set<String>] = []
        let weighted = { (spine: OCRSpine) in spine.score * (spine.fromStrip ? stripWeight : 1) }
        // Sure readings first: an unsure one stands only where none is, and is no alternative
        // to one (a chance word naming another book would keep a sure match from strong).
        let ranked = candidates.indices.filter { !runTogether.contains($0) }.sorted {
            let (first, second) = (candidates[$0], candidates[$1])
            return first.isUnsure != second.isUnsure ? !first.isUnsure : weighted(first) > weighted(second)
        }
        for number in ranked {
            let candidate = candidates[number]
            let overlaps = kept.indices.map { index -> Double in
                // A wide reading and the separate spines read inside it are different places.
                if apart.contains(Pair(number, keptFrom[index])) { return 0 }
                let overlap = Double(candidate.box.intersection(kept[index].box))
                return overlap / Double(max(1, min(candidate.box.area, kept[index].box.area)))
            }
            guard let (place, overlap) = overlaps.enumerated().max(by: { $0.element < $1.element }), overlap > 0.3 else {
                kept.append(candidate)
                keptFrom.append(number)
                seen.append(Set(([candidate.text] + candidate.alternatives).map(Self.wordsKey)))
                continue
            }
            if candidate.isUnsure && !kept[place].isUnsure { continue }
            for text in [candidate.text] + candidate.alternatives {
                let key = Self.wordsKey(text)
                if kept[place].alternatives.count < maximumAlternatives, !key.isEmpty, !seen[place].contains(key) {
                    kept[place].alternatives.append(text)
                    seen[place].insert(key)
                }
            }
        }
        return ordered(kept)
    }

    /// Two candidates (indices, either order) that never merge.
    struct Pair: Hashable {
        let low: Int, high: Int
        init(_ a: Int, _ b: Int) { (low, high) = (min(a, b), max(a, b)) }
    }

    /// Wide readings that ran neighbouring spines together (a leaning spine's box, a strip over
    /// two spines: `Harry the Dirty Dog Gene Zion The`, 151 px across, over `Complete Poems Anne
    /// Sexton` and `Changes Jim Butcher`), which outscored the spines read apart and kept them as
    /// alternatives only (rendered hard shelves, stop 44). A sure reading whose box holds two
    /// places or more read apart — sure readings lying in it, each at most `narrowShare` of its
    /// width across the spine, the places side by side across it — keeps none of them: each
    /// place stands on its own (`apart`), and the wide reading is dropped (`runTogether`) when
    /// their words hold most of its letters, else kept for the words only it read.
    static func runTogetherReadings(_ candidates: [OCRSpine]) -> (runTogether: Set<Int>, apart: Set<Pair>) {
        // Across the spine: x for spines read turned, y for lines read as they stand.
        func across(_ spine: OCRSpine) -> (Int, Int) {
            spine.rotation == .none ? (spine.box.y0, spine.box.y1) : (spine.box.x0, spine.box.x1)
        }
        func sharedAcross(_ a: (Int, Int), _ b: (Int, Int)) -> Double {
            Double(max(0, min(a.1, b.1) - max(a.0, b.0))) / Double(max(1, min(a.1 - a.0, b.1 - b.0)))
        }
        var runTogether: Set<Int> = []
        var apart: Set<Pair> = []
        for wide in candidates.indices where !candidates[wide].isUnsure {
            let outer = candidates[wide]
            let width = across(outer).1 - across(outer).0
            let inner = candidates.indices.filter { index in
                let spine = candidates[index]
                guard index != wide, !spine.isUnsure, (spine.rotation == .none) == (outer.rotation == .none) else { return false }
                let (a0, a1) = across(spine)
                return Double(spine.box.intersection(outer.box)) >= 0.5 * Double(max(1, spine.box.area))
                    && Double(a1 - a0) <= narrowShare * Double(width)
            }
            // Places: inner readings overlapping as the merge joins them.
            var places: [[Int]] = []
            for index in inner {
                let joins = places.indices.filter { place in
                    places[place].contains { other in
                        let overlap = Double(candidates[index].box.intersection(candidates[other].box))
                        return overlap / Double(max(1, min(candidates[index].box.area, candidates[other].box.area))) > 0.3
                    }
                }
                let joined = joins.flatMap { places[$0] } + [index]
                for place in joins.reversed() { places.remove(at: place) }
                places.append(joined)
            }
            let spans = places.map { place in
                place.map { across(candidates[$0]) }.reduce((Int.max, Int.min)) { (min($0.0, $1.0), max($0.1, $1.1)) }
            }
            let sideBySide = places.indices.filter { place in
                places.indices.contains { other in other != place && sharedAcross(spans[place], spans[other]) <= 0.3 }
            }
            guard sideBySide.count >= 2 else { continue }
            let released = sideBySide.flatMap { places[$0] }
            for index in released { apart.insert(Pair(wide, index)) }
            let heldWords = released.flatMap { index in
                ([candidates[index].text] + candidates[index].alternatives).flatMap { $0.split(separator: " ").map { wordsKey(String($0)) } }
            }
            let letters = outer.words.map { wordsKey($0.text) }
            let held = letters.filter { word in heldWords.contains { nearlySame(word, $0) } }
            if held.reduce(0, { $0 + $1.count }) * 10 >= 6 * letters.reduce(0, { $0 + $1.count }) { runTogether.insert(wide) }
        }
        return (runTogether, apart)
    }

    /// A place read apart inside a wide reading is at most this share of its width across the spine.
    static let narrowShare = 0.6

    /// Two words alike but for one letter changed, added or dropped (case and marks already folded).
    static func nearlySame(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        let (x, y) = (Array(a), Array(b))
        guard min(x.count, y.count) >= 4, abs(x.count - y.count) <= 1 else { return false }
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        if x.count == y.count { return x[(i + 1)...] == y[(i + 1)...] }
        return x.count > y.count ? x[(i + 1)...] == y[i...] : x[i...] == y[(i + 1)...]
    }

    /// Letters and digits only, lowercased: two readings differing in case or spacing are one.
    static func wordsKey(_ text: String) -> String {
        String(text.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// Rows: spines sorted by their vertical centre, cut where two neighbours' centres lie
    /// more than half a typical spine's height apart; rows top to bottom, spines left to right.
    /// Unsure readings (odd boxes, often texture) do not shape the rows: each joins the row
    /// whose centre is nearest.
    static func ordered(_ spines: [OCRSpine]) -> [OCRSpine] {
        let sure = spines.filter { !$0.isUnsure }
        guard !sure.isEmpty else { return numbered(rows(of: spines)) }
        var rows = rows(of: sure)
        let centres = rows.map { row in row.reduce(0) { $0 + $1.box.centerY } / Double(row.count) }
        for spine in spines where spine.isUnsure {
            let nearest = centres.indices.min { abs(centres[$0] - spine.box.centerY) < abs(centres[$1] - spine.box.centerY) }!
            rows[nearest].append(spine)
        }
        return numbered(rows)
    }

    private static func numbered(_ rows: [[OCRSpine]]) -> [OCRSpine] {
        rows.enumerated().flatMap { rowIndex, row in
            row.sorted { $0.box.x0 < $1.box.x0 }.map { spine -> OCRSpine in
                var spine = spine
                spine.row = rowIndex
                return spine
            }
        }
    }

    private static func rows(of spines: [OCRSpine]) -> [[OCRSpine]] {
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
        return rows
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
