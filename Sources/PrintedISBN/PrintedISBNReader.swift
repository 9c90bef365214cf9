import BarcodeReading
import BookCodes
import Imaging
import SpineOCR

/// Reads the ISBN a person reads on a book (the "ISBN …" line, the digits under the bars)
/// with Tesseract, and the digits under an EAN/UPC as the bars' second witness.
///
/// A number counts only when its check character holds and a second reading agrees: the
/// page is read once whole, and each line holding a candidate is read again on its own, at
/// the scale Tesseract reads best, binarised here (Sauvola) instead of by Tesseract; a line
/// that reading does not bear out is read once more as gray at another scale. Not
/// thread-safe: one per worker (one TessBaseAPI).
public final class PrintedISBNReader {
    /// One engine for every reading: the witness's and the digit line's digits (whitelist set),
    /// the row look, the page and its confirming readings (any text). A Tesseract start costs
    /// ~0.2–0.3 s of CPU a worker (most of it loading the model), and two engines, one for
    /// digits and one for text, paid it twice on every worker whose photos reached both (stop 43).
    private let tesseract: TesseractEngine
    /// Whether the whitelist holds digits only now.
    private var readsDigitsOnly = false
    /// Told what each step saw (the gate's rows, each look's and reading's text): why a photo
    /// was not read (`PrintedISBNBenchmark --why`). Nil in use.
    public var trace: ((String) -> Void)?

    /// What one photo's printed text gave.
    public struct Reading: Sendable, Hashable {
        /// Confirmed ISBNs labelled for no other format, with where they are.
        public var accepted: [Found] = []
        /// Confirmed ISBNs labelled for another format ("(ebook)"): reported, never added.
        public var otherFormats: [Found] = []
        /// Candidates whose check held but that no second reading confirmed.
        public var unconfirmed = 0
        /// The page was not read: no row like an ISBN line (`CharacterRows`) was seen, or none of
        /// the probed rows showed an ISBN-like run (`Budget.probedRows`).
        public var pageSkipped = false

        public struct Found: Sendable, Hashable {
            public var isbn: ISBN13
            public var number: PrintedNumber
            /// In the pixels of the image read.
            public var box: BoundingBox
        }
    }

    /// How hard to look, and how much CPU a photo may take.
    public struct Budget: Sendable, Hashable {
        /// Pixel counts at which the whole photo is read, one Tesseract pass each, until one
        /// confirms an ISBN.
        public var pageScales: [Int]
        /// CPU milliseconds each whole-photo pass may take (the words read by then are kept).
        public var pageMilliseconds: Int
        /// The page is read only when it shows a row of character-sized marks as long as an
        /// ISBN line (`CharacterRows`, a few ms): most codeless photos then cost no OCR.
        public var needsCharacterRow: Bool
        /// With `needsCharacterRow`: the page is read only when one of this many candidate rows,
        /// evenest first, read alone shows an ISBN-like run (`firstRowShowingAnISBN`, ~10–30 ms a
        /// row); 0: no such look.
        public var probedRows: Int

        public init(pageScales: [Int], pageMilliseconds: Int, needsCharacterRow: Bool = false, probedRows: Int = 0) {
            self.pageScales = pageScales
            self.pageMilliseconds = pageMilliseconds
            self.needsCharacterRow = needsCharacterRow
            self.probedRows = probedRows
        }

        /// None at fast effort; one scale at normal, on photos with a row like an ISBN line one of
        /// whose four evenest shows an ISBN-like run; two at thorough, on every photo. Normal effort's page
        /// pass is cut at 1 s of CPU: every printed back and rendered page read took ≤ 0.6 s for the
        /// whole follow-up (stop 37), while a codeless scene full of small print ran on to 1.6–2.5 s.
        /// Four rows (stop 38): on every printed back read the first row showing a number was one of
        /// the first three (a page's the first); 9 of the small tuning half's 11 codeless photos the
        /// gate let through showed none in four.
        public static func forEffort(_ effort: ScanEffort) -> Budget? {
            switch effort {
            case .fast: nil
            case .normal: Budget(pageScales: [2_400_000], pageMilliseconds: 1_000, needsCharacterRow: true, probedRows: 4)
            case .thorough: Budget(pageScales: [2_400_000, 1_000_000], pageMilliseconds: 4_000)
            }
        }

