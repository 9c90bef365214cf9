import BookCodes
import BookMetadata
import Catalogue
import Foundation

/// One book an import file lists, in rapidscan's terms.
public struct ImportRow: Sendable, Hashable {
    /// 1-based line where the row starts in its file.
    public var line: Int
    public var isbn: ISBN13?
    public var title: String?
    public var authors: [String] = []
    public var status: ReadingStatus?
    public var rating: Int?
    public var dateRead: Date?
    public var dateAdded: Date?
    public var notes: String?
    public var isOwned = true
    /// "toRead" / "completed" default lists; nil lets the status decide.
    public var listType: ListType?
    /// A list of the user's own the row names (a Goodreads shelf): the book is filed there,
    /// made if the library has none of that name (Pro: the free plan has no custom lists).
    public var listName: String?

    public init(line: Int, isbn: ISBN13? = nil, title: String? = nil) {
        self.line = line
        self.isbn = isbn
        self.title = title
    }

    /// The row's text as it may be stored: no control characters (`OutsideText.clean`).
    var cleaned: ImportRow {
        var row = self
        row.title = title.map { OutsideText.clean($0).trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        row.authors = authors.map { OutsideText.clean($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        row.notes = notes.map { OutsideText.clean($0, keepingLines: true) }.flatMap { $0.isEmpty ? nil : $0 }
        row.listName = listName.map { OutsideText.clean($0).trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        return row
    }
}

/// A row that cannot be imported, with its place in the file.
public struct BadRow: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String
    public var description: String { "\(file):\(line): \(reason)" }
}

/// What a file parsed into.
public struct ParsedImport: Sendable {
    public var format: ImportFormat
    public var rows: [ImportRow]
    public var badRows: [BadRow]
}

/// ISBN cells as exports and spreadsheets leave them.
enum ISBNCell {
    enum Reading: Equatable {
        case empty
        case isbn(ISBN13)
        case invalid(String)
    }

    /// `="0441013597"`, `=""`, `[0441013597]`, `978-0-441-...`, `441013597` (a spreadsheet ate
    /// the leading zero: recovered only when the check digit proves it), `9.78044E+12`
    /// (a spreadsheet rounded it: unrecoverable).
    /// Longer than any way of writing an ISBN: refused without reading it through.
    static let longestCell = 64

    static func read(_ raw: String) -> Reading {
        // The usual cell, bare digits (an ISBN list, a clean export), is validated as it is: the
        // passes below change nothing in it and were most of reading a 10,000-line list. Other
        // cells, and digits that do not validate, take the passes (they say what is wrong).
        if raw.utf8.count == 13 || raw.utf8.count == 10, raw.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            if let code = try? ISBN13(validating: raw) { return .isbn(code) }
            if let code = try? ISBN10(validating: raw) { return .isbn(code.isbn13) }
        }
        if raw.utf8.count > longestCell { return .invalid("'\(OutsideText.excerpt(raw))' is not an ISBN") }
        var text = raw.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("=") { text.removeFirst() }
        text = text.filter { !"\"[]".contains($0) }.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return .empty }
        // The regular expression only where an exponent could be (it was most of parsing a
        // 10,000-line list).
        if text.contains(where: { $0 == "e" || $0 == "E" }), text.range(of: #"^[0-9.]+[eE]\+?[0-9]+$"#, options: .regularExpression) != nil {
            return .invalid("'\(OutsideText.excerpt(raw))' is an ISBN a spreadsheet turned into a rounded number; it cannot be recovered")
        }
        let cleaned = text.filter { !$0.isWhitespace && $0 != "-" }.uppercased()
        if let code = try? ISBN13(validating: cleaned) { return .isbn(code) }
        if let code = try? ISBN10(validating: cleaned) { return .isbn(code.isbn13) }
        if cleaned.count < 10, cleaned.allSatisfy({ $0.isNumber || $0 == "X" }) {
            let padded = String(repeating: "0", count: 10 - cleaned.count) + cleaned
            if let code = try? ISBN10(validating: padded) { return .isbn(code.isbn13) }
        }
        if cleaned.count == 10 || cleaned.count == 13, cleaned.dropLast().allSatisfy(\.isNumber) {
            return .invalid("'\(OutsideText.excerpt(raw))' has a wrong check digit")
        }
        return .invalid("'\(OutsideText.excerpt(raw))' is not an ISBN")
    }
}

enum ImportDates {
    /// "2021/03/14", "2021-03-14", "4/2/2019" (US, as spreadsheets write it), "2021".
    static func parse(_ raw: String?) -> Date? {
        guard let raw = raw?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        let text = String(raw.prefix(10))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = text.split(whereSeparator: { $0 == "/" || $0 == "-" }).compactMap { Int($0) }
        var components = DateComponents()
        if parts.count == 3, parts[0] > 999 {
            (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        } else if parts.count == 3, parts[2] > 999 {
            (components.year, components.month, components.day) = (parts[2], parts[0], parts[1])
        } else if parts.count == 1, parts[0] > 999 {
            (components.year, components.month, components.day) = (parts[0], 1, 1)
        } else {
            return nil
        }
        guard (1...12).contains(components.month!), (1...31).contains(components.day!) else { return nil }
        return calendar.date(from: components)
    }
}

/// A rapidscan JSON export read back for restoring, every record checked as strictly as a
/// scan would file it: a record that fails is a bad row (named, with its place in the file)
/// and left out; the rest is restored. Only values this rapidscan could itself have stored
/// get in: a crafted backup cannot put a rating of 99 or an ISBN that is not one in the library.
public struct RapidScanBackup: Sendable {
    public var export: RapidScanExport
    public var badRows: [BadRow]

