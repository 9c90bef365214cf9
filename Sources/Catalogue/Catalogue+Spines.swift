import BookMetadata
import Foundation
import GRDB

/// A vision model's reply to one photo, kept so the same photo, model and prompt are never
/// sent twice. `readings` is the reader's JSON, opaque here.
public struct SpineReplyRecord: Sendable, Hashable {
    public var photoHash: String
    public var reader: String
    public var file: String
    public var readings: Data
    public var inputTokens: Int
    public var outputTokens: Int
    public var truncated: Bool
    public var createdAt: Date

    public init(photoHash: String, reader: String, file: String, readings: Data, inputTokens: Int, outputTokens: Int, truncated: Bool, createdAt: Date = Date()) {
        self.photoHash = photoHash
        self.reader = reader
        self.file = file
        self.readings = readings
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.truncated = truncated
        self.createdAt = createdAt
    }
}

/// What became of one spine reading: the review table (status `review` until the user
/// accepts or rejects it) and the record that makes a re-run settle without the network.
public struct SpineRecord: Sendable, Hashable, StoredRecord {
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case added, alreadyOwned, libraryFull, review, accepted, rejected, unmatched
    }

    public var id: Int64?
    public var photoHash: String
    public var reader: String
    /// Index of the reading in the photo's reply.
    public var index: Int
    public var file: String
    public var text: String
    public var decision: String
    public var distance: Double
    public var workKey: String?
    public var isbn13: String?
    public var title: String?
    public var authors: [String]
    public var status: Status
    public var reason: String?
    public var updatedAt: Date
    /// Where the spine lies in its photo (nil for records kept before boxes were, and readers that gave none).
    public var box: SpineBox?

    public init(id: Int64? = nil, photoHash: String, reader: String, index: Int, file: String, text: String, decision: String,
                distance: Double, workKey: String?, isbn13: String?, title: String?, authors: [String], status: Status,
                reason: String?, updatedAt: Date = Date(), box: SpineBox? = nil) {
        self.id = id
        self.photoHash = photoHash
        self.reader = reader
        self.index = index
        self.file = file
        self.text = text
        self.decision = decision
        self.distance = distance
        self.workKey = workKey
        self.isbn13 = isbn13
        self.title = title
        self.authors = authors
        self.status = status
        self.reason = reason
        self.updatedAt = updatedAt
        self.box = box
    }

    static let storedTable = "spineReadings"
    static let storedKey = "photoHash"

    init(stored row: inout StoredRow) {
        id = row.optionalInt("id").map(Int64.init)
        photoHash = row.text("photoHash")
        reader = row.text("reader")
        index = row.int("readingIndex")
        file = row.optionalText("file") ?? ""
        text = row.optionalText("text") ?? ""
        decision = row.optionalText("decision") ?? ""
        distance = row.optionalDouble("distance") ?? .infinity
        workKey = row.optionalText("workKey")
        isbn13 = row.isbn13("isbn13", required: false)
        title = row.optionalText("title")
        authors = row.strings("authors")
        status = row.choice("status", Status.self) ?? .review
        reason = row.optionalText("reason")
        updatedAt = row.date("updatedAt")
        box = row.spineBox("box")
    }
}

extension StoredRow {
    /// A stored spine box; a damaged one is named and read as none (the page shows the whole photo).
    mutating func spineBox(_ column: String) -> SpineBox? {
        guard let text = optionalText(column) else { return nil }
        guard let box = SpineBox(storedText: text) else {
            note(column, value(column), "is not a spine box", required: false)
            return nil
        }
        return box
    }
}

enum SpinesMigration {
    /// "v2-spines": the reply cache and the spine readings/review table.
    static func migrate(_ db: Database) throws {
        try db.create(table: "spineReplies") { t in
            t.column("photoHash", .text).notNull()
            t.column("reader", .text).notNull()
            t.column("file", .text).notNull()
            t.column("readings", .blob).notNull()
            t.column("inputTokens", .integer).notNull()
            t.column("outputTokens", .integer).notNull()
            t.column("truncated", .boolean).notNull()
            t.column("createdAt", .datetime).notNull()
            t.primaryKey(["photoHash", "reader"])
        }
        try db.create(table: "spineReadings") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("photoHash", .text).notNull()
            t.column("reader", .text).notNull()
            t.column("readingIndex", .integer).notNull()
            t.column("file", .text).notNull()
            t.column("text", .text).notNull()
            t.column("decision", .text).notNull()
            t.column("distance", .double).notNull()
            t.column("workKey", .text)
            t.column("isbn13", .text)
            t.column("title", .text)
            t.column("authors", .jsonText).notNull()
            t.column("status", .text).notNull().indexed()
            t.column("reason", .text)
            t.column("updatedAt", .datetime).notNull()
            t.uniqueKey(["photoHash", "reader", "readingIndex"])
        }
    }

    /// "v4-spine-boxes": where each reading's spine lies in its photo (SpineBox's JSON text).
    static func addBoxes(_ db: Database) throws {
        try db.alter(table: "spineReadings") { t in t.add(column: "box", .text) }
    }
}

