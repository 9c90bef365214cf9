import Catalogue
import Foundation

/// A seam value stored as one row whose columns are its Codable keys (quoted camelCase):
/// written as JSON through `jsonb_populate_record`, read back as JSON (`values`), so a
/// value's fields and its columns cannot drift apart field by field. Dates are seconds
/// since 1970 (`double precision`), exactly a `Date`.
protocol PostgresRecord: Codable {
    static var table: String { get }
    /// Every stored column (the Codable keys), in the table's order.
    static var columns: [String] { get }
    /// The conflict target of an upsert.
    static var key: [String] { get }
    /// A `SELECT` of whole rows: `whereSQL` follows `FROM table AS r`.
    static func selectSQL(_ whereSQL: String) -> String
    /// What `RETURNING` gives back for a written row, read by `values(_:)`.
    static var returnedSQL: String { get }
    /// The rows of `selectSQL` or `returnedSQL` as values.
    static func values(_ rows: [[String?]]) throws -> [Self]
}

/// By default a row travels as one JSON object decoded as Codable: a value's fields and its
/// columns cannot drift apart field by field.
extension PostgresRecord {
    /// The value's columns alone, as `row_to_json`: `to_jsonb(r)` also built the search vector
    /// and folded text into every row, and jsonb costs twice json's time (180 items: 19.2 ->
    /// 8.0 ms of server time, load 22). Its order kept: a sub-select with ORDER BY or LIMIT is
    /// scanned as it comes.
    static func selectSQL(_ whereSQL: String) -> String {
        let columns = columns.map { "r.\"\($0)\"" }.joined(separator: ", ")
        return "SELECT row_to_json(c) FROM (SELECT \(columns) FROM \(table) AS r \(whereSQL)) AS c"
    }

    static var returnedSQL: String { "to_jsonb(r)" }

    static func values(_ rows: [[String?]]) throws -> [Self] {
        let decoder = RecordCoding.decoder()
        return try rows.map { row in
            guard let json = row.first ?? nil else { throw UnreadableRow(table: table, detail: "empty row") }
            do { return try decoder.decode(Self.self, from: Data(json.utf8)) } catch {
                throw UnreadableRow(table: table, detail: "\(error)")
            }
        }
    }
}

enum RecordCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// A parameter's text: dates as seconds since 1970, exactly.
    static func text(_ date: Date) -> String { String(date.timeIntervalSince1970) }
    static func text(_ flag: Bool) -> String { flag ? "true" : "false" }
}

/// A stored row that does not read as its value: named, never taken for "absent".
struct UnreadableRow: Error, CustomStringConvertible {
    let table: String
    let detail: String
    var description: String { "a stored \(table) row cannot be read: \(detail)" }
}

extension PostgresConnection {
    /// `SELECT` of whole records: `whereSQL` follows `FROM table AS r` (its order kept).
    func records<R: PostgresRecord>(_ type: R.Type, _ whereSQL: String, _ parameters: [String?] = []) throws -> [R] {
        try R.values(try run(R.selectSQL(whereSQL), parameters))
    }

    func record<R: PostgresRecord>(_ type: R.Type, _ whereSQL: String, _ parameters: [String?] = []) throws -> R? {
        try records(type, whereSQL + " LIMIT 1", parameters).first
    }

    /// Inserts `value`, or (with `upsert`) replaces every column of the row with its key.
    /// `extra` sets columns outside the value (folded search text).
    func save<R: PostgresRecord>(_ value: R, extra: [(column: String, value: String?)] = [], upsert: Bool = true) throws {
        _ = try saveAll([value], extra: { _ in extra }, upsert: upsert, returning: false)
    }

