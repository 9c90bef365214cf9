import BookCodes
import BookMetadata
import CSV
import Catalogue
import Foundation

/// The import formats, detected from a file's content (`--format` forces one).
public enum ImportFormat: String, Sendable, CaseIterable {
    case isbnList = "isbns"
    case goodreads
    case storygraph
    case libib
    case librarythingTSV = "librarything"
    case librarythingJSON = "librarything-json"
    case calibre
    case rapidscanJSON = "json"

    public static func detect(_ text: String) -> ImportFormat {
        let head = text.prefix(4096)
        let trimmed = head.drop(while: \.isWhitespace)
        if trimmed.hasPrefix("{") {
            // Keys are sorted in rapidscan's export, so its marker may come after the arrays.
            return text.contains("\"rapidscanExport\"") ? .rapidscanJSON : .librarythingJSON
        }
        if trimmed.hasPrefix("[") { return .calibre }
        let firstLine = head.prefix { $0 != "\n" && $0 != "\r" }
        if firstLine.contains("Exclusive Shelf") && firstLine.contains("Book Id") { return .goodreads }
        if firstLine.contains("ISBN/UID") && firstLine.contains("Read Status") { return .storygraph }
        if firstLine.contains("ean_isbn13") && firstLine.contains("item_type") { return .libib }
        if firstLine.contains("\t") && firstLine.contains("Primary Author") { return .librarythingTSV }
        return .isbnList
    }

    /// The format of a file: from its start, and for a JSON document from the whole of it
    /// (keys are sorted in rapidscan's export, so its marker may come after the arrays).
    public static func detect(_ file: ImportText) throws(ImportError) -> ImportFormat {
        let head = try file.head()
        guard head.drop(while: \.isWhitespace).hasPrefix("{") else { return detect(head) }
        return detect(try file.wholeText())
    }

    /// The file's rows in order, read as a stream (memory stays at a row, whatever the file's
    /// size; a JSON document is held whole). Rows that cannot be used come as bad rows.
    public func rows(_ file: ImportText) throws(ImportError) -> ImportRowReader {
        switch self {
        case .isbnList: return try ISBNListParser.rows(file)
        case .goodreads: return try TableParser.rows(file, format: self, mapping: GoodreadsMapping())
        case .storygraph: return try TableParser.rows(file, format: self, mapping: StoryGraphMapping())
        case .libib: return try TableParser.rows(file, format: self, mapping: LibibMapping())
        case .librarythingTSV: return try TableParser.rows(file, format: self, mapping: LibraryThingMapping(), delimiter: "\t")
        case .librarythingJSON, .calibre: return try JSONImportParser.rows(file, format: self)
        case .rapidscanJSON: throw .malformed(file.path, "a rapidscan JSON export is restored with its own reader")
        }
    }

    /// All the file's rows at once (a small file; `rows(_:)` streams).
    public func parse(_ file: ImportText) throws(ImportError) -> ParsedImport {
        var reader = try rows(file)
        var parsed = ParsedImport(format: self, rows: [], badRows: [])
        while let entry = try reader.next() {
            switch entry {
            case let .row(row): parsed.rows.append(row)
            case let .bad(bad): parsed.badRows.append(bad)
            }
        }
        return parsed
    }

    /// Counts the file's rows without holding them: `done` are lines an earlier run finished;
    /// `shouldStop` (Ctrl-C) ends the count early, with what was counted.
    public func tally(_ file: ImportText, done: Set<Int>, shouldStop: () -> Bool = { false }) throws(ImportError) -> ImportTally {
        var reader = try rows(file)
        var tally = ImportTally()
        while tally.rows % 1024 != 0 || !shouldStop(), let entry = try reader.next() {
            switch entry {
            case let .row(row):
                tally.rows += 1
                if row.isOwned && !done.contains(row.line) { tally.ownedToDo += 1 }
            case .bad: tally.badRows += 1
            }
        }
        return tally
    }
}

/// What a file holds, counted before it is imported.
public struct ImportTally: Sendable, Hashable {
    public var rows = 0
    public var badRows = 0
    /// Owned rows an earlier run of the same file did not finish.
    public var ownedToDo = 0

    public init() {}
}

/// A file's rows in order, read on demand. What is stored holds no terminal control
/// (`ImportRow.cleaned`).
public struct ImportRowReader {
    public enum Entry: Sendable {
        case row(ImportRow)
        case bad(BadRow)
    }

