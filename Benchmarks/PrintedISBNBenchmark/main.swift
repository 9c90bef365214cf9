import BarcodeReading
import BookCodes
import Foundation
import ImageTestSupport
import Imaging
import PrintedISBN
import SpineOCR

// Printed-ISBN reading measured (scripts/bench-printed-isbn): real book backs from
// ../shared/images/barcodes with their bars painted out (and the digit line too), rendered
// copyright pages (scripts/lib/printed_isbn_pages.py) and traps (the photos with no code,
// backs with every number painted out, pages without this book's ISBN). Images are made here,
// into the cache folder; halves by source photo (its painted copies together): even = tuning,
// odd = checking (the one reported). --sets PREFIX,... keeps the sets whose names start so.
// Beside it the naive reader: Tesseract on the whole photo, any 10/13-digit run whose check holds.
//
// Usage: PrintedISBNBenchmark SHARED_BARCODES_DIR CACHE_DIR [--effort normal|thorough] [--half checking|tuning|both]
//        [--stride N] (every Nth photo of the half: a shorter run on a busy machine) [--verbose]
//        [--why] (each photo with an ISBN not read: what each step of the reader saw)
//        PrintedISBNBenchmark --cost FOLDER [--stride N]: what the printed pass costs a barcode set's photos
//        if none read a code (every image of FOLDER, as `decode` would ask after bars that read nothing),
//        with the character-row gate (normal effort) and without it (the page always read);
//        --gate-only: the gate alone (which photos it would let through), no OCR.

func threadCPU() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

struct Sample {
    var name: String
    var set: String
    var image: GrayImage
    var expected: String?  // ISBN-13, nil: nothing may be reported
    /// The source photo's number in its kind: its painted copies share one half.
    var group: Int
    /// A back's bars as zbar found them on the unpainted photo (where the digit line was).
    var bars: BoundingBox? = nil
}

let arguments = CommandLine.arguments
/// One line to standard output, unbuffered (progress shows while a long run goes on).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
if let index = arguments.firstIndex(of: "--cost"), index + 1 < arguments.count {
    let folder = URL(fileURLWithPath: arguments[index + 1])
    let every = arguments.firstIndex(of: "--stride").flatMap { Int(arguments[$0 + 1]) } ?? 1
    let names = (try FileManager.default.contentsOfDirectory(atPath: folder.path))
        .filter { [".jpg", ".jpeg", ".png"].contains(where: $0.lowercased().hasSuffix) }.sorted()
    let gated = PrintedISBNFollowUp(budget: .forEffort(.normal)!)
    var always = PrintedISBNReader.Budget.forEffort(.normal)!
    always.needsCharacterRow = false
    let ungated = PrintedISBNFollowUp(budget: always)
    let costProber = try PrintedISBNReader()
    var photos = 0, passed = 0, gatedReported = 0, ungatedReported = 0
    var gateCPU = 0.0, gatedCPU = 0.0, ungatedCPU = 0.0
    for (number, name) in names.enumerated() where number % every == 0 {
        let options = ImageLoadOptions(applyOrientation: true)
        guard let image = try? ImageLoader.load(contentsOf: folder.appendingPathComponent(name), options: options).image else { continue }
        let empty = FileScanResult(codes: [], rejected: [], imageWidth: image.width, imageHeight: image.height)
        let t0 = threadCPU()
        let row = CharacterRows.longestRow(in: image)
        let holds = CharacterRows.holdsNumberLikeRow(image)
        let t1 = threadCPU()
        let gateOnly = arguments.contains("--gate-only")
        let withGate = gateOnly ? empty : gated.followUp(empty) { image }
        let t2 = threadCPU()
        let withoutGate = gateOnly ? empty : ungated.followUp(empty) { image }
        let t3 = threadCPU()
        photos += 1
        if holds { passed += 1 }
        gateCPU += t1 - t0; gatedCPU += t2 - t1; ungatedCPU += t3 - t2
        gatedReported += withGate.codes.count
        ungatedReported += withoutGate.codes.count
        if arguments.contains("--probe") {
            let candidates = CharacterRows.isbnLineCandidates(CharacterRows.survey(image))
            let p0 = threadCPU()
            let shown = costProber.firstRowShowingAnISBN(candidates.prefix(8), in: image)
            say(String(format: "probe %@ %dx%d candidates %d first number row %@ (%.0f ms) gated %.0f ms", name, image.width, image.height,
                       candidates.count, shown.map(String.init) ?? "none", (threadCPU() - p0) * 1000, (t2 - t1) * 1000))
        }
        if arguments.contains("--rows") {
            let survey = CharacterRows.survey(image)
            say("\(name) \(image.width)x\(image.height) candidates \(CharacterRows.isbnLineCandidates(survey).count) rows \(survey.rows.count): "
                + survey.rows.map { "\($0.marks)/\($0.markHeight)/\(Int($0.evenness * 100))/w\($0.markWidth)" }.joined(separator: " "))
        }
        if arguments.contains("--verbose") {
            say(String(format: "%@ %dx%d row %@ (%d marks %d px) gated %.0f ms %@ ungated %.0f ms %@", name, image.width, image.height,
                       holds ? "yes" : "no", row.marks, row.markHeight, (t2 - t1) * 1000, withGate.codes.map(\.text).description,
                       (t3 - t2) * 1000, withoutGate.codes.map(\.text).description))
        }
    }
    let n = Double(max(1, photos))
    say("printed pass on \(folder.path) (\(photos) photos\(every > 1 ? ", every \(every)th" : ""), as if no code was read):")
    say(String(format: "  character-row gate: %d of %d photos pass, %.1f ms CPU/photo", passed, photos, gateCPU * 1000 / n))
    say(String(format: "  gated (normal effort): %.0f ms CPU/photo, %d printed ISBNs reported", gatedCPU * 1000 / n, gatedReported))
    say(String(format: "  page always read:      %.0f ms CPU/photo, %d printed ISBNs reported", ungatedCPU * 1000 / n, ungatedReported))
    exit(0)
}
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: PrintedISBNBenchmark SHARED_BARCODES_DIR CACHE_DIR [--effort normal|thorough]\n".utf8))
    exit(64)
}
let barcodes = URL(fileURLWithPath: arguments[1])
let cache = URL(fileURLWithPath: arguments[2])
func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
let halves = option("--half").map { $0 == "both" ? ["checking", "tuning"] : [$0] } ?? ["checking"]
let stride = max(1, option("--stride").flatMap(Int.init) ?? 1)
let effort = arguments.firstIndex(of: "--effort").flatMap { ScanEffort(rawValue: arguments[$0 + 1]) } ?? .normal
let painted = cache.appendingPathComponent("painted")
try FileManager.default.createDirectory(at: painted, withIntermediateDirectories: true)