    /// `save` of many rows in one statement (the rows sent as one JSON array); with
    /// `returning`, the rows as stored. No two values may share a key (one statement cannot
    /// change a row twice).
    @discardableResult
    func saveAll<R: PostgresRecord>(_ values: [R], extra: (R) -> [(column: String, value: String?)] = { _ in [] },
                                    upsert: Bool = true, returning: Bool = true) throws -> [R] {
        guard let first = values.first else { return [] }
        let encoder = RecordCoding.encoder()
        var json = Data("[".utf8)
        for (index, value) in values.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(try encoder.encode(ColumnsJSON(value: value, extra: extra(value))))
        }
        json.append(UInt8(ascii: "]"))
        let quoted = (R.columns + extra(first).map(\.column)).map { "\"\($0)\"" }
        var sql = """
            INSERT INTO \(R.table) AS r (\(quoted.joined(separator: ", ")))
            SELECT \(quoted.map { "p.\($0)" }.joined(separator: ", ")) FROM jsonb_populate_recordset(NULL::\(R.table), $1::jsonb) AS p
            """
        if upsert {
            let updates = quoted.filter { column in !R.key.contains { "\"\($0)\"" == column } }
            sql += " ON CONFLICT (\(R.key.map { "\"\($0)\"" }.joined(separator: ", "))) DO UPDATE SET "
                + updates.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        }
        guard returning else {
            _ = try run(sql, [String(decoding: json, as: UTF8.self)])
            return []
        }
        return try R.values(try run(sql + " RETURNING " + R.returnedSQL, [String(decoding: json, as: UTF8.self)]))
    }

    func count(_ sql: String, _ parameters: [String?] = []) throws -> Int {
        try run(sql, parameters).first.flatMap { $0.first ?? nil }.flatMap { Int($0) } ?? 0
    }
}

/// A value's JSON object with columns outside the value added (one encoder's keyed
/// containers write into the same object).
private struct ColumnsJSON<R: Encodable>: Encodable {
    let value: R
    let extra: [(column: String, value: String?)]

    struct Column: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        var container = encoder.container(keyedBy: Column.self)
        for (column, text) in extra { try container.encode(text, forKey: Column(stringValue: column)) }
    }
}

extension Work: PostgresRecord {
    static let table = "works"
    static let columns = ["workKey", "title", "authors", "primaryAuthor", "coverImageUrl", "description", "genre", "categories",
                          "pageCount", "publishDate", "publisher", "language", "editions", "primaryIsbn", "editionCount", "apiSource",
                          "createdAt", "updatedAt", "totalReaders", "averageRating", "ratingsCount"]
    static let key = ["workKey"]
}

extension ISBNIndexEntry: PostgresRecord {
    static let table = "isbn_index"
    static let columns = ["isbn", "workKey", "format", "publisher", "publishDate", "indexedAt", "apiSource", "metadataScore"]
    static let key = ["isbn"]
}

extension User: PostgresRecord {
    static let table = "users"
    static let columns = ["id", "email", "displayName", "photoURL", "authProvider", "isPro", "createdAt", "updatedAt", "booksRead",
                          "currentlyReading", "hasCompletedOnboarding", "scanCount", "reviewCount", "subscriptionUpdatedAt"]
    static let key = ["id"]
}

extension BookList: PostgresRecord {
    static let table = "lists"
    static let columns = ["id", "name", "ownerId", "ownerName", "description", "bannerImageUrl", "isPublic", "shareCode", "listType",
                          "isDefault", "itemCount", "createdAt", "updatedAt"]
    static let key = ["id"]
}

/// Items travel as their columns, each read by its type: `library list` reads up to every item,
/// and the JSON of each row (built by the server, decoded by JSONDecoder) was most of a
/// 180-book list's time after the connection.
extension Item: PostgresRecord {
    static let table = "items"
    static let columns = ["id", "listId", "userId", "bookId", "isbn", "title", "authors", "coverImageUrl", "description", "pageCount",
                          "genre", "categories", "status", "liked", "rating", "notes", "currentPage", "startedReadingAt",
                          "finishedReadingAt", "addedAt", "updatedAt", "isOwned", "ownedFormat", "ownedAt", "station"]
    static let key = ["id"]
    private static let columnList = columns.map { "r.\"\($0)\"" }.joined(separator: ", ")

    static func selectSQL(_ whereSQL: String) -> String { "SELECT \(columnList) FROM items AS r \(whereSQL)" }
    static var returnedSQL: String { columnList }

