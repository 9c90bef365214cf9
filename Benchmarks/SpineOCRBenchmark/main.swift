import Foundation
import ImageTestSupport
import SpineMatching
import SpineOCR
import Imaging
import Vision

// Reads every shelf of a labelled set with Tesseract and compares the readings with the
// labels: spines found (recall), wrong books (a strong match to a book not on that shelf),
// medium share, seconds per photo. Usage:
//   SpineOCRBenchmark CATALOGUE.csv NAME=LABELS.json... [--verbose] [--rotations 270,90,0] [--pixels N] [--psm N] [--languages eng+spa]
//     [--no-scene-text] [--pages-with-scene-text 270|all|none] [--no-strips] [--strip-variants PSM:MIN:MAX,...] [--strip-second CONF] [--strip-weight W] [--budget-ms N]
//     [--no-split] [--no-strip-join] [--keep-all] [--split PREFIX,...] [--losses] [--strong D] [--gap D] [--agreed-strong D] [--no-join] [--no-neighbour-join]
// Environment: OCR_CACHE / OCR_PASSES (replay; passes 0, 1000000, i0, s, s64...), STRIPS_FILL=1 (read
// the strips again into a cache), STRIP_DUMP=folder (the prepared strips as PNG, and each photo with its
// strips outlined; STRIP_DUMP_BOXES_ONLY=1: the outlines only), MATCH="text~alternative|text" (match these readings
// and stop), READINGS_DUMP=file (append every photo's readings to it). A replay keeps only the passes of --rotations (--rotations 270,90: what the 0° pass adds).

struct Labelled: Decodable {
    struct Book: Decodable {
        var title: String; var author: String?
        /// Rendered shelves: the spine's corners in the photo (top-left, top-right, bottom-right, bottom-left).
        var quad: [[Double]]?
        var orientation: String?
    }
    var books: [Book]
    var unreadable: Int?
}

func csvRows(_ text: String) -> [[String]] {
    var rows: [[String]] = [], row: [String] = [], field = "", quoted = false
    var iterator = text.makeIterator()
    while let character = iterator.next() {
        if quoted {
            if character == "\"" {
                quoted = false
            } else {
                field.append(character)
            }
        } else if character == "\"" {
            quoted = true
            if field.hasSuffix("\"") == false, !field.isEmpty { field.append("\"") }
        } else if character == "," {
            row.append(field); field = ""
        } else if character == "\n" || character == "\r\n" {
            row.append(field); field = ""; rows.append(row); row = []
        } else {
            field.append(character)
        }
    }
    if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
    return rows
}