    /// Decodes (`Exporter.decodeJSON`: the format, its version, ISO dates, known enum values)
    /// and then validates record by record.
    public static func read(_ text: String, file: String) throws(ImportError) -> RapidScanBackup {
        let decoded: RapidScanExport
        do { decoded = try Exporter.decodeJSON(Data(text.utf8)) } catch let error as ImportError { throw error } catch {
            throw .malformed(file, "not a rapidscan export this version reads: \(Self.describe(error))")
        }
        return validated(decoded, text: text, file: file)
    }

    static func validated(_ export: RapidScanExport, text: String, file: String) -> RapidScanBackup {
        var valid = export
        var badRows: [BadRow] = []
        let lines = LineFinder(text)
        func refuse(_ collection: String, _ index: Int, _ key: String, _ problems: [String]) {
            badRows.append(BadRow(file: file, line: lines.line(of: key),
                                  reason: "\(collection)[\(index)] '\(key)': \(problems.joined(separator: "; ")); not restored"))
        }

        valid.works = []
        for (index, work) in export.works.enumerated() {
            var problems: [String] = []
            if work.workKey.isEmpty { problems.append("workKey is empty") }
            if work.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { problems.append("title is empty") }
            if let pages = work.pageCount, !Limits.pageCount.contains(pages) { problems.append("pageCount \(pages) is outside \(Limits.pageCount)") }
            if let rating = work.averageRating, !(0...5).contains(rating) || !rating.isFinite { problems.append("averageRating \(rating) is outside 0...5") }
            for (name, count) in [("editionCount", work.editionCount), ("totalReaders", work.totalReaders), ("ratingsCount", work.ratingsCount)] where count < 0 {
                problems.append("\(name) \(count) is negative")
            }
            if !work.primaryIsbn.isEmpty, ISBNValue.isbn13(work.primaryIsbn) == nil { problems.append("primaryIsbn '\(work.primaryIsbn)' is not an ISBN") }
            if let bad = work.editions.first(where: { ISBNValue.isbn13($0) == nil }) { problems.append("edition '\(bad)' is not an ISBN") }
            if problems.isEmpty { valid.works.append(cleaned(work)) } else { refuse("works", index, work.workKey, problems) }
        }
        let works = Set(valid.works.map(\.workKey))

        valid.isbnIndex = []
        for (index, entry) in export.isbnIndex.enumerated() {
            var problems: [String] = []
            if ISBNValue.isbn13(entry.isbn) == nil { problems.append("isbn '\(entry.isbn)' is not an ISBN") }
            if !works.contains(entry.workKey) { problems.append("workKey '\(entry.workKey)' is not a work restored from this backup") }
            if entry.metadataScore < 0 { problems.append("metadataScore \(entry.metadataScore) is negative") }
            if problems.isEmpty { valid.isbnIndex.append(entry) } else { refuse("isbnIndex", index, entry.isbn, problems) }
        }

        valid.lists = []
        for (index, list) in export.lists.enumerated() {
            var problems: [String] = []
            if list.id.isEmpty { problems.append("id is empty") }
            if list.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { problems.append("name is empty") }
            if list.itemCount < 0 { problems.append("itemCount \(list.itemCount) is negative") }
            if problems.isEmpty { valid.lists.append(cleaned(list)) } else { refuse("lists", index, list.id, problems) }
        }
        let lists = Set(valid.lists.map(\.id))

        valid.items = []
        for (index, item) in export.items.enumerated() {
            var problems: [String] = []
            var checked = item
            if let code = ISBNValue.isbn13(item.isbn) { checked.isbn = code } else { problems.append("isbn '\(item.isbn)' is not an ISBN") }
            if item.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { problems.append("title is empty") }
            if !works.contains(item.bookId) { problems.append("bookId '\(item.bookId)' is not a work restored from this backup") }
            if !lists.contains(item.listId) { problems.append("listId '\(item.listId)' is not a list in this backup") }
            if let rating = item.rating, !(1...5).contains(rating) { problems.append("rating \(rating) is outside 1...5") }
            if let pages = item.pageCount, !Limits.pageCount.contains(pages) { problems.append("pageCount \(pages) is outside \(Limits.pageCount)") }
            if let page = item.currentPage, !Limits.pageCount.contains(page) { problems.append("currentPage \(page) is outside \(Limits.pageCount)") }
            if item.isOwned && item.ownedFormat == nil { problems.append("an owned book without ownedFormat") }
            if problems.isEmpty { valid.items.append(cleaned(checked)) } else { refuse("items", index, item.id, problems) }
        }
        return RapidScanBackup(export: valid, badRows: badRows)
    }

