import BookCodes
import Foundation
import GRDB

/// A code no source knew, kept so the user can retry it or add the book by hand.
public struct NotFoundCode: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "notFoundCodes"
    static let storedTable = "notFoundCodes"
    static let storedKey = "isbn"
    public var isbn: String
    /// The photo or import file (with line) it came from, when there was one.
    public var origin: String
    public var firstSeenAt: Date
    public var lastSeenAt: Date
    public var times: Int

    public init(isbn: String, origin: String, firstSeenAt: Date, lastSeenAt: Date, times: Int) {
        self.isbn = isbn
        self.origin = origin
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.times = times
    }

    public init(row: Row) throws { self = try .strictly(row) }

    init(stored row: inout StoredRow) {
        isbn = row.isbn13("isbn") ?? ""
        origin = row.optionalText("origin") ?? ""
        firstSeenAt = row.date("firstSeenAt")
        lastSeenAt = row.date("lastSeenAt")
        times = row.count("times")
    }
}

extension Schema {
    // "v2-library": not-found codes, and the rows an import has finished with (resume).
    static func createLibraryTables(_ db: Database) throws {
        try db.create(table: "notFoundCodes") { t in
            t.primaryKey("isbn", .text)
            t.column("origin", .text).notNull()
            t.column("firstSeenAt", .datetime).notNull()
            t.column("lastSeenAt", .datetime).notNull()
            t.column("times", .integer).notNull()
        }
        try db.create(table: "importedRows") { t in
            // The import file's content hash and the row's line: a re-run skips done rows.
            t.column("fileHash", .text).notNull()
            t.column("line", .integer).notNull()
            t.column("outcome", .text).notNull()
            t.primaryKey(["fileHash", "line"])
        }
    }
}

extension Catalogue {
    /// Remembers (or counts again) a code that no source knew.
    public func rememberNotFound(isbn: ISBN13, origin: String, now: Date = Date()) throws(CatalogueError) {
        try write { db in
            if var row = try storedOne(NotFoundCode.self, db, sql: "SELECT rowid, * FROM notFoundCodes WHERE isbn = ?", arguments: [isbn.digits]) {
                row.lastSeenAt = now
                row.times += 1
                row.origin = origin
                try row.update(db)
            } else {
                // `save`: a row of this code found damaged is written over, not tripped on.
                try NotFoundCode(isbn: isbn.digits, origin: origin, firstSeenAt: now, lastSeenAt: now, times: 1).save(db)
            }
        }
    }

    public func forgetNotFound(isbn: ISBN13) throws(CatalogueError) {
        _ = try write { db in try NotFoundCode.deleteOne(db, key: isbn.digits) }
    }

    /// Every remembered not-found code, most recent first.
    public func notFoundCodes() throws(CatalogueError) -> [NotFoundCode] {
        try read { db in try stored(NotFoundCode.self, db, sql: "SELECT rowid, * FROM notFoundCodes ORDER BY lastSeenAt DESC, isbn") }
    }

    /// Lines of the import `fileHash` this station already finished with (rows from before
    /// stations count for every station).
    public func importedLines(fileHash: String, station: String = Station.hostName) throws(CatalogueError) -> Set<Int> {
        try read { db in
            // A line that is not a number marks nothing done: that row is imported again (idempotent), never skipped.
            Set(try DatabaseValue.fetchAll(db, sql: "SELECT line FROM importedRows WHERE fileHash = ? AND station IN (?, ?)",
                                                     arguments: [fileHash, station, Station.unrecorded]).compactMap { value in
                if case let .int64(line) = value.storage { return Int(exactly: line) }
                return nil
            })
        }
    }

    /// Marks import rows done (idempotent), inside the transaction that filed them.
    static func markImported(fileHash: String, lines: [(Int, String)], station: String, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO importedRows (station, fileHash, line, outcome) VALUES (?, ?, ?, ?)")
        for (line, outcome) in lines { try statement.execute(arguments: [station, fileHash, line, outcome]) }
    }
}