var arguments = Array(CommandLine.arguments.dropFirst())
let verbose = arguments.contains("--verbose")
arguments.removeAll { $0 == "--verbose" }
var options = TesseractOptions()
@MainActor func takeOption(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
    return value
}
if let value = takeOption("--rotations") {
    options.rotations = value.split(separator: ",").compactMap { Int($0).flatMap(SpineRotation.init(rawValue:)) }
}
if let value = takeOption("--pixels"), let pixels = Int(value) { options.workingPixels = pixels }
if let value = takeOption("--languages") { options.languages = value.split(separator: "+").map(String.init) }
if let value = takeOption("--flat-pixels"), let pixels = Int(value) { options.flatScalePixels = pixels }
if let value = takeOption("--inverted-pixels") { options.invertedScalePixels = value.split(separator: ",").compactMap { Int($0) } }
if let value = takeOption("--extra-pixels") { options.extraScalePixels = value.split(separator: ",").compactMap { Int($0) } }
while let value = takeOption("--set") {
    let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
    if parts.count == 2 { options.variables[parts[0]] = parts[1] }
}
if let value = takeOption("--deadline-ms"), let milliseconds = Int(value) { options.deadlineMilliseconds = milliseconds }
if let value = takeOption("--psm"), let mode = Int(value) { options.pageSegmentationMode = mode }
if arguments.contains("--no-strips") { options.readsStrips = false; arguments.removeAll { $0 == "--no-strips" } }
// --strip-variants 11:32:64,6:40:110:o,11:64:110:s (o: the opposite polarity, s: Sauvola binarised here, n: contrast normalised here)
if let value = takeOption("--strip-variants") {
    options.stripVariants = value.split(separator: ",").compactMap { item in
        let parts = item.split(separator: ":")
        let numbers = parts.compactMap { Int($0) }
        return numbers.count == 3 ? StripVariant(pageSegmentationMode: numbers[0], across: numbers[1]...numbers[2],
                                                 opposite: parts.contains("o"),
                                                 binarization: parts.contains("s") ? .sauvola : parts.contains("n") ? .normalized : .tesseract) : nil
    }
}
if let value = takeOption("--strip-weight"), let weight = Double(value) { options.stripScoreWeight = weight }
if let value = takeOption("--strip-second"), let confidence = Double(value) { options.stripSecondDirectionBelow = confidence }
// --no-neighbour-join: author-alone readings are not tried with the reading beside them.
let neighbourJoins = !arguments.contains("--no-neighbour-join")
arguments.removeAll { $0 == "--no-neighbour-join" }
if arguments.contains("--no-split") { options.splitsGroupsAtStrips = false; arguments.removeAll { $0 == "--no-split" } }
// --no-strip-join: page-pass groups in one strip stay separate readings (as before stop 33).
if arguments.contains("--no-strip-join") { options.joinsGroupsInStrips = false; arguments.removeAll { $0 == "--no-strip-join" } }
if arguments.contains("--keep-all") { options.keepsEveryReading = true; arguments.removeAll { $0 == "--keep-all" } }
if let value = takeOption("--budget-ms"), let milliseconds = Int(value) { options.budgetMilliseconds = milliseconds }
// PP-OCR as the product finds it (.ppocr-venv, RAPIDSCAN_PPOCR_PYTHON); --no-scene-text: Tesseract alone.
options.sceneTextPython = arguments.contains("--no-scene-text") ? nil : SceneTextReader.locatePython()
arguments.removeAll { $0 == "--no-scene-text" }
if let value = takeOption("--strip-skip"), let confidence = Double(value) { options.stripSkipSceneTextConfidence = confidence }
// --strip-order CONF: strips PP-OCR read at this confidence are read last (0: in shelf order).
if let value = takeOption("--strip-order"), let confidence = Double(value) { options.stripOrderSceneTextConfidence = confidence }
// --turn-below SCORE: PP-OCR's tall lines read under this score (0-1) are read turned 180° too (0: never).
if let value = takeOption("--turn-below"), let score = Double(value) { options.sceneTextTurnsBelow = score }
// --reserve-ms N: CPU past the budget for the first round of strips PP-OCR read nothing confident in (0: none).
if let value = takeOption("--reserve-ms"), let milliseconds = Int(value) { options.unreadStripReserveMilliseconds = milliseconds }
// --pages-with-scene-text 270,90 (or "all", or "none"): Tesseract's turns read beside PP-OCR.
if let value = takeOption("--pages-with-scene-text") {
    options.tesseractRotationsWithSceneText = value == "all" ? nil
        : value.split(separator: ",").compactMap { Int($0).flatMap(SpineRotation.init(rawValue:)) }
}
// --split a,b,c: also report the photos whose names start with one of these, and the others,
// as two halves (tune on one, check on the other).
// Matching thresholds (SpineMatcher.Thresholds) to try.
var thresholds = SpineMatcher.Thresholds()
if let value = takeOption("--agreed-strong"), let distance = Double(value) { thresholds.agreedStrong = distance }
if let value = takeOption("--strong"), let distance = Double(value) { thresholds.strong = distance }
if let value = takeOption("--gap"), let distance = Double(value) { thresholds.gap = distance }
let joins = !arguments.contains("--no-join")
arguments.removeAll { $0 == "--no-join" }
let splitPrefixes = takeOption("--split")?.split(separator: ",").map(String.init) ?? []
// --losses: each labelled Latin-script book of the split's photos (the tuning half; all photos without
// --split) classed: found strong / found medium / no text (no reading holds a word of it) / no candidate
// (its words were read, the reading found no book) / refused (the reading's closest book is it) /
// other book (the reading's closest book is another).
let showsLosses = arguments.contains("--losses")
arguments.removeAll { $0 == "--losses" }
// --context-chance N: every reading that matched nothing is also compared, as shelf context would,
// with each of N prolific authors' books (authors it does not stand beside): how often a
// reading meets some author's book by chance, the rate of wrong context suggestions.
let contextChance = takeOption("--context-chance").flatMap(Int.init) ?? 0
var chancePairs = 0, chanceSuggestions: [String] = [], contextPairs = 0
// PROBE="a.png,b.png": each image read at several page segmentation modes (PROBE_PSM="6,7"; to see why
// a strip reads badly), before the catalogue is loaded.
if let probe = ProcessInfo.processInfo.environment["PROBE"] {
    let engine = try TesseractEngine(options: options)
    for path in probe.split(separator: ",") {
        let loaded = try ImageLoader.load(contentsOf: URL(fileURLWithPath: String(path))).image
        // PROBE_VARIANT=x2 (twice the size) or sharp (unsharp mask): neither read a stylised title on 25 Nov.
        let variant = ProcessInfo.processInfo.environment["PROBE_VARIANT"] ?? ""
        var image = loaded
        if variant == "x2" { image = probeDoubled(image) }
        if variant == "sharp" { image = probeSharpened(image) }
        for mode in (ProcessInfo.processInfo.environment["PROBE_PSM"] ?? "6,7,11,13").split(separator: ",").compactMap({ Int($0) }) {
            let words = engine.words(in: image, pageSegmentationMode: mode) ?? []
            print(path.split(separator: "/").last!, image.width, image.height, "psm", mode, words.map { "\($0.text):\(Int($0.confidence))" }.joined(separator: " "))
        }
    }
    exit(0)
}
/// Twice the size, bilinear (probing only).
func probeDoubled(_ image: GrayImage) -> GrayImage {
    let (w, h) = (image.width * 2, image.height * 2)
    var out = [UInt8](repeating: 0, count: w * h)
    for y in 0..<h {
        let sy = max(0, min(Double(image.height - 1), (Double(y) + 0.5) / 2 - 0.5)); let y0 = Int(sy), y1 = min(image.height - 1, y0 + 1), fy = sy - Double(y0)
        for x in 0..<w {
            let sx = max(0, min(Double(image.width - 1), (Double(x) + 0.5) / 2 - 0.5)); let x0 = Int(sx), x1 = min(image.width - 1, x0 + 1), fx = sx - Double(x0)
            let p = { (xx: Int, yy: Int) in Double(image.pixels[yy * image.width + xx]) }
            out[y * w + x] = UInt8(max(0, min(255, (p(x0, y0) * (1 - fx) + p(x1, y0) * fx) * (1 - fy) + (p(x0, y1) * (1 - fx) + p(x1, y1) * fx) * fy)))
        }
    }
    return GrayImage(width: w, height: h, pixels: out)
}
/// Unsharp mask: twice the pixel minus its 5×5 box mean (probing only).
func probeSharpened(_ image: GrayImage) -> GrayImage {
    var out = image.pixels
    for y in 0..<image.height {
        for x in 0..<image.width {
            var sum = 0, count = 0
            for yy in max(0, y - 2)...min(image.height - 1, y + 2) {
                for xx in max(0, x - 2)...min(image.width - 1, x + 2) { sum += Int(image.pixels[yy * image.width + xx]); count += 1 }
            }
            out[y * image.width + x] = UInt8(max(0, min(255, 2 * Int(image.pixels[y * image.width + x]) - sum / count)))
        }
    }
    return GrayImage(width: image.width, height: image.height, pixels: out)
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: SpineOCRBenchmark CATALOGUE.csv NAME=LABELS.json...\n".utf8))
    exit(2)
}