    private let produce: () throws(ImportError) -> Entry?
    private var ended = false

    init(_ produce: @escaping () throws(ImportError) -> Entry?) { self.produce = produce }

    /// Entries already in memory (a JSON document's).
    init(entries: [Entry]) {
        var iterator = entries.makeIterator()
        self.init { () throws(ImportError) -> Entry? in iterator.next() }
    }

    /// The next row or bad row; nil at the end (and after it).
    public mutating func next() throws(ImportError) -> Entry? {
        guard !ended else { return nil }
        guard let entry = try produce() else { ended = true; return nil }
        if case let .row(row) = entry { return .row(row.cleaned) }
        return entry
    }
}

/// A CSV/TSV file's records read from its lines, each with the line it starts on: a quoted
/// cell may hold line breaks, so a record runs until no quoted cell is open (the same rules as
/// CSV.swift, which parses each record). A quoted cell still open after `longestLine` bytes
/// ends the file with its line named.
struct CSVRecords {
    private var lines: ImportLines
    let path: String
    let delimiter: UnicodeScalar

    init(_ file: ImportText, delimiter: UnicodeScalar) throws(ImportError) {
        lines = try file.lines()
        path = file.path
        self.delimiter = delimiter
    }

    /// The next record's fields as written (a blank line is `[""]`).
    mutating func next() throws(ImportError) -> (line: Int, fields: [String])? {
        var record = ""
        var start: Int?
        var quotes = QuoteState(delimiter: UInt8(truncatingIfNeeded: delimiter.value))
        while let line = try lines.next() {
            if start == nil { start = line.number }
            record += line.text
            quotes.read(line.text.utf8)
            guard quotes.isOpen else { break }
            // The line break belongs to the quoted cell.
            record += line.terminator
            quotes.readLineBreak()
            if record.utf8.count > ImportText.longestLine {
                throw .malformed(path, "line \(start ?? line.number): a quoted cell is not closed within \(ImportText.longestLine >> 20) MB "
                    + "(a stray '\"'?); the rest of the file is not read")
            }
        }
        guard let start else { return nil }
        if record.isEmpty { return (start, [""]) }
        let reader: CSVReader
        do { reader = try CSVReader(string: record, hasHeaderRow: false, trimFields: false, delimiter: delimiter) } catch {
            throw .malformed(path, "line \(start): cannot be read as CSV: \(error)")
        }
        return (start, reader.next() ?? [""])
    }

    /// Whether a quoted cell is open, following CSV.swift's reading (fields not trimmed): a
    /// quote opens a cell only at its start; inside, `""` is a quote and a quote before the
    /// delimiter or the line's end closes it.
    struct QuoteState {
        let delimiter: UInt8
        private var atCellStart = true
        private var inQuotes = false
        private var afterQuote = false

        init(delimiter: UInt8) { self.delimiter = delimiter }

        /// Open at a line's end: a quote just before the break closes the cell.
        var isOpen: Bool { inQuotes && !afterQuote }

        mutating func read(_ bytes: Substring.UTF8View) {
            for byte in bytes {
                if inQuotes {
                    if afterQuote {
                        afterQuote = false
                        if byte == delimiter { (inQuotes, atCellStart) = (false, true) }
                    } else if byte == UInt8(ascii: "\"") {
                        afterQuote = true
                    }
                } else if atCellStart && byte == UInt8(ascii: "\"") {
                    (inQuotes, atCellStart) = (true, false)
                } else {
                    atCellStart = byte == delimiter
                }
            }
        }

        mutating func readLineBreak() { afterQuote = false }
    }
}

/// Table rows from CSV records: the header (the first record, when on line 1), then the rows
/// that hold anything, with the cells our exports protected against formula injection read
/// back as written.
struct CSVTable {
    private(set) var header: [String] = []
    private var records: CSVRecords
    private var pending: (line: Int, fields: [String])?

    init(_ file: ImportText, delimiter: UnicodeScalar = ",", hasHeader: Bool = true) throws(ImportError) {
        records = try CSVRecords(file, delimiter: delimiter)
        guard let first = try records.next() else { return }
        if hasHeader && first.line == 1 { header = first.fields.map { $0.trimmingCharacters(in: .whitespaces) } } else { pending = first }
    }