extension SpineReplyRecord: StoredRecord {
    static let storedTable = "spineReplies"
    static let storedKey = "photoHash"

    init(stored row: inout StoredRow) {
        photoHash = row.text("photoHash")
        reader = row.text("reader")
        file = row.optionalText("file") ?? ""
        let stored = row.value("readings")
        if let data = Data.fromDatabaseValue(stored) {
            readings = data
        } else {
            row.note("readings", stored, "is not a reply", required: true)
            readings = Data()
        }
        inputTokens = row.count("inputTokens")
        outputTokens = row.count("outputTokens")
        truncated = row.bool("truncated")
        createdAt = row.date("createdAt")
    }
}

// Spine recognition's storage: cached replies, settled readings, the review queue.
extension Catalogue {
    public func spineReply(photoHash: String, reader: String) throws(CatalogueError) -> SpineReplyRecord? {
        try read { db in
            try storedOne(SpineReplyRecord.self, db, sql: "SELECT rowid, * FROM spineReplies WHERE photoHash = ? AND reader = ?", arguments: [photoHash, reader])
        }
    }

    public func saveSpineReply(_ reply: SpineReplyRecord) throws(CatalogueError) {
        try write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO spineReplies (photoHash, reader, file, readings, inputTokens, outputTokens, truncated, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [reply.photoHash, reply.reader, reply.file, reply.readings, reply.inputTokens, reply.outputTokens,
                                 reply.truncated, reply.createdAt])
        }
    }

    /// The settled readings of one photo by one reader, by index.
    public func spineRecords(photoHash: String, reader: String) throws(CatalogueError) -> [Int: SpineRecord] {
        try read { db in
            let records = try stored(SpineRecord.self, db, sql: "SELECT rowid, * FROM spineReadings WHERE photoHash = ? AND reader = ?", arguments: [photoHash, reader])
            return Dictionary(records.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Inserts or replaces the record of (photo, reader, index).
    @discardableResult
    public func saveSpineRecord(_ record: SpineRecord) throws(CatalogueError) -> SpineRecord {
        try write { db in
            let authors = String(decoding: try JSONEncoder().encode(record.authors), as: UTF8.self)
            try db.execute(sql: """
                INSERT INTO spineReadings (photoHash, reader, readingIndex, file, text, decision, distance, workKey, isbn13, title, authors, status, reason, updatedAt, box)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(photoHash, reader, readingIndex) DO UPDATE SET file = excluded.file, text = excluded.text,
                    decision = excluded.decision, distance = excluded.distance, workKey = excluded.workKey, isbn13 = excluded.isbn13,
                    title = excluded.title, authors = excluded.authors, status = excluded.status, reason = excluded.reason,
                    updatedAt = excluded.updatedAt, box = excluded.box
                """, arguments: [record.photoHash, record.reader, record.index, record.file, record.text, record.decision,
                                 record.distance, record.workKey, record.isbn13, record.title, authors, record.status.rawValue,
                                 record.reason, record.updatedAt, record.box?.storedText])
            return try storedOne(SpineRecord.self, db, sql: "SELECT rowid, * FROM spineReadings WHERE photoHash = ? AND reader = ? AND readingIndex = ?",
                                 arguments: [record.photoHash, record.reader, record.index]) ?? record
        }
    }

    /// Medium matches waiting for the user, oldest first.
    public func spineReviews() throws(CatalogueError) -> [SpineRecord] {
        try read { db in
            try stored(SpineRecord.self, db, sql: "SELECT rowid, * FROM spineReadings WHERE status = 'review' ORDER BY id")
        }
    }

    public func setSpineStatus(id: Int64, _ status: SpineRecord.Status, now: Date = Date()) throws(CatalogueError) {
        try write { db in
            try db.execute(sql: "UPDATE spineReadings SET status = ?, updatedAt = ? WHERE id = ?", arguments: [status.rawValue, now, id])
        }
    }

    /// Every work in the cache as (workKey, title, authors, primary ISBN): the spine matcher's local candidates.
    public func allWorkSummaries() throws(CatalogueError) -> [(workKey: String, title: String, authors: [String], isbn: String)] {
        try read { db in
            // Four columns, not whole works: the matcher loads every cached work.
            var summaries: [(workKey: String, title: String, authors: [String], isbn: String)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT rowid, workKey, title, authors, primaryIsbn FROM works")
            while let row = try rows.next() {
                var stored = StoredRow(row, table: Work.storedTable, keyColumn: Work.storedKey)
                let summary = (stored.text("workKey"), stored.text("title"), stored.strings("authors"), stored.optionalText("primaryIsbn") ?? "")
                stored.problems.forEach(damage.record)
                if !stored.skipped { summaries.append(summary) }
            }
            return summaries
        }
    }
}