// The catalogue: goodbooks-10k plus every labelled book (so a reading of shelf A that matches
// a book of shelf B counts as a wrong book).
let catalogueText = try String(contentsOfFile: arguments[0], encoding: .utf8)
let header = csvRows(String(catalogueText.prefix(2000)))[0]
let titleColumn = header.firstIndex(of: "title")!, authorColumn = header.firstIndex(of: "authors")!
let isbnColumn = header.firstIndex(of: "isbn13")!
var known: [MatchCandidate] = csvRows(catalogueText).dropFirst().enumerated().compactMap { index, row in
    row.count > max(titleColumn, authorColumn, isbnColumn)
        ? MatchCandidate(workKey: "gb\(index)", title: row[titleColumn],
                         authors: row[authorColumn].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                         isbn13: row[isbnColumn].isEmpty ? nil : row[isbnColumn], source: "goodbooks") : nil
}
/// A title without its "(Series, #n)" suffix, letters and digits only.
func key(_ title: String) -> String {
    title.replacingOccurrences(of: #"\s*\([^)]*\)\s*$"#, with: "", options: .regularExpression)
        .lowercased().filter { $0.isLetter || $0.isNumber }
}
// Each labelled book once: a rendered shelf's books are goodbooks-10k's already.
/// Title key plus the first author's last word: "Fade Away" (Coben) and "Fadeaway" (Vickers) are two books.
func bookKey(_ title: String, _ author: String?) -> String {
    key(title) + "|" + (author?.split(separator: ",").first?.split(separator: " ").last.map { $0.lowercased() } ?? "")
}
var knownTitles = Set(known.map { key($0.title) })
var knownBooks = Set(known.map { bookKey($0.title, $0.authors.first) })
var sets: [(name: String, folder: URL, photos: [(file: String, books: [Labelled.Book])], labelled: [String: Labelled])] = []
for argument in arguments.dropFirst() {
    let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
    let url = URL(fileURLWithPath: parts[1])
    let labels = try JSONDecoder().decode([String: Labelled].self, from: Data(contentsOf: url))
    let photos = labels.keys.sorted().map { (file: $0, books: labels[$0]!.books) }
    sets.append((parts[0], url.deletingLastPathComponent(), photos, labels))
    for photo in photos {
        for book in photo.books where !knownTitles.contains(key(book.title))
            || (book.author != nil && !knownBooks.contains(bookKey(book.title, book.author))) {
            knownTitles.insert(key(book.title))
            knownBooks.insert(bookKey(book.title, book.author))
            known.append(MatchCandidate(workKey: "\(parts[0]):\(book.title)", title: book.title,
                                        authors: book.author.map { [$0] } ?? [],
                                        // Labels carry no ISBN; a stand-in lets a match be strong.
                                        isbn13: "label", source: parts[0]))
        }
    }
}
let index = WorkIndex(known)
// Authors of six books or more, spread over the catalogue, for --context-chance.
let chanceAuthors: [String] = {
    let counts = Dictionary(grouping: known.compactMap { $0.authors.first }, by: { $0 }).filter { $0.value.count >= 6 }.keys.sorted()
    return stride(from: 0, to: counts.count, by: max(1, counts.count / max(1, contextChance))).map { counts[$0] }
}()
// OCR_CACHE=file.json: Tesseract's raw words saved by one run and replayed by the next, so
// grouping, noise filters and matching can be tuned without seconds of OCR per photo.
let cachePath = ProcessInfo.processInfo.environment["OCR_CACHE"]
var cache: [String: [OCRPass]] = cachePath.flatMap {
    try? JSONDecoder().decode([String: [OCRPass]].self, from: Data(contentsOf: URL(fileURLWithPath: $0)))
} ?? [:]
let replaying = !cache.isEmpty
if replaying {
    // Cached words are re-flagged by this build's dictionary test.
    let engine = try TesseractEngine(options: options)
    for (file, passes) in cache {
        cache[file] = passes.map { pass in
            var pass = pass
            pass.words = pass.words.map { word in
                var word = word
                word.isDictionaryWord = engine.isDictionaryWord(word.text)
                return word
            }
            return pass
        }
    }
}
let matcher = SpineMatcher(thresholds: thresholds, joinsFragments: joins)
if let texts = ProcessInfo.processInfo.environment["MATCH"] {
    for text in texts.split(separator: "|") {
        // "text~alternative~alternative": a spine read several ways.
        let parts = text.split(separator: "~").map(String.init)
        let result = matcher.match(SpineReading(text: parts[0], confidence: 0.9, alternatives: Array(parts.dropFirst())), index: index)
        print(index.candidates(for: CandidateQuery(title: String(text), author: nil, text: String(text)), limit: 5).map(\.candidate.title))
        print(text, "->", result.decision, result.best?.title ?? "-", result.distance, result.reason ?? "", result.matchedText ?? "",
              result.alsoHeld.map { "+ \($0.decision) \($0.best?.title ?? "-") \($0.distance)" }.joined(separator: " "))
    }
    exit(0)
}
let ocr = try ShelfOCR(options: options)
print("scene text \(options.sceneTextPython ?? "off"), rotations \(options.rotations.map(\.degrees)), extra scales \(options.extraScalePixels), inverted \(options.invertedScalePixels), flat \(options.flatScalePixels), psm \(options.pageSegmentationMode), working pixels \(options.workingPixels), workers \(options.effectiveWorkers)")

for set in sets {
    var expectedTotal = 0, latinTotal = 0, foundTotal = 0, wrongTotal = 0, strongTotal = 0, mediumTotal = 0
    var seconds = 0.0, readingsTotal = 0, cpuPage = 0, cpuStrip = 0, ambiguousTotal = 0
    // Shelf-context suggestions: made, right, of a book not on the shelf; review suggestions of a book not on the shelf.
    var contextCounts = [0, 0, 0], mediumWrong = 0
    // Per half (in the split, not in it): found, labelled, Latin-script, wrong.
    var halves = [[0, 0, 0, 0], [0, 0, 0, 0]]
    var lossCounts: [String: Int] = [:]
    var segmentation = SegmentationTotals()
    for photo in set.photos {
        let data = try Data(contentsOf: set.folder.appendingPathComponent(photo.file))
        let start = Date()
        let original = try ocr.decode(data: data, name: photo.file)
        let image = try ocr.workingImage(original, name: photo.file)
        // WORKING_DUMP=folder: the working image as PGM, for reading it with another engine.
        if let folder = ProcessInfo.processInfo.environment["WORKING_DUMP"] {
            var pgm = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
            pgm.append(contentsOf: image.pixels)
            try pgm.write(to: URL(fileURLWithPath: "\(folder)/\(photo.file).pgm"))
        }
        var passes = replaying ? cache[photo.file] ?? [] : try ocr.recognize(image, name: photo.file)
        // STRIPS_FILL=1: the cache's page passes with this build's strips read now.
        if replaying, ProcessInfo.processInfo.environment["STRIPS_FILL"] == "1" {
            passes = passes.filter { $0.strip == nil } + (try ocr.recognize(image, name: photo.file, pages: false))
            cache[photo.file] = passes
        }
        // OCR_PASSES=0,2000000,i2000000: replay only these passes (pixels; i: inverted).
        if replaying, let only = ProcessInfo.processInfo.environment["OCR_PASSES"] {
            let wanted = Set(only.split(separator: ",").map(String.init))
            passes = passes.filter { pass in
                pass.strip != nil ? wanted.contains("s") || wanted.contains("s\(pass.inverted ? "o" : "")\(pass.pixels)")
                    : wanted.contains((pass.inverted ? "i" : "") + String(pass.pixels))
            }
        }
        // Replayed passes are limited to --rotations (what a photo gives without the 0° pass, say).
        if replaying { passes = passes.filter { options.rotations.contains($0.rotation) } }
        if !replaying { cache[photo.file] = passes }
        if let folder = ProcessInfo.processInfo.environment["STRIP_DUMP"] {
            let found = SpineStrips.strips(in: image)
            // The strips' boxes in the working image, for drawing them over the photo.
            let boxes = ["\(image.width) \(image.height)"] + found.map { "\($0.x0) \($0.y0) \($0.x1) \($0.y1)" }
            try boxes.joined(separator: "\n").write(toFile: "\(folder)/\(photo.file)-boxes.txt", atomically: true, encoding: .utf8)
            // The photo at half size with each strip's outline drawn (black, white inside).
            var outlined = image.pixels
            for strip in found {
                for inset in 0..<4 {
                    let value: UInt8 = inset < 2 ? 0 : 255
                    let (x0, y0) = (strip.x0 + inset, strip.y0 + inset)
                    let (x1, y1) = (max(x0, strip.x1 - 1 - inset), max(y0, strip.y1 - 1 - inset))
                    for x in x0...x1 { outlined[y0 * image.width + x] = value; outlined[y1 * image.width + x] = value }
                    for y in y0...y1 { outlined[y * image.width + x0] = value; outlined[y * image.width + x1] = value }
                }
            }
            try ImageEncoder.pngData(GrayImage(width: image.width, height: image.height, pixels: outlined).downscaled(by: 2))
                .write(to: URL(fileURLWithPath: "\(folder)/\(photo.file)-strips.png"))
            // STRIP_DUMP_BOXES_ONLY=1: the outlines, not each prepared strip.
            for (number, strip) in found.enumerated() where ProcessInfo.processInfo.environment["STRIP_DUMP_BOXES_ONLY"] != "1" {
                for rotation in [SpineRotation.clockwise270, .clockwise90] {
                    for (index, variant) in options.stripVariants.enumerated() {
                        let png = try ImageEncoder.pngData(SpineStrips.prepared(image, strip: strip, rotation: rotation, across: variant.across,
                                                                                opposite: variant.opposite, binarization: variant.binarization))
                        try png.write(to: URL(fileURLWithPath: "\(folder)/\(photo.file)-\(number)-\(rotation.degrees)-v\(index).png"))
                    }
                }
            }
        }
        let spines = ocr.assemble(passes, image: image).spines
        let elapsed = Date().timeIntervalSince(start)
        let photoSegmentation = measureSegmentation(photo, image: image, scale: Double(image.width) / Double(original.width), spines: spines,
                                                    labelled: set.labelled[photo.file])
        segmentation.add(photoSegmentation, checking: !splitPrefixes.contains { photo.file.hasPrefix($0) })
        seconds += elapsed
        var open = photo.books.map { key($0.title) }
        let onShelf = Set(open)
        var found = 0, wrong = 0, strong = 0, medium = 0, ambiguous = 0
        let pageMilliseconds = passes.filter { $0.strip == nil }.reduce(0) { $0 + ($1.milliseconds ?? 0) }
        let stripMilliseconds = passes.filter { $0.strip != nil }.reduce(0) { $0 + ($1.milliseconds ?? 0) }
        cpuPage += pageMilliseconds; cpuStrip += stripMilliseconds
        var lines: [String] = []
        let readings = TesseractSpineReader.readings(of: spines)
        // READINGS_DUMP=file: every photo's readings (text, then alternatives, tab-separated), e.g. for the trap table.
        if let dump = ProcessInfo.processInfo.environment["READINGS_DUMP"] {
            let lines = readings.map { ([photo.file, $0.text] + $0.alternatives).joined(separator: "\t") + "\n" }.joined()
            if let handle = FileHandle(forWritingAtPath: dump) {
                handle.seekToEndOfFile()
                handle.write(Data(lines.utf8))
                try? handle.close()
            } else {
                try lines.write(toFile: dump, atomically: true, encoding: .utf8)
            }
        }
        let results = neighbourJoins ? matcher.matchShelf(readings, index: index) : readings.map { matcher.match($0, index: index) }
        if contextChance > 0 {
            let before = readings.map { matcher.match($0, index: index) }
            contextPairs += SpineMatcher.contextRequests(readings, before).reduce(0) { $0 + $1.authors.count }
            let matchedWorks = Set(results.compactMap { $0.decision != .none ? $0.best?.workKey : nil })
            for (reading, result) in zip(readings, results) where result.decision == .none && result.reason == "no candidate close enough" {
                for author in chanceAuthors.prefix(contextChance) {
                    chancePairs += 1
                    if let match = matcher.contextMatch(reading, authors: [author], books: index.works(byAuthors: [author]), matchedWorks: matchedWorks) {
                        chanceSuggestions.append(String(format: "%.2f %.2f %d ", match.distance, match.runnerUpDistance ?? 1, match.best!.title.count) + "\(reading.text) -> \(match.best!.title) (\(author))")
                    }
                }
            }
        }
        for (spine, result) in zip(spines, results) {
            if result.ambiguous { ambiguous += 1 }
            var verdict = result.decision == .none ? "none [\(result.reason ?? "")]" : "none"
            if let book = result.best, result.decision != .none {
                let key = key(book.title)
                if result.decision == .strong { strong += 1 } else { medium += 1 }
                let fromContext = result.reason?.hasPrefix(SpineMatcher.shelfContextReason) == true
                if fromContext { contextCounts[0] += 1 }
                if let index = open.firstIndex(of: key) {
                    open.remove(at: index); found += 1; verdict = "\(result.decision) ok: \(book.title) [\(result.reason ?? "")]"
                    if fromContext { contextCounts[1] += 1 }
                } else if onShelf.contains(key) {
                    verdict = "\(result.decision) again: \(book.title)"
                } else {
                    if result.decision == .strong { wrong += 1 } else { mediumWrong += 1 }
                    if fromContext { contextCounts[2] += 1 }
                    verdict = "\(result.decision) WRONG: \(book.title)"
                }
            }
            if let text = result.matchedText { verdict += " (from \"\(text)\")" }
            verdict += String(format: " d=%.2f n=%d", result.distance, result.agreeing) + (result.runnerUpDistance.map { String(format: " r=%.2f", $0) } ?? "")
            // Other titles the reading holds (neighbouring spines run together), each its own book.
            for held in result.alsoHeld where held.decision != .none {
                guard let book = held.best else { continue }
                if held.decision == .strong { strong += 1 } else { medium += 1 }
                let key = key(book.title)
                if let index = open.firstIndex(of: key) {
                    open.remove(at: index); found += 1; verdict += " + \(held.decision) ok: \(book.title)"
                } else if onShelf.contains(key) {
                    verdict += " + \(held.decision) again: \(book.title)"
                } else {
                    if held.decision == .strong { wrong += 1 } else { mediumWrong += 1 }
                    verdict += " + \(held.decision) WRONG: \(book.title)"
                }
                verdict += String(format: " d=%.2f", held.distance)
            }
            lines.append(String(format: "    [%d %3d°%@ %2.0f] %@  -> %@", spine.row, spine.rotation.degrees, spine.fromStrip ? "s" : " ", spine.confidence, spine.text, verdict))
            for alternative in spine.alternatives { lines.append("        | \(alternative)") }
        }
        if showsLosses, splitPrefixes.isEmpty || splitPrefixes.contains(where: { photo.file.hasPrefix($0) }) {
            let classes = lossClasses(photo.books, spines: spines, results: results, passes: passes)
            for (book, verdict) in classes {
                lossCounts[String(verdict.prefix { $0 != "{" && $0 != "(" }).trimmingCharacters(in: .whitespaces), default: 0] += 1
                print("    LOSS \(verdict): \(book.title) / \(book.author ?? "-")")
            }
        }
        let latin = photo.books.filter { $0.title.unicodeScalars.contains { $0.isASCII && CharacterSet.letters.contains($0) } }.count
        let half = splitPrefixes.contains { photo.file.hasPrefix($0) } ? 0 : 1
        for (slot, value) in [found, photo.books.count, latin, wrong].enumerated() { halves[half][slot] += value }
        expectedTotal += photo.books.count; latinTotal += latin; foundTotal += found; wrongTotal += wrong
        strongTotal += strong; mediumTotal += medium; readingsTotal += spines.count; ambiguousTotal += ambiguous
        print(String(format: "  %@: %d/%d found (%d Latin-script), %d wrong, %d strong, %d medium, %d readings, %.2f s, OCR CPU %.2f s pages + %.2f s strips (%d strips)",
                     photo.file, found, photo.books.count, latin, wrong, strong, medium, spines.count, elapsed,
                     Double(pageMilliseconds) / 1000, Double(stripMilliseconds) / 1000, Set(passes.compactMap(\.strip)).count))
        print("    segmentation: \(photoSegmentation.line)")
        if verbose { lines.forEach { print($0) } }
    }
    let matched = max(1, strongTotal + mediumTotal)
    print(String(format: "%@: %d photos, found %d/%d spines (%.1f%%; %.1f%% of %d with Latin-script titles), wrong books %d, medium share %.1f%% (%d strong, %d medium; %d spines whose readings disagree), %.2f s/photo, %.3f s/reading",
                 set.name, set.photos.count, foundTotal, expectedTotal, 100 * Double(foundTotal) / Double(max(1, expectedTotal)),
                 100 * Double(foundTotal) / Double(max(1, latinTotal)), latinTotal, wrongTotal,
                 100 * Double(mediumTotal) / Double(matched), strongTotal, mediumTotal, ambiguousTotal, seconds / Double(set.photos.count),
                 seconds / Double(max(1, readingsTotal))))
    print("\(set.name): review suggestions of a book not on the shelf \(mediumWrong); shelf context suggested \(contextCounts[0]) (\(contextCounts[1]) right, \(contextCounts[2]) of a book not on the shelf)")
    if contextChance > 0 {
        let rate = Double(chanceSuggestions.count) / Double(max(1, chancePairs))
        print(String(format: "%@ context chance: %d suggestions in %d (unmatched reading, unrelated author) pairs (%.2f%%); these shelves ask %d (reading, shelf author) pairs: %.2f wrong suggestions expected",
                     set.name, chanceSuggestions.count, chancePairs, 100 * rate, contextPairs, rate * Double(contextPairs)))
        contextPairs = 0
        if verbose { chanceSuggestions.forEach { print("    chance: \($0)") } }
        chancePairs = 0; chanceSuggestions = []
    }
    if showsLosses {
        print("\(set.name) losses: " + lossCounts.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
    if !splitPrefixes.isEmpty {
        for (name, half) in zip(["split", "rest"], halves) {
            print(String(format: "%@ %@: found %d/%d (%.1f%%; %.1f%% of %d Latin-script), wrong %d", set.name, name, half[0], half[1],
                         100 * Double(half[0]) / Double(max(1, half[1])), 100 * Double(half[0]) / Double(max(1, half[2])), half[2], half[3]))
        }
    }
    print("\(set.name) segmentation: \(segmentation.total.line)")
    if !splitPrefixes.isEmpty {
        print("\(set.name) segmentation split: \(segmentation.split.line)")
        print("\(set.name) segmentation rest: \(segmentation.rest.line)")
    }
    print(String(format: "%@: OCR CPU %.2f s/photo (pages %.2f + strips %.2f)", set.name,
                 Double(cpuPage + cpuStrip) / 1000 / Double(set.photos.count), Double(cpuPage) / 1000 / Double(set.photos.count),
                 Double(cpuStrip) / 1000 / Double(set.photos.count)))
}
/// Words of a book worth looking for in OCR text: title words of four letters or more, the authors' surnames.
func lossWords(_ book: Labelled.Book) -> [String] {
    let stop: Set<String> = ["with", "from", "their", "theory", "introduction", "edition", "and", "the"]
    let title = TextNormalizer.tokens(book.title).filter { $0.count >= 4 && !stop.contains($0) }
    let authors = (book.author ?? "").split(whereSeparator: { $0 == "," || $0 == "&" })
        .compactMap { TextNormalizer.tokens(String($0)).last }.filter { $0.count >= 3 }
    return title + authors
}
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1]
        for (j, y) in b.enumerated() { current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))) }
        previous = current
    }
    return previous[b.count]
}
func holds(_ text: String, _ words: [String]) -> Bool {
    let read = TextNormalizer.tokens(text)
    return words.contains { word in
        read.contains { editDistance(Array($0), Array(word)) <= (word.count >= 6 ? 1 : 0) }
            || (word.count >= 6 && read.joined().contains(word))
    }
}
func lossClasses(_ books: [Labelled.Book], spines: [OCRSpine], results: [SpineMatch], passes: [OCRPass]) -> [(Labelled.Book, String)] {
    let latinBooks = books.filter { $0.title.unicodeScalars.contains { $0.isASCII && CharacterSet.letters.contains($0) } }
    // Each match found once: a book on the shelf twice needs two matches.
    var open = results.filter { $0.decision != .none && $0.best != nil }
    return latinBooks.map { book in
        if let index = open.firstIndex(where: { key($0.best!.title) == key(book.title) }) {
            let decision = open.remove(at: index).decision
            return (book, decision == .strong ? "found strong" : "found medium")
        }
        let words = lossWords(book)
        // A spine matched to another book of this shelf is that book's, whatever words it shares with this one.
        let shelf = Set(books.map { key($0.title) })
        let holding = zip(spines, results).filter { spine, result in
            !(result.decision != .none && result.best.map { shelf.contains(key($0.title)) } == true)
                && ([spine.text] + spine.alternatives).contains { holds($0, words) }
        }
        guard !holding.isEmpty else {
            // Read by some pass but dropped or merged away before the matcher.
            let raw = passes.flatMap(\.words).filter { holds($0.text, words) }.map { "\($0.text):\(Int($0.confidence))" }
            return (book, raw.isEmpty ? "no text" : "read, not kept" + (verbose ? " {\(Set(raw).sorted().joined(separator: " "))}" : ""))
        }
        if holding.contains(where: { $0.1.best.map { key($0.title) } == key(book.title) }) { return (book, "refused") }
        // How near the reading came to this book alone: the distance a threshold would have to reach.
        let alone = [PreparedCandidate(MatchCandidate(workKey: "loss", title: book.title, authors: book.author.map { [$0] } ?? [],
                                                      isbn13: "label", source: "loss"))]
        let nearest = holding.map { matcher.match($0.1.reading, candidates: alone).distance }.min() ?? 1
        return (book, "no candidate" + (verbose ? String(format: " (alone %.2f)", nearest) + " {\(holding.map { $0.0.text }.joined(separator: " | "))}" : ""))
    }
}
if let cachePath, !replaying || ProcessInfo.processInfo.environment["STRIPS_FILL"] == "1" {
    try JSONEncoder().encode(cache).write(to: URL(fileURLWithPath: cachePath))
}


