import Foundation
import Imaging
import Testing
import TestSupport
@testable import SpineOCR

/// Spines first, on the hard shelves scripts/generate-shelf-images renders (SampleImages/shelves-hard:
/// 55–71 narrow spines a row, many read bottom-to-top, call-number labels, some leaning), whose
/// labels.json gives every spine's four corners in the photo.
@Suite struct HardShelfSegmentationTests {
    struct Labels: Decodable {
        struct Book: Decodable {
            var title: String
            var author: String?
            var orientation: String
            /// Top-left, top-right, bottom-right, bottom-left, in the photo's pixels.
            var quad: [[Double]]
        }
        var books: [Book]
        var split: String
    }

    static let folder = SharedFiles.sampleImages.appendingPathComponent("shelves-hard")

    static func labels() throws -> [String: Labels] {
        try JSONDecoder().decode([String: Labels].self, from: Data(contentsOf: folder.appendingPathComponent("labels.json")))
    }

    /// The x range a spine's quad covers at height y (nil above or below it).
    static func span(_ quad: [[Double]], atY y: Double) -> ClosedRange<Double>? {
        let top = min(quad[0][1], quad[1][1]), bottom = max(quad[2][1], quad[3][1])
        guard top <= y, y <= bottom else { return nil }
        func along(_ a: [Double], _ b: [Double]) -> Double { a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0]) }
        return along(quad[0], quad[3])...along(quad[1], quad[2])
    }

    /// Overlap over the wider of the two ranges: 1 when they are the same.
    static func overlap(_ a: ClosedRange<Double>, _ b: ClosedRange<Double>) -> Double {
        max(0, min(a.upperBound, b.upperBound) - max(a.lowerBound, b.lowerBound))
            / max(a.upperBound - a.lowerBound, b.upperBound - b.lowerBound)
    }

    /// The strip finder on a checking-half shelf: most labelled standing spines get a strip that
    /// covers them (overlap ≥ half of both at the strip's middle), and few strips lie on no spine.
    @Test func stripsCoverTheLabelledSpines() throws {
        let name = "hard-03.jpg"
        let shelf = try #require(try Self.labels()[name])
        #expect(shelf.split == "checking")
        let ocr = try ShelfOCR(options: TesseractOptions())
        let original = try ocr.decode(data: Data(contentsOf: Self.folder.appendingPathComponent(name)), name: name)
        let image = try ocr.workingImage(original, name: name)
        let scale = Double(image.width) / Double(original.width)
        let strips = SpineStrips.spineStrips(in: image, followsLean: ocr.options.stripsFollowLean)
        let standing = shelf.books.filter { $0.orientation != "flat" }
        #expect(standing.count >= 60)
        var covered = Set<Int>(), stray = 0
        for strip in strips {
            let y = Double(strip.box.y0 + strip.box.y1) / 2 / scale
            let found = Double(strip.box.x0) / scale...Double(strip.box.x1) / scale
            let best = standing.indices.filter { !covered.contains($0) }
                .compactMap { index in Self.span(standing[index].quad, atY: y).map { (index, Self.overlap(found, $0)) } }
                .max { $0.1 < $1.1 }
            if let best, best.1 >= 0.5 { covered.insert(best.0) } else { stray += 1 }
        }
        #expect(Double(covered.count) >= 0.7 * Double(standing.count), "\(covered.count) of \(standing.count) spines covered by a strip")
        #expect(Double(stray) <= 0.2 * Double(strips.count), "\(stray) of \(strips.count) strips on no spine")
    }

    /// Page-pass groups in one strip are one reading (title and author far apart along a spine),
    /// groups in two strips stay two.
    @Test func groupsInOneStripAreJoined() {
        func word(_ text: String, _ x: Int, _ y: Int) -> OCRWord {
            OCRWord(text: text, confidence: 90, box: Box(x0: x, y0: y, x1: x + 50, y1: y + 20), isDictionaryWord: true, line: 0)
        }
        // Turned frame: a spine is a band of y. Strip 0: y < 40, strip 1: 40..<80, none below.
        let strip = { (box: Box) -> Int? in box.y0 < 40 ? 0 : (box.y0 < 80 ? 1 : nil) }
        let groups = [[word("Jo", 0, 0), word("confesso", 60, 0)], [word("Stoner", 0, 45)], [word("Cabré", 600, 5)],
                      [word("Williams", 600, 50)], [word("loose", 0, 200)]]
        #expect(SpineGrouping.joined(groups, by: strip).map { $0.map(\.text) }
                == [["Jo", "confesso", "Cabré"], ["Stoner", "Williams"], ["loose"]])
        // A group whose words lie in two strips is not joined to either.
        let straddling = [[word("Jo", 0, 0)], [word("half", 0, 10), word("other", 60, 50)]]
        #expect(SpineGrouping.joined(straddling, by: strip).count == 2)
    }

    /// Strips PP-OCR read confidently wait for the others in each round: over budget, an unread
    /// spine is not the one skipped.
    @Test func confidentlyReadStripsComeLastInEachRound() throws {
        let strips = (0..<3).map { SpineStrip(Box(x0: $0 * 50, y0: 0, x1: $0 * 50 + 40, y1: 400)) }
        let ocr = try ShelfOCR(options: TesseractOptions())
        let order = ocr.stripWork(strips, later: [0]).compactMap { work -> String? in
            guard case .strip(_, let number, let firstRound) = work else { return nil }
            return "\(number)\(firstRound ? "a" : "b")"
        }
        #expect(order == ["1a", "2a", "0a", "1b", "2b", "0b"])
    }

    /// A bottom-to-top Spanish spine from a checking-half shelf, read upright by real Tesseract: the
    /// strip around its quad read in both spine directions gives its title, and from the 90° turn
    /// (bottom-to-top text turned clockwise reads left to right), not the 270° one.
    @Test func aBottomToTopSpineIsReadUpright() throws {
        let name = "hard-03.jpg"
        let shelf = try #require(try Self.labels()[name])
        let titles = ["El coronel no tiene quien le escriba", "Conversación en La Catedral", "Corazón tan blanco"]
        let book = try #require(shelf.books.first { titles.contains($0.title) && $0.orientation == "up" },
                                "no bottom-to-top spine of \(titles) in \(name)")
        var options = TesseractOptions(deadlineMilliseconds: 0)
        options.budgetMilliseconds = 0
        let ocr = try ShelfOCR(options: options)
        let original = try ocr.decode(data: Data(contentsOf: Self.folder.appendingPathComponent(name)), name: name)
        let image = try ocr.workingImage(original, name: name)
        let scale = Double(image.width) / Double(original.width)
        let q = book.quad.map { $0.map { Int(($0 * scale).rounded()) } }
        let (top, bottom) = (max(q[0][1], q[1][1]), min(q[2][1], q[3][1]))
        let strip = SpineStrip(y0: top, y1: bottom, leftTop: q[0][0], leftBottom: q[3][0], rightTop: q[1][0], rightBottom: q[2][0],
                               box: Box(x0: (q[0][0] + q[3][0]) / 2, y0: top, x1: (q[1][0] + q[2][0]) / 2, y1: bottom))
        let engine = try TesseractEngine(options: options)
        let passes = ocr.readStrip(strip, in: image, rotations: [.clockwise270, .clockwise90], engine: engine, overBudget: { false },
                                   readsUpright: false)
        let fold = { (text: String) in text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        let titleWords = book.title.split(separator: " ").map { fold(String($0)) }.filter { $0.count >= 6 }
        let readings = passes.compactMap { pass in ocr.stripSpine(pass).map { (pass.rotation, $0.text) } }
        let reading = readings.first { reading in titleWords.contains { fold(reading.1).contains($0) } }
        #expect(reading?.0 == .clockwise90, "'\(book.title)' (bottom-to-top) read as \(readings)")
    }
}
