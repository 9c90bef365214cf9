import BookCodes
import Foundation
import GRDB

/// A JSON value, for documents whose fields are the table's columns (Firestore export).
public enum JSONValue: Sendable, Hashable, Encodable {
    case null, bool(Bool), int(Int64), double(Double), string(String), array([String])

    /// Appends this value's JSON text. Firestore documents are written this way rather than
    /// through JSONEncoder, which spent 1.4 s boxing the 10,000-book export's 300,000 values.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case let .bool(value): out += (value ? "true" : "false").utf8
        case let .int(value): out += String(value).utf8
        case let .double(value): out += (value.isFinite ? "\(value)" : "null").utf8
        case let .string(value): Self.appendString(value, to: &out)
        case let .array(values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendString(value, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string; `asJSONEncoder` also names backspace and form feed (`\b`, `\f`) as
    /// Foundation's JSONEncoder does, for text that must match its output byte for byte.
    public static func appendString(_ string: String, to out: inout [UInt8], asJSONEncoder: Bool = false) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case 0x0A: out += #"\n"#.utf8
            case 0x0D: out += #"\r"#.utf8
            case 0x09: out += #"\t"#.utf8
            case 0x08 where asJSONEncoder: out += #"\b"#.utf8
            case 0x0C where asJSONEncoder: out += #"\f"#.utf8
            case ..<0x20:
                out += #"\u00"#.utf8
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        }
    }
}

/// Everything an export needs from the database, read in one snapshot.
public struct LibrarySnapshot: Sendable {
    public var user: User
    public var lists: [BookList]
    public var items: [Item]
    public var works: [Work]
    public var isbnIndex: [ISBNIndexEntry]

    public init(user: User, lists: [BookList], items: [Item], works: [Work], isbnIndex: [ISBNIndexEntry]) {
        self.user = user
        self.lists = lists
        self.items = items
        self.works = works
        self.isbnIndex = isbnIndex
    }
}

/// The collections a Firestore-shaped export holds, each named as the seed names it.
public enum ExportCollection: String, Sendable, CaseIterable {
    case works, isbnIndex, items, lists, users

    /// The field whose value is a document's id.
    public var keyField: String {
        switch self {
        case .works: "workKey"
        case .isbnIndex: "isbn"
        case .items, .lists, .users: "id"
        }
    }
}

/// One stored record as an export document: its id and every stored field.
public struct ExportDocument: Sendable, Hashable {
    public var id: String
    public var fields: [String: JSONValue]

    public init(id: String, fields: [String: JSONValue]) {
        self.id = id
        self.fields = fields
    }
}

/// A lossless restore's outcome.
public struct RestoreSummary: Sendable, Hashable {
    public var added = 0
    public var alreadyPresent = 0
    /// Owned books not restored: the free plan's limit (`limit`) was reached.
    public var libraryFull = 0
    public var limit = User.freeOwnedLimit

    public init() {}
}