/// Segmentation on one photo. Spines: the strips SpineStrips finds against the labelled spines
/// (with quads: a strip finds the spine whose width at the strip's middle it covers with an
/// overlap of at least half of both; without: counts only). Readings: each reading's words
/// against each labelled book's distinctive words (title words of 4+ letters and surnames no
/// other book of the photo has): a reading holding two books' words ran spines together; a
/// book whose words are in two readings was split; with quads, a reading holding one book's
/// words is assigned right when its box's centre lies in that book's spine.
struct SegmentationCounts {
    var labelled = 0, withQuads = 0, stripsFound = 0, strips = 0, strayStrips = 0
    var readingsWithBook = 0, runTogether = 0, booksRead = 0, booksSplit = 0, placed = 0, placedRight = 0
    var line: String {
        var parts: [String] = []
        parts.append(withQuads > 0 ? String(format: "spines found %d/%d (%.0f%%), %d strips (%d on no spine)", stripsFound, withQuads,
                                            100 * Double(stripsFound) / Double(withQuads), strips, strayStrips)
                     : "\(strips) strips for \(labelled) labelled spines")
        parts.append(String(format: "readings holding a book %d, of them running spines together %d (%.1f%%)", readingsWithBook, runTogether,
                            100 * Double(runTogether) / Double(max(1, readingsWithBook))))
        parts.append(String(format: "books read %d, split over readings %d", booksRead, booksSplit))
        if placed > 0 { parts.append(String(format: "assigned to the right spine %d/%d (%.1f%%)", placedRight, placed, 100 * Double(placedRight) / Double(placed))) }
        return parts.joined(separator: "; ")
    }
    mutating func add(_ other: SegmentationCounts) {
        labelled += other.labelled; withQuads += other.withQuads; stripsFound += other.stripsFound; strips += other.strips
        strayStrips += other.strayStrips; readingsWithBook += other.readingsWithBook; runTogether += other.runTogether
        booksRead += other.booksRead; booksSplit += other.booksSplit; placed += other.placed; placedRight += other.placedRight
    }
}

