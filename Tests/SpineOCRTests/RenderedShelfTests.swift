import Foundation
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

    /// goodbooks-10k (the catalogue a wrong book would come from) plus the shelves' own books.
    static func catalogue(_ manifest: [String: Manifest]) throws -> OCRTextMatch {
        var books: [KnownBook] = manifest.values.flatMap { $0.books.map { KnownBook(id: $0.id, title: $0.title, author: $0.author) } }
        if let url = SharedFiles.fixture("catalogue/goodbooks-10k-books.csv") {
            books += try CatalogueCSV.books(at: url)
        }
        return OCRTextMatch(books: books)
    }

    @Test func readsMostSpinesAndAddsNoWrongBook() async throws {
        let manifest = try Self.manifest()
        let matcher = try Self.catalogue(manifest)
        let reader = try TesseractSpineReader()
        var expected = 0, found = 0, wrong: [String] = []
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
                let result = matcher.match(spine.text)
                guard result.decision != .none, let book = result.book else { continue }
                if let index = open.firstIndex(where: { OCRTextMatch.letters($0.title) == OCRTextMatch.letters(book.title) }) {
                    foundByOrientation[open[index].orientation, default: 0] += 1
                    open.remove(at: index)
                    found += 1
                } else if result.decision == .strong {
                    // Strong to a book not on the shelf, or a second reading of a spine already counted.
                    wrong.append("\(name): '\(spine.text)' -> \(book.title)")
                }
            }
            expected += shelf.books.count
        }
        let recall = Double(found) / Double(expected)
        #expect(recall >= 0.6, "found \(found) of \(expected) spines")
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
    static func books(at url: URL) throws -> [KnownBook] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var books: [KnownBook] = []
        for (index, line) in text.split(separator: "\n").enumerated() where index > 0 {
            let fields = fields(String(line))
            guard fields.count >= 4 else { continue }
            books.append(KnownBook(id: fields[0], title: fields[1], author: fields[3]))
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