func fill(_ image: GrayImage, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ value: UInt8) -> GrayImage {
    var pixels = image.pixels
    for y in max(0, y0)..<min(image.height, max(max(0, y0), y1)) {
        for x in max(0, x0)..<min(image.width, max(max(0, x0), x1)) { pixels[y * image.width + x] = value }
    }
    return GrayImage(width: image.width, height: image.height, pixels: pixels)
}

var samples: [Sample] = []
var trapPhotos = 0, backs = 0
let manifest = try String(contentsOf: barcodes.appendingPathComponent("manifest.tsv"), encoding: .utf8)
let scanner = try FileScanner(options: ScanOptions(effort: .thorough))
for row in manifest.split(separator: "\n").dropFirst() {
    let cells = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard cells.count > 2 else { continue }
    let url = barcodes.appendingPathComponent(cells[0])
    guard let image = try? ImageLoader.load(contentsOf: url).image else { continue }
    if cells[2] == "NONE" {
        samples.append(Sample(name: cells[0], set: "trap: photo without a code", image: image, expected: nil, group: trapPhotos))
        trapPhotos += 1
        continue
    }
    // Book backs: the bars (found by zbar) painted paper-white; then the digit line; then all.
    guard cells[1].hasPrefix("978") || cells[1].hasPrefix("979"),
          let code = try? scanner.scan(fileAt: url).codes.first(where: { $0.text == cells[1] }) else { continue }
    let b = code.bounds
    var values = [UInt8]()
    for y in max(0, b.y)..<min(image.height, b.maxY) { for x in max(0, b.x)..<min(image.width, b.maxX) { values.append(image.pixels[y * image.width + x]) } }
    values.sort()
    let paper = values.isEmpty ? 255 : values[values.count * 9 / 10]
    let x0 = b.x - b.width / 8, x1 = b.maxX + b.width / 8
    let variants: [(String, GrayImage, String?)] = [
        ("bars painted", fill(image, x0, b.y - b.height / 4, x1, b.maxY + b.width / 50, paper), cells[1]),
        ("bars+digits painted", fill(image, x0, b.y - b.height / 4, x1, b.maxY + b.width / 6, paper), cells[1]),
        ("trap: every number painted", fill(image, x0 - b.width / 8, b.y - b.height, x1 + b.width / 8, b.maxY + b.width / 5, paper), nil),
    ]
    for (set, variant, expected) in variants {
        let name = cells[0].replacingOccurrences(of: "/", with: "_") + "-" + set.filter(\.isLetter) + ".png"
        try? ImageEncoder.pngData(variant).write(to: painted.appendingPathComponent(name))
        // The set's expectation: a painted-all back holds no ISBN a person could read.
        samples.append(Sample(name: name, set: set, image: variant, expected: expected, group: backs, bars: b))
    }
    backs += 1
}
let pages = cache.appendingPathComponent("pages")
if let pageManifest = try? String(contentsOf: pages.appendingPathComponent("manifest.tsv"), encoding: .utf8) {
    for (number, row) in pageManifest.split(separator: "\n").enumerated() {
        let cells = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard cells.count >= 3, let image = try? ImageLoader.load(contentsOf: pages.appendingPathComponent(cells[0])).image else { continue }
        samples.append(Sample(name: cells[0], set: cells[2] == "trap" ? "trap: page without this book's ISBN" : "rendered page (\(cells[2]))",
                              image: image, expected: cells[1].isEmpty ? nil : cells[1], group: number))
    }
}