/// A set's segmentation counts, in total and per half of --split.
struct SegmentationTotals {
    var total = SegmentationCounts(), split = SegmentationCounts(), rest = SegmentationCounts()
    mutating func add(_ photo: SegmentationCounts, checking: Bool) {
        total.add(photo)
        if checking { rest.add(photo) } else { split.add(photo) }
    }
}

/// The x range a quad covers at height y (its left side between its top-left and bottom-left corners, the right likewise).
func span(_ quad: [[Double]], atY y: Double) -> (Double, Double)? {
    guard quad.count == 4, quad.allSatisfy({ $0.count == 2 }) else { return nil }
    func along(_ a: [Double], _ b: [Double]) -> Double {
        let t = b[1] == a[1] ? 0 : (y - a[1]) / (b[1] - a[1])
        return a[0] + t * (b[0] - a[0])
    }
    let top = min(quad[0][1], quad[1][1]), bottom = max(quad[2][1], quad[3][1])
    guard top <= y, y <= bottom else { return nil }
    return (along(quad[0], quad[3]), along(quad[1], quad[2]))
}

/// A Chinese title's "words" for segmentation (TextNormalizer makes each Han character a word): every run
/// of four Han characters in it, marked "han:"; a reading holds one when its Han characters contain it.
func hanWindows(_ title: String) -> [String] {
    let characters = Array(title.filter(isHan))
    guard characters.count >= 4 else { return [] }
    return (0...characters.count - 4).map { "han:" + String(characters[$0..<$0 + 4]) }
}
func isHan(_ character: Character) -> Bool {
    character.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) || (0x3400...0x4DBF).contains($0.value) }
}

