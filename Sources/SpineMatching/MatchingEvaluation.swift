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
        let catalogue = try goodbooksCatalogue(goodbooks)
        let rows = try CSV.records(URL: table).compactMap { row -> Row? in
            func field(_ name: String) -> String? { row[name].flatMap { $0.isEmpty ? nil : $0 } }
            guard let id = field("id").flatMap(Int.init), let expected = field("expected").flatMap(MatchDecision.init) else { return nil }
            let reading = SpineReading(text: row["text"] ?? "", title: field("title"), author: field("author"),
                                       series: field("series"), volume: field("volume"))
            return Row(id: id, kind: field("kind") ?? "", reading: reading, expectedWork: field("expectedWork"), expected: expected)
        }
        return MatchingTable(rows: rows, catalogue: catalogue)
    }

    /// The goodbooks-10k works (goodreads id as the work key).
    public static func goodbooksCatalogue(_ goodbooks: URL) throws -> [MatchCandidate] {
        try CSV.records(URL: goodbooks).compactMap { book -> MatchCandidate? in
            guard let id = book["goodreads_book_id"], let title = book["title"] else { return nil }
            let isbn = book["isbn13"].flatMap { $0.count == 13 && $0.allSatisfy(\.isNumber) ? $0 : nil }
            let authors = (book["authors"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return MatchCandidate(workKey: id, title: title, authors: authors, isbn13: isbn, source: "table")
        }
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

/// How distinctive catalogue titles are, measured on the catalogue itself: every work's title
/// is read as OCR text and compared with its candidates' titles; a work whose whole title lies
/// in another book's title (different title, different author) within the title part of the
/// strong distance is one a spine of that other book, its author unread, could be taken for. Counted by the title's shape (significant
/// words, their letters): the threshold of `SpineMatcher.standsAlone` comes from this table.
public enum TitleDistinctiveness {
    public struct Bucket: Sendable, Hashable {
        public var words: Int
        public var letters: ClosedRange<Int>
        public var titles = 0
        public var confused = 0
        public var examples: [String] = []
        /// A Chinese or Japanese title: `letters` counts its characters (a Latin word two), `words` is 0.
        public var ideographic = false
    }

    static let letterBands: [ClosedRange<Int>] = [0...7, 8...11, 12...15, 16...Int.max]
    /// Chinese and Japanese titles by characters.
    static let ideographBands: [ClosedRange<Int>] = [1...2, 3...3, 4...4, 5...5, 6...6, 7...Int.max]
    /// 0.75 · (1 − title similarity) within this: the title as close as a strong match's with its author read.
    static let titleStrongDistance = 0.075

    public static func measure(_ index: WorkIndex, matcher: SpineMatcher = SpineMatcher()) -> [Bucket] {
        var confused: [String: String] = [:]
        for work in index.works {
            let reading = ParsedReading(SpineReading(text: work.candidate.title, confidence: 0.9))
            guard reading.refusal == nil else { continue }
            for candidate in index.candidates(for: reading.query, limit: matcher.candidateLimit)
            where candidate.identity != work.identity && candidate.parts.full != work.parts.full
                && candidate.surnames.first != work.surnames.first {
                // The title part of the distance alone (the author unread costs every title the same):
                // the candidate's whole title found in the other title, its words nearly exact.
                let run = Similarity.bestRun(reading.title.full, candidate.parts.full)
                if run.complete, 0.75 * (1 - run.score) <= titleStrongDistance {
                    confused[candidate.identity] = confused[candidate.identity] ?? work.candidate.title
                }
            }
        }
        var buckets: [Bucket] = []
        for words in 1...3 {
            for letters in letterBands { buckets.append(Bucket(words: words, letters: letters)) }
        }
        for characters in ideographBands { buckets.append(Bucket(words: 0, letters: characters, ideographic: true)) }
        var seen = Set<String>()
        for work in index.works where seen.insert(work.identity).inserted {
            let significant = work.parts.full.filter { !TextNormalizer.stopwords.contains($0) }
            guard !significant.isEmpty else { continue }
            let slot: Int?
            if let size = SpineMatcher.ideographicSize(significant) {
                slot = buckets.firstIndex { $0.ideographic && $0.letters.contains(size) }
            } else {
                let letters = significant.reduce(0) { $0 + $1.count }
                slot = buckets.firstIndex { !$0.ideographic && $0.words == min(3, significant.count) && $0.letters.contains(letters) }
            }
            guard let slot else { continue }
            buckets[slot].titles += 1
            if let other = confused[work.identity] {
                buckets[slot].confused += 1
                if buckets[slot].examples.count < 3 { buckets[slot].examples.append("\(work.candidate.title) <- \(other)") }
            }
        }
        return buckets
    }

    public static func summary(_ buckets: [Bucket]) -> String {
        buckets.map { bucket in
            let band = bucket.letters.upperBound == Int.max ? "\(bucket.letters.lowerBound)+" : "\(bucket.letters.lowerBound)-\(bucket.letters.upperBound)"
            let share = 100 * Double(bucket.confused) / Double(max(1, bucket.titles))
            let shape = bucket.ideographic ? "Chinese/Japanese, \(band) characters"
                : "\(bucket.words == 3 ? "3+" : "\(bucket.words)") significant word\(bucket.words == 1 ? "" : "s"), \(band) letters"
            return String(format: "  %@: %d titles, %d (%.1f%%) within strong distance of another book's title",
                          shape, bucket.titles, bucket.confused, share)
                + (bucket.examples.isEmpty ? "" : "  e.g. " + bucket.examples.joined(separator: "; "))
        }.joined(separator: "\n")
    }
}

/// Junk readings from shelves (call numbers, library labels, publishers, the label of issue 35,
/// readings of the real shelf photo that holds no readable title) that must never be added as a
/// book: matched against the goodbooks catalogue plus the labelled shelves' books. A row may hold
/// several readings of one spine separated by " | " (what different passes read: the first is the
/// reading, the others its alternatives), so readings agreeing are trapped too.
public struct TrapTable: Sendable {
    public struct Row: Sendable, Hashable {
        public var kind: String
        public var text: String

        /// The spine's readings as the reader gives them: the first, then the others as alternatives.
        public var reading: SpineReading {
            let readings = text.components(separatedBy: " | ")
            return SpineReading(text: readings[0], confidence: 0.9, alternatives: Array(readings.dropFirst()))
        }
    }

    public var rows: [Row]
    public var catalogue: [MatchCandidate]

    /// `shelves`: labels.json of the real shelf photos; their books join the catalogue with a
    /// stand-in ISBN, so a trap reading could be added as one of them.
    public static func load(traps: URL, goodbooks: URL, shelves: URL?) throws -> TrapTable {
        // A work goodbooks lists without an ISBN gets a stand-in: a network source answers with one
        // (issue 35's "14" by Peter Clines came from one), and a trap must be able to be added.
        var catalogue = try MatchingTable.goodbooksCatalogue(goodbooks).map { work in
            var work = work
            if work.isbn13 == nil { work.isbn13 = "stand-in" }
            return work
        }
        if let shelves {
            struct Shelf: Decodable {
                struct Book: Decodable { var title: String; var author: String? }
                var books: [Book]
            }
            let labels = try JSONDecoder().decode([String: Shelf].self, from: Data(contentsOf: shelves))
            for (photo, shelf) in labels.sorted(by: { $0.key < $1.key }) {
                for book in shelf.books {
                    catalogue.append(MatchCandidate(workKey: "\(photo):\(book.title)", title: book.title,
                                                    authors: book.author.map { [$0] } ?? [], isbn13: "label", source: "shelves"))
                }
            }
        }
        let rows = try CSV.records(URL: traps).compactMap { row -> Row? in
            guard let text = row["text"], !text.isEmpty else { return nil }
            return Row(kind: row["kind"] ?? "", text: text)
        }
        return TrapTable(rows: rows, catalogue: catalogue)
    }

    /// Every trap reading matched strongly, or holding a further title matched strongly: "kind "text" -> title (distance)".
    public func falseStrongMatches(_ matcher: SpineMatcher, index: WorkIndex) -> [String] {
        rows.compactMap { row in
            // A further title the reading holds (`alsoHeld`) is added as a book too.
            let whole = matcher.match(row.reading, index: index)
            guard let match = ([whole] + whole.alsoHeld).first(where: { $0.decision == .strong }) else { return nil }
            return "\(row.kind) \"\(row.text)\" -> \(match.best?.title ?? "?") / \(match.best?.authors.first ?? "-") (\(String(format: "%.3f", match.distance)))"
        }
    }

    /// Trap readings matched for review (not wrong, but a suggestion a person has to reject).
    public func reviewMatches(_ matcher: SpineMatcher, index: WorkIndex) -> Int {
        rows.filter { matcher.match($0.reading, index: index).decision == .medium }.count
    }
}
