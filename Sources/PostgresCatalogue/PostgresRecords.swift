import Catalogue
import Foundation

/// A seam value stored as one row whose columns are its Codable keys (quoted camelCase):
/// written as JSON through `jsonb_populate_record`, read back as `to_jsonb(row)`, so a
/// value's fields and its columns cannot drift apart field by field. Dates are seconds
/// since 1970 (`double precision`), exactly a `Date`.
protocol PostgresRecord: Codable {
    static var table: String { get }
    /// Every stored column (the Codable keys), in the table's order.
    static var columns: [String] { get }
    /// The conflict target of an upsert.
    static var key: [String] { get }
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
    /// `SELECT` of whole records: `whereSQL` follows `FROM table AS r` (its order kept: a
    /// sub-select with ORDER BY or LIMIT is scanned as it comes). The value's columns alone, as
    /// `row_to_json`: `to_jsonb(r)` also built the search vector and folded text into every row,
    /// and jsonb costs twice json's time (180 items: 19.2 -> 8.0 ms of server time, load 22).
    func records<R: PostgresRecord>(_ type: R.Type, _ whereSQL: String, _ parameters: [String?] = []) throws -> [R] {
        let columns = R.columns.map { "r.\"\($0)\"" }.joined(separator: ", ")
        let sql = "SELECT row_to_json(c) FROM (SELECT \(columns) FROM \(R.table) AS r \(whereSQL)) AS c"
        return try decodeRows(R.self, try run(sql, parameters))
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
        return try decodeRows(R.self, try run(sql + " RETURNING to_jsonb(r)", [String(decoding: json, as: UTF8.self)]))
    }

    /// Rows of `to_jsonb(r)` as records.
    func decodeRows<R: PostgresRecord>(_ type: R.Type, _ rows: [[String?]]) throws -> [R] {
        let decoder = RecordCoding.decoder()
        return try rows.map { row in
            guard let json = row.first ?? nil else { throw UnreadableRow(table: R.table, detail: "empty row") }
            do { return try decoder.decode(R.self, from: Data(json.utf8)) } catch {
                throw UnreadableRow(table: R.table, detail: "\(error)")
            }
        }
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

extension Item: PostgresRecord {
    static let table = "items"
    static let columns = ["id", "listId", "userId", "bookId", "isbn", "title", "authors", "coverImageUrl", "description", "pageCount",
                          "genre", "categories", "status", "liked", "rating", "notes", "currentPage", "startedReadingAt",
                          "finishedReadingAt", "addedAt", "updatedAt", "isOwned", "ownedFormat", "ownedAt", "station"]
    static let key = ["id"]
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