/// A spine's words with " / " where the OCR line changes (which lines a reading was joined from).
func linesOf(_ spine: OCRSpine) -> String {
    var text = ""
    for (index, word) in spine.words.enumerated() {
        if index > 0 { text += word.line == spine.words[index - 1].line ? " " : " / " }
        text += word.text
    }
    return text
}

/// `scale`: the working image's pixels per photo pixel (quads are in the photo's).
@MainActor func measureSegmentation(_ photo: (file: String, books: [Labelled.Book]), image: GrayImage, scale: Double, spines: [OCRSpine],
                         labelled: Labelled?) -> SegmentationCounts {
    var counts = SegmentationCounts()
    counts.labelled = photo.books.count + (labelled?.unreadable ?? 0)
    let strips = SpineStrips.spineStrips(in: image, followsLean: options.stripsFollowLean)
    counts.strips = strips.count
    let standing = photo.books.enumerated().filter { $0.element.quad != nil && $0.element.orientation != "flat" }
    counts.withQuads = standing.count
    var taken = Set<Int>()
    for strip in strips {
        let y = Double(strip.box.y0 + strip.box.y1) / 2 / scale
        let (x0, x1) = (Double(strip.box.x0) / scale, Double(strip.box.x1) / scale)
        var best: (Int, Double)?
        for (index, book) in standing where !taken.contains(index) {
            guard let (left, right) = span(book.quad!, atY: y) else { continue }
            let share = (min(x1, right) - max(x0, left)) / max(x1 - x0, right - left)
            if share >= 0.5, share > (best?.1 ?? 0) { best = (index, share) }
        }
        if let (index, _) = best { taken.insert(index); counts.stripsFound += 1 } else if counts.withQuads > 0 { counts.strayStrips += 1 }
    }
    let words = photo.books.map { Set(lossWords($0) + hanWindows($0.title)) }
    // A word another book of the photo has, or one letter off it ("Material" beside "Materials"), is no one book's.
    let distinctive = words.indices.map { index in
        words[index].filter { word in
            !words.indices.contains { $0 != index && (words[$0].contains(word) || (!word.hasPrefix("han:") && holds(words[$0].joined(separator: " "), [word]))) }
        }
    }
    var readingsOfBook = [Int](repeating: 0, count: photo.books.count)
    for spine in spines {
        let han = String(spine.text.filter(isHan))
        let held = distinctive.indices.filter { index in
            !distinctive[index].isEmpty && (holds(spine.text, distinctive[index].filter { !$0.hasPrefix("han:") })
                || distinctive[index].contains { $0.hasPrefix("han:") && han.contains($0.dropFirst(4)) })
        }
        guard !held.isEmpty else { continue }
        counts.readingsWithBook += 1
        if held.count > 1 {
            counts.runTogether += 1
            // SEGMENTATION_VERBOSE=1: each reading that ran spines together, with where it came from.
            if ProcessInfo.processInfo.environment["SEGMENTATION_VERBOSE"] == "1" {
                print("    RUN TOGETHER [\(spine.rotation.degrees)°\(spine.fromStrip ? " strip" : "")\(spine.isUnsure ? " unsure" : "") \(spine.box.x0),\(spine.box.y0)-\(spine.box.x1),\(spine.box.y1)] "
                      + "\(linesOf(spine)) {\(held.map { photo.books[$0].title }.joined(separator: " | "))}")
            }
        }
        for index in held { readingsOfBook[index] += 1 }
        if held.count == 1, let quad = photo.books[held[0]].quad {
            counts.placed += 1
            let (x, y) = (spine.box.centerX / scale, spine.box.centerY / scale)
            if let (left, right) = span(quad, atY: y), left <= x, x <= right { counts.placedRight += 1 }
        }
    }
    counts.booksRead = readingsOfBook.filter { $0 > 0 }.count
    counts.booksSplit = readingsOfBook.filter { $0 > 1 }.count
    return counts
}