        /// A webcam frame: one small pass, so the frames after it are not kept waiting long.
        public static let live = Budget(pageScales: [1_000_000], pageMilliseconds: 600, needsCharacterRow: true)
    }

    public init() throws(TesseractError) {
        tesseract = try TesseractEngine(options: TesseractOptions())
    }

    /// The engine reading digits only (the witness, a digit line).
    private var digitEngine: TesseractEngine {
        if !readsDigitsOnly { readsDigitsOnly = tesseract.setVariable(Self.whitelist, "0123456789") }
        return tesseract
    }

    /// The engine reading any text (the row look, the page, its confirming readings).
    private var engine: TesseractEngine {
        if readsDigitsOnly { readsDigitsOnly = !tesseract.setVariable(Self.whitelist, "") }
        return tesseract
    }

    private static let whitelist = "tessedit_char_whitelist"

    /// Tesseract reads a line again inverted when its first reading's confidence is low
    /// (`tessedit_do_invert`, on by default).
    private func setInvertedLineRetry(_ on: Bool) {
        tesseract.setVariable("tessedit_do_invert", on ? "1" : "0")
    }

    // MARK: - Printed ISBN

    /// The ISBNs printed on `image`, confirmed, within `budget`.
    public func read(_ image: GrayImage, budget: Budget) -> Reading {
        read(FollowUpPixels(full: { image }), budget: budget)
    }

    /// The same, the full pixels asked for only when the page is read (the gate looks at the
    /// scanner's reduced copy when there is one).
    public func read(_ pixels: FollowUpPixels, budget: Budget) -> Reading {
        var reading = Reading()
        var scales = budget.pageScales
        var survey: (rows: CharacterRows.Survey, candidates: [CharacterRows.Row])?
        if budget.needsCharacterRow {
            let looked = pixels.reduced().flatMap { CharacterRows.survey(reducedCopy: $0.image, factor: $0.factor) }
                ?? pixels.full().map(CharacterRows.survey)
            let candidates = looked.map(CharacterRows.isbnLineCandidates) ?? []
            trace?("rows \(looked?.rows.count ?? 0), candidates: " + candidates.map {
                "\($0.marks) marks \($0.markHeight) px at y \($0.box.y0)-\($0.box.y1)"
            }.joined(separator: "; "))
            guard let looked, !candidates.isEmpty else {
                reading.pageSkipped = true
                return reading
            }
            survey = (looked, candidates)
        }
        guard let image = pixels.full() else { return reading }
        if let survey {
            // No ISBN-like run in the rows most like an ISBN line: the page is not read. A scene
            // full of small print (most codeless photos the gate lets through) cost 0.3–1.2 s of
            // page pass, its cap overshot by Tesseract's layout pass; every printed back and page
            // read on bench-printed-isbn's sets shows one there (stop 41).
            if budget.probedRows > 0 {
                let probed = Array(survey.candidates.prefix(budget.probedRows))
                var start = 0, anyShown = false
                while start < probed.count, let shown = firstRowShowingAnISBNOrLabel(probed[start...], in: image) {
                    anyShown = true
                    // A row that shows digits and no label read as digits alone (`digitLineISBN`): the digit
                    // line under painted-out bars, which the page pass misread on most backs (stop
                    // 42). A labelled line is left to the page pass: its label may name another
                    // format ("ISBN 978-… (ebook)"), which the digits alone would not show.
                    if shown.label { break }
                    if let found = digitLineISBN(probed[start + shown.index], in: image) {
                        reading.accepted.append(found)
                        return reading
                    }
                    // The next rows may hold the digit line (a misread label shows digits only).
                    start += shown.index + 1
                }
                guard anyShown else {
                    trace?("page skipped: no probed row shows an ISBN-like run")
                    reading.pageSkipped = true
                    return reading
                }
            }
            scales = scales.map { min($0, Self.pagePixels(setting: survey.rows.longest.markHeight, in: image)) }
        }
        for pixels in scales {
            reading = readPage(image, pixels: pixels, milliseconds: budget.pageMilliseconds)
            if !reading.accepted.isEmpty || !reading.otherFormats.isEmpty { break }
        }
        return reading
    }