    static func values(_ rows: [[String?]]) throws -> [Item] {
        try rows.map { row in
            var columns = ColumnReader(row: row, table: table, names: columns)
            return Item(
                id: try columns.text(), listId: try columns.text(), userId: try columns.text(), bookId: try columns.text(),
                isbn: try columns.text(), title: try columns.text(), authors: try columns.strings() ?? [],
                coverImageUrl: try columns.optionalText(), description: try columns.optionalText(), pageCount: try columns.int(),
                genre: try columns.optionalText(), categories: try columns.strings(), status: try columns.requiredChoice(),
                liked: try columns.bool(), rating: try columns.int(), notes: try columns.optionalText(), currentPage: try columns.int(),
                startedReadingAt: try columns.date(), finishedReadingAt: try columns.date(), addedAt: try columns.requiredDate(),
                updatedAt: try columns.requiredDate(), isOwned: try columns.bool(), ownedFormat: try columns.choice(),
                ownedAt: try columns.date(), station: try columns.optionalText())
        }
    }
}

/// One row's text columns read in order, each as its type, as JSONDecoder read them from
/// `row_to_json`: a value that does not read (or a NULL where one is required) names its
/// table and column, never taken for absent.
private struct ColumnReader {
    let row: [String?]
    let table: String
    let names: [String]
    private var index = 0

    init(row: [String?], table: String, names: [String]) {
        (self.row, self.table, self.names) = (row, table, names)
    }

    private mutating func next() throws -> (name: String, text: String?) {
        guard index < row.count, index < names.count else {
            throw UnreadableRow(table: table, detail: "\(row.count) columns, not \(names.count)")
        }
        defer { index += 1 }
        return (names[index], row[index])
    }

    private func unreadable(_ name: String, _ problem: String) -> UnreadableRow {
        UnreadableRow(table: table, detail: "column \(name) \(problem)")
    }

    mutating func optionalText() throws -> String? { try next().text }

    mutating func text() throws -> String {
        let (name, text) = try next()
        guard let text else { throw unreadable(name, "is NULL") }
        return text
    }

    mutating func bool() throws -> Bool {
        let (name, text) = try next()
        switch text {
        case "t": return true
        case "f": return false
        default: throw unreadable(name, "is not a boolean")
        }
    }

    mutating func int() throws -> Int? {
        let (name, text) = try next()
        guard let text else { return nil }
        guard let value = Int(text) else { throw unreadable(name, "is not a whole number") }
        return value
    }

    /// Seconds since 1970 as `double precision` prints them (shortest exact text): the same Date.
    mutating func date() throws -> Date? {
        let (name, text) = try next()
        guard let text else { return nil }
        guard let seconds = Double(text), seconds.isFinite else { throw unreadable(name, "is not a date") }
        return Date(timeIntervalSince1970: seconds)
    }

    mutating func requiredDate() throws -> Date {
        let name = names[min(index, names.count - 1)]
        guard let date = try date() else { throw unreadable(name, "is NULL") }
        return date
    }

    mutating func choice<Choice: RawRepresentable>() throws -> Choice? where Choice.RawValue == String {
        let (name, text) = try next()
        guard let text else { return nil }
        guard let value = Choice(rawValue: text) else { throw unreadable(name, "is not a known value") }
        return value
    }

    mutating func requiredChoice<Choice: RawRepresentable>() throws -> Choice where Choice.RawValue == String {
        let name = names[min(index, names.count - 1)]
        guard let value: Choice = try choice() else { throw unreadable(name, "is NULL") }
        return value
    }

    /// A `jsonb` list of strings.
    mutating func strings() throws -> [String]? {
        let (name, text) = try next()
        guard let text else { return nil }
        do { return try JSONColumn.strings(text) } catch { throw unreadable(name, "is not a JSON list of strings") }
    }
}

extension PendingLookup: PostgresRecord {
    static let table = "pending_lookups"
    static let columns = ["isbn", "reason", "source", "attempts", "intent", "queuedAt", "lastAttemptAt", "nextRetryAt"]
    static let key = ["isbn"]
}

extension ProcessedFile: PostgresRecord {
    static let table = "processed_files"
    static let columns = ["station", "path", "size", "modifiedTime", "outcome", "processedAt"]
    static let key = ["station", "path"]
}

extension NotFoundCode: PostgresRecord {
    static let table = "not_found_codes"
    static let columns = ["isbn", "origin", "firstSeenAt", "lastSeenAt", "times"]
    static let key = ["isbn"]
}
