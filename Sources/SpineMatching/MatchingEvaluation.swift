import Foundation
import Vision

/// The matching table (scripts/generate-spine-matching-table) and the goodbooks catalogue,
/// loaded for the test and the benchmark, and the figures both report.
public struct MatchingTable: Sendable {
    public struct Row: Sendable, Hashable {
        public var id: Int
        public var kind: String
        public var reading: SpineReading
        /// The goodreads id of the book read, or nil when the reading is of no catalogued book.
        public var expectedWork: String?
        public var expected: MatchDecision
    }

    public var rows: [Row]
    public var catalogue: [MatchCandidate]

    public init(rows: [Row], catalogue: [MatchCandidate]) {
        self.rows = rows
        self.catalogue = catalogue
    }

    public static func load(table: URL, goodbooks: URL) throws -> MatchingTable {
        let books = try CSV.records(URL: goodbooks)
        let catalogue = books.compactMap { book -> MatchCandidate? in
            guard let id = book["goodreads_book_id"], let title = book["title"] else { return nil }
            let isbn = book["isbn13"].flatMap { $0.count == 13 && $0.allSatisfy(\.isNumber) ? $0 : nil }
            let authors = (book["authors"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return MatchCandidate(workKey: id, title: title, authors: authors, isbn13: isbn, source: "table")
        }
        let rows = try CSV.records(URL: table).compactMap { row -> Row? in
            func field(_ name: String) -> String? { row[name].flatMap { $0.isEmpty ? nil : $0 } }
            guard let id = field("id").flatMap(Int.init), let expected = field("expected").flatMap(MatchDecision.init) else { return nil }
            let reading = SpineReading(text: row["text"] ?? "", title: field("title"), author: field("author"),
                                       series: field("series"), volume: field("volume"))
            return Row(id: id, kind: field("kind") ?? "", reading: reading, expectedWork: field("expectedWork"), expected: expected)
        }
        return MatchingTable(rows: rows, catalogue: catalogue)
    }

    /// Matches every row against an index of the catalogue.
    public func evaluate(_ matcher: SpineMatcher, index: WorkIndex) -> MatchingReport {
        var report = MatchingReport()
        let byKey = Dictionary(catalogue.map { ($0.workKey, $0) }, uniquingKeysWith: { first, _ in first })
        for row in rows {
            let match = matcher.match(row.reading, index: index)
            report.record(row, match, expected: row.expectedWork.flatMap { byKey[$0] })
        }
        return report
    }
}

/// Precision and recall over a matching table.
public struct MatchingReport: Sendable {
    public var readings = 0
    public var strong = 0
    public var strongCorrect = 0
    public var catalogued = 0
    /// Readings of catalogued books ending strong or medium on the right book.
    public var cataloguedFound = 0
    public var inventedStrong = 0
    public var wrongVolumeStrong = 0
    public var authorOnlyMatched = 0
    /// Rows whose decision equals the table's.
    public var agreeing = 0
    /// Every strong match on the wrong book, for the test's message.
    public var wrongStrong: [String] = []
    public var byKind: [String: (rows: Int, agreeing: Int)] = [:]
    /// Rows decided otherwise than the table says (for tuning, printed by the benchmark with -v).
    public var disagreements: [String] = []

    public var strongPrecision: Double { strong == 0 ? 1 : Double(strongCorrect) / Double(strong) }
    public var cataloguedRecall: Double { catalogued == 0 ? 1 : Double(cataloguedFound) / Double(catalogued) }

    mutating func record(_ row: MatchingTable.Row, _ match: SpineMatch, expected: MatchCandidate?) {
        readings += 1
        let correct = match.best.map { best in expected.map { Self.sameBook(best, $0) } ?? false } ?? false
        if match.decision == .strong {
            strong += 1
            if correct { strongCorrect += 1 } else {
                wrongStrong.append("#\(row.id) \(row.kind) \"\(row.reading.text)\" -> \(match.best?.title ?? "?") (\(String(format: "%.3f", match.distance)))")
            }
            if row.kind == "invented" { inventedStrong += 1 }
            if row.kind == "wrongVolume" { wrongVolumeStrong += 1 }
        }
        if row.kind == "authorOnly", match.decision != .none { authorOnlyMatched += 1 }
        if expected != nil {
            catalogued += 1
            if correct, match.decision != .none { cataloguedFound += 1 }
        }
        let agrees = match.decision == row.expected && (expected == nil || correct || match.decision == .none)
        if agrees { agreeing += 1 } else {
            disagreements.append("#\(row.id) \(row.kind) \"\(row.reading.title ?? row.reading.text)\" / \(row.reading.author ?? "-") expected \(row.expected.rawValue) got \(match.decision.rawValue) \(String(format: "%.3f", match.distance)) -> \(match.best?.title ?? "nil") / \(match.best?.authors.first ?? "") \(match.reason ?? "")")
        }
        var kind = byKind[row.kind] ?? (0, 0)
        kind.rows += 1
        if agrees { kind.agreeing += 1 }
        byKind[row.kind] = kind
    }

    /// Two catalogue rows of one book (goodbooks lists some books twice).
    static func sameBook(_ a: MatchCandidate, _ b: MatchCandidate) -> Bool {
        a.workKey == b.workKey || (PreparedCandidate(a).identity == PreparedCandidate(b).identity)
    }

    public var summary: String {
        var lines = [
            "readings: \(readings)",
            "strong: \(strong), correct \(strongCorrect), precision \(String(format: "%.4f", strongPrecision))",
            "catalogued readings strong-or-medium on the right book: \(cataloguedFound)/\(catalogued) = \(String(format: "%.4f", cataloguedRecall))",
            "invented titles added (strong): \(inventedStrong); wrong volumes strong: \(wrongVolumeStrong); author names matched: \(authorOnlyMatched)",
            "decisions agreeing with the table: \(agreeing)/\(readings)",
        ]
        for (kind, counts) in byKind.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(kind): \(counts.agreeing)/\(counts.rows) as expected")
        }
        return lines.joined(separator: "\n")
    }
}

/// RFC 4180 CSV (quoted fields, doubled quotes, newlines inside quotes) with a header row.
enum CSV {
    static func records(URL url: URL) throws -> [[String: String]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows = parse(text)
        guard !rows.isEmpty else { return [] }
        let header = rows.removeFirst()
        return rows.filter { $0.count > 1 }.map { fields in
            var record: [String: String] = [:]
            for (index, name) in header.enumerated() where index < fields.count { record[name] = fields[index] }
            return record
        }
    }

    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let c = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else { field.unicodeScalars.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field); field = ""
            } else if c == "\n" || c == "\r" {
                if c == "\r" { if let next = iterator.next(), next != "\n" { pending = next } }
                row.append(field); field = ""
                rows.append(row); row = []
            } else {
                field.unicodeScalars.append(c)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}