    /// Marks of the row the gate found are scaled to about this height for the page pass
    /// (Tesseract reads capitals of 30–40 px best).
    static let pageMarkHeight = 36.0

    /// The page's pixel count that sets marks `markHeight` tall near `pageMarkHeight`, never
    /// below the photo's own size: a 240 px photo's 14 px ISBN line is read at 0.38 MP, not
    /// 1.5 MP (6.5×, where each Tesseract pass cost ~0.5 s of CPU); a 12 MP photo keeps the budget's scale.
    static func pagePixels(setting markHeight: Int, in image: GrayImage) -> Int {
        let factor = min(8, max(1, pageMarkHeight / Double(max(1, markHeight))))
        return Int(Double(image.width * image.height) * factor * factor)
    }

    private func readPage(_ image: GrayImage, pixels: Int, milliseconds: Int) -> Reading {
        let (page, factor) = image.scaled(toPixels: pixels, maxLongSide: 2400, maxUpscale: 8)
        guard let words = engine.words(in: page, cpuMilliseconds: milliseconds, pageSegmentationMode: 11) else { return Reading() }
        var reading = Reading()
        for line in TextLines.group(words) {
            let numbers = PrintedText.numbers(in: line.text)
            trace?("page \(page.width)x\(page.height) line at y \(line.box.scaled(by: 1 / factor).y0), \(line.box.height) px there: "
                   + "\"\(line.text)\" -> \(numbers.map(\.isbn.digits))")
            guard !numbers.isEmpty else { continue }
            let box = line.box.scaled(by: 1 / factor)
            let confirmed = confirm(numbers, lineIn: image, at: box)
            for number in numbers {
                guard confirmed.contains(number.isbn) else { reading.unconfirmed += 1; continue }
                let found = Reading.Found(isbn: number.isbn, number: number,
                                          box: BoundingBox(x: box.x0, y: box.y0, width: box.width, height: box.height))
                if number.isOtherFormat { reading.otherFormats.append(found) } else { reading.accepted.append(found) }
            }
        }
        return reading
    }

    /// The ISBNs of `numbers` that a reading of their line alone states too.
    private func confirm(_ numbers: [PrintedNumber], lineIn image: GrayImage, at box: Box) -> Set<ISBN13> {
        let wanted = Set(numbers.map(\.isbn))
        var confirmed: Set<ISBN13> = []
        for variant in LineVariant.allCases {
            guard let crop = variant.prepare(image, line: box) else { continue }
            let words = engine.words(in: crop, cpuMilliseconds: 800, pageSegmentationMode: variant.pageSegmentationMode) ?? []
            for line in TextLines.group(words) {
                trace?("  confirm \(variant) \(crop.width)x\(crop.height): \"\(line.text)\"")
                confirmed.formUnion(PrintedText.numbers(in: line.text).map(\.isbn).filter(wanted.contains))
            }
            if confirmed == wanted { break }
        }
        return confirmed
    }

    /// The first of `rows` (in order) whose line, read alone across the photo (one Tesseract
    /// line), shows an ISBN-like run (`PrintedText.showsAnISBN`); nil when none does. A cheap
    /// look before the page pass. The line is binarised here (Sauvola): cut beside a brighter
    /// area (a white sticker over the bars), Tesseract's global threshold turned its paper black.
    public func firstRowShowingAnISBN(_ rows: some Sequence<CharacterRows.Row>, in image: GrayImage) -> Int? {
        firstRowShowingAnISBNOrLabel(rows, in: image)?.index
    }