    mutating func next() throws(ImportError) -> (line: Int, fields: [String])? {
        while true {
            let record: (line: Int, fields: [String])
            if let held = pending { record = held } else if let read = try records.next() { record = read } else { return nil }
            pending = nil
            let fields = record.fields.map(CSVCell.unprotected)
            if fields.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            return (record.line, fields)
        }
    }

    /// A whole table in memory (tests and small files).
    static func read(_ text: String, path: String, delimiter: UnicodeScalar = ",", hasHeader: Bool = true) throws(ImportError)
        -> (header: [String], rows: [(line: Int, fields: [String])]) {
        var table = try CSVTable(ImportText(path: path, data: Data(text.utf8)), delimiter: delimiter, hasHeader: hasHeader)
        var rows: [(line: Int, fields: [String])] = []
        while let row = try table.next() { rows.append(row) }
        return (table.header, rows)
    }
}

/// One column layout: header names → an ImportRow.
protocol ColumnMapping {
    /// Columns that must be in the header.
    var required: [String] { get }
    func row(_ cell: (String) -> String, line: Int) -> Result<ImportRow, ImportRowProblem>
}

struct ImportRowProblem: Error { var reason: String }

enum TableParser {
    static func rows(_ file: ImportText, format: ImportFormat, mapping: some ColumnMapping, delimiter: UnicodeScalar = ",") throws(ImportError) -> ImportRowReader {
        var table = try CSVTable(file, delimiter: delimiter)
        let header = table.header
        let index = Dictionary(header.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = mapping.required.filter { index[$0] == nil }
        guard missing.isEmpty else { throw .malformed(file.path, "not a \(format.rawValue) file: no column \(missing.joined(separator: ", "))") }
        return ImportRowReader { () throws(ImportError) -> ImportRowReader.Entry? in
            guard let record = try table.next() else { return nil }
            let (line, fields) = record
            guard fields.count == header.count else {
                return .bad(BadRow(file: file.path, line: line, reason: "\(fields.count) columns where the header has \(header.count)"))
            }
            let cell = { (name: String) -> String in index[name].map { fields[$0].trimmingCharacters(in: .whitespaces) } ?? "" }
            switch mapping.row(cell, line: line) {
            case let .success(row): return .row(row)
            case let .failure(problem): return .bad(BadRow(file: file.path, line: line, reason: problem.reason))
            }
        }
    }

    /// The first usable ISBN of the cells; a cell that holds a broken one makes the row bad
    /// unless another cell has a good one.
    static func isbn(_ cells: [String]) -> Result<ISBN13?, ImportRowProblem> {
        var problem: String?
        for cell in cells {
            switch ISBNCell.read(cell) {
            case let .isbn(code): return .success(code)
            case .empty: continue
            case let .invalid(reason): problem = problem ?? reason
            }
        }
        if let problem { return .failure(ImportRowProblem(reason: problem)) }
        return .success(nil)
    }

    static func names(_ text: String, separators: String = ",") -> [String] {
        text.split(whereSeparator: { separators.contains($0) })
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }
    }
}

/// Goodreads' shelf names: every book is on one exclusive shelf (the three it has for
/// everyone, or one a user made exclusive, which its export also lists in Bookshelves);
/// "owned" is the shelf its users keep owned books on.
enum GoodreadsShelf {
    static let read = "read", currentlyReading = "currently-reading", toRead = "to-read"
    /// Exclusive shelves of the user's own, for the statuses Goodreads has no shelf for: an
    /// unread book that is not on Want to Read, and one the user is not interested in.
    static let unread = "unread", notInterested = "not-interested"
    static let owned = "owned"
    static let exclusive: Set = [read, currentlyReading, toRead, unread, notInterested]
}

struct GoodreadsMapping: ColumnMapping {
    let required = ["Title", "Author", "ISBN", "ISBN13", "Exclusive Shelf"]