extension Catalogue {
    /// GRDB stores dates as UTC "YYYY-MM-DD HH:MM:SS.SSS"; that is ISO 8601 once the space
    /// is a "T" and a "Z" is added (a formatter per date was a fifth of a large export).
    static func isoStamp(stored text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 23, bytes[10] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: "."),
              bytes[4] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: ":") else { return nil }
        var iso = bytes
        iso[10] = UInt8(ascii: "T")
        iso.append(UInt8(ascii: "Z"))
        return String(decoding: iso, as: UTF8.self)
    }

    /// In-clause placeholders for a slice of keys.
    static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }

    /// Columns of this catalogue alone, not the seed's: not in its documents.
    static let localColumns: Set<String> = ["station"]
    static let jsonColumns: Set<String> = ["authors", "categories", "editions"]
    static let boolColumns: Set<String> = ["isPro", "hasCompletedOnboarding", "isPublic", "isDefault", "liked", "isOwned"]
    static let dateColumns: Set<String> = ["createdAt", "updatedAt", "indexedAt", "addedAt", "ownedAt", "startedReadingAt", "finishedReadingAt", "subscriptionUpdatedAt"]

    /// The items `itemIds` names (all the user's when nil) with their lists, works and editions.
    public func snapshot(itemIds: [String]? = nil) throws(LibraryError) -> LibrarySnapshot {
        let userId = userId
        return try libraryRead { db in
            guard let user = try storedOne(User.self, db, sql: "SELECT rowid, * FROM users WHERE id = ?", arguments: [userId], orThrow: true) else {
                throw LibraryError.catalogue(.database("user \(userId) is missing"))
            }
            // Every row that can be read: a damaged one is named (`damage`) and left out, the rest exported.
            var items = try stored(Item.self, db, sql: "SELECT rowid, * FROM items WHERE userId = ? ORDER BY addedAt, id", arguments: [userId])
            if let itemIds {
                let wanted = Set(itemIds)
                items = items.filter { wanted.contains($0.id) }
            }
            let keys = Array(Set(items.map(\.bookId))).sorted()
            var works: [Work] = [], entries: [ISBNIndexEntry] = []
            for start in stride(from: 0, to: keys.count, by: 500) {
                let slice = Array(keys[start..<min(start + 500, keys.count)])
                let marks = Self.placeholders(slice.count)
                works += try stored(Work.self, db, sql: "SELECT rowid, * FROM works WHERE workKey IN (\(marks))", arguments: StatementArguments(slice))
                entries += try stored(ISBNIndexEntry.self, db, sql: "SELECT rowid, * FROM isbnIndex WHERE workKey IN (\(marks))", arguments: StatementArguments(slice))
            }
            let lists = try stored(BookList.self, db, sql: "SELECT rowid, * FROM lists WHERE ownerId = ? ORDER BY createdAt, id", arguments: [userId])
            return LibrarySnapshot(user: user, lists: lists, items: items, works: works.sorted { $0.workKey < $1.workKey },
                                   isbnIndex: entries.sorted { $0.isbn < $1.isbn })
        }
    }

    /// Stored records of one collection as documents: every stored field (the seed's field
    /// names), nulls kept, JSON arrays as arrays, booleans as booleans, timestamps ISO 8601 UTC,
    /// sorted by document id. Values are exported as stored (a damaged one as its text).
    public func documents(_ collection: ExportCollection, keys: [String]) throws(LibraryError) -> [ExportDocument] {
        let (table, keyColumn) = (collection.rawValue, collection.keyField)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try libraryRead { db in
            var documents: [ExportDocument] = []
            for start in stride(from: 0, to: keys.count, by: 500) {
                let slice = Array(keys[start..<min(start + 500, keys.count)])
                let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(table) WHERE \(keyColumn) IN (\(Self.placeholders(slice.count)))", arguments: StatementArguments(slice))
                while let row = try rows.next() {
                    guard let id = try row.decode(String?.self, forColumn: keyColumn) else { continue }
                    var fields: [String: JSONValue] = [:]
                    for (column, value) in row where !Self.localColumns.contains(column) {
                        switch value.storage {
                        case .null: fields[column] = .null
                        case let .int64(number): fields[column] = Self.boolColumns.contains(column) ? .bool(number != 0) : .int(number)
                        case let .double(number): fields[column] = .double(number)
                        case let .string(text):
                            if Self.jsonColumns.contains(column) {
                                fields[column] = .array((try? JSONColumn.strings(text)) ?? [])
                            } else if Self.dateColumns.contains(column), let stamp = Self.isoStamp(stored: text) {
                                fields[column] = .string(stamp)
                            } else if Self.dateColumns.contains(column), let date = Date.fromDatabaseValue(value) {
                                fields[column] = .string(iso.string(from: date))
                            } else {
                                fields[column] = .string(text)
                            }
                        case .blob: fields[column] = .null
                        }
                    }
                    documents.append(ExportDocument(id: id, fields: fields))
                }
            }
            return documents.sorted { $0.id < $1.id }
        }
    }

    /// Restores a rapidscan JSON export losslessly: works and editions into the cache,
    /// lists (defaults mapped to this user's), items with every field. A book already in
    /// the library (same ISBN) is left as it is. Owned books count against the free plan's
    /// limit as every add does: past it they are not restored (`libraryFull`), so running
    /// the same restore after `account --pro` adds them. Counts are recomputed afterwards.
    public func restore(_ snapshot: LibrarySnapshot, now: Date = Date()) throws(LibraryError) -> RestoreSummary {
        let userId = userId
        return try libraryWrite { db in
            var summary = RestoreSummary()
            for work in snapshot.works where try !Work.exists(db, key: work.workKey) { try work.insert(db) }
            for entry in snapshot.isbnIndex where try !ISBNIndexEntry.exists(db, key: entry.isbn) {
                if try Work.exists(db, key: entry.workKey) { try entry.insert(db) }
            }
            var listIds: [String: String] = [:]
            let user = try storedOne(User.self, db, sql: "SELECT rowid, * FROM users WHERE id = ?", arguments: [userId])
            for list in snapshot.lists {
                if list.isDefault {
                    listIds[list.id] = "\(userId)_\(list.listType.rawValue)"
                } else if let existing = try storedOne(BookList.self, db, sql: "SELECT rowid, * FROM lists WHERE id = ?", arguments: [list.id]),
                          existing.ownerId == userId {
                    listIds[list.id] = existing.id
                } else {
                    var copy = list
                    copy.id = try BookList.exists(db, key: list.id) ? UUID().uuidString : list.id
                    copy.ownerId = userId
                    copy.ownerName = user?.displayName ?? copy.ownerName
                    while try !BookList.filter(Column("shareCode") == copy.shareCode).isEmpty(db) { copy.shareCode = BookList.randomShareCode() }
                    try copy.insert(db)
                    listIds[list.id] = copy.id
                }
            }
            var ownedRoom = Int.max
            if user?.isPro == false {
                ownedRoom = max(0, User.freeOwnedLimit - (try Item.filter(Column("userId") == userId && Column("isOwned") == true).fetchCount(db)))
            }
            for var item in snapshot.items {
                if try !Item.filter(Column("userId") == userId && Column("isbn") == item.isbn).isEmpty(db) {
                    summary.alreadyPresent += 1
                    continue
                }
                if item.isOwned {
                    guard ownedRoom > 0 else {
                        summary.libraryFull += 1
                        continue
                    }
                    ownedRoom -= 1
                }
                item.userId = userId
                item.listId = listIds[item.listId] ?? "\(userId)_\(ListType.toRead.rawValue)"
                if try Item.exists(db, key: item.id) { item.id = UUID().uuidString }
                try item.insert(db)
                summary.added += 1
            }
            try db.execute(sql: "UPDATE lists SET itemCount = (SELECT count(*) FROM items WHERE items.listId = lists.id) WHERE ownerId = ?", arguments: [userId])
            try db.execute(sql: """
                UPDATE users SET
                    booksRead = (SELECT count(*) FROM items WHERE userId = users.id AND status = 'read'),
                    currentlyReading = (SELECT count(*) FROM items WHERE userId = users.id AND status = 'reading'),
                    updatedAt = ?
                WHERE id = ?
                """, arguments: [now, userId])
            return summary
        }
    }
}