    /// The same, and whether that row's text shows the label ("SBN").
    func firstRowShowingAnISBNOrLabel(_ rows: some Sequence<CharacterRows.Row>, in image: GrayImage) -> (index: Int, label: Bool)? {
        for (index, row) in rows.enumerated() {
            // The photo's width at the row's height: an ISBN line's marks may be a part of it only
            // (the digits under bars split by guard-bar stubs, "9" standing apart).
            let band = Box(x0: 0, y0: row.box.y0, x1: image.width, y1: row.box.y1)
            guard let crop = LineVariant.sauvola.prepare(image, line: band) else { continue }
            let words = engine.words(in: crop, cpuMilliseconds: 200, pageSegmentationMode: 7) ?? []
            trace?("look row \(index) (y \(row.box.y0)-\(row.box.y1)): \"\(words.map(\.text).joined(separator: " "))\"")
            let text = words.map(\.text).joined(separator: " ")
            if PrintedText.showsAnISBN(text) { return (index, text.uppercased().contains("SBN")) }
        }
        return nil
    }

    /// The ISBN of `row` read as a line of digits (the digit engine), guard-bar stubs erased,
    /// in both `LineVariant`s: only a 978/979 13-digit run whose check holds, stated by both.
    func digitLineISBN(_ row: CharacterRows.Row, in image: GrayImage) -> Reading.Found? {
        // The photo's width, as the look: the row may be a part of the line only (digits whose
        // tops the paint took are no marks), and a window of 978/979 is sought in what is read.
        let line = Box(x0: 0, y0: row.box.y0, x1: image.width, y1: row.box.y1)
        // Three readings at most; one ISBN stated by two of them, and no other by any.
        var readings: [Set<ISBN13>] = []
        for variant in [LineVariant.sauvola, .sauvolaSmall, .gray] {
            guard let crop = variant.prepare(image, line: line) else { return nil }
            let words = digitEngine.words(in: crop, cpuMilliseconds: 200, pageSegmentationMode: 7) ?? []
            let text = words.map(\.text).joined(separator: " ")
            readings.append(PrintedText.digitLineISBNs(in: text))
            trace?("  digits \(variant) \(crop.width)x\(crop.height): \"\(text)\"")
            let stated = readings.reduce(into: Set<ISBN13>()) { $0.formUnion($1) }
            // Nothing in the first two: the row is no digit line (most rows the look passes).
            if stated.isEmpty, readings.count == 2 { return nil }
            if stated.count > 1 { return nil }
            if let isbn = stated.first, readings.filter({ $0.contains(isbn) }).count >= 2 {
                return Reading.Found(isbn: isbn, number: PrintedNumber(isbn: isbn, printed: isbn.digits, label: .none),
                                     box: BoundingBox(x: line.x0, y: line.y0, width: line.width, height: line.height))
            }
        }
        return nil
    }

    // MARK: - Second witness

