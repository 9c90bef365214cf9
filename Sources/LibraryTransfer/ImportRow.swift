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