let budget = PrintedISBNReader.Budget.forEffort(effort) ?? .forEffort(.normal)!
let followUp = PrintedISBNFollowUp(budget: budget)
var naiveOptions = TesseractOptions()
naiveOptions.pageSegmentationMode = 3
let naive = try TesseractEngine(options: naiveOptions)
let tenOrThirteen = try NSRegularExpression(pattern: "(?<![0-9])[0-9][0-9 -]{8,16}[0-9Xx](?![0-9])")

/// The naive reader: every 10/13-digit run on the whole photo whose check holds.
func naiveRead(_ image: GrayImage, naive: TesseractEngine, tenOrThirteen: NSRegularExpression) -> Set<String> {
    let (page, _) = image.scaled(toPixels: 2_400_000, maxLongSide: 2400, maxUpscale: 8)
    let words = naive.words(in: page) ?? []
    var lines: [Int: [OCRWord]] = [:]
    for word in words { lines[word.line, default: []].append(word) }
    var found: Set<String> = []
    for (_, line) in lines {
        let text = line.sorted { $0.box.x0 < $1.box.x0 }.map(\.text).joined(separator: " ")
        for match in tenOrThirteen.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range, in: text) else { continue }
            let digits = text[range].filter { $0.isNumber || $0 == "X" || $0 == "x" }
            if digits.count == 13, let isbn = try? ISBN13(validating: String(digits)) { found.insert(isbn.digits) }
            if digits.count == 10, let isbn = try? ISBN10(validating: String(digits)) { found.insert(isbn.isbn13.digits) }
        }
    }
    return found
}

