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

    /// Parses `text` (of file `path`) into rows; rows that cannot be used become bad rows.
    public func parse(_ file: ImportText) throws(ImportError) -> ParsedImport {
        var parsed = try parseRows(file)
        // Outside text: what is stored holds no terminal control.
        parsed.rows = parsed.rows.map(\.cleaned)
        return parsed
    }

    private func parseRows(_ file: ImportText) throws(ImportError) -> ParsedImport {
        switch self {
        case .isbnList: return try ISBNListParser.parse(file)
        case .goodreads: return try TableParser.parse(file, format: self, mapping: GoodreadsMapping())
        case .storygraph: return try TableParser.parse(file, format: self, mapping: StoryGraphMapping())
        case .libib: return try TableParser.parse(file, format: self, mapping: LibibMapping())
        case .librarythingTSV: return try TableParser.parse(file, format: self, mapping: LibraryThingMapping(), delimiter: "\t")
        case .librarythingJSON, .calibre: return try JSONImportParser.parse(file, format: self)
        case .rapidscanJSON: throw .malformed(file.path, "a rapidscan JSON export is restored with its own reader")
        }
    }
}

/// A CSV/TSV file read through CSV.swift, each row with the line it starts on.
struct CSVTable {
    var header: [String]
    var rows: [(line: Int, fields: [String])]