    // A backup is outside text like a source's answer: its human text is stored without
    // terminal controls (escape sequences, C1, bidi overrides, NUL), as every other door does.
    static func cleaned(_ work: Work) -> Work {
        var work = work
        work.title = OutsideText.clean(work.title)
        work.authors = work.authors.map { OutsideText.clean($0) }
        work.primaryAuthor = OutsideText.clean(work.primaryAuthor)
        work.description = work.description.map { OutsideText.clean($0, keepingLines: true) }
        work.genre = work.genre.map { OutsideText.clean($0) }
        work.categories = work.categories.map { OutsideText.clean($0) }
        work.publisher = work.publisher.map { OutsideText.clean($0) }
        return work
    }

    static func cleaned(_ item: Item) -> Item {
        var item = item
        item.title = OutsideText.clean(item.title)
        item.authors = item.authors.map { OutsideText.clean($0) }
        item.description = item.description.map { OutsideText.clean($0, keepingLines: true) }
        item.genre = item.genre.map { OutsideText.clean($0) }
        item.categories = item.categories?.map { OutsideText.clean($0) }
        item.notes = item.notes.map { OutsideText.clean($0, keepingLines: true) }
        return item
    }

    static func cleaned(_ list: BookList) -> BookList {
        var list = list
        list.name = OutsideText.clean(list.name)
        list.ownerName = OutsideText.clean(list.ownerName)
        list.description = list.description.map { OutsideText.clean($0, keepingLines: true) }
        return list
    }

    enum Limits {
        static let pageCount = 0...1_000_000
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case let .dataCorrupted(context): return "\(path(context)): \(context.debugDescription)"
        case let .keyNotFound(key, context): return "\(path(context)): '\(key.stringValue)' is missing"
        case let .typeMismatch(_, context), let .valueNotFound(_, context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// ISBN text as a scan files it: ISBN-13 digits (an ISBN-10 converted), or nil.
enum ISBNValue {
    static func isbn13(_ text: String) -> String? {
        if let code = try? ISBN13(validating: text) { return code.digits }
        if let code = try? ISBN10(validating: text) { return code.isbn13.digits }
        return nil
    }
}

/// The 1-based line where a key first appears quoted in a file (1 when it does not).
struct LineFinder {
    private let text: String

    init(_ text: String) { self.text = text }

    func line(of key: String) -> Int {
        guard !key.isEmpty, let range = text.range(of: "\"\(key)\"") else { return 1 }
        return text[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }
}
