import Foundation
import SpineMatching
import Testing
import TestSupport
import Vision
@testable import SpineOCR

/// The provider on real bytes: shelves scripts/generate-shelf-images rendered from real
/// goodbooks-10k titles (SampleImages/shelves, manifest.json lists every spine).
@Suite(.serialized) struct RenderedShelfTests {
    struct Manifest: Decodable {
        struct Book: Decodable { var id: String; var title: String; var author: String; var orientation: String }
        var rows: Int
        var books: [Book]
    }

    static let folder = SharedFiles.sampleImages.appendingPathComponent("shelves")

    static func manifest() throws -> [String: Manifest] {
        try JSONDecoder().decode([String: Manifest].self,
                                 from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
    }

    /// goodbooks-10k (the catalogue a wrong book would come from; every rendered book is in it).
    static func catalogue() throws -> WorkIndex {
        try SharedFiles.requireShared()
        let url = try #require(SharedFiles.fixture("catalogue/goodbooks-10k-books.csv"), "\(SharedFiles.missingMessage)")
        return WorkIndex(try CatalogueCSV.books(at: url))
    }

    static func key(_ title: String) -> String {
        title.replacingOccurrences(of: #"\s*\([^)]*\)\s*$"#, with: "", options: .regularExpression)
            .lowercased().filter { $0.isLetter || $0.isNumber }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func readsMostSpinesAndAddsNoWrongBook() async throws {
        let manifest = try Self.manifest()
        let index = try Self.catalogue()
        let matcher = SpineMatcher()
        // No cuts: every pass and strip is read.
        var options = TesseractOptions(deadlineMilliseconds: 0)
        options.budgetMilliseconds = 0
        let reader = try TesseractSpineReader(options: options)
        var expected = 0, found = 0, strong = 0, wrong: [String] = []
        var foundByOrientation: [String: Int] = [:]
        for name in manifest.keys.sorted() {
            let shelf = manifest[name]!
            let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            let reading = try await reader.readSpines(in: ShelfPhoto(path: name, data: data))
            #expect(reading.usage == TokenUsage())
            #expect(reading.readings.allSatisfy { $0.title == nil && $0.author == nil && !$0.text.isEmpty })
            #expect(reading.readings.map(\.position) == reading.readings.indices.map { Optional($0) })
            var open = shelf.books
            for spine in reading.readings {
                // The spine matcher takes OCR text as it comes: no title/author split, either order.
                let result = matcher.match(spine, index: index)
                guard result.decision != .none, let book = result.best else { continue }
                if let position = open.firstIndex(where: { Self.key($0.title) == Self.key(book.title) }) {
                    foundByOrientation[open[position].orientation, default: 0] += 1
                    open.remove(at: position)
                    found += 1
                    if result.decision == .strong { strong += 1 }
                } else if result.decision == .strong {
                    // Strong to a book not on the shelf, or a second reading of a spine already counted.
                    wrong.append("\(name): '\(spine.text)' -> \(book.title)")
                }
            }
            expected += shelf.books.count
        }
        let recall = Double(found) / Double(expected)
        #expect(recall >= 0.7, "found \(found) of \(expected) spines")
        #expect(strong * 2 > found, "\(strong) of \(found) strong")
        #expect(wrong.isEmpty, "wrong or doubled: \(wrong)")
        // Both reading directions and books lying flat are read.
        #expect(foundByOrientation["down", default: 0] > 10)
        #expect(foundByOrientation["up", default: 0] > 3)
        #expect(foundByOrientation["flat", default: 0] >= 2)
    }

    @Test func shelfRowsAreNumberedTopToBottom() throws {
        let manifest = try Self.manifest()
        let name = try #require(manifest.keys.sorted().first { manifest[$0]!.rows == 2 })
        let ocr = try ShelfOCR()
        let shelf = try ocr.read(data: Data(contentsOf: Self.folder.appendingPathComponent(name)), name: name)
        let rows = shelf.spines.map(\.row)
        #expect(Set(rows) == [0, 1])
        #expect(rows == rows.sorted())
        // Within a row, left to right.
        for row in [0, 1] {
            let xs = shelf.spines.filter { $0.row == row }.map(\.box.x0)
            #expect(xs == xs.sorted())
        }
    }
}

/// The catalogue CSV's title and authors columns (quoted fields may hold commas).
enum CatalogueCSV {
    static func books(at url: URL) throws -> [MatchCandidate] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var books: [MatchCandidate] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() where index > 0 {
            let fields = fields(String(line))
            guard fields.count >= 8 else { continue }
            books.append(MatchCandidate(workKey: fields[0], title: fields[1],
                                        authors: fields[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                                        isbn13: fields[7].isEmpty ? nil : fields[7], source: "goodbooks-10k"))
        }
        return books
    }

    static func fields(_ line: String) -> [String] {
        var fields: [String] = [], field = "", quoted = false
        for character in line {
            if character == "\"" { quoted.toggle() } else if character == ",", !quoted { fields.append(field); field = "" } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