    func row(_ cell: (String) -> String, line: Int) -> Result<ImportRow, ImportRowProblem> {
        TableParser.isbn([cell("ISBN13"), cell("ISBN")]).map { code in
            var row = ImportRow(line: line, isbn: code, title: cell("Title"))
            // "J.M.     Clarke": runs of spaces collapse.
            row.authors = TableParser.names(cell("Author")) + TableParser.names(cell("Additional Authors"))
            let shelves = TableParser.names(cell("Bookshelves"))
            let exclusive = cell("Exclusive Shelf").lowercased()
            row.isOwned = (Int(cell("Owned Copies")) ?? 0) > 0 || shelves.contains { $0.lowercased() == GoodreadsShelf.owned }
            switch exclusive {
            case GoodreadsShelf.read: (row.status, row.listType) = (.read, .completed)
            case GoodreadsShelf.currentlyReading: (row.status, row.listType) = (.reading, .toRead)
            case GoodreadsShelf.toRead: (row.status, row.listType) = (.unread, .toRead)
            case GoodreadsShelf.notInterested, "did-not-finish", "dnf", "abandoned": (row.status, row.listType) = (.notInterested, .toRead)
            default: (row.status, row.listType) = (.unread, .toRead)
            }
            // The first shelf of the user's own (not an exclusive shelf, not "owned") is the
            // book's list; "to-read" keeps it on Want to Read, as asked.
            if exclusive != GoodreadsShelf.toRead {
                row.listName = shelves.first { shelf in
                    let name = shelf.lowercased()
                    return name != exclusive && name != GoodreadsShelf.owned && !GoodreadsShelf.exclusive.contains(name)
                }
            }
            if let rating = Int(cell("My Rating")), (1...5).contains(rating) { row.rating = rating }
            row.dateRead = ImportDates.parse(cell("Date Read"))
            row.dateAdded = ImportDates.parse(cell("Date Added"))
            let notes = cell("Private Notes")
            row.notes = notes.isEmpty ? nil : notes
            return row
        }
    }
}

struct StoryGraphMapping: ColumnMapping {
    let required = ["Title", "Authors", "ISBN/UID", "Read Status"]

    func row(_ cell: (String) -> String, line: Int) -> Result<ImportRow, ImportRowProblem> {
        // ISBN/UID may be a StoryGraph id: then the row is matched by title and author.
        let uid = cell("ISBN/UID")
        let isbn: Result<ISBN13?, ImportRowProblem> = uid.contains(where: \.isLetter) && !uid.hasSuffix("X")
            ? .success(nil) : TableParser.isbn([uid])
        return isbn.map { code in
            var row = ImportRow(line: line, isbn: code, title: cell("Title"))
            row.authors = TableParser.names(cell("Authors"))
            row.isOwned = cell("Owned?").lowercased() == "yes"
            switch cell("Read Status").lowercased() {
            case "read": (row.status, row.listType) = (.read, .completed)
            case "currently-reading": (row.status, row.listType) = (.reading, .toRead)
            case "did-not-finish": (row.status, row.listType) = (.notInterested, .toRead)
            default: (row.status, row.listType) = (.unread, .toRead)
            }
            if let stars = Double(cell("Star Rating")), stars > 0 { row.rating = min(5, max(1, Int(stars.rounded()))) }
            row.dateRead = ImportDates.parse(cell("Last Date Read"))
            row.dateAdded = ImportDates.parse(cell("Date Added"))
            return row
        }
    }
}

struct LibibMapping: ColumnMapping {
    let required = ["item_type", "title", "creators", "ean_isbn13", "upc_isbn10"]

    func row(_ cell: (String) -> String, line: Int) -> Result<ImportRow, ImportRowProblem> {
        guard cell("item_type").lowercased() == "book" else {
            return .failure(ImportRowProblem(reason: "a \(OutsideText.excerpt(cell("item_type"))), not a book"))
        }
        return TableParser.isbn([cell("ean_isbn13"), cell("upc_isbn10")]).map { code in
            var row = ImportRow(line: line, isbn: code, title: cell("title"))
            row.authors = TableParser.names(cell("creators"))
            switch cell("status").lowercased() {
            case "completed": (row.status, row.listType) = (.read, .completed)
            case "in progress": (row.status, row.listType) = (.reading, .toRead)
            case "abandoned": (row.status, row.listType) = (.notInterested, .toRead)
            default: (row.status, row.listType) = (.unread, .toRead)
            }
            if let rating = Int(cell("rating")), (1...5).contains(rating) { row.rating = rating }
            row.dateRead = ImportDates.parse(cell("completed"))
            row.dateAdded = ImportDates.parse(cell("added"))
            let notes = cell("notes")
            row.notes = notes.isEmpty ? nil : notes
            return row
        }
    }
}