struct Tally {
    var photos = 0, withISBN = 0, right = 0, wrong = 0, trapsReported = 0, cpu = 0.0
    var naiveRight = 0, naiveWrong = 0, naiveCPU = 0.0
    /// Photos whose page the character-row gate would not read at normal effort (`CharacterRows`).
    var noRow = 0
}
var tallies: [String: [String: Tally]] = [:]  // half -> set -> tally
let verbose = arguments.contains("--verbose")
/// --no-naive: the naive reader is not run (its columns read 0).
let noNaive = arguments.contains("--no-naive")
/// --probe: each photo's candidate rows (evenest first) the probe (`firstRowShowingAnISBN`) finds a number in,
/// and which candidate row holds the ISBN read.
let probe = arguments.contains("--probe")
let prober = try PrintedISBNReader()
/// --why: for each photo with an ISBN not read, what each step of the reader saw (its trace).
let why = arguments.contains("--why")
let sets = option("--sets").map { $0.split(separator: ",").map(String.init) }
for sample in samples {
    let half = sample.group % 2 == 0 ? "tuning" : "checking"
    guard halves.contains(half), (sample.group / 2) % stride == 0 else { continue }
    if let sets, !sets.contains(where: { sample.set.hasPrefix($0) }) { continue }
    var tally = tallies[half]?[sample.set] ?? Tally()
    let started = threadCPU()
    let empty = FileScanResult(codes: [], rejected: [], imageWidth: sample.image.width, imageHeight: sample.image.height)
    let result = followUp.followUp(empty) { sample.image }
    let reported = result.codes.filter { $0.symbology == .printed }.map(\.text)
    let middle = threadCPU()
    let naiveFound = noNaive ? [] : naiveRead(sample.image, naive: naive, tenOrThirteen: tenOrThirteen)
    let ended = threadCPU()
    tally.photos += 1
    let row = CharacterRows.longestRow(in: sample.image)
    if !CharacterRows.holdsNumberLikeRow(sample.image) { tally.noRow += 1 }
    tally.cpu += middle - started
    tally.naiveCPU += ended - middle
    if let expected = sample.expected {
        tally.withISBN += 1
        if reported == [expected] { tally.right += 1 } else if !reported.isEmpty { tally.wrong += 1 }
        if naiveFound.contains(expected) { tally.naiveRight += 1 }
        if !naiveFound.subtracting([expected]).isEmpty { tally.naiveWrong += 1 }
    } else {
        if !reported.isEmpty { tally.wrong += 1; tally.trapsReported += 1 }
        if !naiveFound.isEmpty { tally.naiveWrong += 1 }
    }
    if probe {
        let candidates = CharacterRows.isbnLineCandidates(CharacterRows.survey(sample.image))
        let shown = prober.firstRowShowingAnISBN(candidates.prefix(8), in: sample.image)
        let box = result.codes.first { $0.symbology == .printed }?.bounds
        let holding = box.flatMap { b in candidates.firstIndex { $0.box.y0 < b.maxY && $0.box.y1 > b.y && $0.box.x0 < b.maxX && $0.box.x1 > b.x } }
        say("probe \(half) \(sample.set) \(sample.name) \(sample.image.width)x\(sample.image.height) candidates \(candidates.count) "
            + "first number row \(shown.map(String.init) ?? "none") read \(reported) expected \(sample.expected ?? "-") row holding it \(holding.map(String.init) ?? "none")"
            + String(format: " %.0f ms", (middle - started) * 1000))
    }
    if why, let expected = sample.expected, reported != [expected] {
        say("why \(half) \(sample.set) \(sample.name) \(sample.image.width)x\(sample.image.height) expected \(expected) got \(reported)"
            + (sample.bars.map { " bars \($0.x),\($0.y) \($0.width)x\($0.height) (digits ~\($0.width * 74 / 1000) px)" } ?? ""))
        prober.trace = { say("    " + $0) }
        _ = prober.read(sample.image, budget: budget)
        prober.trace = nil
    }
    if verbose {
        say("\(half) \(sample.set) \(sample.name) \(sample.image.width)x\(sample.image.height) row \(row.marks) marks \(row.markHeight) px: "
              + "expected \(sample.expected ?? "-") got \(reported) naive \(naiveFound.sorted()) "
              + String(format: "%.0f ms", (middle - started) * 1000))
    }
    tallies[half, default: [:]][sample.set] = tally
}

say("printed-ISBN reading, effort \(effort.rawValue) (photos with an ISBN: read / wrong; traps: wrongly reported)")
for half in halves {
    say("\(half) half\(stride > 1 ? ", every \(stride)th photo" : ""):")
    var total = Tally()
    for (set, t) in (tallies[half] ?? [:]).sorted(by: { $0.key < $1.key }) {
        let read = t.withISBN > 0 ? "read \(t.right)/\(t.withISBN)" : "traps \(t.photos)"
        say(String(format: "  %-40@ %@, wrong %d, no character row %d, %.0f ms CPU/photo | naive: read %d, wrong %d, %.0f ms CPU/photo",
                     set as NSString, read as NSString, t.wrong, t.noRow, t.cpu * 1000 / Double(max(1, t.photos)),
                     t.naiveRight, t.naiveWrong, t.naiveCPU * 1000 / Double(max(1, t.photos))))
        total.photos += t.photos; total.withISBN += t.withISBN; total.right += t.right; total.wrong += t.wrong
        total.cpu += t.cpu; total.noRow += t.noRow; total.naiveRight += t.naiveRight; total.naiveWrong += t.naiveWrong; total.naiveCPU += t.naiveCPU
    }
    say(String(format: "  %-40@ read %d/%d, wrong %d of %d photos, no character row %d, %.0f ms CPU/photo | naive: read %d, wrong %d, %.0f ms CPU/photo",
                 "all" as NSString, total.right, total.withISBN, total.wrong, total.photos, total.noRow, total.cpu * 1000 / Double(max(1, total.photos)),
                 total.naiveRight, total.naiveWrong, total.naiveCPU * 1000 / Double(max(1, total.photos))))
}