    /// The GTIN-13s the human-readable line under a code's bars states legibly (check digit
    /// right); empty when nothing there is legible. Cheap by design (a few ms): the line is
    /// found without OCR (`CharacterRows.longestRowSpan`: a run of marks of a digit's height
    /// for this code's width, the bars' marks being many times taller), and only that band,
    /// the code's width and its outer digits' margins, is read as one line of digits.
    /// `codeWidth`: the width the bars are scaled to (the digits then ~0.09 of it tall);
    /// `binarized`: Sauvola here instead of Tesseract's threshold (the second reading a
    /// contradiction needs).
    public func digitLines(around bounds: BoundingBox, in image: GrayImage, codeWidth: Int = 360,
                           binarized: Bool = false) -> Set<String> {
        // An EAN-13's first digit stands ~0.12 of the bars' width left of them, a UPC-A's last
        // one right; the digits under the bars, which zbar's box (the lines that decoded) may
        // end well above.
        let reach = max(bounds.width, bounds.height)
        let x0 = max(0, bounds.x - reach / 5), x1 = min(image.width, bounds.maxX + reach / 6)
        let y0 = max(0, bounds.y), y1 = min(image.height, bounds.maxY + reach / 2)
        guard x1 - x0 >= 16, y1 - y0 >= 16, reach > 0 else { return [] }
        let factor = Double(codeWidth) / Double(reach)
        let crop = image.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let (scaled, _) = crop.scaled(toPixels: Int(Double(crop.width * crop.height) * factor * factor),
                                      maxLongSide: 2 * codeWidth, maxUpscale: 8)
        // OCR-B digits under EAN/UPC bars are ~0.09 of the bars' width tall (0.06–0.15 allowed).
        let heights = max(5, codeWidth * 6 / 100)...(codeWidth * 15 / 100)
        guard let span = CharacterRows.longestRowSpan(in: scaled, heights: heights, minimumMarks: 6) else { return [] }
        let margin = max(3, (span.upperBound - span.lowerBound) / 2)
        let top = max(0, span.lowerBound - margin), bottom = min(scaled.height, span.upperBound + margin + 1)
        let band = scaled.cropped(x: 0, y: top, width: scaled.width, height: bottom - top)
        let pixels = binarized ? band.sauvolaBinarized(radius: max(8, bottom - top)) : band
        // The first reading (every EAN-13/UPC-A) without Tesseract's inverted retry of a line it
        // read with low confidence (a second recognition): the digits are dark on the code's light
        // box. Off, the witness took 10–15% less CPU and no outcome changed on the small halves or
        // ../shared (stop 43, witness-cost).
        // The second reading, a contradiction's, keeps it.
        if !binarized { setInvertedLineRetry(false) }
        defer { if !binarized { setInvertedLineRetry(true) } }
        let words = digitEngine.words(in: pixels, cpuMilliseconds: 300, pageSegmentationMode: 7) ?? []
        var lines: Set<String> = []
        for line in TextLines.group(words) { lines.formUnion(PrintedText.gtinLines(in: line.text)) }
        return lines
    }
}

/// The forms a candidate's line is read again in, each a second witness to the page pass.
enum LineVariant: CaseIterable {
    /// Text ~40 px tall, binarised here by a local threshold (not Tesseract's global one).
    case sauvola
    /// Text ~28 px tall, gray: Tesseract binarises it, at another scale than the page's.
    case gray
    /// Text ~28 px tall, binarised here: a digit line's second reading (`digitLineISBN`).
    case sauvolaSmall
    /// Text ~40 px tall, gray: read only when the two above did not bear a candidate out (a
    /// labelled line whose check character both read alike wrong, stop 42).
    case grayLarge

    var pageSegmentationMode: Int { 7 }

    var textHeight: Double {
        switch self {
        case .sauvola, .grayLarge: 40
        case .gray, .sauvolaSmall: 28
        }
    }

    /// The line cut out with a margin, scaled so its text is `textHeight` tall, guard-bar stubs
    /// erased (`erasingStubs`).
    func prepare(_ image: GrayImage, line box: Box) -> GrayImage? {
        let margin = max(4, box.height / 2)
        let x0 = max(0, box.x0 - margin), x1 = min(image.width, box.x1 + margin)
        let y0 = max(0, box.y0 - margin), y1 = min(image.height, box.y1 + margin)
        guard x1 - x0 >= 8, y1 - y0 >= 8, box.height > 0 else { return nil }
        let crop = image.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let factor = min(8, max(0.2, textHeight / Double(box.height)))
        let pixels = Int(Double(crop.width * crop.height) * factor * factor)
        let (scaled, scale) = crop.scaled(toPixels: pixels, maxLongSide: 4000, maxUpscale: 8)
        let binarized = scaled.sauvolaBinarized(radius: Int(textHeight))
        // The text's lowest 15% in the crop: a stub ends above it, a "1" or "l" reaches into it.
        let textTop = Double(box.y0 - y0) * scale, textBottom = Double(box.y1 - y0) * scale
        let stubs = binarized.stubPixels(endingAbove: Int(textTop + 0.85 * (textBottom - textTop)))
        switch self {
        case .sauvola, .sauvolaSmall:
            var pixels = binarized.pixels
            for index in stubs { pixels[index] = 255 }
            return GrayImage(width: binarized.width, height: binarized.height, pixels: pixels)
        case .gray, .grayLarge:
            guard !stubs.isEmpty else { return scaled }
            var pixels = scaled.pixels
            let paper = scaled.paperLevel(binarized)
            for index in stubs { pixels[index] = paper }
            return GrayImage(width: scaled.width, height: scaled.height, pixels: pixels)
        }
    }
}