struct LibraryThingMapping: ColumnMapping {
    let required = ["Title", "Primary Author", "ISBN"]

    func row(_ cell: (String) -> String, line: Int) -> Result<ImportRow, ImportRowProblem> {
        let others = cell("ISBNs").split(separator: ",").map(String.init)
        return TableParser.isbn([cell("ISBN")] + others).map { code in
            var row = ImportRow(line: line, isbn: code, title: cell("Title"))
            row.authors = [LibraryThingMapping.firstLast(cell("Primary Author"))].filter { !$0.isEmpty }
            let dateRead = cell("Date Read").filter { !"[]".contains($0) }
            row.dateRead = ImportDates.parse(dateRead)
            (row.status, row.listType) = row.dateRead == nil ? (.unread, .toRead) : (.read, .completed)
            if let stars = Double(cell("Rating")), stars > 0 { row.rating = min(5, max(1, Int(stars.rounded()))) }
            row.dateAdded = ImportDates.parse(cell("Entry Date").filter { !"[]".contains($0) })
            return row
        }
    }

    /// "Cortázar, Julio" → "Julio Cortázar".
    static func firstLast(_ name: String) -> String {
        let parts = name.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        return parts.count == 2 ? "\(parts[1]) \(parts[0])" : name
    }
}

/// One ISBN per line, or one column of a CSV/TSV (found by its header, else by content).
enum ISBNListParser {
    /// Rows read to find the ISBN column of a table by content.
    static let sampleRows = 50

    static func rows(_ file: ImportText) throws(ImportError) -> ImportRowReader {
        // The delimiter is sniffed from the first line's start: a 50 MB line is not copied.
        let first = try file.head().prefix { $0 != "\n" && $0 != "\r" }
        let delimiter: UnicodeScalar? = first.contains("\t") ? "\t" : (first.contains(",") || first.contains(";")) ? (first.contains(";") ? ";" : ",") : nil
        guard let delimiter else {
            var lines = try file.lines()
            return ImportRowReader { () throws(ImportError) -> ImportRowReader.Entry? in
                while let line = try lines.next() {
                    // A one-column list may carry a label ("ISBN") on its first line.
                    if line.number == 1, line.text.utf8.count < 16,
                       ["isbn", "isbn13", "isbn10", "ean"].contains(line.text.trimmingCharacters(in: .whitespaces).lowercased()) { continue }
                    if let entry = entry(line.text, line: line.number, file: file.path, inTable: false) { return entry }
                }
                return nil
            }
        }
        var table = try CSVTable(file, delimiter: delimiter, hasHeader: false)
        // The column is found from the first rows, held until it is known.
        var sample: [(line: Int, fields: [String])] = []
        while sample.count < sampleRows, let row = try table.next() { sample.append(row) }
        guard let column = isbnColumn(sample) else { throw .malformed(file.path, "no column of ISBNs found") }
        // A first row that is not an ISBN there is the column's label.
        let firstIsISBN: Bool = {
            guard let first = sample.first, case .isbn = ISBNCell.read(first.fields[safe: column] ?? "") else { return false }
            return true
        }()
        if !firstIsISBN && !sample.isEmpty { sample.removeFirst() }
        var held = sample.makeIterator()
        return ImportRowReader { () throws(ImportError) -> ImportRowReader.Entry? in
            while true {
                let row: (line: Int, fields: [String])
                if let sampled = held.next() { row = sampled } else if let read = try table.next() { row = read } else { return nil }
                if let entry = entry(Substring(row.fields[safe: column] ?? ""), line: row.line, file: file.path, inTable: true) { return entry }
            }
        }
    }

    /// One cell's row: nil for a comment or a blank line.
    static func entry(_ cell: Substring, line: Int, file: String, inTable: Bool) -> ImportRowReader.Entry? {
        if cell.hasPrefix("#") { return nil }
        if cell.trimmingCharacters(in: .whitespaces).isEmpty {
            // A blank line is nothing; an empty cell in a table row is a row without its ISBN.
            return inTable ? .bad(BadRow(file: file, line: line, reason: "the ISBN cell is empty")) : nil
        }
        // A line longer than any ISBN is quoted from its start, never copied whole.
        if cell.utf8.count > ISBNCell.longestCell {
            return .bad(BadRow(file: file, line: line, reason: "'\(OutsideText.excerpt(cell))' is not an ISBN"))
        }
        switch ISBNCell.read(String(cell)) {
        case let .isbn(code): return .row(ImportRow(line: line, isbn: code))
        case .empty: return .bad(BadRow(file: file, line: line, reason: "the ISBN is empty ('\(OutsideText.excerpt(cell))')"))
        case let .invalid(reason): return .bad(BadRow(file: file, line: line, reason: reason))
        }
    }