    static func read(_ text: String, path: String, delimiter: UnicodeScalar = ",", hasHeader: Bool = true) throws(ImportError) -> CSVTable {
        let reader: CSVReader
        do { reader = try CSVReader(string: text, hasHeaderRow: false, trimFields: false, delimiter: delimiter) } catch {
            throw .malformed(path, "cannot be read as CSV: \(error)")
        }
        var line = 1
        var header: [String] = []
        var rows: [(Int, [String])] = []
        while let fields = reader.next() {
            let start = line
            // The row's own line breaks (multi-line quoted reviews) move the next row down.
            line += 1 + fields.reduce(0) { $0 + $1.reduce(0) { $0 + ($1 == "\n" || $1 == "\r\n" || $1 == "\r" ? 1 : 0) } }
            if hasHeader && header.isEmpty && start == 1 { header = fields.map { $0.trimmingCharacters(in: .whitespaces) }; continue }
            // Cells our exports protected against formula injection read back as written.
            let fields = fields.map(CSVCell.unprotected)
            if fields.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            rows.append((start, fields))
        }
        if let error = reader.error { throw .malformed(path, "CSV error: \(error)") }
        return CSVTable(header: header, rows: rows)
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
    static func parse(_ file: ImportText, format: ImportFormat, mapping: some ColumnMapping, delimiter: UnicodeScalar = ",") throws(ImportError) -> ParsedImport {
        let table = try CSVTable.read(file.text, path: file.path, delimiter: delimiter)
        let index = Dictionary(table.header.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = mapping.required.filter { index[$0] == nil }
        guard missing.isEmpty else { throw .malformed(file.path, "not a \(format.rawValue) file: no column \(missing.joined(separator: ", "))") }
        var rows: [ImportRow] = [], bad: [BadRow] = []
        for (line, fields) in table.rows {
            guard fields.count == table.header.count else {
                bad.append(BadRow(file: file.path, line: line, reason: "\(fields.count) columns where the header has \(table.header.count)"))
                continue
            }
            let cell = { (name: String) -> String in index[name].map { fields[$0].trimmingCharacters(in: .whitespaces) } ?? "" }
            switch mapping.row(cell, line: line) {
            case let .success(row): rows.append(row)
            case let .failure(problem): bad.append(BadRow(file: file.path, line: line, reason: problem.reason))
            }
        }
        return ParsedImport(format: format, rows: rows, badRows: bad)
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
    static func parse(_ file: ImportText) throws(ImportError) -> ParsedImport {
        let lines = file.text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        // The delimiter is sniffed from the first line's start: a 50 MB line is not copied.
        let first = lines.first.map { String($0.prefix(4096)) } ?? ""
        let delimiter: UnicodeScalar? = first.contains("\t") ? "\t" : (first.contains(",") || first.contains(";")) ? (first.contains(";") ? ";" : ",") : nil
        var rows: [ImportRow] = [], bad: [BadRow] = []
        var cells: [(Int, Substring)] = []
        if let delimiter {
            let table = try CSVTable.read(file.text, path: file.path, delimiter: delimiter, hasHeader: false)
            guard let column = isbnColumn(table) else { throw .malformed(file.path, "no column of ISBNs found") }
            // A first row that is not an ISBN there is the column's label.
            let headerIsLabel: Bool = {
                guard let first = table.rows.first else { return false }
                if case .isbn = ISBNCell.read(first.fields[safe: column] ?? "") { return false }
                return true
            }()
            for (offset, row) in table.rows.enumerated() where !(offset == 0 && headerIsLabel) {
                cells.append((row.line, Substring(row.fields[safe: column] ?? "")))
            }
        } else {
            for (offset, line) in lines.enumerated() {
                // A one-column list may carry a label ("ISBN") on its first line.
                if offset == 0, line.utf8.count < 16, ["isbn", "isbn13", "isbn10", "ean"].contains(line.trimmingCharacters(in: .whitespaces).lowercased()) { continue }
                cells.append((offset + 1, line))
            }
        }
        for (line, cell) in cells {
            if cell.hasPrefix("#") { continue }
            if cell.trimmingCharacters(in: .whitespaces).isEmpty {
                // A blank line is nothing; an empty cell in a table row is a row without its ISBN.
                if delimiter != nil { bad.append(BadRow(file: file.path, line: line, reason: "the ISBN cell is empty")) }
                continue
            }
            // A line longer than any ISBN is quoted from its start, never copied whole.
            if cell.utf8.count > ISBNCell.longestCell {
                bad.append(BadRow(file: file.path, line: line, reason: "'\(OutsideText.excerpt(cell))' is not an ISBN")); continue
            }
            switch ISBNCell.read(String(cell)) {
            case let .isbn(code): rows.append(ImportRow(line: line, isbn: code))
            case .empty: bad.append(BadRow(file: file.path, line: line, reason: "the ISBN is empty ('\(OutsideText.excerpt(cell))')"))
            case let .invalid(reason): bad.append(BadRow(file: file.path, line: line, reason: reason))
            }
        }
        return ParsedImport(format: .isbnList, rows: rows, badRows: bad)
    }

    /// A header named like "isbn"/"ean", else the column where most cells are ISBNs.
    static func isbnColumn(_ table: CSVTable) -> Int? {
        guard let header = table.rows.first?.fields else { return nil }
        if let named = header.firstIndex(where: { ["isbn", "isbn13", "isbn_13", "isbn-13", "ean", "isbn10"].contains($0.lowercased().trimmingCharacters(in: .whitespaces)) }) {
            return named
        }
        let sample = table.rows.prefix(50)
        let scores = (0..<header.count).map { column in
            sample.filter { if case .isbn = ISBNCell.read($0.fields[safe: column] ?? "") { return true }; return false }.count
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
    static func parse(_ file: ImportText, format: ImportFormat) throws(ImportError) -> ParsedImport {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(file.text.utf8)) } catch {
            throw .malformed(file.path, "not valid JSON: \(error.localizedDescription)")
        }
        var rows: [ImportRow] = [], bad: [BadRow] = []
        // JSON has no useful lines: the record's position (1-based) stands in for one.
        func add(_ position: Int, _ isbns: [String], title: String?, authors: [String], build: (inout ImportRow) -> Void) {
            switch TableParser.isbn(isbns) {
            case let .success(code):
                var row = ImportRow(line: position, isbn: code, title: title)
                row.authors = authors
                build(&row)
                rows.append(row)
            case let .failure(problem): bad.append(BadRow(file: file.path, line: position, reason: problem.reason))
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
                    bad.append(BadRow(file: file.path, line: offset + 1, reason: "book \(key) is not an object")); continue
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
        return ParsedImport(format: format, rows: rows, badRows: bad)
    }
}