extension GrayImage {
    /// In a binarised line (ink 0), the pixels of thin marks (at least three times as tall as
    /// wide) ending above row `lowestEnd`: the stubs of guard bars reaching into the digit line
    /// under the bars (the `"` between "9", "780764" and "544200"), the last rows of painted-out
    /// bars. Tesseract read them as letters ("¥\"(31985\"730575ll") and the digit line
    /// was lost; a "1", "l" or "|" of the text itself reaches its lower part and is kept.
    func stubPixels(endingAbove lowestEnd: Int) -> [Int] {
        var stubs: [Int] = []
        var seen = [Bool](repeating: false, count: width * height)
        var stack: [Int] = [], component: [Int] = []
        for start in 0..<width * height where pixels[start] == 0 && !seen[start] {
            seen[start] = true
            stack.append(start)
            component.removeAll(keepingCapacity: true)
            var x0 = width, x1 = 0, y0 = height, y1 = 0
            while let index = stack.popLast() {
                component.append(index)
                let x = index % width, y = index / width
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                func visit(_ next: Int) {
                    guard pixels[next] == 0, !seen[next] else { return }
                    seen[next] = true
                    stack.append(next)
                }
                if x > 0 { visit(index - 1) }
                if x + 1 < width { visit(index + 1) }
                if y > 0 { visit(index - width) }
                if y + 1 < height { visit(index + width) }
            }
            if (x1 - x0 + 1) * 3 <= y1 - y0 + 1, y1 < lowestEnd { stubs += component }
        }
        return stubs
    }

    /// The mean of the pixels `binarized` (the same size) calls paper.
    func paperLevel(_ binarized: GrayImage) -> UInt8 {
        var sum = 0, count = 0
        for index in pixels.indices where binarized.pixels[index] != 0 { sum += Int(pixels[index]); count += 1 }
        return count == 0 ? 255 : UInt8(sum / count)
    }
}

/// Words gathered into text lines by position (Tesseract's sparse mode cuts a line at the
/// bars between "9" and "780345": its own line numbers would split the digit line).
enum TextLines {
    struct Line {
        var text: String
        var box: Box
    }

    static func group(_ words: [OCRWord]) -> [Line] {
        let sorted = words.filter { $0.box.height > 0 }.sorted { $0.box.centerY < $1.box.centerY }
        var rows: [[OCRWord]] = []
        for word in sorted {
            if let last = rows.indices.last, let anchor = rows[last].first,
               abs(word.box.centerY - rows[last].map(\.box.centerY).reduce(0, +) / Double(rows[last].count))
                < Double(max(anchor.box.height, word.box.height)) * 0.5 {
                rows[last].append(word)
            } else {
                rows.append([word])
            }
        }
        var lines: [Line] = []
        for row in rows {
            let ordered = row.sorted { $0.box.x0 < $1.box.x0 }
            var current: [OCRWord] = []
            for word in ordered {
                // A gap wider than four text heights is another column's line.
                if let previous = current.last, word.box.x0 - previous.box.x1 > 4 * max(previous.box.height, word.box.height) {
                    lines.append(line(of: current))
                    current = []
                }
                current.append(word)
            }
            if !current.isEmpty { lines.append(line(of: current)) }
        }
        return lines
    }

    private static func line(of words: [OCRWord]) -> Line {
        Line(text: words.map(\.text).joined(separator: " "),
             box: words.dropFirst().reduce(words[0].box) { $0.union($1.box) })
    }
}

extension Box {
    func scaled(by factor: Double) -> Box {
        Box(x0: Int((Double(x0) * factor).rounded(.down)), y0: Int((Double(y0) * factor).rounded(.down)),
            x1: Int((Double(x1) * factor).rounded(.up)), y1: Int((Double(y1) * factor).rounded(.up)))
    }
}