    /// A header named like "isbn"/"ean", else the column where most cells are ISBNs.
    static func isbnColumn(_ rows: [(line: Int, fields: [String])]) -> Int? {
        guard let header = rows.first?.fields else { return nil }
        if let named = header.firstIndex(where: { ["isbn", "isbn13", "isbn_13", "isbn-13", "ean", "isbn10"].contains($0.lowercased().trimmingCharacters(in: .whitespaces)) }) {
            return named
        }
        let scores = (0..<header.count).map { column in
            rows.filter { if case .isbn = ISBNCell.read($0.fields[safe: column] ?? "") { return true }; return false }.count
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }), scores[best] > 0 else { return nil }
        return best
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// LibraryThing JSON (an object keyed by book id) and `calibredb list --for-machine` (an array).
enum JSONImportParser {
    /// A JSON document is one value: it is read whole (up to `ImportText.largestDocument`).
    static func rows(_ file: ImportText, format: ImportFormat) throws(ImportError) -> ImportRowReader {
        let text = try file.wholeText()
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch {
            throw .malformed(file.path, "not valid JSON: \(error.localizedDescription)")
        }
        var entries: [ImportRowReader.Entry] = []
        // JSON has no useful lines: the record's position (1-based) stands in for one.
        func add(_ position: Int, _ isbns: [String], title: String?, authors: [String], build: (inout ImportRow) -> Void) {
            switch TableParser.isbn(isbns) {
            case let .success(code):
                var row = ImportRow(line: position, isbn: code, title: title)
                row.authors = authors
                build(&row)
                entries.append(.row(row))
            case let .failure(problem): entries.append(.bad(BadRow(file: file.path, line: position, reason: problem.reason)))
            }
        }
        switch format {
        case .calibre:
            guard let books = object as? [[String: Any]] else { throw .malformed(file.path, "not a calibredb JSON array") }
            for (offset, book) in books.enumerated() {
                let identifiers = book["identifiers"] as? [String: Any]
                let isbns = [book["isbn"] as? String, identifiers?["isbn"] as? String].compactMap { $0 }
                let authors = ((book["authors"] as? String) ?? "").components(separatedBy: " & ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                add(offset + 1, isbns, title: book["title"] as? String, authors: authors) { row in
                    row.isOwned = true
                    // calibre rates 0-10 (half stars).
                    if let rating = book["rating"] as? Int, rating > 0 { row.rating = min(5, max(1, (rating + 1) / 2)) }
                }
            }
        default:
            guard let books = object as? [String: Any] else { throw .malformed(file.path, "not a LibraryThing JSON object") }
            for (offset, key) in books.keys.sorted(by: { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }).enumerated() {
                guard let book = books[key] as? [String: Any] else {
                    entries.append(.bad(BadRow(file: file.path, line: offset + 1, reason: "book \(key) is not an object"))); continue
                }
                var isbns = [book["originalisbn"] as? String].compactMap { $0 }
                if let map = book["isbn"] as? [String: Any] { isbns += map.keys.sorted().compactMap { map[$0] as? String } }
                let authors = (book["authors"] as? [[String: Any]])?.compactMap { $0["fl"] as? String }
                    ?? [(book["primaryauthor"] as? String).map(LibraryThingMapping.firstLast)].compactMap { $0 }
                add(offset + 1, isbns, title: book["title"] as? String, authors: authors) { row in
                    row.isOwned = true
                    if let rating = (book["rating"] as? NSNumber)?.doubleValue, rating > 0 { row.rating = min(5, max(1, Int(rating.rounded()))) }
                    row.dateRead = ImportDates.parse(book["dateread"] as? String)
                    row.dateAdded = ImportDates.parse(book["entrydate"] as? String)
                    (row.status, row.listType) = row.dateRead == nil ? (.unread, .toRead) : (.read, .completed)
                }
            }
        }
        return ImportRowReader(entries: entries)
    }
}
